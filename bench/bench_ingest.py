"""Ingest benchmark: tracewh vs naive polars vs pandas vs the gzip decompression floor.

Usage (from the project root):

    .venv/bin/python -m bench.bench_ingest [--scales 0.02,0.04] [--out bench/work]

What it does, in one run:

1. Builds inputs with ``tracewh synth google2011 --tables task_events,job_events`` at each
   ``--scales`` value (``<out>/in_<scale>/``, the original layout; cached by manifest).
2. For each size, measures in fresh subprocesses, under ``/usr/bin/time`` (peak
   RSS of that process alone): the gzip floor (``gzip -dc`` of all files, two
   processes in parallel), ``tracewh ingest`` (the CLI, ``--quiet``), a naive
   polars conversion (read_csv + write_parquet per file) and a naive pandas one
   (read_csv + to_parquet per file). After every tracewh run the catalog's row
   counts are checked against the line counts taken while generating.
3. Prints a markdown table and writes ``bench/RESULTS.md``.

Only the standard library is needed in this process; polars / pandas / duckdb are
imported by the measured subprocesses (and duckdb read-only for the row check).
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from bench import harness as h
from bench.harness import (
    GNU_TIME,
    QUIET_BUSY_CORES,
    QUIET_WAIT_S,
    ROOT,
    TRACEWH,
    Run,
    best_of,
    dir_mb,
    fmt,
    log,
    measure,
    probe,
    write_section,
)

TABLES = ("task_events", "job_events")
# Column names as in warehouse/traces/google2011.py (duplicated so the naive
# scripts do not import tracewh code; checked against it at start-up).
COLUMNS = {
    "job_events": [
        "time",
        "missing_info",
        "job_id",
        "event_type",
        "user",
        "scheduling_class",
        "job_name",
        "logical_job_name",
    ],
    "task_events": [
        "time",
        "missing_info",
        "job_id",
        "task_index",
        "machine_id",
        "event_type",
        "user",
        "scheduling_class",
        "priority",
        "cpu_request",
        "memory_request",
        "disk_space_request",
        "different_machines_restriction",
    ],
}

# Targets from the brief.
TARGET_FLOOR_RATIO = 1.5  # tracewh wall <= 1.5 x gzip floor
TARGET_PANDAS_RATIO = 3.0  # pandas wall >= 3 x tracewh wall
# "Does not grow": peak RSS at the larger input <= 1.25 x the smaller one (inputs differ 2-8x).
# Repeated runs of the same input differ by up to ~50 MB (~20%) here, hence not tighter.
RSS_FLAT_TOLERANCE = 1.25


# --------------------------------------------------------------------------- inputs


@dataclass
class Inputs:
    size_mb: int  # the key of the input (its uncompressed MB, rounded)
    scale: float
    folder: Path
    parts: int
    files: list[Path]
    lines: dict[str, int]  # per table
    csv_bytes: int  # uncompressed, all files
    gz_bytes: int
    synth_s: float | None  # generation wall time in this run (None: cached)

    @property
    def rows(self) -> int:
        return sum(self.lines.values())


def build_inputs(work: Path, scale: float) -> Inputs:
    folder = work / f"in_{scale:g}"
    m, wall = h.synth_input(folder, "google2011", scale, args=("--tables", ",".join(TABLES)))
    files = [folder / rel for rel in m["files"]]
    return Inputs(
        round(sum(f["bytes"] for f in m["files"].values()) / 1e6),
        scale,
        folder,
        m["model"]["parts"],
        files,
        {t: m["tables"][t]["rows"] for t in TABLES},
        sum(f["bytes"] for f in m["files"].values()),
        sum(f["file_bytes"] for f in m["files"].values()),
        wall,
    )


# --------------------------------------------------------------------------- measuring


def run_gzip_floor(inp: Inputs) -> Run:
    # Two halves balanced by compressed size (largest first into the lighter half).
    halves: list[list[str]] = [[], []]
    weight = [0, 0]
    for f in sorted(inp.files, key=lambda p: p.stat().st_size, reverse=True):
        i = 0 if weight[0] <= weight[1] else 1
        halves[i].append(str(f))
        weight[i] += f.stat().st_size
    script = 'for f; do gzip -dc "$f"; done > /dev/null'
    # One shell launching both halves, so both run under one timer; peak RSS is irrelevant here.
    cmd = [
        "sh",
        "-c",
        f"sh -c '{script}' sh \"$@\" & P=$!; "
        f"sh -c '{script}' sh {' '.join(shlex.quote(f) for f in halves[1])}; "
        "wait $P",
        "sh",
        *halves[0],
    ]
    run, _, _ = measure("gzip -dc floor (2 procs)", cmd)
    run.rss_mb = None
    return run


def check_catalog(home: Path, inp: Inputs) -> tuple[bool, str, dict]:
    """Compare meta.tables / meta.ingests with the generated line counts."""
    p = subprocess.run(
        probe("ingest_catalog_check", str(home / "tracewh.duckdb")), capture_output=True, text=True
    )
    if p.returncode != 0:
        return False, f"could not read the catalog: {p.stderr.strip().splitlines()[-1:]}", {}
    info = json.loads(p.stdout)
    problems = []
    for t in TABLES:
        got = info["tables"].get(t)
        if got != inp.lines[t]:
            problems.append(f"{t}: catalog rows {got} != input lines {inp.lines[t]}")
    for t, _nfiles, read, written, rejected, _, _ in info["ingests"]:
        if read != inp.lines.get(t) or rejected:
            problems.append(
                f"{t}: rows_read {read}, written {written}, rejected {rejected} "
                f"(input lines {inp.lines.get(t)})"
            )
    return not problems, "; ".join(problems), info


def run_tracewh(inp: Inputs, work: Path) -> Run:
    home = work / f"home_{inp.size_mb}"
    shutil.rmtree(home, ignore_errors=True)
    cmd = [str(TRACEWH), "--home", str(home), "ingest", "google2011", str(inp.folder), "--quiet"]
    run, _, err = measure("tracewh ingest", cmd)
    if run.ok:
        ok, why, info = check_catalog(home, inp)
        run.extra = info
        if ok:
            log(f"row check OK: catalog rows {info['tables']} == input lines {inp.lines}")
        else:
            run.ok = False
            run.note = "ROW COUNT MISMATCH: " + why
            bar = "!" * 78
            print(
                f"\n{bar}\n!!! ROW COUNT MISMATCH after tracewh ingest ({inp.size_mb} MB): {why}\n{bar}\n",
                file=sys.stderr,
                flush=True,
            )
        run.out_mb = dir_mb(home / "parquet")
    else:
        print(err, file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    return run


def run_naive(kind: str, inp: Inputs, work: Path) -> Run:
    out = work / f"out_{kind}_{inp.size_mb}"
    shutil.rmtree(out, ignore_errors=True)
    job = work / f"job_{kind}_{inp.size_mb}.json"
    files = [[f.parent.name, str(f)] for f in inp.files]
    job.write_text(json.dumps({"out": str(out), "files": files, "columns": COLUMNS}))
    label = {"polars": "naive polars", "pandas": "pandas"}[kind]
    run, stdout, err = measure(label, probe(f"ingest_naive_{kind}", str(job)))
    if run.ok:
        rows = int(stdout.strip().splitlines()[-1])
        if rows != inp.rows:
            run.note = f"read {rows} rows, input has {inp.rows}"
            log(f"{label}: {run.note}")
        run.out_mb = dir_mb(out)
    else:
        print(err[-2000:], file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)
    job.unlink(missing_ok=True)
    return run


def run_phases(inp: Inputs, work: Path) -> Run:
    home = work / f"home_{inp.size_mb}_phases"
    shutil.rmtree(home, ignore_errors=True)
    run, stdout, err = measure(
        "tracewh phases (the library's own phase times)",
        probe("ingest_phases", str(home), str(inp.folder)),
    )
    if run.ok:
        try:
            run.extra = json.loads(stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            run.note = "no phase data"
    else:
        print(err[-2000:], file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    return run


# --------------------------------------------------------------------------- reporting


def results_table(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> str:
    head = (
        "| input | tool | wall s | rows/s | MB/s (uncompr.) | peak RSS MB | x gzip floor "
        "| x tracewh | Parquet MB | load1 / busy before / others during |"
    )
    lines = [head, "|---|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    for inp in sizes:
        rs = results[inp.size_mb]
        floor, tw = rs.get("gzip"), rs.get("tracewh")
        for key in ("gzip", "tracewh", "polars", "pandas"):
            r = rs.get(key)
            label = f"{inp.csv_bytes / 1e6:.0f} MB, {inp.rows / 1e6:.2f} M rows, {len(inp.files)} files"
            if r is None:
                continue
            walls = r.extra.get("all_walls")
            wall = f"{r.wall:.2f}" + (f" (best of {walls})" if walls else "")
            flag = "" if r.ok else " **FAILED**"
            lines.append(
                f"| {label} | {r.tool}{flag} | {wall} | {inp.rows / r.wall:,.0f} | "
                f"{inp.csv_bytes / 1e6 / r.wall:.0f} | {fmt(r.rss_mb, '.0f')} | "
                f"{fmt(r.wall / floor.wall if floor else None, '.2f')} | "
                f"{fmt(r.wall / tw.wall if tw else None, '.2f')} | {fmt(r.out_mb, '.1f')} | "
                f"{r.load1:.2f} / {r.busy_cores:.2f} / {r.others:.2f} |"
            )
    return "\n".join(lines)


def verdict(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    out = []

    def mark(ok: bool) -> str:
        return "**met**" if ok else "**NOT met**"

    for inp in sizes:
        rs = results[inp.size_mb]
        tw, fl, pl_, pd_ = (rs.get(k) for k in ("tracewh", "gzip", "polars", "pandas"))
        tag = f"{inp.csv_bytes / 1e6:.0f} MB"
        if tw and fl:
            ratio = tw.wall / fl.wall
            out.append(
                f"- {tag}: tracewh at most {TARGET_FLOOR_RATIO}x the decompression floor: "
                f"{mark(ratio <= TARGET_FLOOR_RATIO)} (tracewh {tw.wall:.2f} s, floor "
                f"{fl.wall:.2f} s: {ratio:.2f}x)"
            )
        if tw and pl_:
            out.append(
                f"- {tag}: tracewh faster than naive polars: {mark(tw.wall < pl_.wall)} "
                f"(tracewh {tw.wall:.2f} s, polars {pl_.wall:.2f} s: polars takes "
                f"{pl_.wall / tw.wall:.2f}x tracewh's time)"
            )
        if tw and pd_:
            out.append(
                f"- {tag}: tracewh at least {TARGET_PANDAS_RATIO:.0f}x faster than pandas: "
                f"{mark(pd_.wall / tw.wall >= TARGET_PANDAS_RATIO)} (pandas {pd_.wall:.2f} s, "
                f"tracewh {tw.wall:.2f} s: pandas takes {pd_.wall / tw.wall:.2f}x tracewh's time)"
            )
    tws: list[tuple[Inputs, Run, float]] = []
    for inp in sizes:
        r = results[inp.size_mb].get("tracewh")
        if r is not None and r.rss_mb:
            tws.append((inp, r, r.rss_mb))
    for (i0, r0, m0), (i1, r1, m1) in itertools.pairwise(tws):
        g = m1 / m0
        out.append(
            f"- peak RSS of tracewh does not grow with the input "
            f"({i0.csv_bytes / 1e6:.0f} -> {i1.csv_bytes / 1e6:.0f} MB): "
            f"{mark(g <= RSS_FLAT_TOLERANCE)} ({m0:.0f} MB -> {m1:.0f} MB, "
            f"x{g:.2f} for x{i1.csv_bytes / i0.csv_bytes:.2f} input; runs: "
            f"{r0.extra.get('all_rss', [round(m0)])} -> "
            f"{r1.extra.get('all_rss', [round(m1)])}; 'flat' = at most "
            f"x{RSS_FLAT_TOLERANCE})"
        )
    bad = [(i.size_mb, r.note) for i in sizes for r in results[i.size_mb].values() if not r.ok]
    if bad:
        out.append(f"- FAILURES: {bad}")
    else:
        out.append(
            "- row counts: the catalog of every tracewh run holds exactly the input's lines "
            "(per table; 0 rejects)"
        )
    return out


def cpu_efficiency(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    """MB of CSV per CPU-second: how much work each tool spends, independent of parallelism."""
    out = []
    for inp in sizes:
        parts = []
        for key in ("gzip", "tracewh", "polars", "pandas"):
            r = results[inp.size_mb].get(key)
            if r and r.cpu_s:
                parts.append(
                    f"{r.tool} {inp.csv_bytes / 1e6 / r.cpu_s:.0f} MB/CPU-s "
                    f"({r.cpu_s:.1f} CPU-s, {r.cpu_s / r.wall:.2f} cores)"
                )
        if parts:
            out.append(f"- {inp.csv_bytes / 1e6:.0f} MB: " + "; ".join(parts))
    return out


def phases_table(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    runs = [
        (inp, r)
        for inp in sizes
        if (r := results[inp.size_mb].get("phases")) and r.ok and "phases" in r.extra
    ]
    names = list(dict.fromkeys(name for _, r in runs for name, _, _ in r.extra["phases"]))
    rows = []
    for inp, r in runs:
        x = r.extra
        wall = {name: s for name, s, _ in x["phases"]}
        rows.append(
            f"| {inp.csv_bytes / 1e6:.0f} MB | {r.wall:.2f} | {x['import_s']:.2f} | "
            + "".join(f"{fmt(wall.get(n), '.2f')} | " for n in names)
            + f"{x['ingest_s'] - sum(wall.values()):.2f} | {fmt(x.get('rss_peak'), '.0f')} | {r.others:.2f} |"
        )
    if not rows:
        return []
    return [
        "",
        "The ingest's phases (a separate `tracewh.ingestion.ingest` call in a fresh process, "
        "the wall time of each phase as IngestResult.phases reports it; seconds):",
        "",
        "| input | wall | python + imports | " + "".join(f"{n} | " for n in names) + "rest | peak RSS MB "
        "| other procs (cores) |",
        "|---|--:|--:|" + "--:|" * len(names) + "--:|--:|--:|",
        *rows,
    ]


def tracewh_breakdown(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    """Where tracewh's wall time goes, from meta.ingests (per-file started/finished)."""
    out = []
    for inp in sizes:
        tw = results[inp.size_mb].get("tracewh")
        if not tw or not tw.extra.get("ingests"):
            continue
        ing = tw.extra["ingests"]
        busy = sum(row[6] for row in ing)  # summed per-file COPY time
        conv_span = tw.extra["span"]  # first file started .. last file finished
        nfiles = sum(row[1] for row in ing)
        files = {t: (f, p, b) for t, f, p, b in tw.extra.get("files", [])}
        te = files.get("task_events")
        out.append(
            f"- {inp.csv_bytes / 1e6:.0f} MB: wall {tw.wall:.2f} s, CPU {fmt(tw.cpu_s, '.1f')} s "
            f"({fmt((tw.cpu_s or 0) / tw.wall, '.2f')} cores busy on average). File conversions "
            f"(COPY) span {conv_span:.2f} s in meta.ingests, {busy:.2f} s summed over {nfiles} "
            f"files ({busy / nfiles * 1000:.0f} ms per file, {inp.csv_bytes / 1e6 / busy:.0f} MB/s "
            f"per worker); the remaining {tw.wall - conv_span:.2f} s is start-up, hashing, "
            f"table stats and the catalog commit."
            + (
                f" task_events Parquet: {te[0]} files in {te[1]} day partitions, "
                f"{te[2] / 1e6:.1f} MB ({te[2] / te[0] / 1e6:.2f} MB per file)."
                if te
                else ""
            )
        )
    return out


