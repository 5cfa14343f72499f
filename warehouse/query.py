"""Running SQL against the catalog read-only: ad-hoc queries, reports and checks share this."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb

from warehouse import catalog, signals
from warehouse.errors import CatalogError, TracewhError, UsageError
from warehouse.home import Home

BATCH_ROWS = 10_000
DEFAULT_MEMORY_LIMIT = "4GB"  # per query connection; TRACEWH_MEMORY_LIMIT overrides


@dataclass
class Rows:
    """A result set: column names and types, and the rows (a list, or a stream of batches)."""

    columns: list[str]
    types: list[str]
    rows: list[tuple]


@contextlib.contextmanager
def read_only(home: Home) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the catalog, checked to be in the place its views point at."""
    # A bounded memory: large windows and joins spill to the home's tmp/ instead of growing.
    limit = os.environ.get("TRACEWH_MEMORY_LIMIT", DEFAULT_MEMORY_LIMIT)
    holder: list[duckdb.DuckDBPyConnection] = []
    # The signal block starts before the connection, so DuckDB's threads inherit it.
    with signals.interrupting(lambda: holder[0].interrupt() if holder else None):
        con = catalog.connect(home, read_only=True, memory_limit=limit)
        holder.append(con)
        # DuckDB draws its progress bar on stdout, which carries data only.
        con.execute("SET enable_progress_bar = false")
        try:
            catalog.check_location(con, home)
            yield con
        finally:
            con.close()


def stream(
    con: duckdb.DuckDBPyConnection, sql: str, params: dict | None = None
) -> tuple[list[str], list[str], Iterator[list[tuple]]]:
    """Run one query; its rows come in batches so a large result never sits in memory at once."""
    if not sql.strip():
        raise UsageError("the query is empty")
    try:
        cur = con.execute(sql, params or {})
    except duckdb.Error as e:
        raise TracewhError(f"SQL error: {_one_line(e)}") from e
    if cur is None or cur.description is None:
        return [], [], iter(())
    columns = [d[0] for d in cur.description]
    types = [str(d[1]) for d in cur.description]

    def batches() -> Iterator[list[tuple]]:
        while True:
            try:
                batch = cur.fetchmany(BATCH_ROWS)
            except duckdb.Error as e:
                raise TracewhError(f"SQL error: {_one_line(e)}") from e
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
        raise TracewhError(f"SQL error: {_one_line(e)}") from e
    finally:
        cur.close()


def _one_line(e: BaseException) -> str:
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return " ".join(lines[:2]) if lines else type(e).__name__


__all__ = ["CatalogError", "Rows", "fetch", "read_only", "stream"]
