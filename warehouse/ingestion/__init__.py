"""Ingest: raw trace files -> hive-partitioned Parquet generations + catalog metadata, atomically.

A *part* (one source file: ``part-00007-of-00500.csv.gz``, one 2019 shard, one
Alibaba table file) is the unit. An ingest (re)writes exactly the parts it is
given and keeps every other part of the table; a part whose name, size and
sha256 match the ingested one is skipped; ``replace`` makes the table exactly
the given parts; ``append`` refuses a part that is ingested with other content.

How one ingest runs (the catalog is the single commit point):
1. discover the source files of every source given, select ``--parts``, hash
   them and verify every gzip member's CRC and length in the same pass,
   compare with the trace's published digests, drop unchanged parts;
2. convert each file with one DuckDB ``COPY`` into a new, immutable
   generation folder of its table (``parquet/<trace>/.gen/<table>.<id>``),
   under names that carry the ingest id, so nothing is ever written to a path
   the live generation shares; the kept parts of the live generation are
   hard-linked in. Malformed lines go to DuckDB's reject tables; a file with
   no rows written is an error (unless expected);
3. write a staged copy of the catalog: every file in ``meta.ingests``, every
   reject in ``meta.rejects``, the stats in ``meta.tables``, the views
   repointed; then, with Ctrl-C deferred, rename it over the live catalog
   (the commit) and point ``parquet/<trace>/<table>`` at the new generations;
4. delete what no catalog names any more (see ``catalog.collect_garbage``).
Whether an interrupted ingest committed is read from the catalog, never
guessed from the exception. A kill before the rename leaves the live catalog
untouched; a kill after it leaves stale links, which the next writing command
(or ``repair``) brings in line with the catalog.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from tracewh import __version__, catalog, parquet_settings, signals, synth
from tracewh.catalog import derived
from tracewh.errors import CatalogError, InputError, Interrupted, UsageError
from tracewh.home import Home
from tracewh.ingestion import fastpath, generations, readers
from tracewh.ingestion.generations import DEFAULT_MEMORY_LIMIT, link_generation, new_writer_id
from tracewh.ingestion.generations import source_stem as _stem
from tracewh.options import IngestOptions
from tracewh.quoting import glob_escape, quote_ident, quote_literal
from tracewh.sizes import limit_bytes
from tracewh.traces import ReaderKind, SourceFile, Table, TraceSpec, get_trace, time_macros_sql

GZIP_MAGIC = b"\x1f\x8b"
# For the crash tests: just before it commits, the ingest runs a query that sends the process a
# SIGINT from inside DuckDB (the moments of a commit are signals.pause_point's).
SIGINT_IN_QUERY_ENV = "TRACEWH_TEST_SIGINT_IN_QUERY"
READ_CHUNK = 1 << 20


@dataclass
class FileResult:
    table: str
    name: str
    path: Path
    size: int
    cell: str | None = None
    sha256: str = ""
    verified: bool = False
    rows_written: int = 0
    rows_rejected: int = 0
    duplicate_lines: int | None = None  # lines identical to the one before (readers.LineCount)
    started: datetime | None = None
    finished: datetime | None = None
    rejects: list[tuple] = field(default_factory=list)
    source: Path = Path()
    damage: str | None = None  # why the file's gzip stream is broken, found while hashing
    synthetic: synth.Origin | None = None  # the synth manifest's record of a generated file
    text: readers.LineCount | None = None  # its lines, counted while hashing (not for archives)
    fast: bool = False  # converted by the strict fast path (tracewh.ingestion.fastpath), not the exact one

    @property
    def rows_read(self) -> int:
        return self.rows_written + self.rows_rejected

    @property
    def part(self) -> tuple[str, str | None, str]:
        return part_key(self.table, self.cell, self.name)


@dataclass
class TableResult:
    table: str
    files: list[FileResult]
    skipped: list[str]
    rows_total: int = 0  # rows in the live table after the ingest (kept parts included)


@dataclass
class IngestResult:
    trace: str
    ingest_id: str
    mode: str
    tables: list[TableResult]
    seconds: float
    # Wall and CPU time of each phase (Progress.phase), in the order they ran; their wall times
    # add up to ``seconds`` less the discovery of the files.
    phases: list[PhaseTime] = field(default_factory=list)
    # False: every part given was unchanged (all skipped); nothing was written and the catalog was
    # not touched (``ingest_id`` names no ingest in it).
    committed: bool = True

    def __repr__(self) -> str:
        from tracewh.ingestion import notebook

        return notebook.ingest_text(self)

    def _repr_html_(self) -> str:
        from tracewh.ingestion import notebook

        return notebook.ingest_html(self)

    @property
    def files(self) -> list[FileResult]:
        return [f for t in self.tables for f in t.files]


@dataclass(frozen=True)
class PhaseTime:
    name: str  # one of PHASES
    seconds: float  # wall
    cpu_seconds: float  # CPU of this process, every thread (not Spark's executors)


# The phases of an ingest, in the order they run (a phase with nothing to do is left out):
# hashing (sha256, gzip checks of the input), converting (CSV/JSON to Parquet), compacting (merging
# small files), counting (the table stats), deriving (the derived tables, tracewh.catalog.derived),
# committing (the staged catalog and its publication).
PHASES = ("hashing", "converting", "compacting", "counting", "deriving", "committing")


class Progress:
    """What the ingest tells its caller while it runs; the CLI renders it, the library stays silent.

    ``phase`` names each of PHASES as it starts. A phase that reads the input (hashing,
    converting) then opens with ``begin`` and reports the bytes of input it consumes with
    ``advance`` as they are read, not only when a file ends; the advances of one phase add up to
    its ``total_bytes``. Calls come from one thread at a time."""

    def begin(self, files: int, total_bytes: int) -> None: ...

    def phase(self, text: str) -> None: ...

    def advance(self, nbytes: int) -> None: ...

    def file_done(self, result: FileResult) -> None: ...


class _Timed(Progress):
    """The caller's Progress, with the wall and CPU time of each phase kept for IngestResult.phases."""

    def __init__(self, inner: Progress) -> None:
        self.inner = inner
        self.times: list[PhaseTime] = []
        self.current: tuple[str, float, float] | None = None

    def begin(self, files: int, total_bytes: int) -> None:
        self.inner.begin(files, total_bytes)

    def phase(self, text: str) -> None:
        self.stop()
        self.current = (text, time.monotonic(), time.process_time())
        self.inner.phase(text)

    def advance(self, nbytes: int) -> None:
        self.inner.advance(nbytes)

    def file_done(self, result: FileResult) -> None:
        self.inner.file_done(result)

    def stop(self) -> list[PhaseTime]:
        """End the running phase; the phases so far in the order of PHASES, a phase that ran
        twice (committing resumes after deriving) summed."""
        if self.current is not None:
            name, wall, cpu = self.current
            self.times.append(PhaseTime(name, time.monotonic() - wall, time.process_time() - cpu))
            self.current = None
        summed: dict[str, PhaseTime] = {}
        for t in self.times:
            was = summed.get(t.name, PhaseTime(t.name, 0.0, 0.0))
            summed[t.name] = PhaseTime(t.name, was.seconds + t.seconds, was.cpu_seconds + t.cpu_seconds)
        return sorted(summed.values(), key=lambda t: PHASES.index(t.name))