def write_results(
    path: Path,
    command: str,
    mi: dict,
    sizes: list[Inputs],
    results: dict[int, dict[str, Run]],
    table: str,
    started: float,
    notes: list[str],
) -> None:
    reps = (
        "best of 2"
        if any("all_walls" in r.extra for rs in results.values() for r in rs.values())
        else "one run"
    )
    ratio_txt = ", ".join(f"{i.csv_bytes / i.gz_bytes:.1f}x at {i.csv_bytes / 1e6:.0f} MB" for i in sizes)
    gen = ", ".join(
        f"scale {i.scale:g}: {i.parts} parts"
        + (f", generated in {i.synth_s:.1f} s" if i.synth_s else " (cached)")
        for i in sizes
    )
    text = f"""## Ingest: google2011 task_events + job_events

Measured {time.strftime("%Y-%m-%d %H:%M %Z")} by `bench/bench_ingest.py` (whole run
{time.perf_counter() - started:.0f} s).

{h.machine_text(mi)}

**Command**: `{command}`

**Inputs**: `tracewh synth google2011 --tables task_events,job_events` in the original layout
(`in_<scale>/<table>/part-NNNNN-of-00500.csv.gz`, gzip level 6; {gen}; CSV/gz ratio
{ratio_txt}). Inputs sit in the page cache (they were just written or read), so every tool
reads from memory, not disk.

**What runs** (each in a fresh subprocess; wall time by the parent, peak RSS and CPU
time from {"`/usr/bin/time`" if GNU_TIME else "`getrusage(RUSAGE_CHILDREN)` in a wrapper"}):
- *gzip -dc floor*: `gzip -dc` of every file to /dev/null, files split into two halves
  (balanced by size), one `sh -c 'for f; do gzip -dc "$f"; done > /dev/null'` per half,
  both in parallel. No parsing, no writing: the floor for any 2-core reader of these files.
- *tracewh ingest*: `.venv/bin/tracewh --home <tmp> ingest google2011 <in_dir> --quiet`
  (fresh home each time: sha256 of every file, one DuckDB COPY per file on 2 worker
  threads, task_events partitioned by day, table stats, catalog commit). After each
  run the catalog's rows per table are compared with the line counts of the inputs.
- *naive polars*: per file, sequentially, `pl.read_csv(f, has_header=False,
  new_columns=...)` then `df.write_parquet(...)` (zstd, polars' default); polars uses
  all cores inside each call. One Parquet per file, no partitioning, inferred types.
- *pandas*: per file `pd.read_csv(f, header=None, names=...)` then
  `df.to_parquet(..., engine="pyarrow")` (snappy, pandas' default).
- Timings: {reps} for gzip, tracewh and polars (all walls shown), one run for pandas.
  Before each measurement the bench waits (up to {QUIET_WAIT_S:.0f} s) until the machine is
  quiet (< {QUIET_BUSY_CORES} cores busy over a 1 s sample). The last column shows the
  1-minute load average and the busy cores (1 s sample) before the run, and the cores
  used by other processes (incl. hypervisor steal) during it: /proc/stat busy time minus
  the measured process tree's CPU time. The load average includes the tail of the
  bench's own previous measurement, so ~1-2 with ~0 busy cores is not contention.
- The instrumented tracewh run (phase table at the end) is an extra, separate run.

{table}

"x gzip floor" = wall / gzip floor wall of the same input; "x tracewh" = wall / tracewh
wall. rows/s and MB/s count all rows and uncompressed CSV bytes of the input.

### Verdict against the targets

{chr(10).join(verdict(sizes, results))}

### CPU spent per MB of CSV (fastest run; CPU time = user + system of the process tree)

{chr(10).join(cpu_efficiency(sizes, results))}

### Where tracewh's time goes

From the catalog of the timed CLI run (meta.ingests started/finished per file):

{chr(10).join(tracewh_breakdown(sizes, results))}
{chr(10).join(phases_table(sizes, results))}
{chr(10).join(notes)}
"""
    write_section(path, text, "## Ingest: google2011")


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--scales",
        default="0.02,0.04",
        help="synth scales of the inputs, comma-separated (default 0.02,0.04: ~300 and ~600 MB of CSV)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "work",
        help="work folder: generated inputs (cached), temporary homes and outputs",
    )
    ap.add_argument(
        "--results",
        type=Path,
        default=ROOT / "bench" / "RESULTS.md",
        help="markdown file to write (default bench/RESULTS.md)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="runs of gzip, tracewh and polars per size, best kept (default 2)",
    )
    ap.add_argument(
        "--pandas-max-mb",
        type=int,
        default=10**9,
        help="run pandas only for sizes up to this many MB (default: all)",
    )
    ap.add_argument(
        "--no-phases", action="store_true", help="skip the extra instrumented tracewh run (phase breakdown)"
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()
    command = h.command_line("bench_ingest.py", argv)
    scales = [float(s) for s in args.scales.split(",") if s.strip()]
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    _check_columns()

    inputs = [build_inputs(work, s) for s in scales]
    for inp in inputs:
        log(
            f"in_{inp.size_mb}: {len(inp.files)} files, {inp.rows:,} rows "
            f"({inp.lines}), {inp.csv_bytes / 1e6:.1f} MB CSV, {inp.gz_bytes / 1e6:.1f} MB gz"
        )
    # Warm the page cache so the first tool does not pay for disk reads the others skip.
    for inp in inputs:
        for f in inp.files:
            f.read_bytes()

    mi = h.machine_info()
    results: dict[int, dict[str, Run]] = {}
    for inp in inputs:
        rs: dict[str, Run] = {}
        rs["gzip"] = best_of(partial(run_gzip_floor, inp), args.repeat)
        rs["tracewh"] = best_of(partial(run_tracewh, inp, work), args.repeat)
        rs["polars"] = best_of(partial(run_naive, "polars", inp, work), args.repeat)
        if inp.size_mb <= args.pandas_max_mb:
            rs["pandas"] = run_naive("pandas", inp, work)
        if not args.no_phases:
            rs["phases"] = run_phases(inp, work)
        results[inp.size_mb] = rs

    table = results_table(inputs, results)
    print("\n" + table + "\n")
    for line in verdict(inputs, results):
        print(line)
    for line in tracewh_breakdown(inputs, results) + phases_table(inputs, results):
        print(line)
    notes = []
    if any(inp.size_mb > args.pandas_max_mb for inp in inputs):
        notes.append(f"\npandas was run only on inputs up to {args.pandas_max_mb} MB.")
    write_results(args.results, command, mi, inputs, results, table, started, notes)
    raw = {
        str(i.size_mb): {
            "csv_bytes": i.csv_bytes,
            "gz_bytes": i.gz_bytes,
            "rows": i.rows,
            "runs": {k: asdict(r) for k, r in results[i.size_mb].items()},
        }
        for i in inputs
    }
    (work / "results.json").write_text(json.dumps(raw, indent=1, default=str))
    log(f"wrote {args.results} (whole run {time.perf_counter() - started:.0f} s)")
    failed = any(not r.ok for rs in results.values() for r in rs.values())
    return 1 if failed else 0


def _check_columns() -> None:
    """The duplicated column lists must match the trace module (read-only import)."""
    try:
        sys.path.insert(0, str(ROOT))
        from tracewh.traces import google2011
    except Exception as e:  # the bench still runs if the package is broken mid-edit
        log(f"warning: cannot import tracewh.traces.google2011 to check columns: {e}")
        return
    finally:
        sys.path.pop(0)
    for t in TABLES:
        if google2011.TABLES[t].column_names != COLUMNS[t]:
            raise SystemExit(f"bench COLUMNS[{t!r}] differ from warehouse/traces/google2011.py")


if __name__ == "__main__":
    sys.exit(main())
