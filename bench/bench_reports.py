"""Report benchmark: every tracewh report over >= 20 M google2011 task events, with a naive queue baseline.

Usage (from the project root):

    .venv/bin/python -m bench.bench_reports [--events 20000000] [--out bench/work]

What it does, in one run:

1. Builds an input with ``tracewh synth google2011`` at the scale of ``--events`` task events
   (``<out>/reports_in_<events>/``, the original layout, cached by its manifest): task_events,
   job_events and machine_events, plus task_usage with ``--with-usage`` (the synthetic trace has
   the real ~8 usage rows per task event, so usage multiplies the input ~9x).
2. Ingests the input with ``tracewh --home <home> ingest google2011 <in> --quiet`` (timed,
   row counts checked against the generated lines).
3. Runs every report (``tracewh report list``) in a fresh subprocess,
   ``tracewh --home <home> report <name> --trace google2011 --format csv > /dev/null``,
   best of --repeat, wall time and peak RSS (``/usr/bin/time``).
4. A naive baseline for ``queue`` in the same run: pandas and polars read the raw
   task_events CSV.gz files, sort by (job_id, task_index, time) (stable, file order
   kept), drop UPDATE_* (7, 8), take the previous event per task and sum the paper's
   pending / running changes per hour bucket (method 3-2 / 3-3). Their final pending and
   running per bucket are compared with tracewh's ``queue`` output (loud MISMATCH if not).
5. Ingests a second input of half the events and re-runs the 3 reports with the largest
   peak RSS, to show whether their memory grows with the input.
6. For reports over the target (10 s per 10 M task events), profiles the report SQL in a
   read-only DuckDB connection (JSON profile: the most expensive operators) and times
   the lifecycle views it reads.
7. Prints the tables and writes the ``## Reports: ...`` section of bench/RESULTS.md
   (every other section of that file is kept as it is).

Measuring helpers (quiet-machine wait, /usr/bin/time, best-of, machine info, catalog
row check) come from bench_ingest.py.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import bench_ingest as bi
from bench import harness as h
from tracewh.synth import google2011 as synth_g2011

ROOT = bi.ROOT
GEN_VERSION = 1  # bump when the generated inputs change, to invalidate the cache
MAX_TIME = h.MAX_TIME
HOUR_US = 3_600_000_000
TARGET_S_PER_10M = 10.0  # every report under 10 s per 10 M task events (2 cores)
SINGLE_RUN_OVER_S = 20.0  # a report slower than this (on a quiet machine) runs once
HEAVIEST = 3  # reports re-run on the smaller input for the memory comparison
# "Memory bounded" = peak RSS grows by at most this factor when the input doubles.
RSS_BOUNDED_TOLERANCE = 1.25
EXPECTED_REPORTS = (
    "lifecycle-counts",
    "transitions",
    "queue",
    "event-cdf",
    "task-times",
    "priority-share",
    "utilization-change",
    "arrivals",
    "job-size",
    "machines",
    "overview",
)
# Per lifecycle view, a query that computes what the reports use of it (a bare count(*) may skip
# the window and aggregate columns); other views get `count(*), sum(hash(v))` (every column).
VIEW_PROBES = {
    "task_events": "SELECT count(*), max(event_kind), max(priority_tier) FROM lifecycle.task_events",
    "task_transitions": "SELECT count(*), max(from_event), max(from_time) FROM lifecycle.task_transitions",
    "task_episodes": "SELECT count(*), max(run_s), max(wait_s), max(end_reason), max(cpu_request) "
    "FROM lifecycle.task_episodes",
    "tasks": "SELECT count(*), max(first_event), max(priority_tier), max(submits) FROM lifecycle.tasks",
    "task_usage": "SELECT count(*), sum(cpu), sum(window_s) FROM lifecycle.task_usage",
}

USAGE_COLUMNS = [
    "start_time",
    "end_time",
    "job_id",
    "task_index",
    "machine_id",
    "cpu_rate",
    "canonical_memory_usage",
    "assigned_memory_usage",
    "unmapped_page_cache",
    "total_page_cache",
    "maximum_memory_usage",
    "disk_io_time",
    "local_disk_space_usage",
    "maximum_cpu_rate",
    "maximum_disk_io_time",
    "cycles_per_instruction",
    "memory_accesses_per_instruction",
    "sample_portion",
    "aggregation_type",
    "sampled_cpu_usage",
]
MACHINE_COLUMNS = ["time", "machine_id", "event_type", "platform_id", "cpus", "memory"]
ALL_TABLES = ("task_events", "job_events", "task_usage", "machine_events")

log = bi.log
NO_USAGE = "; without task_usage (no --with-usage): the usage-based reports run over an empty table"
GENERATED = {"seconds": 0.0, "inputs": 0}  # input generation done by this run


# --------------------------------------------------------------------------- inputs


@dataclass
class Input:
    events: int  # requested task events
    scale: float
    folder: Path
    parts: int
    files: list[Path]
    lines: dict[str, int]  # per table
    csv_bytes: dict[str, int]
    gz_bytes: int
    synth_s: float | None

    @property
    def task_events(self) -> int:
        return self.lines["task_events"]

    def as_bi(self) -> bi.Inputs:
        """The shape bench_ingest.check_catalog expects."""
        return bi.Inputs(
            0, self.scale, self.folder, self.parts, self.files, self.lines,
            sum(self.csv_bytes.values()), self.gz_bytes, self.synth_s,
        )  # fmt: skip

    def task_event_files(self) -> list[Path]:
        return sorted((self.folder / "task_events").glob("part-*.csv.gz"))


def build_input(work: Path, events: int, with_usage: bool) -> Input:
    tables = [t for t in ALL_TABLES if with_usage or t != "task_usage"]
    scale = events / synth_g2011.PUBLISHED["task_events"]
    folder = work / f"reports_in_{events}"
    m, wall = h.synth_input(folder, "google2011", scale, args=("--tables", ",".join(tables)))
    if wall:
        GENERATED["seconds"] += wall
        GENERATED["inputs"] += 1
    lines = dict.fromkeys(ALL_TABLES, 0)
    csv_bytes = dict.fromkeys(ALL_TABLES, 0)
    for f in m["files"].values():
        lines[f["table"]] += f["rows"]
        csv_bytes[f["table"]] += f["bytes"]
    return Input(
        events,
        scale,
        folder,
        m["model"]["parts"],
        [folder / rel for rel in m["files"]],
        lines,
        csv_bytes,
        sum(f["file_bytes"] for f in m["files"].values()),
        wall,
    )


# --------------------------------------------------------------------------- tracewh


def home_for(work: Path, inp: Input) -> Path:
    return work / f"reports_home_{inp.events}"


def ingest(inp: Input, work: Path) -> bi.Run:
    home = home_for(work, inp)
    shutil.rmtree(home, ignore_errors=True)
    cmd = [str(bi.TRACEWH), "--home", str(home), "ingest", "google2011", str(inp.folder), "--quiet"]
    run, _, err = bi.measure(f"tracewh ingest ({inp.task_events / 1e6:.1f} M task events)", cmd)
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run
    ok, why, info = bi.check_catalog(home, inp.as_bi())
    got = info.get("tables", {})
    for t in ALL_TABLES:
        if got.get(t) != inp.lines[t]:
            ok = False
            why += f"; {t}: catalog rows {got.get(t)} != input lines {inp.lines[t]}"
    run.extra = {"tables": got, "files": info.get("files", [])}
    run.out_mb = bi.dir_mb(home / "parquet")
    if ok:
        log(f"row check OK: {got}")
    else:
        run.ok = False
        run.note = "ROW COUNT MISMATCH: " + why.strip("; ")
        _banner(f"ROW COUNT MISMATCH after tracewh ingest: {run.note}")
    return run


def _banner(msg: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n!!! {msg}\n{bar}\n", file=sys.stderr, flush=True)


NO_TRACE: set[str] = {"overview"}  # reports run without --trace (filled by report_names)


def report_names() -> list[str]:
    """The reports that cover google2011, from the library's report list (read-only)."""
    p = subprocess.run(h.probe("reports_list"), capture_output=True, text=True, check=False)
    try:
        listed = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        log(f"warning: cannot list the reports ({p.stderr.strip()[-200:]}); using the known list")
        return list(EXPECTED_REPORTS)
    names = [n for n, traces, _ in listed if "google2011" in traces]
    NO_TRACE.clear()
    NO_TRACE.update(n for n, _, needs_trace in listed if not needs_trace)
    other = [n for n, traces, _ in listed if "google2011" not in traces]
    if other:
        log(f"leaving out {len(other)} reports that do not cover google2011: {', '.join(other)}")
    missing = [n for n in EXPECTED_REPORTS if n not in names]
    if missing:
        log(f"warning: reports named in the brief but not listed for google2011: {missing}")
    return names