class _Meter:
    """The bytes of one file reported to a Progress: a second read of the file (the exact path
    after the fast path refused it) reports only what goes past
    the bytes reported already), and ``finish`` the rest, so a file adds exactly its size."""

    def __init__(self, progress: Progress, lock: threading.Lock, size: int) -> None:
        self.progress, self.lock, self.size = progress, lock, size
        self.read = self.reported = 0

    def add(self, nbytes: int) -> None:
        self.read += nbytes
        self._report(min(self.read, self.size))

    def again(self) -> None:
        self.read = 0

    def finish(self) -> None:
        self._report(self.size)

    def _report(self, upto: int) -> None:
        if upto > self.reported:
            with self.lock:
                self.progress.advance(upto - self.reported)
            self.reported = upto


def part_key(table: str, cell: str | None, name: str) -> tuple[str, str | None, str]:
    """What identifies a part across ingests: ``x.csv``, ``x.csv.gz`` and ``x.tar.gz`` are one part."""
    return (table, cell, _stem(name))


def ingest(
    home: Home,
    trace_name: str,
    source: Path | str | Sequence[Path | str],
    options: IngestOptions | None = None,
    *,
    memory_limit: str | None = None,
    progress: Progress | None = None,
    spark: Any = None,
) -> IngestResult:
    """Ingest the raw files of ``source`` as ``options`` say (tracewh.options.IngestOptions: checked
    when it was made; None: the defaults). ``spark``: a SparkSession to convert the files on (one
    task per file, warehouse/engines/spark.py); None converts them on local threads. Everything else
    (checks, commit) runs here either way. ``compact`` of the options: merge the small Parquet
    files of each day folder of the new generations (tracewh.ingestion.compaction); without it
    each part keeps its own files."""
    opts = options or IngestOptions()
    replace, workers = opts.replace, opts.workers
    ingest_id = new_writer_id()
    # Ctrl-C inside a DuckDB query reaches Python as DuckDB's own error ("Query interrupted"), or
    # not at all when the query ends first: whether one came is noticed here, and the answer to it
    # is always the same (Interrupted, saying whether this ingest committed, read from the catalog).
    with signals.noticed() as caught:
        try:
            trace = get_trace(trace_name)
            # The limit is the whole process's budget: every DuckDB database the ingest opens (the
            # conversion's, then the staged catalog's for the derived build) gets DuckDB's share.
            memory_limit = catalog.pool_limit(catalog.memory_limit(memory_limit, DEFAULT_MEMORY_LIMIT))
            progress = clock = _Timed(progress or Progress())
            started = time.monotonic()
            sources = _discover(trace, source, opts)
            home.ensure_writable()
            mode = opts.mode
            with home.writer_lock():
                named, current, kept = _look(home, trace_name)
                # The catalog is the truth: links a killed writer left stale are mended first.
                catalog.sync_links(home, catalog.table_dirs(named))
                catalog.collect_garbage(home, named)
                live = {n: d for (t, n), d in catalog.table_dirs(named).items() if t == trace_name}
                results = [
                    FileResult(
                        s.table,
                        s.name,
                        s.path,
                        s.path.stat().st_size,
                        s.cell,
                        source=src,
                        synthetic=synth.origin(s.path, trace_name),
                    )
                    for src, s in sources
                ]
                progress.phase("hashing")
                for r in results:
                    _precheck(r)
                progress.begin(len(results), sum(r.size for r in results))
                if spark is not None:
                    from tracewh.engines import spark as spark_engine

                    spark_engine.hash_files(
                        spark, results, _hash_and_check
                    )  # a task per file, where it is read
                    progress.advance(sum(r.size for r in results))
                else:
                    _hash_all(results, workers, progress)
                _verify(trace, sources, results, opts.verify)
                for r in results:
                    if r.damage:
                        raise InputError(
                            f"{r.table}/{r.name}: {r.damage}; the file is damaged, fetch it again"
                        )
                by_table: dict[str, list[FileResult]] = {}
                for r in results:
                    by_table.setdefault(r.table, []).append(r)
                skipped: dict[str, list[str]] = {}
                if not replace:
                    for table, rs in by_table.items():
                        by_table[table], skipped[table] = _drop_unchanged(table, rs, current, opts.append)
                work = {t: rs for t, rs in by_table.items() if rs}
                # Every part unchanged: nothing to write, and no catalog is staged or published
                # (the result says so: committed False, every part counted as skipped).
                stats: dict[str, dict] = {}
                if work:
                    new_gens: dict[str, Path] = {}
                    derived_gens: list[Path] = []
                    dropped: dict[str, dict[str | None, set[int]]] = {}  # table -> cell -> part numbers
                    tmp = home.tmp / ingest_id
                    try:
                        for table_name, rs in work.items():
                            gen = home.generations(trace_name) / f"{table_name}.{ingest_id}"
                            gen.mkdir(parents=True)
                            new_gens[table_name] = gen
                            if table_name in live and not replace:
                                link_generation(home.root / live[table_name], gen, {r.part for r in rs})
                                # rows of a rewritten part also sit in compacted files (several parts each)
                                for r in rs:
                                    if r.part in current:
                                        dropped.setdefault(table_name, {}).setdefault(r.cell, set()).add(
                                            trace.file_order(r.name)
                                        )
                        todo = [r for rs in work.values() for r in rs]
                        progress.phase("converting")
                        progress.begin(len(todo), sum(r.size for r in todo))
                        signals.pause_point("converting")
                        stats = _convert(
                            trace,
                            todo,
                            new_gens,
                            tmp,
                            memory_limit,
                            workers,
                            progress,
                            ingest_id,
                            spark,
                            dropped,
                            opts.compact,
                        )
                        _check_rows(todo, opts.allow_empty)
                        if os.environ.get(SIGINT_IN_QUERY_ENV):
                            _sigint_inside_a_query()
                        # The derived build reads the new events through the staged catalog's views
                        # (written by _record): "deriving" runs inside the commit, timed apart from it.
                        progress.phase("committing")
                        with catalog.staged(home, ingest_id) as stage:
                            assert stage.con is not None
                            events = derived.source_table(trace_name)
                            usage = derived.source_table(trace_name, derived.USAGE_INPUT)
                            plan = usage_plan = None
                            walks = derived.walks(trace_name, set(work))
                            if events in work or usage in work or walks:
                                tmp.mkdir(parents=True, exist_ok=True)
                                stage.con.execute(f"SET memory_limit = {quote_literal(memory_limit)}")
                                stage.con.execute(f"SET temp_directory = {quote_literal(tmp)}")
                            if events in work:
                                # the derived layer from the new events, in the same commit
                                written = [(r.cell, trace.file_order(r.name)) for r in work[events]]
                                plan = derived.plan(stage.con, trace_name, written, replace)
                            if usage in work:
                                # the usage rollups from the new windows, in the same commit
                                written = [(r.cell, trace.file_order(r.name)) for r in work[usage]]
                                usage_plan = derived.plan_usage(stage.con, trace_name, written, replace)
                            deriving = plan is not None or usage_plan is not None or bool(walks)
                            _record(
                                stage.con,
                                home,
                                trace_name,
                                ingest_id,
                                work,
                                current,
                                new_gens,
                                stats,
                                mode,
                                derived_views=not deriving,
                            )
                            if deriving:
                                progress.phase("deriving")
                                # The builds are long queries: a Ctrl-C or SIGTERM interrupts the
                                # running one (Python's handler cannot run while DuckDB works).
                                # (the folder the builders write, removed if they stop halfway)
                                derived_gens.append(derived.generation_path(home, trace_name, ingest_id))
                                with signals.interrupting(stage.con.interrupt):
                                    # every query of the builders reads this trace's rows alone:
                                    # its time macros as constants, put back before the commit
                                    # (after a failure the staged catalog is dropped whole)
                                    stage.con.execute(time_macros_sql(only=trace_name))
                                    if plan is not None:
                                        derived_gens += derived.build(stage.con, home, plan, ingest_id)
                                    if usage_plan is not None:
                                        # after the attempts: the tables of their windows read them
                                        derived_gens += derived.build_usage(
                                            stage.con, home, usage_plan, ingest_id
                                        )
                                    if walks:
                                        derived_gens += derived.build_walks(
                                            stage.con, home, trace_name, set(work), ingest_id
                                        )
                                    stage.con.execute(time_macros_sql())
                                    # the derived views point at the new files once, after every builder
                                    derived.create_views(stage.con, home, check_outdated=False)
                                signals.pause_point("derived tables built")
                                progress.phase("committing")
                            # what the new catalog names and holds, read before it is closed
                            # (each later read would open the published file again)
                            after = catalog.named_dirs(stage.con)
                            kept = _rows_of(stage.con, trace_name)
                        with signals.deferred():
                            catalog.publish(home, stage, named)
                            catalog.sync_links(home, catalog.table_dirs(after))
                    except BaseException:
                        committed = _committed(home, ingest_id)
                        if not committed:
                            for gen in [*new_gens.values(), *derived_gens]:
                                shutil.rmtree(gen, ignore_errors=True)
                        shutil.rmtree(tmp, ignore_errors=True)
                        raise
                    shutil.rmtree(tmp, ignore_errors=True)
                    catalog.collect_garbage(home, after)
            phases = clock.stop()
            table_results = [
                TableResult(
                    t, work.get(t, []), skipped.get(t, []), stats[t]["rows"] if t in stats else kept.get(t, 0)
                )
                for t in by_table
            ]
            result = IngestResult(
                trace_name, ingest_id, mode, table_results, time.monotonic() - started, phases, bool(work)
            )
        except Interrupted:
            raise
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt) or caught:
                raise Interrupted(_interrupted(home, ingest_id)) from e
            raise
    if caught:  # a Ctrl-C DuckDB swallowed: the ingest ran on, the user still hears of it
        raise Interrupted(_interrupted(home, ingest_id))
    return result


