"""The catalog file: creating it in a storage format the DuckDB 1.5 shell reads, opening it, and
(re)building every schema, view, macro and comment in it.

Views are rebuilt as a whole from the shipped SQL files and the live Parquet
generations recorded in ``meta.tables``; they point at the Parquet by
absolute path, and ``repair`` rebuilds them after the home folder moved.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

import duckdb

from warehouse import __version__, parts, sqlfiles
from warehouse.errors import CatalogError
from warehouse.home import Home
from warehouse.quoting import glob_escape, quote_ident, quote_literal
from warehouse.traces import TRACE_NAMES, Table, get_trace

# The oldest DuckDB storage format the catalog must open in: the duckdb-cli 1.5 shell.
STORAGE_VERSION = "v1.5.0"
# Shared by every view and trace: folders of SQL run after the per-trace ones.
SHARED_SQL_FOLDERS = ("lifecycle",)
_LOCK_WAIT_S = 10.0


def connect(
    home: Home, *, read_only: bool, memory_limit: str | None = None, threads: int | None = None
) -> duckdb.DuckDBPyConnection:
    """Open the catalog; read-write opens create it when missing. Lock conflicts become CatalogError."""
    if not home.catalog.exists():
        if read_only:
            raise CatalogError(f"no catalog at {home.catalog}; run `tracewh ingest` or `tracewh demo` first")
        home.ensure_writable()
        _create(home)
    deadline = time.monotonic() + (0 if read_only else _LOCK_WAIT_S)
    while True:
        try:
            # Settings go in after the open: a process may hold the file open already (the same
            # database instance), and DuckDB refuses a second open with another configuration.
            con = duckdb.connect(str(home.catalog), read_only=read_only)
            break
        except duckdb.IOException as e:
            msg = str(e)
            if "lock" not in msg.lower():
                raise CatalogError(f"cannot open {home.catalog}: {msg.splitlines()[0]}") from e
            if time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            raise CatalogError(
                f"the catalog {home.catalog} is locked by another process (a writer, or a shell "
                "opened read-write); close it and retry"
            ) from e
    if memory_limit:
        con.execute(f"SET memory_limit = {quote_literal(memory_limit)}")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    # Spill space under tmp/: a writer's own folder per ingest; a reader's per process, so readers
    # never share (or delete) each other's spill files.
    # DuckDB creates the last folder when it first spills and removes it on close; its parent
    # tmp/ must exist (a read-only home has none: such a reader cannot spill).
    with contextlib.suppress(OSError):
        home.tmp.mkdir(exist_ok=True)
    spill = home.tmp if not read_only else home.tmp / f"query-{os.getpid()}"
    con.execute(f"SET temp_directory = {quote_literal(spill)}")
    return con


def _create(home: Home) -> None:
    """A new catalog file, written in STORAGE_VERSION so older DuckDB shells open it."""
    con = duckdb.connect()
    try:
        con.execute(
            f"ATTACH {quote_literal(home.catalog)} AS cat (STORAGE_VERSION {quote_literal(STORAGE_VERSION)})"
        )
        con.execute("USE cat")
        con.execute("BEGIN")
        rebuild(con, home)
        con.execute("COMMIT")
        con.execute("USE memory")
        con.execute("DETACH cat")
    except Exception:
        con.close()
        home.catalog.unlink(missing_ok=True)
        raise
    con.close()


def rebuild(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """Create or replace every schema, code table, macro and view. Runs inside the caller's transaction."""
    # The part-number rule of every trace, before the meta views over it (sql/meta/10_parts.sql).
    con.execute(parts.macro_sql())
    for f in sqlfiles.folder("meta"):
        con.execute(f.body)
    live = {
        (t, n): d for t, n, d in con.execute("SELECT trace, table_name, data_dir FROM meta.tables").fetchall()
    }
    for trace_name in TRACE_NAMES:
        trace = get_trace(trace_name)
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(trace_name)}")
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(raw_schema(trace_name))}")
        for table in trace.TABLES.values():
            data_dir = live.get((trace_name, table.name))
            try:
                con.execute(raw_view_sql(trace_name, table, home.root / data_dir if data_dir else None))
            except duckdb.Error as e:
                raise CatalogError(
                    f"{trace_name}.{table.name}: its Parquet does not match this tracewh version "
                    f"({str(e).splitlines()[0]}); re-ingest the table"
                ) from e
        for f in sqlfiles.folder(trace_name):
            _run_sql_file(con, f)
        _comment_columns(con, trace_name, trace.TABLES.values())
    for folder in SHARED_SQL_FOLDERS:
        for f in sqlfiles.folder(folder):
            _run_sql_file(con, f)
    con.execute(
        "INSERT OR REPLACE INTO meta.catalog VALUES ('home', $home), ('tracewh_version', $v), "
        "('storage_version', $sv)",
        {"home": str(home.root), "v": __version__, "sv": STORAGE_VERSION},
    )


