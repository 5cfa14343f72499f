"""What the warehouse holds, per table (`tracewh info`, `tracewh.info()`)."""

from __future__ import annotations

import os
from pathlib import Path

from tracewh import catalog
from tracewh.catalog import query
from tracewh.home import Home
from tracewh.traces import listing_key, trace_names

_SQL = """
WITH outside(trace, table_name, rows_outside_window) AS ({outside})
SELECT t.trace, t.table_name AS "table", t.rows, t.rows_rejected AS rejected, pc.parts_missing,
       -- to the second: a summary (the exact instants: meta.tables)
       date_trunc('second', t.first_time) AS first_time, date_trunc('second', t.last_time) AS last_time,
       -- the raw times in seconds of the trace's own clock: one unit for every trace (each raw
       -- unit is its spec's, TraceSpec.units_per_day)
       meta.seconds(t.trace, t.min_time) AS clock_from_s, meta.seconds(t.trace, t.max_time) AS clock_to_s,
       o.rows_outside_window,
       pc.parts_present,
       t.files, t.partitions,
       (SELECT count(*) FROM meta.ingests i
         WHERE i.trace = t.trace AND i.table_name = t.table_name AND i.is_current) AS source_files,
       (SELECT sum(duplicate_lines) FROM meta.ingests i
         WHERE i.trace = t.trace AND i.table_name = t.table_name AND i.is_current) AS duplicates,
       round(t.bytes / 1e6, 2) AS parquet_mb,
       date_trunc('second', t.updated) AS updated
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
        rows = query.fetch(con, _SQL.format(outside=_outside_window(con)))
    # the traces in the registry's order (traces.listing_key), as every listing; sorted here, not
    # by the catalog's meta.trace_place, so `tracewh info` answers on a catalog built before it
    rows.rows.sort(key=lambda r: listing_key(r[0]))
    return rows


def beyond_live(home: Home) -> int:
    """Bytes the home holds on disk beyond its live data: superseded Parquet generations and
    retired catalogs kept for readers that still hold them (deleted by the first command after
    they close), staged catalogs and spill files. A file hard-linked into a live generation
    costs nothing extra and is not counted."""
    live = {(home.root / d).resolve() for d in catalog.kept_dirs(home.catalog).values()}
    live_inodes = {f.stat().st_ino for d in live for f in _files(d)}
    live_inodes.add(home.catalog.stat().st_ino)
    extra: set[Path] = set()
    for trace in trace_names():
        gens = home.generations(trace)
        if gens.is_dir():
            for d in gens.iterdir():
                if d.resolve() not in live:
                    extra.update(_files(d))
    for folder in (home.retired, home.tmp):
        extra.update(_files(folder))
    extra.update(home.root.glob(f".{home.catalog.name}.*.staged*"))
    seen: set[int] = set()
    total = 0
    for f in extra:
        try:
            st = f.stat()
        except OSError:
            continue  # deleted meanwhile
        if st.st_ino not in live_inodes and st.st_ino not in seen:
            seen.add(st.st_ino)
            total += st.st_size
    return total


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [Path(root, n) for root, _, names in os.walk(folder) for n in names]
