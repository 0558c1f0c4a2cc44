#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes benchmarks/RESULTS.md from the Google Benchmark JSON of one run.

    report.py --results DIR --out RESULTS.md [--commit C --date D --model M]
    report.py --results DIR --gnuplot-vars   (the churn picture's titles)
    report.py --results DIR --readme README.md [--check]
    report.py --results DIR --out RESULTS.md --check

--readme writes the summary table of benchmarks/README.md (between
SUMMARY_BEGIN and SUMMARY_END) from the same rows: every target with its
ratio and verdict. --check writes nothing and fails, saying what differs,
when the file is not what this run of report.py would write (for
RESULTS.md, with the date, commit and machine the file already gives), or
when benchmarks/README.md gives a figure outside its generated table.

Figures are medians over the run's repetitions (randomly interleaved, so
the rows of one ratio ran side by side); a ratio compares rows of one
program. Targets, rows and labels are data (targets.py); counts of
iterations, repetitions, threads and CPUs, variants, pool widths and the
load come from the JSON. A row whose program left no JSON in DIR is "not
measured in this run". The part of the existing --out file between
HAND_BEGIN and HAND_END (why targets are missed) is hand-written and kept.
"""
import argparse
import collections
import json
import os
import re
import statistics
import sys

from targets import (CHURN, CHURN_CELLS, COUNTER_TABLES, ROW_TABLES,
                     TARGETS, VARIANT_LABELS)

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
HAND_BEGIN = "<!-- hand-written: report.py keeps what follows as it is -->"
HAND_END = "<!-- end of the hand-written section -->"
# Parts of a run name that say how a benchmark ran, not what it measured.
MODIFIER = re.compile(r"(real_time|manual_time|process_time|iterations:\d+|"
                      r"threads:\d+|min_time:.*|repeats:\d+)$")
NOT_MEASURED = "not measured in this run"
SUMMARY_BEGIN = ("<!-- summary: written by benchmarks/report.py --readme from "
                 "results/; do not edit -->")
SUMMARY_END = "<!-- end of the summary -->"
# A measured figure: a ratio (1.5x) or a time (0.1 ms, 13 us, 1.4 ns) or a
# share (40%).
FIGURE = re.compile(r"(?<![\w.-])\d[\d,]*(\.\d+)?\s?(x|ns|us|ms|%)(?![\w])")


def row_key(run_name):
    """'BM_Reset_NewSize/2/iterations:20/manual_time' -> 'Reset_NewSize/2'."""
    parts = run_name.split("/")
    parts[0] = parts[0][3:] if parts[0].startswith("BM_") else parts[0]
    return "/".join(p for p in parts if not MODIFIER.match(p))


class Runs:
    """Per-repetition results, keyed by (program, row, threads)."""

    def __init__(self, directory):
        self.rows, self.context, self.swept = {}, {}, set()
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
                row = row_key(b["run_name"])
                if "/threads:" in b["run_name"]:
                    self.swept.add((program, row))
                self.rows.setdefault((program, row, b.get("threads", 1)),
                                     []).append(b)

    def has(self, program, row, t=1):
        return (program, row, t) in self.rows

    def threads(self, program, row):
        return sorted(t for p, r, t in self.rows if (p, r) == (program, row))

    def variants(self, program, pattern):
        """The variants measured of a row 'Name/*': sizes in order, then
        the named ones in the order of VARIANT_LABELS."""
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

    def spread(self, program, row, t=1, field="real_time"):
        """(max - min) / median of the repetitions' field, in %."""
        v = [b[field] for b in self.rows[program, row, t]]
        return 100 * (max(v) - min(v)) / statistics.median(v)

    def counter(self, program, row, key, how=statistics.median):
        return how(b[key] for b in self.rows[program, row, 1])

    def fill(self, program, text):
        """text with {counter} replaced by that counter of the program's
        first row ("?" when the program did not run)."""
        first = next((bs[0] for (p, _, _), bs in sorted(self.rows.items())
                      if p == program), {})
        return text.format_map(collections.defaultdict(lambda: "?", {
            k: "%g" % v for k, v in first.items()
            if isinstance(v, (int, float))}))


