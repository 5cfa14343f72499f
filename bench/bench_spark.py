"""Spark vs DuckDB: the same report on the same google2011 input, on this machine, and a projection.

Usage (from the project root):

    .venv/bin/python bench/bench_spark.py [--events 5000000] [--report task-times] [--out bench/work]
    .venv/bin/python bench/bench_spark.py --home /work/bigdata/c14   # an existing google2011 home

What it does:

1. Builds (or reuses) the google2011 input of bench_reports.py (``tracewh synth google2011``,
   with task_usage) with ``--events`` task events, and ingests it once with ``tracewh ingest``
   (DuckDB). ``--home`` takes an already ingested google2011 home instead (e.g. a snapshot of
   bench_wholetrace.py: 14.5 M task events), for inputs whose generation would dominate the run.
2. Runs ``tracewh report <report> --trace google2011 --format csv`` in a fresh subprocess, with
   the default engine (DuckDB) and with ``--engine spark --master local[2]``, best of ``--repeat``
   each: wall (parent), CPU time (``/usr/bin/time``: the process tree), peak RSS summed over the
   process tree (python + JVM + Python workers, sampled every 0.2 s), and checks both outputs
   are the same rows.
3. In one more subprocess, the Spark run split in phases: JVM + session start, ``register``
   (every view and function), the report cold, and the report again in the same session (warm).
4. A projection for a cluster: the warm report time is the part that spreads over executors
   (the scan and shuffle tasks); session start and register are paid once per application.
   Projected = fixed + warm x 2 / cores (ideal scaling from 2 local cores; shuffles and stragglers
   make real clusters slower: an upper bound on speed, not a measurement).
5. Writes the ``## Spark vs DuckDB`` section of bench/RESULTS.md (other sections kept).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_reports as br
import harness as h

HEADING = "## Spark vs DuckDB"
CLUSTER_CORES = (16, 64, 256)

PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
from tracewh import spark as ws
from tracewh.home import Home
s = ws.session("local[2]")
t1 = time.perf_counter()
home = Home.resolve(sys.argv[1])
ws.register(s, home)
t2 = time.perf_counter()
ws.run_report(s, home, sys.argv[2], trace="google2011")
t3 = time.perf_counter()
rows = ws.run_report(s, home, sys.argv[2], trace="google2011")
t4 = time.perf_counter()
print(json.dumps({"session": t1 - t0, "register": t2 - t1, "cold": t3 - t2, "warm": t4 - t3,
                  "rows": len(rows.rows)}))
"""


