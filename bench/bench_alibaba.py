"""Alibaba DAG benchmark: ali-dag-timing (critical path per job) over >= 1 M jobs, with a networkx baseline.

Usage (from the project root):

    .venv/bin/python -m bench.bench_alibaba [--jobs 1000000] [--out bench/work]

What it does, in one run:

1. Generates ``<out>/ali_<jobs>/batch_task.csv`` and ``batch_instance.csv`` with ``tracewh synth
   alibaba2018 --tables batch_task,batch_instance --form csv`` at the scale of ``--jobs`` (cached by
   its manifest; the model, DAG shapes and oddities are described in warehouse/synth/alibaba2018.py).
2. Ingests with ``tracewh --home <home> ingest alibaba2018 <in> --quiet --tables
   batch_task,batch_instance`` (one timed run; catalog rows checked against the generator).
3. Times ``tracewh --home <home> report <r> --format csv`` for ali-dag-timing, ali-dag-anomalies
   and ali-hierarchy (best of --repeat; wall, peak RSS via /usr/bin/time).
4. A naive baseline in the same run: one Python process reads batch_task.csv with the csv
   module, parses the names with a regex, builds a networkx DiGraph per job, skips jobs with a
   cycle (``nx.is_directed_acyclic_graph``) or an unknown duration, and takes the longest
   node-weighted path by a DP over ``nx.topological_sort``. Its job counts per status, mean and
   max critical path are compared with tracewh's report (loud MISMATCH otherwise), and the
   anomaly / hierarchy reports are compared with the generator's own counts.
5. An instrumented in-process run of the report's three steps (input SQL, Python walk of
   ``tracewh.catalog.dag``, final SQL) shows where the time goes.
6. Writes the ``## Reports: Alibaba DAG timing ...`` section of bench/RESULTS.md (appended, or
   replaced when it exists; every other section stays as it is).

Measuring helpers (quiet-machine wait, /usr/bin/time, best-of, machine info, section writer)
come from harness.py; networkx is in the dev extra.
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
from pathlib import Path

from bench import harness as h
from tracewh.synth import alibaba2018 as synth_ali

ROOT = h.ROOT
log = h.log
SEED = 20180808
TARGET_S = 60.0  # the whole ali-dag-timing report for 1 M jobs on 2 cores
REPORTS = ("ali-dag-timing", "ali-dag-anomalies", "ali-hierarchy")
DAG_REPORTS = ("ali-dag-timing", "ali-dag-anomalies")  # the two with the Python walk

TASK_COLUMNS = [
    "task_name",
    "instance_num",
    "job_name",
    "task_type",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
]
INSTANCE_COLUMNS = [
    "instance_name",
    "task_name",
    "job_name",
    "task_type",
    "status",
    "start_time",
    "end_time",
    "machine_id",
    "seq_no",
    "total_seq_no",
    "cpu_avg",
    "cpu_max",
    "mem_avg",
    "mem_max",
]

# --------------------------------------------------------------------------- the input


def build_input(work: Path, jobs: int, seed: int, fraction: float | None = None) -> tuple[Path, dict, bool]:
    """``tracewh synth alibaba2018`` (batch tables, plain CSV) of ``jobs`` jobs, batch_instance
    thinned by ``--instance-fraction`` if given; the manifest as the dictionary of expected counts
    the checks below compare with."""
    folder = work / (f"ali_{jobs}" + (f"_i{fraction:g}" if fraction else ""))
    scale = jobs / synth_ali.JOBS
    thin = ("--instance-fraction", str(fraction)) if fraction else ()
    m, wall = h.synth_input(
        folder,
        "alibaba2018",
        scale,
        seed=seed,
        args=("--tables", "batch_task,batch_instance", "--form", "csv", *thin),
    )
    bt = m["tables"]["batch_task"]
    gen = {
        "seed": seed,
        "jobs": bt["jobs"],
        "dag_jobs": bt["jobs:dag"],
        "independent_jobs": bt["jobs:independent"],
        "task_rows": bt["rows"],
        "instance_rows": m["tables"]["batch_instance"]["rows"],
        "instance_fraction": fraction,
        "shapes": {n: [bt[f"shape:{n}:jobs"], bt[f"shape:{n}:tasks"]] for n, *_ in synth_ali.SHAPES},
        "classes": {c: bt[f"class:{c}"] for c in ("no_dag", "dag_root", "dag_dependent")},
        "anomalies": {a: bt[f"anomaly:{a}"] for a in synth_ali.ANOMALIES},
        "cycle_2": bt["cycle:2 tasks"],
        "cycle_3": bt["cycle:3 tasks"],
        "duplicate_id_jobs": bt["duplicate_id_jobs"],
        "merge_in_dag_jobs": bt["merge_in_dag_jobs"],
        "waiting": bt["status:Waiting"],
        "failed_known_times": bt["failed_known_times"],
        "csv_bytes": {f["table"]: f["bytes"] for f in m["files"].values()},
        "seconds": wall or 0.0,
    }
    return folder, gen, wall is not None


# --------------------------------------------------------------------------- tracewh runs


def du_mb(d: Path) -> float:
    return sum(f.stat().st_size for f in d.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def ingest(folder: Path, home: Path, gen: dict) -> h.Run:
    shutil.rmtree(home, ignore_errors=True)
    cmd = [
        str(h.TRACEWH),
        "--home",
        str(home),
        "ingest",
        "alibaba2018",
        str(folder),
        "--quiet",
        "--tables",
        "batch_task,batch_instance",
    ]
    run, _, err = h.measure("tracewh ingest", cmd)
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run
    p = subprocess.run(
        h.probe("alibaba_catalog_rows", str(home / "tracewh.duckdb")), capture_output=True, text=True
    )
    try:
        rows = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        rows = {}
        log(f"warning: cannot read the catalog: {p.stderr.strip()[-300:]}")
    want = {"batch_task": gen["task_rows"], "batch_instance": gen["instance_rows"]}
    run.extra = {"catalog_rows": rows}
    if rows and rows != want:
        run.note = f"ROW COUNT MISMATCH: catalog {rows}, generated {want}"
        banner(run.note)
    elif rows:
        log(f"row check OK: {rows}")
    run.out_mb = du_mb(home / "parquet") if (home / "parquet").is_dir() else None
    return run


banner = h.banner


def report(home: Path, name: str, repeat: int) -> tuple[h.Run, list[dict]]:
    """Best of repeat; the first run's CSV is kept (read from a pipe), the others go to /dev/null."""
    cmd = [str(h.TRACEWH), "--home", str(home), "report", name, "--format", "csv"]
    outputs: list[dict] = []
    runs = []
    for i in range(repeat):
        run, out, err = h.measure(name, cmd, stdout_devnull=i > 0)
        if not run.ok:
            print(err[-3000:], file=sys.stderr)
        if i == 0 and run.ok:
            outputs = list(csv.DictReader(io.StringIO(out)))
        runs.append(run)
    it = iter(runs)
    return h.best_of(lambda: next(it), len(runs)) if len(runs) > 1 else runs[0], outputs