def report_cmd(home: Path, name: str) -> list[str]:
    cmd = [str(bi.TRACEWH), "--home", str(home), "report", name]
    if name not in NO_TRACE:
        cmd += ["--trace", "google2011"]
    return [*cmd, "--format", "csv"]


def run_report(home: Path, name: str, label: str, outputs: dict | None = None) -> bi.Run:
    """One timed run; stdout to /dev/null, or (outputs given) to a pipe, parsed into outputs[name]."""
    run, stdout, err = bi.measure(label, report_cmd(home, name), stdout_devnull=outputs is None)
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
    elif outputs is not None:
        outputs[name] = list(csv.DictReader(io.StringIO(stdout)))
    return run


def best_report(home: Path, name: str, label: str, repeat: int, outputs: dict) -> bi.Run:
    """Best of `repeat` runs (the first captured, the others to /dev/null).

    A report whose first, quiet run took over SINGLE_RUN_OVER_S runs once: a second run of a
    30 s report would not change the verdict and the whole bench must stay near 15 minutes.
    """
    first = run_report(home, name, label, outputs)
    if repeat <= 1 or (first.wall > SINGLE_RUN_OVER_S and first.others <= h.NOISY_CORES):
        return first
    pending = [first]

    def once() -> bi.Run:
        return pending.pop() if pending else run_report(home, name, label)

    return bi.best_of(once, repeat)


