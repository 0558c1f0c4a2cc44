#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench_publish_test.sh BENCH_SH
#
# tools/bench.sh replaces benchmarks/results/, RESULTS.md, churn.png and
# README.md (its summary) only when its whole run has succeeded:
#   - a benchmark program that fails: all four as they were;
#   - the run killed (SIGTERM to bench.sh and to the program it runs)
#     while a program runs: the same;
#   - a run that succeeds: all four replaced, a result file the new run
#     did not write is gone;
# and in every case the run's temporary folder is removed and nothing is
# left beside the published files.
#
# bench.sh runs from a copy in a scratch tree, with stand-ins for bazel
# (whose bazel-bin holds fake benchmark programs writing small JSON files),
# tools/wheel.sh, python3 (the JSON clean-up and benchmarks/report.py) and
# gnuplot. What is tested is bench.sh's own handling of its outputs.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: bench_publish_test.sh BENCH_SH" >&2; exit 2; }

base=${TEST_TMPDIR:-$(mktemp -d)}
tree="$base/tree"
stubs="$base/stubs"
bin="$base/bazel-bin"
tmp="$base/tmp"
mkdir -p "$tree/tools" "$tree/benchmarks/results" "$stubs" "$bin/benchmarks" \
  "$bin/lib/shared" "$tmp"
cp -L "$1" "$tree/tools/bench.sh" && chmod 755 "$tree/tools/bench.sh"
touch "$bin/lib/shared/librcupool.so.0" "$bin/lib/shared/librcupool_xnnpack.so.0"

# The programs bench.sh runs: each writes its --benchmark_out (and
# churn_bench its --timeline_out). FAIL_AT names one that exits 1;
# HANG_AT one that writes its process id to $base/started and sleeps.
for name in read_bench read_bench_shared dispatch_bench xnn_bench \
    reset_bench sized_bench idle_bench warm_bench churn_bench python_bench \
    views_bench; do
  cat > "$bin/benchmarks/$name" <<PROG
#!/bin/bash
[ "\${FAIL_AT:-}" = $name ] && exit 1
if [ "\${HANG_AT:-}" = $name ]; then echo \$\$ > "$base/started"; exec sleep 60; fi
for a in "\$@"; do
  case "\$a" in
    --benchmark_out=*) echo '{"context": {"executable": "/x/$name"}, "benchmarks": []}' > "\${a#*=}" ;;
    --timeline_out=*) echo "0 1" > "\${a#*=}" ;;
  esac
done
PROG
  chmod 755 "$bin/benchmarks/$name"
done

cat > "$stubs/bazel" <<STUB
#!/bin/sh
[ "\$1" = info ] && echo "$bin"
exit 0
STUB
printf '#!/bin/sh\nexit 0\n' > "$tree/tools/wheel.sh"
printf '#!/bin/sh\nexit 0\n' > "$tree/tools/setup.sh"
# python3 - FILES (the JSON clean-up): reads its program, does nothing.
# python3 benchmarks/report.py ... --out FILE: writes FILE.
# python3 benchmarks/report.py ... --readme FILE: writes FILE.
# python3 benchmarks/report.py ... --gnuplot-vars: prints one variable.
cat > "$stubs/python3" <<'STUB'
#!/bin/bash
[ "$1" = - ] && { cat > /dev/null; exit 0; }
prev=""
for a in "$@"; do
  [ "$a" = --gnuplot-vars ] && { echo "t0='new';"; exit 0; }
  [ "$prev" = --out ] && echo "# new report" > "$a"
  [ "$prev" = --readme ] && echo "# new summary" > "$a"
  prev=$a
