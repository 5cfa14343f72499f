"""The derived layer: the life-cycle views the reports read most (task episodes, transitions,
per-task summaries, the observed window and segments) stored as Parquet, one generation per trace
and table, written by the ingest that changes the trace's task events, in its commit.

Each table is one file of ``sql/derived/``: a query over the life-cycle views with ``$trace``.
The same query makes the stored table (at ingest) and answers for a trace that has none stored
(a catalog written before the layer existed), so the view ``derived.<name>`` always has the rows
``lifecycle.<name>`` has; the ``lifecycle`` views stay for users' own SQL.

The build recomputes the whole trace from its events: the episodes of every task depend on the
observed segments and on the parts missing before each event, which a new part changes for tasks
it holds no event of.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from tracewh import sqlfiles
from tracewh.errors import CatalogError
from tracewh.home import Home
from tracewh.quoting import quote_ident, quote_literal
from tracewh.traces import get_trace, provides, registry

SCHEMA = "derived"
# The life-cycle input every derived table is computed from (the trace spec maps it to a table).
SOURCE_INPUT = "task_events"
# A trace's derived generation: parquet/<trace>/.gen/<PREFIX><writer id>/<name>.parquet
PREFIX = "derived."
_TRACE_PARAM = re.compile(r"\$trace\b")


def files() -> list[sqlfiles.SqlFile]:
    return sqlfiles.folder(SCHEMA)


def short(f: sqlfiles.SqlFile) -> str:
    """``derived.task_episodes`` -> ``task_episodes`` (also the life-cycle view it stores)."""
    return f.name.split(".", 1)[1]


def source_table(trace: str) -> str | None:
    """The trace's table whose change rebuilds its derived tables; None: the trace has none."""
    spec = get_trace(trace)
    if not provides(spec, "lifecycle_task_events"):
        return None
    return spec.inputs.get(SOURCE_INPUT)


def query(f: sqlfiles.SqlFile, trace: str | None) -> str:
    """The file's query for one trace (None: the typed empty relation)."""
    body = "\n".join(ln for ln in f.body.splitlines() if not ln.lstrip().startswith("--")).strip()
    body = _TRACE_PARAM.sub(quote_literal(trace) if trace else "NULL::VARCHAR", body.rstrip(";"))
    return body


def source_traces() -> list[str]:
    """The traces that have derived tables."""
    return [t for t in registry() if source_table(t)]


def recomputed(f: sqlfiles.SqlFile) -> str:
    """The file's query for every trace at once, from the life-cycle views (what the stored
    table must equal): for an engine that reads no stored table, and for `tracewh check`."""
    return " UNION ALL ".join(f"SELECT * FROM ({query(f, t)})" for t in source_traces())


# `tracewh check` compares a sample of tasks (all of a task's rows or none): one task in SAMPLE_EVERY.
SAMPLE_EVERY = 16


def sampled(f: sqlfiles.SqlFile) -> bool:
    """Whether a table's rows belong to tasks (its grain names job_id): checked on a sample."""
    return "job_id" in f.header["grain"]


def check_sql(f: sqlfiles.SqlFile) -> str:
    """The rows of a stored table that differ from the same rows recomputed from the events, on a
    sample of tasks (tables of one row per task or per task event; the small tables whole)."""
    name = f"{SCHEMA}.{quote_ident(short(f))}"
    sample = f"WHERE hash(cell, job_id, task_index) % {SAMPLE_EVERY} = 0" if sampled(f) else ""
    return (
        f"WITH stored AS (SELECT * FROM {name} {sample}), "
        f"again AS (SELECT * FROM ({recomputed(f)}) {sample}) "
        "SELECT 'stored, not recomputed' AS side, * "
        "FROM (SELECT * FROM stored EXCEPT ALL SELECT * FROM again) "
        "UNION ALL SELECT 'recomputed, not stored' AS side, * "
        "FROM (SELECT * FROM again EXCEPT ALL SELECT * FROM stored)"
    )


def build(con: duckdb.DuckDBPyConnection, home: Home, trace: str, writer_id: str) -> list[Path]:
    """Write every derived table of ``trace`` into one new generation from the views of ``con`` (a
    staged catalog whose views already read the new raw generations), record them in meta.derived
    and point the derived views at them. Returns the generation folders made (the caller removes
    them when the commit does not happen)."""
    gen = home.generations(trace) / f"{PREFIX}{writer_id}"
    gen.mkdir(parents=True)
    for f in files():
        name = short(f)
        out = gen / f"{name}.parquet"
        try:
            row = con.execute(
                f"COPY ({query(f, trace)}) TO {quote_literal(out)} (FORMAT parquet, COMPRESSION zstd)"
            ).fetchone()
        except duckdb.Error as e:
            raise CatalogError(f"{trace}: building {f.name} failed: {str(e).splitlines()[0]}") from e
        con.execute(
            "INSERT OR REPLACE INTO meta.derived BY NAME SELECT $t AS trace, $n AS name, $dir AS data_dir, "
            "$rows AS rows, $bytes AS bytes, $w AS writer_id, now() AS updated",
            {
                "t": trace,
                "n": name,
                "dir": str(gen.relative_to(home.root)),
                "rows": int(row[0]) if row else 0,
                "bytes": out.stat().st_size,
                "w": writer_id,
            },
        )
    create_views(con, home)
    return [gen]


def create_views(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """``derived.<name>`` for every file: the stored Parquet of each trace that has it, the file's
    query over the life-cycle views for a trace whose task events are ingested without it.
    Inside the caller's transaction, after the life-cycle views."""
    stored = {
        (t, n): d for t, n, d in con.execute("SELECT trace, name, data_dir FROM meta.derived").fetchall()
    }
    ingested = {
        t
        for t, table in con.execute("SELECT trace, table_name FROM meta.tables").fetchall()
        if t in registry() and source_table(t) == table
    }
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    for f in files():
        name = short(f)
        branches = []
        paths = [home.root / d / f"{name}.parquet" for (t, n), d in sorted(stored.items()) if n == name]
        if paths:
            listed = ", ".join(quote_literal(p) for p in paths)
            branches.append(f"SELECT * FROM read_parquet([{listed}])")
        branches += [f"SELECT * FROM ({query(f, t)})" for t in sorted(ingested) if (t, name) not in stored]
        if not branches:
            branches.append(f"SELECT * FROM ({query(f, None)}) WHERE false")
        view = f"{SCHEMA}.{quote_ident(name)}"
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {' UNION ALL BY NAME '.join(branches)}")
        con.execute(f"COMMENT ON VIEW {view} IS {quote_literal(f.header['description'])}")
        _copy_column_comments(con, name)


def _copy_column_comments(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """The stored table's columns mean what the life-cycle view's columns of the same name mean."""
    rows = con.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'lifecycle' AND table_name = $n AND comment IS NOT NULL",
        {"n": name},
    ).fetchall()
    for column, comment in rows:
        target = f"{SCHEMA}.{quote_ident(name)}.{quote_ident(column)}"
        con.execute(f"COMMENT ON COLUMN {target} IS {quote_literal(comment)}")
