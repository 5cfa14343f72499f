"""Synthetic traces in the original layouts: the engine every trace generator plugs into.

This package owns ``tracewh synth``. A trace module (``warehouse/synth/<trace>.py``, one per
trace, as in ``warehouse/traces/``) plans the output as *pieces* (a piece = the rows of one file,
or one slice of a large single-file table) and generates one piece from nothing but the
configuration and the piece's number. This module runs the pieces in worker processes, writes
each file atomically (``<name>.tmp`` then rename), and sums the pieces' exact counts into
``manifest.json``, written last: a folder with a manifest is complete.

Why it is deterministic and fast:
- Every piece draws from its own random stream, seeded by (seed, trace, table, piece), so the
  bytes do not depend on the number of workers or the order in which pieces finish.
- Columns are generated vectorised (numpy) and written by polars' CSV writer; each worker
  compresses its own piece. A file made of several pieces (Alibaba's single-file tables) is one
  gzip member all the same: every piece is a raw deflate segment ending on a byte boundary
  (Z_SYNC_FLUSH), and the parent joins them with one header and a trailer whose CRC-32 is
  combined from the pieces' CRCs (the method of pigz), so gzip, tarfile and DuckDB read it as a
  plain single-member file.
- Memory is bounded by a piece, never by the scale: at most ``2 x workers`` pieces are in flight.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracewh import __version__
from tracewh.errors import UsageError
from tracewh.traces import get_trace, registry

if TYPE_CHECKING:
    from concurrent.futures import Future

MANIFEST = "manifest.json"
TMP_SUFFIX = ".tmp"
GENERATOR_VERSION = 3  # bump when the same seed and scale give other bytes
# The random streams' key: it stays when GENERATOR_VERSION moves for one table, so the bytes of the
# tables that did not change stay as they were (3 changed the values of one table of one trace).
STREAM_KEY = 2
DEFAULT_SEED = 1
DEFAULT_LEVEL = 6  # gzip level of the originals (gzip's default)


@dataclass(frozen=True)
class Config:
    trace: str
    scale: float
    seed: int
    tables: tuple[str, ...]
    cells: tuple[str, ...] = ()
    level: int = DEFAULT_LEVEL
    form: str = ""  # a trace of one file per table: tar.gz (as published), csv or csv.gz
    parts: int = 0  # a trace in numbered parts: part files of the 500-part tables (0 = round(500 x scale))
    # batch instances: each task keeps its first max(1, round(F x instance_num)) instance rows (THINNED)
    instance_fraction: float = 1.0
    isal: bool = False  # compress with ISA-L (its level 3) instead of zlib at ``level``


@dataclass(frozen=True)
class Piece:
    """One unit of work: piece ``index`` of ``count`` of the file ``rel`` (a path under OUT)."""

    rel: str
    table: str
    index: int
    count: int
    args: tuple[Any, ...] = ()  # trace-specific (part number, cell, row range, ...)
    gzip: bool = True
    framed: bool = False  # the file gets a header and trailer around its pieces (a tar member)


@dataclass
class Output:
    """What one piece produced; ``counts`` are exact figures summed into the manifest."""

    piece: Piece
    lines: int
    raw_bytes: int
    crc: int
    data: bytes  # raw deflate segment (gzip pieces) or the raw text
    counts: dict[str, int] = field(default_factory=dict)
    cpu_s: float = 0.0  # CPU time of the worker for this piece
    peak_rss_mb: float = 0.0  # the worker's peak RSS so far


@dataclass
class Progress:
    """Callbacks for a caller that shows progress (the CLI); the library itself prints nothing."""

    begin: Callable[[int], None] = lambda total: None
    advance: Callable[[str, int], None] = lambda rel, lines: None


def synthetic_traces() -> tuple[str, ...]:
    """The registered traces whose spec names a generator (TraceSpec.synth)."""
    return tuple(name for name, spec in registry().items() if spec.synth)


def trace_module(name: str):  # -> module with config / plan / make or MAKERS / finish / summary
    spec = get_trace(name)
    if spec.synth is None:
        raise UsageError(f"{name} has no synthetic generator (synth writes {', '.join(synthetic_traces())})")
    return importlib.import_module(spec.synth)


def _check_options(
    trace: str, mod: Any, tables: list[str] | None, cells: list[str] | None, form: str | None
) -> None:
    """Tables and cells against the trace's spec, --form against the generator's FORMS (the files of
    a trace published in several forms; the first is the default)."""
    spec = get_trace(trace)
    for t in tables or []:
        if t not in spec.tables:
            raise UsageError(f"unknown {trace} table {t!r} (known: {', '.join(spec.tables)})")
    if cells and spec.cells is None:
        with_cells = [n for n in synthetic_traces() if registry()[n].cells]
        raise UsageError(
            f"{trace} has no cells; --cells is for {', '.join(with_cells) or 'traces with cells'}"
        )
    for c in cells or []:
        if spec.cells is not None and c not in spec.cells:
            raise UsageError(f"unknown {trace} cell {c!r} (cells: {', '.join(spec.cells)})")
    forms = getattr(mod, "FORMS", ())
    if form and not forms:
        raise UsageError(f"--form: synthetic {trace} is written in one form only")
    if form and form not in forms:
        raise UsageError(f"--form must be one of {', '.join(forms)}, got {form!r}")


# --------------------------------------------------------------------------- randomness


def rng_for(cfg: Config, *key: object):
    """The random stream of one piece (numpy Generator), seeded by the seed and the piece's key only."""
    import numpy as np

    digest = hashlib.sha256(repr((STREAM_KEY, cfg.trace, cfg.seed, *key)).encode()).digest()
    return np.random.default_rng(np.frombuffer(digest, dtype=np.uint32))