done
exit 0
STUB
# gnuplot -e "...; outfile='FILE'; ..." SCRIPT: writes FILE.
cat > "$stubs/gnuplot" <<'STUB'
#!/bin/bash
f=$(printf '%s\n' "$2" | sed -n "s/.*outfile='\([^']*\)'.*/\1/p")
echo "new picture" > "$f"
STUB
chmod 755 "$stubs"/* "$tree/tools/wheel.sh" "$tree/tools/setup.sh"

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
failures=0

publish_old() {
  rm -rf "$tree/benchmarks"
  mkdir -p "$tree/benchmarks/results"
  echo old > "$tree/benchmarks/results/read_bench.json"
  echo old > "$tree/benchmarks/results/stale.json"
  echo '{"placement": "kept"}' > "$tree/benchmarks/results/placement_bench.json"
  echo "# old report" > "$tree/benchmarks/RESULTS.md"
  echo "# old summary" > "$tree/benchmarks/README.md"
  echo "old picture" > "$tree/benchmarks/churn.png"
}
tree_sum() {
  (cd "$tree/benchmarks" && find . -print | LC_ALL=C sort &&
     find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
clean_tmp() {
  [ -z "$(ls -A "$tmp")" ] || fail "$1: left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
  rm -rf "${tmp:?}"/*
}
bench() {
  env PATH="$stubs:$PATH" TMPDIR="$tmp" "$@" "$tree/tools/bench.sh" \
    > "$base/log" 2>&1
}

# A program fails.
publish_old
before=$(tree_sum)
bench FAIL_AT=sized_bench
rc=$?
[ "$rc" -ne 0 ] || fail "failed run: exit status 0"
[ "$(tree_sum)" = "$before" ] || fail "failed run: benchmarks/ changed"
clean_tmp "failed run"

# The run is killed while a program runs.
publish_old
before=$(tree_sum)
rm -f "$base/started"
env PATH="$stubs:$PATH" TMPDIR="$tmp" HANG_AT=churn_bench \
  "$tree/tools/bench.sh" > "$base/log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$base/started" ] && break; sleep 0.1; done
if [ -s "$base/started" ]; then
  kill -TERM "$pid" "$(cat "$base/started")"
else
  fail "killed run: churn_bench never started: $(cat "$base/log")"
  kill -TERM "$pid"
fi
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] || fail "killed run: exit status 0"
[ "$(tree_sum)" = "$before" ] || fail "killed run: benchmarks/ changed"
clean_tmp "killed run"

# A run that succeeds.
publish_old
bench
rc=$?
[ "$rc" -eq 0 ] || fail "good run: exit status $rc: $(cat "$base/log")"
b="$tree/benchmarks"
[ -e "$b/results/stale.json" ] && fail "good run: kept a result it did not write"
# placement_bench's results come from its own command: kept as they were.
[ "$(cat "$b/results/placement_bench.json" 2>/dev/null)" = '{"placement": "kept"}' ] ||
  fail "good run: results/placement_bench.json not kept as it was"
for name in read_bench read_bench_shared dispatch_bench xnn_bench \
    reset_bench sized_bench idle_bench warm_bench churn_bench python_bench \
    views_bench idle_bench_newest; do
  grep -q '"benchmarks"' "$b/results/$name.json" 2>/dev/null ||
    fail "good run: no new results/$name.json"
done
[ -f "$b/results/churn_timeline.dat" ] || fail "good run: no results/churn_timeline.dat"
[ "$(cat "$b/RESULTS.md")" = "# new report" ] || fail "good run: RESULTS.md not replaced"
[ "$(cat "$b/churn.png")" = "new picture" ] || fail "good run: churn.png not replaced"
[ "$(cat "$b/README.md")" = "# new summary" ] || fail "good run: README.md's summary not rewritten"
[ "$(cd "$b" && find . -print | LC_ALL=C sort | tr '\n' ' ')" = \
  ". ./README.md ./RESULTS.md ./churn.png ./results ./results/churn_bench.json ./results/churn_timeline.dat ./results/dispatch_bench.json ./results/idle_bench.json ./results/idle_bench_newest.json ./results/placement_bench.json ./results/python_bench.json ./results/read_bench.json ./results/read_bench_shared.json ./results/reset_bench.json ./results/sized_bench.json ./results/views_bench.json ./results/warm_bench.json ./results/xnn_bench.json " ] ||
  fail "good run: benchmarks/ holds: $(cd "$b" && find . -print | LC_ALL=C sort | tr '\n' ' ')"
clean_tmp "good run"

if [ "$failures" -ne 0 ]; then
  echo "--- last run's output:" >&2
  cat "$base/log" >&2
  exit 1
fi
echo "PASS"
