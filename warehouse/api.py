"""The Python API for notebooks and scripts; the command line is built on the same functions.

    import tracewh
    con = tracewh.connect()              # read-only DuckDB connection on the catalog
    con.sql("SELECT ...").pl()           # any query as a polars DataFrame
    r = tracewh.report("task-times", trace="google2011")
    r.df                                 # a polars DataFrame
    r.reproduces, r.caveats              # what it reproduces, what to keep in mind
    fig = tracewh.plot("queue", trace="google2011")

Every function takes ``home=`` (a path; default $TRACEWH_HOME, else the nearest tracewh-home in
the current folder or above, as on the command line: tracewh.home.Home.resolve) and
raises tracewh.errors.TracewhError (UsageError for a wrong argument) on failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracewh.home import Home

if TYPE_CHECKING:
    import duckdb
    import polars as pl
    from matplotlib.figure import Figure

    from tracewh import plots
    from tracewh.ingestion import IngestResult, Progress
    from tracewh.query import Rows

PathLike = str | Path


def _home(home: PathLike | Home | None) -> Home:
    from tracewh.session import resolve_home

    return resolve_home(home)


def connect(home: PathLike | None = None, *, tz: str | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only DuckDB connection on the catalog (every trace's views); close it when done.

    The session zone is ``tz``, else UTC whatever the home holds (so ``hour(event_time)`` gives one
    answer); ``event_time_local`` columns carry the trace's own wall clock.
    """
    from tracewh import query

    con = query.open_read_only(_home(home))
    try:
        query.set_zone(con, tz or query.zone_for(con))
    except BaseException:
        con.close()
        raise
    return con


@dataclass(frozen=True)
class ReportResult:
    """A report's rows and what they mean. ``df`` is the polars DataFrame; attribute access
    falls through to it (``r.filter(...)``, ``r.shape``), and notebooks show the table with
    the published figure and the caveats under it."""

    name: str
    description: str
    reproduces: str
    # The report's footer: what it reproduces, its caveat, and what applies to this data
    # (the bundled sample, the observed window, missing parts); one line each.
    footer: tuple[str, ...]
    method: str
    trace: str | None
    cell: str | None
    zone: str
    params: Mapping[str, object]
    rows: Rows = field(repr=False)
    # Where the numbers come from (tracewh.provenance.collect): version, catalog generations,
    # source digests, parameters, caveats; exports and figures carry it.
    provenance: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def caveats(self) -> list[str]:
        """The footer without its 'reproduces' line: what to keep in mind reading these numbers."""
        from tracewh import reports

        return reports.caveats(self.name, self.footer)

    @property
    def df(self) -> pl.DataFrame:
        return to_polars(self.rows)

    @property
    def metadata(self) -> dict[str, object]:
        return {
            "report": self.name,
            "description": self.description,
            "reproduces": self.reproduces,
            "caveats": self.caveats,
            "method": self.method,
            "trace": self.trace,
            "cell": self.cell,
            "zone": self.zone,
            "params": dict(self.params),
        }

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.df, name)

    def __len__(self) -> int:
        return len(self.rows.rows)

    def __getitem__(self, key: Any) -> Any:
        return self.df[key]

    @property
    def heading(self) -> str:
        """'report queue (google2011 cell a; bucket_s=600): 697 rows'"""
        where = "; ".join(
            p
            for p in (
                (self.trace or "") + (f" cell {self.cell}" if self.cell else ""),
                ", ".join(f"{k}={v}" for k, v in self.params.items()),
            )
            if p
        )
        return f"report {self.name}" + (f" ({where})" if where else "") + f": {len(self):,} rows"

    def __repr__(self) -> str:
        notes = [self.heading]
        if self.reproduces:
            notes.append(f"reproduces: {self.reproduces}")
        notes += self.caveats
        return notes[0] + "\n" + repr(self.df) + "\n" + "\n".join(notes[1:])

    def _repr_html_(self) -> str:
        from html import escape

        lines = ([f"reproduces: {self.reproduces}"] if self.reproduces else []) + self.caveats
        notes = "".join(f"<p>{escape(text)}</p>" for text in lines)
        return f"<p><b>{escape(self.heading)}</b></p>" + self.df._repr_html_() + notes


def to_polars(rows: Rows) -> pl.DataFrame:
    """Rows as a polars DataFrame (every row read for the types, so a late NULL never breaks it)."""
    import polars as pl

    if not rows.rows:
        return pl.DataFrame(schema=rows.columns)
    return pl.DataFrame(rows.rows, schema=rows.columns, orient="row", infer_schema_length=None)