def hash_names(prefix: str, ids) -> list[str]:
    """44-character base64 hashes like the traces' (sha256 of a label), one per id."""
    import base64

    return [base64.b64encode(hashlib.sha256(f"{prefix}{i}".encode()).digest()).decode() for i in ids]


def split_evenly(total: int, parts: int, i: int) -> int:
    """How many of ``total`` items part ``i`` of ``parts`` gets (sizes differ by at most one)."""
    return total * (i + 1) // parts - total * i // parts


def windows(start, end, lo, hi, origin: int, width: int):
    """The measurement windows of intervals [start, end) within [lo, hi): grid-aligned windows of
    ``width`` from ``origin``, each cut at its interval's ends. Returns (the interval of each
    window, its start, its end), numpy arrays in interval order, then window order."""
    import numpy as np

    s = np.maximum(start, lo)
    e = np.minimum(end, hi)
    ok = e > s
    idx = np.flatnonzero(ok)
    g0 = (s[ok] - origin) // width
    g1 = (e[ok] - 1 - origin) // width
    n = g1 - g0 + 1
    rep = np.repeat(np.arange(idx.size), n)
    g = g0[rep] + (np.arange(int(n.sum())) - (np.cumsum(n) - n)[rep])
    ws = np.maximum(origin + g * width, start[idx][rep])
    we = np.minimum(origin + (g + 1) * width, end[idx][rep])
    return idx[rep], ws, we


def round_sig(x, digits: int = 4):
    """Round to ``digits`` significant digits so the CSV shows short values (0.02499, 3.862e-05)."""
    import numpy as np

    out = np.asarray(x, dtype=np.float64).copy()
    nz = out != 0
    mag = np.zeros(out.shape, dtype=np.int64)
    mag[nz] = np.floor(np.log10(np.abs(out[nz]))).astype(np.int64)
    for d in np.unique(mag[nz]):
        m = nz & (mag == d)
        out[m] = np.round(out[m], int(digits - 1 - d))
    return out


