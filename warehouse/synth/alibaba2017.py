"""Synthetic Alibaba cluster-trace-v2017 in its published form: one archive holding six tables.

The six headerless CSV members are generated as pieces (machines and jobs in chunks), then packed,
streamed, into ``alibaba-trace-2017.tar.gz`` under ``alibaba-trace-2017/`` and removed: the folder
holds what a download holds. The shapes follow the trace's documents (tracewh.traces.alibaba2017):
every machine added at 0, usage every 300 s, tasks whose instances run on the machines, a small
share of times before the trace (0 and negative), instances without job and task ids (the known
issue), not-started instances at 0. The sizes at scale 1 are model choices, not published counts,
except the machines (about 1.3k, README2017).
"""

from __future__ import annotations

import gzip
import os
import tarfile
from pathlib import Path

from tracewh.synth import Config, Output, Piece, encode, rng_for, split_evenly
from tracewh.traces import alibaba2017 as spec

NAME = spec.NAME
MACHINES = 1_300  # README2017: "about 1.3k machines"
JOBS = 12_000  # model choice: the documents state no job count
CONTAINERS_PER_MACHINE = 8  # model choice
DAY = 86_400
USAGE_STEP_S = 300
USAGE_WINDOW = (39_600, 82_800)  # 12 consecutive hours of usage (TRACE_DOC), placed in the day
MACHINE_CHUNK = 50  # machines per piece of the machine and container tables
JOB_CHUNK = 500  # jobs per piece of the batch tables
P_BEFORE = 0.001  # TRACE_DOC: "less than 0.1%" of batch_instance rows have negative times
P_NO_IDS = 0.002  # instances without job and task ids (known issue)
P_NOT_STARTED = 0.01  # Ready / Waiting instances: both times 0
MEMBER_FOLDER = "alibaba-trace-2017"


def config(*, scale, seed, tables, cells, level, form) -> Config:
    return Config(NAME, scale, seed, tuple(tables or spec.TABLES), (), level, "tar.gz")


def machines(cfg: Config) -> int:
    return max(4, round(MACHINES * cfg.scale))


def jobs(cfg: Config) -> int:
    return max(1, round(JOBS * cfg.scale))


