#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs every benchmark and regenerates the published results:
#   benchmarks/results/*.json   raw Google Benchmark output
#   benchmarks/RESULTS.md       the targets, their ratios and every row
#   benchmarks/churn.png        OS threads over time during the churn
#   benchmarks/README.md        its summary table (between its markers)
# views_bench is built against the newest Debian pthreadpool (--config=newest,
# tools/setup.sh --deps newest).
#
#   tools/bench.sh
#
# Builds with -c opt. Each program runs with repetitions, randomly
# interleaved, so the rows a ratio compares run side by side. About 4
# minutes on 2 cores, plus the first -c opt build (the last line says how
# long the benchmarks took). The run writes into a temporary folder; the four
# outputs above are replaced only when every step has succeeded, so a
# failed or interrupted run leaves the committed results as they were.
# Environment:
#   BENCH_REPETITIONS        repetitions per benchmark (default 5)
#   BAZEL_STARTUP_OPTIONS    options placed before the bazel command
set -euo pipefail

usage() {
  cat <<'EOF'
usage: tools/bench.sh [-h|--help]

Builds the benchmarks of benchmarks/ with bazel -c opt, runs them all and
regenerates benchmarks/RESULTS.md, benchmarks/README.md's summary table,
benchmarks/churn.png and
benchmarks/results/ (replaced only when the whole run has succeeded).
About 4 minutes on 2 cores, plus the first -c opt build. Takes no
arguments. Environment:
  BENCH_REPETITIONS        repetitions per benchmark (default 5)
  BAZEL_STARTUP_OPTIONS    options placed before the bazel command
EOF
}

