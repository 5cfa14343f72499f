"""Part numbers of the ingested source files and the gaps between them.

A trace published in numbered parts (2011 ``part-NNNNN-of-MMMMM``, 2019 shards
``<table>-NNNNNNNNNNNN``) is a run of consecutive time slices: a part missing
inside the run loses every event of its slice, and its artifacts (a task evicted
straight from pending, a drifting queue) look like trace anomalies. Each trace
spec declares its part rule (the ``part`` group of its layout pattern); this module turns
it into the SQL macro ``meta.part_number(trace, file)`` over which the catalog
views ``meta.parts`` / ``meta.missing_parts`` / ``meta.part_gaps``
(sql/meta/10_parts.sql) are built from the per-file records of ``meta.ingests``.
The data rows carry the same number: ``seq // 2^32`` (tracewh.readers).
"""

from __future__ import annotations

from tracewh import query
from tracewh.home import Home
from tracewh.quoting import quote_literal
from tracewh.readers import SEQ_FILE_SHIFT
from tracewh.traces import registry, time_macros_sql


def macro_sql() -> str:
    """``meta.part_number(trace, file)``: the part number of a recorded file name, NULL if it has none."""
    cases = []
    for name, spec in registry().items():
        rule = spec.layout.part_rule
        if rule is not None:
            pattern, group = rule
            cases.append(
                f"WHEN {quote_literal(name)} THEN "
                f"TRY_CAST(regexp_extract(file, {quote_literal(pattern)}, {int(group)}) AS BIGINT)"
            )
    body = f"CASE trace {' '.join(cases)} END" if cases else "NULL::BIGINT"
    return (
        "CREATE SCHEMA IF NOT EXISTS meta;\n"
        f"CREATE OR REPLACE MACRO meta.part_number(trace, file) AS {body};\n"
        # the part a data row came from: seq = file order (the part number) * 2^32 + line
        f"CREATE OR REPLACE MACRO meta.seq_part(seq) AS seq // {SEQ_FILE_SHIFT};\n"
        + time_macros_sql()
        + "\n"
        + inputs_sql()
    )


def inputs_sql() -> str:
    """``meta.inputs(trace, input, table_name)``: each trace's table behind a life-cycle input
    (TraceSpec.inputs), for views that need the parts of one input's table."""
    rows = [
        f"({quote_literal(name)}, {quote_literal(i)}, {quote_literal(t)})"
        for name, spec in registry().items()
        for i, t in spec.inputs.items()
    ]
    body = (
        f"SELECT * FROM (VALUES {', '.join(rows)}) AS v(trace, input, table_name)"
        if rows
        else "SELECT NULL::VARCHAR AS trace, NULL::VARCHAR AS input, NULL::VARCHAR AS table_name WHERE false"
    )
    return f"CREATE OR REPLACE VIEW meta.inputs AS {body};"


def gaps(home: Home, trace: str | None = None) -> list[tuple[str, str, str | None, str, int]]:
    """(trace, table, cell, missing parts as ranges "2, 5-7", how many) per table with a gap."""
    with query.read_only(home) as con:
        return con.execute(
            "SELECT trace, table_name, cell, missing, missing_parts FROM meta.part_gaps "
            "WHERE $t IS NULL OR trace = $t ORDER BY ALL",
            {"t": trace},
        ).fetchall()


def warnings(home: Home, trace: str | None = None) -> list[str]:
    """One line per table with missing parts, for the ingest and `info` to print on stderr."""
    return [
        f"{t}.{table}{f' cell {cell}' if cell else ''}: {n} part(s) missing inside the ingested run: "
        f"{missing} (events of those time slices are absent; reports flag what spans them)"
        for t, table, cell, missing, n in gaps(home, trace)
    ]
