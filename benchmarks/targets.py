# SPDX-License-Identifier: LGPL-2.1-or-later
"""The targets, tables and rows benchmarks/report.py writes into RESULTS.md:
data only. Row names are the Google Benchmark run names without "BM_" and
without the parts that say how a row ran (real_time, iterations:N,
threads:N...): "Reset_NewSize/2", "Dispatch_Rcupool/tiny_tasks". A program
is the JSON file's name without ".json" (tools/bench.sh names each after
its binary).

To add a target, add a line to TARGETS; a row to show, a line to a table
below. Why a target is missed, when it is, goes in the hand-written section
of RESULTS.md, not here.
"""

STATIC, SHARED = (("read_bench", "static"),), (("read_bench_shared",
                                                  "librcupool.so"),)
READ = STATIC + SHARED
DISPATCH, XNN, RESET, SIZED, IDLE, WARM, PY = (((p, None),) for p in (
    "dispatch_bench", "xnn_bench", "reset_bench", "sized_bench",
    "idle_bench", "warm_bench", "python_bench"))
# Pools as views (issue 40): built with --config=newest, where rcupool's
# pools are pthreadpool_create_v2 views; the reference rows are pools that
# own their threads on the same pthreadpool, in the same run.
VIEWS = (("views_bench", "newest pthreadpool"),)
# idle_bench again, built with --config=newest (pools as views), in the
# same run as idle_bench on Debian 12's pthreadpool (pools owning threads).
IDLE_VIEWS = (("idle_bench_newest", "newest pthreadpool, pools as views"),)
# measure ({v}: the variant), programs, rcupool's row, reference's label,
# reference's row, thread counts ("1", "2+": each count above 1, "all"),
# target: ("<=", x) rcupool time / reference time at most x; (">=", x)
# reference time / rcupool time at least x; None: reported, no target.
# A row ending in "/*" stands for each variant measured (the reference the
# same variant). "paired:C" is the reference each iteration of rcupool's
# row timed beside it (counter paired_create_us), the ratio its counter C.
# "program:row": a row of another program, at 1 thread. "ms:L": a fixed
# limit of L ms, compared with rcupool's row's p50_ms counter. "threads:N":
# rcupool's own row at N threads (per operation as each thread sees it).
TARGETS = (
    ("read section, inline.h", READ, "Read_RcupoolInline", "bare liburcu",
     "Read_BareUrcu", "all", ("<=", 1.5)),
    ("read section vs mutex getter, inline.h", READ, "Read_RcupoolInline",
     "mutex", "Read_MutexGetter", "1", (">=", 4)),
    ("read section vs mutex getter, inline.h", READ, "Read_RcupoolInline",
     "mutex", "Read_MutexGetter", "2+", (">=", 20)),
    ("read section, out of line", STATIC, "Read_Rcupool", "bare liburcu",
     "Read_BareUrcu", "all", ("<=", 1.5)),
    ("read section vs mutex getter, out of line", STATIC, "Read_Rcupool",
     "mutex", "Read_MutexGetter", "1", (">=", 4)),
    ("read section vs mutex getter, out of line", STATIC, "Read_Rcupool",
     "mutex", "Read_MutexGetter", "2+", (">=", 20)),
    ("pin + unpin", STATIC, "Pin_Rcupool", "atomic refcount",
     "Read_AtomicRefcount", "1", ("<=", 1.0)),
    # Through librcupool.so.0, as Python and CMake users run it.
    ("read section (lock, current, unlock)", SHARED, "Read_Rcupool",
     "bare liburcu", "Read_BareUrcu", "all", ("<=", 2.5)),
    ("read section (lock_current, unlock)", SHARED,
     "Read_RcupoolLockCurrent", "bare liburcu", "Read_BareUrcu", "all",
     ("<=", 2.5)),
    ("read section (lock_current, unlock) vs mutex getter", SHARED,
     "Read_RcupoolLockCurrent", "mutex", "Read_MutexGetter", "1", (">=", 2)),
    ("read section (lock_current, unlock) vs mutex getter", SHARED,
     "Read_RcupoolLockCurrent", "mutex", "Read_MutexGetter", "2+",
     (">=", 20)),
    ("pin + unpin", SHARED, "Pin_Rcupool", "atomic refcount",
     "Read_AtomicRefcount", "1", ("<=", 1.5)),
    # The floors under the two rows above: the same calls into a .so.
    ("two empty calls into a .so (lock_current + unlock's floor)", SHARED,
     "Read_TwoEmptyCallsShared", "bare liburcu", "Read_BareUrcu", "1",
     None),
    ("read section (lock_current, unlock) vs two empty calls into a .so",
     SHARED, "Read_RcupoolLockCurrent", "empty calls",
     "Read_TwoEmptyCallsShared", "1", None),
    ("atomic refcount get + put in a .so (pin + unpin's floor)", SHARED,
     "Read_AtomicRefcountShared", "atomic refcount", "Read_AtomicRefcount",
     "1", None),
    ("pin + unpin vs atomic refcount in a .so", SHARED, "Pin_Rcupool",
     "refcount in a .so", "Read_AtomicRefcountShared", "1", None),
    ("pin + unpin", READ, "Pin_Rcupool", "atomic refcount",
     "Read_AtomicRefcount", "2+", None),
    # Pins scale with the threads that pin (invariant 15): each count of
    # threads beside a counter nobody shares (the floor) and the refcount
    # every thread shares; the 2+ rows also give n threads / 1 thread.
    ("pin + unpin vs a per-thread counter (the floor)", READ, "Pin_Rcupool",
     "per-thread counter", "Read_PerThreadCounter", "all", None),
    ("pin + unpin vs the same on 1 thread", READ, "Pin_Rcupool",
     "1 thread", "threads:1", "2+", ("<=", 1.3)),
    ("width guard (sized pin, scope, unpin) at the current width vs the "
     "same on 1 thread", READ, "Guard_Rcupool/current_size", "1 thread",
     "threads:1", "2+", ("<=", 1.3)),
    ("a per-thread counter vs the shared refcount", STATIC,
     "Read_PerThreadCounter", "atomic refcount", "Read_AtomicRefcount",
     "all", None),
    ("width guard (sized pin, scope, unpin), {v}", SHARED, "Guard_Rcupool/*",
     "atomic refcount", "Read_AtomicRefcount", "1", ("<=", 4)),
    ("width guard (sized pin, scope, unpin), {v}", STATIC, "Guard_Rcupool/*",
     "atomic refcount", "Read_AtomicRefcount", "1", None),
    ("width guard, {v}, vs a 1024-tiny-task dispatch", SHARED,
     "Guard_Rcupool/*", "dispatch", "dispatch_bench:Dispatch_Rcupool/"
     "tiny_tasks", "1", ("<=", 0.02)),
    ("reclaim p50: reset -> retired pool freed", RESET,
     "Reclaim_ResetToFreed", "limit", "ms:2", "1", ("<=", 1.0)),
    # A pool that loses its last pin stays warm for warm_ms (lib/warm.c), so
    # this row runs with a 50 ms linger: its limit is the linger + 2 ms.
    ("reclaim p50: last unpin -> pool freed, warm for 50 ms (linger + "
     "reclaim)", RESET, "Reclaim_LastUnpinToFreed", "linger + 2 ms", "ms:52",
     "1", ("<=", 1.0)),
    ("dispatch, {v}", DISPATCH, "Dispatch_Rcupool/*", "pthreadpool",
     "Dispatch_Pthreadpool/*", "1", ("<=", 1.05)),
    ("XNNPACK invoke, 3x FC 256x256, batch 64", XNN, "XnnInvoke_Rcupool",
     "raw XNNPACK", "XnnInvoke_Raw", "1", None),
    ("reset 1 -> {v} (new size)", RESET, "Reset_NewSize/*",
     "pthreadpool_create (paired)", "paired:reset_over_create", "1",
     ("<=", 1.1)),
    ("create + one dispatch of n items (a census's shape), n = {v}", RESET,
     "Create_PthreadpoolAndDispatch/*", "pthreadpool_create (paired)",
     "paired:dispatch_over_create", "1", None),
    # Where a new pool's start goes (reset_bench: replicas of
    # rcupl_pool_create's parts, each paired with a pthreadpool_create).
    ("start, part: the probe threads alone, n = {v}", RESET,
     "Start_Probes/*", "pthreadpool_create (paired)",
     "paired:probes_over_create", "1", None),
    ("start, part: probe threads + pthreadpool_create, n = {v}", RESET,
     "Start_ProbesThenCreate/*", "pthreadpool_create (paired)",
     "paired:probes_create_over_create", "1", None),
    ("start, part: pthreadpool_create + worker census, n = {v}", RESET,
     "Start_CreateThenCensus/*", "pthreadpool_create (paired)",
     "paired:create_census_over_create", "1", None),
    ("start, replica: probes + pthreadpool_create + census, n = {v}", RESET,
     "Start_Replica/*", "pthreadpool_create (paired)",
     "paired:replica_over_create", "1", None),
    ("reset back to kept size {v}", RESET, "Reset_BackToKeptSize/*",
     "pthreadpool_create", "Create_Pthreadpool/*", "1", (">=", 10)),
    # "A reset never waits for readers": each timed reset starts just after
    # the reader entered a 100 ms section, so waiting would cost ~100 ms.
    ("reset (create) p50, started as a reader enters a 100 ms section",
     RESET, "Reset_NewSizeUnderReader/long_reader", "the section", "ms:100",
     "1", ("<=", 0.5)),
    ("reset (create) while a reader holds a 100 ms section vs no reader",
     RESET, "Reset_NewSizeUnderReader/long_reader", "no reader",
     "Reset_NewSizeUnderReader/no_reader", "1", None),
    ("reset (reuse) while a reader holds a 100 ms section", RESET,
     "Reset_KeptSizeUnderReader/long_reader", "no reader",
     "Reset_KeptSizeUnderReader/no_reader", "1", ("<=", 1.1)),
    ("sized pin + unpin, current size", SIZED, "PinSized_CurrentSize",
     "rcupool_pin", "Pin_Rcupool", "all", ("<=", 2.0)),
    ("sized pin + unpin, live, not current", SIZED, "PinSized_LiveSize",
     "rcupool_pin", "Pin_Rcupool", "all", ("<=", 2.0)),
    ("sized pin that starts a pool of {v}", SIZED, "PinSized_StartPool/*",
     "pthreadpool_create (paired)", "paired:sized_over_create", "1",
     ("<=", 1.1)),
    # Warm widths (issue 25): a guard per call at a width nobody holds.
    ("width guard (sized pin, scope, unpin) at a warm width (unheld, after "
     "its first use)", WARM, "Guard/warm_width", "guard at the current width",
     "Guard/current_width", "all", ("<=", 2.0)),
    ("width guard + tiny dispatch at a warm width", WARM,
     "GuardDispatch/warm_width", "the same at the current width",
     "GuardDispatch/current_width", "1", ("<=", 2.0)),
    ("width guard at an unheld width, warm widths off (a pool started per "
     "guard)", WARM, "Guard/cold_width", "guard at the current width",
     "Guard/current_width", "1", None),
    ("width guard + tiny dispatch at an unheld width, warm widths off", WARM,
     "GuardDispatch/cold_width", "the same at the current width",
     "GuardDispatch/current_width", "1", None),
    ("Python `with rcupool.threads(n):` at a warm width (unheld, after the "
     "first block)", PY, "Py_ThreadsBlock/warm_size", "current size",
     "Py_ThreadsBlock/current_size", "1", ("<=", 1.5)),
    # The idle policy's trade (benchmarks/README.md, "Idle workers"): a {v}-thread pool.
    ("CPU burned in the 50 ms after a tiny dispatch, yield policy, {v} "
     "threads", IDLE, "IdleCpu/rcupool_yield/*", "pthreadpool (spins)",
     "IdleCpu/pthreadpool_spin/*", "1", ("<=", 0.05)),
    ("CPU burned in the 50 ms after a tiny dispatch, spin policy, {v} "
     "threads", IDLE, "IdleCpu/rcupool_spin/*", "pthreadpool (spins)",
     "IdleCpu/pthreadpool_spin/*", "1", None),
    ("back-to-back tiny dispatch, yield policy, {v} threads", IDLE,
     "BackToBack/rcupool_yield/*", "pthreadpool (spins)",
     "BackToBack/pthreadpool_spin/*", "1", None),
    ("back-to-back tiny dispatch, spin policy, {v} threads", IDLE,
     "BackToBack/rcupool_spin/*", "pthreadpool (spins)",
     "BackToBack/pthreadpool_spin/*", "1", None),
    ("reset 1 -> {v}, pools as views, the set has the threads, p50", VIEWS,
     "ResetNewWidth_View/*",
     "limit", "ms:0.1", "1", ("<=", 1.0)),
    ("reset 1 -> {v}, pools as views, the set has the threads", VIEWS,
     "ResetNewWidth_View/*",
     "a pool owning its threads (create + first dispatch)",
     "ResetNewWidth_Owned/*", "1", None),
    ("reset 1 -> {v}, pools as views, the set starts the threads", VIEWS,
     "ResetNewWidth_ViewGrow/*",
     "a pool owning its threads (create + first dispatch)",
     "ResetNewWidth_Owned/*", "1", None),
    ("dispatch on a view, {v}", VIEWS, "Dispatch_View/*",
     "pthreadpool owning its threads", "Dispatch_Owned/*", "1",
     ("<=", 1.10)),
    ("rcupool_parallelize_1d on a view, {v}", VIEWS,
     "Dispatch_RcupoolView/*", "pthreadpool owning its threads",
     "Dispatch_Owned/*", "1", None),
    ("CPU burned in the 50 ms after a tiny dispatch, yield policy, 2 "
     "threads", IDLE_VIEWS, "IdleCpu/rcupool_yield/2", "the yield policy on "
     "Debian 12's pthreadpool, a pool owning its threads (idle_bench, this "
     "run)", "idle_bench:IdleCpu/rcupool_yield/2", "1", ("<=", 1.0)),
    ("CPU burned by a tiny dispatch and the 50 ms after it, yield policy, "
     "2 threads", IDLE_VIEWS, "CycleCpu/rcupool_yield/2", "the yield policy "
     "on Debian 12's pthreadpool, a pool owning its threads (idle_bench, "
     "this run)", "idle_bench:CycleCpu/rcupool_yield/2", "1", None),
    ("CPU burned in the 50 ms with no dispatch (the window's floor)",
     IDLE_VIEWS, "IdleCpu/no_dispatch/2", "the same in idle_bench on Debian "
     "12's pthreadpool, this run", "idle_bench:IdleCpu/no_dispatch/2", "1",
     None),
    ("back-to-back tiny dispatch, yield policy, 2 threads", IDLE_VIEWS,
     "BackToBack/rcupool_yield/2", "the yield policy on Debian 12's "
     "pthreadpool, a pool owning its threads (idle_bench, this run)",
     "idle_bench:BackToBack/rcupool_yield/2", "1", None),
    ("CPU burned in the 50 ms after a tiny dispatch, views, yield policy",
     VIEWS, "IdleCpu_View/yield", "pthreadpool owning its threads (spins)",
     "IdleCpu_Owned/spin", "1", None),
    ("CPU burned in the 50 ms after a tiny dispatch, views, spin policy",
     VIEWS, "IdleCpu_View/spin", "pthreadpool owning its threads (spins)",
     "IdleCpu_Owned/spin", "1", None),
)
VARIANT_LABELS = {"*": "n", "tiny": "one store per thread",
                  "tiny_tasks": "1024 tiny tasks",
                  "current_size": "current size",
                  "live_size": "live size, not current",
                  "10us_tasks": "32 tasks of ~10 us"}