def sci_text(values, below: float = 1e-4):
    """Floats as text, values under ``below`` in C's %g style (``3.815e-05``), as the 2011 CSVs
    spell them; polars alone would write ``0.00003815``. Returns (polars Series, count in sci)."""
    import numpy as np
    import polars as pl

    x = np.asarray(values, dtype=np.float64)
    small = (x != 0) & (np.abs(x) < below)
    exp = np.zeros(x.size, np.int64)
    exp[small] = np.floor(np.log10(np.abs(x[small]))).astype(np.int64)
    mant = np.where(small, np.round(x / 10.0 ** exp.astype(np.float64), 3), x)
    m = pl.Series(mant).cast(pl.String).str.strip_suffix(".0")
    e = pl.Series(-exp).cast(pl.String).str.zfill(2)
    out = pl.select(pl.when(pl.Series(small)).then(m + "e-" + e).otherwise(pl.Series(x).cast(pl.String)))
    return out.to_series(), int(small.sum())


G_DIGITS = 4  # significant digits of the 2011 trace's floats (C's %.4g: 0.06787, 2.861e-06)
G_EXP = (-16, 3)  # decimal exponents the %g table spells; smaller magnitudes are written as 0


@functools.cache
def _g_table() -> Any:
    """Every %.4g text of the exponents in G_EXP: '0', then 9000 mantissas per exponent."""
    import polars as pl

    lo, hi = G_EXP
    texts = ["0"] + [f"{m * 10.0 ** (e - G_DIGITS + 1):.{G_DIGITS}g}" for e in range(lo, hi + 1)
                     for m in range(10 ** (G_DIGITS - 1), 10**G_DIGITS)]  # fmt: skip
    return pl.Series(texts)


def g_text(values, empty=None):
    """Non-negative floats as C's ``%.4g`` writes them (``0.06787``, ``2.861e-06``, ``1``, ``0``), as
    the 2011 CSVs do; NULL (an empty field) where ``empty`` is True. Vectorised: the value is cut to
    its 4-digit mantissa and exponent, whose text is looked up in a table made once (formatting 2.5 M
    floats one by one costs seconds). Returns (polars Series, how many are in e-notation)."""
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    lo, hi = G_EXP
    step = 10 ** (G_DIGITS - 1)
    nz = x > 10.0**lo
    exp = np.zeros(x.size, np.int64)
    exp[nz] = np.floor(np.log10(x[nz])).astype(np.int64)
    mant = np.zeros(x.size, np.int64)
    mant[nz] = np.rint(x[nz] / 10.0 ** (exp[nz] - G_DIGITS + 1)).astype(np.int64)
    up = mant >= 10 * step  # 9.9996 rounds to 10.00: one decade up
    mant[up] //= 10
    exp[up] += 1
    code = np.where(nz, 1 + (np.clip(exp, lo, hi) - lo) * 9 * step + (mant - step), 0)
    sci = nz & (exp < -4)  # %g switches to e-notation below 1e-4
    if empty is not None:
        sci &= ~np.asarray(empty)
    import polars as pl

    idx = pl.Series(code.astype(np.uint32))
    if empty is not None:
        idx = pl.select(pl.when(pl.lit(pl.Series(empty))).then(None).otherwise(idx)).to_series()
    return _g_table().gather(idx), int(sci.sum())


# --------------------------------------------------------------------------- compression


ISAL_LEVEL = 3  # ISA-L's best: ~10x zlib 6's speed on trace CSV, the file ~8% larger


def deflate_segment(data: bytes, level: int, final: bool, isal: bool = False) -> bytes:
    """Raw deflate of ``data``; non-final segments end with a sync flush so segments concatenate
    (ISA-L's segments too: either is plain deflate, read by any inflater)."""
    if isal:
        from isal import isal_zlib

        ic = isal_zlib.compressobj(ISAL_LEVEL, isal_zlib.DEFLATED, -15, 9)
        return ic.compress(data) + ic.flush(isal_zlib.Z_FINISH if final else isal_zlib.Z_SYNC_FLUSH)
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
    return c.compress(data) + c.flush(zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH)


GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, mtime 0: reproducible bytes
EMPTY_FINAL_BLOCK = b"\x03\x00"  # a final, empty fixed-Huffman deflate block


def gzip_trailer(crc: int, size: int) -> bytes:
    return crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")


