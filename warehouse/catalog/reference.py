"""The catalog reference (docs/catalog.md), written from the catalog itself: every view and table
of the trace and shared schemas with its COMMENT, and every column with its type and COMMENT (the
units and codes the SQL files and the trace specs declare). The comments are the one source; this
only lays them out (docs/make_catalog.py writes the file, a test keeps it current)."""

from __future__ import annotations

from tracewh.catalog import query
from tracewh.home import Home

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
        objects = con.execute(_OBJECTS).fetchall()
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