READ_ROWS = (
    ("Read_Rcupool", "rcupool: read_lock + current + read_unlock"),
    ("Read_RcupoolLockCurrent", "rcupool: read_lock_current + read_unlock"),
    ("Read_RcupoolInline", "rcupool: the same through inline.h"),
    ("Read_BareUrcu", "bare liburcu-bp section, inlined (limit)"),
    ("Read_BareUrcuThreeCalls",
     "bare liburcu-bp section as three calls (diagnostic)"),
    ("Read_TwoEmptyCallsShared",
     "two empty calls into a shared object (diagnostic)"),
    ("Read_PlainAcquireLoad", "plain acquire load (no protection)"),
    ("Read_MutexGetter", "mutex-guarded singleton getter"),
    ("Read_RwlockGetter", "pthread_rwlock getter"),
    ("Read_AtomicRefcount", "atomic refcount get + put"),
    ("Read_AtomicRefcountShared",
     "atomic refcount get + put in a shared object (diagnostic)"),
    ("Read_SharedPtrAtomicLoad", "std::atomic_load(shared_ptr)"),
    ("Pin_Rcupool", "rcupool: pin + unpin"),
    ("Guard_Rcupool/current_size",
     "rcupool: width guard of the current size (sized pin, scope, unpin)"),
    ("Guard_Rcupool/live_size",
     "rcupool: width guard of a live size, not current"))