if [ $# -gt 0 ]; then
  case "$1" in
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown argument: $1 (it takes none; see --help)" >&2
       exit 2 ;;
  esac
fi

cd "$(dirname "$0")/.."

reps="${BENCH_REPETITIONS:-5}"
# shellcheck disable=SC2206
bazel=(bazel ${BAZEL_STARTUP_OPTIONS:-})

# Everything this run writes goes under $work until the run has succeeded.
work="$(mktemp -d "${TMPDIR:-/tmp}/rcupool-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Pools as views (issue 40): views_bench and idle_bench built against the
# newest Debian pthreadpool (tools/setup.sh --deps newest builds it, a few
# seconds once), where rcupool's pools are views. Built first and kept
# aside ($newest), as the plain build below replaces Bazel's outputs; so
# idle_bench can run on both pthreadpools one right after the other.
tools/setup.sh --deps newest
"${bazel[@]}" build -c opt --config=newest //benchmarks:views_bench \
  //benchmarks:idle_bench
# Both builds write to the same -c opt output folder.
root="$("${bazel[@]}" info -c opt bazel-bin 2>/dev/null)"
lib="$root/lib/shared"
bin="$root/benchmarks"
newest="$work/newest"
mkdir "$newest"
cp "$bin/views_bench" "$bin/idle_bench" "$newest/"

"${bazel[@]}" build -c opt //benchmarks:all
out="$work/results"
timeline="$work/churn_timeline.dat"
site="$work/site"
mkdir "$out" "$site"

# run_as NAME PROGRAM REPETITIONS [ARG...]: results/NAME.json from PROGRAM
# (a name in $bin, or a path).
run_as() {
  local name="$1" program="$2" n="$3"
  shift 3
  case "$program" in /*) ;; *) program="$bin/$program" ;; esac
  echo "=== $name ($n repetitions)"
  "$program" \
    --benchmark_repetitions="$n" \
    --benchmark_enable_random_interleaving=true \
    --benchmark_out="$out/$name.json" \
    --benchmark_out_format=json \
    "$@"
}
run() { run_as "$1" "$@"; }

start=$SECONDS
run read_bench "$reps" --benchmark_min_time=0.2
# The rows the targets need, with rcupool loaded from librcupool.so.0.
run read_bench_shared "$reps" --benchmark_min_time=0.2 \
  --benchmark_filter='Rcupool|BareUrcu|MutexGetter|AtomicRefcount|TwoEmptyCalls|PerThreadCounter'
run dispatch_bench "$reps" --benchmark_min_time=0.2
run xnn_bench "$reps" --benchmark_min_time=0.2
run reset_bench "$reps"
run sized_bench "$reps" --benchmark_min_time=0.2
# Warm widths: the guard rows, then two churns of about 2 s each.
run warm_bench "$reps" --benchmark_min_time=0.2
# Thread counts are exact; three runs show they repeat.
run churn_bench 3 --timeline_out="$timeline"
# The Python package, laid out with the librcupool.so.0 built above.
tools/wheel.sh --library "$lib/librcupool.so.0" \
  --xnnpack-library "$lib/librcupool_xnnpack.so.0" --stage "$site"
run python_bench "$reps" --benchmark_min_time=0.2 --python_path="$site"

# Fixed iteration counts of 50-200 ms windows: about 20 s a repetition.
# The idle rows on views (idle_bench_newest) are compared with idle_bench's
# on Debian 12's pthreadpool: the two run back to back, as the CPU a
# sleeping caller's 50 ms window costs (the floor of both) drifts on this
# kind of machine from one minute to the next.
run idle_bench 3
run_as idle_bench_newest "$newest/idle_bench" 3
run_as views_bench "$newest/views_bench" "$reps" --benchmark_min_time=0.2

# The raw JSON names the binary by its path in Bazel's output base: keep
# only its name, so the committed files hold no path of this machine.
python3 - "$out"/*.json <<'PY'
import json, os, sys
for path in sys.argv[1:]:
    with open(path) as f:
        data = json.load(f)
    ctx = data.get("context", {})
    if "executable" in ctx:
        ctx["executable"] = os.path.basename(ctx["executable"])
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
PY

model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain -- lib include benchmarks/*.cc \
           benchmarks/*.c benchmarks/*.h benchmarks/baselines 2>/dev/null)" ]; then
  commit="$commit (with uncommitted changes)"
fi
# placement_bench is run by its own command (docs/placement.md; RESULTS.md's
# hand-written section): its raw results are kept as they are.
if [ -f benchmarks/results/placement_bench.json ]; then
  cp benchmarks/results/placement_bench.json "$out/"
fi
# report.py keeps the hand-written section of the file it writes over.
if [ -f benchmarks/RESULTS.md ]; then cp benchmarks/RESULTS.md "$work/RESULTS.md"; fi
python3 benchmarks/report.py --results "$out" --out "$work/RESULTS.md" \
  --commit "$commit" --date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  --model "${model:-unknown}"
# README.md's summary table, from the same results.
cp benchmarks/README.md "$work/README.md"
python3 benchmarks/report.py --results "$out" --readme "$work/README.md"
cp "$timeline" "$out/churn_timeline.dat"
chmod 644 "$out/churn_timeline.dat"
gnuplot -e "datafile='$timeline'; outfile='$work/churn.png'; \
$(python3 benchmarks/report.py --results "$out" --gnuplot-vars)" \
  benchmarks/churn.gp

# The run succeeded: copy its outputs beside the published ones, then put
# each in place by a rename within benchmarks/.
rm -rf benchmarks/.results.new benchmarks/.results.old
cp -R "$out" benchmarks/.results.new
cp "$work/RESULTS.md" benchmarks/.RESULTS.md.new
cp "$work/churn.png" benchmarks/.churn.png.new
cp "$work/README.md" benchmarks/.README.md.new
if [ -d benchmarks/results ]; then mv benchmarks/results benchmarks/.results.old; fi
mv benchmarks/.results.new benchmarks/results
mv -f benchmarks/.RESULTS.md.new benchmarks/RESULTS.md
mv -f benchmarks/.churn.png.new benchmarks/churn.png
mv -f benchmarks/.README.md.new benchmarks/README.md
rm -rf benchmarks/.results.old
echo "=== wrote benchmarks/RESULTS.md, README.md's summary, churn.png and results/ in $((SECONDS - start)) s"
