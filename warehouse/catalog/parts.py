"""Part numbers of the ingested source files and the gaps between them.

A trace published in numbered parts (2011 ``part-NNNNN-of-MMMMM``, 2019 shards
``<table>-NNNNNNNNNNNN``) is a run of consecutive time slices: a part missing
inside the run loses every event of its slice, and its artifacts (a task evicted
straight from pending, a drifting queue) look like trace anomalies. Each trace
spec declares its part rule (the ``part`` group of its layout pattern); this module turns
it into the SQL macro ``meta.part_number(trace, file)`` (tracewh.traces.meta_sql) over which the catalog
views ``meta.parts`` / ``meta.missing_parts`` / ``meta.part_gaps``
(sql/meta/10_parts.sql) are built from the per-file records of ``meta.ingests``.
The data rows carry the same number: ``seq // 2^32`` (tracewh.ingestion.readers).
"""

from __future__ import annotations

from tracewh.catalog import query
from tracewh.home import Home
from tracewh.traces import listing_key


def gaps(home: Home, trace: str | None = None) -> list[tuple[str, str, str | None, str, int]]:
    """(trace, table, cell, missing parts as ranges "2, 5-7", how many) per table with a gap."""
    with query.read_only(home) as con:
        found = query.fact(
            con,
            "SELECT trace, table_name, cell, missing, missing_parts FROM meta.part_gaps "
            "WHERE $t IS NULL OR trace = $t ORDER BY ALL",
            {"t": trace},
        )
    return sorted(found, key=lambda r: listing_key(r[0]))  # the traces in the registry's order


def warnings(home: Home, trace: str | None = None) -> list[str]:
    """One line per table with missing parts, for the ingest and `info` to print on stderr."""
    return [
        f"{t}.{table}{f' cell {cell}' if cell else ''}: {n} part(s) missing inside the ingested run: "
        f"{missing} (events of those time slices are absent; reports flag what spans them)"
        for t, table, cell, missing, n in gaps(home, trace)
    ]
