"""Ingest: raw trace files -> hive-partitioned Parquet generations + catalog metadata, atomically.

How one ingest runs (the catalog is the single commit point):
1. discover the source files (the trace module knows the layout), hash them,
   verify them against the trace's checksum file, and for ``--append`` drop
   the ones already ingested (same name, size and sha256);
2. convert each file with one DuckDB ``COPY`` into a new, immutable
   generation folder of its table (``parquet/<trace>/.gen/<table>.<id>``);
   malformed lines go to DuckDB's reject tables and are counted per file;
   ``--append`` first hard-links the live generation's files into the new one;
3. in one catalog transaction: record every file in ``meta.ingests``, every
   reject in ``meta.rejects``, the table's stats in ``meta.tables``, and
   repoint the views at the new generation;
4. after the commit: point the stable symlink ``parquet/<trace>/<table>`` at
   the new generation and delete the old one.
A failure or a kill before step 3 leaves the catalog untouched; the orphan
generation is deleted by the next ingest. Nothing reads a generation that
the catalog does not name.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
import time
import uuid
import zlib
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from warehouse import __version__, catalog, readers
from warehouse.errors import InputError, TracewhError, UsageError
from warehouse.home import Home
from warehouse.quoting import quote_ident, quote_literal
from warehouse.readers import MAX_TIME
from warehouse.traces import SourceFile, Table, get_trace

GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_MEMORY_LIMIT = "2GB"


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
    started: datetime | None = None
    finished: datetime | None = None
    rejects: list[tuple] = field(default_factory=list)

    @property
    def rows_read(self) -> int:
        return self.rows_written + self.rows_rejected


@dataclass
class TableResult:
    table: str
    files: list[FileResult]
    skipped: list[str]
    rows_total: int = 0  # rows in the live table after the ingest (appended tables include old rows)


@dataclass
class IngestResult:
    trace: str
    ingest_id: str
    mode: str
    tables: list[TableResult]
    seconds: float

    @property
    def files(self) -> list[FileResult]:
        return [f for t in self.tables for f in t.files]


class Progress:
    """What the ingest tells its caller while it runs; the CLI renders it, the library stays silent."""

    def begin(self, files: int, total_bytes: int) -> None: ...

    def phase(self, text: str) -> None: ...

    def file_done(self, result: FileResult) -> None: ...


def ingest(
    home: Home,
    trace_name: str,
    source: Path,
    *,
    tables: list[str] | None = None,
    table_for_file: str | None = None,
    cell: str | None = None,
    append: bool = False,
    verify: bool = True,
    memory_limit: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    spark: Any = None,
) -> IngestResult:
    """``spark``: a SparkSession to convert the files on (one task per file, warehouse/spark.py);
    None converts them on local threads. Everything else (checks, commit) runs here either way."""
    trace = get_trace(trace_name)
    progress = progress or Progress()
    started = time.monotonic()
    sources = trace.discover(Path(source), tables, table_for_file, cell)
    _check_unique_names(sources)
    home.ensure_writable()
    ingest_id = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    with home.writer_lock():
        live = _live_tables(home, trace_name)
        _clean_orphans(home, trace_name, live)
        results = [FileResult(s.table, s.name, s.path, s.path.stat().st_size, s.cell) for s in sources]
        progress.phase("checking files")
        for r in results:
            _precheck(r)
        _hash_all(results, workers)
        _verify(trace, Path(source), sources, results, verify)
        by_table: dict[str, list[FileResult]] = {}
        for r in results:
            by_table.setdefault(r.table, []).append(r)
        skipped: dict[str, list[str]] = {}
        if append:
            for table, rs in by_table.items():
                by_table[table], skipped[table] = _drop_already_ingested(home, trace_name, table, rs)
        new_gens: dict[str, Path] = {}
        tmp = home.tmp / ingest_id
        try:
            for table_name in by_table:
                gen = home.generations(trace_name) / f"{table_name}.{ingest_id}"
                gen.mkdir(parents=True)
                new_gens[table_name] = gen
                if table_name in live and (append or trace.CELLS):
                    # Append keeps every live file; a cell-partitioned replace keeps the other cells.
                    replaced = set() if append else {r.cell for r in by_table[table_name]}
                    _link_generation(home.root / live[table_name], gen, replaced)
            todo = [r for rs in by_table.values() for r in rs]
            progress.begin(len(todo), sum(r.size for r in todo))
            stats = _convert(
                trace, todo, new_gens, tmp, memory_limit or DEFAULT_MEMORY_LIMIT, workers, progress, spark
            )
            progress.phase("committing")
            _commit(home, trace_name, trace, ingest_id, by_table, new_gens, stats, append)
        except BaseException:
            for gen in new_gens.values():
                shutil.rmtree(gen, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(OSError):
            home.tmp.rmdir()  # only when empty: a report may be spilling there
        for table_name, gen in new_gens.items():
            _flip_link(home, trace_name, table_name, gen)
            old = live.get(table_name)
            if old:
                shutil.rmtree(home.root / old, ignore_errors=True)
    table_results = [TableResult(t, by_table[t], skipped.get(t, []), stats[t]["rows"]) for t in by_table]
    return IngestResult(
        trace_name,
        ingest_id,
        "append" if append else "replace",
        table_results,
        time.monotonic() - started,
    )


def _check_unique_names(sources: list[SourceFile]) -> None:
    seen: dict[tuple[str, str | None, str], Path] = {}
    for s in sources:
        key = (s.table, s.cell, s.name)
        if key in seen:
            raise UsageError(f"{s.path} and {seen[key]} have the same name; ingest one of them")
        seen[key] = s.path


def _live_tables(home: Home, trace_name: str) -> dict[str, str]:
    """table -> live generation folder (relative to home), as the catalog records it."""
    if not home.catalog.exists():
        return {}
    con = catalog.connect(home, read_only=True)
    try:
        rows = con.execute(
            "SELECT table_name, data_dir FROM meta.tables WHERE trace = $t", {"t": trace_name}
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def _clean_orphans(home: Home, trace_name: str, live: dict[str, str]) -> None:
    """Delete generations no catalog row names: leftovers of an ingest that died before its commit."""
    gens = home.generations(trace_name)
    if gens.is_dir():
        keep = {(home.root / d).resolve() for d in live.values()}
        for d in gens.iterdir():
            if d.resolve() not in keep:
                shutil.rmtree(d, ignore_errors=True)
    home.clean_tmp()


def _precheck(r: FileResult) -> None:
    if r.size == 0:
        raise InputError(f"{r.table}/{r.name}: empty file (0 bytes)")
    if r.name.endswith(".gz"):
        with open(r.path, "rb") as fh:
            if fh.read(2) != GZIP_MAGIC:
                raise InputError(f"{r.table}/{r.name}: not a gzip file (the name ends in .gz)")


def _hash_all(results: list[FileResult], workers: int | None) -> None:
    def one(r: FileResult) -> None:
        h = hashlib.sha256()
        with open(r.path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
        r.sha256 = h.hexdigest()

    with ThreadPoolExecutor(_worker_count(workers, len(results))) as ex:
        list(ex.map(one, results))


def _verify(trace, source: Path, sources, results: list[FileResult], verify: bool) -> None:
    """Compare each file with the digest the trace publishes for it, if any; mismatches are fatal."""
    if not verify:
        return
    for s, r in zip(sources, results, strict=True):
        want = trace.expected_sha256(source, s)
        if want is None:
            continue
        if want != r.sha256:
            raise InputError(
                f"{r.table}/{r.name}: sha256 {r.sha256[:12]}... does not match the published digest "
                f"({want[:12]}...): the download is damaged; fetch it again or pass --no-verify"
            )
        r.verified = True


def _drop_already_ingested(
    home: Home, trace_name: str, table: str, rs: list[FileResult]
) -> tuple[list[FileResult], list[str]]:
    if not home.catalog.exists():
        return rs, []
    con = catalog.connect(home, read_only=True)
    try:
        current = {
            (cell, name): (size, sha)
            for cell, name, size, sha in con.execute(
                "SELECT cell, file, size_bytes, sha256 FROM meta.ingests "
                "WHERE trace = $t AND table_name = $n AND is_current",
                {"t": trace_name, "n": table},
            ).fetchall()
        }
    finally:
        con.close()
    keep, skipped = [], []
    for r in rs:
        if (r.cell, r.name) not in current:
            keep.append(r)
        elif current[(r.cell, r.name)] == (r.size, r.sha256):
            skipped.append(r.name)
        else:
            raise InputError(
                f"{table}/{r.name} was already ingested with a different size or sha256; "
                "re-run without --append to replace the table"
            )
    return keep, skipped


def _link_generation(old: Path, new: Path, replaced_cells: set[str | None]) -> None:
    """The new generation starts as hard links of the live one (no copy; the live one stays intact),
    less the partitions of the cells this ingest replaces."""
    skip = {f"cell={c}" for c in replaced_cells if c is not None}
    for src in old.rglob("*.parquet"):
        rel = src.relative_to(old)
        if rel.parts and rel.parts[0] in skip:
            continue
        dst = new / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)


def _worker_count(workers: int | None, jobs: int) -> int:
    return max(1, min(workers or os.cpu_count() or 1, max(jobs, 1)))


def _convert(
    trace,
    todo: list[FileResult],
    gens: dict[str, Path],
    tmp: Path,
    memory_limit: str,
    workers: int | None,
    progress: Progress,
    spark: Any = None,
) -> dict[str, dict]:
    """Convert every file, one COPY per file, files in parallel on single-threaded DuckDB cursors.

    One thread per file keeps each file's rows in source (time) order in its
    Parquet, keeps memory per worker to one file's pipeline, and makes the
    per-file accounting exact (the COPY count and that file's reject table).
    """
    tmp.mkdir(parents=True, exist_ok=True)
    db = duckdb.connect(
        config={
            "threads": 1,
            "memory_limit": memory_limit,
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
        try:
            _convert_file(cur, trace, trace.TABLES[r.table], r, gens[r.table], n, tmp)
        finally:
            cur.close()
        with lock:
            progress.file_done(r)

    if spark is not None:
        from warehouse import spark as spark_engine

        # The same per-file conversion as Spark tasks; the threads below then have nothing left.
        converted = spark_engine.convert_files(spark, trace.NAME, todo, gens, tmp, memory_limit)
        for r, done in zip(todo, converted, strict=True):
            vars(r).update(vars(done))
            progress.file_done(r)
        todo = []
    try:
        with ThreadPoolExecutor(_worker_count(workers, len(todo))) as ex:
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
        # The stats scan the whole new generation: every core helps, memory stays under the limit.
        db.execute(f"SET threads = {os.cpu_count() or 1}")
        return {name: _table_stats(db, trace.NAME, trace.TABLES[name], gen) for name, gen in gens.items()}
    finally:
        db.close()


def _convert_file(
    cur: duckdb.DuckDBPyConnection,
    trace,
    table: Table,
    r: FileResult,
    gen: Path,
    n: int,
    tmp: Path,
) -> None:
    r.started = datetime.now(timezone.utc)
    out = gen / f"cell={r.cell}" if r.cell else gen
    order = trace.file_order(r.name)
    stem = _stem(r.name)
    days = trace.UNITS_PER_DAY
    if trace.FORMAT == "csv":
        rejects, scans = f"rejects_{n}", f"reject_scans_{n}"
        with readers.streamed(r.path, tmp / f"{n}.fifo") as path:
            reader = readers.csv_reader(table, path, rejects, scans)
            r.rows_written = _copy(cur, table, reader, out, stem, order, days, r)
        r.rejects = cur.execute(readers.csv_rejects_sql(rejects)).fetchall()
    else:
        try:
            r.rows_written = _copy(cur, table, readers.json_reader(table, r.path), out, stem, order, days, r)
        except InputError:
            # The fast reader refused the file: find the bad lines, read the good ones alike.
            for partial in out.rglob(f"{stem}*.parquet"):
                partial.unlink()
            clean = tmp / f"{n}-{stem}.json"
            try:
                r.rejects = readers.split_json_file(table, r.path, clean)
            except (OSError, EOFError, zlib.error) as e:
                raise InputError(f"{r.table}/{r.name}: {e}") from e
            r.rows_written = _copy(cur, table, readers.json_reader(table, clean), out, stem, order, days, r)
            clean.unlink()
    r.rows_rejected = len(r.rejects)
    r.finished = datetime.now(timezone.utc)


def _copy(
    cur: duckdb.DuckDBPyConnection,
    table: Table,
    reader: str,
    out: Path,
    stem: str,
    order: int,
    units_per_day: int,
    r: FileResult,
) -> int:
    """One COPY from a reader into the generation folder; returns the rows written."""
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
        f"COPY (SELECT {readers.select_list(table, order, units_per_day)} FROM {reader}) TO {target} "
        f"(FORMAT parquet, COMPRESSION zstd{opts})"
    )
    try:
        row = cur.execute(sql).fetchone()
    except duckdb.Error as e:
        raise InputError(f"{r.table}/{r.name}: {_first_line(e)}") from e
    return int(row[0]) if row else 0


def _table_stats(db: duckdb.DuckDBPyConnection, trace_name: str, table: Table, gen: Path) -> dict:
    files = list(gen.rglob("*.parquet"))
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
    if not files:
        return stats
    tcol = quote_ident(next(c.name for c in table.columns if c.is_time))
    in_window = f"{tcol} > 0 AND {tcol} < {MAX_TIME}"
    # Jobs and machines are few (exact counts, small hash tables); tasks are tens of millions, so
    # an exact count would make the ingest's memory grow with the table: HyperLogLog instead.
    entity_sql = [
        "NULL"
        if k not in table.entities
        else f"approx_count_distinct(hash{table.entities[k]})"
        if k == "tasks"
        else f"count(DISTINCT {table.entities[k]})"
        for k in ("jobs", "tasks", "machines")
    ]
    src = f"read_parquet({quote_literal(catalog.parquet_glob(gen, trace_name, table))})"
    row = db.execute(
        f"SELECT count(*), min({tcol}) FILTER ({in_window}), max({tcol}) FILTER ({in_window}), "
        f"{', '.join(entity_sql)} FROM {src}"
    ).fetchone()
    assert row is not None
    stats.update(rows=row[0], min_time=row[1], max_time=row[2], jobs=row[3], tasks=row[4], machines=row[5])
    return stats


def _commit(
    home: Home,
    trace_name: str,
    trace,
    ingest_id: str,
    by_table: dict[str, list[FileResult]],
    gens: dict[str, Path],
    stats: dict[str, dict],
    append: bool,
) -> None:
    con = catalog.connect(home, read_only=False)
    try:
        con.execute("BEGIN")
        for table_name, rs in by_table.items():
            params = {"t": trace_name, "n": table_name}
            if not append:
                # A replace supersedes the table's files, or only those of the cells it re-ingests.
                cells = sorted({r.cell for r in rs if r.cell is not None})
                scope = " AND list_contains($cells, cell)" if trace.CELLS else ""
                con.execute(
                    f"UPDATE meta.ingests SET is_current = false WHERE trace = $t AND table_name = $n{scope}",
                    {**params, "cells": cells} if trace.CELLS else params,
                )
            for r in rs:
                con.execute(
                    "INSERT INTO meta.ingests VALUES ($id, $t, $n, $cell, $file, $path, $size, $sha, $ver, "
                    "$read, $written, $rejected, $started, $finished, $mode, true, $version)",
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
                        "started": r.started,
                        "finished": r.finished,
                        "mode": "append" if append else "replace",
                        "version": __version__,
                    },
                )
                if r.rejects:
                    con.executemany(
                        "INSERT INTO meta.rejects VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            (
                                ingest_id,
                                trace_name,
                                table_name,
                                r.cell,
                                r.name,
                                line,
                                col,
                                etype,
                                reason,
                                raw,
                            )
                            for line, col, etype, reason, raw in r.rejects
                        ],
                    )
            s = stats[table_name]
            con.execute(
                f"INSERT OR REPLACE INTO meta.tables SELECT $t, $n, $dir, $files, $parts, $bytes, "
                f"$rows, (SELECT coalesce(sum(rows_rejected), 0) FROM meta.ingests "
                f"         WHERE trace = $t AND table_name = $n AND is_current), "
                f"$min, $max, {quote_ident(trace_name)}.trace_timestamp($min), "
                f"{quote_ident(trace_name)}.trace_timestamp($max), $jobs, $tasks, $machines, now()",
                {
                    **params,
                    "dir": str(gens[table_name].relative_to(home.root)),
                    "files": s["files"],
                    "parts": s["partitions"],
                    "bytes": s["bytes"],
                    "rows": s["rows"],
                    "min": s["min_time"],
                    "max": s["max_time"],
                    "jobs": s["jobs"],
                    "tasks": s["tasks"],
                    "machines": s["machines"],
                },
            )
        catalog.rebuild(con, home)
        con.execute("COMMIT")
    except duckdb.Error as e:
        raise TracewhError(f"committing the ingest to {home.catalog} failed: {_first_line(e)}") from e
    finally:
        con.close()


def _flip_link(home: Home, trace_name: str, table: str, gen: Path) -> None:
    """Point parquet/<trace>/<table> at the live generation (relative, so moving the home keeps it)."""
    link = home.table_link(trace_name, table)
    tmp_link = link.with_name(f".{table}.link")
    tmp_link.unlink(missing_ok=True)
    os.symlink(os.path.relpath(gen, link.parent), tmp_link)
    os.replace(tmp_link, link)


def _stem(name: str) -> str:
    for suffix in (".csv.gz", ".csv", ".json.gz", ".json", ".gz"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


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
