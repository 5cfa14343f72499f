"""Alibaba DAG benchmark: ali-dag-timing (critical path per job) over >= 1 M jobs, with a networkx baseline.

Usage (from the project root):

    .venv/bin/python bench/bench_alibaba.py [--jobs 1000000] [--out bench/work]

What it does, in one run:

1. Generates ``<out>/ali_<jobs>/batch_task.csv`` and ``batch_instance.csv`` (the 2018 row format,
   headerless) with numpy + polars, fixed seed, cached between runs (keyed by the job count, the
   seed and GEN_VERSION). The mix (see SHAPES and the P_* constants): ~35% of the jobs are
   independent (1-N ``task_<base64>==`` tasks, ~16% of all tasks, some with a ``MergeTask``);
   the DAG jobs are single tasks, chains, fan-in (``R5_1_2_3_4``), diamonds (``M1, M2_1, M3_1,
   R4_2_3``), fan-out, random DAGs of 5-12 tasks and a few large random DAGs of 50-200 tasks.
   Oddities on a few percent / per mille: ``_Stg<n>`` suffixes, trailing underscores, parents that
   do not exist, self-loops, 2- and 3-task cycles (chains whose first task names a later one),
   task ids named twice in a job, MergeTask rows in DAG jobs, end_time 0, end < start, start and
   end 0. Children start after their parents' latest end plus a small gap; 1-3 instances per
   task start 0-3 s after the task.
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
   ``warehouse.dag``, final SQL) shows where the time goes.
6. Writes the ``## Reports: Alibaba DAG timing ...`` section of bench/RESULTS.md (appended, or
   replaced when it exists; every other section stays as it is).

Measuring helpers (quiet-machine wait, /usr/bin/time, best-of, machine info, section writer)
come from bench_ingest.py. networkx is a bench-only tool: ``.venv/bin/pip install networkx``.
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

import bench_ingest as bi

ROOT = bi.ROOT
log = bi.log
GEN_VERSION = 1
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

# --------------------------------------------------------------------------- the mix

P_INDEP_JOB = 0.35  # jobs of task_<base64>== tasks only
INDEP_GEOMETRIC_P = 0.62  # tasks per independent job: geometric, mean ~1.6, at most 20
# DAG shapes: name, share of the DAG jobs, tasks min, max
SHAPES = (
    ("single", 0.30, 1, 1),
    ("chain", 0.25, 2, 5),
    ("fan-in", 0.17, 3, 6),
    ("diamond", 0.08, 4, 7),
    ("fan-out", 0.06, 3, 6),
    ("random", 0.136, 5, 12),
    ("large", 0.004, 50, 200),
)
LARGE_WINDOW = 8  # a task of a large job depends on tasks at most this many positions back
RANDOM_PARENTS_P = (0.25, 0.45, 0.2, 0.1)  # 0-3 parents per non-first task of random / large jobs
KINDS = ("M", "R", "J", "MR")
KINDS_P = (0.55, 0.28, 0.15, 0.02)
P_MERGE_INDEP = 0.08  # independent jobs with a MergeTask row
P_MERGE_DAG = 0.002  # DAG jobs with a MergeTask row
P_STG = 0.03  # DAG task rows with a _Stg<n> suffix
P_TRAIL = 0.01  # DAG task rows with a trailing underscore
P_MISSING = 0.003  # DAG tasks naming a parent id that no task of the job has
P_SELF = 0.0005  # DAG tasks naming themselves
P_CYCLE_JOB = 0.0003  # DAG jobs with a 2- or 3-task cycle
P_DUP_JOB = 0.0005  # DAG jobs naming one task id twice (another kind letter)
P_WAITING = 0.001  # task rows with start 0 and end 0 (Waiting)
P_END0 = 0.004  # end_time 0 (Running / Failed)
P_INVERTED = 0.0015  # 0 < end_time < start_time
P_FAILED = 0.01  # Failed with known times
DUR_MEDIAN, DUR_SIGMA = 20.0, 1.4  # task run seconds: lognormal
GAP_MEAN = 3.0  # seconds between the latest parent end and a child start (exponential)
DAYS = 8


def generate(folder: Path, jobs: int, seed: int) -> dict:
    """Write batch_task.csv and batch_instance.csv into folder; return the generator's counts."""
    import numpy as np
    import polars as pl

    t_start = time.perf_counter()
    rng = np.random.default_rng(seed)
    nj_total = jobs
    indep = rng.random(nj_total) < P_INDEP_JOB
    shares = np.array([s[1] for s in SHAPES])
    shape = np.full(nj_total, -1, np.int64)
    n_dag_jobs = int((~indep).sum())
    shape[~indep] = rng.choice(len(SHAPES), size=n_dag_jobs, p=shares / shares.sum())
    n = np.empty(nj_total, np.int64)
    n[indep] = np.minimum(rng.geometric(INDEP_GEOMETRIC_P, int(indep.sum())), 20)
    for s, (_, _, lo, hi) in enumerate(SHAPES):
        m = shape == s
        n[m] = rng.integers(lo, hi + 1, int(m.sum()))
    S = {name: i for i, (name, *_) in enumerate(SHAPES)}
    T = int(n.sum())
    first = np.cumsum(n) - n
    job = np.repeat(np.arange(nj_total), n)
    idx = np.arange(T)
    pos = idx - first[job]
    nj = n[job]
    sh = shape[job]
    is_dag = sh >= 0

    # Timing edges (global child index, global parent index); a parent's position is always smaller.
    ch: list = []
    pa: list = []
    m = (sh == S["chain"]) & (pos > 0)
    ch.append(idx[m])
    pa.append(idx[m] - 1)
    m = (sh == S["fan-out"]) & (pos > 0)
    ch.append(idx[m])
    pa.append(first[job[m]])
    m = (sh == S["fan-in"]) & (pos < nj - 1)
    ch.append(first[job[m]] + nj[m] - 1)
    pa.append(idx[m])
    m = (sh == S["diamond"]) & (pos >= 1) & (pos <= nj - 2)
    ch.append(idx[m])
    pa.append(first[job[m]])
    ch.append(first[job[m]] + nj[m] - 1)
    pa.append(idx[m])
    for name, window in (("random", None), ("large", LARGE_WINDOW)):
        m = (sh == S[name]) & (pos > 0)
        c, p = idx[m], pos[m]
        k = rng.choice(4, size=c.size, p=RANDOM_PARENTS_P)
        w = p if window is None else np.minimum(p, window)
        for slot in range(3):
            sel = k > slot
            back = 1 + (rng.random(int(sel.sum())) * w[sel]).astype(np.int64)
            ch.append(c[sel])
            pa.append(c[sel] - back)
    key = np.unique(np.concatenate(ch) * T + np.concatenate(pa))
    ch_a, pa_a = key // T, key % T

    # Times: roots start at the job start (+0-5 s); children after their parents' latest end + a gap.
    dur = np.clip(np.rint(np.exp(rng.normal(np.log(DUR_MEDIAN), DUR_SIGMA, T))), 1, 200_000).astype(np.int64)
    job_start = rng.integers(1_000, DAYS * 86_400, nj_total)
    start = job_start[job] + rng.integers(0, 6, T)
    end = start + dur
    gap = np.rint(rng.exponential(GAP_MEAN, T)).astype(np.int64)
    order = np.argsort(pos[ch_a], kind="stable")
    ch_a, pa_a = ch_a[order], pa_a[order]
    epos = pos[ch_a]
    bounds = np.searchsorted(epos, np.arange(int(pos.max()) + 2))
    ready = np.zeros(T, np.int64)
    for level in range(1, int(pos.max()) + 1):
        e0, e1 = bounds[level], bounds[level + 1]
        if e0 == e1:
            continue
        c = ch_a[e0:e1]
        np.maximum.at(ready, c, end[pa_a[e0:e1]])
        u = np.unique(c)
        start[u] = ready[u] + gap[u]
        end[u] = start[u] + dur[u]

    # Name edges: (global child index, parent task id), the timing edges plus the oddities.
    name_c = [ch_a]
    name_p = [pos[pa_a] + 1]
    chain_jobs = np.flatnonzero(shape == S["chain"])
    cyc = rng.choice(chain_jobs, size=max(1, round(n_dag_jobs * P_CYCLE_JOB)), replace=False)
    name_c.append(first[cyc])
    name_p.append(np.minimum(n[cyc], 3))  # M1_2 + M2_1 (2 tasks), or M1_3 + M2_1 + M3_2
    self_loop = is_dag & (rng.random(T) < P_SELF)
    name_c.append(idx[self_loop])
    name_p.append(pos[self_loop] + 1)
    missing = is_dag & (rng.random(T) < P_MISSING)
    name_c.append(idx[missing])
    name_p.append(nj[missing] + 1 + rng.integers(0, 10, int(missing.sum())))
    deps = (
        pl.DataFrame({"t": np.concatenate(name_c), "p": np.concatenate(name_p)})
        .unique()
        .sort("t", "p")
        .group_by("t", maintain_order=True)
        .agg(pl.col("p").cast(pl.String).str.join("_").alias("deps"))
    )

    kind = np.asarray(KINDS)[rng.choice(len(KINDS), T, p=KINDS_P)]
    stg = is_dag & (rng.random(T) < P_STG)
    trail = is_dag & ~stg & (rng.random(T) < P_TRAIL)
    base = pl.DataFrame(
        {
            "t": idx,
            "job": job,
            "ord": pos.astype(np.float64),
            "kind": kind,
            "id": pos + 1,
            "is_dag": is_dag,
            "stg_n": np.where(stg, rng.integers(1, 12, T), 0),
            "trail": trail,
            "start": start,
            "end": end,
        }
    ).join(deps, on="t", how="left", maintain_order="left")

    # Task ids named twice: a copy of one task under another kind letter, its own run time.
    dag_jobs = np.flatnonzero(shape >= 0)
    dup_jobs = rng.choice(dag_jobs, size=max(1, round(n_dag_jobs * P_DUP_JOB)), replace=False)
    dup_t = first[dup_jobs] + rng.integers(0, n[dup_jobs])
    dup_dur = np.clip(np.rint(np.exp(rng.normal(np.log(DUR_MEDIAN), DUR_SIGMA, dup_t.size))), 1, 200_000)
    dups = (
        base[dup_t]
        .with_columns(
            pl.when(pl.col("kind") == "J").then(pl.lit("M")).otherwise(pl.lit("J")).alias("kind"),
            pl.col("ord") + 0.5,
            (pl.col("start") + pl.Series(dup_dur.astype(np.int64))).alias("end"),
        )
        .with_columns(pl.lit(False).alias("trail"))
    )
    # MergeTask rows after the job's last end.
    job_end = np.zeros(nj_total, np.int64)
    np.maximum.at(job_end, job, end)
    merge_jobs = np.flatnonzero(
        np.where(indep, rng.random(nj_total) < P_MERGE_INDEP, rng.random(nj_total) < P_MERGE_DAG)
    )
    m_start = job_end[merge_jobs] + rng.integers(0, 10, merge_jobs.size)
    merges = pl.DataFrame(
        {
            "t": np.full(merge_jobs.size, -1),
            "job": merge_jobs,
            "ord": np.full(merge_jobs.size, 1e6),
            "kind": np.full(merge_jobs.size, ""),
            "id": np.zeros(merge_jobs.size, np.int64),
            "is_dag": np.zeros(merge_jobs.size, bool),
            "stg_n": np.zeros(merge_jobs.size, np.int64),
            "trail": np.zeros(merge_jobs.size, bool),
            "start": m_start,
            "end": m_start + rng.integers(1, 60, merge_jobs.size),
            "deps": pl.Series([None] * merge_jobs.size, dtype=pl.String),
        }
    ).with_columns(pl.lit(True).alias("merge"))
    rows = (
        pl.concat(
            [
                base.with_columns(pl.lit(False).alias("merge")),
                dups.with_columns(pl.lit(False).alias("merge")),
                merges,
            ]
        )
        .sort("job", "ord")
        .with_columns(
            pl.when(pl.col("merge"))
            .then(pl.lit("MergeTask"))
            .when(pl.col("is_dag"))
            .then(
                pl.concat_str(
                    pl.col("kind"),
                    pl.col("id").cast(pl.String),
                    pl.when(pl.col("deps").is_null())
                    .then(pl.lit(""))
                    .otherwise(pl.lit("_") + pl.col("deps")),
                    pl.when(pl.col("stg_n") > 0)
                    .then(pl.lit("_Stg") + pl.col("stg_n").cast(pl.String))
                    .otherwise(pl.lit("")),
                    pl.when(pl.col("trail")).then(pl.lit("_")).otherwise(pl.lit("")),
                )
            )
            .otherwise(
                pl.lit("task_")
                + (pl.lit(10**18, pl.Int64) + pl.col("t") * 7_919_871_123 + seed)
                .cast(pl.String)
                .str.encode("base64")
            )
            .alias("task_name"),
            ("j_" + (pl.col("job") + 1).cast(pl.String)).alias("job_name"),
        )
    )
    R = rows.height

    # Odd times and statuses per row.
    start_r = rows["start"].to_numpy().copy()
    end_r = rows["end"].to_numpy().copy()
    u = rng.random(R)
    waiting = u < P_WAITING
    end0 = (u >= P_WAITING) & (u < P_WAITING + P_END0)
    inverted = (u >= P_WAITING + P_END0) & (u < P_WAITING + P_END0 + P_INVERTED)
    failed = (u >= P_WAITING + P_END0 + P_INVERTED) & (u < P_WAITING + P_END0 + P_INVERTED + P_FAILED)
    start_r[waiting] = 0
    end_r[waiting | end0] = 0
    end_r[inverted] = start_r[inverted] - rng.integers(1, 120, int(inverted.sum()))
    status = np.full(R, "Terminated", dtype=object)
    status[waiting] = "Waiting"
    status[end0] = np.where(rng.random(int(end0.sum())) < 0.5, "Running", "Failed")
    status[failed] = "Failed"
    inst_k = rng.choice(3, size=R, p=(0.5, 0.3, 0.2)) + 1
    task_type = rng.integers(1, 13, R)
    tasks = pl.DataFrame(
        {
            "task_name": rows["task_name"],
            "instance_num": inst_k,
            "job_name": rows["job_name"],
            "task_type": task_type,
            "status": pl.Series(status, dtype=pl.String),
            "start_time": start_r,
            "end_time": end_r,
            "plan_cpu": rng.choice(np.array([50.0, 100.0, 100.0, 200.0, 400.0]), R),
            "plan_mem": np.round(rng.uniform(0.05, 2.0, R), 2),
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    tasks.write_csv(folder / "batch_task.csv.tmp", include_header=False)

    # Instances: 1-3 per task row, starting 0-3 s after the task, ending by the task's end.
    ti = np.repeat(np.arange(R), inst_k)
    nI = ti.size
    ts, te = start_r[ti], end_r[ti]
    istart = np.where(ts > 0, ts + rng.integers(0, 4, nI), 0)
    valid = (ts > 0) & (te >= ts)
    idur = np.maximum(1, np.rint((te - ts) * rng.uniform(0.6, 1.0, nI))).astype(np.int64)
    iend = np.where(valid, np.maximum(istart, np.minimum(te, istart + idur)), te)
    cpu_avg = np.round(rng.uniform(10, 300, nI), 2)
    mem_avg = np.round(rng.uniform(0.1, 5.0, nI), 2)
    ti_s = pl.Series(ti)
    instances = pl.DataFrame(
        {
            "instance_name": np.arange(1, nI + 1),
            "task_name": tasks["task_name"].gather(ti_s),
            "job_name": tasks["job_name"].gather(ti_s),
            "task_type": task_type[ti],
            "status": tasks["status"].gather(ti_s),
            "start_time": istart,
            "end_time": iend,
            "machine_id": rng.integers(1, 4035, nI),
            "seq_no": np.ones(nI, np.int64),
            "total_seq_no": np.ones(nI, np.int64),
            "cpu_avg": cpu_avg,
            "cpu_max": np.round(cpu_avg * rng.uniform(1.0, 1.5, nI), 2),
            "mem_avg": mem_avg,
            "mem_max": np.round(mem_avg * rng.uniform(1.0, 1.3, nI), 2),
        }
    )
    instances = instances.with_columns(
        ("ins_" + pl.col("instance_name").cast(pl.String)).alias("instance_name"),
        ("m_" + pl.col("machine_id").cast(pl.String)).alias("machine_id"),
    )
    instances.write_csv(folder / "batch_instance.csv.tmp", include_header=False)
    for t in ("batch_task", "batch_instance"):
        (folder / f"{t}.csv.tmp").replace(folder / f"{t}.csv")

    name_deps = rows["deps"].is_null().to_numpy()
    is_dag_r = rows["is_dag"].to_numpy() & ~rows["merge"].to_numpy()
    shapes = {}
    for name, s in S.items():
        m = shape == s
        shapes[name] = [int(m.sum()), int(n[m].sum())]
    counts = {
        "version": GEN_VERSION,
        "seed": seed,
        "jobs": nj_total,
        "dag_jobs": n_dag_jobs,
        "independent_jobs": int(indep.sum()),
        "task_rows": R,
        "instance_rows": int(nI),
        "shapes": shapes,
        "independent_tasks": int((~is_dag).sum()),
        "classes": {
            "no_dag": int((~is_dag_r).sum()),
            "dag_root": int((is_dag_r & name_deps).sum()),
            "dag_dependent": int((is_dag_r & ~name_deps).sum()),
        },
        "timing_edges": int(ch_a.size),
        "anomalies": {
            "MergeTask name": int(merge_jobs.size),
            "_Stg<n> suffix": int((rows["stg_n"] > 0).sum()),
            "trailing underscore": int(rows["trail"].sum()),
            "missing parent": int(missing.sum()),
            "self-loop": int(self_loop.sum()),
            "cycle": int(cyc.size),
            "end time unknown (0)": int((waiting | end0).sum()),
            "end before start": int(inverted.sum()),
        },
        "cycle_2": int((n[cyc] == 2).sum()),
        "cycle_3": int((n[cyc] >= 3).sum()),
        "duplicate_id_jobs": int(dup_jobs.size),
        "merge_in_dag_jobs": int((~indep[merge_jobs]).sum()),
        "waiting": int(waiting.sum()),
        "failed_known_times": int(failed.sum()),
        "max_tasks_per_job": int(n.max()),
        "csv_bytes": {t: (folder / f"{t}.csv").stat().st_size for t in ("batch_task", "batch_instance")},
        "seconds": time.perf_counter() - t_start,
    }
    (folder / "manifest.json").write_text(json.dumps(counts, indent=1))
    return counts


def build_input(work: Path, jobs: int, seed: int) -> tuple[Path, dict, bool]:
    folder = work / f"ali_{jobs}"
    manifest = folder / "manifest.json"
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        files_ok = all((folder / f"{t}.csv").is_file() for t in ("batch_task", "batch_instance"))
        if m.get("version") == GEN_VERSION and m.get("seed") == seed and files_ok:
            log(f"input {folder}: cached")
            return folder, m, False
    shutil.rmtree(folder, ignore_errors=True)
    log(f"generating {jobs:,} jobs into {folder} ...")
    m = generate(folder, jobs, seed)
    log(
        f"generated {m['task_rows']:,} task rows, {m['instance_rows']:,} instance rows "
        f"in {m['seconds']:.1f} s"
    )
    return folder, m, True


# --------------------------------------------------------------------------- tracewh runs


CATALOG = r"""
import duckdb, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
print(json.dumps(dict(con.execute(
    "SELECT table_name, rows FROM meta.tables WHERE trace = 'alibaba2018'").fetchall())))
"""


def du_mb(d: Path) -> float:
    return sum(f.stat().st_size for f in d.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def ingest(folder: Path, home: Path, gen: dict) -> bi.Run:
    shutil.rmtree(home, ignore_errors=True)
    cmd = [
        str(bi.TRACEWH),
        "--home",
        str(home),
        "ingest",
        "alibaba2018",
        str(folder),
        "--quiet",
        "--tables",
        "batch_task,batch_instance",
    ]
    run, _, err = bi.measure("tracewh ingest", cmd)
    if not run.ok:
        print(err[-3000:], file=sys.stderr)
        return run
    p = subprocess.run(
        [str(bi.VENV_PY), "-c", CATALOG, str(home / "tracewh.duckdb")], capture_output=True, text=True
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


def banner(msg: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n!!! {msg}\n{bar}\n", file=sys.stderr, flush=True)


def report(home: Path, name: str, repeat: int) -> tuple[bi.Run, list[dict]]:
    """Best of repeat; the first run's CSV is kept (read from a pipe), the others go to /dev/null."""
    cmd = [str(bi.TRACEWH), "--home", str(home), "report", name, "--format", "csv"]
    outputs: list[dict] = []
    runs = []
    for i in range(repeat):
        run, out, err = bi.measure(name, cmd, stdout_devnull=i > 0)
        if not run.ok:
            print(err[-3000:], file=sys.stderr)
        if i == 0 and run.ok:
            outputs = list(csv.DictReader(io.StringIO(out)))
        runs.append(run)
    it = iter(runs)
    return bi.best_of(lambda: next(it), len(runs)) if len(runs) > 1 else runs[0], outputs


# --------------------------------------------------------------------------- naive baseline

NAIVE = r"""
import csv, json, re, sys, time
import networkx as nx

t0 = time.perf_counter()
CORE = re.compile(r"([A-Za-z]+)([0-9]+)((?:_[0-9]+)*)")
STG = re.compile(r"_Stg[0-9]+$")
jobs = {}
with open(sys.argv[1], newline="") as fh:
    for name, _num, job, _type, _status, start, end, _cpu, _mem in csv.reader(fh):
        if name.startswith("task_") or name == "MergeTask":
            continue
        m = CORE.fullmatch(STG.sub("", name.rstrip("_")))
        if m is None:
            continue
        tid = int(m.group(2))
        parents = {int(x) for x in m.group(3).split("_")[1:]}
        s = int(start) if start else 0
        e = int(end) if end else None
        run = e - s if s > 0 and e is not None and e >= s else None
        nodes = jobs.setdefault(job, {})
        old = nodes.get(tid)
        if old is None:
            nodes[tid] = [run, run is not None, parents]
        else:  # a task id named twice: one node, its longest run, known only if all are
            if run is not None and (old[0] is None or run > old[0]):
                old[0] = run
            old[1] = old[1] and run is not None
            old[2] |= parents
t1 = time.perf_counter()
status = {"ok": 0, "cycle": 0, "unknown_times": 0}
total, best, best_job = 0.0, -1.0, None
for job, nodes in jobs.items():
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from((p, t) for t, v in nodes.items() for p in v[2] if p != t and p in nodes)
    if not nx.is_directed_acyclic_graph(g):
        status["cycle"] += 1
        continue
    if not all(v[1] for v in nodes.values()):
        status["unknown_times"] += 1
        continue
    longest = {}
    for t in nx.topological_sort(g):
        longest[t] = nodes[t][0] + max((longest[p] for p in g.predecessors(t)), default=0)
    cp = max(longest.values())
    status["ok"] += 1
    total += cp
    if cp > best:
        best, best_job = cp, job
t2 = time.perf_counter()
print("\n@@JSON " + json.dumps({"status": status, "mean": total / max(status["ok"], 1), "max": best,
                  "max_job": best_job, "read_parse_s": t1 - t0, "graphs_s": t2 - t1,
                  "networkx": nx.__version__}))
"""


def last_json(out: str):
    """The JSON a measured script printed after its marker (DuckDB's progress bar may share stdout)."""
    i = out.rfind("@@JSON ")
    if i < 0:
        return None
    try:
        return json.loads(out[i + len("@@JSON ") :].splitlines()[0])
    except (ValueError, IndexError):
        return None


def naive(folder: Path) -> tuple[bi.Run, dict]:
    run, out, err = bi.measure(
        "naive python + networkx", [str(bi.VENV_PY), "-c", NAIVE, str(folder / "batch_task.csv")]
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

PHASES = r"""
import inspect, json, resource, sys, time
t_import = time.perf_counter()
sys.path.insert(0, sys.argv[2])
from warehouse import dag, query, reports
from warehouse.home import Home

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

out = {"import_s": time.perf_counter() - t_import}
rep = reports.get(sys.argv[3])
first, _, second = rep.sql.partition(reports.STEP_MARKER)
# The step takes an Arrow table (newer warehouse.dag) or (columns, rows) (older): call it as reports.run does.
arrow_step = len(inspect.signature(dag.register_dag_paths).parameters) == 2 and hasattr(query, "fetch_arrow")
out["mode"] = "query.fetch_arrow (Arrow table)" if arrow_step else "query.fetch (Python tuples)"
COLS = ("job_name", "task_id", "parent_task_ids", "run_s", "times_known")
with query.read_only(Home.resolve(sys.argv[1])) as con:
    t = time.perf_counter()
    tbl = con.cursor().sql(first.strip().rstrip(";")).to_arrow_table()
    out["input_sql_arrow_s"] = time.perf_counter() - t
    out["input_rows"] = tbl.num_rows
    del tbl
    out["rss_after_arrow"] = rss()
    t = time.perf_counter()
    data = query.fetch_arrow(con, first) if arrow_step else query.fetch(con, first)
    out["input_sql_fetch_s"] = time.perf_counter() - t
    out["rss_after_fetch"] = rss()
    # Grouping into per-job task lists, then walk_job alone, timed separately from the step.
    t = time.perf_counter()
    if arrow_step:
        cols = [data.column(c).to_pylist() for c in COLS]
    else:
        ix = [data.columns.index(c) for c in COLS]
        cols = [[r[i] for r in data.rows] for i in ix]
    job_c, id_c, par_c, run_c, known_c = cols
    jobs, start = [], 0
    for end in range(1, len(job_c) + 1):
        if end < len(job_c) and job_c[end] == job_c[start]:
            continue
        jobs.append([(id_c[i], par_c[i] or [], run_c[i], bool(known_c[i])) for i in range(start, end)])
        start = end
    out["group_s"] = time.perf_counter() - t
    del cols, job_c, id_c, par_c, run_c, known_c
    t = time.perf_counter()
    for tasks in jobs:
        dag.walk_job(tasks)
    out["walk_s"] = time.perf_counter() - t
    out["jobs"] = len(jobs)
    del jobs
    t = time.perf_counter()
    if arrow_step:
        dag.register_dag_paths(con, data)
    else:
        dag.register_dag_paths(con, data.columns, data.rows)
    out["register_s"] = time.perf_counter() - t
    out["rss_after_register"] = rss()
    del data
    t = time.perf_counter()
    res = query.fetch(con, second)
    out["final_sql_s"] = time.perf_counter() - t
    out["output_rows"] = len(res.rows)
print("\n@@JSON " + json.dumps(out))
"""


def phases(home: Path, name: str) -> tuple[bi.Run, dict]:
    run, out, err = bi.measure(
        f"phases (instrumented {name})", [str(bi.VENV_PY), "-c", PHASES, str(home), str(ROOT), name]
    )
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
SQL_PARTS = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from warehouse import query
from warehouse.home import Home
EDGE_JOIN = (" AS e JOIN {bt} AS c ON c.job_name = e.job_name AND c.task_id = e.task_id"
             " JOIN {bt} AS p ON p.job_name = e.job_name AND p.task_id = e.parent_task_id"
             " WHERE e.parent_exists AND NOT e.is_self_loop"
             " AND c.start_time_class = 'known' AND p.end_time_class = 'known'")
PARTS = [
    ("raw batch_task scan (no parse)", "SELECT count(*), sum(start_time) FROM alibaba2018_raw.batch_task"),
    ("batch_task view: every task name parsed once", "SELECT count(*), count(task_id), "
     "sum(len(parent_task_ids)) FROM alibaba2018.batch_task"),
    ("dag_tasks view (the reports' input statement without ORDER BY)",
     "SELECT count(*), sum(len(parent_task_ids)) FROM alibaba2018.dag_tasks"),
    ("task_edges view alone (user-facing)",
     "SELECT count(*), count(parent_exists) FROM alibaba2018.task_edges"),
    ("task_edges joined to batch_task twice (child start, parent end: an edge-interval query)",
     "SELECT count(*) FROM alibaba2018.task_edges" + EDGE_JOIN.format(bt="alibaba2018.batch_task")),
    ("what-if: TEMP TABLE bt AS the batch_task view (one parse)",
     "CREATE TEMP TABLE bt AS SELECT * FROM alibaba2018.batch_task"),
    ("what-if: TEMP TABLE te = task_edges over bt",
     "CREATE TEMP TABLE te AS WITH edges AS (SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) "
     "AS parent_task_id FROM bt WHERE name_form = 'dag'), ids AS (SELECT DISTINCT job_name, task_id FROM bt "
     "WHERE name_form = 'dag') SELECT e.*, i.task_id IS NOT NULL AS parent_exists, "
     "e.parent_task_id = e.task_id AS is_self_loop FROM edges AS e "
     "LEFT JOIN ids AS i ON i.job_name = e.job_name AND i.task_id = e.parent_task_id"),
    ("what-if: te joined to bt twice", "SELECT count(*) FROM te" + EDGE_JOIN.format(bt="bt")),
]
out = []
with query.read_only(Home.resolve(sys.argv[1])) as con:
    for label, sql in PARTS:
        t = time.perf_counter()
        con.execute(sql).fetchall()
        out.append([label, time.perf_counter() - t])
        print(f"{label}: {out[-1][1]:.2f} s", file=sys.stderr, flush=True)
print("\n@@JSON " + json.dumps(out))
"""


def sql_parts(home: Path) -> tuple[bi.Run, list]:
    run, out, err = bi.measure(
        "SQL parts of the DAG reports", [str(bi.VENV_PY), "-c", SQL_PARTS, str(home), str(ROOT)]
    )
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
    extra = sorted(set(by) - set(gen["anomalies"]))
    for what in extra:
        ok = False
        rows.append(f"| {what} | {by[what]['occurrences']} | 0 | **MISMATCH** |")
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
        f"{gen['jobs']:,} jobs, {T:,} batch_task rows, {gen['instance_rows']:,} batch_instance rows "
        f"(batch_task.csv {gen['csv_bytes']['batch_task'] / 1e6:.0f} MB, batch_instance.csv "
        f"{gen['csv_bytes']['batch_instance'] / 1e6:.0f} MB; seed {gen['seed']}).\n"
        f"- Jobs: {gen['independent_jobs']:,} independent (1-20 `task_<base64>==` tasks, geometric, "
        f"{P_MERGE_INDEP:.0%} with a `MergeTask`), {gen['dag_jobs']:,} DAG jobs: {shapes} "
        f"(chain `M1, M2_1, R3_2`; fan-in `M1..M4, R5_1_2_3_4`; diamond `M1, M2_1, M3_1, R4_2_3`; "
        f"fan-out `M1, M2_1, M3_1`; random: 0-3 parents from any earlier task; large: 0-3 parents "
        f"among the {LARGE_WINDOW} previous tasks; largest job {gen['max_tasks_per_job']} tasks).\n"
        f"- Task classes: no_dag {c['no_dag']:,} ({c['no_dag'] / T:.1%}), dag_root "
        f"{c['dag_root']:,} ({c['dag_root'] / T:.1%}), dag_dependent {c['dag_dependent']:,} "
        f"({c['dag_dependent'] / T:.1%}) (paper: 15.98% / 36.95% / 47.07%).\n"
        f"- Oddities: `_Stg<n>` {a['_Stg<n> suffix']:,} rows, trailing `_` {a['trailing underscore']:,}, "
        f"MergeTask {a['MergeTask name']:,} ({gen['merge_in_dag_jobs']:,} in DAG jobs), missing parent "
        f"{a['missing parent']:,}, self-loop {a['self-loop']:,}, cycles {a['cycle']:,} jobs "
        f"({gen['cycle_2']} of 2 tasks, {gen['cycle_3']} of 3), task id named twice in "
        f"{gen['duplicate_id_jobs']:,} jobs; end_time 0 {a['end time unknown (0)']:,} rows (of which "
        f"{gen['waiting']:,} Waiting with start 0), end < start {a['end before start']:,}, Failed with "
        f"known times {gen['failed_known_times']:,}.\n"
        f"- Times: jobs start uniformly over {DAYS} days; run time lognormal (median {DUR_MEDIAN:.0f} s, "
        f"sigma {DUR_SIGMA}, 1..200,000 s); a child starts at its parents' latest end + an exponential "
        f"gap (mean {GAP_MEAN:.0f} s); 1-3 instances per task (50/30/20%) start 0-3 s after the task "
        f"and end by its end."
    )


def run_row(label: str, r: bi.Run | None, extra: str = "") -> str:
    if r is None:
        return f"| {label} | not run | | | |"
    walls = r.extra.get("all_walls")
    wall = f"{r.wall:.2f}" + (f" (best of {walls})" if walls else "")
    flag = "" if r.ok else f" **FAILED** {r.note}"
    return (
        f"| {label}{flag} | {wall} | {bi.fmt(r.rss_mb, '.0f')} | {bi.fmt(r.cpu_s, '.1f')} | "
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
            f"({tw.wall:.1f} s, peak RSS {bi.fmt(tw.rss_mb, '.0f')} MB)."
        )
    if tw and nv and tw.ok and nv.ok:
        verdict.append(
            f"- vs the naive baseline: tracewh {tw.wall:.1f} s vs {nv.wall:.1f} s "
            f"({nv.wall / tw.wall:.1f}x; the baseline reads and parses the CSV in "
            f"{b.get('read_parse_s', 0):.1f} s and builds / walks the networkx graphs in "
            f"{b.get('graphs_s', 0):.1f} s; peak RSS {bi.fmt(tw.rss_mb, '.0f')} MB vs "
            f"{bi.fmt(nv.rss_mb, '.0f')} MB). The baseline computes only the critical paths, not the edge "
            f"intervals, waiting times and quantiles of the report."
        )
    verdict.append(
        "- results: "
        + (
            "critical path and job statuses **match** the baseline"
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

**Machine**: {mi["nproc"]} cores ({mi["cpu"]}), {mi["ram"]} RAM, Linux {mi["kernel"]};
Python {mi["python"]}, duckdb {mi["duckdb"]}, polars {mi["polars"]}, networkx {b.get("networkx", "?")}.

**Command**: `{ctx["command"]}`

**Input** (generated, `bench/work/ali_{gen["jobs"]}/`, plain headerless CSV): {mix_text(gen)}

**What runs** (each in a fresh subprocess; wall time by the parent, peak RSS and CPU time from
{"`/usr/bin/time`" if bi.GNU_TIME else "`getrusage(RUSAGE_CHILDREN)` in a wrapper"}; before each the bench
waits until the machine is quiet, as in the ingest bench):
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
    args = ap.parse_args(argv)
    started = time.perf_counter()
    command = (
        ".venv/bin/python bench/bench_alibaba.py "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    ).rstrip()
    _check_columns()
    try:
        import networkx  # noqa: F401
    except ImportError:
        raise SystemExit("networkx is missing: .venv/bin/pip install networkx (bench only)") from None
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    folder, gen, fresh = build_input(work, args.jobs, args.seed)
    gen_text = f"input generated in {gen['seconds']:.0f} s" if fresh else "input cached from an earlier run"
    for t in ("batch_task", "batch_instance"):  # warm the page cache
        with open(folder / f"{t}.csv", "rb") as fh:
            while fh.read(1 << 24):
                pass
    mi = bi.machine_info()
    home = folder / "home"
    runs: dict[str, bi.Run] = {}
    outputs: dict[str, list[dict]] = {}
    runs["ingest"] = ingest(folder, home, gen)
    if runs["ingest"].ok:
        for name in REPORTS:
            runs[name], outputs[name] = report(home, name, args.repeat)
    runs["naive"], base = naive(folder)
    ph: dict = {}
    parts: list = []
    if runs["ingest"].ok:
        for name in DAG_REPORTS:
            runs[f"phases {name}"], ph[name] = phases(home, name)
        if not args.no_sql_parts:
            runs["sql_parts"], parts = sql_parts(home)

    cmp_rows, cmp_ok = compare(outputs.get("ali-dag-timing", []), base, gen) if base else ([], False)
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
        bi.write_section(args.results, text, "## Reports: Alibaba DAG timing")
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
        from warehouse.traces import alibaba2018
    except Exception as e:  # the bench still runs if the package is broken mid-edit
        log(f"warning: cannot import warehouse.traces.alibaba2018 to check columns: {e}")
        return
    finally:
        sys.path.pop(0)
    for t, cols in (("batch_task", TASK_COLUMNS), ("batch_instance", INSTANCE_COLUMNS)):
        if alibaba2018.TABLES[t].column_names != cols:
            raise SystemExit(f"bench columns of {t!r} differ from warehouse/traces/alibaba2018.py")


if __name__ == "__main__":
    sys.exit(main())
