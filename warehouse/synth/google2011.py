"""Synthetic Google clusterdata-2011-2: gzip CSV parts in the download's layout, with SHA256SUM.

The model (every figure below is a constant of this module, so it can be tuned in one place):
- The trace spans 29 days from t = 600 s. ``--scale S`` shrinks the cluster (machines, resident
  tasks) and the job arrivals by S; the time span stays. The 500-part tables get
  ``P = round(500 S)`` parts (at least 1), each a consecutive time slice of 29 d / P, so a part
  holds about as many rows as a real one at every scale (part-NNNNN-of-00500 names, as the
  download; machine_events and machine_attributes are one part-00000-of-00001 file).
- Jobs arriving in slice b form *block* b. A block is generated from (seed, b) alone, and a task's
  life (every episode: SUBMIT, SCHEDULE, ..., an end event; evicted / failed episodes are
  resubmitted) ends before the end of slice b+1 (longer lives are compressed in time), so part p
  is written from blocks p-1 and p: parts are independent work, yet a life spans part files as
  in the real trace. Events after the trace end are censored (dropped), as the real trace is.
- *Resident* tasks (long-running services) exist before the window: SUBMIT and SCHEDULE at time 0
  (a share synthesized, missing_info 2 with empty requests), they run on their machine for the
  whole trace (task_usage every 300 s) and some end inside it, a few after it (time 2^63-1).
- task_usage: one row per 300 s window (aligned to the 300 s grid, first / last window cut at
  the schedule / end) of every running episode, on its machine only.
- Quirks at realistic rates: time 0 and 2^63-1, missing_info 0/1/2, empty machine_id before
  scheduling, empty requests on missing_info 2 rows, scientific notation (small floats),
  empty CPI / memory-accesses values, machines without capacity.
"""

from __future__ import annotations

import io
from functools import cache, lru_cache

from tracewh.synth import (
    Config,
    Output,
    Piece,
    encode,
    g_text,
    hash_names,
    no_frame,
    rng_for,
    round_sig,
    sci_text,
    split_evenly,
    windows,
    write_sha256sum,
)
from tracewh.traces import google2011 as spec

NAME = "google2011"
T0 = 600_000_000  # trace start, microseconds
DAY = 86_400_000_000
SPAN = 29 * DAY
T_END = T0 + SPAN
MAX_TIME = 2**63 - 1
WINDOW = 300_000_000  # task_usage window
PARTS = max(spec.PARTS.values())  # the numbered tables' parts in the bucket
FILE = spec.PART_NAME

# Published or measured sizes at scale 1 (traces.md); the generator aims at these.
PUBLISHED = {
    "task_events": 144_648_288,
    "job_events": 2_012_242,
    "machine_events": 37_780,
    "task_usage": 1_232_799_308,
}
JOBS = 670_000  # jobs whose SUBMIT lies in the window (~3 job events each)
MACHINES = 12_583
RESIDENTS_PER_MACHINE = 10.5  # long-running tasks per machine (they carry most of task_usage)
RESIDENT_JOB_TASKS = 40
RESIDENT_END_SHARE = 0.15  # residents that end inside the window
RESIDENT_AFTER_SHARE = 0.002  # residents with an end event at 2^63-1
RESIDENT_SYNTH_SHARE = 0.05  # residents whose time-0 SUBMIT is synthesized (missing_info 2)
MIN_MACHINES = 2  # the smallest cluster (tiny scales, e.g. in tests)

# Job sizes (tasks per job): a heavy-tailed mix; (share, low, high, log-uniform?).
JOB_SIZES = ((0.70, 1, 1, False), (0.20, 2, 20, False), (0.088, 20, 200, True), (0.012, 200, 9000, True))
PRIORITY_P = (0.30, 0.12, 0.05, 0.01, 0.40, 0.01, 0.02, 0.005, 0.025, 0.045, 0.01, 0.005)  # 9-11: 6%
SCHED_CLASS_P = (0.55, 0.30, 0.13, 0.02)
RESUBMIT_P = 0.47  # an episode that does not end the task is followed by a resubmission
MAX_EPISODES = 12
END_FINAL = ((4, 0.73), (5, 0.17), (3, 0.10))  # FINISH, KILL, FAIL
END_RETRY = ((2, 0.50), (3, 0.45), (6, 0.05))  # EVICT, FAIL, LOST
PENDING_KILL_P = 0.02  # final episodes killed while pending (never scheduled)
UPDATE_RUNNING_P = 0.03
UPDATE_PENDING_P = 0.005
SNAPSHOT_P = 0.1  # UPDATE_RUNNING rows synthesized from a snapshot (missing_info 0)
NO_SNAPSHOT_P = 0.001  # end events synthesized (missing_info 1)
CONSTRAINED_P = 0.06  # tasks with placement constraints (1-3 rows at each SUBMIT)
WAIT_MEAN_S, LONG_WAIT_P = 25.0, 0.04
RUN_MEDIAN_S, RUN_SIGMA = 420.0, 1.6
ATTRIBUTES_PER_MACHINE = 12
ATTRIBUTE_NAMES = 70
MACHINE_EXTRA = 2.0  # machine events per machine after the time-0 ADD (REMOVE / re-ADD / UPDATE)
NO_CAPACITY_P = 0.01
# task_usage values. A real part is ~77 MB of gzip (41 GB in all, less ~2.2 GB for the other
# tables) for ~2.47 M rows: ~31 bytes a row, when 5 integer ids and times already take ~11.
# These shares of zeros and empties (modelled, not measured) bring the synthetic rows there.
DISK_IO_DAYS = 14  # disk I/O time is only in about the first 14 days (the trace's own notes)
USAGE_IDLE_P = 0.5  # windows without a process (copying the binary): CPU and I/O 0, no CPI
USAGE_STEADY_P = 0.9  # maximum and assigned memory = canonical memory, maximum CPU = mean CPU
USAGE_NO_UNMAPPED_P = 0.7
USAGE_NO_CACHE_P = 0.7
USAGE_NO_DISK_IO_P = 0.4
USAGE_NO_DISK_P = 0.6  # no local disk space used
USAGE_SAMPLED_ZERO_P = 0.5
USAGE_NO_CPI_P = 0.15  # machines without performance counters: empty CPI and MAI
AGGREGATED_P = 0.01

