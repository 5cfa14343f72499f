"""Synthetic Alibaba cluster-trace-v2018: the six headerless tables as ``<table>.tar.gz`` (as
published), ``<table>.csv`` or ``<table>.csv.gz``.

The model:
- ``--scale S`` shrinks machines, containers and jobs by S; the 8 days stay.
- Batch jobs are generated in chunks of JOB_CHUNK jobs, each from (seed, chunk) alone; batch_task
  and batch_instance of a chunk come from the same chunk model, so every instance belongs to an
  existing task row, and the pieces of a table are concatenated in chunk order into one file.
- Jobs: a share is independent (``task_<base64>==`` tasks, sometimes a ``MergeTask`` row); DAG
  jobs have shapes (single, chain, fan-in, diamond, fan-out, random, large) named
  ``<kind><id>_<parent ids>``. Quirks per task row at small rates: ``_Stg<n>`` suffixes,
  trailing underscores, parents that do not exist, self-loops, 2- and 3-task cycles, a task id
  named twice, end_time 0 (Running / Failed, and Waiting rows with start 0 too), end < start.
  Children start after their parents' latest end plus a gap; instances start after their task
  and end by its end (heavy-tailed instance counts: most tasks 1-10, a few thousands).
  ``--instance-fraction F`` thins batch_instance only (1.35 G rows at scale 1.0): each task keeps
  its first max(1, round(F x instance_num)) instances, batch_task stays whole, so every (job,
  task) group is still there (e.g. the DAG reports at the whole trace's 4.2 M jobs).
- Machines (``m_1`` ..): machine_meta rows at time 0 and status changes; machine_usage every
  ~10-20 s (irregular) with mem_gps / mkpi empty in most rows; containers (``c_1`` ..) on
  machines, per app_du (Zipf sizes), with container_usage samples. Percent fields are -1 or 101
  (invalid) at a small rate. Files are sorted like the real ones: by id as text, then time.
"""

from __future__ import annotations

import io
import tarfile
from functools import cache, lru_cache

from tracewh.synth import Config, Output, Piece, encode, rng_for, split_evenly
from tracewh.traces import alibaba2018 as spec

NAME = "alibaba2018"
FORMS = ("tar.gz", "csv", "csv.gz")
DAYS = 8
DAY = 86_400

PUBLISHED = {
    "batch_task": 14_295_731,
    "batch_instance": 1_351_255_775,
    "machine_meta": 17_592,
}
JOBS = 4_201_014
MACHINES = 4_034
CONTAINERS = 71_476  # containers in container_meta (estimate)
MIN_MACHINES = 4
JOB_CHUNK = 2_000  # jobs per piece of batch_task / batch_instance
THINNED = "batch_instance"  # what --instance-fraction thins (tracewh.synth; see kept_instances)
MACHINE_CHUNK = 8  # machines per piece of machine_usage
CONTAINER_CHUNK = 64  # containers per piece of container_usage
MACHINE_SAMPLE_S = (10, 20)  # machine_usage interval (irregular)
CONTAINER_SAMPLE_S = (10, 60)
CONTAINER_DAYS = (1, 9)  # usage tables cover days 1-8 or 2-9 (traces.md)
INVALID_PCT_P = 0.001  # -1 / 101 in a percent field
METRICS_PRESENT_P = 0.05  # machine_usage rows with mem_gps and mkpi