def fmt_ns(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    return "%.1f us" % (ns / 1e3) if ns >= 1e3 else "%.2f ns" % ns


def threads_text(t):
    return "%d thread%s" % (t, "" if t == 1 else "s")


def table(w, header, rows):
    w("| %s |\n|%s|" % (" | ".join(header), "|".join("---" for _ in header)))
    w("".join("| %s |\n" % " | ".join(row) for row in rows))


def target_rows(r):
    """(cells, missed) for each target, program, variant and thread count:
    the static read rows, the librcupool.so read rows, then the rest."""
    out = []
    for measure, programs, ours, ref_label, ref, which, target in TARGETS:
        for rank, (program, build) in enumerate(programs):
            for v in (r.variants(program, ours) or ["*"]
                      if ours.endswith("/*") else [None]):
                o = ours[:-1] + v if v else ours
                f = ref[:-1] + v if v and ref.endswith("/*") else ref
                ts = [t for t in r.threads(program, o) if which == "all" or
                      (t == 1) == (which == "1")] or [2 if which == "2+"
                                                      else 1]
                for t in ts:
                    label = measure.format(v=VARIANT_LABELS.get(v, v)) + (
                        ", " + threads_text(t) if (program, o) in r.swept
                        else "") + (", " + build if build else "")
                    out.append(((0 if build else 1, rank), one_target(
                        r, program, o, ref_label, f, t, target, label)))
    return [row for _, row in sorted(out, key=lambda x: x[0])]


def one_target(r, program, ours, ref_label, ref, t, target, label):
    text = "report" if target is None else "%s %gx%s" % (
        target[0], target[1], " faster" if target[0] == ">=" else "")
    kind, _, rest = ref.rpartition(":") if ref.startswith(
        ("paired:", "ms:", "threads:")) else ("", "", ref)
    if kind == "threads":  # the same row at another thread count
        ref_program, ref_row, ref_t = program, ours, int(rest)
        kind = ""
    else:
        ref_program, _, ref_row = rest.rpartition(":")  # "program:row"
        ref_program, ref_t = (ref_program, 1) if ref_program else (program,
                                                                   t)
    if not r.has(program, ours, t) or not (
            kind or r.has(ref_program, ref_row, ref_t)):
        return [label, "-", ref_label, "-", text, NOT_MEASURED, "-",
                "-"], False
    ours_ns, cpu = r.ns(program, ours, t), None
    spread = "%.0f%%" % r.spread(program, ours, t)
    if kind == "paired":  # the reference was timed beside each iteration
        ref_ns = r.counter(program, ours, "paired_create_us") * 1e3
        ratio = r.counter(program, ours, rest)
    elif kind == "ms":  # a fixed limit; ours is the row's p50 counter
        ours_ns, ref_ns = r.counter(program, ours, "p50_ms") * 1e6, (
            float(rest) * 1e6)
        spread = "%.0f%%" % r.spread(program, ours, t, "p50_ms")
        ratio = ours_ns / ref_ns
    else:
        ref_ns = r.ns(ref_program, ref_row, ref_t)
        ratio = ours_ns / ref_ns
        spread += " / %.0f%%" % r.spread(ref_program, ref_row, ref_t)
        if (program, ours) in r.swept and ref_program == program:
            cpu = (r.ns(program, ours, t, "cpu_time") /
                   r.ns(program, ref_row, ref_t, "cpu_time"))
    faster = target is not None and target[0] == ">="
    if faster:
        ratio, cpu = 1 / ratio, cpu and 1 / cpu
    missed = target is not None and (ratio < target[1] if faster
                                     else ratio > target[1])
    if target is None:
        verdict = "no target" + ("; %s / 1 thread: %.2fx" % (
            threads_text(t), ours_ns / r.ns(program, ours, 1))
            if t > 1 and r.has(program, ours, 1) else "")
    else:
        verdict = "met" if not missed else "**missed** (%.0f%% %s)" % (
            100 * abs(ratio / target[1] - 1), "short" if faster else "over")
    return [label, fmt_ns(ours_ns), "%s %s" % (ref_label, fmt_ns(ref_ns)),
            "%.2fx" % ratio, text, verdict,
            "-" if cpu is None else "%.2fx" % cpu, spread], missed


def row_table(w, r, program, rows, ref, columns, note):
    """The rows ((name, label)) of `program` measured in every column (a
    thread count, or a variant appended to the name): the times, then the
    ratios to row `ref` of the same column, then the note's cell."""
    def key(fn, c):
        return (fn, c) if isinstance(c, int) else ("%s/%s" % (fn, c), 1)
    def ns(fn, c):
        return r.ns(program, *key(fn, c))
    head = [threads_text(c) if isinstance(c, int) else
            VARIANT_LABELS.get(c, c) for c in columns]
    cells = [[label] + [fmt_ns(ns(fn, c)) for c in columns] +
             ["%.2fx" % (ns(fn, c) / ns(ref, c)) for c in columns] +
             ([note[1] % r.counter(program, fn, note[0]) if note[0] in
               r.rows[program, fn, 1][0] else ""] if note else [])
             for fn, label in rows
             if columns and all(r.has(program, *key(f, c))
                                for f in (fn, ref) for c in columns)]
    table(w, ["benchmark"] + head + ["%s, x %s" % (h, dict(rows)[ref])
                                     for h in head] +
          (["note"] if note else []), cells or [[NOT_MEASURED]])


def write_header(w, r, args):
    reps = collections.Counter()
    for (program, _, _), bs in r.rows.items():
        reps[program] = max(reps[program], len(bs))
    loads = ["%s %s" % (p, "/".join("%.1f" % x for x in c["load_avg"]))
             for p, c in sorted(r.context.items()) if c.get("load_avg")]
    cpus = sorted({str(c.get("num_cpus", "?")) for c in r.context.values()})
    w("# rcupool benchmark results\n\nGenerated by `tools/bench.sh` "
      "(`benchmarks/report.py`), except the hand-written section at the "
      "end, which the generator keeps as it is.\n")
    table(w, ["", ""], [
        ["date", args.date], ["commit", "`%s`" % args.commit],
        ["machine", "%s, %s CPUs" % (args.model, "/".join(cpus))],
        ["load average (1/5/15 min) as each program started",
         ", ".join(loads) or "not recorded"],
        ["build", "`bazel build -c opt`, liburcu-bp; rcupool linked "
         "statically except in read_bench_shared and python_bench "
         "(librcupool.so.0)"],
        ["figures", "median over the repetitions (%s), randomly "
         "interleaved; wall time per operation, as seen by each thread" %
         ", ".join("%s: %d" % kv for kv in sorted(reps.items()))]])
    w("Absolute times move with the machine's load; ratios between rows of "
      "one run are what this file claims.\n")


def write_tables(w, r):
    how = {"median": statistics.median, "max": max}
    for title, intro, program, rows, head, cells in COUNTER_TABLES:
        w("## %s\n\n%s\n" % (r.fill(program, title), r.fill(program, intro)))
        table(w, head, [[label] + (
            [f % r.counter(program, row, k, how[h]) for k, h, f in cells]
            if r.has(program, row) else [NOT_MEASURED] + ["-"] *
            (len(head) - 2)) for row, label in rows])
    for title, intro, program, rows, ref, columns, note in ROW_TABLES:
        w("## %s\n\n%s\n" % (r.fill(program, title), r.fill(program, intro)))
        row_table(w, r, program, rows, ref, r.threads(program, ref)
                  if columns == "threads" else r.variants(program, ref + "/*"),
                  note)


def hand_written(path):
    """The hand-written section of the existing file, markers included."""
    text = open(path).read() if os.path.exists(path) else ""
    i, j = text.find(HAND_BEGIN), text.find(HAND_END)
    if i < 0 or j < i:
        return [HAND_BEGIN, "", "## Why targets are missed", "",
                "(not written yet)", "", HAND_END]
    return text[i:j + len(HAND_END)].split("\n")


def summary(r):
    """The README's table: each target of RESULTS.md, its ratio, verdict."""
    out = []
    w = out.append
    w("Generated from `results/` by `benchmarks/report.py --readme` (the "
      "targets of [`RESULTS.md`](RESULTS.md); its other rows and tables "
      "have no target). Ratios are medians of one run, rows side by side; "
      "absolute times are in RESULTS.md.\n")
    table(w, ["measure", "ratio", "target", "verdict"],
          [[row[0], row[3], row[4], row[5]] for row, _ in target_rows(r)
           if row[4] != "report"])
    return "\n".join(out)


def with_summary(text, r, path):
    i, j = text.find(SUMMARY_BEGIN), text.find(SUMMARY_END)
    if i < 0 or j < i:
        sys.exit("%s: no summary markers (%s ... %s)" % (
            path, SUMMARY_BEGIN, SUMMARY_END))
    return text[:i + len(SUMMARY_BEGIN)] + "\n" + summary(r) + "\n" + \
        text[j:]


def stray_figures(text, path):
    """Figures of benchmarks/README.md outside its generated table."""
    i, j = text.find(SUMMARY_BEGIN), text.find(SUMMARY_END)
    out = []
    for n, line in enumerate(text.split("\n"), 1):
        pos = sum(len(x) + 1 for x in text.split("\n")[:n - 1])
        if i <= pos <= j:
            continue
        for m in FIGURE.finditer(line):
            out.append("%s:%d: the figure `%s` is not from the generated "
                       "summary (give it there, from RESULTS.md, or drop it)"
                       % (path, n, m.group(0)))
    return out


def header_args(path, args):
    """The date, commit and machine RESULTS.md already gives."""
    text = open(path).read()
    for key, attr in (("date", "date"), ("commit", "commit"),
                      ("machine", "model")):
        m = re.search(r"^\| %s \| (.*) \|$" % key, text, re.M)
        if m:
            v = m.group(1)
            if key == "commit":
                v = v.strip("`")
            if key == "machine":
                v = re.sub(r", [\d/?]+ CPUs$", "", v)
            setattr(args, attr, v)


def check(path, want, have):
    if want == have:
        print("%s: as report.py writes it" % path)
        return 0
    import difflib
    sys.stdout.writelines(difflib.unified_diff(
        have.splitlines(True), want.splitlines(True), path + " (committed)",
        path + " (from results/)", n=1))
    print("%s: differs from what report.py writes from results/ (+ lines); "
          "regenerate: python3 benchmarks/report.py --results "
          "benchmarks/results %s" % (path, "--readme " + path if path.endswith(
              "README.md") else "--out %s (or tools/bench.sh)" % path))
    return 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--out")
    ap.add_argument("--readme")
    ap.add_argument("--check", action="store_true")
    for flag in ("--commit", "--date", "--model"):
        ap.add_argument(flag, default="unknown")
    ap.add_argument("--gnuplot-vars", action="store_true")
    args = ap.parse_args()
    r = Runs(args.results)
    if args.gnuplot_vars:
        for i, (row, label) in enumerate(CHURN):
            c = {k: int(r.counter("churn_bench", row, k))
                 for k, _, _ in CHURN_CELLS} if r.has("churn_bench", row) else None
            print("t%d='%s: %s';" % (i, label, "not measured" if c is None else
                                     "peak {threads_peak}, end {threads_end} "
                                     "threads ({pools_end} pools)".format(**c)))
        return 0
    if args.readme:
        have = open(args.readme).read()
        want = with_summary(have, r, args.readme)
        if args.check:
            stray = stray_figures(have, args.readme)
            if stray:
                print("\n".join(stray))
            return check(args.readme, want, have) or (1 if stray else 0)
        with open(args.readme, "w") as f:
            f.write(want)
        return 0
    if not args.out:
        ap.error("--out or --readme is required unless --gnuplot-vars")
    if args.check:
        header_args(args.out, args)
    text = results_md(r, args)
    if args.check:
        return check(args.out, text, open(args.out).read())
    with open(args.out, "w") as f:
        f.write(text)
    return 0


def results_md(r, args):
    out = []
    w = out.append
    write_header(w, r, args)
    w("## Targets\n\nRatios are of wall time; the last column gives the same "
      "ratio in CPU time for the rows that sweep calling threads (CPU time "
      "leaves out the time a preempted thread waits for a core, which "
      "dominates wall time when the machine is loaded). Spread: (max - min) / "
      "median of the repetitions' wall times, rcupool's row / the "
      "reference's.\n")
    rows = target_rows(r)
    table(w, ["measure", "rcupool", "reference", "ratio", "target",
              "verdict", "ratio in CPU time", "spread"],
          [row for row, _ in rows])
    write_tables(w, r)
    missed = ["- %s: %s, target %s" % (row[0], row[3], row[4])
              for row, m in rows if m]
    w("## Targets missed in this run\n\n%s\n\nRaw JSON: "
      "`benchmarks/results/*.json`. Reproduce: `tools/bench.sh`. Why a "
      "target is missed: the hand-written section below.\n" % (
          "\n".join(missed) or "None."))
    return "\n".join(out + hand_written(args.out)) + "\n"


if __name__ == "__main__":
    sys.exit(main())