JOB_ID0, JOB_STRIDE = 3_418_309, 9_371
MACHINE_ID0, MACHINE_STRIDE = 5, 381_467

TASK_EVENT_TYPES = ("SUBMIT", "SCHEDULE", "EVICT", "FAIL", "FINISH", "KILL", "LOST", "UPDATE_PENDING",
                    "UPDATE_RUNNING")  # fmt: skip


def config(*, scale, seed, tables, cells, level, form) -> Config:
    """The run's settings (options checked by tracewh.synth against the spec first)."""
    return Config(NAME, scale, seed, tuple(tables or spec.TABLES), (), level)


def parts(cfg: Config) -> int:
    return cfg.parts or min(PARTS, max(1, round(PARTS * cfg.scale)))


def machines(cfg: Config) -> int:
    return max(MIN_MACHINES, round(MACHINES * cfg.scale))


def plan(cfg: Config) -> list[Piece]:
    p = parts(cfg)
    out = []
    for t in cfg.tables:
        if spec.PARTS[t] == 1:
            out.append(Piece(f"{t}/{FILE.format(0, 1)}", t, 0, 1))
        else:
            out += [Piece(f"{t}/{FILE.format(k, PARTS)}", t, 0, 1, (k,)) for k in range(p)]
    return out


frame = no_frame


def finish(cfg: Config, out, files: dict) -> None:
    write_sha256sum(out, files)


def summary(cfg: Config, counts: dict) -> dict:
    te = counts.get("task_events", {})
    return {
        "model": {"parts": parts(cfg), "machines": machines(cfg), "slice_us": slice_len(cfg)},
        "entities": {
            "jobs": te.get("jobs", 0),
            "tasks": te.get("tasks", 0),
            "machines": machines(cfg),
        },
        "published_at_scale": {t: round(n * cfg.scale) for t, n in PUBLISHED.items()},
    }


def slice_len(cfg: Config) -> int:
    return SPAN // parts(cfg)


# --------------------------------------------------------------------------- the model


@cache
def _pools(seed: int):
    """Name pools shared by every piece (hashes of labels: the same at every scale)."""
    return {
        "users": hash_names(f"u{seed}/", range(1000)),
        "logical": hash_names(f"l{seed}/", range(4000)),
        "platforms": hash_names(f"p{seed}/", range(4)),
        "attributes": hash_names(f"a{seed}/", range(ATTRIBUTE_NAMES)),
        "values": hash_names(f"v{seed}/", range(200)),
    }


def _choice(rng, table, n):
    import numpy as np

    codes, p = zip(*table, strict=True)
    return np.asarray(codes)[rng.choice(len(codes), size=n, p=p)]


def _job_sizes(rng, n):
    import numpy as np

    shares = np.array([s[0] for s in JOB_SIZES])
    k = rng.choice(len(JOB_SIZES), size=n, p=shares / shares.sum())
    out = np.ones(n, np.int64)
    for i, (_, lo, hi, log) in enumerate(JOB_SIZES):
        m = k == i
        if log:
            out[m] = np.exp(rng.uniform(np.log(lo), np.log(hi + 1), int(m.sum()))).astype(np.int64)
        else:
            out[m] = rng.integers(lo, hi + 1, int(m.sum()))
    return out