# --------------------------------------------------------------------------- naive baseline


last_json = h.last_json


def naive(folder: Path) -> tuple[h.Run, dict]:
    run, out, err = h.measure(
        "naive python + networkx", h.probe("alibaba_naive_dag", str(folder / "batch_task.csv"))
    )
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run, {}
    res = last_json(out) or {}
    if not res:
        run.ok, run.note = False, "no result printed"
    log(f"naive: {res}")
    return run, res


# --------------------------------------------------------------------------- where the time goes


def phases(home: Path, name: str) -> tuple[h.Run, dict]:
    run, out, err = h.measure(f"phases (instrumented {name})", h.probe("alibaba_dag_phases", str(home), name))
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run, {}
    res = last_json(out) or {}
    if not res:
        run.ok, run.note = False, "no timings printed"
    log(f"phases: {res}")
    return run, res


# The SQL parts of the report, each timed alone (count(*) over the view or CTE, so no result
# transfer), and the same parts over a TEMP table holding the parsed batch_task view (the parse
# done once): how much of the SQL time is the task-name parse repeated in every view reference.


def sql_parts(home: Path) -> tuple[h.Run, list]:
    run, out, err = h.measure("SQL parts of the DAG reports", h.probe("alibaba_sql_parts", str(home)))
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run, []
    return run, last_json(out) or []