def _run_sql_file(con: duckdb.DuckDBPyConnection, f: sqlfiles.SqlFile) -> None:
    try:
        con.execute(f.body)
    except duckdb.Error as e:
        raise CatalogError(f"{f.path.name}: {str(e).splitlines()[0]}") from e


def raw_schema(trace: str) -> str:
    return f"{trace}_raw"


def partition_columns(trace: str, table: Table) -> list[tuple[str, str]]:
    """Hive partition columns of a table's Parquet, outermost first (the one path rule)."""
    cols = [("cell", "VARCHAR")] if get_trace(trace).CELLS else []
    if table.partition_time:
        cols.append(("day", "BIGINT"))
    return cols


def parquet_glob(data_dir: Path, trace: str, table: Table) -> str:
    parts = [f"{name}=*" for name, _ in partition_columns(trace, table)]
    return "/".join([glob_escape(data_dir), *parts, "*.parquet"])


def raw_view_sql(trace: str, table: Table, data_dir: Path | None) -> str:
    """The typed view over a table's live Parquet, or an empty typed relation when none is ingested."""
    name = f"{quote_ident(raw_schema(trace))}.{quote_ident(table.name)}"
    parts = partition_columns(trace, table)
    cols = [quote_ident(c.name) for c in table.columns] + ["seq"] + [p for p, _ in parts]
    has_files = data_dir is not None and any(data_dir.rglob("*.parquet"))
    if has_files:
        assert data_dir is not None
        hive = ""
        if parts:
            types = ", ".join(f"{quote_literal(p)}: {t}" for p, t in parts)
            hive = f", hive_partitioning = true, hive_types = {{{types}}}"
        source = f"read_parquet({quote_literal(parquet_glob(data_dir, trace, table))}{hive})"
        body = f"SELECT {', '.join(cols)} FROM {source}"
    else:
        typed = [f"CAST(NULL AS {c.type}) AS {quote_ident(c.name)}" for c in table.columns]
        typed.append("CAST(NULL AS BIGINT) AS seq")
        typed += [f"CAST(NULL AS {t}) AS {p}" for p, t in parts]
        body = f"SELECT {', '.join(typed)} WHERE false"
    comment = f"{table.comment} (typed Parquet as stored; use {trace}.{table.name} for the decoded view)"
    return f"CREATE OR REPLACE VIEW {name} AS {body};\nCOMMENT ON VIEW {name} IS {quote_literal(comment)};"


SEQ_COMMENT = (
    "Source order: file order (part number) * 2^32 + line order within the file; "
    "orders events that share a time as the trace does"
)


def _comment_columns(con: duckdb.DuckDBPyConnection, trace: str, tables: Any) -> None:
    """Column comments from the trace module's column list, on the raw and the semantic views."""
    existing = {
        (s, t, c)
        for s, t, c in con.execute(
            "SELECT schema_name, table_name, column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name IN ($a, $b)",
            {"a": trace, "b": raw_schema(trace)},
        ).fetchall()
    }
    for table in tables:
        comments = [(c.name, c.comment) for c in table.columns if c.comment]
        comments.append(("seq", SEQ_COMMENT))
        for name, comment in comments:
            for schema in (trace, raw_schema(trace)):
                if (schema, table.name, name) in existing:
                    con.execute(
                        f"COMMENT ON COLUMN {quote_ident(schema)}.{quote_ident(table.name)}."
                        f"{quote_ident(name)} IS {quote_literal(comment)}"
                    )


def recorded_home(con: duckdb.DuckDBPyConnection) -> str | None:
    rows = con.execute("SELECT value FROM meta.catalog WHERE key = 'home'").fetchall()
    return rows[0][0] if rows else None


def check_location(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """Views hold absolute paths and come from this version's SQL: refuse to answer from a moved home
    or an older catalog instead of failing on missing files or views."""
    # fetchall, not fetchone: DuckDB wants a result finished before other work on the connection
    rows = con.execute("SELECT value FROM meta.catalog WHERE key = 'tracewh_version'").fetchall()
    if rows and rows[0][0] != __version__:
        raise CatalogError(
            f"the catalog was built by tracewh {rows[0][0]}, this is {__version__}; run `tracewh repair` once"
        )
    recorded = recorded_home(con)
    if recorded is not None and Path(recorded) != home.root:
        raise CatalogError(
            f"the home moved from {recorded} to {home.root}; run `tracewh repair` once to repoint the views"
        )


def repair(home: Home) -> str | None:
    """Rebuild every view for the home's current location; returns the previous location."""
    if not home.catalog.exists():
        raise CatalogError(f"no catalog at {home.catalog}; nothing to repair")
    con = connect(home, read_only=False)
    try:
        before = recorded_home(con)
        con.execute("BEGIN")
        rebuild(con, home)
        con.execute("COMMIT")
        return before
    finally:
        con.close()