def _discover(
    trace: TraceSpec, source: Path | str | Sequence[Path | str], opts: IngestOptions
) -> list[tuple[Path, SourceFile]]:
    """Every source's files, in order, each path once; the options' ``parts`` selects part numbers; two files
    for one part (``x.csv`` and ``x.csv.gz``) are a usage error."""
    roots = [Path(source)] if isinstance(source, str | Path) else [Path(p) for p in source]
    if not roots:
        raise UsageError("no source given")
    found: list[tuple[Path, SourceFile]] = []
    seen_paths: set[tuple[Path, str]] = set()  # an archive holding every table is read per table
    for root in roots:
        try:
            files = trace.discover(root, opts.tables, opts.table_for_file, opts.cell)
        except OSError as e:
            raise InputError(f"{root}: {e.strerror or e}") from e
        for s in files:
            real = (Path(os.path.realpath(s.path)), s.table)  # no error on a symlink loop
            if real not in seen_paths:
                seen_paths.add(real)
                found.append((root, s))
    wanted = opts.part_numbers()
    if wanted is not None:
        found = [(root, s) for root, s in found if trace.file_order(s.name) in wanted]
        if not found:
            raise InputError(f"no {trace.name} part numbered {opts.parts} in the sources given")
    for _, s in found:
        if not s.path.is_file():
            what = "a folder" if s.path.is_dir() else "a broken link or not a regular file"
            raise InputError(f"{s.path}: is {what}, not a {trace.name} file")
    by_part: dict[tuple[str, str | None, str], Path] = {}
    for _, s in found:
        key = part_key(s.table, s.cell, s.name)
        if key in by_part:
            raise UsageError(f"{s.path} and {by_part[key]} are the same part; ingest one of them")
        by_part[key] = s.path
    return found


