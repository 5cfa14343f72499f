"""What the warehouse holds, per table (`tracewh info`, `tracewh.info()`)."""

from __future__ import annotations

from tracewh import query
from tracewh.home import Home

_SQL = """
SELECT t.trace, t.table_name AS "table", t.rows, t.rows_rejected AS rejected, pc.parts_missing,
       -- to the second: a summary (the exact instants: meta.tables)
       date_trunc('second', t.first_time) AS first_time, date_trunc('second', t.last_time) AS last_time,
       -- the raw times in seconds of the trace's own clock: one unit for every trace (the raw
       -- unit is microseconds for Google, seconds for Alibaba)
       meta.seconds(t.trace, t.min_time) AS clock_from_s, meta.seconds(t.trace, t.max_time) AS clock_to_s,
       pc.parts_present,
       t.files, t.partitions,
       (SELECT count(*) FROM meta.ingests i
         WHERE i.trace = t.trace AND i.table_name = t.table_name AND i.is_current) AS source_files,
       round(t.bytes / 1e6, 2) AS parquet_mb,
       date_trunc('second', t.updated) AS updated
FROM meta.tables AS t
LEFT JOIN meta.table_parts AS pc ON pc.trace = t.trace AND pc.table_name = t.table_name
ORDER BY t.trace, t.table_name
"""


def tables(home: Home, tz: str | None = None) -> query.Rows:
    with query.read_only(home) as con:
        query.set_zone(con, tz or query.zone_for(con))
        return query.fetch(con, _SQL)
