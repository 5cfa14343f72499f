"""Data invariants: every query in sql/checks/ and in a trace's own sql/<trace>/checks/ returns the
offending rows (zero rows = pass), plus one check per trace table that its mandatory columns are
never NULL (from the column list)."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from tracewh import catalog
from tracewh.catalog import derived, query
from tracewh.errors import TracewhError
from tracewh.home import Home
from tracewh.quoting import quote_ident
from tracewh.traces import registry, sql_files

SAMPLE_ROWS = 5


@dataclass
class CheckResult:
    name: str
    description: str
    count: int
    sample: list[tuple]

    @property
    def failed(self) -> bool:
        return self.count > 0


def all_checks(live: list[tuple[str, str]] | None = None) -> list[tuple[str, str, str]]:
    """(name, description, sql) of every check; ``live``: the catalog's (trace, table) pairs, for
    the derived tables' checks to recompute only the traces with an input ingested (None: every
    trace)."""
    out = [(f.name, f.header.get("description", ""), f.body) for f in sql_files("checks")]
    for f in derived.files():
        key = derived.sample_key(f)
        out.append(
            (
                f"{f.name}.recomputed",
                f"{f.name} holds what the life-cycle views compute from the "
                + " and ".join(
                    "events" if i == derived.SOURCE_INPUT else "usage windows" for i in derived.inputs_of(f)
                )
                + (f" (a sample of {derived.SAMPLED[key]}: one in {derived.SAMPLE_EVERY})" if key else ""),
                derived.check_sql(f, live),
            )
        )
    for f in derived.walk_files():
        out.append(
            (
                f"{f.name}.inputs",
                f"{f.name} holds each job's walk of its input rows as they are now (their count and hash)",
                derived.walk_check_sql(f),
            )
        )
    for trace_name, trace in registry().items():
        for table in trace.tables.values():
            mandatory = [c.name for c in table.columns if c.mandatory]
            if not mandatory:
                continue
            cond = " OR ".join(f"{quote_ident(c)} IS NULL" for c in mandatory)
            out.append(
                (
                    f"{trace_name}.{table.name}.mandatory_fields",
                    f"mandatory columns of {trace_name}.{table.name} are never empty: {', '.join(mandatory)}",
                    f"SELECT * FROM {quote_ident(trace_name)}.{quote_ident(table.name)} WHERE {cond}",
                )
            )
    return out


def run_all(home: Home) -> list[CheckResult]:
    results = []
    with query.read_only(home) as con:
        live = [(t, n) for t, n in con.execute("SELECT trace, table_name FROM meta.tables").fetchall()]
        for name, description, sql in all_checks(live):
            try:
                count = con.execute(f"SELECT count(*) FROM ({_strip(sql)})").fetchone()
                n = int(count[0]) if count else 0
                sample = con.execute(f"{_strip(sql)} LIMIT {SAMPLE_ROWS}").fetchall() if n else []
            except duckdb.Error as e:
                # a check that cannot run (a damaged file, a full disk under a spilling
                # recomputation) is one line naming it, not an internal error
                raise TracewhError(f"check {name} could not run: {query.sql_error(e)}") from e
            results.append(CheckResult(name, description, n, sample))
    links = catalog.link_problems(home)
    results.append(
        CheckResult(
            "parquet_links",
            "each parquet/<trace>/<table> link points at the generation the catalog names "
            "(`tracewh repair` mends it)",
            len(links),
            links[:SAMPLE_ROWS],
        )
    )
    return results


def summary(results: list[CheckResult]) -> query.Rows:
    return query.Rows(
        ["check", "result", "offending_rows", "description"],
        ["VARCHAR", "VARCHAR", "BIGINT", "VARCHAR"],
        [(r.name, "FAIL" if r.failed else "ok", r.count, r.description) for r in results],
    )


def _strip(sql: str) -> str:
    """A check body without comments and the final ';', so it nests as a subquery."""
    lines = [ln for ln in sql.splitlines() if not ln.lstrip().startswith("--")]
    return "\n".join(lines).strip().rstrip(";")
