"""Running SQL against the catalog read-only: ad-hoc queries, reports and checks share this."""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from tracewh import catalog, signals
from tracewh.errors import CatalogError, TracewhError, UsageError
from tracewh.home import Home
from tracewh.results import Rows
from tracewh.traces import time_zone

__all__ = ["Rows"]  # the result type lives in tracewh.results (light); re-exported here

if TYPE_CHECKING:
    # Not imported at run time here: importing pyarrow starts threads that do not block SIGINT, and
    # a Ctrl-C delivered to one of them bypasses signals.interrupting (exit 1, not 130).
    import pyarrow as pa

BATCH_ROWS = 10_000
DEFAULT_MEMORY_LIMIT = "4GB"  # per query connection; --memory-limit or TRACEWH_MEMORY_LIMIT overrides


@dataclass
class _Snapshot:
    root: Path
    con: duckdb.DuckDBPyConnection
    interruptible: list[duckdb.DuckDBPyConnection]  # what Ctrl-C interrupts (cursors join it)
    facts: dict[tuple[str, str], list[tuple]] = field(default_factory=dict)  # see ``fact``


# The snapshot the reads of this context share (see ``snapshot``), if any.
_SNAPSHOT: contextvars.ContextVar[_Snapshot | None] = contextvars.ContextVar("tracewh_snapshot", default=None)