# --------------------------------------------------------------------------- comparing


def _num(x: str | None) -> float | None:
    return None if x in (None, "") else float(x)


def compare(timing: list[dict], base: dict, gen: dict) -> tuple[list[str], bool]:
    """Lines of the tracewh vs baseline table, and whether everything matched."""
    by = {r["measure"]: r for r in timing}
    cp = by.get("critical path", {})
    rows = []
    ok = True

    def line(what: str, tw: object, nv: object, same: bool) -> None:
        nonlocal ok
        ok = ok and same
        rows.append(f"| {what} | {tw} | {nv} | {'yes' if same else '**MISMATCH**'} |")

    for st in ("ok", "cycle", "unknown_times"):
        tw = _num(by.get(f"jobs: {st}", {}).get("n"))
        nv = base["status"][st]
        line(f"jobs: {st}", fmt_int(tw), f"{nv:,}", tw == nv)
    tw_total = sum(_num(by.get(f"jobs: {s}", {}).get("n")) or 0 for s in ("ok", "cycle", "unknown_times"))
    line(
        "DAG jobs (generator: all DAG jobs)",
        fmt_int(tw_total),
        f"{gen['dag_jobs']:,}",
        tw_total == gen["dag_jobs"],
    )
    tw_cyc = _num(by.get("jobs: cycle", {}).get("n"))
    line(
        "cycle jobs (generator: injected)",
        fmt_int(tw_cyc),
        f"{gen['anomalies']['cycle']:,}",
        tw_cyc == gen["anomalies"]["cycle"],
    )
    mean = _num(cp.get("mean_s"))
    line(
        "critical path: mean s",
        f"{mean:.3f}" if mean is not None else "n/a",
        f"{base['mean']:.3f}",
        mean is not None and abs(mean - base["mean"]) <= 0.0015,
    )
    mx = _num(cp.get("max_s"))
    line(
        "critical path: max s (job)",
        f"{mx:,.0f} ({cp.get('max_job')})" if mx is not None else "n/a",
        f"{base['max']:,.0f} ({base['max_job']})",
        mx is not None and abs(mx - base["max"]) < 1e-6,
    )
    n_cp = _num(cp.get("n"))
    line(
        "critical path: jobs measured",
        fmt_int(n_cp),
        f"{base['status']['ok']:,}",
        n_cp == base["status"]["ok"],
    )
    return rows, ok


def fmt_int(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f}"


def check_anomalies(anom: list[dict], gen: dict) -> tuple[list[str], bool]:
    by = {r["anomaly"]: r for r in anom}
    rows, ok = [], True
    for what, want in gen["anomalies"].items():
        got = _num(by.get(what, {}).get("occurrences"))
        same = got == want
        ok = ok and same
        rows.append(f"| {what} | {fmt_int(got)} | {want:,} | {'yes' if same else '**MISMATCH**'} |")
    extra = sorted(set(by) - set(gen["anomalies"]))  # anomalies the generator does not inject
    for what in extra:
        same = _num(by[what]["occurrences"]) == 0
        ok = ok and same
        rows.append(f"| {what} | {by[what]['occurrences']} | 0 | {'yes' if same else '**MISMATCH**'} |")
    return rows, ok