P_INDEP_JOB = 0.30  # jobs of task_<base64>== tasks only (no DAG; ~16% of tasks)
INDEP_GEOMETRIC_P = 0.6
SHAPES = (  # name, share of DAG jobs, tasks min, max
    ("single", 0.30, 1, 1),
    ("chain", 0.25, 2, 5),
    ("fan-in", 0.17, 3, 6),
    ("diamond", 0.08, 4, 7),
    ("fan-out", 0.06, 3, 6),
    ("random", 0.136, 4, 10),
    ("large", 0.004, 50, 150),
)
LARGE_WINDOW = 8
RANDOM_PARENTS_P = (0.25, 0.45, 0.2, 0.1)
KINDS = ("M", "R", "J", "MR")
KINDS_P = (0.55, 0.28, 0.15, 0.02)
P_MERGE_INDEP = 0.08
P_MERGE_DAG = 0.002
P_STG = 0.03
P_TRAIL = 0.01
P_MISSING = 0.003
P_SELF = 0.0005
P_CYCLE_JOB = 0.0005  # of chain jobs
P_DUP_JOB = 0.0005
P_WAITING = 0.001
P_END0 = 0.004
P_INVERTED = 0.0015
P_FAILED = 0.01
DUR_MEDIAN, DUR_SIGMA = 20.0, 1.4
GAP_MEAN = 3.0
# Instances per task row: (share, low, high) log-uniform; mean ~95 as the published tables.
INSTANCES = ((0.40, 1, 1), (0.30, 2, 10), (0.238, 10, 200), (0.062, 200, 5000))
# Tasks without a DAG have few instances: 96.91% of instance schedulings are DAG tasks' (paper).
INDEP_INSTANCES = ((0.5, 1, 1), (0.4, 2, 20), (0.1, 20, 200))

# The anomaly names of the ali-dag-anomalies report that the generator injects and counts.
ANOMALIES = (
    "MergeTask name",
    "_Stg<n> suffix",
    "trailing underscore",
    "missing parent",
    "self-loop",
    "cycle",
    "start time unknown (0)",
    "end time unknown (0)",
    "end before start",
    "not ended (status Running, Waiting or Ready)",
)
OPEN_STATUSES = ("Running", "Waiting", "Ready")  # not ended when the trace was cut


def config(*, scale, seed, tables, cells, level, form) -> Config:
    """The run's settings (options checked by tracewh.synth against the spec first); as published
    (tar.gz) by default."""
    form = form or FORMS[0]
    return Config(NAME, scale, seed, tuple(tables or spec.TABLES), (), level, form)


def jobs(cfg: Config) -> int:
    return max(1, round(JOBS * cfg.scale))


def machines(cfg: Config) -> int:
    return max(MIN_MACHINES, round(MACHINES * cfg.scale))


def containers(cfg: Config) -> int:
    return max(MIN_MACHINES, round(CONTAINERS * cfg.scale))