def _look(
    home: Home, trace_name: str
) -> tuple[
    dict[tuple[str, str], str], dict[tuple[str, str | None, str], tuple[str, int, str]], dict[str, int]
]:
    """One read of the live catalog as an ingest starts, under the writer lock (each read opens
    the file): its format checked; the generation folders it names (catalog.kept_dirs); part ->
    (file, size, sha256) of every current part of the trace; table -> rows (meta.tables) of the
    trace's tables. All empty before the first ingest."""
    if not home.catalog.exists():
        return {}, {}, {}
    con = catalog.open_file(home.catalog)
    try:
        catalog.check_format(con, home)
        named = catalog.named_dirs(con)
        rows = con.execute(
            "SELECT table_name, cell, file, size_bytes, sha256 FROM meta.ingests "
            "WHERE trace = $t AND is_current",
            {"t": trace_name},
        ).fetchall()
        current = {part_key(t, c, f): (f, size, sha) for t, c, f, size, sha in rows}
        return named, current, _rows_of(con, trace_name)
    finally:
        con.close()


def _rows_of(con: duckdb.DuckDBPyConnection, trace_name: str) -> dict[str, int]:
    """table -> rows in its live generation (meta.tables): what a table the ingest left as it was holds."""
    rows = con.execute(
        "SELECT table_name, rows FROM meta.tables WHERE trace = $t", {"t": trace_name}
    ).fetchall()
    return {n: int(r) for n, r in rows}


def _sigint_inside_a_query() -> None:
    """The crash tests' Ctrl-C that lands while DuckDB runs a query (DuckDB then raises its own
    error, not KeyboardInterrupt): a query that runs until it is stopped, and one SIGINT sent once
    this thread is in the call that runs it. DuckDB sometimes drops the signal (the "swallowed"
    Ctrl-C, noticed all the same by ``signals.noticed``): the query is then stopped after 2 s."""
    con = duckdb.connect()
    try:
        signals.endless_query(con, lambda: os.kill(os.getpid(), signal.SIGINT), give_up_s=2)
    finally:
        con.close()


def _interrupted(home: Home, ingest_id: str) -> str:
    if _committed(home, ingest_id):
        return f"interrupted after the commit: ingest {ingest_id} is complete"
    return "interrupted; nothing was committed, the warehouse is as it was"


def _committed(home: Home, ingest_id: str) -> bool:
    """Did this ingest commit? Read from the live catalog; when it cannot be read, assume it did
    (keeping a generation costs disk space until the next ingest; deleting a live one loses data)."""
    if not home.catalog.exists():
        return False
    try:
        con = catalog.open_file(home.catalog)
        try:
            row = con.execute(
                "SELECT count(*) FROM meta.ingests WHERE ingest_id = $i", {"i": ingest_id}
            ).fetchone()
        finally:
            con.close()
    except (duckdb.Error, OSError, CatalogError):
        return True
    return bool(row and row[0])


def _precheck(r: FileResult) -> None:
    if r.size == 0:
        raise InputError(f"{r.table}/{r.name}: empty file (0 bytes)")
    if r.name.endswith(".gz"):
        with open(r.path, "rb") as fh:
            if fh.read(2) != GZIP_MAGIC:
                raise InputError(f"{r.table}/{r.name}: not a gzip file (the name ends in .gz)")


def _hash_all(results: list[FileResult], workers: int | None, progress: Progress) -> None:
    lock = threading.Lock()
    with ThreadPoolExecutor(_worker_count(workers, len(results))) as ex:
        list(ex.map(lambda r: _hash_and_check(r, _Meter(progress, lock, r.size)), results))


def _hash_and_check(r: FileResult, meter: _Meter | None = None) -> None:
    """sha256 of the file; for a gzip that is not a ``.csv.gz`` also the CRC-32 and length of
    every member, in the same read (DuckDB's gzip reader checks neither: a flipped bit would give
    wrong values silently). A ``.csv.gz`` is checked while it streams into DuckDB (one inflate,
    not two); see readers.streamed. Lines are counted where the text passes by."""
    h = hashlib.sha256()
    name = r.name
    streamed_gz = name.endswith(".csv.gz")
    gz = readers.GzipCheck() if name.endswith(".gz") and not streamed_gz else None
    text = None if name.endswith(".tar.gz") or streamed_gz else readers.LineCount()
    with open(r.path, "rb") as fh:
        while chunk := fh.read(READ_CHUNK):
            if meter is not None:
                meter.add(len(chunk))
            h.update(chunk)
            if gz is not None:
                for out in gz.inflate(chunk):
                    if text is not None:
                        text.feed(out)
            elif text is not None:
                text.feed(chunk)
    if gz is not None:
        gz.finish()
        r.damage = gz.damage
    r.sha256 = h.hexdigest()
    r.text = text