def check_hierarchy(hier: list[dict], gen: dict) -> tuple[list[str], bool]:
    want = {
        ("jobs", ""): gen["jobs"],
        ("tasks", ""): gen["task_rows"],
        ("instances", ""): gen["instance_rows"],
        **{("tasks by class", c): v for c, v in gen["classes"].items()},
    }
    got = {(r["level"], r["class"] or ""): _num(r["count"]) for r in hier}
    rows, ok = [], True
    for (level, cls), w in want.items():
        g = got.get((level, cls))
        same = g == w
        ok = ok and same
        label = f"{level}{': ' + cls if cls else ''}"
        rows.append(f"| {label} | {fmt_int(g)} | {w:,} | {'yes' if same else '**MISMATCH**'} |")
    return rows, ok


# --------------------------------------------------------------------------- writing


def mix_text(gen: dict) -> str:
    T = gen["task_rows"]
    shapes = ", ".join(f"{name} {j:,} jobs / {t:,} tasks" for name, (j, t) in gen["shapes"].items())
    c = gen["classes"]
    a = gen["anomalies"]
    return (
        "`tracewh synth alibaba2018 --tables batch_task,batch_instance --form csv"
        + (f" --instance-fraction {gen['instance_fraction']:g}" if gen.get("instance_fraction") else "")
        + f"` (seed {gen['seed']}): "
        f"{gen['jobs']:,} jobs, {T:,} batch_task rows, {gen['instance_rows']:,} batch_instance rows "
        f"(batch_task.csv {gen['csv_bytes']['batch_task'] / 1e6:.0f} MB, batch_instance.csv "
        f"{gen['csv_bytes']['batch_instance'] / 1e6:.0f} MB).\n"
        f"- Jobs: {gen['independent_jobs']:,} independent, {gen['dag_jobs']:,} DAG jobs: {shapes} "
        f"(the model is described in warehouse/synth/alibaba2018.py).\n"
        f"- Task classes: no_dag {c['no_dag']:,} ({c['no_dag'] / T:.1%}), dag_root "
        f"{c['dag_root']:,} ({c['dag_root'] / T:.1%}), dag_dependent {c['dag_dependent']:,} "
        f"({c['dag_dependent'] / T:.1%}) (paper: 15.98% / 36.95% / 47.07%).\n"
        f"- Oddities: `_Stg<n>` {a['_Stg<n> suffix']:,} rows, trailing `_` {a['trailing underscore']:,}, "
        f"MergeTask {a['MergeTask name']:,} ({gen['merge_in_dag_jobs']:,} in DAG jobs), missing parent "
        f"{a['missing parent']:,}, self-loop {a['self-loop']:,}, cycles {a['cycle']:,} jobs "
        f"({gen['cycle_2']} of 2 tasks, {gen['cycle_3']} of 3), task id named twice in "
        f"{gen['duplicate_id_jobs']:,} jobs; end_time 0 {a['end time unknown (0)']:,} rows (of which "
        f"{gen['waiting']:,} Waiting with start 0), end < start {a['end before start']:,}, Failed with "
        f"known times {gen['failed_known_times']:,}."
    )


def run_row(label: str, r: h.Run | None, extra: str = "") -> str:
    if r is None:
        return f"| {label} | not run | | | |"
    walls = r.extra.get("all_walls")
    wall = f"{r.wall:.2f}" + (f" (best of {walls})" if walls else "")
    flag = "" if r.ok else f" **FAILED** {r.note}"
    return (
        f"| {label}{flag} | {wall} | {h.fmt(r.rss_mb, '.0f')} | {h.fmt(r.cpu_s, '.1f')} | "
        f"{r.load1:.2f} / {r.busy_cores:.2f} / {r.others:.2f} |{extra}"
    )


