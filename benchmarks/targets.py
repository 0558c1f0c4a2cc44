"""The targets and rows benchmarks/report.py writes into RESULTS.md: data
only. Row names are the Google Benchmark run names without "BM_" and
without the parts that say how a row ran (real_time, iterations:N,
threads:N...): "Reset_NewSize/2", "Dispatch_Rcupool/tiny_tasks". A program
is the JSON file's name without ".json" (tools/bench.sh names each after
its binary).

To add a target, add a line to TARGETS; why it is missed, when it is, goes
in the hand-written section of RESULTS.md, not here.
"""

# Variants named by argument number before the benchmarks named them: the
# committed JSON of older runs is read under the current names.
OLD_VARIANTS = {
    "spin:0": "tiny_tasks", "spin:1": "10us_tasks",
    "reader:0": "no_reader", "reader:1": "long_reader",
    "policy:0": "rcupool", "policy:1": "keep_forever",
    "policy:2": "destroy_on_reset",
}

READ = (("read_bench", "static"), ("read_bench_shared", "librcupool.so"))
DISPATCH, XNN, RESET, SIZED = (((p, None),) for p in (
    "dispatch_bench", "xnn_bench", "reset_bench", "sized_bench"))
# measure ({v}: the variant), programs, rcupool's row, reference's label,
# reference's row, thread counts ("1", "2+": each count above 1, "all"),
# target: ("<=", x) rcupool time / reference time at most x; (">=", x)
# reference time / rcupool time at least x; None: reported, no target.
# A row ending in "/*" stands for each variant measured (the reference the
# same variant). "paired:C" is the reference each iteration of rcupool's
# row timed beside it (counter paired_create_us), the ratio its counter C.
TARGETS = (
    ("read section, inline.h", READ, "Read_RcupoolInline", "bare liburcu",
     "Read_BareUrcu", "all", ("<=", 1.5)),
    ("read section vs mutex getter, inline.h", READ, "Read_RcupoolInline",
     "mutex", "Read_MutexGetter", "1", (">=", 4)),
    ("read section vs mutex getter, inline.h", READ, "Read_RcupoolInline",
     "mutex", "Read_MutexGetter", "2+", (">=", 20)),
    ("read section, out of line", READ, "Read_Rcupool", "bare liburcu",
     "Read_BareUrcu", "all", ("<=", 1.5)),
    ("read section vs mutex getter, out of line", READ, "Read_Rcupool",
     "mutex", "Read_MutexGetter", "1", (">=", 4)),
    ("read section vs mutex getter, out of line", READ, "Read_Rcupool",
     "mutex", "Read_MutexGetter", "2+", (">=", 20)),
    ("pin + unpin", READ, "Pin_Rcupool", "atomic refcount",
     "Read_AtomicRefcount", "1", ("<=", 1.0)),
    ("pin + unpin", READ, "Pin_Rcupool", "atomic refcount",
     "Read_AtomicRefcount", "2+", None),
    ("dispatch, {v}", DISPATCH, "Dispatch_Rcupool/*", "pthreadpool",
     "Dispatch_Pthreadpool/*", "1", ("<=", 1.05)),
    ("XNNPACK invoke, 3x FC 256x256, batch 64", XNN, "XnnInvoke_Rcupool",
     "raw XNNPACK", "XnnInvoke_Raw", "1", None),
    ("reset 1 -> {v} (new size)", RESET, "Reset_NewSize/*",
     "pthreadpool_create (paired)", "paired:reset_over_create", "1",
     ("<=", 1.1)),
    ("reset back to kept size {v}", RESET, "Reset_BackToKeptSize/*",
     "pthreadpool_create", "Create_Pthreadpool/*", "1", (">=", 10)),
    ("reset (create) while a reader holds a 100 ms section", RESET,
     "Reset_NewSizeUnderReader/long_reader", "no reader",
     "Reset_NewSizeUnderReader/no_reader", "1", ("<=", 1.1)),
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
)
VARIANT_LABELS = {"*": "n", "tiny_tasks": "1024 tiny tasks",
                  "10us_tasks": "32 tasks of ~10 us"}
RECLAIM = (("Reclaim_ResetToFreed", "reset -> retired pool freed"),
           ("Reclaim_LastUnpinToFreed", "last unpin -> kept pool freed"),
           ("Reclaim_BareCallRcu",
            "liburcu alone: call_rcu -> callback (the floor)"))
CHURN = (("rcupool", "rcupool"), ("keep_forever", "keep every pool"),
         ("destroy_on_reset", "destroy on reset"))
READ_ROWS = (
    ("Read_Rcupool", "rcupool: read_lock + current + read_unlock"),
    ("Read_RcupoolInline", "rcupool: the same through inline.h"),
    ("Read_BareUrcu", "bare liburcu-bp section, inlined (limit)"),
    ("Read_BareUrcuThreeCalls",
     "bare liburcu-bp section as three calls (diagnostic)"),
    ("Read_PlainAcquireLoad", "plain acquire load (no protection)"),
    ("Read_MutexGetter", "mutex-guarded singleton getter"),
    ("Read_RwlockGetter", "pthread_rwlock getter"),
    ("Read_AtomicRefcount", "atomic refcount get + put"),
    ("Read_SharedPtrAtomicLoad", "std::atomic_load(shared_ptr)"),
    ("Pin_Rcupool", "rcupool: pin + unpin"))
DISPATCH_ROWS = (("Pthreadpool", "pthreadpool_parallelize_1d"),
                 ("Rcupool", "rcupool_parallelize_1d (read section)"),
                 ("RcupoolScoped", "rcupool_parallelize_1d in a scope"))