@contextlib.contextmanager
def snapshot(home: Home, memory_limit: str | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """One read snapshot for everything read inside the block (a summary page, an API session):
    each ``read_only(home)`` in it gets a cursor of one open connection, so an ingest that commits
    meanwhile is not seen (the connection keeps the catalog it opened, and that catalog's
    generations are kept while it is held open)."""
    with _connection(home, memory_limit) as (con, interruptible):
        token = _SNAPSHOT.set(_Snapshot(home.root, con, interruptible))
        try:
            yield con
        finally:
            _SNAPSHOT.reset(token)


@contextlib.contextmanager
def sharing(
    home: Home, con: duckdb.DuckDBPyConnection, facts: dict[tuple[str, str], list[tuple]] | None = None
) -> Iterator[None]:
    """Every ``read_only(home)`` inside the block gets a cursor of ``con``, an open connection the
    caller keeps (a tracewh.session.Warehouse): one catalog open and one state of the warehouse for
    all the reads of a report (its rows, footer, provenance); an interrupt cancels what runs on it.
    ``facts``: the caller's store of ``fact`` answers on ``con`` (kept while ``con`` stays open)."""
    current = _SNAPSHOT.get()
    if current is not None and current.con is con:
        yield  # already shared (a session's report inside its own block): one signal block
        return
    interruptible = [con]

    def stop() -> None:
        for c in list(interruptible):
            c.interrupt()

    with signals.interrupting(stop):
        token = _SNAPSHOT.set(_Snapshot(home.root, con, interruptible, {} if facts is None else facts))
        try:
            yield
        finally:
            _SNAPSHOT.reset(token)


def fact(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None) -> list[tuple]:
    """The rows of a query over the catalog's records (meta.*, the footers' small scans), asked
    once per shared connection: a read-only connection sees one catalog for its whole life, and
    the generations it names never change, so a summary page or a session asks each once, not once
    per report. On a connection not handed out by a ``snapshot`` / ``sharing`` block: just run."""
    shared = _SNAPSHOT.get()
    if shared is None or not any(c is con for c in shared.interruptible):
        return con.execute(sql, params or {}).fetchall()
    key = (sql, repr(sorted((params or {}).items())))
    if key not in shared.facts:
        shared.facts[key] = con.execute(sql, params or {}).fetchall()
    return list(shared.facts[key])


def shared_connection(home: Home) -> duckdb.DuckDBPyConnection | None:
    """The connection a ``snapshot`` or ``sharing`` block around this call holds on ``home``, if any."""
    shared = _SNAPSHOT.get()
    return shared.con if shared is not None and shared.root == home.root else None


@contextlib.contextmanager
def read_only(home: Home, memory_limit: str | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the catalog, checked to be in the place its views point at;
    an interrupt (SIGINT/SIGTERM) cancels its running query. DuckDB spills what does not fit in
    ``memory_limit`` (else $TRACEWH_MEMORY_LIMIT, else DEFAULT_MEMORY_LIMIT). Inside
    ``snapshot(home)``: a cursor of the snapshot's connection (its own settings, the same data)."""
    shared = _SNAPSHOT.get()
    if shared is not None and shared.root == home.root:
        cur = shared.con.cursor()
        shared.interruptible.append(cur)
        try:
            catalog.no_progress_bar(cur)
            yield cur
        finally:
            shared.interruptible.remove(cur)
            cur.close()
        return
    with _connection(home, memory_limit) as (con, _):
        yield con


@contextlib.contextmanager
def _connection(
    home: Home, memory_limit: str | None
) -> Iterator[tuple[duckdb.DuckDBPyConnection, list[duckdb.DuckDBPyConnection]]]:
    interruptible: list[duckdb.DuckDBPyConnection] = []

    def stop() -> None:
        for con in list(interruptible):
            con.interrupt()

    catalog.tidy(home)  # before the signal block: a Ctrl-C meanwhile is an ordinary KeyboardInterrupt
    # The signal block starts before the connection, so DuckDB's threads inherit it.
    with signals.interrupting(stop):
        con = _open(home, memory_limit)
        interruptible.append(con)
        catalog.no_progress_bar(con)
        try:
            yield con, interruptible
        finally:
            con.close()


def open_read_only(home: Home, memory_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """The connection of read_only(), left open for the caller (the Python API hands it out)."""
    catalog.tidy(home)
    return _open(home, memory_limit)


def _open(home: Home, memory_limit: str | None) -> duckdb.DuckDBPyConnection:
    # A bounded memory: large windows and joins spill to the home's tmp/ instead of growing.
    limit = catalog.memory_limit(memory_limit, DEFAULT_MEMORY_LIMIT)
    con = catalog.connect(home, read_only=True, memory_limit=limit)
    try:
        catalog.check_location(con, home)
    except duckdb.Error as e:
        con.close()
        raise sql_error(e) from e
    except BaseException:
        con.close()
        raise
    return con


def zone_for(con: duckdb.DuckDBPyConnection, trace: str | None = None, cell: str | None = None) -> str:
    """The zone times print in: the trace's (or the cell's) own when it has exactly one, else UTC
    (tracewh.traces.time_zone: the spec's zones; what else the home holds never changes it)."""
    return time_zone(trace, cell)


def set_zone(con: duckdb.DuckDBPyConnection, zone: str) -> None:
    """TIMESTAMPTZ values come back in this zone; an unknown name is a usage error."""
    from tracewh.errors import UsageError
    from tracewh.quoting import quote_literal

    try:
        con.execute(f"SET TimeZone = {quote_literal(zone)}")
    except duckdb.Error as e:
        raise UsageError(f"unknown time zone {zone!r} (an IANA name such as UTC or Europe/Paris)") from e


def stream(
    con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None
) -> tuple[list[str], list[str], Iterator[list[tuple]]]:
    """Run one query; its rows come in batches so a large result never sits in memory at once."""
    if not sql.strip():
        raise UsageError("the query is empty")
    try:
        cur = con.execute(sql, params or {})
    except duckdb.Error as e:
        raise sql_error(e, con) from e
    if cur is None or cur.description is None:
        return [], [], iter(())
    columns = [d[0] for d in cur.description]
    types = [str(d[1]) for d in cur.description]

    def batches() -> Iterator[list[tuple]]:
        while True:
            try:
                batch = cur.fetchmany(BATCH_ROWS)
            except duckdb.Error as e:
                raise sql_error(e) from e
            if not batch:
                return
            yield batch

    return columns, types, batches()


def fetch(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None) -> Rows:
    columns, types, batches = stream(con, sql, params)
    return Rows(columns, types, [row for batch in batches for row in batch])


def fetch_arrow(con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None):
    """A result as an Arrow table (for Python steps that read whole columns)."""
    cur = con.cursor()  # its own result: the connection may still hold a finished one
    try:
        return cur.sql(sql.strip().rstrip(";"), params=params or None).to_arrow_table()
    except duckdb.Error as e:
        raise sql_error(e, con) from e
    finally:
        cur.close()


@contextlib.contextmanager
def stream_arrow(
    con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None, rows: int = 100_000
) -> Iterator[pa.RecordBatchReader]:
    """A result as a stream of Arrow batches (for Python steps that walk millions of rows: only a
    batch at a time crosses into Python; DuckDB spills what does not fit in its limit)."""
    cur = con.cursor()  # its own result: the connection stays free for the step's own statements
    try:
        try:
            reader = cur.sql(sql.strip().rstrip(";"), params=params or None).to_arrow_reader(rows)
        except duckdb.Error as e:
            raise sql_error(e, con) from e
        yield reader
    finally:
        cur.close()


def copy_to_parquet(
    con: duckdb.DuckDBPyConnection, sql: str, path: Path, metadata: dict[bytes, bytes] | None = None
) -> int:
    """One query's result into a Parquet file (write_parquet), streamed as Arrow batches with
    DuckDB's exact column types. Returns the row count."""
    try:
        rel = con.sql(sql.strip().rstrip(";"))
        if rel is None:
            raise TracewhError("the statement returns no rows to write")
        return write_parquet(rel.to_arrow_reader(BATCH_ROWS * 10), path, metadata)
    except duckdb.Error as e:
        raise sql_error(e) from e


def write_parquet(reader: Any, path: Path, metadata: dict[bytes, bytes] | None = None) -> int:
    """Arrow record batches (a pyarrow RecordBatchReader) into a file beside path that is renamed
    over it once complete: between two batches an interrupt or an error of the query stops it,
    leaving any earlier file untouched. ``metadata``: key-value pairs for the file's footer.
    Returns the row count."""
    import pyarrow.parquet as pq

    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    rows = 0
    try:
        schema = reader.schema
        if metadata:
            schema = schema.with_metadata({**(schema.metadata or {}), **metadata})
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            for batch in reader:
                writer.write_batch(batch)
                rows += batch.num_rows
        os.replace(tmp, path)
    except OSError as e:
        raise TracewhError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        tmp.unlink(missing_ok=True)
    return rows


def sql_error(e: duckdb.Error, con: duckdb.DuckDBPyConnection | None = None) -> TracewhError:
    """DuckDB's error as one line; running out of memory names the knob that moves the limit (the
    message's "(used/limit used)" shows the limit in force). A name or column not found (``con``:
    the catalog's connection) in a catalog whose views were built from other SQL than this
    tracewh's says that `tracewh repair` rebuilds them."""
    if isinstance(e, duckdb.OutOfMemoryException):
        return TracewhError(
            f"out of memory under the memory limit: raise --memory-limit or $TRACEWH_MEMORY_LIMIT "
            f"({str(e).splitlines()[0] if str(e).strip() else type(e).__name__})"
        )
    hint = ""
    if (
        con is not None
        and isinstance(e, duckdb.BinderException | duckdb.CatalogException)
        and _built_elsewhere(con)
    ):
        hint = (
            " (the catalog's views were built from other SQL or traces than this tracewh's, e.g. by "
            "another build of the same version: run `tracewh repair` once to rebuild them)"
        )
    return TracewhError(f"SQL error: {_one_line(e)}{hint}")


def _built_elsewhere(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the catalog records a views key other than this build's (catalog.views_key). Asked
    only after a query failed: a stored derived table or a view of another build may lack what
    this build's SQL reads, while every query that binds answers as it is."""
    try:
        built = catalog.recorded_views_key(con)
    except duckdb.Error:  # an aborted transaction, or no meta.catalog: nothing to say
        return False
    return built is not None and built != catalog.views_key()


def _one_line(e: BaseException) -> str:
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return " ".join(lines[:2]) if lines else type(e).__name__


__all__ = ["CatalogError", "Rows", "fetch", "open_read_only", "read_only", "set_zone", "stream", "zone_for"]