# --------------------------------------------------------------------------- naive queue baselines


def tracewh_queue(rows: list[dict]) -> dict[int, list[int]]:
    keys = ("pending", "running", "submitted", "scheduled", "ended")
    return {int(r["bucket"]): [int(float(r[k])) for k in keys] for r in rows}


def run_naive_queue(kind: str, inp: Input, work: Path, reference: dict[int, list[int]]) -> bi.Run:
    out = work / f"queue_{kind}.json"
    job = work / f"queue_{kind}_job.json"
    out.unlink(missing_ok=True)
    files = [str(f) for f in inp.task_event_files()]
    job.write_text(json.dumps({"files": files, "columns": bi.COLUMNS["task_events"], "out": str(out)}))
    run, _, err = bi.measure(
        f"naive {kind} queue", h.probe("naive_queue", kind, str(job)), stdout_devnull=True
    )
    job.unlink(missing_ok=True)
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run
    res = json.loads(out.read_text())
    got = {int(b): v for b, v in res["buckets"].items()}
    run.extra = {"rows": res["rows"], "buckets": len(got)}
    problems = []
    if res["rows"] != inp.task_events:
        problems.append(f"read {res['rows']} rows, the input has {inp.task_events}")
    if not reference:
        problems.append("no tracewh queue output to compare with")
    if set(got) != set(reference):
        problems.append(f"buckets differ: {len(got)} vs tracewh {len(reference)}")
    bad = [b for b in sorted(set(got) & set(reference)) if got[b][:2] != reference[b][:2]]
    if bad:
        b = bad[0]
        problems.append(
            f"pending/running differ in {len(bad)} buckets (first: bucket {b}: {kind} {got[b][:2]}, "
            f"tracewh {reference[b][:2]})"
        )
    counts = [b for b in sorted(set(got) & set(reference)) if got[b][2:] != reference[b][2:]]
    if counts:
        problems.append(f"submitted/scheduled/ended differ in {len(counts)} buckets")
    if problems:
        run.ok = False
        run.note = "QUEUE MISMATCH: " + "; ".join(problems)
        _banner(f"{kind} baseline vs tracewh queue: {run.note}")
    else:
        last = max(got)
        run.note = (
            f"matches tracewh queue in all {len(got)} buckets (pending, running, submitted, scheduled, "
            f"ended); final bucket {last}: pending {got[last][0]:,}, running {got[last][1]:,}"
        )
        log(f"{kind}: {run.note}")
    return run


# --------------------------------------------------------------------------- profiling


