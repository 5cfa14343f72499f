"""Ingest benchmark for google2019 JSON shards: tracewh vs naive polars vs pandas vs the gzip floor.

Usage (from the project root):

    .venv/bin/python bench/bench_google2019.py [--sizes 1100,2200] [--shard-mb 180]
        [--small-shard-mb 45] [--sweep 45,180,720] [--repeat 2]

What it does, in one run:

1. Generates synthetic shards in the export's layout
   (``<work>/g2019_<size>[_s<shard_mb>]/clusterdata_2019_{a,b}/<table>-NNNNNNNNNNNN.json.gz``,
   newline-delimited JSON, gzip level 6, fixed seeds) with the export's encodings: 64-bit ints
   and enum codes as JSON strings (about 5% of the lines as JSON numbers), default values as
   absent fields (no ``type`` for SUBMIT, no ``machine_id`` when not on a machine), a few explicit
   nulls, nested ``resource_request`` / ``average_usage`` / ``maximum_usage`` structs,
   ``constraint`` lists of 0-3 items, ``cpu_usage_distribution`` of 11 floats and a tail of 9.
   instance_usage and instance_events get shards of ``--shard-mb`` MB (uncompressed) each; every
   cell also gets one collection_events and one machine_events shard. Shards are generated once
   into ``<work>/g2019_pool_s<shard_mb>/`` (keyed by cell, table, shard number and shard size, so
   the smaller input is a subset of the larger one) and hard-linked into each input folder. Line
   counts and a few value checksums are recorded while generating.
2. For each input, in fresh subprocesses under ``/usr/bin/time`` (helpers of bench_ingest.py,
   which also wait for a quiet machine before each measurement): the gzip floor, ``tracewh
   ingest google2019`` (row counts and value checksums checked against the generator's), a naive
   polars conversion (``pl.read_ndjson`` + ``write_parquet`` per shard) and a naive pandas one
   (``pd.read_json(lines=True)`` + ``to_parquet`` per shard).
3. Memory sweep: one instance_usage shard of each ``--sweep`` size through ``tracewh ingest
   --workers 1``, and the same COPY (tracewh's reader SQL) with and without ``PARTITION_BY (day)``.
4. Prints a markdown table and appends its section to ``bench/RESULTS.md`` (``--results``; a re-run
   replaces only this section). Raw runs go to ``<work>/g2019_results.json``; ``--render`` rewrites
   the section from that file without measuring.

The generator needs numpy and polars (imported in its worker processes only).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_ingest as bi

ROOT = bi.ROOT
VENV_PY = bi.VENV_PY
TRACEWH = bi.TRACEWH
log = bi.log
Run = bi.Run

GEN_VERSION = 1  # bump when the generated shards change, to invalidate the cache
CELLS = ("a", "b")
BIG_TABLES = ("instance_usage", "instance_events")
SMALL_TABLES = ("collection_events", "machine_events")
ALL_TABLES = (*BIG_TABLES, *SMALL_TABLES)
USAGE_SHARE = 2 / 3  # of the big-table shards per cell, the rest are instance_events
COLLECTION_MB = 15  # one collection_events shard per cell (uncompressed)
MACHINES = 12_000  # machines per cell (one machine_events shard)
NUMBER_SHARE = 0.05  # lines whose 64-bit ints / enum codes are JSON numbers instead of strings
CHUNK_ROWS = 50_000  # rows per generated chunk (fewer for the last chunk of a shard)

T0 = 600_000_000  # trace start: 600 s in microseconds
DAY = 86_400_000_000
DAYS = 31
MAX_TIME = 2**63 - 1
SHARD_DAYS = 2  # each instance shard holds ~2 consecutive trace days (plus special times)

# Checksums per table, computed by the generator and by DuckDB over tracewh's Parquet: they catch
# values read as NULL (e.g. a number where a string was expected) even when the row counts agree.
CHECKS = {
    "instance_events": {
        "rows": "count(*)",
        "type_sum": "sum(coalesce(type, 0))",
        "machine_ids": "count(machine_id) FILTER (WHERE machine_id <> 0)",
        "instance_index_sum": "sum(coalesce(instance_index, 0))",
        "time0": "count(*) FILTER (WHERE time = 0)",
        "time_max": f"count(*) FILTER (WHERE time = {MAX_TIME})",
        "constraint_items": 'sum(coalesce(len("constraint"), 0))',
        "requests": "count(resource_request.cpus)",
    },
    "instance_usage": {
        "rows": "count(*)",
        "machine_ids": "count(machine_id) FILTER (WHERE machine_id <> 0)",
        "instance_index_sum": "sum(coalesce(instance_index, 0))",
        "dist_values": "sum(coalesce(len(cpu_usage_distribution), 0))",
        "tail_values": "sum(coalesce(len(tail_cpu_usage_distribution), 0))",
        "cpi": "count(cycles_per_instruction)",
        "max_mem": "count(maximum_usage.memory)",
        "random_sample": "count(random_sample_usage.cpus)",
    },
    "collection_events": {"rows": "count(*)", "type_sum": "sum(coalesce(type, 0))"},
    "machine_events": {"rows": "count(*)", "capacities": "count(capacity.cpus)"},
}

# pandas runs on an input only when its time, projected from its run on the smaller input, stays
# under this (it needs minutes per GB).
PANDAS_MAX_S_DEFAULT = 180.0


# --------------------------------------------------------------------------- the generator


def _seed(cell: str, table: str, shard: int, shard_mb: int) -> int:
    return zlib.crc32(f"g2019/v{GEN_VERSION}/{cell}/{table}/{shard}/{shard_mb}".encode())


def _hashes(rng, n: int) -> list[str]:
    """Base64 of 32 random bytes, like the export's hashed names (44 characters)."""
    raw = rng.integers(0, 256, size=(n, 32), dtype="uint8")
    return [base64.b64encode(bytes(r)).decode() for r in raw]


def _frag(pl, name: str, value, q=None, present=None):
    """``,"name":<q>value<q>`` (q: per-row quote column, '"' or ''); NULL (= absent) where not present."""
    parts = [pl.lit(f',"{name}":')]
    parts += [q, value, q] if q is not None else [value]
    e = pl.concat_str(parts)
    return e if present is None else pl.when(present).then(e)


def _struct(pl, fields: list[tuple[str, object]]):
    inner = []
    for i, (name, value) in enumerate(fields):
        inner += [pl.lit(("," if i else "") + f'"{name}":'), value]
    return pl.concat_str([pl.lit("{"), *inner, pl.lit("}")])


def _floats(pl, col: str):
    return pl.col(col).cast(pl.String)


def _round_random(np, rng, x, digits=None):
    """Round values to 3..8 decimals (the export mixes short values and full doubles); one number of
    digits per row when given (rounding a sorted row alike keeps it sorted)."""
    if digits is None:
        digits = rng.integers(3, 9, size=x.shape[0])
    out = x.copy()
    for d in range(3, 9):
        m = digits == d
        out[m] = np.round(x[m], d)
    return out


def _time_column(np, rng, n: int, shard: int, special: bool):
    """Times of one shard: ~SHARD_DAYS consecutive days (sorted), some 0 and 2^63-1 when special."""
    start = T0 + ((shard * SHARD_DAYS) % DAYS) * DAY
    t = np.sort(rng.integers(start, start + SHARD_DAYS * DAY, size=n, dtype=np.int64))
    if special:
        t[rng.random(n) < 0.03] = 0
        t[rng.random(n) < 0.0005] = MAX_TIME
    return t