def tree_usage(pid: int) -> tuple[float, dict[int, float]]:
    """(RSS MB of a process and all its descendants, {pid: CPU seconds so far} for each of them)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    cpu: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            pages = int((d / "statm").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(d.name))
        rss[int(d.name)] = pages * os.sysconf("SC_PAGE_SIZE")
        cpu[int(d.name)] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    total, seen, todo = 0, {}, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        seen[p] = cpu.get(p, 0.0)
        todo.extend(children.get(p, []))
    return total / 1e6, seen


def run_sampled(cmd: list[str]) -> tuple[h.Run, str, float]:
    """h.measure plus the peak RSS and the CPU time of the whole process tree, sampled from /proc
    every 0.2 s (the JVM that pyspark starts is not a waited-for child, so /usr/bin/time misses
    it; the CPU of a process in its last 0.2 s is missed here)."""
    peak = 0.0
    cpu: dict[int, float] = {}
    stop = threading.Event()
    me = os.getpid()
    base, mine = tree_usage(me)

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            rss, seen = tree_usage(me)
            peak = max(peak, rss - base)
            for p, c in seen.items():
                if p not in mine:
                    cpu[p] = max(cpu.get(p, 0.0), c)
            time.sleep(0.2)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    try:
        run, out, _err = h.measure(" ".join(cmd[-6:]), cmd)
    finally:
        stop.set()
        t.join()
    run.extra["tree_cpu_s"] = sum(cpu.values())
    return run, out, peak


def cpu(run: h.Run) -> float:
    """CPU seconds of the whole tree: /usr/bin/time's or the /proc samples', the larger."""
    return max(run.cpu_s or 0.0, run.extra.get("tree_cpu_s", 0.0))


def best(cmd: list[str], repeat: int) -> tuple[h.Run, str, float, list[float]]:
    runs = [run_sampled(cmd) for _ in range(repeat)]
    walls = [r.wall for r, _, _ in runs]
    run, out, _ = min(runs, key=lambda x: x[0].wall)
    return run, out, max(p for _, _, p in runs), walls


def catalog_task_events(home: Path) -> int:
    """google2011 task events in a home's catalog (read-only: the home stays as it is)."""
    import duckdb

    from tracewh.home import Home

    con = duckdb.connect(str(Home.resolve(home).catalog), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM google2011.task_events").fetchone()[0]
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5_000_000)
    ap.add_argument("--report", default="task-times")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("bench/work"))
    ap.add_argument("--home", type=Path, help="an ingested google2011 home to read (no input built)")
    ap.add_argument("--results", type=Path, default=Path("bench/RESULTS.md"))
    args = ap.parse_args(argv)
    started = time.time()
    if args.home:
        home = args.home.resolve()
        events = catalog_task_events(home)
        command = f"--home {args.home} --report {args.report} --repeat {args.repeat}"
        input_text = (
            f"an existing home, `{args.home}` (bench_wholetrace.py's snapshot): {events:,} task events "
            "ingested by DuckDB earlier; both engines read the same Parquet."
        )
    else:
        work = args.out.resolve()
        work.mkdir(parents=True, exist_ok=True)
        inp = br.build_input(work, args.events, True)
        home = br.home_for(work, inp)
        ingest_run = br.ingest(inp, work)
        if not ingest_run.ok:
            return 1
        events = inp.task_events
        command = f"--events {args.events} --report {args.report} --repeat {args.repeat}"
        input_text = (
            f"the bench_reports.py input (`tracewh synth google2011`, `{inp.folder.name}`): "
            f"{events:,} task events, ingested once by DuckDB ({ingest_run.wall:.1f} s); both engines "
            "read the same Parquet."
        )
    base = [str(h.TRACEWH), "--home", str(home), "report", args.report, "--trace", "google2011"]
    duck, duck_out, duck_rss, duck_walls = best([*base, "--format", "csv"], args.repeat)
    spark_cmd = [*base, "--engine", "spark", "--master", "local[2]", "--format", "csv"]
    spark, spark_out, spark_rss, spark_walls = best(spark_cmd, args.repeat)
    same = sorted(duck_out.splitlines()) == sorted(spark_out.splitlines())
    h.wait_quiet()
    p = subprocess.run(
        [sys.executable, "-c", PHASES, str(home), args.report], capture_output=True, text=True, check=True
    )
    phases = json.loads(p.stdout.strip().splitlines()[-1])
    mi = h.machine_info()
    fixed = phases["session"] + phases["register"]
    lines = [
        f"{HEADING}: `{args.report}` over {events / 1e6:.1f} M google2011 task events",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))} by `bench/bench_spark.py` "
        f"(whole run {time.time() - started:.0f} s).",
        "",
        f"{h.machine_text(mi)} Java 17, pyspark {__import__('pyspark').__version__}.",
        "",
        f"**Command**: `.venv/bin/python bench/bench_spark.py {command}`",
        "",
        f"**Input**: {input_text}",
        "",
        "| engine | wall s (runs) | CPU s (process tree) | peak RSS MB (process tree) | output |",
        "|---|--:|--:|--:|---|",
        f"| DuckDB (`tracewh report {args.report}`) | {duck.wall:.2f} "
        f"({', '.join(f'{w:.2f}' for w in duck_walls)}) | {cpu(duck):.1f} | {duck_rss:.0f} | "
        f"{len(duck_out.splitlines()) - 1} rows |",
        f"| Spark local[2] (`--engine spark --master local[2]`) | {spark.wall:.2f} "
        f"({', '.join(f'{w:.2f}' for w in spark_walls)}) | {cpu(spark):.1f} | "
        f"{spark_rss:.0f} | "
        f"{'same rows' if same else '**DIFFERENT ROWS**'} |",
        "",
        f"Spark phases (one session): JVM + session {phases['session']:.1f} s, register "
        f"{phases['register']:.1f} s, report cold {phases['cold']:.1f} s, warm {phases['warm']:.1f} s. "
        f"Load average before the runs: DuckDB {duck.load1:.2f}, Spark {spark.load1:.2f}; other "
        f"processes used {duck.others:.2f} / {spark.others:.2f} cores during them.",
        "",
        "### Projection for a cluster (not measured)",
        "",
        f"Fixed per application: {fixed:.0f} s (session and register; the driver's work). The warm "
        f"report ({phases['warm']:.1f} s on 2 cores) is the part that spreads over executors; ideal "
        "scaling at the same data size and at 100x the data:",
        "",
        "| cores | this input: fixed + warm x 2 / cores | 100x the input |",
        "|--:|--:|--:|",
    ]
    for cores in CLUSTER_CORES:
        lines.append(
            f"| {cores} | {fixed + phases['warm'] * 2 / cores:.1f} s | "
            f"{fixed + phases['warm'] * 200 / cores:.0f} s |"
        )
    ratio = spark.wall / duck.wall if duck.wall else float("nan")
    lines += [
        "",
        "### Verdict",
        "",
        f"- On this 2-core machine Spark local[2] takes **{ratio:.1f}x** DuckDB's wall time for the "
        f"same answer ({'identical rows' if same else 'rows differ!'}); most of it is the fixed cost "
        f"(JVM, session, registering ~{fixed:.0f} s) and Spark's per-task overhead on small data.",
        f"- DuckDB on 2 cores: {duck.wall:.1f} s. At 100x the input DuckDB on one machine would take "
        f"~{duck.wall * 100:.0f} s if it scaled linearly and fit; the projection puts Spark on 256 cores "
        f"at ~{fixed + phases['warm'] * 200 / 256:.0f} s: Spark is for data one machine cannot hold or "
        "scan in time, not for the sample or a laptop.",
    ]
    h.write_section(args.results, "\n".join(lines), HEADING)
    print("\n".join(lines))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