def _chunks(total: int, size: int) -> int:
    return max(1, -(-total // size))


def plan(cfg: Config) -> list[Piece]:
    out = []
    gz = cfg.form != "csv"
    for t in cfg.tables:
        rel = f"{t}.{cfg.form}"
        if t in ("batch_task", "batch_instance"):
            n = _chunks(jobs(cfg), JOB_CHUNK)
        elif t == "machine_usage":
            n = _chunks(machines(cfg), MACHINE_CHUNK)
        elif t == "container_usage":
            n = _chunks(containers(cfg), CONTAINER_CHUNK)
        else:
            n = 1
        out += [Piece(rel, t, i, n, (i, n), gz, framed=cfg.form == "tar.gz") for i in range(n)]
    return out


def frame(cfg: Config, piece: Piece, size: int) -> tuple[bytes, bytes]:
    """The tar member around a table's CSV: a ustar header (its size known only now) and the
    padding plus the archive's two zero blocks."""
    if cfg.form != "tar.gz":
        return b"", b""
    info = tarfile.TarInfo(f"{piece.table}.csv")
    info.size, info.mtime, info.mode = size, 0, 0o644
    return info.tobuf(format=tarfile.USTAR_FORMAT), b"\0" * (-size % 512) + b"\0" * 1024


def finish(cfg: Config, out, files: dict) -> None:
    """Nothing to add: the archives carry no checksum file (the official digests are of the real
    archives, so ``tracewh ingest`` needs ``--no-verify`` for synthetic .tar.gz)."""


def summary(cfg: Config, counts: dict) -> dict:
    bt = counts.get("batch_task", {})
    return {
        "model": {"jobs": jobs(cfg), "machines": machines(cfg), "containers": containers(cfg)},
        "entities": {
            "jobs": bt.get("jobs", 0),
            "tasks": bt.get("rows", 0),
            "instances": counts.get("batch_instance", {}).get("rows", 0),
            "machines": machines(cfg),
        },
        "published_at_scale": {t: round(n * cfg.scale) for t, n in PUBLISHED.items()},
        **({"instance_fraction": cfg.instance_fraction} if cfg.instance_fraction < 1 else {}),
    }


# --------------------------------------------------------------------------- batch jobs


def _log_uniform_mix(rng, table, n):
    import numpy as np

    shares = np.array([s[0] for s in table])
    k = rng.choice(len(table), size=n, p=shares / shares.sum())
    out = np.ones(n, np.int64)
    for i, (_, lo, hi) in enumerate(table):
        m = k == i
        if lo == hi:
            out[m] = lo
        else:
            out[m] = np.exp(rng.uniform(np.log(lo), np.log(hi + 1), int(m.sum()))).astype(np.int64)
    return out


# A part needs at most two blocks; an unbounded cache would grow with the scale.
@lru_cache(maxsize=2)
def _batch(cfg: Config, c: int):
    """The task rows of job chunk c (a polars DataFrame in batch_task's column order) and counts."""
    import numpy as np
    import polars as pl

    rng = rng_for(cfg, "batch", c)
    J = jobs(cfg)
    n_chunks = _chunks(J, JOB_CHUNK)
    nj_total = split_evenly(J, n_chunks, c)
    j0 = J * c // n_chunks  # global index of the chunk's first job
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

    # Timing edges (child, parent) as global task indexes of the chunk; parents come first.
    ch: list = [np.zeros(0, np.int64)]
    pa: list = [np.zeros(0, np.int64)]
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
        cc, p = idx[m], pos[m]
        k = rng.choice(4, size=cc.size, p=RANDOM_PARENTS_P)
        w = p if window is None else np.minimum(p, window)
        for slot in range(3):
            sel = k > slot
            back = 1 + (rng.random(int(sel.sum())) * w[sel]).astype(np.int64)
            ch.append(cc[sel])
            pa.append(cc[sel] - back)
    key = np.unique(np.concatenate(ch) * T + np.concatenate(pa))
    ch_a, pa_a = key // T, key % T

    # Times: roots start at the job start (+0-5 s); children after their parents' latest end + a gap.
    dur = np.clip(np.rint(np.exp(rng.normal(np.log(DUR_MEDIAN), DUR_SIGMA, T))), 1, 200_000).astype(np.int64)
    job_start = rng.integers(1_000, DAYS * DAY, nj_total)
    start = job_start[job] + rng.integers(0, 6, T)
    end = start + dur
    gap = np.rint(rng.exponential(GAP_MEAN, T)).astype(np.int64)
    order = np.argsort(pos[ch_a], kind="stable")
    ch_a, pa_a = ch_a[order], pa_a[order]
    epos = pos[ch_a]
    top = int(pos.max()) if T else 0
    bounds = np.searchsorted(epos, np.arange(top + 2))
    ready = np.zeros(T, np.int64)
    for level in range(1, top + 1):
        e0, e1 = bounds[level], bounds[level + 1]
        if e0 == e1:
            continue
        cc = ch_a[e0:e1]
        np.maximum.at(ready, cc, end[pa_a[e0:e1]])
        u = np.unique(cc)
        start[u] = ready[u] + gap[u]
        end[u] = start[u] + dur[u]

    # Name edges: the timing edges plus the oddities.
    name_c = [ch_a]
    name_p = [pos[pa_a] + 1]
    chain_jobs = np.flatnonzero(shape == S["chain"])
    cyc = chain_jobs[rng.random(chain_jobs.size) < P_CYCLE_JOB]
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
    dup_jobs = dag_jobs[rng.random(dag_jobs.size) < P_DUP_JOB]
    dup_t = first[dup_jobs] + rng.integers(0, n[dup_jobs])
    dup_dur = np.clip(np.rint(np.exp(rng.normal(np.log(DUR_MEDIAN), DUR_SIGMA, dup_t.size))), 1, 200_000)
    dups = base[dup_t].with_columns(
        pl.when(pl.col("kind") == "J").then(pl.lit("M")).otherwise(pl.lit("J")).alias("kind"),
        pl.col("ord") + 0.5,
        (pl.col("start") + pl.Series(dup_dur.astype(np.int64))).alias("end"),
        pl.lit(False).alias("trail"),
    )
    # MergeTask rows after the job's last end.
    job_end = np.zeros(nj_total, np.int64)
    np.maximum.at(job_end, job, end)
    merge_jobs = np.flatnonzero(
        np.where(indep, rng.random(nj_total) < P_MERGE_INDEP, rng.random(nj_total) < P_MERGE_DAG)
    )
    m_start = job_end[merge_jobs] + rng.integers(0, 10, merge_jobs.size)
    k = merge_jobs.size
    merges = pl.DataFrame(
        {
            "t": np.full(k, -1),
            "job": merge_jobs,
            "ord": np.full(k, 1e6),
            "kind": np.full(k, ""),
            "id": np.zeros(k, np.int64),
            "is_dag": np.zeros(k, bool),
            "stg_n": np.zeros(k, np.int64),
            "trail": np.zeros(k, bool),
            "start": m_start,
            "end": m_start + rng.integers(1, 60, k),
            "deps": pl.Series([None] * k, dtype=pl.String),
        },
        schema=base.schema,
    ).with_columns(pl.lit(True).alias("merge"))
    no_merge = pl.lit(False).alias("merge")
    rows = (
        pl.concat([base.with_columns(no_merge), dups.with_columns(no_merge), merges])
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
                + (pl.lit(10**15, pl.Int64) + (pl.col("t") + j0 * 64) * 7_919 + cfg.seed % 7_919)
                .cast(pl.String)
                .str.encode("base64")
            )
            .alias("task_name"),
            ("j_" + (pl.col("job") + j0 + 1).cast(pl.String)).alias("job_name"),
        )
    )
    R = rows.height
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
    inst_k = _log_uniform_mix(rng, INSTANCES, R)
    no_dag = ~rows["is_dag"].to_numpy() | rows["merge"].to_numpy()
    inst_k[no_dag] = _log_uniform_mix(rng, INDEP_INSTANCES, int(no_dag.sum()))
    tasks = pl.DataFrame(
        {
            "task_name": rows["task_name"],
            "instance_num": inst_k,
            "job_name": rows["job_name"],
            "task_type": rng.integers(1, 13, R),
            "status": pl.Series(status, dtype=pl.String),
            "start_time": start_r,
            "end_time": end_r,
            "plan_cpu": rng.choice(np.array([50.0, 100.0, 100.0, 200.0, 400.0]), R),
            "plan_mem": np.round(rng.uniform(0.05, 2.0, R), 2),
        }
    )
    name_deps = rows["deps"].is_null().to_numpy()
    is_dag_r = rows["is_dag"].to_numpy() & ~rows["merge"].to_numpy()
    counts = {
        "jobs": nj_total,
        "jobs:dag": n_dag_jobs,
        "jobs:independent": int(indep.sum()),
        "class:no_dag": int((~is_dag_r).sum()),
        "class:dag_root": int((is_dag_r & name_deps).sum()),
        "class:dag_dependent": int((is_dag_r & ~name_deps).sum()),
        "anomaly:MergeTask name": int(merge_jobs.size),
        "anomaly:_Stg<n> suffix": int(stg.sum()) + int(dups["stg_n"].gt(0).sum()),
        "anomaly:trailing underscore": int(trail.sum()),
        "anomaly:missing parent": int(missing.sum()),
        "anomaly:self-loop": int(self_loop.sum()),
        "anomaly:cycle": int(cyc.size),
        "anomaly:start time unknown (0)": int(waiting.sum()),
        "anomaly:end time unknown (0)": int((end0 & ~np.isin(status, OPEN_STATUSES)).sum()),
        "anomaly:end before start": int(inverted.sum()),
        "anomaly:not ended (status Running, Waiting or Ready)": int(np.isin(status, OPEN_STATUSES).sum()),
        "cycle:2 tasks": int((n[cyc] == 2).sum()),
        "cycle:3 tasks": int((n[cyc] >= 3).sum()),
        "duplicate_id_jobs": int(dup_jobs.size),
        "merge_in_dag_jobs": int((~indep[merge_jobs]).sum()),
        "status:Waiting": int(waiting.sum()),
        "failed_known_times": int(failed.sum()),
        "timing_edges": int(ch_a.size),
        "instances": int(inst_k.sum()),
    }
    for name, s in S.items():
        m = shape == s
        counts[f"shape:{name}:jobs"] = int(m.sum())
        counts[f"shape:{name}:tasks"] = int(n[m].sum())
    return tasks, counts