def _verify(
    trace: TraceSpec, sources: list[tuple[Path, SourceFile]], results: list[FileResult], verify: bool
) -> None:
    """Compare each file with the digest the trace publishes for it, if any; mismatches are fatal."""
    if not verify:
        return
    for (root, s), r in zip(sources, results, strict=True):
        if r.synthetic is not None:
            # a synthetic file has no published digest: its own manifest's is the one to match
            if r.synthetic.sha256 != r.sha256:
                raise InputError(
                    f"{r.table}/{r.name}: sha256 {r.sha256[:12]}... does not match the digest in its "
                    f"synth manifest ({r.synthetic.sha256[:12]}...): the file changed since tracewh synth "
                    "wrote it; generate it again or pass --no-verify"
                )
            r.verified = True
            continue
        want = trace.expected_sha256(root, s)
        if want is None:
            continue
        if want != r.sha256:
            raise InputError(
                f"{r.table}/{r.name}: sha256 {r.sha256[:12]}... does not match the published digest "
                f"({want[:12]}...): the download is damaged; fetch it again or pass --no-verify"
            )
        r.verified = True


def _drop_unchanged(
    table: str,
    rs: list[FileResult],
    current: dict[tuple[str, str | None, str], tuple[str, int, str]],
    append: bool,
) -> tuple[list[FileResult], list[str]]:
    """Parts ingested already with the same name, size and sha256 are skipped; with ``append`` a
    part ingested with other content is refused instead of replaced."""
    keep, skipped = [], []
    for r in rs:
        have = current.get(r.part)
        if have is None:
            keep.append(r)
        elif have == (r.name, r.size, r.sha256):
            skipped.append(r.name)
        elif append:
            raise InputError(
                f"{table}/{r.name}: this part was already ingested ({have[0]}) with a different size "
                "or sha256; --append only adds new parts (run without it to replace the part)"
            )
        else:
            keep.append(r)
    return keep, skipped


def _check_rows(todo: list[FileResult], allow_empty: bool) -> None:
    """A file that adds no rows is almost always a mistake (an empty download, a header-only file,
    another trace's file given with --table): refuse it before anything is committed."""
    for r in todo:
        if r.rows_written:
            continue
        if r.rows_rejected:
            line, _, _, reason, _ = r.rejects[0]
            raise InputError(
                f"{r.table}/{r.name}: all {r.rows_rejected:,} line(s) were rejected (line {line}: "
                f"{reason}); is it a file of this table?"
            )
        if not allow_empty:
            raise InputError(f"{r.table}/{r.name}: no rows; pass --allow-empty if an empty part is expected")


def _worker_count(workers: int | None, jobs: int) -> int:
    return max(1, min(workers or os.cpu_count() or 1, max(jobs, 1)))


def _convert(
    trace: TraceSpec,
    todo: list[FileResult],
    gens: dict[str, Path],
    tmp: Path,
    memory_limit: str,
    workers: int | None,
    progress: Progress,
    ingest_id: str,
    spark: Any = None,
    dropped: dict[str, dict[str | None, set[int]]] | None = None,
    compact: bool = True,
) -> dict[str, dict]:
    """Convert every file, one COPY per file, files in parallel on single-threaded DuckDB cursors.

    One thread per file keeps each file's rows in source (time) order in its
    Parquet, keeps memory per worker to one file's pipeline, and makes the
    per-file accounting exact (the COPY count and that file's reject table).
    """
    tmp.mkdir(parents=True, exist_ok=True)
    # The fast path's workers hold their row groups outside DuckDB's pool: while they run, DuckDB
    # gets the pool less what they may hold (parquet_settings.fast_path_bytes), and the whole pool
    # again for the compaction and the counts once they are done.
    count = _worker_count(workers, len(todo))
    pool = limit_bytes(memory_limit)
    held = parquet_settings.fast_path_bytes(pool, count)
    db = duckdb.connect(
        config={
            "threads": 1,
            "memory_limit": memory_limit if pool is None or held is None else f"{pool - held * count}B",
            "temp_directory": str(tmp),
            "preserve_insertion_order": True,
        }
    )
    lock = threading.Lock()
    counter = iter(range(1_000_000_000))
    cursors: list[duckdb.DuckDBPyConnection] = []

    def one(r: FileResult) -> None:
        with lock:
            n = next(counter)
            cur = db.cursor()
            cursors.append(cur)
        meter = _Meter(progress, lock, r.size)
        try:
            _convert_file(cur, trace, trace.tables[r.table], r, gens[r.table], n, tmp, ingest_id, meter, held)
        finally:
            cur.close()
        meter.finish()
        with lock:
            progress.file_done(r)

    if spark is not None:
        from tracewh.engines import spark as spark_engine

        # The same per-file conversion as Spark tasks; the threads below then have nothing left.
        converted = spark_engine.convert_files(
            spark, trace.name, todo, gens, tmp, memory_limit, ingest_id, _convert_file
        )
        for r, done in zip(todo, converted, strict=True):
            vars(r).update(vars(done))
            _Meter(progress, lock, r.size).finish()
            progress.file_done(r)
        todo = []
    try:
        with ThreadPoolExecutor(count) as ex:
            futures = [ex.submit(one, r) for r in todo]
            try:
                for fut in futures:
                    fut.result()
            except BaseException:
                for f in futures:
                    f.cancel()
                with lock:
                    for cur in cursors:
                        with contextlib.suppress(duckdb.Error):
                            cur.interrupt()
                raise
        # The workers' row groups are written: their memory goes back to the system before
        # DuckDB may fill its whole pool (Arrow's allocator keeps what a finished thread freed).
        fastpath.release()
        db.execute(f"SET memory_limit = {quote_literal(memory_limit)}")
        # Compaction and the stats scan the whole new generation: every core helps, memory stays
        # under the limit.
        db.execute(f"SET threads = {os.cpu_count() or 1}")
        catalog.no_progress_bar(db)
        from tracewh.ingestion import compaction  # it builds on this module's name rule and linking

        if compact and gens:
            progress.phase("compacting")
        for name, gen in gens.items():
            compaction.drop_parts(db, gen, (dropped or {}).get(name, {}), ingest_id)
            if compact:
                compaction.merge_small(db, gen, ingest_id)
        if gens:
            progress.phase("counting")
        return {name: _table_stats(db, trace.name, trace.tables[name], gen) for name, gen in gens.items()}
    finally:
        db.close()