DISPATCH_ROWS = (
    ("Dispatch_Pthreadpool", "pthreadpool_parallelize_1d"),
    ("Dispatch_Rcupool", "rcupool_parallelize_1d (read section)"),
    ("Dispatch_RcupoolScoped", "rcupool_parallelize_1d in a scope"))
IDLE_ROWS = (
    ("{}/pthreadpool_spin", "pthreadpool, flags 0 (its workers spin)"),
    ("{}/pthreadpool_yield", "pthreadpool, PTHREADPOOL_FLAG_YIELD_WORKERS"),
    ("{}/rcupool_spin", "rcupool_parallelize_1d, RCUPOOL_IDLE_SPIN"),
    ("{}/rcupool_yield", "rcupool_parallelize_1d, RCUPOOL_IDLE_YIELD"))
IDLE_FLOOR = ("no pool, no dispatch: the window's floor (the calling "
              "thread's sleep and clock reads, in every row)")


def idle_rows(benchmark, floor=None):
    """idle_bench's rows of one benchmark, and its no-dispatch floor row
    where it has one."""
    rows = tuple((row.format(benchmark), label) for row, label in IDLE_ROWS)
    return rows + (((benchmark + "/no_dispatch", floor),) if floor else ())


PY_ROWS = (
    ("Py_EmptyCall", "empty Python function call"),
    ("Py_GetNumThreads", "rcupool.get_num_threads()"),
    ("Py_SetNumThreads/same_size", "rcupool.set_num_threads(n), same size"),
    ("Py_SetNumThreads/new_size",
     "rcupool.set_num_threads(n), n alternating between two sizes"),
    ("Py_SetNumThreads/new_size_kept",
     "the same, both sizes kept by open rcupool.threads blocks"),
    ("Py_ThreadsBlock/current_size",
     "empty `with rcupool.threads(n):` block, n the current size"),
    ("Py_ThreadsBlock/warm_size",
     "the same at a warm width (unheld, after a first block)"))
