#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# include_graph_test.sh INCLUDE_GRAPH_PY LAYOUT_MD LIB_FILE...
#
# tools/include_graph.py on the files of lib/: no circle, no back arrow,
# no misplaced declaration, no include fault, exit status 0. Then the same
# check on three copies of lib/ that it must reject, so that it is seen to
# fail: one where lib/lock.c logs (lock.c -> log.c -> lock.h -> lock.c, a
# circle), one where lib/warm.c no longer includes lock.h (an include
# fault), one where lib/reclaim.h declares barrier.c's drain again (a
# misplaced declaration: a header declares only what its own .c defines),
# and a fourth with a circle of units that no file circle shows (the
# manager's struct in manager.c's own header).
# Last, docs/layout.md's table of lib/'s layers is the tool's --layers
# output on lib/ (so the table cannot drift from the code), and a table
# without its top layer is seen to differ.
set -uo pipefail

[ $# -gt 2 ] || { echo "usage: include_graph_test.sh INCLUDE_GRAPH_PY LAYOUT_MD LIB_FILE..." >&2; exit 2; }
tool=$1
layout=$2
shift 2
base=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

out=$("$tool" "$@")
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || fail "lib/: exit status $rc, want 0"
grep -q ", 0 back arrows, 0 circles, 0 misplaced declarations, 0 include faults; [0-9]* units, 0 unit circles$" <<<"$out" ||
  fail "lib/: the summary does not say 0 back arrows, 0 circles, 0 misplaced declarations, 0 include faults, 0 unit circles"

copy() {
  rm -rf "$base/$1"
  mkdir -p "$base/$1"
  cp -L "${files[@]}" "$base/$1/"
}
files=("$@")

# A circle: lock.c calls the log, which locks.
copy circle
sed -i 's|^#include "lock.h"$|#include "lock.h"\n#include "log_internal.h"|' "$base/circle/lock.c"
sed -i 's|^  rcupl_die_at(file, line, "%s failed (error %d)", what, err);$|  rcupl_log(RCUPOOL_LOG_ERROR, "%s", what);\n&|' "$base/circle/lock.c"
grep -q "rcupl_log(RCUPOOL_LOG_ERROR" "$base/circle/lock.c" || fail "the circle could not be made (lock.c changed?)"
out=$("$tool" "$base"/circle/*.c "$base"/circle/*.h)
rc=$?
[ "$rc" -eq 1 ] || fail "circle: exit status $rc, want 1"
grep -q "^circle: lock.c lock.h log.c$" <<<"$out" || fail "circle: not reported: $out"

# An include fault: warm.c locks without including lock.h.
copy fault
sed -i '/^#include "lock.h"$/d' "$base/fault/warm.c"
out=$("$tool" "$base"/fault/*.c "$base"/fault/*.h)
rc=$?
[ "$rc" -eq 1 ] || fail "include fault: exit status $rc, want 1"
grep -q "^include: warm.c uses rcupl_mutex_lock without including lock.h$" <<<"$out" ||
  fail "include fault: not reported: $out"

# A misplaced declaration: reclaim.h declares a function of barrier.c.
copy misplaced
sed -i 's|^void rcupl_reclaim_stop(void);$|&\nint rcupl_reclaim_drain(rcupool_t *m);|' "$base/misplaced/reclaim.h"
grep -q "^int rcupl_reclaim_drain" "$base/misplaced/reclaim.h" || fail "the misplaced declaration could not be made (reclaim.h changed?)"
out=$("$tool" "$base"/misplaced/*.c "$base"/misplaced/*.h)
rc=$?
[ "$rc" -eq 1 ] || fail "misplaced declaration: exit status $rc, want 1"
grep -q "^misplaced: reclaim.h (reclaim.c's header) declares rcupl_reclaim_drain, defined in barrier.c$" <<<"$out" ||
  fail "misplaced declaration: not reported: $out"

# A circle of units only: the manager's struct back in manager.c's own
# interface (lib/manager.h here), so that managers.c, which walks the
# managers, depends on manager.c, which lists them through managers.c.
# No file reaches itself (the struct's header calls nothing): only the
# units' graph, where a .c file and its header are one node, sees it.
copy units
mv "$base/units/manager_state.h" "$base/units/manager.h"
sed -i 's|"manager_state.h"|"manager.h"|' "$base"/units/*.c "$base"/units/*.h
out=$("$tool" "$base"/units/*.c "$base"/units/*.h)
rc=$?
[ "$rc" -eq 1 ] || fail "unit circle: exit status $rc, want 1"
grep -q ", 0 circles," <<<"$out" || fail "unit circle: the file graph has a circle too: $out"
grep -q "^unit circle: .*manager managers" <<<"$out" &&
  grep -q "^  managers -> manager  (rcupool_manager)$" <<<"$out" ||
  fail "unit circle: not reported: $out"

# The layer table of docs/layout.md, between its two marker lines.
table() {
  sed -n '/^<!-- layers: tools\/include_graph.py --layers -->$/,/^<!-- end of layers -->$/p' "$1" |
    sed '1d;$d' | sed 's/^    //'
}
want=$("$tool" --layers "$@")
have=$(table "$layout")
[ -n "$have" ] || fail "docs/layout.md: no layer table between its marker lines"
if [ "$have" != "$want" ]; then
  fail "docs/layout.md's layer table differs from tools/include_graph.py --layers:"
  diff <(echo "$have") <(echo "$want") >&2
fi
# The comparison sees a table that lost its top layer.
[ "$(sed '$d' <<<"$want")" != "$want" ] || fail "a changed layer table is not seen to differ"

[ "$failures" -eq 0 ] && echo "PASS" || echo "$failures failures"
[ "$failures" -eq 0 ]
