"""Synthetic Google clusterdata 2019: newline-delimited JSON shards, gzip, one folder per cell
(``clusterdata_2019_<cell>/<table>-NNNNNNNNNNNN.json.gz``), with every encoding variant of the
export (traces.md section 2).

The model, per cell:
- ``--scale S`` shrinks every cell's machines and collections by S; each cell spans 31 days.
- Collections (jobs, a few alloc sets) come in *blocks*; block k is generated from
  (seed, cell, k) alone and feeds instance_events shard k and instance_usage shard k (the
  export's shards are not time slices, so a block holds whole lives). collection_events shard j
  holds the collection events of a run of consecutive blocks. So every instance belongs to an
  existing collection, and usage exists only for scheduled instances, on their machine, inside
  their run (300 s windows).
- Within capacity: block k places its instances on its own group of machines (machine index
  = k mod the number of groups), so a block knows all the load it puts on them; the summed mean
  CPU and memory usage of a machine in a 300 s window is scaled down to 90% of its capacity
  divided by the blocks sharing it, hence never over the capacity machine_events gives it.
- Life: SUBMIT, (QUEUE), ENABLE, SCHEDULE, an end (FINISH / KILL / FAIL / EVICT / LOST); evicted
  and failed instances are resubmitted (the 2019 ratio of resubmissions is high). Lives that
  began before the window carry time 0; a few events are after it (2^63-1).
- Encoding, per line: 64-bit integers and enum codes as JSON strings, on NUMBER_SHARE of the
  lines as numbers; zero / default values absent (type 0, machine_id 0, missing_type 0,
  alloc_collection_id 0, instance_index 0, ...); a few explicit nulls; nested structs;
  ``constraint`` lists of 0-3 items, absent or ``[]``; ``cpu_usage_distribution`` of 11 values
  (a few of another length) and a tail of 9; ``random_sample_usage`` spelled
  ``random_sampled_usage`` on a few lines; maximum_usage without memory on a few.
"""

from __future__ import annotations

import io
from functools import cache, lru_cache

from tracewh.synth import (
    Config,
    Output,
    Piece,
    encode,
    hash_names,
    no_frame,
    rng_for,
    split_evenly,
    windows,
)
from tracewh.traces import google2019 as spec

NAME = "google2019"
T0 = 600_000_000
DAY = 86_400_000_000
DAYS = 31
T_END = T0 + DAYS * DAY
MAX_TIME = 2**63 - 1
WINDOW = 300_000_000
FOLDER = "clusterdata_2019_{}"
SHARD = "{}-{:012d}.json.gz"

# Per cell at scale 1. instance_events: traces.md (cell a); the others follow from the model.
PUBLISHED_PER_CELL = {"instance_events": 1_700_000_000}
MACHINES = 12_000
MIN_MACHINES = 4
COLLECTIONS = 2_550_000  # collections per cell whose life starts in the window (model constant)
BLOCK_COLLECTIONS = 4_000  # collections per block (one instance_events / instance_usage shard)
COLLECTION_SHARD_BLOCKS = 25  # blocks per collection_events shard
NUMBER_SHARE = 0.05  # lines whose 64-bit ints / enum codes are JSON numbers
NULL_SHARE = 0.02  # defaults written as explicit null instead of being absent
ALIAS_SHARE = 0.01  # random_sampled_usage instead of random_sample_usage
ODD_DIST_SHARE = 0.01  # cpu_usage_distribution of 10 values instead of 11
BEFORE_SHARE = 0.03  # collections alive before the window (their events at time 0)
AFTER_SHARE = 0.0005  # end events after the window (2^63-1)
ALLOC_SET_SHARE = 0.03
IN_ALLOC_SHARE = 0.05
PRIORITIES = (0, 25, 100, 103, 107, 115, 119, 200, 200, 200, 360)
RESUBMIT_P = 0.69  # 2019: resubmitted:new = 2.26:1
MAX_EPISODES = 16
# Instances per collection: (share, low, high) log-uniform.
INSTANCES = ((0.55, 1, 1), (0.30, 2, 20), (0.13, 20, 300), (0.02, 300, 5000))
QUEUE_P = 0.1
RUN_MEDIAN_S, RUN_SIGMA = 450.0, 1.8

TYPES = ("SUBMIT", "QUEUE", "ENABLE", "SCHEDULE", "EVICT", "FAIL", "FINISH", "KILL", "LOST",
         "UPDATE_PENDING", "UPDATE_RUNNING")  # fmt: skip
TABLES_OUT = (
    "collection_events",
    "instance_events",
    "instance_usage",
    "machine_events",
    "machine_attributes",
)


def config(*, scale, seed, tables, cells, level, form) -> Config:
    """The run's settings (options checked by tracewh.synth against the spec first); cell a by default."""
    return Config(NAME, scale, seed, tuple(tables or spec.TABLES), tuple(cells or ("a",)), level)