def report(
    name: str,
    trace: str | None = None,
    cell: str | None = None,
    *,
    home: PathLike | Home | None = None,
    tz: str | None = None,
    spark: Any = None,
    memory_limit: str | None = None,
    **params: object,
) -> ReportResult:
    """Run the report ``name`` (``list_reports()`` lists them); ``params`` are its parameters
    (e.g. ``bucket_s=600``), given as Python values. ``memory_limit`` (e.g. ``"2GB"``; else
    $TRACEWH_MEMORY_LIMIT, else 4GB) bounds DuckDB's memory; beyond it the report spills to disk.
    Several reports in a row: ``tracewh.open(home)`` once, then ``Warehouse.report``."""
    from tracewh import reports
    from tracewh.session import ReportOptions, open_warehouse

    reports.get(name)  # an unknown name fails before the home is opened
    with open_warehouse(home, memory_limit=memory_limit) as wh:
        return wh.report(name, ReportOptions(trace=trace, cell=cell, tz=tz, params=params), spark=spark)


def plot(
    name: str | ReportResult,
    trace: str | None = None,
    cell: str | None = None,
    *,
    home: PathLike | Home | None = None,
    style: str | plots.Style | None = None,
    **params: object,
) -> Figure:
    """The report's chart as a matplotlib Figure (pass a ReportResult to draw rows you already have).
    ``style``: a tracewh.plots.Style, or a preset name: ``single`` / ``double`` (paper column /
    text width), ``screen``. In Jupyter the figure shows itself, without ``%matplotlib inline``."""
    from tracewh import plots

    result = name if isinstance(name, ReportResult) else report(name, trace, cell, home=home, **params)  # type: ignore[arg-type]
    chosen = style if isinstance(style, plots.Style) else plots.Style.parse(style)
    return plots.figure(result.name, result.rows, chosen)


def cite(target: str | None = None) -> str:
    """BibTeX for the traces (``target``: one trace) or for a report: its traces and the papers it
    reproduces (the same text as `tracewh cite`)."""
    from tracewh import citations

    return citations.bibtex(target)


def list_reports() -> pl.DataFrame:
    """Every report: name, traces, description, what it reproduces, its parameters."""
    import polars as pl

    from tracewh import reports as reports_lib

    return pl.DataFrame(
        [
            {
                "report": r.name,
                "traces": ", ".join(r.traces),
                "description": r.description,
                "reproduces": r.reproduces,
                "params": ", ".join(f"{k}={v}" for k, v in r.options.items()),
            }
            for r in reports_lib.all_reports().values()
        ]
    )


def ingest(
    trace: str,
    source: PathLike | Sequence[PathLike],
    *,
    home: PathLike | Home | None = None,
    tables: list[str] | None = None,
    table: str | None = None,
    cell: str | None = None,
    replace: bool = False,
    append: bool = False,
    parts: str | None = None,
    allow_empty: bool = False,
    verify: bool = True,
    memory_limit: str | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    spark: Any = None,
    compact: bool = True,
) -> IngestResult:
    """Ingest raw trace files (download folders, or single files with ``table=``) into the home:
    the parts given are written, every other part is kept (``replace=True``: only these).
    ``spark``: a SparkSession to convert the files on, one task per file (warehouse/spark.py).
    ``compact``: merge each day's small Parquet files into large ones (tracewh.compaction)."""
    from tracewh.session import IngestOptions, open_warehouse

    options = IngestOptions(
        tables=tables,
        table_for_file=table,
        cell=cell,
        replace=replace,
        append=append,
        parts=parts,
        allow_empty=allow_empty,
        verify=verify,
        workers=workers,
        compact=compact,
    )
    with open_warehouse(home, memory_limit=memory_limit, read_only=False) as wh:
        return wh.ingest(trace, source, options, progress=progress, spark=spark)


@contextlib.contextmanager
def snapshot(home: PathLike | Home | None = None) -> Iterator[None]:
    """A session: every ``report``, ``plot`` and ``info`` on this home inside the block reads one
    state of the warehouse (the one when the block began), whatever ingests commit meanwhile."""
    from tracewh import query

    with query.snapshot(_home(home)):
        yield


def info(home: PathLike | Home | None = None) -> pl.DataFrame:
    """What is ingested: per table rows, rejects, time range, files, size, last update."""
    from tracewh.session import open_warehouse

    with open_warehouse(home) as wh:
        return to_polars(wh.info())


__all__ = [
    "ReportResult",
    "cite",
    "connect",
    "info",
    "ingest",
    "list_reports",
    "plot",
    "report",
    "snapshot",
    "to_polars",
]