def _convert_file(
    cur: duckdb.DuckDBPyConnection,
    trace: TraceSpec,
    table: Table,
    r: FileResult,
    gen: Path,
    n: int,
    tmp: Path,
    ingest_id: str,
    meter: _Meter | None = None,
    held: int | None = None,
) -> None:
    """Convert one file: the fast path, else the exact path. ``held``: the bytes of rows the fast
    path may hold (parquet_settings.fast_path_bytes); None (a Spark task: the executor's memory is
    Spark's, not the ingest's budget) leaves its row groups at parquet_settings.RAW's size."""
    r.started = datetime.now(timezone.utc)
    out = gen / f"cell={r.cell}" if r.cell else gen
    order = trace.file_order(r.name)
    stem = f"{_stem(r.name)}.{ingest_id}"  # a name no live file has (see tracewh.ingestion.generations)
    # The strict fast path first; a file it refuses is converted by the exact path, which records
    # every reject with its line.
    meter = meter or _Meter(Progress(), threading.Lock(), r.size)
    r.fast = fastpath.takes(trace, table, r.name) and fastpath.convert(
        trace, table, r, out, stem, order, meter.add, held
    )
    if not r.fast:
        meter.again()
        _CONVERTERS[trace.reader](cur, table, r, out, stem, order, trace, n, tmp, meter.add)
    r.rows_rejected = len(r.rejects)
    r.finished = datetime.now(timezone.utc)


def _convert_ndjson(
    cur: duckdb.DuckDBPyConnection,
    table: Table,
    r: FileResult,
    out: Path,
    stem: str,
    order: int,
    trace: TraceSpec,
    n: int,
    tmp: Path,
    on_bytes: Callable[[int], None],
) -> None:
    """A JSON-lines file: one COPY through the fast reader; if it refuses the file, the bad lines
    are split off first and the good ones read alike."""
    try:
        reader = readers.json_reader(table, r.path)
        r.rows_written = _copy(cur, table, reader, out, stem, order, trace, r, text_ints=False)
        r.duplicate_lines = r.text.duplicates if r.text is not None else None
        if r.text is None or r.rows_written != r.text.total:  # some rows refused (or blank lines)
            r.rejects = _checked_rejects(cur, table, reader, r, set(), False, trace.negative_times)
    except InputError:
        # The fast reader refused the file: find the bad lines, read the good ones alike.
        for partial in out.rglob("*.parquet"):
            if partial.name.startswith(stem):  # only this file's output, never a linked one
                partial.unlink()
        clean = tmp / f"{n}-{stem}.json"
        try:
            r.rejects = readers.split_json_file(table, r.path, clean)
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(f"{r.table}/{r.name}: {e}") from e
        reader = readers.json_reader(table, clean)
        r.rows_written = _copy(cur, table, reader, out, stem, order, trace, r, text_ints=False)
        r.rejects += _checked_rejects(
            cur, table, reader, r, {line for line, *_ in r.rejects}, False, trace.negative_times
        )
        clean.unlink()


def _convert_csv(
    cur: duckdb.DuckDBPyConnection,
    table: Table,
    r: FileResult,
    out: Path,
    stem: str,
    order: int,
    trace: TraceSpec,
    n: int,
    tmp: Path,
    on_bytes: Callable[[int], None],
) -> None:
    """A CSV file: one COPY of its good rows; its rejects from DuckDB's reject table (malformed
    lines) and, only when the counts show some, from a second pass (rows the checks refuse)."""
    cr = r.text is not None and r.text.cr  # a plain file with CRs: through the LineFixer
    rejects, scans = f"rejects_{n}", f"reject_scans_{n}"
    failed: InputError | None = None
    with readers.streamed(r.path, tmp / f"{n}.fifo", cr=cr, member=table.member, on_bytes=on_bytes) as feed:
        reader = readers.csv_reader(table, feed.path, rejects, scans)
        try:
            r.rows_written = _copy(cur, table, reader, out, stem, order, trace, r, text_ints=True)
        except InputError as e:
            failed = e
    # After the feeder has ended: its finding explains a failed read better than DuckDB's error.
    if isinstance(feed.failure, readers.ArchiveRefused):
        raise InputError(f"{r.table}/{r.name}: {feed.failure}")
    if feed.failure is not None:
        raise InputError(f"{r.table}/{r.name}: {feed.failure}; the file is damaged, fetch it again")
    if failed is not None:
        raise failed
    count = feed.count if feed.path != r.path else r.text
    r.duplicate_lines = count.duplicates if count is not None else None
    cr_rejects = feed.fixer.rejects
    malformed = cur.execute(readers.csv_rejects_sql(rejects)).fetchall()
    skipped = {line for line, *_ in malformed} | {line for line, *_ in cr_rejects}
    checked: list[tuple] = []
    if count is None or r.rows_written + len(skipped) != count.total:
        # Rows are missing: the checks refused some (or the file has blank lines). Find which.
        rejects2, scans2 = f"rejects_{n}_again", f"reject_scans_{n}_again"
        with readers.streamed(r.path, tmp / f"{n}.fifo", cr=cr, member=table.member) as again:
            reader = readers.csv_reader(table, again.path, rejects2, scans2)
            checked = _checked_rejects(cur, table, reader, r, skipped, True, trace.negative_times)
    if malformed:
        # DuckDB's raw text turns bytes that are not UTF-8 into '?': take the line from the file.
        _, by_line = readers.locate(r.path, set(), {line for line, *_ in malformed}, set(), table.member)
        malformed = [
            (line, col, kind, reason, by_line.get(line, raw)) for line, col, kind, reason, raw in malformed
        ]
    r.rejects = sorted(malformed + cr_rejects + checked, key=lambda x: x[0])