def machines(cfg: Config) -> int:
    return max(MIN_MACHINES, round(MACHINES * cfg.scale))


def collections(cfg: Config) -> int:
    return max(1, round(COLLECTIONS * cfg.scale))


def blocks(cfg: Config) -> int:
    return max(1, -(-collections(cfg) // BLOCK_COLLECTIONS))


def plan(cfg: Config) -> list[Piece]:
    out = []
    for cell in cfg.cells:
        folder = FOLDER.format(cell)
        for t in cfg.tables:
            if t in ("instance_events", "instance_usage"):
                n = blocks(cfg)
            elif t == "collection_events":
                n = -(-blocks(cfg) // COLLECTION_SHARD_BLOCKS)
            else:
                n = 1
            out += [Piece(f"{folder}/{SHARD.format(t, k)}", t, 0, 1, (cell, k)) for k in range(n)]
    return out


frame = no_frame


def finish(cfg: Config, out, files: dict) -> None:
    """The export has no checksum file."""


def summary(cfg: Config, counts: dict) -> dict:
    ce = counts.get("collection_events", {})
    ie = counts.get("instance_events", {})
    return {
        "model": {
            "machines_per_cell": machines(cfg),
            "collections_per_cell": collections(cfg),
            "blocks_per_cell": blocks(cfg),
        },
        "entities": {
            "collections": ce.get("collections", 0),
            "instances": ie.get("instances", 0),
            "machines": machines(cfg) * len(cfg.cells),
        },
        "published_at_scale": {
            t: round(n * cfg.scale) * len(cfg.cells) for t, n in PUBLISHED_PER_CELL.items()
        },
    }


# --------------------------------------------------------------------------- the model


def _cid(cfg: Config, cell: str, g):
    """Collection ids: distinct per cell, increasing with the collection's global index."""
    return 375_000_000_000 + (spec.CELLS.index(cell) * 10**8 + g) * 7_919


def _mid(m):
    return 1_000_000 + m * 32_939_713


# A part needs at most two blocks; an unbounded cache would grow with the scale.
@lru_cache(maxsize=2)
def _block(cfg: Config, cell: str, k: int):
    import numpy as np

    rng = rng_for(cfg, cell, "block", k)
    C = collections(cfg)
    nc = split_evenly(C, blocks(cfg), k)
    g0 = C * k // blocks(cfg)
    before = rng.random(nc) < BEFORE_SHARE
    submit = rng.integers(T0, T_END, nc)
    submit[before] = 0
    ctype = (rng.random(nc) < ALLOC_SET_SHARE).astype(np.int64)
    shares = np.array([s[0] for s in INSTANCES])
    kind = rng.choice(len(INSTANCES), nc, p=shares / shares.sum())
    size = np.ones(nc, np.int64)
    for i, (_, lo, hi) in enumerate(INSTANCES):
        m = kind == i
        if hi > lo:
            size[m] = np.exp(rng.uniform(np.log(lo), np.log(hi + 1), int(m.sum()))).astype(np.int64)
    col = {
        "n": nc,
        "id": _cid(cfg, cell, g0 + np.arange(nc)),
        "submit": submit,
        "before": before,
        "type": ctype,
        "size": size,
        "prio": np.asarray(PRIORITIES)[rng.integers(0, len(PRIORITIES), nc)],
        "sched": rng.choice(4, nc, p=[0.5, 0.3, 0.15, 0.05]),
        "user": rng.integers(0, 500, nc),
        "name": rng.integers(0, 4096, nc),
        "lname": rng.integers(0, 4096, nc),
        "in_alloc": (rng.random(nc) < IN_ALLOC_SHARE) & (ctype == 0),
        "alloc": _cid(cfg, cell, rng.integers(0, max(1, g0 + nc), nc)),
        "parent": (rng.random(nc) < 0.1),
        "after": rng.random(nc) < 0.03,
        "mpm": np.where(rng.random(nc) < 0.05, rng.integers(1, 5, nc), 0),
        "vs": np.where(rng.random(nc) < 0.6, rng.integers(1, 4, nc), 0),
        "scheduler": (rng.random(nc) < 0.2).astype(np.int64),
        "g": g0 + np.arange(nc),
    }
    # Instances and their episodes.
    N = int(size.sum())
    ic = np.repeat(np.arange(nc), size)
    idx = np.arange(N) - (np.cumsum(size) - size)[ic]
    ep = np.minimum(rng.geometric(1 - RESUBMIT_P, N), MAX_EPISODES)
    E = int(ep.sum())
    ei = np.repeat(np.arange(N), ep)
    first_e = np.cumsum(ep) - ep
    last = np.arange(E) - first_e[ei] == ep[ei] - 1
    wait = rng.exponential(30.0, E) * 1e6
    run = np.clip(rng.lognormal(np.log(RUN_MEDIAN_S), RUN_SIGMA, E), 1, 31 * 86400) * 1e6
    step = wait + run + rng.exponential(10.0, E) * 1e6
    rel = np.cumsum(step) - step
    rel -= rel[first_e][ei]
    base = np.where(col["before"][ic], T0, col["submit"][ic])[ei] + rng.integers(0, 5_000_000, E)
    sub = base + rel.astype(np.int64)
    sch = sub + wait.astype(np.int64)
    end = sch + run.astype(np.int64)
    end_type = np.where(
        last,
        rng.choice([6, 7, 5], E, p=[0.6, 0.3, 0.1]),
        rng.choice([4, 5, 8], E, p=[0.6, 0.38, 0.02]),
    )
    # Lives that started before the window: their first SUBMIT / SCHEDULE are time-0 records.
    first_of_before = (np.arange(E) == first_e[ei]) & col["before"][ic][ei]
    after = rng.random(E) < AFTER_SHARE
    queued = rng.random(E) < QUEUE_P
    own, _ = _machine_group(cfg, k)
    mach = own[rng.integers(0, own.size, E)]
    dedicated = rng.random(E) < 0.001
    return {
        "col": col,
        "N": N,
        "ic": ic,
        "idx": idx,
        "E": E,
        "ei": ei,
        "sub": sub,
        "sch": sch,
        "end": end,
        "end_type": end_type,
        "first_before": first_of_before,
        "after": after,
        "queued": queued,
        "mach": mach,
        "dedicated": dedicated,
    }


@cache
def _hashes(seed: int, cell: str) -> list[str]:
    return hash_names(f"{seed}/{cell}/", range(4096))


# --------------------------------------------------------------------------- JSON text


def _frag(pl, name: str, value, q=None, present=None):
    """``,"name":<q>value<q>``; NULL (= the field is absent) where not present."""
    parts = [pl.lit(f',"{name}":')]
    parts += [q, value, q] if q is not None else [value]
    e = pl.concat_str(parts)
    return e if present is None else pl.when(present).then(e)


def _struct(pl, fields):
    inner = []
    for i, (name, value) in enumerate(fields):
        inner += [pl.lit(("," if i else "") + f'"{name}":'), value]
    return pl.concat_str([pl.lit("{"), *inner, pl.lit("}")])


def _s(pl, col: str):
    return pl.col(col).cast(pl.String)


def _lines(df, line) -> bytes:
    buf = io.BytesIO()
    df.select(line.alias("l")).write_csv(buf, include_header=False, quote_style="never")
    return buf.getvalue()


def _round(np, rng, x):
    """3..8 decimals per value: the export mixes short values and full doubles."""
    digits = rng.integers(3, 9, size=x.shape[0])
    out = x.copy()
    for d in range(3, 9):
        m = digits == d
        out[m] = np.round(x[m], d)
    return out


def _time_fields(pl, q, names: list[str]):
    return [_frag(pl, n, _s(pl, n), q, pl.col(n) != 0) for n in names]


def _event_head(pl, q, *after_class):
    """The fields an instance or a collection event starts with, in the export's order: time,
    type, collection_id, scheduling_class, ``after_class`` (an instance's missing_type),
    collection_type, priority, alloc_collection_id (frame columns time, type, cid, sc, ct, prio,
    aci, has_aci; ``q`` the quote of numbers, or none)."""
    cc = pl.col
    return [
        pl.lit('{"time":'),
        q,
        _s(pl, "time"),
        q,
        _frag(pl, "type", _s(pl, "type"), q, cc("type") != 0),
        _frag(pl, "collection_id", _s(pl, "cid"), q),
        _frag(pl, "scheduling_class", _s(pl, "sc"), q, cc("sc") != 0),
        *after_class,
        _frag(pl, "collection_type", _s(pl, "ct"), q, cc("ct") != 0),
        _frag(pl, "priority", _s(pl, "prio"), q, cc("prio") != 0),
        _frag(pl, "alloc_collection_id", _s(pl, "aci"), q, cc("has_aci")),
    ]


def instance_events(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    cell, k = piece.args
    B = _block(cfg, cell, k)
    rng = rng_for(cfg, cell, "instance_events", k)
    col, ei = B["col"], B["ei"]
    E = B["E"]
    ic = B["ic"][ei]
    # Rows: SUBMIT, QUEUE (some), ENABLE, SCHEDULE, end per episode.
    parts = []

    def add(time, typ, sel, on_machine):
        parts.append((time[sel], np.full(int(sel.sum()), typ) if np.isscalar(typ) else typ[sel],
                      np.flatnonzero(sel), np.full(int(sel.sum()), on_machine)))  # fmt: skip

    allrows = np.ones(E, bool)
    add(np.where(B["first_before"], 0, B["sub"]), 0, allrows, False)
    add(B["sub"] + 1, 1, B["queued"], False)
    add(np.where(B["first_before"], 0, B["sub"] + 2), 2, allrows, False)
    add(np.where(B["first_before"], 0, B["sch"]), 3, allrows, True)
    end_t = np.where(B["after"], MAX_TIME, B["end"])
    keep_end = (end_t < T_END) | (end_t == MAX_TIME)  # later ends are censored
    add(end_t, B["end_type"], keep_end, True)
    time = np.concatenate([p[0] for p in parts])
    typ = np.concatenate([p[1] for p in parts])
    e = np.concatenate([p[2] for p in parts])
    onm = np.concatenate([p[3] for p in parts])
    inside = (time < T_END) | (time == MAX_TIME)
    time, typ, e, onm = time[inside], typ[inside], e[inside], onm[inside]
    order = np.lexsort((typ, e, time))
    time, typ, e, onm = time[order], typ[order], e[order], onm[order]
    n = time.size
    c = ic[e]
    inst = ei[e]
    has_mt = rng.random(n) < 0.01
    con_kind = rng.random(n)
    pool = _constraint_pool(cfg, cell)
    con = rng.integers(0, len(pool), n)
    has_req = rng.random(n) < 0.97
    df = pl.DataFrame(
        {
            "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
            "time": time,
            "type": typ,
            "cid": col["id"][c],
            "sc": col["sched"][c],
            "mt": rng.integers(1, 6, n),
            "has_mt": has_mt,
            "ct": col["type"][c],
            "prio": col["prio"][c],
            "aci": col["alloc"][c],
            "has_aci": col["in_alloc"][c],
            "idx": B["idx"][inst],
            "mid": np.where(B["dedicated"][e], -1, _mid(B["mach"][e])),
            "on_machine": onm,
            "null_mid": (~onm) & (rng.random(n) < NULL_SHARE),
            "aii": rng.random(n) < 0.3,
            "cpus": _round(np, rng, rng.gamma(1.0, 0.02, n)),
            "mem": _round(np, rng, rng.gamma(1.0, 0.01, n)),
            "has_req": has_req,
            "con": con,
            "con_kind": con_kind,
        }
    )
    cc, q = pl.col, pl.col("q")
    line = pl.concat_str(
        [
            *_event_head(pl, q, _frag(pl, "missing_type", _s(pl, "mt"), q, cc("has_mt"))),
            _frag(pl, "instance_index", _s(pl, "idx"), q, cc("idx") != 0),
            _frag(pl, "machine_id", _s(pl, "mid"), q, cc("on_machine")),
            _frag(pl, "machine_id", pl.lit("null"), None, cc("null_mid")),
            _frag(pl, "alloc_instance_index", pl.lit("-1"), q, cc("aii")),
            _frag(
                pl,
                "resource_request",
                _struct(pl, [("cpus", _s(pl, "cpus")), ("memory", _s(pl, "mem"))]),
                None,
                cc("has_req"),
            ),
            # 70% absent, 10% [], 20% a list of 1-3 constraints.
            _frag(pl, "constraint", pl.lit("[]"), None, (cc("con_kind") >= 0.7) & (cc("con_kind") < 0.8)),
            _frag(pl, "constraint", pl.lit(pl.Series(pool)).gather(cc("con")), None, cc("con_kind") >= 0.8),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    items = np.array([s.count("{") for s in pool])
    counts = {
        "rows": n,
        "instances": B["N"],
        "time:0": int((time == 0).sum()),
        "time:max": int((time == MAX_TIME).sum()),
        "machine_id:set": int(onm.sum()),
        "machine_id:-1": int((onm & B["dedicated"][e]).sum()),
        "missing_type:set": int(has_mt.sum()),
        "resource_request": int(has_req.sum()),
        "constraint:items": int(items[con][con_kind >= 0.8].sum()),
        "constraint:empty_list": int(((con_kind >= 0.7) & (con_kind < 0.8)).sum()),
        "encoding:numbers": int((df["q"] == "").sum()),
    }
    counts.update({f"type:{TYPES[i]}": int(v) for i, v in enumerate(np.bincount(typ, minlength=11))})
    return encode(piece, _lines(df, line), cfg, counts)


@cache
def _constraint_pool(cfg: Config, cell: str) -> list[str]:
    rng = rng_for(cfg, cell, "constraints")
    hashes = _hashes(cfg.seed, cell)
    pool = []
    for _ in range(256):
        items = []
        for _ in range(int(rng.integers(1, 4))):
            rel = int(rng.integers(0, 8))
            name = hashes[int(rng.integers(0, 64))]
            if rel in (6, 7):  # PRESENT / NOT_PRESENT: no value
                items.append(f'{{"name":"{name}","relation":"{rel}"}}')
            else:
                items.append(f'{{"name":"{name}","value":"{int(rng.integers(0, 9))}","relation":"{rel}"}}')
        pool.append("[" + ",".join(items) + "]")
    return pool


def instance_usage(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    cell, k = piece.args
    B = _block(cfg, cell, k)
    rng = rng_for(cfg, cell, "instance_usage", k)
    # the trace's span is whole windows, so a window cut at the span's end is cut at the instance's
    ep, st, et = windows(B["sch"], B["end"], T0, T_END, T0, WINDOW)
    g = (st - T0) // WINDOW  # each window's place on the grid
    n = st.size
    c = B["ic"][B["ei"][ep]]
    col = B["col"]
    avg_cpu = rng.gamma(0.6, 0.01, n)
    max_cpu = avg_cpu * (1 + rng.gamma(1.0, 1.0, n))
    dist = np.sort(rng.random((n, 11)), axis=1) * max_cpu[:, None]
    tail = np.sort(rng.random((n, 9)), axis=1) * (max_cpu[:, None] - dist[:, 9:10]) + dist[:, 9:10]
    has_dist = rng.random(n) < 0.95
    odd = has_dist & (rng.random(n) < ODD_DIST_SHARE)
    has_mm = rng.random(n) < 0.98
    has_rs = rng.random(n) < 0.9
    alias_rs = rng.random(n) < ALIAS_SHARE
    has_cpi = rng.random(n) < 0.8
    null_cpi = has_cpi & (rng.random(n) < NULL_SHARE)
    data = {
        "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
        "st": st,
        "et": et,
        "cid": col["id"][c],
        "idx": B["idx"][B["ei"][ep]],
        "mid": np.where(B["dedicated"][ep], -1, _mid(B["mach"][ep])),
        "aci": col["alloc"][c],
        "has_aci": col["in_alloc"][c],
        "ct": col["type"][c],
        "aii": rng.random(n) < 0.3,
        "ac": _round(np, rng, avg_cpu),
        "am": _round(np, rng, rng.gamma(1.0, 0.005, n)),
        "mc": _round(np, rng, max_cpu),
        "mm": _round(np, rng, rng.gamma(1.0, 0.006, n)),
        "has_mm": has_mm,
        "rc": _round(np, rng, avg_cpu * rng.random(n) * 2),
        "has_rs": has_rs,
        "alias_rs": alias_rs,
        "asm": _round(np, rng, rng.gamma(1.0, 0.01, n)),
        "pcm": _round(np, rng, rng.gamma(1.0, 0.001, n)),
        "cpi": _round(np, rng, rng.gamma(4.0, 0.5, n)),
        "has_cpi": has_cpi,
        "null_cpi": null_cpi,
        "mai": _round(np, rng, rng.gamma(1.0, 0.005, n)),
        "sr": np.where(rng.random(n) < 0.9, 1.0, np.round(rng.random(n), 4)),
        "has_dist": has_dist,
        "odd": odd,
    }
    # a machine's summed mean usage in a window stays within its share of the capacity (blocks
    # sharing a machine split it; 90%: headroom as on a real machine)
    _, sharing = _machine_group(cfg, k)
    machine = B["mach"][ep]
    key = machine * (T_END // WINDOW + 1) + g
    placed = ~B["dedicated"][ep]
    drawn = _machine_draws(cfg, cell)
    for col, per_machine in (("ac", drawn["cpus"]), ("am", drawn["mem"])):
        limit = per_machine[np.unique(key[placed]) // (T_END // WINDOW + 1)] * 0.9 / sharing
        data[col][placed] = _within_capacity(np, data[col][placed], key[placed], limit)
    dist, tail = _round(np, rng, dist), _round(np, rng, tail)
    for i in range(11):
        data[f"d{i}"] = dist[:, i]
    for i in range(9):
        data[f"t{i}"] = tail[:, i]
    df = pl.DataFrame(data)
    cc, q = pl.col, pl.col("q")
    d10 = [x for i in range(10) for x in (pl.lit("," if i else "["), _s(pl, f"d{i}"))]
    t9 = [x for i in range(9) for x in (pl.lit("," if i else "["), _s(pl, f"t{i}"))]
    dist_txt = pl.concat_str(
        [*d10, pl.when(cc("odd")).then(pl.lit("")).otherwise(pl.lit(",") + _s(pl, "d10")), pl.lit("]")]
    )
    usage = _struct(pl, [("cpus", _s(pl, "ac")), ("memory", _s(pl, "am"))])
    maximum = (
        pl.when(cc("has_mm"))
        .then(_struct(pl, [("cpus", _s(pl, "mc")), ("memory", _s(pl, "mm"))]))
        .otherwise(_struct(pl, [("cpus", _s(pl, "mc"))]))
    )
    sample = _struct(pl, [("cpus", _s(pl, "rc"))])
    line = pl.concat_str(
        [
            pl.lit('{"start_time":'),
            q,
            _s(pl, "st"),
            q,
            _frag(pl, "end_time", _s(pl, "et"), q),
            _frag(pl, "collection_id", _s(pl, "cid"), q),
            _frag(pl, "instance_index", _s(pl, "idx"), q, cc("idx") != 0),
            _frag(pl, "machine_id", _s(pl, "mid"), q),
            _frag(pl, "alloc_collection_id", _s(pl, "aci"), q, cc("has_aci")),
            _frag(pl, "alloc_instance_index", pl.lit("-1"), q, cc("aii")),
            _frag(pl, "collection_type", _s(pl, "ct"), q, cc("ct") != 0),
            _frag(pl, "average_usage", usage),
            _frag(pl, "maximum_usage", maximum),
            _frag(pl, "random_sample_usage", sample, None, cc("has_rs") & ~cc("alias_rs")),
            _frag(pl, "random_sampled_usage", sample, None, cc("has_rs") & cc("alias_rs")),
            _frag(pl, "assigned_memory", _s(pl, "asm")),
            _frag(pl, "page_cache_memory", _s(pl, "pcm")),
            _frag(pl, "cycles_per_instruction", _s(pl, "cpi"), None, cc("has_cpi") & ~cc("null_cpi")),
            _frag(pl, "cycles_per_instruction", pl.lit("null"), None, cc("null_cpi")),
            _frag(pl, "memory_accesses_per_instruction", _s(pl, "mai"), None, cc("has_cpi")),
            _frag(pl, "sample_rate", _s(pl, "sr")),
            _frag(pl, "cpu_usage_distribution", dist_txt, None, cc("has_dist")),
            _frag(pl, "tail_cpu_usage_distribution", pl.concat_str([*t9, pl.lit("]")]), None, cc("has_dist")),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    counts = {
        "rows": n,
        "cpu_usage_distribution:values": int(has_dist.sum()) * 11 - int(odd.sum()),
        "cpu_usage_distribution:length_10": int(odd.sum()),
        "tail_cpu_usage_distribution:values": int(has_dist.sum()) * 9,
        "cycles_per_instruction:values": int((has_cpi & ~null_cpi).sum()),
        "cycles_per_instruction:null": int(null_cpi.sum()),
        "maximum_usage:memory": int(has_mm.sum()),
        "random_sample_usage": int(has_rs.sum()),
        "random_sampled_usage_spelling": int((has_rs & alias_rs).sum()),
        "encoding:numbers": int((df["q"] == "").sum()),
    }
    return encode(piece, _lines(df, line), cfg, counts)


def collection_events(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    cell, j = piece.args
    rng = rng_for(cfg, cell, "collection_events", j)
    frames = []
    ncol = 0
    for k in range(j * COLLECTION_SHARD_BLOCKS, min(blocks(cfg), (j + 1) * COLLECTION_SHARD_BLOCKS)):
        B = _block(cfg, cell, k)
        col = B["col"]
        nc = col["n"]
        ncol += nc
        ic = B["ic"][B["ei"]]
        first_sch = np.full(nc, MAX_TIME, np.int64)
        np.minimum.at(first_sch, ic, np.where(B["first_before"], 0, B["sch"]))
        last_end = np.zeros(nc, np.int64)
        np.maximum.at(last_end, ic, B["end"])
        end_type = rng.choice([6, 7, 5], nc, p=[0.6, 0.3, 0.1])
        sub = np.where(col["before"], 0, col["submit"])
        rows = [
            (sub, np.zeros(nc, np.int64), np.ones(nc, bool)),
            (np.where(col["before"], 0, sub + 1), np.full(nc, 2), np.ones(nc, bool)),
            (first_sch, np.full(nc, 3), np.ones(nc, bool)),
            (last_end, end_type, last_end < T_END),
        ]
        for t, ty, keep in rows:
            frames.append((t[keep], ty[keep], np.flatnonzero(keep), k))
    time = np.concatenate([f[0] for f in frames])
    typ = np.concatenate([f[1] for f in frames])
    cix = np.concatenate([f[2] for f in frames])
    blk = np.concatenate([np.full(f[0].size, f[3]) for f in frames])
    order = np.lexsort((typ, cix, blk, time))
    time, typ, cix, blk = time[order], typ[order], cix[order], blk[order]
    n = time.size
    fields = {}
    for key in ("id", "sched", "type", "prio", "user", "name", "lname", "parent", "after", "mpm", "vs",
                "scheduler", "g", "alloc", "in_alloc"):  # fmt: skip
        fields[key] = np.empty(n, np.int64)
    for k in np.unique(blk):
        m = blk == k
        col = _block(cfg, cell, int(k))["col"]
        for key in fields:
            fields[key][m] = col[key][cix[m]]
    hashes = np.asarray(_hashes(cfg.seed, cell))
    df = pl.DataFrame(
        {
            "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
            "time": time,
            "type": typ,
            "cid": fields["id"],
            "sc": fields["sched"],
            "ct": fields["type"],
            "prio": fields["prio"],
            "aci": fields["alloc"],
            "has_aci": fields["in_alloc"].astype(bool),
            "u": hashes[fields["user"]],
            "nm": hashes[fields["name"]],
            "lnm": hashes[fields["lname"]],
            "parent": _cid(cfg, cell, np.maximum(0, fields["g"] - 1 - fields["g"] % 50)),
            "has_parent": fields["parent"].astype(bool) & (fields["g"] > 0),
            "has_after": fields["after"].astype(bool) & (fields["g"] > 0),
            "n_after": rng.integers(1, 3, n),
            "mpm": fields["mpm"],
            "vs": fields["vs"],
            "sched1": fields["scheduler"],
        }
    )
    cc, q = pl.col, pl.col("q")
    after = pl.concat_str(
        [
            pl.lit('["'),
            _s(pl, "parent"),
            pl.when(cc("n_after") > 1)
            .then(pl.lit('","') + (cc("parent") - 7919).cast(pl.String))
            .otherwise(pl.lit("")),
            pl.lit('"]'),
        ]
    )
    line = pl.concat_str(
        [
            *_event_head(pl, q),
            _frag(pl, "user", pl.concat_str([pl.lit('"'), cc("u"), pl.lit('"')])),
            _frag(pl, "collection_name", pl.concat_str([pl.lit('"'), cc("nm"), pl.lit('"')])),
            _frag(pl, "collection_logical_name", pl.concat_str([pl.lit('"'), cc("lnm"), pl.lit('"')])),
            _frag(pl, "parent_collection_id", _s(pl, "parent"), q, cc("has_parent")),
            _frag(pl, "start_after_collection_ids", after, None, cc("has_after")),
            _frag(pl, "max_per_machine", _s(pl, "mpm"), q, cc("mpm") != 0),
            _frag(pl, "vertical_scaling", _s(pl, "vs"), q, cc("vs") != 0),
            _frag(pl, "scheduler", _s(pl, "sched1"), q, cc("sched1") != 0),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    counts = {"rows": n, "collections": ncol, "encoding:numbers": int((df["q"] == "").sum())}
    counts.update({f"type:{TYPES[i]}": int(v) for i, v in enumerate(np.bincount(typ, minlength=11))})
    counts["time:0"] = int((time == 0).sum())
    return encode(piece, _lines(df, line), cfg, counts)


@lru_cache(maxsize=2)
def _machine_draws(cfg: Config, cell: str) -> dict:
    """The machines of a cell, drawn once: machine_events writes them, instance_usage keeps each
    machine's load within its capacity (cpus and mem per machine index)."""
    import numpy as np

    rng = rng_for(cfg, cell, "machine_events")
    M = machines(cfg)
    n_later = M // 2
    mid = np.concatenate([np.arange(M), rng.integers(0, M, n_later)])
    n = mid.size
    typ = np.concatenate([np.ones(M, np.int64), rng.choice([1, 2, 3], n_later)])
    d = {
        "mid": mid,
        "typ": typ,
        "t": np.concatenate([np.zeros(M, np.int64), np.sort(rng.integers(T0, T_END, n_later))]),
        "cap": (rng.random(n) >= 0.004) & (typ != 2),
    }
    # the order of these draws is the order the bytes were always drawn in
    d["q"] = np.where(rng.random(n) < NUMBER_SHARE, "", '"')
    d["sw"] = rng.integers(0, 600, M)
    d["pf"] = rng.integers(0, 8, M)
    d["cpus"] = rng.choice([0.25, 0.5, 1.0], M)
    d["mem"] = rng.choice([0.1241, 0.2493, 0.4995, 0.749, 1.0], M)
    d["mdr"] = rng.random(n) < 0.01
    return d


def _machine_group(cfg: Config, k: int):
    """The machines block k places its instances on, and how many blocks share each of them.
    Blocks are generated apart, so each owns a share of its machines' capacity that it can keep
    its own load within: every machine's load stays within its capacity without a global pass."""
    import numpy as np

    M, nb = machines(cfg), blocks(cfg)
    groups = min(M, nb)
    j = k % groups
    return np.arange(j, M, groups), len(range(j, nb, groups))


def _within_capacity(np, values, keys, limit):
    """values scaled down, per key (machine x window), so that each key's sum stays <= limit[key]
    (floored to 8 decimals, so the rounding never pushes a sum over); keys within it untouched."""
    uniq, inv = np.unique(keys, return_inverse=True)
    load = np.bincount(inv, weights=values)
    over = load > limit
    factor = np.ones(uniq.size)
    factor[over] = limit[over] / load[over]
    scaled = over[inv]
    out = values.copy()
    out[scaled] = np.floor(values[scaled] * factor[inv][scaled] * 1e8) / 1e8
    return out


def machine_events(cfg: Config, piece: Piece) -> Output:
    """ADD at time 0 for every machine (0.4% without capacity), then REMOVE / ADD / UPDATE events."""
    import numpy as np
    import polars as pl

    cell, _ = piece.args
    d = _machine_draws(cfg, cell)
    mid = d["mid"]
    hashes = np.asarray(_hashes(cfg.seed, cell))
    df = pl.DataFrame(
        {
            "q": d["q"],
            "time": d["t"],
            "mid": _mid(mid),
            "type": d["typ"],
            "sw": hashes[d["sw"]][mid],
            "pf": hashes[d["pf"]][mid],
            "cpus": d["cpus"][mid],
            "mem": d["mem"][mid],
            "cap": d["cap"],
            "mdr": d["mdr"],
        }
    )
    cc, q = pl.col, pl.col("q")
    line = pl.concat_str(
        [
            pl.lit("{"),
            pl.when(cc("time") != 0).then(
                pl.concat_str([pl.lit('"time":'), q, _s(pl, "time"), q, pl.lit(",")])
            ),
            pl.concat_str([pl.lit('"machine_id":'), q, _s(pl, "mid"), q]),
            _frag(pl, "type", _s(pl, "type"), q),
            _frag(pl, "switch_id", pl.concat_str([pl.lit('"'), cc("sw"), pl.lit('"')])),
            _frag(
                pl,
                "capacity",
                _struct(pl, [("cpus", _s(pl, "cpus")), ("memory", _s(pl, "mem"))]),
                None,
                cc("cap"),
            ),
            _frag(pl, "platform_id", pl.concat_str([pl.lit('"'), cc("pf"), pl.lit('"')])),
            _frag(pl, "missing_data_reason", pl.lit("1"), q, cc("mdr")),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    counts = {"rows": mid.size, "capacity": int(d["cap"].sum()), "time:absent": machines(cfg)}
    counts.update(
        {
            f"type:{name}": int((d["typ"] == i).sum())
            for i, name in enumerate(("UNKNOWN", "ADD", "REMOVE", "UPDATE"))
        }
    )
    return encode(piece, _lines(df, line), cfg, counts)


def machine_attributes(cfg: Config, piece: Piece) -> Output:
    import numpy as np
    import polars as pl

    cell, _ = piece.args
    rng = rng_for(cfg, cell, "machine_attributes")
    M = machines(cfg)
    per = 10
    m = np.repeat(np.arange(M), per)
    name = np.tile(np.arange(per), M)
    n = m.size
    t = np.where(rng.random(n) < 0.9, 0, rng.integers(T0, T_END, n))
    deleted = rng.random(n) < 0.01
    order = np.lexsort((name, m, t))
    hashes = np.asarray(_hashes(cfg.seed, cell))
    df = pl.DataFrame(
        {
            "q": np.where(rng.random(n) < NUMBER_SHARE, "", '"'),
            "time": t[order],
            "mid": _mid(m[order]),
            "name": hashes[100 + name[order]],
            "value": np.where(
                name[order] % 2 == 0, rng.integers(0, 64, n).astype(str), hashes[rng.integers(0, 4096, n)]
            ),
            "deleted": deleted[order],
        }
    )
    cc, q = pl.col, pl.col("q")
    line = pl.concat_str(
        [
            pl.lit('{"time":'),
            q,
            _s(pl, "time"),
            q,
            _frag(pl, "machine_id", _s(pl, "mid"), q),
            _frag(pl, "name", pl.concat_str([pl.lit('"'), cc("name"), pl.lit('"')])),
            _frag(pl, "value", pl.concat_str([pl.lit('"'), cc("value"), pl.lit('"')]), None, ~cc("deleted")),
            _frag(pl, "deleted", pl.lit("true"), None, cc("deleted")),
            pl.lit("}"),
        ],
        ignore_nulls=True,
    )
    return encode(piece, _lines(df, line), cfg, {"rows": n, "deleted": int(deleted.sum())})


# The generator of each table, named as the table (tracewh.synth: a piece goes to its table's).
MAKERS = {
    f.__name__: f
    for f in (instance_events, instance_usage, collection_events, machine_events, machine_attributes)
}