def _csv(df) -> bytes:
    buf = io.BytesIO()
    df.write_csv(buf, include_header=False)
    return buf.getvalue()


def batch_task(cfg: Config, piece: Piece) -> Output:
    tasks, counts = _batch(cfg, piece.args[0])
    return encode(piece, _csv(tasks), cfg, {**counts, "rows": tasks.height})


def kept_instances(instance_num, fraction: float):
    """Instance rows each task keeps when batch_instance is thinned to ``fraction`` (THINNED):
    max(1, round(fraction x instance_num)), rounding half to even as Python's round; all of them
    at 1.0. Every task keeps at least one, so the (job, task) groups stay those of batch_task."""
    import numpy as np

    k = np.asarray(instance_num, dtype=np.int64)
    return k if fraction >= 1 else np.maximum(1, np.rint(k * fraction).astype(np.int64))


def batch_instance(cfg: Config, piece: Piece) -> Output:
    c = piece.args[0]
    tasks, _ = _batch(cfg, c)
    base = (J := jobs(cfg)) * c // _chunks(J, JOB_CHUNK)
    instances = _instances(cfg, tasks, rng_for(cfg, "batch_instance", c), base)
    return encode(piece, _csv(instances), cfg, {"rows": instances.height})


def _instances(cfg: Config, tasks, rng, base: int):
    """The batch_instance rows of the task rows ``tasks``: each task's first
    ``kept_instances(instance_num, cfg.instance_fraction)`` instances (seq_no 1..kept; total_seq_no
    stays the task's instance_num), named from ``base`` (the chunk's first job) on."""
    import numpy as np
    import polars as pl

    inst_k = tasks["instance_num"].to_numpy()
    keep = kept_instances(inst_k, cfg.instance_fraction)
    R = tasks.height
    ti = np.repeat(np.arange(R), keep)
    nI = ti.size
    ts, te = tasks["start_time"].to_numpy()[ti], tasks["end_time"].to_numpy()[ti]
    istart = np.where(ts > 0, ts + rng.integers(0, 4, nI), 0)
    valid = (ts > 0) & (te >= ts)
    idur = np.maximum(1, np.rint((te - ts) * rng.uniform(0.6, 1.0, nI))).astype(np.int64)
    iend = np.where(valid, np.maximum(istart, np.minimum(te, istart + idur)), te)
    cpu_avg = np.round(rng.uniform(10, 300, nI), 2)
    mem_avg = np.round(rng.uniform(0.1, 5.0, nI), 2)
    first = np.cumsum(keep) - keep
    seq = np.arange(nI) - first[ti] + 1
    ti_s = pl.Series(ti)
    return pl.DataFrame(
        {
            "instance_name": "ins_" + pl.Series(np.arange(nI) + base * 1000 + 1).cast(pl.String),
            "task_name": tasks["task_name"].gather(ti_s),
            "job_name": tasks["job_name"].gather(ti_s),
            "task_type": tasks["task_type"].gather(ti_s),
            "status": tasks["status"].gather(ti_s),
            "start_time": istart,
            "end_time": iend,
            "machine_id": "m_" + pl.Series(rng.integers(1, machines(cfg) + 1, nI)).cast(pl.String),
            "seq_no": seq,
            "total_seq_no": inst_k[ti],
            "cpu_avg": cpu_avg,
            "cpu_max": np.round(cpu_avg * rng.uniform(1.0, 1.5, nI), 2),
            "mem_avg": mem_avg,
            "mem_max": np.round(mem_avg * rng.uniform(1.0, 1.3, nI), 2),
        }
    )