def section(ctx: dict) -> str:
    gen, mi, runs = ctx["gen"], ctx["mi"], ctx["runs"]
    table = "\n".join(
        [
            "| step | wall s | peak RSS MB | CPU s | load1 / busy before / others during |",
            "|---|--:|--:|--:|---|",
            run_row("`tracewh ingest` (batch_task + batch_instance)", runs.get("ingest")),
            *(run_row(f"`tracewh report {n}`", runs.get(n)) for n in REPORTS),
            run_row("naive Python + networkx critical path (baseline)", runs.get("naive")),
            *(
                run_row(f"instrumented {n} phases (one process, see below)", runs.get(f"phases {n}"))
                for n in DAG_REPORTS
            ),
            run_row(
                "SQL parts of the DAG reports timed alone (one process, see below)", runs.get("sql_parts")
            ),
        ]
    )
    tw = runs.get("ali-dag-timing")
    nv = runs.get("naive")
    b = ctx["base"]
    ph = ctx["phases"]
    verdict = []
    if tw and tw.ok:
        met = tw.wall <= TARGET_S
        verdict.append(
            f"- ali-dag-timing over {gen['jobs']:,} jobs / {gen['task_rows']:,} tasks in under "
            f"{TARGET_S:.0f} s on {mi['nproc']} cores: {'**met**' if met else '**NOT met**'} "
            f"({tw.wall:.1f} s, peak RSS {h.fmt(tw.rss_mb, '.0f')} MB)."
        )
    if tw and nv and tw.ok and nv.ok:
        verdict.append(
            f"- vs the naive baseline: tracewh {tw.wall:.1f} s vs {nv.wall:.1f} s "
            f"({nv.wall / tw.wall:.1f}x; the baseline reads and parses the CSV in "
            f"{b.get('read_parse_s', 0):.1f} s and builds / walks the networkx graphs in "
            f"{b.get('graphs_s', 0):.1f} s; peak RSS {h.fmt(tw.rss_mb, '.0f')} MB vs "
            f"{h.fmt(nv.rss_mb, '.0f')} MB). The baseline computes only the critical paths, not the edge "
            f"intervals, waiting times and quantiles of the report."
        )
    verdict.append(
        "- results: "
        + (
            "no baseline run (--no-naive)"
            if not ctx["cmp_rows"]
            else "critical path and job statuses **match** the baseline"
            if ctx["cmp_ok"]
            else "**MISMATCH** vs the baseline (see table)"
        )
        + "; anomaly counts "
        + ("match" if ctx["anom_ok"] else "**do not match**")
        + " the generator; hierarchy counts "
        + ("match" if ctx["hier_ok"] else "**do not match**")
        + " the generator."
    )
    where = []
    phs = {n: ph[n] for n in DAG_REPORTS if ph.get(n)}
    if phs:

        def row(label: str, key: str) -> str:
            return f"| {label} | " + " | ".join(f"{x[key]:.2f}" for x in phs.values()) + " |"

        x0 = next(iter(phs.values()))
        where = [
            "| phase (one process per report, same home; seconds) | " + " | ".join(phs) + " |",
            "|---|" + "--:|" * len(phs),
            row("python start + imports", "import_s"),
            row(
                f"input SQL `dag_tasks ORDER BY job_name, task_id` alone, into Arrow "
                f"({x0['input_rows']:,} rows)",
                "input_sql_arrow_s",
            ),
            row(
                f"the same statement as the report runs it: {x0.get('mode', 'query.fetch')}",
                "input_sql_fetch_s",
            ),
            row(
                f"`register_dag_paths` (group + walk + Arrow table + register; {x0['jobs']:,} jobs)",
                "register_s",
            ),
            row("of which: grouping rows into per-job task lists (timed separately)", "group_s"),
            row("of which: `walk_job` over all jobs (timed separately)", "walk_s"),
            row("final SQL (the statement after `-- then:`)", "final_sql_s"),
            "",
            "Peak RSS in those processes: "
            + "; ".join(
                f"{n}: {x['rss_after_arrow']:.0f} MB after the Arrow read, {x['rss_after_fetch']:.0f} MB "
                f"after the report's fetch, {x['rss_after_register']:.0f} MB after `register_dag_paths`"
                for n, x in phs.items()
            )
            + ".",
        ]
    parts = ctx["parts"]
    if parts:
        where += [
            "",
            "SQL the DAG reports read, each part timed alone (`count(*)` over it, no result transfer; one "
            "process, best of one). The what-if rows store the parsed `batch_task` view once in a TEMP "
            "table and derive the same edges / DAG input from it:",
            "",
            "| SQL part | seconds |",
            "|---|--:|",
            *(f"| {label} | {sec:.2f} |" for label, sec in parts),
        ]
    return f"""## Reports: Alibaba DAG timing over {gen["jobs"]:,} jobs

Measured {time.strftime("%Y-%m-%d %H:%M %Z")} by `bench/bench_alibaba.py` (whole run
{ctx["elapsed"]:.0f} s; {ctx["gen_text"]}).

{h.machine_text(mi)} networkx {b.get("networkx", "?")}.

**Command**: `{ctx["command"]}`

**Input** (`{ctx["folder"]}/`, plain headerless CSV): {mix_text(gen)}

**What runs** (each in a fresh subprocess; wall time by the parent, peak RSS and CPU time from
{"`/usr/bin/time`" if h.GNU_TIME else "`getrusage(RUSAGE_CHILDREN)` in a wrapper"}; before each the bench
waits up to {h.QUIET_WAIT_S:.0f} s until the machine is quiet, as in the ingest bench):
- `.venv/bin/tracewh --home <home> ingest alibaba2018 <in> --quiet --tables batch_task,batch_instance`
  (one run; catalog rows checked against the generator).
- `.venv/bin/tracewh --home <home> report <name> --format csv > /dev/null` for {", ".join(REPORTS)},
  best of {ctx["repeat"]} (all walls shown; peak RSS = the largest; the first run's output goes to a
  pipe the bench reads for the checks).
- Baseline: one Python process reads batch_task.csv with `csv.reader`, parses DAG names with a
  regex (`_Stg<n>` and trailing `_` stripped; `task_*` and `MergeTask` skipped), merges a task id
  named twice into one node (longest run, times known only if all are), builds a `networkx.DiGraph`
  per job (edges to missing parents and self-loops left out), counts jobs with a cycle
  (`nx.is_directed_acyclic_graph`) and with an unknown duration (start 0, end 0 or end < start),
  and takes the longest node-weighted path by a DP over `nx.topological_sort`.

{table}

### tracewh vs the baseline (same input, same run)

| | tracewh ali-dag-timing | naive networkx | same |
|---|--:|--:|---|
{chr(10).join(ctx["cmp_rows"])}

ali-dag-anomalies (occurrences) and ali-hierarchy vs the generator's own counts:

| anomaly / level | tracewh | generator | same |
|---|--:|--:|---|
{chr(10).join(ctx["anom_rows"] + ctx["hier_rows"])}

### Verdict

{chr(10).join(verdict)}

### Where the DAG reports' time goes

{chr(10).join(where)}
{chr(10).join(ctx["notes"])}
"""


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1_000_000, help="jobs to generate (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "work", help="work folder (cached input)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per report, best kept (default 2)")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md", help="markdown to update")
    ap.add_argument("--no-results", action="store_true", help="do not write RESULTS.md")
    ap.add_argument("--keep-home", action="store_true", help="keep the tracewh home afterwards")
    ap.add_argument("--no-sql-parts", action="store_true", help="skip timing the report's SQL parts (~90 s)")
    ap.add_argument("--no-phases", action="store_true", help="skip the instrumented in-process report runs")
    ap.add_argument(
        "--instance-fraction",
        type=float,
        help="thin batch_instance (tracewh synth --instance-fraction): e.g. 0.01 with --jobs 4201014",
    )
    ap.add_argument("--no-naive", action="store_true", help="skip the networkx baseline (and its check)")
    ap.add_argument(
        "--quiet-wait", type=float, default=h.QUIET_WAIT_S, help="max seconds to wait for a quiet machine"
    )
    args = ap.parse_args(argv)
    h.QUIET_WAIT_S = args.quiet_wait
    started = time.perf_counter()
    command = (
        ".venv/bin/python -m bench.bench_alibaba "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    ).rstrip()
    _check_columns()
    try:
        import networkx  # noqa: F401
    except ImportError:
        raise SystemExit("networkx is missing: .venv/bin/pip install networkx (bench only)") from None
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    folder, gen, fresh = build_input(work, args.jobs, args.seed, args.instance_fraction)
    gen_text = f"input generated in {gen['seconds']:.0f} s" if fresh else "input cached from an earlier run"
    for t in ("batch_task", "batch_instance"):  # warm the page cache
        with open(folder / f"{t}.csv", "rb") as fh:
            while fh.read(1 << 24):
                pass
    mi = h.machine_info()
    home = folder / "home"
    runs: dict[str, h.Run] = {}
    outputs: dict[str, list[dict]] = {}
    runs["ingest"] = ingest(folder, home, gen)
    if runs["ingest"].ok:
        for name in REPORTS:
            runs[name], outputs[name] = report(home, name, args.repeat)
    base: dict = {}
    if not args.no_naive:
        runs["naive"], base = naive(folder)
    ph: dict = {}
    parts: list = []
    if runs["ingest"].ok and not args.no_phases:
        for name in DAG_REPORTS:
            runs[f"phases {name}"], ph[name] = phases(home, name)
        if not args.no_sql_parts:
            runs["sql_parts"], parts = sql_parts(home)

    cmp_rows, cmp_ok = compare(outputs.get("ali-dag-timing", []), base, gen) if base else ([], args.no_naive)
    anom_rows, anom_ok = check_anomalies(outputs.get("ali-dag-anomalies", []), gen)
    hier_rows, hier_ok = check_hierarchy(outputs.get("ali-hierarchy", []), gen)
    for rows in (cmp_rows, anom_rows, hier_rows):
        print("\n".join(rows))
    if not cmp_ok:
        banner("MISMATCH between tracewh ali-dag-timing and the networkx baseline (see above)")
    if not (anom_ok and hier_ok):
        banner("MISMATCH between tracewh's anomaly / hierarchy reports and the generator (see above)")
    notes: list[str] = []
    ctx = {
        "gen": gen,
        "folder": folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder,
        "mi": mi,
        "runs": runs,
        "base": base,
        "phases": ph,
        "parts": parts,
        "cmp_rows": cmp_rows,
        "cmp_ok": cmp_ok,
        "anom_rows": anom_rows,
        "anom_ok": anom_ok,
        "hier_rows": hier_rows,
        "hier_ok": hier_ok,
        "command": command,
        "repeat": args.repeat,
        "gen_text": gen_text,
        "notes": notes,
        "elapsed": time.perf_counter() - started,
    }
    text = section(ctx)
    print(text)
    if not args.no_results:
        h.write_section(args.results, text, "## Reports: Alibaba DAG timing")
        log(f"wrote {args.results}")
    (work / "alibaba_results.json").write_text(
        json.dumps(
            {
                "gen": gen,
                "base": base,
                "phases": ph,
                "sql_parts": parts,
                "runs": {k: vars(r) for k, r in runs.items()},
            },
            indent=1,
            default=str,
        )
    )
    if not args.keep_home:
        shutil.rmtree(home, ignore_errors=True)
    log(f"done in {time.perf_counter() - started:.0f} s")
    failed = any(not r.ok for r in runs.values()) or not (cmp_ok and anom_ok and hier_ok)
    return 1 if failed else 0


def _check_columns() -> None:
    try:
        sys.path.insert(0, str(ROOT))
        from tracewh.traces import alibaba2018
    except Exception as e:  # the bench still runs if the package is broken mid-edit
        log(f"warning: cannot import tracewh.traces.alibaba2018 to check columns: {e}")
        return
    finally:
        sys.path.pop(0)
    for t, cols in (("batch_task", TASK_COLUMNS), ("batch_instance", INSTANCE_COLUMNS)):
        if alibaba2018.TABLES[t].column_names != cols:
            raise SystemExit(f"bench columns of {t!r} differ from warehouse/traces/alibaba2018.py")


if __name__ == "__main__":
    sys.exit(main())