def _gf2_times(mat: list[int], vec: int) -> int:
    out, i = 0, 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def _gf2_square(mat: list[int]) -> list[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of A+B from crc(A), crc(B) and len(B) (zlib's crc32_combine; Python does not expose it)."""
    if len2 <= 0:
        return crc1
    op = [0xEDB88320] + [1 << n for n in range(31)]  # the operator for one zero bit
    for _ in range(3):
        op = _gf2_square(op)  # ... for 2, 4, then 8 zero bits: one zero byte
    # crc1 shifted over len2 zero bytes: the operator for 2^i bytes, for each bit i set in len2
    while True:
        if len2 & 1:
            crc1 = _gf2_times(op, crc1)
        len2 >>= 1
        if not len2:
            return crc1 ^ crc2
        op = _gf2_square(op)


def encode(piece: Piece, text: bytes, cfg: Config, counts: dict[str, int]) -> Output:
    """The worker's last step: compress (gzip pieces, as ``cfg`` says) and count lines."""
    final = piece.count == 1 and not piece.framed
    data = deflate_segment(text, cfg.level, final, cfg.isal) if piece.gzip else text
    return Output(piece, text.count(b"\n"), len(text), zlib.crc32(text), data, counts)


# --------------------------------------------------------------------------- running


def _make(cfg: Config, piece: Piece) -> Output:
    import resource

    t0 = time.process_time()
    mod = trace_module(cfg.trace)
    # a module generating each table apart names its generators (MAKERS); another makes any piece
    makers = getattr(mod, "MAKERS", None)
    o = makers[piece.table](cfg, piece) if makers is not None else mod.make(cfg, piece)
    o.cpu_s = time.process_time() - t0
    o.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return o


def _worker_init() -> None:
    # Parallelism is across pieces: polars' own thread pool would only fight the other workers.
    os.environ.setdefault("POLARS_MAX_THREADS", "1")


class _FileWriter:
    """Assembles the pieces of one output file, in order, into ``<file>.tmp``; renames when whole.

    A framed file (a tar member: its header holds the size, known only at the end) is written
    as a body first and assembled behind its header at the end (a copy of compressed bytes).
    """

    def __init__(self, out: Path, piece: Piece, frame: Callable[[int], tuple[bytes, bytes]]):
        self.path = out / piece.rel
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = self.path.with_name(self.path.name + TMP_SUFFIX)
        self.body = self.path.with_name(self.path.name + ".body" + TMP_SUFFIX) if piece.framed else self.tmp
        self.fh = open(self.body, "wb")  # noqa: SIM115 (closed in close() or abort())
        self.sha = hashlib.sha256()
        self.piece = piece
        self.frame = frame
        self.next = 0
        self.waiting: dict[int, Output] = {}
        self.crc = 0
        self.size = 0
        self.lines = 0
        if piece.gzip and not piece.framed:
            self._write(GZIP_HEADER)

    def _write(self, b: bytes) -> None:
        self.fh.write(b)
        if not self.piece.framed:
            self.sha.update(b)

    def add(self, o: Output) -> bool:
        """Take a piece; True when the file is complete."""
        self.waiting[o.piece.index] = o
        while self.next in self.waiting:
            p = self.waiting.pop(self.next)
            self._write(p.data)
            self.crc = crc32_combine(self.crc, p.crc, p.raw_bytes)
            self.size += p.raw_bytes
            self.lines += p.lines
            self.next += 1
        return self.next == self.piece.count

    def close(self, level: int) -> str:
        gz = self.piece.gzip
        if not self.piece.framed:
            if gz and self.piece.count > 1:
                self._write(EMPTY_FINAL_BLOCK)
            if gz:
                self._write(gzip_trailer(self.crc, self.size))
            self.fh.close()
            os.replace(self.tmp, self.path)
            return self.sha.hexdigest()
        self.fh.close()
        head, tail = self.frame(self.size)
        crc = crc32_combine(zlib.crc32(head), self.crc, self.size)
        crc = crc32_combine(crc, zlib.crc32(tail), len(tail))
        with open(self.tmp, "wb") as fh:

            def put(b: bytes) -> None:
                fh.write(b)
                self.sha.update(b)

            put(GZIP_HEADER + deflate_segment(head, level, False) if gz else head)
            with open(self.body, "rb") as body:
                while chunk := body.read(1 << 20):
                    put(chunk)
            put(
                deflate_segment(tail, level, True) + gzip_trailer(crc, len(head) + self.size + len(tail))
                if gz
                else tail
            )
        self.body.unlink()
        os.replace(self.tmp, self.path)
        return self.sha.hexdigest()

    def abort(self) -> None:
        self.fh.close()
        for p in (self.tmp, self.body):
            p.unlink(missing_ok=True)


def _check_out(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        raise UsageError(f"{out}: the folder is not empty; synth writes only into a new or empty folder")


def synth(
    trace: str,
    out: Path,
    *,
    scale: float = 0.001,
    seed: int = DEFAULT_SEED,
    tables: list[str] | None = None,
    cells: list[str] | None = None,
    workers: int | None = None,
    level: int = DEFAULT_LEVEL,
    form: str | None = None,
    parts: int | None = None,
    instance_fraction: float | None = None,
    isal: bool = False,
    progress: Progress | None = None,
) -> dict:
    """Write a synthetic ``trace`` into the new or empty folder ``out``; return the manifest."""
    mod = trace_module(trace)
    if not (scale > 0) or scale > 10:
        raise UsageError(f"--scale must be in (0, 10], got {scale}")
    if not 1 <= level <= 9:
        raise UsageError(f"--level must be 1..9, got {level}")
    _check_options(trace, mod, tables, cells, form)
    cfg = mod.config(scale=scale, seed=seed, tables=tables, cells=cells, level=level, form=form)
    if parts:
        # a generator written in numbered parts says how many the published trace has (PARTS)
        most = getattr(mod, "PARTS", None)
        if most is None:
            raise UsageError(f"--parts: synthetic {trace} is not written in numbered parts")
        if not 1 <= parts <= most:
            raise UsageError(f"--parts must be 1..{most} for {trace}")
        cfg = replace(cfg, parts=parts)
    if instance_fraction is not None:
        # a generator with a per-task instance table names it (THINNED); its task table stays whole
        thinned = getattr(mod, "THINNED", None)
        if thinned is None:
            raise UsageError(f"--instance-fraction: synthetic {trace} has no per-task instance table")
        if not 0 < instance_fraction <= 1:
            raise UsageError(f"--instance-fraction must be in (0, 1], got {instance_fraction}")
        cfg = replace(cfg, instance_fraction=instance_fraction)
    if isal:
        cfg = replace(cfg, isal=True)
    _check_out(out)
    out.mkdir(parents=True, exist_ok=True)
    progress = progress or Progress()
    pieces = mod.plan(cfg)
    progress.begin(len(pieces))
    started = time.perf_counter()
    files: dict[str, dict] = {}
    counts: dict[str, dict[str, int]] = {}
    writers: dict[str, _FileWriter] = {}
    cpu_s = peak_rss = 0.0
    try:
        for o in _run(cfg, pieces, workers):
            p = o.piece
            cpu_s += o.cpu_s
            peak_rss = max(peak_rss, o.peak_rss_mb)
            for k, v in o.counts.items():
                counts.setdefault(p.table, {})
                counts[p.table][k] = counts[p.table].get(k, 0) + v
            w = writers.get(p.rel)
            if w is None:
                w = writers[p.rel] = _FileWriter(out, p, functools.partial(mod.frame, cfg, p))
            if w.add(o):
                del writers[p.rel]
                sha = w.close(level)
                files[p.rel] = {
                    "table": p.table,
                    "rows": w.lines,
                    "bytes": w.size,
                    "file_bytes": (out / p.rel).stat().st_size,
                    "sha256": sha,
                }
            progress.advance(p.rel, o.lines)
    except BaseException:
        for w in writers.values():
            w.abort()
        raise
    mod.finish(cfg, out, files)
    manifest = {
        "trace": trace,
        "scale": scale,
        "seed": seed,
        "tables_requested": list(cfg.tables),
        "cells": list(cfg.cells),
        "form": cfg.form,
        "gzip_level": level,
        "gzip_by": f"isal level {ISAL_LEVEL}" if isal else "zlib",
        "generator_version": GENERATOR_VERSION,
        "tracewh_version": __version__,
        # Measured, so they differ between runs (the data files do not): wall time, the workers'
        # CPU time and their largest peak RSS (workers are not children of the caller's process).
        "seconds": round(time.perf_counter() - started, 3),
        "worker_cpu_s": round(cpu_s, 3),
        "worker_peak_rss_mb": round(peak_rss, 1),
        "tables": {
            t: {
                "rows": sum(f["rows"] for f in files.values() if f["table"] == t),
                "files": sum(1 for f in files.values() if f["table"] == t),
                **{k: v for k, v in sorted(counts.get(t, {}).items()) if k != "rows"},
            }
            # a file holding several tables (one archive) has table None: its members are counted
            for t in sorted({f["table"] for f in files.values() if f["table"] is not None})
        },
        "files": dict(sorted(files.items())),
        **mod.summary(cfg, counts),
    }
    tmp = out / (MANIFEST + TMP_SUFFIX)
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmp, out / MANIFEST)
    return manifest


def _run(cfg: Config, pieces: list[Piece], workers: int | None) -> Iterator[Output]:
    """Outputs as they finish (any order; the writers restore the order within a file)."""
    workers = workers or os.cpu_count() or 1
    if workers == 1 or len(pieces) == 1:
        for p in pieces:
            yield _make(cfg, p)
        return
    # Imported here: every `tracewh` command imports this module (synth's help names the traces).
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # forkserver: workers start from a clean process, never a fork of a caller that already runs
    # DuckDB or polars threads (a fork of those can deadlock on a lock held by another thread).
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init) as ex:
        todo = iter(pieces)
        running: set[Future] = set()
        try:
            for p in todo:
                running.add(ex.submit(_make, cfg, p))
                if len(running) >= 2 * workers:
                    break
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
                    nxt = next(todo, None)
                    if nxt is not None:
                        running.add(ex.submit(_make, cfg, nxt))
        finally:
            for f in running:
                f.cancel()


def write_sha256sum(out: Path, files: dict[str, dict], name: str = "SHA256SUM") -> None:
    """``<sha256>  <path>`` lines, like the download's checksum file."""
    lines = [f"{f['sha256']}  {rel}\n" for rel, f in sorted(files.items())]
    (out / name).write_text("".join(lines))


def manifest_of(out: Path) -> dict:
    return json.loads((out / MANIFEST).read_text())


@dataclass(frozen=True)
class Origin:
    """Where a file `tracewh synth` wrote comes from: its generator settings and its own digest."""

    seed: int
    scale: float
    generator_version: int
    sha256: str


def origin(path: Path, trace: str) -> Origin | None:
    """The synth manifest's record of ``path`` when a folder above it (up to the layout's depth:
    ``<table>/part``, ``clusterdata_2019_<cell>/shard``) holds a manifest of ``trace`` listing it;
    None for any other file (a download, the bundled sample)."""
    path = path.resolve()
    for folder in list(path.parents)[:3]:
        m = _manifest_at(folder)
        if m is None or m.get("trace") != trace:
            continue
        f = m.get("files", {}).get(path.relative_to(folder).as_posix())
        if f is not None:
            return Origin(int(m["seed"]), float(m["scale"]), int(m["generator_version"]), str(f["sha256"]))
    return None


def _manifest_at(folder: Path) -> dict | None:
    path = folder / MANIFEST
    if not path.is_file():
        return None
    st = path.stat()
    return _read_manifest(path, st.st_mtime_ns, st.st_size)


@functools.cache
def _read_manifest(path: Path, _mtime_ns: int, _size: int) -> dict | None:
    try:
        m = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    # a manifest of tracewh synth names its generator; another tool's manifest.json is not one
    return m if isinstance(m, dict) and "generator_version" in m and "files" in m else None


def no_frame(cfg: Config, piece: Piece, size: int) -> tuple[bytes, bytes]:
    return b"", b""