def profile(home: Path, names: list[str], work: Path) -> tuple[bi.Run, dict]:
    tmp = work / "profiles"
    tmp.mkdir(exist_ok=True)
    job = {"home": str(home), "reports": names, "tmp": str(tmp), "probes": VIEW_PROBES}
    run, stdout, err = bi.measure(
        f"profile of {', '.join(names)}", h.probe("reports_profile", json.dumps(job))
    )
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run, {}
    return run, json.loads(stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- reporting


@dataclass
class Results:
    big: Input
    small: Input | None = None
    ingest: dict[int, bi.Run] = field(default_factory=dict)
    reports: dict[str, bi.Run] = field(default_factory=dict)
    small_reports: dict[str, bi.Run] = field(default_factory=dict)
    out_rows: dict[str, int] = field(default_factory=dict)
    baselines: dict[str, bi.Run] = field(default_factory=dict)
    profile: dict = field(default_factory=dict)
    profile_run: bi.Run | None = None


def per10m(r: bi.Run, inp: Input) -> float:
    return r.wall / (inp.task_events / 1e7)


def walls(r: bi.Run) -> str:
    w = r.extra.get("all_walls")
    return f"{r.wall:.2f}" + (f" ({', '.join(f'{x:.2f}' for x in w)})" if w and len(w) > 1 else "")


def report_table(res: Results) -> str:
    inp = res.big
    lines = [
        "| report | wall s (runs) | s per 10 M task events | < 10 s / 10 M | peak RSS MB (runs) "
        "| CPU s | cores | output rows | load1 / busy before / others during |",
        "|---|--:|--:|:-:|--:|--:|--:|--:|---|",
    ]
    for name, r in res.reports.items():
        p = per10m(r, inp)
        rss = r.extra.get("all_rss")
        flag = "" if r.ok else f" **FAILED** ({r.note})"
        lines.append(
            f"| {name}{flag} | {walls(r)} | {p:.2f} | {'yes' if p < TARGET_S_PER_10M else '**NO**'} | "
            f"{bi.fmt(r.rss_mb, '.0f')}{f' ({rss})' if rss and len(rss) > 1 else ''} | "
            f"{bi.fmt(r.cpu_s, '.1f')} | {bi.fmt((r.cpu_s or 0) / r.wall, '.2f')} | "
            f"{res.out_rows.get(name, 'n/a')} | {r.load1:.2f} / {r.busy_cores:.2f} / {r.others:.2f} |"
        )
    return "\n".join(lines)


def baseline_table(res: Results) -> str:
    q = res.reports.get("queue")
    lines = [
        "| tool | wall s | peak RSS MB | CPU s | x tracewh queue wall | check |",
        "|---|--:|--:|--:|--:|---|",
    ]
    if q:
        lines.append(
            f"| tracewh report queue | {walls(q)} | {bi.fmt(q.rss_mb, '.0f')} | {bi.fmt(q.cpu_s, '.1f')} "
            f"| 1.00 | reference |"
        )
    for kind, r in res.baselines.items():
        lines.append(
            f"| naive {kind} (raw CSV.gz) | {r.wall:.2f} | {bi.fmt(r.rss_mb, '.0f')} | "
            f"{bi.fmt(r.cpu_s, '.1f')} | {bi.fmt(r.wall / q.wall if q else None, '.2f')} | "
            f"{'OK: ' if r.ok else '**'}{r.note}{'' if r.ok else '**'} |"
        )
    return "\n".join(lines)


def memory_table(res: Results) -> list[str]:
    if not res.small or not res.small_reports:
        return []
    s, b = res.small, res.big
    x = b.task_events / s.task_events
    out = [
        f"| report | peak RSS MB at {s.task_events / 1e6:.1f} M | at {b.task_events / 1e6:.1f} M "
        f"| growth (input x{x:.2f}) | bounded (<= x{RSS_BOUNDED_TOLERANCE}) | wall s at "
        f"{s.task_events / 1e6:.1f} M -> {b.task_events / 1e6:.1f} M |",
        "|---|--:|--:|--:|:-:|--:|",
    ]
    for name, rs in res.small_reports.items():
        rb = res.reports[name]
        g = (rb.rss_mb or 0) / (rs.rss_mb or 1)
        out.append(
            f"| {name} | {bi.fmt(rs.rss_mb, '.0f')} | {bi.fmt(rb.rss_mb, '.0f')} | x{g:.2f} | "
            f"{'yes' if g <= RSS_BOUNDED_TOLERANCE else '**NO**'} | {rs.wall:.2f} -> {rb.wall:.2f} |"
        )
    return out


def verdict(res: Results) -> list[str]:
    inp = res.big
    out = []
    slow = {n: per10m(r, inp) for n, r in res.reports.items() if per10m(r, inp) >= TARGET_S_PER_10M}
    failed = [n for n, r in res.reports.items() if not r.ok]
    ok = not slow and not failed
    worst = max(res.reports, key=lambda n: res.reports[n].wall) if res.reports else None
    out.append(
        f"- every report under {TARGET_S_PER_10M:.0f} s per 10 M task events on 2 cores: "
        + ("**met**" if ok else "**NOT met**")
        + (
            f" (slowest: {worst} {per10m(res.reports[worst], inp):.2f} s per 10 M)"
            if worst and ok
            else f" (over: {', '.join(f'{n} {v:.2f} s' for n, v in slow.items())}"
            f"{'; failed: ' + ', '.join(failed) if failed else ''})"
        )
    )
    if res.small_reports:
        grow = {
            n: (res.reports[n].rss_mb or 0) / (r.rss_mb or 1)
            for n, r in res.small_reports.items()
            if r.rss_mb and res.reports[n].rss_mb
        }
        unbounded = {n: g for n, g in grow.items() if g > RSS_BOUNDED_TOLERANCE}
        out.append(
            f"- memory bounded (peak RSS of the {len(grow)} heaviest reports grows at most "
            f"x{RSS_BOUNDED_TOLERANCE} when the input grows x{inp.task_events / res.small.task_events:.2f}): "
            + ("**met**" if not unbounded else "**NOT met**")
            + f" ({', '.join(f'{n} x{g:.2f}' for n, g in grow.items())})"
        )
    biggest = max((r.rss_mb or 0 for r in res.reports.values()), default=0)
    out.append(
        f"- largest peak RSS of any report at {inp.task_events / 1e6:.1f} M task events: {biggest:.0f} MB"
    )
    q = res.reports.get("queue")
    for kind, r in res.baselines.items():
        if q:
            out.append(
                f"- queue vs naive {kind}: tracewh {q.wall:.2f} s / {bi.fmt(q.rss_mb, '.0f')} MB, {kind} "
                f"{r.wall:.2f} s / {bi.fmt(r.rss_mb, '.0f')} MB ({r.wall / q.wall:.2f}x tracewh's time); "
                + ("results identical" if r.ok else f"**{r.note}**")
            )
    return out


def profile_lines(res: Results) -> list[str]:
    p = res.profile
    if not p:
        return []
    out = [
        "",
        "### Profile of the reports over the target",
        "",
        "One run of each report's SQL in a read-only DuckDB connection with `PRAGMA enable_profiling='json'`"
        " (same catalog; operator times are summed thread time, so they can exceed the wall), and one query "
        "per lifecycle view these reports read, computing the columns the reports use "
        "(e.g. `SELECT count(*), max(run_s), max(wait_s), max(end_reason), max(cpu_request) "
        "FROM lifecycle.task_episodes`):",
        "",
    ]
    for name, d in p.get("reports", {}).items():
        ops = "; ".join(
            f"{o['op']} {o['s']:.2f} s ({100 * o['s'] / d['op_total']:.0f}%, "
            f"{bi.fmt(o['rows'], ',')} rows{', ' + o['what'] if o['what'] else ''})"
            for o in d["ops"][:4]
        )
        out.append(
            f"- **{name}**: {d['wall']:.2f} s in-process, DuckDB peak buffer memory "
            f"{d['peak_buffer_mb']:.0f} MB; top operators: {ops}"
        )
    if p.get("views"):
        out.append(
            "- lifecycle views alone: "
            + ", ".join(f"`lifecycle.{v}` {t:.2f} s" for v, t in p["views"].items())
        )
    return out


def input_text(inp: Input) -> str:
    ln, cb = inp.lines, inp.csv_bytes
    return (
        f"{inp.task_events:,} task events (synth scale {inp.scale:.4g}, "
        f"{inp.parts} part files per table), {ln['job_events']:,} job events, {ln['task_usage']:,} "
        f"task_usage rows, "
        f"{ln['machine_events']:,} machine events; {sum(cb.values()) / 1e6:,.0f} MB of CSV, "
        f"{inp.gz_bytes / 1e6:,.0f} MB gzipped"
    )


def ingest_line(inp: Input, r: bi.Run) -> str:
    return (
        f"- {inp.task_events / 1e6:.1f} M task events: {r.wall:.1f} s, "
        f"peak RSS {bi.fmt(r.rss_mb, '.0f')} MB, CPU {bi.fmt(r.cpu_s, '.1f')} s, "
        f"Parquet {bi.fmt(r.out_mb, '.0f')} MB"
        + ("" if r.ok else f" **FAILED: {r.note}**")
        + f"; catalog rows {r.extra.get('tables', {})}"
    )


def section(res: Results, mi: dict, command: str, started: float, repeat: int) -> str:
    inp = res.big
    small = res.small
    gen = (
        f"generating {GENERATED['inputs']} input(s) with tracewh synth took {GENERATED['seconds']:.0f} s"
        if GENERATED["inputs"]
        else "inputs cached from an earlier run"
    )
    no_trace = ", ".join(f"`{n}`" for n in res.reports if n in NO_TRACE) or "none"
    ingests = "\n".join(
        ingest_line(i, res.ingest[i.events]) for i in (inp, small) if i and i.events in res.ingest
    )
    mem = memory_table(res)
    memory = ""
    if mem and small:
        memory = (
            f"\n### Peak memory at two input sizes (the {len(res.small_reports)} reports with the largest "
            f"peak RSS)\n\nSmaller input: {input_text(small)}; one run of each report.\n\n"
            + "\n".join(mem)
            + "\n"
        )
    return f"""## Reports: google2011 life-cycle reports over {inp.task_events:,} task events

Measured {time.strftime("%Y-%m-%d %H:%M %Z")} by `bench/bench_reports.py` (whole run
{time.perf_counter() - started:.0f} s without the input generation; {gen}).

{h.machine_text(mi)}

**Command**: `{command}`

**Input**: {input_text(inp)}: `tracewh synth google2011` (the model is described in
warehouse/synth/google2011.py){"" if inp.lines["task_usage"] else NO_USAGE}.

**What runs** (each in a fresh subprocess; wall time by the parent, peak RSS and CPU time from
{"`/usr/bin/time`" if bi.GNU_TIME else "`getrusage(RUSAGE_CHILDREN)` in a wrapper"}; before each the
bench waits until the machine is quiet, as in the ingest bench):
- *ingest*: `.venv/bin/tracewh --home <home> ingest google2011 <in> --quiet`, once per input,
  catalog rows checked against the generated lines.
- *reports*: `.venv/bin/tracewh --home <home> report <name> --trace google2011 --format csv >
  /dev/null` ({no_trace} without `--trace`; every report listed for google2011), best of
  {repeat} (all walls shown; peak RSS = the largest over the runs; a third run when every run
  was disturbed by other processes; one run only for a report whose first, undisturbed run took
  over {SINGLE_RUN_OVER_S:.0f} s). The first run writes to a pipe that the bench reads (output
  rows, queue check; every output is at most a few thousand rows), the others to /dev/null.
- *naive queue baselines*: the raw task_events CSV.gz files read with pandas (`read_csv`,
  4 columns) and polars (`read_csv`), concatenated in file order, UPDATE_* dropped, stable sort
  by (job_id, task_index, time), previous event per task (`groupby().shift(1)` /
  `shift(1).over()`), the paper's changes (pending += SUBMIT - SCHEDULE - end after SUBMIT;
  running += SCHEDULE - FINISH - EVICT/FAIL/KILL/LOST after SCHEDULE), time 2^63-1 left out,
  summed per hour (`time // 3600e6`) and accumulated. Their pending, running, submitted,
  scheduled and ended per bucket are compared with tracewh's `queue` output.

### Ingest

{ingests}

### Reports at {inp.task_events / 1e6:.1f} M task events

{report_table(res)}

### Naive baseline for `queue` (same input, same run)

{baseline_table(res)}

(pending goes below zero because every replica holds tasks submitted before the real part starts:
their first event here is a SCHEDULE or an end event, which the paper's method subtracts.)
{memory}
### Verdict

{chr(10).join(verdict(res))}
{chr(10).join(profile_lines(res))}
"""


def write_section(path: Path, text: str) -> None:
    """This bench's section of RESULTS.md, through the one section writer of bench_ingest."""
    h.write_section(path, text, "## Reports: google2011")


# --------------------------------------------------------------------------- main


def _check_columns() -> None:
    try:
        sys.path.insert(0, str(ROOT))
        from tracewh.traces import google2011
    except Exception as e:  # the bench still runs if the package is broken mid-edit
        log(f"warning: cannot import tracewh.traces.google2011 to check columns: {e}")
        return
    finally:
        sys.path.pop(0)
    mine = {
        **{t: bi.COLUMNS[t] for t in bi.TABLES},
        "task_usage": USAGE_COLUMNS,
        "machine_events": MACHINE_COLUMNS,
    }
    for t, cols in mine.items():
        if google2011.TABLES[t].column_names != cols:
            raise SystemExit(f"bench columns of {t!r} differ from warehouse/traces/google2011.py")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=20_000_000, help="task events, at least (default 20 M)")
    ap.add_argument(
        "--small-events",
        type=int,
        default=None,
        help="task events of the second input for the memory comparison (default: --events / 2; 0 = skip)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "work", help="work folder (cached inputs)")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md", help="markdown to update")
    ap.add_argument("--repeat", type=int, default=2, help="runs per report, best kept (default 2)")
    ap.add_argument("--with-usage", action="store_true", help="also task_usage (~8 rows per task event)")
    ap.add_argument("--baselines", default="pandas,polars", help="naive queue baselines to run")
    ap.add_argument("--no-profile", action="store_true", help="skip profiling the reports over the target")
    ap.add_argument("--keep-homes", action="store_true", help="keep the tracewh homes after the run")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    command = shlex.join(
        [".venv/bin/python", "-m", "bench.bench_reports", *(argv if argv is not None else sys.argv[1:])]
    )
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    _check_columns()
    big = build_input(work, args.events, args.with_usage)
    small_n = args.events // 2 if args.small_events is None else args.small_events
    small = build_input(work, small_n, args.with_usage) if small_n else None
    for i in (big, small):
        if i:
            log(f"{i.folder.name}: {input_text(i)}")
    started = time.perf_counter()  # the whole-run time excludes the (cached) generation
    for f in big.files:  # warm the page cache
        f.read_bytes()
    mi = h.machine_info()
    res = Results(big, small)
    names = report_names()

    res.ingest[big.events] = ingest(big, work)
    if not res.ingest[big.events].ok:
        return 1
    home = home_for(work, big)
    outputs: dict[str, list[dict]] = {}
    for name in names:
        label = f"report {name} ({big.task_events / 1e6:.1f} M)"
        res.reports[name] = best_report(home, name, label, args.repeat, outputs)
    res.out_rows = {n: len(rows) for n, rows in outputs.items()}
    (work / "reports_queue.csv").write_text(
        "\n".join(",".join(r.values()) for r in outputs.get("queue", [])) + "\n"
    )
    reference = tracewh_queue(outputs.get("queue", []))
    for kind in [k.strip() for k in args.baselines.split(",") if k.strip()]:
        res.baselines[kind] = run_naive_queue(kind, big, work, reference)

    slow = [n for n, r in res.reports.items() if per10m(r, big) >= TARGET_S_PER_10M]
    if slow and not args.no_profile:
        res.profile_run, res.profile = profile(home, slow, work)
    if not args.keep_homes:
        shutil.rmtree(home, ignore_errors=True)

    if small:
        res.ingest[small.events] = ingest(small, work)
        if res.ingest[small.events].ok:
            heavy = sorted(res.reports, key=lambda n: -(res.reports[n].rss_mb or 0))[:HEAVIEST]
            shome = home_for(work, small)
            for name in heavy:
                res.small_reports[name] = run_report(
                    shome, name, f"report {name} ({small.task_events / 1e6:.1f} M)"
                )
            if not args.keep_homes:
                shutil.rmtree(shome, ignore_errors=True)

    print("\n" + report_table(res) + "\n\n" + baseline_table(res) + "\n")
    for line in [*memory_table(res), "", *verdict(res), *profile_lines(res)]:
        print(line)
    write_section(args.results, section(res, mi, command, started, args.repeat))
    raw = {
        "inputs": {str(i.events): asdict(i) for i in (big, small) if i},
        "ingest": {str(k): asdict(v) for k, v in res.ingest.items()},
        "reports": {k: asdict(v) for k, v in res.reports.items()},
        "small_reports": {k: asdict(v) for k, v in res.small_reports.items()},
        "baselines": {k: asdict(v) for k, v in res.baselines.items()},
        "profile": res.profile,
    }
    (work / "reports_results.json").write_text(json.dumps(raw, indent=1, default=str))
    log(f"updated {args.results} (whole run {time.perf_counter() - started:.0f} s)")
    runs = [*res.ingest.values(), *res.reports.values(), *res.small_reports.values(), *res.baselines.values()]
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