# One converter per reader kind a trace spec may declare (traces.ReaderKind).
_CONVERTERS: dict[ReaderKind, Callable[..., None]] = {"csv": _convert_csv, "ndjson": _convert_ndjson}


def _checked_rejects(
    cur: duckdb.DuckDBPyConnection,
    table: Table,
    reader: str,
    r: FileResult,
    skipped: set[int],
    text_ints: bool,
    negative: bool,
) -> list[tuple]:
    """The rows the checks refuse, as rejects with their line number and raw text."""
    try:
        # Every column is selected: DuckDB checks a line's encoding only in the columns a query reads,
        # and the row numbers must count the same lines as in the COPY.
        cur.execute(
            f"SELECT * FROM {readers.checked(table, reader, text_ints=text_ints, negative_times=negative)} "
            f"WHERE {readers.PROBLEM} IS NOT NULL ORDER BY {readers.LINE}"
        )
        names = [d[0] for d in cur.description or []]
        wanted = (readers.LINE, readers.PROBLEM_COLUMN, readers.PROBLEM_KIND, readers.PROBLEM)
        at = [names.index(c) for c in wanted]
        bad = [tuple(row[i] for i in at) for row in cur.fetchall()]
    except duckdb.Error as e:
        raise InputError(f"{r.table}/{r.name}: {_first_line(e)}") from e
    if not bad:
        return []
    by_row, _ = readers.locate(r.path, {row for row, *_ in bad}, set(), skipped, table.member)
    out = []
    for row, col, kind, problem in bad:
        line, raw = by_row.get(row, (None, None))
        out.append((line, col, kind, problem, raw))
    return out


def _copy(
    cur: duckdb.DuckDBPyConnection,
    table: Table,
    reader: str,
    out: Path,
    stem: str,
    order: int,
    trace: TraceSpec,
    r: FileResult,
    *,
    text_ints: bool,
) -> int:
    """One COPY of the rows that pass the checks into the generation folder; returns the rows written."""
    if table.partition_time:
        target = quote_literal(out)
        opts = (
            f", PARTITION_BY (day), FILENAME_PATTERN {quote_literal(stem + '_{i}')}, OVERWRITE_OR_IGNORE true"
        )
    else:
        out.mkdir(parents=True, exist_ok=True)
        target = quote_literal(out / f"{stem}.parquet")
        opts = ""
    sql = (
        f"COPY (SELECT {readers.select_list(table, order, trace)} "
        f"FROM {readers.checked(table, reader, text_ints=text_ints, negative_times=trace.negative_times)} "
        f"WHERE {readers.PROBLEM} IS NULL) TO {target} "
        f"({parquet_settings.copy_options(parquet_settings.RAW)}{opts})"
    )
    try:
        row = cur.execute(sql).fetchone()
    except duckdb.Error as e:
        raise InputError(f"{r.table}/{r.name}: {_first_line(e)}") from e
    return int(row[0]) if row else 0


def _table_stats(db: duckdb.DuckDBPyConnection, trace_name: str, table: Table, gen: Path) -> dict:
    files = sorted(gen.rglob("*.parquet"))
    stats: dict = {
        "files": len(files),
        "bytes": sum(f.stat().st_size for f in files),
        "partitions": len({f.parent for f in files}) if catalog.partition_columns(trace_name, table) else 0,
        "rows": 0,
        "min_time": None,
        "max_time": None,
        "jobs": None,
        "tasks": None,
        "machines": None,
    }
    facts = _file_facts(db, trace_name, table, gen, files)
    if not files:
        return stats

    def read(kind: str) -> str:
        return f"read_parquet([{', '.join(quote_literal(glob_escape(f)) for f in facts[kind])}])"

    row = db.execute(f"SELECT sum(rows), min(min_time), max(max_time) FROM {read('rows')}").fetchone()
    # Jobs and machines are few (exact counts, small hash tables). Tasks are tens of millions: a
    # count(DISTINCT) keeps them all in memory, but a DISTINCT grouping spills under the memory
    # limit, so their count is exact too, in a scan of its own (a HyperLogLog estimate was off by
    # 2.7% on real task events). Separate scans, not one (issue 13): DuckDB runs count(DISTINCT)
    # beside other aggregates with a plan whose memory grows with the rows (1,046 MB peak at 29 M
    # task events, against 88 MB + 95 MB for the two queries alone; bench/RESULTS.md, "Whole
    # trace: what the figures say"). Each reads the files' distinct keys (_file_facts), not the rows.
    tasks = None
    if "tasks" in facts:
        key = ", ".join(quote_ident(c) for c in table.entities["tasks"])
        tasks = db.execute(f"SELECT count(*) FROM (SELECT DISTINCT {key} FROM {read('tasks')})").fetchone()
    exact = [
        db.execute(f"SELECT count(DISTINCT {table.entity_sql(k)}) FROM {read(k)}").fetchone()
        if k in facts
        else None
        for k in ("jobs", "machines")
    ]
    assert row is not None
    stats.update(
        rows=int(row[0]),
        min_time=row[1],
        max_time=row[2],
        jobs=exact[0][0] if exact[0] else None,
        tasks=tasks[0] if tasks else None,
        machines=exact[1][0] if exact[1] else None,
    )
    return stats


