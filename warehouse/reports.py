"""The ready-made reports: one SQL file each under sql/reports/, described by its header.

Header keys: name, traces (comma list, or 'any'), description, params,
reproduces (the published figure), plot (x column, y columns, kind).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from warehouse import sqlfiles
from warehouse.errors import UsageError
from warehouse.home import Home
from warehouse.traces import TRACE_NAMES

if TYPE_CHECKING:
    from warehouse.query import Rows


@dataclass(frozen=True)
class Report:
    name: str
    traces: tuple[str, ...]
    description: str
    params: tuple[str, ...]
    reproduces: str
    sql: str
    plot: str = ""

    @property
    def needs_trace(self) -> bool:
        return "trace" in self.params


def all_reports() -> dict[str, Report]:
    out = {}
    for f in sqlfiles.folder("reports"):
        traces_raw = f.header.get("traces", "any")
        traces = (
            TRACE_NAMES
            if traces_raw == "any"
            else tuple(t.strip() for t in traces_raw.split(",") if t.strip())
        )
        out[f.name] = Report(
            f.name,
            traces,
            f.header.get("description", ""),
            tuple(f.params()),
            f.header.get("reproduces", ""),
            f.body,
            f.header.get("plot", ""),
        )
    return out


def get(name: str) -> Report:
    reports = all_reports()
    if name not in reports:
        raise UsageError(f"no report named {name!r}; `tracewh report list` shows them")
    return reports[name]


def run(home: Home, name: str, trace: str | None = None, cell: str | None = None) -> Rows:
    """Run a report read-only; the library never writes the catalog here."""
    from warehouse import query

    report = get(name)
    params: dict[str, object] = {}
    with query.read_only(home) as con:
        if report.needs_trace:
            params["trace"] = _choose_trace(con, report, trace)
        elif trace is not None and trace not in report.traces:
            raise UsageError(f"report {name} does not take --trace {trace}")
        if "cell" in report.params:
            params["cell"] = cell
        elif cell is not None:
            raise UsageError(f"report {name} has no --cell")
        return query.fetch(con, report.sql, params)


def _choose_trace(con, report: Report, trace: str | None) -> str:
    if trace is not None:
        if trace not in report.traces:
            raise UsageError(f"report {report.name} covers {', '.join(report.traces)}, not {trace!r}")
        return trace
    ingested = {t for (t,) in con.execute("SELECT DISTINCT trace FROM meta.tables").fetchall()}
    candidates = [t for t in report.traces if t in ingested]
    if len(candidates) == 1 or (candidates and len(report.traces) == 1):
        return candidates[0]
    if not candidates:
        raise UsageError(f"report {report.name} needs one of {', '.join(report.traces)} ingested; none is")
    raise UsageError(f"report {report.name}: choose --trace ({', '.join(candidates)})")