# --------------------------------------------------------------------------- machines and containers


def _text_order(n: int):
    """1..n in the order of their ids as text (m_1, m_10, m_100, m_1000, m_1001, ...)."""
    return sorted(range(1, n + 1), key=str)


def _pct(rng, x, n, counts: dict, name: str):
    """Percent values with -1 / 101 (invalid) at INVALID_PCT_P."""
    import numpy as np

    x = np.round(np.clip(x, 0, 100), 0)
    bad = rng.random(n) < INVALID_PCT_P
    x[bad] = np.where(rng.random(int(bad.sum())) < 0.5, -1, 101)
    counts[f"invalid_percent:{name}"] = counts.get(f"invalid_percent:{name}", 0) + int(bad.sum())
    return x


def machine_meta(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    rng = rng_for(cfg, "machine_meta")
    M = machines(cfg)
    target = max(M, round(PUBLISHED["machine_meta"] * cfg.scale))
    extra = rng.multinomial(target - M, np.full(M, 1 / M)) if target > M else np.zeros(M, np.int64)
    ids = np.asarray(_text_order(M))
    k = 1 + extra[ids - 1]
    mid = np.repeat(ids, k)
    first = np.cumsum(k) - k
    pos = np.arange(mid.size) - first[np.repeat(np.arange(M), k)]
    # Per machine: time 0, then sorted status-change times.
    times = rng.integers(1, DAYS * DAY, mid.size)
    times[pos == 0] = 0
    order = np.lexsort((times, np.repeat(np.arange(M), k)))
    times = times[order]
    fd1 = rng.integers(1, 250, M)[ids - 1]
    fd2 = rng.integers(1, 40, M)[ids - 1]
    fd2_empty = rng.random(mid.size) < 0.01
    installing = rng.random(mid.size) < 0.0003
    out = pl.DataFrame(
        {
            "machine_id": "m_" + pl.Series(mid).cast(pl.String),
            "time_stamp": times,
            "failure_domain_1": np.repeat(fd1, k),
            "failure_domain_2": pl.Series(np.repeat(fd2, k))
            .cast(pl.String)
            .scatter(np.flatnonzero(fd2_empty), None),
            "cpu_num": np.full(mid.size, 96),
            "mem_size": np.full(mid.size, 100),
            "status": np.where(installing, "IMPORT_INSTALLING", "USING"),
        }
    )
    counts = {
        "status:IMPORT_INSTALLING": int(installing.sum()),
        "failure_domain_2:empty": int(fd2_empty.sum()),
    }
    return encode(piece, _csv(out), cfg, {**counts, "rows": out.height})


def _usage_ids(n_total: int, piece: Piece):
    i, n = piece.args
    order = _text_order(n_total)
    return order[n_total * i // n : n_total * (i + 1) // n]


def machine_usage(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    rng = rng_for(cfg, "machine_usage", piece.args[0])
    ids, frames = _usage_ids(machines(cfg), piece), []
    counts: dict[str, int] = {}
    for m in ids:
        lo, hi = (0, DAYS * DAY) if m % 2 else (DAY, (DAYS + 1) * DAY)  # days 1-8 or 2-9
        steps = rng.integers(*MACHINE_SAMPLE_S, (hi - lo) // MACHINE_SAMPLE_S[0] + 1)
        t = lo + np.cumsum(steps)
        t = t[t < hi]
        n = t.size
        base = rng.uniform(15, 60)
        present = rng.random(n) < METRICS_PRESENT_P
        frames.append(
            pl.DataFrame(
                {
                    "machine_id": np.full(n, f"m_{m}"),
                    "time_stamp": t,
                    "cpu_util_percent": _pct(rng, base + rng.normal(0, 8, n), n, counts, "cpu_util_percent"),
                    "mem_util_percent": _pct(
                        rng, base + 30 + rng.normal(0, 3, n), n, counts, "mem_util_percent"
                    ),
                    "mem_gps": pl.Series(np.round(rng.gamma(2, 10, n), 2)).scatter(
                        np.flatnonzero(~present), None
                    ),
                    "mkpi": pl.Series(rng.integers(0, 50, n)).scatter(np.flatnonzero(~present), None),
                    "net_in": np.round(rng.uniform(20, 60, n), 2),
                    "net_out": np.round(rng.uniform(20, 60, n), 2),
                    "disk_io_percent": _pct(rng, rng.gamma(1.5, 3, n), n, counts, "disk_io_percent"),
                }
            )
        )
        counts["mem_gps:empty"] = counts.get("mem_gps:empty", 0) + int((~present).sum())
    df = pl.concat(frames)
    return encode(piece, _csv(df), cfg, {**counts, "rows": df.height})


@cache
def _containers(cfg: Config):
    """Every container's machine, app_du, start time and request (small: ~71k at scale 1)."""
    import numpy as np

    rng = rng_for(cfg, "containers")
    C = containers(cfg)
    apps = max(1, C // 7)
    # Containers per app_du: Zipf-like (a few huge services, many small ones).
    app = np.minimum(rng.zipf(1.6, C), apps) - 1
    return {
        "machine": rng.integers(1, machines(cfg) + 1, C),
        "app": app + 1,
        "cpu": rng.choice([100, 200, 400, 800, 1600], C, p=[0.1, 0.2, 0.4, 0.25, 0.05]),
        "mem": np.round(rng.choice([0.78, 1.56, 3.13, 6.25], C), 2),
        "changes": rng.poisson(1.2, C),
    }


def container_meta(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    rng = rng_for(cfg, "container_meta")
    K = _containers(cfg)
    ids = np.asarray(_text_order(containers(cfg)))
    ix = ids - 1
    k = 1 + K["changes"][ix]
    cid = np.repeat(ids, k)
    grp = np.repeat(np.arange(ids.size), k)
    times = rng.integers(1, DAYS * DAY, cid.size)
    times[np.r_[0, np.cumsum(k)[:-1]]] = 0
    order = np.lexsort((times, grp))
    times = times[order]
    status = np.where(rng.random(cid.size) < 0.97, "started", "allocated")
    out = pl.DataFrame(
        {
            "container_id": "c_" + pl.Series(cid).cast(pl.String),
            "machine_id": "m_" + pl.Series(K["machine"][cid - 1]).cast(pl.String),
            "time_stamp": times,
            "app_du": "app_" + pl.Series(K["app"][cid - 1]).cast(pl.String),
            "status": status,
            "cpu_request": K["cpu"][cid - 1],
            "cpu_limit": K["cpu"][cid - 1],
            "mem_size": K["mem"][cid - 1],
        }
    )
    counts = {"containers": int(ids.size), "app_du": int(np.unique(K["app"]).size)}
    return encode(piece, _csv(out), cfg, {**counts, "rows": out.height})


def container_usage(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    rng = rng_for(cfg, "container_usage", piece.args[0])
    K = _containers(cfg)
    frames = []
    counts: dict[str, int] = {}
    for c in _usage_ids(containers(cfg), piece):
        lo = CONTAINER_DAYS[0] * DAY if c % 3 else 0
        hi = lo + DAYS * DAY
        steps = rng.integers(*CONTAINER_SAMPLE_S, (hi - lo) // CONTAINER_SAMPLE_S[0] + 1)
        t = lo + np.cumsum(steps)
        t = t[t < hi]
        n = t.size
        base = rng.uniform(5, 40)
        frames.append(
            pl.DataFrame(
                {
                    "container_id": np.full(n, f"c_{c}"),
                    "machine_id": np.full(n, f"m_{K['machine'][c - 1]}"),
                    "time_stamp": t,
                    "cpu_util_percent": _pct(rng, base + rng.normal(0, 5, n), n, counts, "cpu_util_percent"),
                    "mem_util_percent": _pct(
                        rng, base + 50 + rng.normal(0, 2, n), n, counts, "mem_util_percent"
                    ),
                    "cpi": np.round(rng.gamma(4, 0.4, n), 2),
                    "mem_gps": np.round(rng.gamma(2, 1, n), 2),
                    "mpki": rng.integers(0, 20, n),
                    "net_in": np.round(rng.uniform(0, 10, n), 2),
                    "net_out": np.round(rng.uniform(0, 10, n), 2),
                    "disk_io_percent": _pct(rng, rng.gamma(1.2, 2, n), n, counts, "disk_io_percent"),
                }
            )
        )
    df = pl.concat(frames)
    return encode(piece, _csv(df), cfg, {**counts, "rows": df.height})


# The generator of each table, named as the table (tracewh.synth: a piece goes to its table's).
MAKERS = {
    f.__name__: f
    for f in (batch_task, batch_instance, machine_meta, machine_usage, container_meta, container_usage)
}
