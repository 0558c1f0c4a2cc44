# SPDX-License-Identifier: LGPL-2.1-or-later
# Draws the churn timeline written by churn_bench --timeline_out.
#   gnuplot -e "datafile='...'; outfile='...'; t0='...'; t1='...'; t2='...'" churn.gp
# Blocks of the data file: 0 rcupool, 1 keep every pool, 2 destroy on reset.
set terminal pngcairo size 960,540 font "sans,11"
set output outfile
set title "OS threads while resetting to 1, 2, ..., 16 threads (load, run, drop each time)"
set xlabel "time since the first reset (ms)"
set ylabel "OS threads of the process"
set key top left box opaque
set grid ytics
set yrange [0:*]
plot datafile index 1 using 1:2 with steps lw 3 lc rgb "#d62728" title t1, \
     datafile index 2 using 1:2 with steps lw 2 lc rgb "#7f7f7f" dt 2 title t2, \
     datafile index 0 using 1:2 with steps lw 3 lc rgb "#1f77b4" title t0
