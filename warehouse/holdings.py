"""What the warehouse holds, per table (`tracewh info`, `tracewh.info()`)."""

from __future__ import annotations

from tracewh import query
from tracewh.home import Home

_SQL = """
SELECT t.trace, t.table_name AS "table", t.rows, t.rows_rejected AS rejected,
       t.min_time, t.max_time, t.first_time, t.last_time, t.files, t.partitions,
       round(t.bytes / 1e6, 2) AS parquet_mb,
       (SELECT count(*) FROM meta.ingests i
         WHERE i.trace = t.trace AND i.table_name = t.table_name AND i.is_current) AS source_files,
       pc.parts_present, pc.parts_missing,
       t.updated
FROM meta.tables AS t
LEFT JOIN meta.table_parts AS pc ON pc.trace = t.trace AND pc.table_name = t.table_name
ORDER BY t.trace, t.table_name
"""


def tables(home: Home, tz: str | None = None) -> query.Rows:
    with query.read_only(home) as con:
        query.set_zone(con, tz or query.zone_for(con))
        return query.fetch(con, _SQL)
