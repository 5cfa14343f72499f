"""What the warehouse holds, per table (`tracewh info`, `tracewh.info()`)."""

from __future__ import annotations

from tracewh import query
from tracewh.home import Home

_SQL = """
WITH outside(trace, table_name, rows_outside_window) AS ({outside})
SELECT t.trace, t.table_name AS "table", t.rows, t.rows_rejected AS rejected,
       t.min_time, t.max_time, o.rows_outside_window, t.first_time, t.last_time, t.files, t.partitions,
       round(t.bytes / 1e6, 2) AS parquet_mb,
       (SELECT count(*) FROM meta.ingests i
         WHERE i.trace = t.trace AND i.table_name = t.table_name AND i.is_current) AS source_files,
       pc.parts_present, pc.parts_missing,
       t.updated
FROM meta.tables AS t
LEFT JOIN outside AS o ON o.trace = t.trace AND o.table_name = t.table_name
LEFT JOIN meta.table_parts AS pc ON pc.trace = t.trace AND pc.table_name = t.table_name
ORDER BY t.trace, t.table_name
"""


def _outside_window(con) -> str:
    """One count per ingested table with a time column: its rows at a special time (0 = before
    the window / unknown, the after-window value), which min_time and max_time leave out. Time
    is the leading sort key of the event tables, so the Parquet statistics skip most row groups."""
    from tracewh.catalog import raw_schema
    from tracewh.quoting import quote_ident, quote_literal
    from tracewh.traces import registry

    selects = []
    for trace, table in con.execute("SELECT trace, table_name FROM meta.tables").fetchall():
        spec = registry().get(trace)
        t = spec.tables.get(table) if spec else None
        times = [c.name for c in t.columns if c.is_time] if t else []
        if spec is None or not times:
            continue
        col = quote_ident(times[0])
        selects.append(
            f"SELECT {quote_literal(trace)}, {quote_literal(table)}, count(*) "
            f"FROM {quote_ident(raw_schema(trace))}.{quote_ident(table)} "
            f"WHERE {col} IS NOT NULL AND NOT ({spec.in_window_sql(col)})"
        )
    return " UNION ALL ".join(selects) or "SELECT NULL, NULL, NULL::BIGINT WHERE false"


def tables(home: Home, tz: str | None = None) -> query.Rows:
    with query.read_only(home) as con:
        query.set_zone(con, tz or query.zone_for(con))
        return query.fetch(con, _SQL.format(outside=_outside_window(con)))
