"""The catalog reference (docs/catalog.md), written from the catalog itself: every view and table
of the trace and shared schemas with its COMMENT, and every column with its type and COMMENT (the
units and codes the SQL files and the trace specs declare). The comments are the one source; this
only lays them out (docs/make_catalog.py writes the file, a test keeps it current). A trace the home
has not ingested is left out (its schemas hold views over nothing): the reference is of what the
home holds, so a trace added to tracewh changes it only where it is ingested."""

from __future__ import annotations

from tracewh import catalog
from tracewh.catalog import query
from tracewh.home import Home
from tracewh.traces import trace_names

_OBJECTS = """
SELECT schema_name, view_name AS name, 'view' AS kind, comment FROM duckdb_views()
WHERE NOT internal AND database_name = current_database()
UNION ALL
SELECT schema_name, table_name, 'table', comment FROM duckdb_tables() WHERE database_name = current_database()
ORDER BY schema_name, name
"""
_COLUMNS = """
SELECT schema_name, table_name, column_name, data_type, comment FROM duckdb_columns()
WHERE database_name = current_database()
ORDER BY schema_name, table_name, column_index
"""


def markdown(home: Home) -> str:
    with query.read_only(home) as con:
        ingested = {t for (t,) in con.execute("SELECT DISTINCT trace FROM meta.tables").fetchall()}
        absent = {s for t in trace_names() if t not in ingested for s in (t, catalog.raw_schema(t))}
        objects = [o for o in con.execute(_OBJECTS).fetchall() if o[0] not in absent]
        columns: dict[tuple[str, str], list[tuple[str, str, str | None]]] = {}
        for schema, table, column, dtype, comment in con.execute(_COLUMNS).fetchall():
            columns.setdefault((schema, table), []).append((column, dtype, comment))
    out = [
        "# Catalog reference",
        "",
        "Every view and table of the catalog with its columns, written from the catalog's own `COMMENT`s",
        "by `docs/make_catalog.py` (regenerate it after changing a view; `tests/test_docs.py` checks it).",
        "The `*_raw` schemas hold the Parquet as stored; `lifecycle` is shared by the reports; `meta`",
        "records every ingest.",
    ]
    schema = None
    for schema_name, name, kind, comment in objects:
        if schema_name != schema:
            schema = schema_name
            out += ["", f"## {schema}"]
        out += ["", f"### `{schema_name}.{name}` ({kind})", ""]
        if comment:
            out += [_cell(comment), ""]
        out += ["| column | type | meaning |", "|---|---|---|"]
        out += [f"| `{c}` | {t} | {_cell(m or '')} |" for c, t, m in columns.get((schema_name, name), [])]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
