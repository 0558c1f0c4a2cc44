#!/usr/bin/env python3
"""Writes benchmarks/RESULTS.md from the Google Benchmark JSON of one run.

    report.py --results DIR --out RESULTS.md [--commit C --date D --model M]
    report.py --results DIR --gnuplot-vars

Figures are medians over the run's repetitions (randomly interleaved, so
the rows of one ratio ran side by side); ratios only compare rows of one
program. The targets are data (targets.py); iteration counts, thread counts
and variants come from the JSON, and a row whose program left no JSON in DIR
is "not measured in this run". The section of the existing --out file
between HAND_BEGIN and HAND_END (why targets are missed) is written by hand
and kept. --gnuplot-vars prints the gnuplot -e titles of the churn picture.
"""
import argparse
import collections
import json
import os
import re
import statistics
import sys

from targets import (CHURN, DISPATCH_ROWS, OLD_VARIANTS, READ, READ_ROWS,
                     RECLAIM, TARGETS, VARIANT_LABELS)

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
HAND_BEGIN = "<!-- hand-written: report.py keeps what follows as it is -->"
HAND_END = "<!-- end of the hand-written section -->"
# Parts of a run name that say how a benchmark ran, not what it measured.
MODIFIER = re.compile(r"(real_time|manual_time|process_time|iterations:\d+|"
                      r"threads:\d+|min_time:.*|repeats:\d+)$")


def row_key(run_name):
    """'BM_Reset_NewSize/2/iterations:20/manual_time' -> 'Reset_NewSize/2'."""
    parts = run_name.split("/")
    parts[0] = parts[0][3:] if parts[0].startswith("BM_") else parts[0]
    return "/".join(OLD_VARIANTS.get(p, p) for p in parts
                    if not MODIFIER.match(p))


class Runs:
    """Per-repetition results, keyed by (program, row, threads)."""

    def __init__(self, directory):
        self.rows, self.context = {}, {}
        self.swept, self.old_names = set(), False
        for name in sorted(n for n in os.listdir(directory)
                           if n.endswith(".json")):
            program = name[:-5]
            with open(os.path.join(directory, name)) as f:
                data = json.load(f)
            self.context[program] = data.get("context", {})
            for b in data["benchmarks"]:
                if b.get("run_type") != "iteration":
                    continue
                if b.get("error_occurred"):
                    sys.exit("%s: %s: %s" % (name, b["run_name"],
                                              b.get("error_message")))
                row, parts = row_key(b["run_name"]), b["run_name"].split("/")
                self.old_names |= any(p in OLD_VARIANTS for p in parts)
                if any(p.startswith("threads:") for p in parts):
                    self.swept.add((program, row))
                self.rows.setdefault((program, row, b.get("threads", 1)),
                                     []).append(b)

    def has(self, program, row, t=1):
        return (program, row, t) in self.rows

    def threads(self, program, row):
        return sorted(t for p, r, t in self.rows if (p, r) == (program, row))

    def variants(self, program, pattern):
        """The variants measured of a row 'Name/*', in a sensible order."""
        known, base = list(VARIANT_LABELS), pattern[:-1]
        return sorted({r[len(base):] for p, r, _ in self.rows
                       if p == program and r.startswith(base)},
                      key=lambda v: (int(v) if v.isdigit() else 0,
                                     known.index(v) if v in known else 0))

    def ns(self, program, row, t=1, field="real_time"):
        """Median time of one operation as each thread saw it, in ns: with
        T threads Google Benchmark divides wall time by the iterations of
        all T threads, so it is multiplied back by T (CPU time is already
        per operation)."""
        scale = t if field == "real_time" else 1
        return statistics.median(b[field] * UNIT_NS[b["time_unit"]] * scale
                                 for b in self.rows[program, row, t])

    def counter(self, program, row, key, how=statistics.median):
        return how(b[key] for b in self.rows[program, row, 1])