WARM_GUARD_ROWS = (
    ("Guard/current_width", "width guard of the current width (3)"),
    ("Guard/warm_width",
     "width guard of a warm width (3; current 2, nothing holds 3)"))
GUARD_CHURN = (
    ("GuardChurn/warm_default", "warm widths, defaults (1000 ms, 8 pools)"),
    ("GuardChurn/warm_none", "warm widths off (RCUPOOL_WARM_NONE)"))
GUARD_CHURN_CELLS = tuple((k, h, f) for k, h, f in (
    ("pools_created", "median", "%d"), ("guards", "median", "%d"),
    ("resets", "median", "%d"), ("pools_alive_peak", "median", "%d"),
    ("pools_alive_peak", "max", "%d"), ("threads_alive_peak", "median", "%d"),
    ("pools_idle_peak", "median", "%d"), ("os_threads_peak", "median", "%d"),
    ("pools_alive_end", "median", "%d"),
    ("pools_alive_trimmed", "max", "%d")))

# The tables after the targets, in order. A title or intro may name a
# counter of the program's first row in braces ({pool_threads}).
# Counter tables: (title, intro, program, rows, header, cells), a cell
# (counter, "median" or "max" over repetitions, format).
CHURN = (("Churn/rcupool", "rcupool"),
         ("Churn/keep_forever", "keep every pool"),
         ("Churn/destroy_on_reset", "destroy on reset"))