# A part needs at most two blocks; an unbounded cache would grow with the scale.
@lru_cache(maxsize=2)
def _block(cfg: Config, b: int):
    """Jobs, tasks and episodes of block b (arrivals in slice b), as numpy arrays."""
    import numpy as np

    rng = rng_for(cfg, "block", b)
    p, L = parts(cfg), slice_len(cfg)
    start = T0 + b * L
    total_jobs = max(1, round(JOBS * cfg.scale))
    nj = split_evenly(total_jobs, p, b)
    first_job = total_jobs * b // p  # global index of the block's first job
    r_jobs = -(-residents(cfg) // RESIDENT_JOB_TASKS)
    job_submit = np.sort(rng.integers(start, start + L, nj))
    size = _job_sizes(rng, nj)
    job = {
        "id": JOB_ID0 + (r_jobs + first_job + np.arange(nj)) * JOB_STRIDE,
        "submit": job_submit,
        "size": size,
        "user": np.minimum(rng.zipf(1.3, nj), 1000) - 1,
        "sched": rng.choice(4, nj, p=SCHED_CLASS_P),
        "prio": rng.choice(12, nj, p=PRIORITY_P),
        "logical": rng.integers(0, 4000, nj),
        "diff": (rng.random(nj) < 0.25).astype(np.int8),
        "cpu": round_sig(rng.choice([0.00625, 0.0125, 0.025, 0.03125, 0.0625, 0.125, 0.25], nj), 4),
        "mem": round_sig(np.clip(rng.lognormal(np.log(0.02), 1.0, nj), 1e-5, 1.0), 4),
        "disk": round_sig(rng.lognormal(np.log(2e-4), 1.2, nj), 4),
    }
    # Tasks.
    T = int(size.sum())
    tj = np.repeat(np.arange(nj), size)
    first_t = np.cumsum(size) - size
    tidx = np.arange(T) - first_t[tj]
    # Tasks follow their job's SUBMIT closely; the first SUBMIT stays inside the slice.
    t_start = np.minimum(job_submit[tj] + tidx * 1000 + rng.integers(0, 2_000_000, T), start + L - 1)
    # Episodes.
    k = np.minimum(rng.geometric(1 - RESUBMIT_P, T), MAX_EPISODES)
    E = int(k.sum())
    et = np.repeat(np.arange(T), k)
    first_e = np.cumsum(k) - k
    epos = np.arange(E) - first_e[et]
    last = epos == k[et] - 1
    wait = rng.exponential(WAIT_MEAN_S, E) * 1e6
    long = rng.random(E) < LONG_WAIT_P
    wait[long] = rng.uniform(600, 7200, int(long.sum())) * 1e6
    run = np.clip(rng.lognormal(np.log(RUN_MEDIAN_S), RUN_SIGMA, E), 1, 40 * 86400) * 1e6
    gap = rng.exponential(5.0, E) * 1e6 * ~last
    pending_kill = last & (rng.random(E) < PENDING_KILL_P)
    run[pending_kill] = 0
    step = wait + run + gap
    rel_start = np.cumsum(step) - step  # within the whole array; make it per task
    rel_start -= rel_start[first_e][et]
    total = (rel_start + step)[first_e + k - 1]  # per task: life length
    # Compress lives that would end after the end of slice b+1 (so part b+2 never needs block b).
    allowed = (start + 2 * L - 1 - t_start).astype(np.float64)
    f = np.minimum(1.0, allowed / np.maximum(total, 1))[et]
    sub = t_start[et] + (rel_start * f).astype(np.int64)
    sched = sub + (wait * f).astype(np.int64)
    end = sched + (run * f).astype(np.int64)
    end = np.maximum(end, sched)
    end_type = np.where(last, _choice(rng, END_FINAL, E), _choice(rng, END_RETRY, E))
    end_type[pending_kill] = 5
    mach = rng.integers(0, machines(cfg), E)
    upd_run = ~pending_kill & (rng.random(E) < UPDATE_RUNNING_P)
    upd_pend = rng.random(E) < UPDATE_PENDING_P
    snapshot = upd_run & (rng.random(E) < SNAPSHOT_P)
    no_snap = rng.random(E) < NO_SNAPSHOT_P
    constrained = rng.random(T) < CONSTRAINED_P
    return {
        "job": job,
        "nj": nj,
        "T": T,
        "tj": tj,
        "tidx": tidx,
        "E": E,
        "et": et,
        "sub": sub,
        "sched": sched,
        "end": end,
        "end_type": end_type,
        "pending_kill": pending_kill,
        "mach": mach,
        "upd_run": upd_run,
        "upd_pend": upd_pend,
        "snapshot": snapshot,
        "no_snap": no_snap,
        "constrained": constrained,
        "epos": epos,
    }


def residents(cfg: Config) -> int:
    return round(machines(cfg) * RESIDENTS_PER_MACHINE)


@cache
def _residents(cfg: Config):
    import numpy as np

    rng = rng_for(cfg, "residents")
    R = residents(cfg)
    rj = np.arange(R) // RESIDENT_JOB_TASKS
    nrj = int(rj[-1]) + 1 if R else 0
    u = rng.random(R)
    ends = u < RESIDENT_END_SHARE
    after = (u >= RESIDENT_END_SHARE) & (u < RESIDENT_END_SHARE + RESIDENT_AFTER_SHARE)
    end = np.full(R, MAX_TIME, np.int64)
    end[ends] = rng.integers(T0 + WINDOW, T_END, int(ends.sum()))
    return {
        "R": R,
        "job_id": JOB_ID0 + rj * JOB_STRIDE,
        "job_n": nrj,
        "tidx": np.arange(R) % RESIDENT_JOB_TASKS,
        "mach": np.arange(R) % machines(cfg),
        "ends": ends,
        "after": after,
        "end": end,
        "end_type": rng.choice([4, 5, 3], R, p=[0.5, 0.4, 0.1]),
        "synth": rng.random(R) < RESIDENT_SYNTH_SHARE,
        "job_user": rng.integers(0, 40, nrj),
        "job_sched": rng.choice([1, 2, 3], nrj, p=[0.3, 0.5, 0.2]),
        "job_prio": rng.choice([0, 9, 10, 11], nrj, p=[0.3, 0.4, 0.2, 0.1]),
        "job_logical": rng.integers(0, 4000, nrj),
        "cpu": round_sig(rng.choice([0.0125, 0.025, 0.0625], nrj), 4),
        "mem": round_sig(np.clip(rng.lognormal(np.log(0.01), 0.8, nrj), 1e-5, 0.5), 4),
        "disk": round_sig(rng.lognormal(np.log(1e-4), 1.0, nrj), 4),
    }


def _slice_bounds(cfg: Config, k: int) -> tuple[int, int]:
    L = slice_len(cfg)
    lo = T0 + k * L
    hi = T_END if k == parts(cfg) - 1 else lo + L
    return lo, hi


# --------------------------------------------------------------------------- CSV writing


def _csv(columns: dict) -> bytes:
    import polars as pl

    buf = io.BytesIO()
    pl.DataFrame(columns).write_csv(buf, include_header=False)
    return buf.getvalue()


def _masked(values, mask):
    """A polars Series holding NULL (an empty field) where mask is True."""
    import polars as pl

    s = pl.Series(values)
    return (
        s if mask is None else pl.select(pl.when(pl.lit(pl.Series(mask))).then(None).otherwise(s)).to_series()
    )


def _order(times, *tiebreak):
    import numpy as np

    return np.lexsort((*reversed(tiebreak), times)) if tiebreak else np.argsort(times, kind="stable")


# --------------------------------------------------------------------------- task_events / job_events


def _blocks(cfg: Config, k: int):
    """(b, block b) for the blocks whose episodes can have events in slice k: k - 1 and k."""
    return [(b, _block(cfg, b)) for b in (k - 1, k) if b >= 0]


class _SliceRows:
    """The rows of slice k, gathered column by column (``names``, time first) from the blocks'
    episodes: ``add`` keeps those timed in the slice, and time 0 in the first part and MAX_TIME in
    the last (each special time goes to one part)."""

    def __init__(self, cfg: Config, k: int, names: tuple[str, ...]) -> None:
        self.lo, self.hi = _slice_bounds(cfg, k)
        self.first, self.last = k == 0, k == parts(cfg) - 1
        self.cols: dict[str, list] = {c: [] for c in names}

    def add(self, time, *values) -> None:
        import numpy as np

        keep = (time >= self.lo) & (time < self.hi)
        if self.first:
            keep |= time == 0
        if self.last:
            keep |= time == MAX_TIME
        for c, v in zip(self.cols, (time, *values), strict=True):
            self.cols[c].append(np.broadcast_to(v, time.shape)[keep])

    def arrays(self) -> dict:
        import numpy as np

        return {c: np.concatenate(v) for c, v in self.cols.items()}


def _task_event_rows(cfg: Config, k: int):
    """All task events in slice k (+ time 0 in part 0 and 2^63-1 in the last part) as arrays."""
    import numpy as np

    rows = _SliceRows(cfg, k, ("time", "mi", "job", "tidx", "mach", "type", "blk", "tj"))
    add = rows.add  # add(time, mi, job, tidx, mach, type, blk, tj)
    counts: dict[str, int] = {}
    for b, B in _blocks(cfg, k):
        et = B["et"]
        job = B["job"]["id"][B["tj"][et]]
        tidx = B["tidx"][et]
        tj = B["tj"][et]
        mach = B["mach"]
        none = np.full(B["E"], -1)
        scheduled = ~B["pending_kill"]
        mi_end = np.where(B["no_snap"], 1, -1)
        add(B["sub"], none, job, tidx, none, np.zeros(B["E"], np.int64), b, tj)
        s = scheduled
        add(B["sched"][s], none[s], job[s], tidx[s], mach[s], np.ones(int(s.sum()), np.int64), b, tj[s])
        mend = np.where(scheduled, mach, -1)
        add(B["end"], mi_end, job, tidx, mend, B["end_type"], b, tj)
        u = B["upd_run"]
        mid = B["sched"][u] + (B["end"][u] - B["sched"][u]) // 2
        add(
            mid,
            np.where(B["snapshot"][u], 0, -1),
            job[u],
            tidx[u],
            mach[u],
            np.full(int(u.sum()), 8),
            b,
            tj[u],
        )
        u = B["upd_pend"]
        mid = B["sub"][u] + (B["sched"][u] - B["sub"][u]) // 2
        add(mid, none[u], job[u], tidx[u], none[u], np.full(int(u.sum()), 7), b, tj[u])
        if b == k:
            counts["tasks"] = counts.get("tasks", 0) + B["T"]
            counts["jobs"] = counts.get("jobs", 0) + B["nj"]
    R = _residents(cfg)
    if R["R"]:
        rz = np.zeros(R["R"], np.int64)
        rn = np.full(R["R"], -1)
        if k == 0:
            add(rz, np.where(R["synth"], 2, -1), R["job_id"], R["tidx"], rn, rz, -1, np.arange(R["R"]))
            add(rz, rn, R["job_id"], R["tidx"], R["mach"], rz + 1, -1, np.arange(R["R"]))
            counts["tasks"] = counts.get("tasks", 0) + R["R"]
            counts["jobs"] = counts.get("jobs", 0) + R["job_n"]
            counts["anomaly:missing_info_2_empty_requests"] = int(R["synth"].sum())
        e = R["ends"] | R["after"]
        add(
            R["end"][e],
            rn[e],
            R["job_id"][e],
            R["tidx"][e],
            R["mach"][e],
            R["end_type"][e],
            -1,
            np.flatnonzero(e),
        )
    return rows.arrays(), counts


def task_events(cfg: Config, piece: Piece) -> Output:
    import numpy as np

    (k,) = piece.args
    ev, counts = _task_event_rows(cfg, k)
    order = _order(ev["time"], ev["job"], ev["tidx"])
    ev = {c: v[order] for c, v in ev.items()}
    n = ev["time"].size
    pools = _pools(cfg.seed)
    # Per-row job attributes: from the block (regular) or the resident tables.
    user = np.empty(n, np.int64)
    sched = np.empty(n, np.int64)
    prio = np.empty(n, np.int64)
    cpu = np.empty(n)
    mem = np.empty(n)
    disk = np.empty(n)
    diff = np.zeros(n, np.int8)
    for b in set(ev["blk"].tolist()):
        m = ev["blk"] == b
        if b < 0:
            R = _residents(cfg)
            j = ev["job"][m] - JOB_ID0
            j //= JOB_STRIDE
            user[m], sched[m], prio[m] = R["job_user"][j], R["job_sched"][j], R["job_prio"][j]
            cpu[m], mem[m], disk[m] = R["cpu"][j], R["mem"][j], R["disk"][j]
        else:
            B = _block(cfg, b)
            j = B["tj"][ev["tj"][m]]
            J = B["job"]
            user[m], sched[m], prio[m] = J["user"][j], J["sched"][j], J["prio"][j]
            cpu[m], mem[m], disk[m], diff[m] = J["cpu"][j], J["mem"][j], J["disk"][j], J["diff"][j]
    no_req = ev["mi"] == 2
    disk_txt, sci = sci_text(disk)
    text = _csv(
        {
            "time": ev["time"],
            "missing_info": _masked(ev["mi"], ev["mi"] < 0),
            "job_id": ev["job"],
            "task_index": ev["tidx"],
            "machine_id": _masked(MACHINE_ID0 + ev["mach"] * MACHINE_STRIDE, ev["mach"] < 0),
            "event_type": ev["type"],
            "user": _gather(pools["users"], user),
            "scheduling_class": sched,
            "priority": prio,
            "cpu_request": _masked(cpu, no_req),
            "memory_request": _masked(mem, no_req),
            "disk_space_request": _masked(disk_txt, no_req),
            "different_machines_restriction": _masked(diff, no_req),
        }
    )
    types = np.bincount(ev["type"], minlength=9)
    counts.update({f"event_type:{TASK_EVENT_TYPES[i]}": int(c) for i, c in enumerate(types)})
    counts.update({f"missing_info:{i}": int((ev["mi"] == i).sum()) for i in range(3)})
    counts["time:0"] = int((ev["time"] == 0).sum())
    counts["time:max"] = int((ev["time"] == MAX_TIME).sum())
    counts["machine_id:empty"] = int((ev["mach"] < 0).sum())
    counts["priority:production(9-11)"] = int((prio >= 9).sum())
    counts["scientific_notation:disk_space_request"] = sci - int((no_req & (disk < 1e-4) & (disk > 0)).sum())
    counts["rows"] = n
    return encode(piece, text, cfg, counts)


def _gather(pool: list[str], idx):
    import polars as pl

    return pl.Series(pool).gather(pl.Series(idx))


def job_events(cfg: Config, piece: Piece) -> Output:
    import numpy as np

    (k,) = piece.args
    rows = _SliceRows(cfg, k, ("time", "mi", "job", "type", "user", "sched", "name", "logical"))
    add = rows.add  # add(time, mi, job, type, user, sched, name, logical)
    for b, B in _blocks(cfg, k):
        J, nj = B["job"], B["nj"]
        et = B["et"]
        ej = B["tj"][et]
        first_sched = np.full(nj, MAX_TIME, np.int64)
        s = ~B["pending_kill"]
        np.minimum.at(first_sched, ej[s], B["sched"][s])
        job_end = np.zeros(nj, np.int64)
        np.maximum.at(job_end, ej, B["end"])
        # The job ends like its last-ending episode.
        order = np.lexsort((B["end"], ej))
        last_e = order[np.r_[np.flatnonzero(np.diff(ej[order])), ej.size - 1]]
        end_type = np.empty(nj, np.int64)
        end_type[ej[last_e]] = B["end_type"][last_e]
        none = np.full(nj, -1)
        gid = np.arange(nj) + b * 1_000_000  # name index: unique per job
        attrs = (J["user"], J["sched"], gid, J["logical"])
        add(J["submit"], none, J["id"], np.zeros(nj, np.int64), *attrs)
        has = first_sched < MAX_TIME
        add(
            first_sched[has],
            none[has],
            J["id"][has],
            np.ones(int(has.sum()), np.int64),
            *(a[has] for a in attrs),
        )
        add(job_end, none, J["id"], end_type, *attrs)
    R = _residents(cfg)
    if k == 0 and R["R"]:
        n = R["job_n"]
        z = np.zeros(n, np.int64)
        ids = JOB_ID0 + np.arange(n) * JOB_STRIDE
        attrs = (R["job_user"], R["job_sched"], -1 - np.arange(n), R["job_logical"])
        add(z, np.full(n, -1), ids, z, *attrs)
        add(z, np.full(n, -1), ids, z + 1, *attrs)
    ev = rows.arrays()
    order = _order(ev["time"], ev["job"])
    ev = {c: v[order] for c, v in ev.items()}
    pools = _pools(cfg.seed)
    names = hash_names(f"j{cfg.seed}/", ev["name"].tolist())
    text = _csv(
        {
            "time": ev["time"],
            "missing_info": _masked(ev["mi"], ev["mi"] < 0),
            "job_id": ev["job"],
            "event_type": ev["type"],
            "user": _gather(pools["users"], ev["user"]),
            "scheduling_class": ev["sched"],
            "job_name": names,
            "logical_job_name": _gather(pools["logical"], ev["logical"]),
        }
    )
    types = np.bincount(ev["type"], minlength=9)
    counts = {f"event_type:{TASK_EVENT_TYPES[i]}": int(c) for i, c in enumerate(types)}
    counts["rows"] = int(ev["time"].size)
    return encode(piece, text, cfg, counts)


# --------------------------------------------------------------------------- task_usage


def _usage_values(rng, req, ws) -> dict:
    """The 15 measured columns and aggregation_type of usage windows (cpu requests ``req``,
    window starts ``ws``) as the 2011 files write them: C's %.4g text, zeros where nothing was
    measured, empty CPI / MAI where the machine had no counters. The shares of zeros and repeats
    are a model (no real task_usage rows are at hand) that makes a part's gzip size the real
    trace's (see USAGE_*)."""
    import numpy as np

    n = ws.size
    idle = rng.random(n) < USAGE_IDLE_P  # no process in the container: CPU and I/O are 0
    busy = ~idle
    cpu = req * rng.beta(1.2, 3.0, n) * 1.5 * busy
    mem = np.clip(rng.gamma(1.5, 0.01, n), 0, 1)
    steady = rng.random(n) < USAGE_STEADY_P  # the window's maximum memory is its mean
    unmapped = rng.gamma(1.0, 2e-4, n) * (rng.random(n) >= USAGE_NO_UNMAPPED_P)
    cache = unmapped + rng.gamma(1.0, 1e-3, n) * (rng.random(n) >= USAGE_NO_CACHE_P)
    disk_on = busy & (ws < T0 + DISK_IO_DAYS * DAY) & (rng.random(n) >= USAGE_NO_DISK_IO_P)
    disk_io = rng.gamma(0.5, 1e-4, n) * disk_on
    no_cpi = idle | (rng.random(n) < USAGE_NO_CPI_P)
    full = rng.random(n) < 0.97
    values = {
        "cpu_rate": (cpu, None),
        "canonical_memory_usage": (mem, None),
        "assigned_memory_usage": (np.where(steady, mem, mem * rng.uniform(1.0, 1.3, n)), None),
        "unmapped_page_cache": (unmapped, None),
        "total_page_cache": (cache, None),
        "maximum_memory_usage": (np.where(steady, mem, mem * rng.uniform(1.0, 1.2, n)), None),
        "disk_io_time": (disk_io, None),
        "local_disk_space_usage": (rng.gamma(1.0, 5e-5, n) * (rng.random(n) >= USAGE_NO_DISK_P), None),
        "maximum_cpu_rate": (np.where(steady, cpu, cpu * rng.uniform(1.0, 4.0, n)), None),
        "maximum_disk_io_time": (disk_io * rng.uniform(1.0, 10.0, n), None),
        "cycles_per_instruction": (rng.gamma(4.0, 0.6, n), no_cpi),
        "memory_accesses_per_instruction": (rng.gamma(2.0, 0.004, n), no_cpi),
        "sample_portion": (np.where(full, 1.0, rng.random(n)), None),
    }
    columns, sci = {}, 0
    for name, (v, empty) in values.items():
        columns[name], k = g_text(v, empty)
        sci += k
    columns["aggregation_type"] = (rng.random(n) < AGGREGATED_P).astype(np.int8)
    # a random 1 s sample of a mostly idle task often sees no CPU at all
    sampled = cpu * rng.uniform(0.5, 1.5, n) * (rng.random(n) >= USAGE_SAMPLED_ZERO_P)
    columns["sampled_cpu_usage"], k = g_text(sampled)
    return {"columns": columns, "sci": sci + k, "cpi_empty": int(no_cpi.sum())}


def task_usage(cfg: Config, piece: Piece) -> Output:
    import numpy as np

    (k,) = piece.args
    lo, hi = _slice_bounds(cfg, k)
    rng = rng_for(cfg, "task_usage", k)
    parts_ = []
    for _, B in _blocks(cfg, k):
        s = ~B["pending_kill"]
        e_idx = np.flatnonzero(s)
        i, ws, we = windows(B["sched"][s], B["end"][s], lo, hi, T0, WINDOW)
        e = e_idx[i]
        et = B["et"][e]
        parts_.append(
            (ws, we, B["job"]["id"][B["tj"][et]], B["tidx"][et], B["mach"][e], B["job"]["cpu"][B["tj"][et]])
        )
    R = _residents(cfg)
    if R["R"]:
        end = np.where(R["ends"], R["end"], T_END)
        i, ws, we = windows(np.full(R["R"], T0), end, lo, hi, T0, WINDOW)
        j = (R["job_id"][i] - JOB_ID0) // JOB_STRIDE
        parts_.append((ws, we, R["job_id"][i], R["tidx"][i], R["mach"][i], R["cpu"][j]))
    ws, we, job, tidx, mach, req = (np.concatenate(c) for c in zip(*parts_, strict=True))
    order = _order(ws, job, tidx)
    ws, we, job, tidx, mach, req = ws[order], we[order], job[order], tidx[order], mach[order], req[order]
    n = ws.size
    u = _usage_values(rng, req, ws)
    text = _csv(
        {
            "start_time": ws,
            "end_time": we,
            "job_id": job,
            "task_index": tidx,
            "machine_id": MACHINE_ID0 + mach * MACHINE_STRIDE,
            **u["columns"],
        }
    )
    counts = {"rows": n, "cpi:empty": u["cpi_empty"], "scientific_notation": u["sci"]}
    return encode(piece, text, cfg, counts)


# --------------------------------------------------------------------------- task_constraints


def task_constraints(cfg: Config, piece: Piece) -> Output:
    import numpy as np

    (k,) = piece.args
    lo, hi = _slice_bounds(cfg, k)
    t, job, tidx = [], [], []
    for _, B in _blocks(cfg, k):
        et = B["et"]
        m = B["constrained"][et]
        sub = B["sub"][m]
        keep = (sub >= lo) & (sub < hi)
        t.append(sub[keep])
        job.append(B["job"]["id"][B["tj"][et[m]]][keep])
        tidx.append(B["tidx"][et[m]][keep])
    time, job_a, tidx_a = np.concatenate(t), np.concatenate(job), np.concatenate(tidx)
    rng = rng_for(cfg, "task_constraints", k)
    reps = rng.integers(1, 4, time.size)
    time, job_a, tidx_a = (np.repeat(x, reps) for x in (time, job_a, tidx_a))
    n = time.size
    op = rng.choice(4, n, p=[0.6, 0.2, 0.1, 0.1])
    name = rng.integers(0, ATTRIBUTE_NAMES, n)
    numeric = op >= 2
    empty = (~numeric) & (rng.random(n) < 0.08)  # compare with an absent attribute: ''
    pools = _pools(cfg.seed)
    value = _gather(pools["values"], rng.integers(0, 200, n)).to_list()
    nums = rng.integers(0, 16, n)
    value = [None if empty[i] else (str(nums[i]) if numeric[i] else value[i]) for i in range(n)]
    order = _order(time, job_a, tidx_a)
    text = _csv(
        {
            "time": time[order],
            "job_id": job_a[order],
            "task_index": tidx_a[order],
            "comparison_operator": op[order],
            "attribute_name": _gather(pools["attributes"], name[order]),
            "attribute_value": [value[i] for i in order],
        }
    )
    counts = {"rows": n, "attribute_value:empty": int(empty.sum())}
    counts.update({f"comparison_operator:{i}": int((op == i).sum()) for i in range(4)})
    return encode(piece, text, cfg, counts)


# --------------------------------------------------------------------------- machines


def machine_events(cfg: Config, piece: Piece) -> Output:
    import numpy as np

    rng = rng_for(cfg, "machine_events")
    M = machines(cfg)
    extra = max(0, round(PUBLISHED["machine_events"] * cfg.scale) - M)
    cap_cpu = rng.choice([0.25, 0.5, 1.0], M, p=[0.05, 0.8, 0.15])
    cap_mem = rng.choice([0.1241, 0.2493, 0.4995, 0.749, 1.0], M, p=[0.05, 0.3, 0.5, 0.1, 0.05])
    platform = rng.integers(0, 4, M)
    # After the time-0 ADD: REMOVE + re-ADD pairs (short outages) and UPDATEs.
    pairs = extra // 3
    upd = extra - 2 * pairs
    rm_m = rng.integers(0, M, pairs)
    rm_t = rng.integers(T0, T_END - 3_600_000_000, pairs)
    back = rm_t + rng.integers(60_000_000, 3_600_000_000, pairs)
    up_m = rng.integers(0, M, upd)
    up_t = rng.integers(T0, T_END, upd)
    m = np.concatenate([np.arange(M), rm_m, rm_m, up_m])
    t = np.concatenate([np.zeros(M, np.int64), rm_t, back, up_t])
    typ = np.concatenate([np.zeros(M, np.int64), np.ones(pairs, np.int64), np.zeros(pairs, np.int64),
                          np.full(upd, 2)])  # fmt: skip
    order = _order(t, m)
    m, t, typ = m[order], t[order], typ[order]
    no_cap = (typ != 1) & (rng.random(m.size) < NO_CAPACITY_P)
    removed = typ == 1  # REMOVE rows carry no capacity
    pools = _pools(cfg.seed)
    text = _csv(
        {
            "time": t,
            "machine_id": MACHINE_ID0 + m * MACHINE_STRIDE,
            "event_type": typ,
            "platform_id": _gather(pools["platforms"], platform[m]),
            "cpus": _masked(cap_cpu[m], no_cap | removed),
            "memory": _masked(cap_mem[m], no_cap | removed),
        }
    )
    counts = {"rows": int(m.size), "capacity:empty_on_add_or_update": int(no_cap.sum())}
    counts.update(
        {f"event_type:{n}": int((typ == i).sum()) for i, n in enumerate(("ADD", "REMOVE", "UPDATE"))}
    )
    return encode(piece, text, cfg, counts)


def machine_attributes(cfg: Config, piece: Piece) -> Output:
    import numpy as np

    rng = rng_for(cfg, "machine_attributes")
    M = machines(cfg)
    n0 = M * ATTRIBUTES_PER_MACHINE
    m = np.repeat(np.arange(M), ATTRIBUTES_PER_MACHINE)
    name = np.tile(np.arange(ATTRIBUTES_PER_MACHINE), M) * (ATTRIBUTE_NAMES // ATTRIBUTES_PER_MACHINE)
    t = np.zeros(n0, np.int64)
    # Later changes: 5% of the pairs change value, 1% are deleted.
    ch = rng.random(n0) < 0.06
    m = np.concatenate([m, m[ch]])
    name = np.concatenate([name, name[ch]])
    t = np.concatenate([t, rng.integers(T0, T_END, int(ch.sum()))])
    deleted = np.concatenate([np.zeros(n0, np.int8), (rng.random(int(ch.sum())) < 1 / 6).astype(np.int8)])
    order = _order(t, m, name)
    m, name, t, deleted = m[order], name[order], t[order], deleted[order]
    n = m.size
    numeric = (name % 3) == 0
    pools = _pools(cfg.seed)
    vals = _gather(pools["values"], rng.integers(0, 200, n)).to_list()
    nums = rng.integers(0, 16, n)
    value = [None if deleted[i] else (str(nums[i]) if numeric[i] else vals[i]) for i in range(n)]
    text = _csv(
        {
            "time": t,
            "machine_id": MACHINE_ID0 + m * MACHINE_STRIDE,
            "attribute_name": _gather(pools["attributes"], name),
            "attribute_value": value,
            "attribute_deleted": deleted,
        }
    )
    return encode(piece, text, cfg, {"rows": n, "deleted": int(deleted.sum())})


# The generator of each table, named as the table (tracewh.synth: a piece goes to its table's).
MAKERS = {
    f.__name__: f
    for f in (task_events, job_events, task_usage, task_constraints, machine_events, machine_attributes)
}