def fmt_ns(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    return "%.1f us" % (ns / 1e3) if ns >= 1e3 else "%.2f ns" % ns


def threads_text(t):
    return "%d thread%s" % (t, "" if t == 1 else "s")


def target_rows(r):
    """Each target for each program, variant and thread count measured:
    (cells of the targets table, missed); READ's static rows, its shared
    rows, then the rest."""
    out = []
    for measure, programs, ours, ref_label, ref, which, target in TARGETS:
        for rank, (program, build) in enumerate(programs):
            for v in (r.variants(program, ours) or ["*"]
                      if ours.endswith("/*") else [None]):
                o = ours[:-1] + v if v else ours
                f = ref[:-1] + v if v and ref.endswith("/*") else ref
                ts = [t for t in r.threads(program, o) if which == "all" or
                      (t == 1) == (which == "1")] or [1 if which != "2+"
                                                      else 2]
                for t in ts:
                    label = measure.format(v=VARIANT_LABELS.get(v, v))
                    if (program, o) in r.swept:
                        label += ", " + threads_text(t)
                    out.append((rank if build else len(READ), one_target(
                        r, program, o, ref_label, f, t, target,
                        label + (", " + build if build else ""))))
    return [row for _, row in sorted(out, key=lambda x: x[0])]


def one_target(r, program, ours, ref_label, ref, t, target, label):
    text = "report" if target is None else "%s %gx%s" % (
        target[0], target[1], " faster" if target[0] == ">=" else "")
    paired = ref.startswith("paired:")
    if not r.has(program, ours, t) or not (paired or r.has(program, ref, t)):
        return [label, "-", ref_label, "-", text,
                "not measured in this run", "-"], False
    ours_ns, cpu = r.ns(program, ours, t), None
    if paired:
        ref_ns = r.counter(program, ours, "paired_create_us") * 1e3
        ratio = r.counter(program, ours, ref[len("paired:"):])
    else:
        ref_ns = r.ns(program, ref, t)
        ratio = ours_ns / ref_ns
        if (program, ours) in r.swept:
            cpu = (r.ns(program, ours, t, "cpu_time") /
                   r.ns(program, ref, t, "cpu_time"))
    faster = target is not None and target[0] == ">="
    if faster:
        ratio, cpu = 1 / ratio, cpu and 1 / cpu
    if target is None:
        missed, verdict = False, "no target"
        if t > 1 and r.has(program, ours, 1):
            verdict += "; %s / 1 thread: %.2fx" % (
                threads_text(t), ours_ns / r.ns(program, ours, 1))
    else:
        missed = ratio < target[1] if faster else ratio > target[1]
        verdict = "met" if not missed else "**missed** (%.0f%% %s)" % (
            100 * abs(ratio / target[1] - 1), "short" if faster else "over")
    return [label, fmt_ns(ours_ns), "%s %s" % (ref_label, fmt_ns(ref_ns)),
            "%.2fx" % ratio, text, verdict,
            "-" if cpu is None else "%.2fx" % cpu], missed


def table(w, header, rows):
    w("| %s |" % " | ".join(header))
    w("|%s|" % "|".join("---" for _ in header))
    for row in rows:
        w("| %s |" % " | ".join(row))
    w("")


def hand_written(path):
    """The hand-written section of the existing file, markers included."""
    text = open(path).read() if os.path.exists(path) else ""
    i, j = text.find(HAND_BEGIN), text.find(HAND_END)
    if i < 0 or j < i:
        return [HAND_BEGIN, "", "## Why targets are missed", "",
                "(not written yet)", "", HAND_END]
    return text[i:j + len(HAND_END)].split("\n")


def write_reclaim(w, r):
    w("## Reclaim latency\n\nFrom the event to the pool being freed on the "
      "reclaim thread, seen by polling `rcupool_get_stats()` every ~20 us. "
      "p50: median over repetitions of each repetition's median; p99 and "
      "max: the worst repetition's.\n")
    rows, p50 = [], {}
    for row, label in RECLAIM:
        if not r.has("reset_bench", row):
            rows.append([label, "not measured in this run", "-", "-"])
            continue
        p50[row] = r.counter("reset_bench", row, "p50_ms")
        rows.append([label] + ["%.2f ms" % x for x in (
            p50[row], r.counter("reset_bench", row, "p99_ms", max),
            r.counter("reset_bench", row, "max_ms", max))])
    table(w, ["event", "p50", "p99", "max"], rows)
    if len(p50) == len(RECLAIM):
        floor = p50[RECLAIM[-1][0]]
        w("At the median rcupool adds %.2f ms (reset) and %.2f ms (unpin) "
          "to the floor of the same run.\n" % (
              p50[RECLAIM[0][0]] - floor, p50[RECLAIM[1][0]] - floor))


def churn(r):
    """(label, counters or None when not measured) for each policy."""
    keys = ("threads_start", "threads_peak", "threads_end",
            "threads_extra_end", "pools_peak", "pools_end")
    return [(label, {k: r.counter("churn_bench", "Churn/" + v, k)
                     for k in keys} if r.has("churn_bench", "Churn/" + v)
             else None) for v, label in CHURN]


def write_churn(w, r):
    w("## Churn: reset 1..16, load, run, drop\n\nOS threads of the process "
      "(`/proc/self/task`, a sampler thread included) and pools alive. "
      "\"end\" is 100 ms after the last drop (for rcupool, after "
      "`rcupool_barrier()`). The current pool has 16 threads: 15 workers "
      "plus the caller.\n")
    table(w, ["policy", "threads at start", "peak", "end", "extra at end",
              "pools peak", "pools end"],
          [[label] + (["not measured in this run"] + ["-"] * 5 if c is None
                      else ["%d" % c["threads_start"], "%d" % c["threads_peak"],
                            "%d" % c["threads_end"],
                            "%+d" % c["threads_extra_end"],
                            "%d" % c["pools_peak"], "%d" % c["pools_end"]])
           for label, c in churn(r)])
    w("![OS threads over time during the churn](churn.png)\n")


def write_every_row(w, r):
    w("## Every row\n\n### Read path and pins (per operation per thread, "
      "read_bench)\n")
    ts, p = r.threads("read_bench", "Read_Rcupool"), "read_bench"
    table(w, ["benchmark"] + [threads_text(t) for t in ts] +
          ["%s, x rcupool" % threads_text(t) for t in ts] +
          ["CPU %s" % threads_text(t) for t in ts],
          [[label] + [fmt_ns(r.ns(p, fn, t)) for t in ts] +
           ["%.2f" % (r.ns(p, fn, t) / r.ns(p, "Read_Rcupool", t))
            for t in ts] + [fmt_ns(r.ns(p, fn, t, "cpu_time")) for t in ts]
           for fn, label in READ_ROWS if all(r.has(p, fn, t) for t in ts)])
    w("### Dispatch on the manager's 2-thread pool (dispatch_bench)\n")
    vs, p = r.variants("dispatch_bench", "Dispatch_Rcupool/*"), "dispatch_bench"
    table(w, ["benchmark"] + [VARIANT_LABELS.get(v, v) for v in vs],
          [[label] + [fmt_ns(r.ns(p, "Dispatch_%s/%s" % (fn, v))) for v in vs]
           for fn, label in DISPATCH_ROWS
           if all(r.has(p, "Dispatch_%s/%s" % (fn, v)) for v in vs)])


def write_header(w, r, args):
    reps = collections.Counter()
    for (program, _, _), bs in r.rows.items():
        reps[program] = max(reps[program], len(bs))
    loads = sorted({tuple(round(x, 1) for x in c.get("load_avg", []))
                    for c in r.context.values()})
    cpus = sorted({str(c.get("num_cpus", "?")) for c in r.context.values()})
    w("# rcupool benchmark results\n\nGenerated by `tools/bench.sh` "
      "(`benchmarks/report.py`), except the hand-written section at the "
      "end, which the generator keeps as it is.\n")
    table(w, ["", ""], [
        ["date", args.date], ["commit", "`%s`" % args.commit],
        ["machine", "%s, %s cores" % (args.model, "/".join(cpus))],
        ["load average at the start of each program",
         ", ".join("/".join("%.1f" % x for x in l) for l in loads)],
        ["build", "`bazel build -c opt`, liburcu-bp; rcupool linked "
         "statically except in read_bench_shared (librcupool.so.0)"],
        ["figures", "median over the repetitions (%s), randomly "
         "interleaved; wall time per operation, as seen by each thread" %
         ", ".join("%s: %d" % kv for kv in sorted(reps.items()))]])
    w("The machine is small and shared: absolute times move from run to "
      "run, ratios between rows of one run are what this file claims.")
    if r.old_names:
        w("This run's JSON predates the named variants (`spin:0/1`, "
          "`reader:0/1`, `policy:0..2`); report.py reads it under the "
          "current names (`tiny_tasks`/`10us_tasks`, `no_reader`/"
          "`long_reader`, `rcupool`/`keep_forever`/`destroy_on_reset`).")
    w("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--out")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--date", default="unknown")
    ap.add_argument("--model", default="unknown")
    ap.add_argument("--gnuplot-vars", action="store_true")
    args = ap.parse_args()
    r = Runs(args.results)
    if args.gnuplot_vars:
        for i, (label, c) in enumerate(churn(r)):
            print("t%d='%s: %s';" % (i, label, "not measured" if c is None
                                     else "peak %d, end %d threads (%d pool%s)"
                                     % (c["threads_peak"], c["threads_end"],
                                        c["pools_end"],
                                        "" if c["pools_end"] == 1 else "s")))
        return
    if not args.out:
        ap.error("--out is required unless --gnuplot-vars")
    out = []
    w = out.append
    write_header(w, r, args)
    w("## Targets\n\nRatios are of wall time; the last column gives the same "
      "ratio in CPU time for the rows that sweep calling threads (CPU time "
      "leaves out the time a preempted thread waits for a core, which "
      "dominates wall time when the machine is loaded).\n")
    rows = target_rows(r)
    table(w, ["measure", "rcupool", "reference", "ratio", "target",
              "verdict", "ratio in CPU time"], [row for row, _ in rows])
    write_reclaim(w, r)
    write_churn(w, r)
    write_every_row(w, r)
    missed = ["- %s: %s, target %s" % (row[0], row[3], row[4])
              for row, m in rows if m]
    w("## Targets missed in this run\n\n%s\n\nRaw JSON: "
      "`benchmarks/results/*.json`. Reproduce: `tools/bench.sh`. Why a "
      "target is missed: the hand-written section below.\n" % (
          "\n".join(missed) or "None."))
    out += hand_written(args.out)
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