def _chunks(total: int, size: int) -> int:
    return max(1, -(-total // size))


def plan(cfg: Config) -> list[Piece]:
    out = []
    for t in cfg.tables:
        n = _chunks(jobs(cfg), JOB_CHUNK) if t.startswith("batch_") else _chunks(machines(cfg), MACHINE_CHUNK)
        out += [Piece(spec.TABLES[t].member or t, t, i, n, (i, n), gzip=False) for i in range(n)]
    return out


def _first(total: int, n: int, i: int) -> int:
    return total * i // n


def make(cfg: Config, piece: Piece) -> Output:
    i, n = piece.args
    rng = rng_for(cfg, piece.table, i)
    lines: list[str] = []
    counts: dict[str, int] = {}
    if piece.table.startswith("batch_"):
        j0 = _first(jobs(cfg), n, i)
        _batch(cfg, i, j0, split_evenly(jobs(cfg), n, i), piece.table, lines, counts)
    else:
        m0 = _first(machines(cfg), n, i) + 1
        ms = range(m0, m0 + split_evenly(machines(cfg), n, i))
        _machine_table(cfg, rng, ms, piece.table, lines, counts)
    counts["rows"] = len(lines)
    return encode(piece, "".join(f"{line}\n" for line in lines).encode(), cfg, counts)


def _machine_table(cfg: Config, rng, ms: range, table: str, lines: list[str], counts: dict[str, int]) -> None:
    if table == "server_event":
        for m in ms:
            lines.append(f"0,{m},add,,64,0.6899697150103671,0.0582956077917545")
            if rng.random() < 0.02:
                t = int(rng.integers(1, DAY))
                kind, why = (
                    ("softerror", "agent failure") if rng.random() < 0.8 else ("harderror", "disk failure")
                )
                lines.append(f"{t},{m},{kind},{why},,,")
        counts["machines"] = len(ms)
        return
    if table == "server_usage":
        for m in ms:
            base = float(rng.uniform(10, 70))
            for t in range(USAGE_WINDOW[0], USAGE_WINDOW[1], USAGE_STEP_S):
                cpu = min(100.0, max(0.0, base + float(rng.normal(0, 5))))
                load = cpu * 0.64
                lines.append(
                    f"{t},{m},{cpu:.2f},{float(rng.uniform(50, 95)):.2f},{float(rng.uniform(30, 60)):.2f},"
                    f"{load:.2f},{load * 0.98:.2f},{load * 0.96:.2f}"
                )
        return
    first_container = (ms.start - 1) * CONTAINERS_PER_MACHINE + 1
    if table == "container_event":
        for k, m in enumerate(ms):
            for c in range(CONTAINERS_PER_MACHINE):
                cid = first_container + k * CONTAINERS_PER_MACHINE + c
                cpus = int(rng.choice([2, 4, 8]))
                cpuset = "|".join(f"{x}|{x + 32}" for x in range(2 * c % 32, 2 * c % 32 + cpus // 2))
                t = 0 if rng.random() < 0.9 else int(rng.integers(1, DAY))  # most existed before the trace
                lines.append(f"{t},Create,{cid},{m},{cpus},{cpus * 0.0115:.4f},0.0301,{cpuset}")
        return
    # container_usage: the 12 hours of usage, every 300 s, for each container of the machines
    for k in range(len(ms) * CONTAINERS_PER_MACHINE):
        cid = first_container + k
        for t in range(USAGE_WINDOW[0], USAGE_WINDOW[1], USAGE_STEP_S):
            cpu, mem = float(rng.uniform(1, 90)), float(rng.uniform(10, 90))
            lines.append(f"{t},{cid},{cpu:.2f},{mem:.2f},3.5,0.8,0.7,0.65,1.42,2.81,2.05,4.9")


def _batch(
    cfg: Config, i: int, j0: int, nj: int, table: str, lines: list[str], counts: dict[str, int]
) -> None:
    """The tasks of jobs j0+1 .. j0+nj, or their instances: the tasks are drawn alike for both
    tables (one stream, the same draws), the instances from a stream of their own."""
    rng, irng = rng_for(cfg, "tasks", i), rng_for(cfg, "instances", i)
    M = machines(cfg)
    tasks = instances = 0
    for j in range(j0 + 1, j0 + nj + 1):
        create = int(rng.integers(1, DAY - 7_200))
        for task in range(1, int(rng.integers(1, 6)) + 1):
            n = int(rng.integers(1, 20))
            run = int(rng.integers(10, 3_600))
            status = "Failed" if rng.random() < 0.02 else "Terminated"
            plan_cpu = int(rng.choice([50, 100, 200]))
            tasks += 1
            if table == "batch_task":
                lines.append(
                    f"{create},{create + run},{j},{task},{n},{status},{plan_cpu},{plan_cpu * 0.000092:.4f}"
                )
                continue
            for _ in range(n):
                instances += 1
                m = int(irng.integers(1, M + 1))
                if irng.random() < P_NOT_STARTED:
                    lines.append(f"0,0,{j},{task},{m},Waiting,1,1,,,,")
                    continue
                start = create + int(irng.integers(0, max(1, run // 2)))
                if irng.random() < P_BEFORE:
                    start = -int(irng.integers(1, 600))
                end = max(start + 1, create + run - int(irng.integers(0, max(1, run // 4))))
                ids = "," if irng.random() < P_NO_IDS else f"{j},{task}"  # two empty fields
                cpu = float(irng.uniform(0.1, 2.0))
                lines.append(f"{start},{end},{ids},{m},{status},1,1,{cpu * 1.4:.2f},{cpu:.2f},0.0090,0.0070")
    counts["jobs"] = nj
    counts["tasks" if table == "batch_task" else "instances"] = tasks if table == "batch_task" else instances


def frame(cfg: Config, piece: Piece, size: int) -> tuple[bytes, bytes]:
    return b"", b""


def finish(cfg: Config, out: Path, files: dict) -> None:
    """The members into the one archive, as published (streamed: never two copies in memory), then
    the loose members removed; each member's record says which archive holds it."""
    import hashlib

    archive = out / spec.ARCHIVE
    tmp = archive.with_name(archive.name + ".tmp")
    members = [rel for rel in sorted(files) if files[rel].get("table")]
    # The gzip header without a time or a file name (tarfile's "w:gz" writes both): the same seed
    # gives the same archive bytes, so its digest in the manifest holds from run to run.
    with (
        open(tmp, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", compresslevel=cfg.level, fileobj=raw, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.USTAR_FORMAT) as tar,
    ):
        for rel in members:
            info = tar.gettarinfo(out / rel, arcname=f"{MEMBER_FOLDER}/{rel}")
            info.mtime, info.uid, info.gid, info.uname, info.gname, info.mode = 0, 0, 0, "", "", 0o644
            with open(out / rel, "rb") as fh:
                tar.addfile(info, fh)
    os.replace(tmp, archive)
    sha = hashlib.sha256()
    with open(archive, "rb") as fh:
        while chunk := fh.read(1 << 20):
            sha.update(chunk)
    for rel in members:
        (out / rel).unlink()
        files[rel]["member_of"] = spec.ARCHIVE
    size = archive.stat().st_size
    files[spec.ARCHIVE] = {
        "table": None,
        "rows": 0,
        "bytes": size,
        "file_bytes": size,
        "sha256": sha.hexdigest(),
    }


def summary(cfg: Config, counts: dict) -> dict:
    return {
        "model": {"machines": machines(cfg), "jobs": jobs(cfg)},
        "entities": {
            "jobs": counts.get("batch_task", {}).get("jobs", 0),
            "tasks": counts.get("batch_task", {}).get("tasks", 0),
            "instances": counts.get("batch_instance", {}).get("instances", 0),
            "machines": machines(cfg),
        },
    }