CHURN_CELLS = tuple((k, "median", f) for k, f in (
    ("threads_start", "%d"), ("threads_peak", "%d"), ("threads_end", "%d"),
    ("threads_extra_end", "%+d"), ("pools_peak", "%d"), ("pools_end", "%d")))
COUNTER_TABLES = (
    ("Reclaim latency", "From the event to the pool being freed on the "
     "reclaim thread, seen by polling `rcupool_get_stats()`. p50: median "
     "over repetitions of each repetition's median; p99 and max: the worst "
     "repetition's.", "reset_bench",
     (("Reclaim_ResetToFreed", "reset -> retired pool freed"),
      ("Reclaim_LastUnpinToFreed",
       "last unpin -> pool freed (warm for 50 ms, then reclaimed)"),
      ("Reclaim_BareCallRcu",
       "liburcu alone: call_rcu -> callback (the floor)")),
     ("event", "p50", "p99", "max"),
     (("p50_ms", "median", "%.2f ms"), ("p99_ms", "max", "%.2f ms"),
      ("max_ms", "max", "%.2f ms"))),
    ("Churn: reset 1..16, load, run, drop", "OS threads of the process "
     "(`/proc/self/task`, a sampler thread included) and pools alive. "
     "\"end\" is 100 ms after the last drop (for rcupool, after "
     "`rcupool_barrier()`). The current pool has {current_pool_workers} "
     "workers plus the caller.\n\n"
     "![OS threads over time during the churn](churn.png)", "churn_bench",
     CHURN, ("policy", "threads at start", "peak", "end", "extra at end",
             "pools peak", "pools end"), CHURN_CELLS),
    ("OS threads with widths 1, 2, 4 and 8 alive (views_bench, newest "
     "pthreadpool)", "Threads the four pools added to the process "
     "(`/proc/self/task`): rcupool's pins of each width (views over one "
     "set of threads; the manager's own threads, the reclaim thread, were "
     "there before), against four `pthreadpool_create` pools that own "
     "their threads.", "views_bench",
     (("ThreadsWarm_View", "rcupool, pools as views"),
      ("ThreadsWarm_Owned", "pools owning their threads")),
     ("pools", "workers added"), (("workers", "median", "%d"),)),
    ("Guard churn: widths 1..8 from 4 threads, a fifth resetting "
     "(warm_bench)", "For about 2 s, 4 threads each run width guards (sized "
     "pin, scope, a tiny dispatch, unpin) of widths 1..8 in turn while a "
     "fifth resets the manager to 1..8 in a loop; a sampler reads "
     "`rcupool_get_stats()` and `/proc/self/task` every millisecond. Peaks "
     "are the sampler's; \"end\" is when the churn stops, \"trimmed\" "
     "after `rcupool_trim()` and a barrier. Medians over repetitions, "
     "except the worst peak and trimmed (max).", "warm_bench", GUARD_CHURN,
     ("warm widths", "pools created", "guards", "resets", "pools alive peak",
      "worst peak", "threads alive peak", "idle pools peak",
      "OS threads peak", "pools alive at end", "pools alive trimmed"),
     GUARD_CHURN_CELLS),
)
# Row tables: (title, intro, program, rows, reference row, columns, note).
# Columns: "threads" (each thread count the reference row ran with) or
# "variants" (each variant measured of the reference row); each row shows
# its times, then its ratios to the reference row. note: (counter, format)
# adds a cell to the rows that report that counter.
ROW_TABLES = (
    ("Read path and pins, static (read_bench)",
     "Per operation per thread.", "read_bench", READ_ROWS, "Read_Rcupool",
     "threads", None),
    ("Read path and pins, librcupool.so.0 (read_bench_shared)",
     "Per operation per thread.", "read_bench_shared", READ_ROWS,
     "Read_Rcupool", "threads", None),
    ("Dispatch on the manager's {pool_threads}-thread pool (dispatch_bench)",
     "One calling thread.", "dispatch_bench", DISPATCH_ROWS,
     "Dispatch_Pthreadpool", "variants", None),
    ("Idle workers: CPU burned in the 50 ms after a tiny dispatch "
     "(idle_bench)", "The process's CPU time while the calling thread "
     "sleeps, by pool width. Each row's JSON also has over_pthreadpool, its "
     "ratio to a raw pthreadpool (flags 0) measured beside it in each "
     "iteration.", "idle_bench",
     idle_rows("IdleCpu", IDLE_FLOOR),
     "IdleCpu/pthreadpool_spin", "variants", None),
    ("Idle workers: CPU burned by a tiny dispatch and the 50 ms after it "
     "(idle_bench)", "The same window, counted from just before the "
     "dispatch: a pool whose call returns before its workers are back "
     "asleep moves that CPU from the dispatch into the window; here it "
     "counts once either way.", "idle_bench",
     idle_rows("CycleCpu", IDLE_FLOOR),
     "CycleCpu/pthreadpool_spin", "variants", None),
    ("Idle workers: back-to-back tiny dispatches (idle_bench)",
     "One dispatch of one item per thread, 200 back to back, by pool "
     "width; over_pthreadpool as above.", "idle_bench",
     idle_rows("BackToBack"),
     "BackToBack/pthreadpool_spin", "variants", None),
    ("Dispatch on views and on pools owning their threads (views_bench, "
     "newest pthreadpool)", "One calling thread, pools of "
     "{pool_threads} threads, flags 0 (spin policy).", "views_bench",
     (("Dispatch_Owned", "pthreadpool_parallelize_1d, pool owning its "
       "threads"),
      ("Dispatch_View", "pthreadpool_parallelize_1d on rcupool's view"),
      ("Dispatch_RcupoolView", "rcupool_parallelize_1d (a view)")),
     "Dispatch_Owned", "variants", None),
    ("Width guards at a warm width (warm_bench)", "Per guard per thread. "
     "The warm row's pool of 3 was started by a first guard before the timed "
     "loop; the note says how many pools the timed guards started.",
     "warm_bench", WARM_GUARD_ROWS, "Guard/current_width", "threads",
     ("pools_started_per_guard", "%.3f pools started per guard")),
    ("The Python package (python_bench: CPython 3.11 embedded, "
     "librcupool.so.0)", "Each row is one call from C into a Python "
     "function; the reference is a Python function whose body is `pass`, "
     "called the same way in the same run.", "python_bench", PY_ROWS,
     "Py_EmptyCall", "threads",
     ("pools_started_per_call", "%.3f pools started per call")),
)