def _chunk_instance_events(pl, np, rng, n: int, shard: int, state: dict, hashes: list[str]):
    types = rng.choice(
        np.arange(11),
        size=n,
        p=[0.25, 0.03, 0.2, 0.25, 0.02, 0.03, 0.12, 0.08, 0.001, 0.005, 0.014],
    )
    on_machine = np.isin(types, [3, 4, 5, 6, 7, 8, 10])
    new_job = rng.random(n) < 0.05
    job = state["job"] + np.cumsum(new_job)
    state["job"] = int(job[-1])
    cid = 375_000_000_000 + job * 7919
    prio_choices = np.array([0, 25, 100, 103, 107, 115, 119, 200, 200, 200, 360])
    prio = prio_choices[(job * 2654435761) % len(prio_choices)]
    con_pool = state["constraint_pool"]
    df = pl.DataFrame(
        {
            "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
            "time": _time_column(np, rng, n, shard, True),
            "type": types,
            "cid": cid,
            "sc": (job * 40503) % 4,
            "mt": rng.integers(1, 6, size=n),
            "has_mt": rng.random(n) < 0.01,
            "ct1": rng.random(n) < 0.03,
            "prio": prio,
            "aci": 375_000_000_000 + rng.integers(0, 10**6, size=n) * 7919,
            "has_aci": rng.random(n) < 0.05,
            "idx": rng.integers(0, 2000, size=n) * (rng.random(n) < 0.9),
            "mid": rng.integers(1, 400_000_000_000, size=n),
            "dedicated": rng.random(n) < 0.001,
            "on_machine": on_machine,
            "null_mid": (~on_machine) & (rng.random(n) < 0.02),
            "aii": rng.random(n) < 0.3,
            "cpus": _round_random(np, rng, rng.gamma(1.0, 0.02, size=n)),
            "mem": _round_random(np, rng, rng.gamma(1.0, 0.01, size=n)),
            "has_req": rng.random(n) < 0.97,
            "con": rng.integers(0, len(con_pool), size=n),
            "con_kind": rng.random(n),
        }
    )
    c, q = pl.col, pl.col("q")
    mid = pl.when(c("dedicated")).then(pl.lit("-1")).otherwise(c("mid").cast(pl.String))
    line = pl.concat_str(
        [
            pl.lit('{"time":'),
            q,
            c("time").cast(pl.String),
            q,
            _frag(pl, "type", c("type").cast(pl.String), q, c("type") != 0),
            _frag(pl, "collection_id", c("cid").cast(pl.String), q),
            _frag(pl, "scheduling_class", c("sc").cast(pl.String), q, c("sc") != 0),
            _frag(pl, "missing_type", c("mt").cast(pl.String), q, c("has_mt")),
            _frag(pl, "collection_type", pl.lit("1"), q, c("ct1")),
            _frag(pl, "priority", c("prio").cast(pl.String), q, c("prio") != 0),
            _frag(pl, "alloc_collection_id", c("aci").cast(pl.String), q, c("has_aci")),
            _frag(pl, "instance_index", c("idx").cast(pl.String), q, c("idx") != 0),
            _frag(pl, "machine_id", mid, q, c("on_machine")),
            _frag(pl, "machine_id", pl.lit("null"), None, c("null_mid")),
            _frag(pl, "alloc_instance_index", pl.lit("-1"), q, c("aii")),
            _frag(
                pl,
                "resource_request",
                _struct(pl, [("cpus", _floats(pl, "cpus")), ("memory", _floats(pl, "mem"))]),
                None,
                c("has_req"),
            ),
            # 70% absent, 10% [], 20% a list of 1-3 constraints from a pool.
            _frag(pl, "constraint", pl.lit("[]"), None, (c("con_kind") >= 0.7) & (c("con_kind") < 0.8)),
            _frag(
                pl,
                "constraint",
                pl.lit(pl.Series(con_pool)).gather(c("con")),
                None,
                c("con_kind") >= 0.8,
            ),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    con_items = np.array([s.count("{") for s in con_pool])
    k = df["con_kind"].to_numpy()
    sums = {
        "rows": n,
        "type_sum": int(types.sum()),
        "machine_ids": int(on_machine.sum()),
        "instance_index_sum": int(df["idx"].sum()),
        "time0": int((df["time"] == 0).sum()),
        "time_max": int((df["time"] == MAX_TIME).sum()),
        "constraint_items": int(con_items[df["con"].to_numpy()][k >= 0.8].sum()),
        "requests": int(df["has_req"].sum()),
    }
    return df.select(line.alias("l")), sums


def _chunk_instance_usage(pl, np, rng, n: int, shard: int, state: dict, hashes: list[str]):
    new_job = rng.random(n) < 0.02
    job = state["job"] + np.cumsum(new_job)
    state["job"] = int(job[-1])
    start = _time_column(np, rng, n, shard, False) // 300_000_000 * 300_000_000
    length = np.where(rng.random(n) < 0.9, 300_000_000, rng.integers(1_000_000, 300_000_000, size=n))
    avg_cpu = rng.gamma(0.6, 0.01, size=n)
    max_cpu = avg_cpu * (1 + rng.gamma(1.0, 1.0, size=n))
    dist = np.sort(rng.random((n, 11)), axis=1) * max_cpu[:, None]
    tail = np.sort(rng.random((n, 9)), axis=1) * (max_cpu[:, None] - dist[:, 9:10]) + dist[:, 9:10]
    has_dist = rng.random(n) < 0.95
    data = {
        "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
        "st": start,
        "et": start + length,
        "cid": 375_000_000_000 + job * 7919,
        "idx": rng.integers(0, 2000, size=n) * (rng.random(n) < 0.9),
        "mid": rng.integers(1, 400_000_000_000, size=n),
        "aci": 375_000_000_000 + rng.integers(0, 10**6, size=n) * 7919,
        "has_aci": rng.random(n) < 0.05,
        "aii": rng.random(n) < 0.3,
        "ct1": rng.random(n) < 0.03,
        "ac": _round_random(np, rng, avg_cpu),
        "am": _round_random(np, rng, rng.gamma(1.0, 0.005, size=n)),
        "mc": _round_random(np, rng, max_cpu),
        "mm": _round_random(np, rng, rng.gamma(1.0, 0.006, size=n)),
        "has_mm": rng.random(n) < 0.98,
        "rc": _round_random(np, rng, avg_cpu * rng.random(n) * 2),
        "has_rs": rng.random(n) < 0.9,
        "alias_rs": rng.random(n) < 0.01,
        "asm": _round_random(np, rng, rng.gamma(1.0, 0.01, size=n)),
        "pcm": _round_random(np, rng, rng.gamma(1.0, 0.001, size=n)),
        "cpi": rng.gamma(4.0, 0.5, size=n),
        "has_cpi": rng.random(n) < 0.8,
        "null_cpi": rng.random(n) < 0.02,
        "mai": rng.gamma(1.0, 0.005, size=n),
        "sr": np.where(rng.random(n) < 0.9, 1.0, np.round(rng.random(n), 4)),
        "has_dist": has_dist,
    }
    digits = rng.integers(3, 9, size=n)
    dist, tail = _round_random(np, rng, dist, digits), _round_random(np, rng, tail, digits)
    for i in range(11):
        data[f"d{i}"] = dist[:, i]
    for i in range(9):
        data[f"t{i}"] = tail[:, i]
    df = pl.DataFrame(data)
    c, q = pl.col, pl.col("q")
    dist_parts, tail_parts = [], []
    for i in range(11):
        dist_parts += [pl.lit("," if i else "["), _floats(pl, f"d{i}")]
    for i in range(9):
        tail_parts += [pl.lit("," if i else "["), _floats(pl, f"t{i}")]
    usage = _struct(pl, [("cpus", _floats(pl, "ac")), ("memory", _floats(pl, "am"))])
    maximum = pl.when(c("has_mm")).then(
        _struct(pl, [("cpus", _floats(pl, "mc")), ("memory", _floats(pl, "mm"))])
    )
    maximum = maximum.otherwise(_struct(pl, [("cpus", _floats(pl, "mc"))]))
    sample = _struct(pl, [("cpus", _floats(pl, "rc"))])
    line = pl.concat_str(
        [
            pl.lit('{"start_time":'),
            q,
            c("st").cast(pl.String),
            q,
            _frag(pl, "end_time", c("et").cast(pl.String), q),
            _frag(pl, "collection_id", c("cid").cast(pl.String), q),
            _frag(pl, "instance_index", c("idx").cast(pl.String), q, c("idx") != 0),
            _frag(pl, "machine_id", c("mid").cast(pl.String), q),
            _frag(pl, "alloc_collection_id", c("aci").cast(pl.String), q, c("has_aci")),
            _frag(pl, "alloc_instance_index", pl.lit("-1"), q, c("aii")),
            _frag(pl, "collection_type", pl.lit("1"), q, c("ct1")),
            _frag(pl, "average_usage", usage),
            _frag(pl, "maximum_usage", maximum),
            _frag(pl, "random_sample_usage", sample, None, c("has_rs") & ~c("alias_rs")),
            _frag(pl, "random_sampled_usage", sample, None, c("has_rs") & c("alias_rs")),
            _frag(pl, "assigned_memory", _floats(pl, "asm")),
            _frag(pl, "page_cache_memory", _floats(pl, "pcm")),
            _frag(pl, "cycles_per_instruction", _floats(pl, "cpi"), None, c("has_cpi") & ~c("null_cpi")),
            _frag(pl, "cycles_per_instruction", pl.lit("null"), None, c("null_cpi")),
            _frag(pl, "memory_accesses_per_instruction", _floats(pl, "mai"), None, c("has_cpi")),
            _frag(pl, "sample_rate", _floats(pl, "sr")),
            _frag(
                pl, "cpu_usage_distribution", pl.concat_str([*dist_parts, pl.lit("]")]), None, c("has_dist")
            ),
            _frag(
                pl,
                "tail_cpu_usage_distribution",
                pl.concat_str([*tail_parts, pl.lit("]")]),
                None,
                c("has_dist"),
            ),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    has_cpi = df["has_cpi"].to_numpy() & ~df["null_cpi"].to_numpy()
    sums = {
        "rows": n,
        "machine_ids": n,
        "instance_index_sum": int(df["idx"].sum()),
        "dist_values": int(has_dist.sum()) * 11,
        "tail_values": int(has_dist.sum()) * 9,
        "cpi": int(has_cpi.sum()),
        "max_mem": int(df["has_mm"].sum()),
        "random_sample": int(df["has_rs"].sum()),
    }
    return df.select(line.alias("l")), sums


def _chunk_collection_events(pl, np, rng, n: int, shard: int, state: dict, hashes: list[str]):
    types = rng.choice(np.arange(11), size=n, p=[0.3, 0.02, 0.2, 0.25, 0.01, 0.02, 0.1, 0.09, 0, 0, 0.01])
    job = state["job"] + np.arange(n) // 3
    state["job"] = int(job[-1]) + 1
    cid = 375_000_000_000 + job * 7919
    hsh = np.array(hashes)
    df = pl.DataFrame(
        {
            "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
            "time": _time_column(np, rng, n, shard, True),
            "type": types,
            "cid": cid,
            "sc": (job * 40503) % 4,
            "prio": np.array([0, 25, 100, 103, 115, 119, 200, 360])[(job * 2654435761) % 8],
            "ct1": rng.random(n) < 0.03,
            "u": hsh[rng.integers(0, 500, size=n)],
            "nm": hsh[rng.integers(0, len(hashes), size=n)],
            "lnm": hsh[rng.integers(0, len(hashes), size=n)],
            "parent": cid - 7919 * rng.integers(1, 50, size=n),
            "has_parent": rng.random(n) < 0.1,
            "has_after": rng.random(n) < 0.03,
            "mpm": rng.integers(1, 5, size=n),
            "has_mpm": rng.random(n) < 0.05,
            "vs": rng.integers(1, 4, size=n),
            "has_vs": rng.random(n) < 0.6,
            "sched1": rng.random(n) < 0.2,
        }
    )
    c, q = pl.col, pl.col("q")
    # Lists always hold strings: a list mixing "1" and 1 makes pyarrow (pandas' to_parquet) fail.
    after = pl.concat_str([pl.lit('["'), c("parent").cast(pl.String), pl.lit('"]')])
    line = pl.concat_str(
        [
            pl.lit('{"time":'),
            q,
            c("time").cast(pl.String),
            q,
            _frag(pl, "type", c("type").cast(pl.String), q, c("type") != 0),
            _frag(pl, "collection_id", c("cid").cast(pl.String), q),
            _frag(pl, "scheduling_class", c("sc").cast(pl.String), q, c("sc") != 0),
            _frag(pl, "collection_type", pl.lit("1"), q, c("ct1")),
            _frag(pl, "priority", c("prio").cast(pl.String), q, c("prio") != 0),
            _frag(pl, "user", pl.concat_str([pl.lit('"'), c("u"), pl.lit('"')])),
            _frag(pl, "collection_name", pl.concat_str([pl.lit('"'), c("nm"), pl.lit('"')])),
            _frag(
                pl,
                "collection_logical_name",
                pl.concat_str([pl.lit('"'), c("lnm"), pl.lit('"')]),
            ),
            _frag(pl, "parent_collection_id", c("parent").cast(pl.String), q, c("has_parent")),
            _frag(pl, "start_after_collection_ids", after, None, c("has_after")),
            _frag(pl, "max_per_machine", c("mpm").cast(pl.String), q, c("has_mpm")),
            _frag(pl, "vertical_scaling", c("vs").cast(pl.String), q, c("has_vs")),
            _frag(pl, "scheduler", pl.lit("1"), q, c("sched1")),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    return df.select(line.alias("l")), {"rows": n, "type_sum": int(types.sum())}


def _machine_events(pl, np, rng, hashes: list[str]):
    """ADD at time 0 for every machine (0.3% without capacity), then REMOVE / ADD / UPDATE events."""
    n_later = MACHINES // 2
    mids = rng.integers(1, 400_000_000_000, size=MACHINES)
    mid = np.concatenate([mids, rng.choice(mids, size=n_later)])
    n = len(mid)
    typ = np.concatenate([np.ones(MACHINES, dtype=np.int64), rng.choice([1, 2, 3], size=n_later)])
    t = np.concatenate(
        [np.zeros(MACHINES, dtype=np.int64), np.sort(rng.integers(T0, T0 + DAYS * DAY, size=n_later))]
    )
    cap = rng.random(n) >= 0.003
    df = pl.DataFrame(
        {
            "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
            "time": t,
            "mid": mid,
            "type": typ,
            "sw": np.array(hashes)[rng.integers(0, 600, size=n)],
            "pf": np.array(hashes)[rng.integers(0, 8, size=n)],
            "cpus": rng.choice([0.25, 0.5, 1.0], size=n),
            "mem": rng.choice([0.1241, 0.2493, 0.4995, 0.749, 1.0], size=n),
            "cap": cap,
            "mdr": rng.random(n) < 0.01,
        }
    )
    c, q = pl.col, pl.col("q")
    line = pl.concat_str(
        [
            pl.lit("{"),
            pl.when(c("time") != 0).then(
                pl.concat_str([pl.lit('"time":'), q, c("time").cast(pl.String), q, pl.lit(",")])
            ),
            pl.concat_str([pl.lit('"machine_id":'), q, c("mid").cast(pl.String), q]),
            _frag(pl, "type", c("type").cast(pl.String), q),
            _frag(pl, "switch_id", pl.concat_str([pl.lit('"'), c("sw"), pl.lit('"')])),
            _frag(
                pl,
                "capacity",
                _struct(pl, [("cpus", _floats(pl, "cpus")), ("memory", _floats(pl, "mem"))]),
                None,
                c("cap") & (c("type") != 2),
            ),
            _frag(pl, "platform_id", pl.concat_str([pl.lit('"'), c("pf"), pl.lit('"')])),
            _frag(pl, "missing_data_reason", pl.lit("1"), q, c("mdr")),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    sums = {"rows": n, "capacities": int((cap & (typ != 2)).sum())}
    return df.select(line.alias("l")), sums


CHUNKERS = {
    "instance_events": _chunk_instance_events,
    "instance_usage": _chunk_instance_usage,
    "collection_events": _chunk_collection_events,
}


def _lines_bytes(frame) -> bytes:
    buf = io.BytesIO()
    frame.write_csv(buf, include_header=False, quote_style="never")
    return buf.getvalue()


def make_shard(job: tuple[str, str, int, int, str]) -> dict:
    """Write one shard (gzip level 6); return its line count, sizes and value checksums."""
    import numpy as np
    import polars as pl

    cell, table, shard, shard_mb, dst = job
    rng = np.random.default_rng(_seed(cell, table, shard, shard_mb))
    hashes = _hashes(rng, 4096)
    # Each shard's collection ids start at its own offset, so shards never share a job.
    state = {"job": (CELLS.index(cell) * 1000 + shard) * 10**7}
    if table == "instance_events":
        pool = []
        relations = [0, 1, 2, 3, 4, 5, 6, 7]
        for _ in range(256):
            items = []
            for _ in range(int(rng.integers(1, 4))):
                rel = int(rng.choice(relations))
                name = hashes[int(rng.integers(0, 64))]
                # Always a string: a list mixing "3" and 3 makes pyarrow (pandas' to_parquet) fail.
                rel_txt = f'"{rel}"'
                if rel in (6, 7):
                    items.append(f'{{"name":"{name}","relation":{rel_txt}}}')
                else:
                    items.append(
                        f'{{"name":"{name}","value":"{int(rng.integers(0, 9))}","relation":{rel_txt}}}'
                    )
            pool.append("[" + ",".join(items) + "]")
        state["constraint_pool"] = pool
    target = (COLLECTION_MB if table == "collection_events" else shard_mb) * 1_000_000
    tmp = Path(dst + ".tmp")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    total: dict[str, int] = {}
    size = lines = 0
    rows = CHUNK_ROWS
    with (
        open(tmp, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz,
    ):
        while size < target:
            if table == "machine_events":
                frame, sums = _machine_events(pl, np, rng, hashes)
            else:
                frame, sums = CHUNKERS[table](pl, np, rng, rows, shard, state, hashes)
            data = _lines_bytes(frame)
            gz.write(data)
            size += len(data)
            lines += data.count(b"\n")
            # Size the next chunk to end near the target (bytes per line of this chunk).
            rows = max(1000, min(CHUNK_ROWS, -(-(target - size) * sums["rows"] // len(data))))
            for k, v in sums.items():
                total[k] = total.get(k, 0) + v
            if table == "machine_events":
                break
    if lines != total["rows"]:
        raise RuntimeError(f"{dst}: wrote {lines} lines for {total['rows']} rows")
    os.replace(tmp, dst)
    return {
        "cell": cell,
        "table": table,
        "shard": shard,
        "lines": lines,
        "bytes": size,
        "gz_bytes": Path(dst).stat().st_size,
        "sums": total,
    }


@dataclass
class Inputs:
    key: str  # g2019_<size>[_s<shard_mb>]
    size_mb: int  # target
    shard_mb: int
    folder: Path
    files: list[Path]
    lines: dict[str, int]  # per table
    json_bytes: int
    gz_bytes: int
    sums: dict[str, dict[str, int]]
    table_bytes: dict[str, int]  # uncompressed JSON per table

    @property
    def rows(self) -> int:
        return sum(self.lines.values())

    @property
    def label(self) -> str:
        return f"{self.json_bytes / 1e6:,.0f} MB, {self.rows / 1e6:.2f} M rows, {len(self.files)} shards"


def shard_plan(size_mb: int, shard_mb: int) -> list[tuple[str, str, int]]:
    """(cell, table, shard number) for an input of about size_mb MB of uncompressed JSON."""
    fixed = COLLECTION_MB + 3  # collection_events + machine_events (~3 MB) per cell
    per_cell = max(1, round((size_mb / len(CELLS) - fixed) / shard_mb))
    n_usage = max(1, round(per_cell * USAGE_SHARE))
    n_events = max(1, per_cell - n_usage)
    plan = []
    for cell in CELLS:
        plan += [(cell, "instance_usage", i) for i in range(n_usage)]
        plan += [(cell, "instance_events", i) for i in range(n_events)]
        plan += [(cell, "collection_events", 0), (cell, "machine_events", 0)]
    return plan


def _shard_rel(cell: str, table: str, shard: int) -> str:
    return f"clusterdata_2019_{cell}/{table}-{shard:012d}.json.gz"


def build_inputs(work: Path, size_mb: int, shard_mb: int, default_shard_mb: int, procs: int) -> Inputs:
    key = f"g2019_{size_mb}" + ("" if shard_mb == default_shard_mb else f"_s{shard_mb}")
    folder = work / key
    pool = work / f"g2019_pool_s{shard_mb}"
    pool_manifest = pool / "manifest.json"
    cache: dict = {}
    if pool_manifest.is_file():
        pm = json.loads(pool_manifest.read_text())
        if pm.get("version") == GEN_VERSION:
            cache = pm["shards"]
    plan = shard_plan(size_mb, shard_mb)
    todo = [
        (c, t, i, shard_mb, str(pool / _shard_rel(c, t, i)))
        for c, t, i in plan
        if _shard_rel(c, t, i) not in cache or not (pool / _shard_rel(c, t, i)).is_file()
    ]
    if todo:
        log(f"{key}: generating {len(todo)} shards into {pool} ({procs} processes)")
        t0 = time.perf_counter()
        # Biggest first: the pool's two processes finish together.
        todo.sort(key=lambda j: j[1] not in BIG_TABLES)
        with ProcessPoolExecutor(procs) as ex:
            for r in ex.map(make_shard, todo):
                cache[_shard_rel(r["cell"], r["table"], r["shard"])] = r
                pool_manifest.write_text(json.dumps({"version": GEN_VERSION, "shards": cache}, indent=0))
        mb = sum(cache[_shard_rel(c, t, i)]["bytes"] for c, t, i, _, _ in todo) / 1e6
        dt = time.perf_counter() - t0
        log(f"{key}: generated {mb:.0f} MB of JSON in {dt:.1f} s ({mb / dt:.0f} MB/s)")
    else:
        log(f"{key}: shards cached in {pool}")
    shutil.rmtree(folder, ignore_errors=True)
    files: list[Path] = []
    lines = dict.fromkeys(ALL_TABLES, 0)
    sums: dict[str, dict[str, int]] = {t: {} for t in ALL_TABLES}
    table_bytes = dict.fromkeys(ALL_TABLES, 0)
    json_bytes = gz_bytes = 0
    for c, t, i in plan:
        rel = _shard_rel(c, t, i)
        dst = folder / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(pool / rel, dst)
        except OSError:
            shutil.copy2(pool / rel, dst)
        files.append(dst)
        m = cache[rel]
        lines[t] += m["lines"]
        json_bytes += m["bytes"]
        table_bytes[t] += m["bytes"]
        gz_bytes += m["gz_bytes"]
        for k, v in m["sums"].items():
            sums[t][k] = sums[t].get(k, 0) + v
    return Inputs(key, size_mb, shard_mb, folder, files, lines, json_bytes, gz_bytes, sums, table_bytes)


# --------------------------------------------------------------------------- measuring

CATALOG_CHECK = r"""
import duckdb, glob, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
checks = json.loads(sys.argv[2])
out = {"tables": dict(con.execute(
    "SELECT table_name, rows FROM meta.tables WHERE trace = 'google2019'").fetchall())}
out["ingests"] = con.execute(
    "SELECT table_name, count(*), sum(rows_read), sum(rows_written), sum(rows_rejected), "
    "sum(epoch(finished - started)), epoch(max(finished) - min(started)) "
    "FROM meta.ingests WHERE trace = 'google2019' AND is_current GROUP BY ALL").fetchall()
out["files"] = con.execute("SELECT table_name, files, partitions, bytes FROM meta.tables "
                           "WHERE trace = 'google2019'").fetchall()
con.close()
if checks:
    db = duckdb.connect()
    out["sums"] = {}
    for table, exprs in checks.items():
        files = [f for f in glob.glob(sys.argv[3] + "/" + table + "/**/*.parquet", recursive=True)]
        if not files:
            out["sums"][table] = None
            continue
        names = list(exprs)
        row = db.execute("SELECT " + ", ".join(exprs[k] for k in names) + " FROM read_parquet($f, "
                         "hive_partitioning = false, union_by_name = true)", {"f": files}).fetchone()
        out["sums"][table] = {k: (int(v) if v is not None else None) for k, v in zip(names, row)}
print(json.dumps(out))
"""


def check_catalog(home: Path, inp: Inputs, with_sums: bool) -> tuple[bool, str, dict]:
    """Catalog rows and rejects vs the generated lines; optionally value checksums over the Parquet."""
    p = subprocess.run(
        [
            str(VENV_PY),
            "-c",
            CATALOG_CHECK,
            str(home / "tracewh.duckdb"),
            json.dumps(CHECKS if with_sums else {}),
            str(home / "parquet" / "google2019"),
        ],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        return False, f"could not read the catalog: {p.stderr.strip().splitlines()[-1:]}", {}
    info = json.loads(p.stdout)
    problems = []
    for t in ALL_TABLES:
        got = info["tables"].get(t)
        if got != inp.lines[t]:
            problems.append(f"{t}: catalog rows {got} != generated lines {inp.lines[t]}")
    for t, _n, read, written, rejected, _, _ in info["ingests"]:
        if read != inp.lines.get(t) or written != inp.lines.get(t) or rejected:
            problems.append(f"{t}: rows_read {read}, written {written}, rejected {rejected}")
    for t, got in (info.get("sums") or {}).items():
        want = inp.sums[t]
        if got is None:
            problems.append(f"{t}: no Parquet files found for the value check")
            continue
        diff = {k: (got.get(k), want.get(k)) for k in want if got.get(k) != want.get(k)}
        if diff:
            problems.append(f"{t}: Parquet value checks differ (got, generated): {diff}")
    return not problems, "; ".join(problems), info


def run_tracewh(inp: Inputs, work: Path, with_sums: bool = False) -> Run:
    home = work / f"home_{inp.key}"
    shutil.rmtree(home, ignore_errors=True)
    cmd = [str(TRACEWH), "--home", str(home), "ingest", "google2019", str(inp.folder), "--quiet"]
    run, _, err = bi.measure("tracewh ingest", cmd)
    if run.ok:
        ok, why, info = check_catalog(home, inp, with_sums)
        run.extra = info
        if ok:
            log(f"row check OK{' (and value checksums)' if with_sums else ''}: {info['tables']}")
        else:
            run.ok = False
            run.note = "CHECK FAILED: " + why
            bar = "!" * 78
            print(f"\n{bar}\n!!! {inp.key}: {why}\n{bar}\n", file=sys.stderr, flush=True)
        run.out_mb = bi.dir_mb(home / "parquet")
    else:
        print(err[-3000:], file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    return run


NAIVE = {
    "polars": r"""
import json, sys
from pathlib import Path
import polars as pl
job = json.loads(Path(sys.argv[1]).read_text())
rows, fallbacks = {}, []
for table, f in job["files"]:
    try:
        df = pl.read_ndjson(f)
    except pl.exceptions.PolarsError as e:
        # The schema comes from the first 100 lines: a field first seen as a number fails on a
        # later string. Infer from the whole shard instead (slower).
        fallbacks.append(Path(f).name + ": " + str(e).splitlines()[0][:80])
        df = pl.read_ndjson(f, infer_schema_length=None)
    out = Path(job["out"]) / Path(f).parent.name / table
    out.mkdir(parents=True, exist_ok=True)
    df.write_parquet(out / (Path(f).name.split(".")[0] + ".parquet"))
    rows[table] = rows.get(table, 0) + df.height
print(json.dumps({"rows": rows, "fallbacks": fallbacks}))
""",
    "pandas": r"""
import json, sys
from pathlib import Path
import pandas as pd
job = json.loads(Path(sys.argv[1]).read_text())
rows = {}
for table, f in job["files"]:
    df = pd.read_json(f, lines=True)
    out = Path(job["out"]) / Path(f).parent.name / table
    out.mkdir(parents=True, exist_ok=True)
    df.to_parquet(out / (Path(f).name.split(".")[0] + ".parquet"), engine="pyarrow")
    rows[table] = rows.get(table, 0) + len(df)
print(json.dumps({"rows": rows, "fallbacks": []}))
""",
}


def run_naive(kind: str, inp: Inputs, work: Path) -> Run:
    out = work / f"out_g2019_{kind}_{inp.key}"
    shutil.rmtree(out, ignore_errors=True)
    job = work / f"job_g2019_{kind}_{inp.key}.json"
    files = [[f.name.split("-")[0], str(f)] for f in inp.files]
    job.write_text(json.dumps({"out": str(out), "files": files}))
    label = {"polars": "naive polars", "pandas": "naive pandas"}[kind]
    run, stdout, err = bi.measure(label, [str(VENV_PY), "-c", NAIVE[kind], str(job)])
    if run.ok:
        res = json.loads(stdout.strip().splitlines()[-1])
        rows = res["rows"]
        run.extra["fallbacks"] = res["fallbacks"]
        if res["fallbacks"]:
            log(f"{label}: {len(res['fallbacks'])} shards re-read (whole-file schema): {res['fallbacks']}")
        if rows != {t: n for t, n in inp.lines.items() if n}:
            run.note = f"rows {rows} != generated {inp.lines}"
            log(f"{label}: {run.note}")
        run.out_mb = bi.dir_mb(out)
    else:
        print(err[-3000:], file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)
    job.unlink(missing_ok=True)
    return run


# --------------------------------------------------------------------------- shard-size sweep

PROBE = r"""
import sys
sys.path.insert(0, sys.argv[4])
import duckdb
from pathlib import Path
from warehouse import readers
from warehouse.traces import google2019 as g
t = g.TABLES["instance_usage"]
con = duckdb.connect(config={"threads": 1, "memory_limit": "2GB", "preserve_insertion_order": True})
src = readers.checked(t, readers.json_reader(t, Path(sys.argv[1])), text_ints=False)
sql = (f"COPY (SELECT {readers.select_list(t, 0, g.SPEC.units_per_day)} FROM "
       f"{src}) TO '{sys.argv[2]}' (FORMAT parquet, COMPRESSION zstd"
       + (", PARTITION_BY (day))" if sys.argv[3] == "partitioned" else ")"))
print(con.execute(sql).fetchone()[0])
"""


def pool_shard(work: Path, cell: str, table: str, shard: int, shard_mb: int) -> tuple[Path, dict]:
    """One shard of the pool for shard_mb (generated when missing)."""
    pool = work / f"g2019_pool_s{shard_mb}"
    manifest = pool / "manifest.json"
    cache: dict = {}
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        if m.get("version") == GEN_VERSION:
            cache = m["shards"]
    rel = _shard_rel(cell, table, shard)
    if rel not in cache or not (pool / rel).is_file():
        log(f"generating {pool / rel}")
        cache[rel] = make_shard((cell, table, shard, shard_mb, str(pool / rel)))
        manifest.write_text(json.dumps({"version": GEN_VERSION, "shards": cache}, indent=0))
    return pool / rel, cache[rel]


@dataclass
class SweepPoint:
    shard_mb: int
    json_bytes: int
    lines: int
    tracewh: Run
    partitioned: Run
    unpartitioned: Run


def run_sweep(work: Path, sizes: list[int], repeat: int) -> list[SweepPoint]:
    """One instance_usage shard per size: tracewh with 1 worker, and its COPY with / without PARTITION_BY."""
    points = []
    for mb in sizes:
        src, meta = pool_shard(work, "a", "instance_usage", 0, mb)
        folder = work / "g2019_sweep" / f"s{mb}" / "clusterdata_2019_a"
        shutil.rmtree(folder.parent, ignore_errors=True)
        folder.mkdir(parents=True)
        f = folder / src.name
        os.link(src, f)
        f.read_bytes()
        home = work / f"home_g2019_sweep_{mb}"

        def once(f: Path = f, home: Path = home, lines: int = meta["lines"]) -> Run:
            shutil.rmtree(home, ignore_errors=True)
            cmd = [
                str(TRACEWH),
                "--home",
                str(home),
                "ingest",
                "google2019",
                str(f),
                "--workers",
                "1",
                "--quiet",
            ]
            run, _, err = bi.measure("tracewh ingest (1 shard, 1 worker)", cmd)
            if run.ok:
                p = subprocess.run(
                    [
                        str(VENV_PY),
                        "-c",
                        "import duckdb, sys; print(duckdb.connect(sys.argv[1], read_only=True).execute("
                        '"SELECT sum(rows_written), sum(rows_rejected) FROM meta.ingests '
                        "WHERE trace = 'google2019' AND is_current\").fetchone())",
                        str(home / "tracewh.duckdb"),
                    ],
                    capture_output=True,
                    text=True,
                )
                if p.stdout.strip() != f"({lines}, 0)":
                    run.ok, run.note = False, f"rows (written, rejected) {p.stdout.strip()} != ({lines}, 0)"
            else:
                run.note = err.strip()[-300:]
            shutil.rmtree(home, ignore_errors=True)
            return run

        def probe(kind: str, f: Path = f) -> Run:
            out = work / "g2019_sweep" / "probe_out"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            target = out if kind == "partitioned" else out / "x.parquet"
            run, _, err = bi.measure(
                f"DuckDB COPY {kind}", [str(VENV_PY), "-c", PROBE, str(f), str(target), kind, str(ROOT)]
            )
            if not run.ok:
                run.note = err.strip()[-300:]
            shutil.rmtree(out, ignore_errors=True)
            return run

        points.append(
            SweepPoint(
                mb,
                meta["bytes"],
                meta["lines"],
                bi.best_of(once, repeat),
                probe("partitioned"),
                probe("unpartitioned"),
            )
        )
    return points


def sweep_lines(points: list[SweepPoint]) -> list[str]:
    if not points:
        return []
    rows = [
        "| shard (instance_usage, uncompr.) | rows | tracewh 1 worker: wall s | peak RSS MB (runs) "
        "| its COPY alone, PARTITION_BY (day): peak RSS MB | same COPY without PARTITION_BY: peak RSS MB |",
        "|--:|--:|--:|--:|--:|--:|",
    ]
    for p in points:
        t = p.tracewh
        flag = "" if t.ok else f" **FAILED** {t.note}"
        rows.append(
            f"| {p.json_bytes / 1e6:,.0f} MB | {p.lines:,} | {t.wall:.2f}{flag} | {bi.fmt(t.rss_mb, '.0f')} "
            f"({t.extra.get('all_rss', [round(t.rss_mb or 0)])}) | {bi.fmt(p.partitioned.rss_mb, '.0f')} | "
            f"{bi.fmt(p.unpartitioned.rss_mb, '.0f')} |"
        )
    a, b = points[0], points[-1]
    g = (b.tracewh.rss_mb or 0) / (a.tracewh.rss_mb or 1)
    return [
        *rows,
        "",
        f"- one shard, one worker: peak RSS x{g:.2f} for a shard x{b.json_bytes / a.json_bytes:.0f} bigger: "
        + ("**flat**" if g <= bi.RSS_FLAT_TOLERANCE else "**grows with the shard size**"),
    ]


# --------------------------------------------------------------------------- reporting

TOOLS = ("gzip", "tracewh", "polars", "pandas")


def results_table(inputs: list[Inputs], results: dict[str, dict[str, Run]]) -> str:
    head = (
        "| input | tool | wall s | rows/s | MB/s (uncompr. JSON) | peak RSS MB | CPU s | x gzip floor "
        "| x tracewh | Parquet MB | load1 / busy before / others during |"
    )
    lines = [head, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for inp in inputs:
        rs = results[inp.key]
        floor, tw = rs.get("gzip"), rs.get("tracewh")
        for key in TOOLS:
            r = rs.get(key)
            if r is None:
                continue
            walls = r.extra.get("all_walls")
            wall = f"{r.wall:.2f}" + (f" (best of {walls})" if walls else "")
            flag = "" if r.ok else " **FAILED**"
            lines.append(
                f"| {inp.label} ({inp.shard_mb} MB shards) | {r.tool}{flag} | {wall} | "
                f"{inp.rows / r.wall:,.0f} | {inp.json_bytes / 1e6 / r.wall:.0f} | "
                f"{bi.fmt(r.rss_mb, '.0f')} | {bi.fmt(r.cpu_s, '.1f')} | "
                f"{bi.fmt(r.wall / floor.wall if floor else None, '.2f')} | "
                f"{bi.fmt(r.wall / tw.wall if tw else None, '.2f')} | {bi.fmt(r.out_mb, '.0f')} | "
                f"{r.load1:.2f} / {r.busy_cores:.2f} / {r.others:.2f}"
                f"{' *disturbed*' if r.others > bi.NOISY_CORES else ''} |"
            )
    return "\n".join(lines)


def verdict(inputs: list[Inputs], results: dict[str, dict[str, Run]]) -> list[str]:
    out = []
    for inp in inputs:
        rs = results[inp.key]
        tw, fl, pl_, pd_ = rs.get("tracewh"), rs.get("gzip"), rs.get("polars"), rs.get("pandas")
        tag = f"{inp.json_bytes / 1e6:,.0f} MB in {len(inp.files)} shards"
        if not tw:
            continue
        parts = []
        if fl and fl.others > bi.NOISY_CORES:
            parts.append(
                f"{tw.wall / fl.wall:.1f}x the gzip floor (floor *disturbed*: the real ratio is higher)"
            )
        elif fl:
            parts.append(f"{tw.wall / fl.wall:.1f}x the gzip floor")
        for name, r in (("naive polars", pl_), ("naive pandas", pd_)):
            if not r:
                continue
            if not r.ok:
                parts.append(f"{name} FAILED ({r.note})")
            elif r.wall > tw.wall:
                parts.append(f"**{r.wall / tw.wall:.2f}x faster** than {name} ({r.wall:.1f} s)")
            else:
                parts.append(f"**{tw.wall / r.wall:.2f}x slower** than {name} ({r.wall:.1f} s)")
            if r.ok and r.rss_mb and tw.rss_mb:
                parts.append(f"peak RSS {tw.rss_mb:.0f} MB vs {name}'s {r.rss_mb:.0f} MB")
            if r.extra.get("fallbacks"):
                parts.append(
                    f"{len(r.extra['fallbacks'])} of {len(inp.files)} shards failed {name}'s default "
                    "schema inference and were read again"
                )
        out.append(f"- {tag}: tracewh {tw.wall:.1f} s: " + "; ".join(parts))
    return out


def rss_lines(inputs: list[Inputs], results: dict[str, dict[str, Run]]) -> list[str]:
    out = []
    pts = [(i, results[i.key].get("tracewh")) for i in inputs]
    pts = [(i, r) for i, r in pts if r is not None and r.rss_mb]
    tol = bi.RSS_FLAT_TOLERANCE

    def runs(r: Run) -> list:
        return r.extra.get("all_rss", [round(r.rss_mb or 0)])

    for a, ra in pts:
        for b, rb in pts:
            assert ra.rss_mb and rb.rss_mb
            if a.shard_mb == b.shard_mb and a.json_bytes < b.json_bytes:
                g = rb.rss_mb / ra.rss_mb
                out.append(
                    f"- input size x{b.json_bytes / a.json_bytes:.2f} (same {a.shard_mb} MB shards, "
                    f"{len(a.files)} -> {len(b.files)} files): tracewh peak RSS {ra.rss_mb:.0f} -> "
                    f"{rb.rss_mb:.0f} MB, x{g:.2f} (runs {runs(ra)} -> {runs(rb)}): "
                    f"{'**flat**' if g <= tol else '**GROWS**'} (flat = at most x{tol})"
                )
            if a.size_mb == b.size_mb and a.shard_mb < b.shard_mb:
                # a: more, smaller shards; b: fewer, bigger shards holding the same data.
                more = ra.rss_mb / rb.rss_mb
                bigger = rb.rss_mb / ra.rss_mb
                out.append(
                    f"- shard count x{len(a.files) / len(b.files):.1f} ({b.shard_mb} -> {a.shard_mb} MB "
                    f"shards, same data): tracewh peak RSS {rb.rss_mb:.0f} -> {ra.rss_mb:.0f} MB, "
                    f"x{more:.2f}: {'**flat**' if more <= tol else '**GROWS**'}; read the other way, "
                    f"shards x{b.shard_mb / a.shard_mb:.0f} bigger: x{bigger:.2f}, "
                    f"{'**flat**' if bigger <= tol else '**GROWS with the shard size**'} "
                    f"(runs {runs(rb)} vs {runs(ra)})"
                )
    return out


def breakdown(inputs: list[Inputs], results: dict[str, dict[str, Run]]) -> list[str]:
    """Per table, from meta.ingests of the fastest tracewh run: files, rows, summed COPY seconds."""
    out = []
    for inp in inputs:
        r = results[inp.key].get("tracewh")
        if not r or not r.extra.get("ingests"):
            continue
        parts = []
        for t, n, read, _written, _rejected, summed, _span in sorted(r.extra["ingests"], key=lambda x: -x[5]):
            mb = inp.table_bytes.get(t, 0) / 1e6
            rate = f", {mb / summed:.0f} MB/s and {read / summed:,.0f} rows/s per worker" if summed else ""
            parts.append(f"{t}: {n} files, {mb:,.0f} MB, COPY {summed:.1f} s summed{rate}")
        cpu = f"CPU {r.cpu_s:.1f} s = {r.cpu_s / r.wall:.2f} cores" if r.cpu_s else ""
        out.append(f"- {inp.label} (wall {r.wall:.1f} s, {cpu}): " + "; ".join(parts))
    return out


SECTION = "## Ingest: google2019 JSON shards"


def write_results(
    path: Path,
    meta: dict,
    mi: dict,
    inputs: list[Inputs],
    results: dict[str, dict[str, Run]],
    table: str,
    sweep: list[SweepPoint],
    notes: list[str],
) -> None:
    reps = sorted({len(r.extra.get("all_walls", [1])) for rs in results.values() for r in rs.values()})
    ratios = ", ".join(f"{i.json_bytes / i.gz_bytes:.1f}x at {i.json_bytes / 1e6:,.0f} MB" for i in inputs)
    big = max(inputs, key=lambda i: i.json_bytes)
    per_table = ", ".join(
        f"{t} {big.lines[t]:,} rows / {big.table_bytes[t] / 1e6:,.0f} MB" for t in ALL_TABLES
    )
    lines = [
        SECTION,
        "",
        f"Measured {meta['measured']} by `bench/bench_google2019.py` (whole run "
        f"{meta['whole_s']:.0f} s, of which {meta['gen_s']:.0f} s generating or linking the inputs; "
        "waits for a quiet machine included).",
        "",
        f"**Machine**: {mi['nproc']} cores ({mi['cpu']}), {mi['ram']} RAM, Linux {mi['kernel']}; "
        f"Python {mi['python']}, duckdb {mi['duckdb']}, polars {mi['polars']}, pandas {mi['pandas']}, "
        f"pyarrow {mi['pyarrow']}, {mi['gzip']}.",
        "",
        f"**Command**: `{meta['command']}`",
        "",
        "**Inputs** (no real 2019 rows are available here, so a generator writes them; fixed seeds, "
        "cached in `bench/work/g2019_pool_s<shard MB>/` and hard-linked into `bench/work/g2019_<size>/`): "
        "cells a and b in the download layout (`clusterdata_2019_<cell>/<table>-NNNNNNNNNNNN.json.gz`, "
        f"gzip level 6; JSON/gz ratio {ratios}). Largest input: {per_table}. "
        "Encodings as in the export: 64-bit ints and enum codes as JSON strings, "
        f"{NUMBER_SHARE:.0%} of the lines with JSON numbers instead (mixed in every shard); defaults "
        "absent (no `type` for SUBMIT, no `instance_index` 0, no `machine_id` off a machine, no "
        "`scheduling_class`/`priority` 0), a few explicit nulls (`machine_id`, `cycles_per_instruction`); "
        "nested `resource_request`, `average_usage`, `maximum_usage` (2% without memory), "
        "`random_sample_usage` (1% spelt `random_sampled_usage`); `constraint` absent (70%), `[]` "
        "(10%) or 1-3 items (PRESENT/NOT_PRESENT without value); list items (`constraint.relation`, "
        "`start_after_collection_ids`) always strings, see pandas below; "
        "`cpu_usage_distribution` of 11 floats and a tail of 9 (5% without); floats with 3-8 "
        "decimals or full doubles. instance_usage lines are ~650 bytes, instance_events ~230. "
        f"Each instance shard holds ~{SHARD_DAYS} consecutive trace days in time order (so ~3 day "
        "partitions with the 3% time-0 and 0.05% 2^63-1 rows of instance_events); collection_events "
        f"~{COLLECTION_MB} MB and machine_events (12,000 ADDs at time 0 and 6,000 later events) per "
        "cell. Inputs sit in the page cache.",
        "",
        "**What runs** (each in a fresh subprocess; wall time by the parent, peak RSS and CPU time "
        "from `/usr/bin/time`; before each measurement the bench waits, as bench_ingest.py does, "
        f"until fewer than {bi.QUIET_BUSY_CORES} cores are busy):",
        "- *gzip -dc floor*: every shard through `gzip -dc` to /dev/null, two processes in parallel "
        "(bench_ingest.py's helper).",
        "- *tracewh ingest*: `.venv/bin/tracewh --home <fresh tmp home> ingest google2019 <input> "
        "--quiet` (DuckDB `read_json` with the declared columns, one COPY per shard on 2 worker "
        "threads, partitioned by cell and day, zstd Parquet, table stats, catalog). After every run "
        "the catalog's rows and rows_read/written per table must equal the generated lines with 0 "
        "rejects; after the first run per input, value checksums over the Parquet (non-NULL "
        "machine_ids, sum of type and instance_index, time 0 and 2^63-1 counts, constraint items, "
        "distribution values, non-NULL struct fields, CPI) must equal the generator's.",
        "- *naive polars*: per shard, sequentially, `pl.read_ndjson(path)` (reads the .gz directly; "
        "schema inferred from the first 100 lines, so the mixed 64-bit ints mostly end up as strings) "
        "then `df.write_parquet(...)` (zstd). One Parquet per shard, no partitioning, no type casts. "
        "When a shard fails (a field first seen as a number, later a string: `cannot parse '1' "
        "(string) as Int64`), it is read again with `infer_schema_length=None` (the whole shard; "
        "~1.8x slower per shard); the time of the failed attempt counts.",
        "- *naive pandas*: per shard `pd.read_json(path, lines=True)` then "
        '`df.to_parquet(..., engine="pyarrow")`. (Lists in the generated data always hold strings: '
        'with a list mixing `"1"` and `1` across lines, as the hand-written sample has, pyarrow '
        "refuses the column: `Could not convert '374999746592' with type str: tried to convert to "
        "int64`.)",
        f"- Timings: best of {min([x for x in reps if x > 1] or [1])} for gzip, tracewh and polars (one more "
        "run when all were disturbed by other processes; all walls listed; peak RSS is the "
        "largest of the runs; one run each of gzip and polars on the small-shard input), one run for "
        "pandas. Last column: 1-min load average and busy cores before the run, cores used by other "
        "processes during it.",
        "",
        table,
        "",
        '"x gzip floor" = wall / gzip floor wall of the same input; "x tracewh" = wall / tracewh '
        "wall; rows/s and MB/s count all rows and uncompressed JSON bytes of the input.",
        *notes,
        "",
        "### Verdict",
        "",
        *verdict(inputs, results),
        *rss_lines(inputs, results),
    ]
    bad = [(i.key, r.tool, r.note) for i in inputs for r in results[i.key].values() if not r.ok]
    lines.append(
        f"- FAILURES: {bad}"
        if bad
        else "- checks: every tracewh run's catalog holds exactly the generated lines per table, "
        "0 rejects; the value checksums over the Parquet match the generator's"
    )
    lines += ["", "### tracewh per table (meta.ingests of the fastest run)", "", *breakdown(inputs, results)]
    if sweep:
        lines += [
            "",
            "### Peak memory vs shard size (one shard, one worker)",
            "",
            "`tracewh --home <tmp> ingest google2019 <one instance_usage shard> --workers 1 --quiet` "
            f"(best of {max(len(p.tracewh.extra.get('all_walls', [1])) for p in sweep)}, rows checked), "
            "then that shard's COPY alone in a fresh Python process (DuckDB, 1 thread, 2 GB limit, "
            "tracewh's own `readers.select_list` / `readers.json_reader` SQL) with and without "
            "`PARTITION_BY (day)`. Shards of cell a, each spanning 2 trace days (3 day partitions).",
            "",
            *sweep_lines(sweep),
        ]
    text = "\n".join(lines) + "\n"
    old = path.read_text() if path.is_file() else ""
    start = old.find("\n" + SECTION + "\n")
    if start >= 0:  # a re-run replaces this bench's own section only
        nxt = old.find("\n## ", start + 1 + len(SECTION))
        new = old[: start + 1] + text + (old[nxt + 1 :] if nxt >= 0 else "")
    else:
        new = old.rstrip("\n") + "\n\n" + text if old else text
    path.write_text(new)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes", default="2200,1100", help="MB of uncompressed JSON per input (default 2200,1100)"
    )
    ap.add_argument("--shard-mb", type=int, default=180, help="MB per instance shard (default 180)")
    ap.add_argument(
        "--small-shard-mb",
        type=int,
        default=45,
        help="also the smallest size with shards of this many MB (0: skip; default 45)",
    )
    ap.add_argument("--repeat", type=int, default=2, help="runs of gzip / tracewh / polars (best of)")
    ap.add_argument(
        "--pandas-max-s",
        type=float,
        default=PANDAS_MAX_S_DEFAULT,
        help="skip pandas on a larger input when its projected time exceeds this "
        f"(default {PANDAS_MAX_S_DEFAULT:.0f} s)",
    )
    ap.add_argument(
        "--sweep",
        default="45,180,720",
        help="instance_usage shard sizes (MB) for the one-shard memory sweep ('' to skip)",
    )
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1, help="generator processes")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "work")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument(
        "--render",
        action="store_true",
        help="measure nothing: rewrite the section from <out>/g2019_results.json of the last run",
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    raw_path = work / "g2019_results.json"
    if args.render:
        raw = json.loads(raw_path.read_text())
        meta = raw["meta"]
        inputs = _inputs(work, meta["sizes"], meta["shard_mb"], meta["small_shard_mb"], args.procs)
        results = {i.key: {k: Run(**d) for k, d in raw[i.key]["runs"].items()} for i in inputs}
        sweep = [
            SweepPoint(**{k: Run(**v) if isinstance(v, dict) else v for k, v in p.items()})
            for p in raw["sweep"]
        ]
        report(args, meta, inputs, results, sweep, bi.machine_info())
        return 0
    meta = {
        "command": (
            ".venv/bin/python bench/bench_google2019.py "
            + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
        ).rstrip(),
        "sizes": sorted(int(s) for s in args.sizes.split(",") if s.strip()),  # smallest first (pandas)
        "shard_mb": args.shard_mb,
        "small_shard_mb": args.small_shard_mb,
        "pandas_max_s": args.pandas_max_s,
        "skipped": [],
    }
    _check_columns()
    sizes = meta["sizes"]
    t0 = time.perf_counter()
    inputs = _inputs(work, sizes, args.shard_mb, args.small_shard_mb, args.procs)
    meta["gen_s"] = time.perf_counter() - t0
    for inp in inputs:
        log(
            f"{inp.key}: {inp.label}, {inp.gz_bytes / 1e6:.0f} MB gz, lines {inp.lines}; "
            f"warming the page cache"
        )
        for f in inp.files:
            f.read_bytes()
    mi = bi.machine_info()
    results: dict[str, dict[str, Run]] = {}
    for n, inp in enumerate(inputs):
        variant = n >= len(sizes)  # the small-shard input: only what the memory question needs
        rep = 1 if variant else args.repeat
        rs: dict[str, Run] = {}
        rs["gzip"] = bi.best_of(partial(bi.run_gzip_floor, inp), rep)
        first = [True]

        def tracewh_once(inp: Inputs = inp, first: list[bool] = first) -> Run:
            r = run_tracewh(inp, work, with_sums=first[0])
            first[0] = False
            return r

        rs["tracewh"] = bi.best_of(tracewh_once, args.repeat)
        rs["polars"] = bi.best_of(partial(run_naive, "polars", inp, work), rep)
        if not variant:
            done = [(i, results[i.key]["pandas"]) for i in inputs[:n] if "pandas" in results[i.key]]
            done = [(i, r) for i, r in done if r.ok]
            projected = done[-1][1].wall * inp.json_bytes / done[-1][0].json_bytes if done else 0.0
            if projected <= args.pandas_max_s:
                rs["pandas"] = run_naive("pandas", inp, work)
            else:
                log(f"pandas skipped on {inp.key}: projected {projected:.0f} s > {args.pandas_max_s:.0f} s")
                meta["skipped"].append((inp.key, projected))
        results[inp.key] = rs
    sweep = run_sweep(work, [int(x) for x in args.sweep.split(",") if x.strip()], args.repeat)
    meta["measured"] = time.strftime("%Y-%m-%d %H:%M %Z")
    meta["whole_s"] = time.perf_counter() - started
    raw: dict = {"meta": meta, "sweep": [bi.asdict(p) for p in sweep]}
    raw |= {
        i.key: {
            "json_bytes": i.json_bytes,
            "gz_bytes": i.gz_bytes,
            "lines": i.lines,
            "runs": {k: bi.asdict(r) for k, r in results[i.key].items()},
        }
        for i in inputs
    }
    raw_path.write_text(json.dumps(raw, indent=1, default=str))
    report(args, meta, inputs, results, sweep, mi)
    log(f"whole run {time.perf_counter() - started:.0f} s")
    return 1 if any(not r.ok for rs in results.values() for r in rs.values()) else 0


def _inputs(work: Path, sizes: list[int], shard_mb: int, small_shard_mb: int, procs: int) -> list[Inputs]:
    inputs = [build_inputs(work, s, shard_mb, shard_mb, procs) for s in sizes]
    if small_shard_mb:
        inputs.append(build_inputs(work, min(sizes), small_shard_mb, shard_mb, procs))
    return inputs


def report(args, meta: dict, inputs: list[Inputs], results: dict, sweep: list[SweepPoint], mi: dict) -> None:
    table = results_table(inputs, results)
    print("\n" + table + "\n")
    for line in sweep_lines(sweep):
        print(line)
    for line in verdict(inputs, results) + rss_lines(inputs, results) + breakdown(inputs, results):
        print(line)
    notes = []
    for key, projected in meta["skipped"]:
        i = next(x for x in inputs if x.key == key)
        notes.append(
            f"\npandas was not run on the {i.json_bytes / 1e6:,.0f} MB input: its run on the smaller "
            f"input projects to {projected:.0f} s (> {meta['pandas_max_s']:.0f} s)."
        )
    if meta["small_shard_mb"]:
        a, b = inputs[0], inputs[-1]
        notes.append(
            f"\nThe {b.shard_mb} MB-shard input ({b.key}) holds as much instance data as {a.key} in "
            f"{len(b.files) / len(a.files):.1f}x as many shards (one run each of gzip and polars, no "
            "pandas): it shows whether memory depends on the shard count or size."
        )
    noisy = [(i, r) for i in inputs for r in results[i.key].values() if r.others > bi.NOISY_CORES and r.ok]
    if noisy:
        notes.append(
            "\n*disturbed*: "
            + "; ".join(
                f"{r.tool} on {i.json_bytes / 1e6:,.0f} MB ({i.shard_mb} MB shards): every run shared the "
                f"machine with other processes ({r.others:.2f} cores during the kept run), so its wall "
                "time is too high"
                for i, r in noisy
            )
            + "."
        )
    if not args.no_write:
        write_results(args.results, meta, mi, inputs, results, table, sweep, notes)
        log(f"wrote {args.results}")


def _check_columns() -> None:
    """The checksum columns must exist in the trace module (read-only import)."""
    try:
        sys.path.insert(0, str(ROOT))
        from warehouse.traces import google2019
    except Exception as e:  # the bench still runs if the package is broken mid-edit
        log(f"warning: cannot import warehouse.traces.google2019: {e}")
        return
    finally:
        sys.path.pop(0)
    for t in ALL_TABLES:
        if t not in google2019.TABLES:
            raise SystemExit(f"{t} is not a table of warehouse/traces/google2019.py")


if __name__ == "__main__":
    sys.exit(main())