def _file_facts(
    db: duckdb.DuckDBPyConnection, trace_name: str, table: Table, gen: Path, files: list[Path]
) -> dict[str, list[Path]]:
    """The facts of each Parquet file of a new generation (generations.fact_file): those the
    generation linked with the files it kept, the others computed from their file and written
    (renamed into place whole); facts of files no longer in the generation removed. Kind -> files."""
    times = [c.name for c in table.columns if c.is_time]
    # A table without a time column (a plain machine list) has no time range.
    tcol = quote_ident(times[0]) if times else "NULL::BIGINT"
    in_window = get_trace(trace_name).in_window_sql(tcol) if times else "false"
    queries = {
        "rows": f"SELECT count(*) AS rows, min({tcol}) FILTER ({in_window}) AS min_time, "
        f"max({tcol}) FILTER ({in_window}) AS max_time",
        **{
            k: f"SELECT DISTINCT {', '.join(quote_ident(c) for c in table.entities[k])}"
            for k in generations.FACT_KINDS
            if k != "rows" and table.entities.get(k)
        },
    }
    out: dict[str, list[Path]] = {kind: [] for kind in queries}
    for kind, select in queries.items():
        folder = f"{kind}.{hashlib.sha256(select.encode()).hexdigest()[:16]}"
        for f in files:
            fact = generations.fact_file(gen, folder, f)
            if not fact.is_file():
                fact.parent.mkdir(parents=True, exist_ok=True)
                tmp = fact.with_name(f"{fact.name}.tmp")
                db.execute(
                    f"COPY ({select} FROM read_parquet({quote_literal(glob_escape(f))})) "
                    f"TO {quote_literal(tmp)} (FORMAT parquet, COMPRESSION zstd)"
                )
                os.replace(tmp, fact)
            out[kind].append(fact)
    generations.prune_facts(gen, {x for xs in out.values() for x in xs})
    return out


def _record(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    trace_name: str,
    ingest_id: str,
    work: dict[str, list[FileResult]],
    current: dict[tuple[str, str | None, str], tuple[str, int, str]],
    gens: dict[str, Path],
    stats: dict[str, dict],
    mode: str,
    derived_views: bool = True,
) -> None:
    """The ingest's rows in the staged catalog: superseded files, new files, rejects, table stats;
    the views of the tables it wrote re-pointed (catalog.refresh; the derived views too unless the
    caller makes them after its derived builds: ``derived_views`` False)."""
    spec = get_trace(trace_name)
    for table_name, rs in work.items():
        params = {"t": trace_name, "n": table_name}
        if mode == "replace":
            con.execute(
                "UPDATE meta.ingests SET is_current = false WHERE trace = $t AND table_name = $n", params
            )
        else:
            for r in rs:
                if r.part in current:
                    con.execute(
                        "UPDATE meta.ingests SET is_current = false WHERE trace = $t AND table_name = $n "
                        "AND cell IS NOT DISTINCT FROM $cell AND file = $file AND is_current",
                        {**params, "cell": r.cell, "file": current[r.part][0]},
                    )
        for r in rs:
            con.execute(
                # by column name: the table's column order is sql/meta/00_meta.sql's business
                "INSERT INTO meta.ingests BY NAME SELECT $id AS ingest_id, $t AS trace, $n AS table_name, "
                "$cell AS cell, $file AS file, $path AS source_path, $size AS size_bytes, $sha AS sha256, "
                "$ver AS sha256_verified, $read AS rows_read, $written AS rows_written, "
                "$rejected AS rows_rejected, $dup AS duplicate_lines, $started AS started, "
                "$finished AS finished, $mode AS mode, "
                "true AS is_current, $version AS tracewh_version",
                {
                    **params,
                    "id": ingest_id,
                    "cell": r.cell,
                    "file": r.name,
                    "path": str(r.path.resolve()),
                    "size": r.size,
                    "sha": r.sha256,
                    "ver": r.verified,
                    "read": r.rows_read,
                    "written": r.rows_written,
                    "rejected": r.rows_rejected,
                    "dup": r.duplicate_lines,
                    "started": r.started,
                    "finished": r.finished,
                    "mode": mode,
                    "version": __version__,
                },
            )
            if r.synthetic is not None:
                con.execute(
                    "INSERT INTO meta.synthetic BY NAME SELECT $id AS ingest_id, $t AS trace, "
                    "$n AS table_name, $cell AS cell, $file AS file, $seed AS seed, $scale AS scale, "
                    "$gen AS generator_version",
                    {
                        **params,
                        "id": ingest_id,
                        "cell": r.cell,
                        "file": r.name,
                        "seed": r.synthetic.seed,
                        "scale": r.synthetic.scale,
                        "gen": r.synthetic.generator_version,
                    },
                )
            if r.rejects:
                con.executemany(
                    "INSERT INTO meta.rejects BY NAME SELECT ? AS ingest_id, ? AS trace, "
                    "? AS table_name, ? AS cell, ? AS file, ? AS line, ? AS column_name, "
                    "? AS error_type, ? AS reason, ? AS raw",
                    [
                        (ingest_id, trace_name, table_name, r.cell, r.name, line, col, etype, reason, raw)
                        for line, col, etype, reason, raw in r.rejects
                    ],
                )
        s = stats[table_name]
        con.execute(
            "INSERT OR REPLACE INTO meta.tables BY NAME SELECT $t AS trace, $n AS table_name, "
            "$dir AS data_dir, $files AS files, $parts AS partitions, $bytes AS bytes, $rows AS rows, "
            "(SELECT coalesce(sum(rows_rejected), 0) FROM meta.ingests "
            "  WHERE trace = $t AND table_name = $n AND is_current) AS rows_rejected, "
            "$min AS min_time, $max AS max_time, $first AS first_time, $last AS last_time, "
            "$jobs AS distinct_jobs, $tasks AS approx_distinct_tasks, $machines AS distinct_machines, "
            "now() AS updated",
            {
                **params,
                "dir": str(gens[table_name].relative_to(home.root)),
                "files": s["files"],
                "parts": s["partitions"],
                "bytes": s["bytes"],
                "rows": s["rows"],
                "min": s["min_time"],
                "max": s["max_time"],
                "first": spec.timestamp(s["min_time"]),
                "last": spec.timestamp(s["max_time"]),
                "jobs": s["jobs"],
                "tasks": s["tasks"],
                "machines": s["machines"],
            },
        )
    catalog.refresh(con, home, {(trace_name, t) for t in work}, derived_views)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def summarize(results: Iterable[FileResult]) -> dict[str, int]:
    rs = list(results)
    return {
        "files": len(rs),
        "bytes": sum(r.size for r in rs),
        "rows_read": sum(r.rows_read for r in rs),
        "rows_written": sum(r.rows_written for r in rs),
        "rows_rejected": sum(r.rows_rejected for r in rs),
    }
