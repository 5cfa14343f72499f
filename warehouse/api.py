"""The Python API for notebooks and scripts; the command line is built on the same functions.

    import tracewh
    con = tracewh.connect()              # read-only DuckDB connection on the catalog
    con.sql("SELECT ...").pl()           # any query as a polars DataFrame
    tracewh.list_reports()               # every report and the traces it covers
    r = tracewh.report("task-times", trace=name)  # name: a trace it covers, ingested
    r.df                                 # a polars DataFrame
    r.reproduces, r.caveats              # what it reproduces, what to keep in mind
    fig = tracewh.plot("queue", trace=name)

Every function takes ``home=`` (a path; default $TRACEWH_HOME, else the nearest tracewh-home in
the current folder or above, as on the command line: tracewh.home.Home.resolve) and
raises tracewh.errors.TracewhError (UsageError for a wrong argument) on failure.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracewh.home import Home
from tracewh.options import IngestOptions, from_keywords
from tracewh.results import ReportResult, to_polars

if TYPE_CHECKING:
    import duckdb
    import polars as pl
    from matplotlib.figure import Figure

    from tracewh.ingestion import IngestResult, Progress
    from tracewh.reports import plots

PathLike = str | Path
# The defaults of ingest's keywords: IngestOptions' own (the fields' defaults are their one place).
_INGEST = IngestOptions()


def _home(home: PathLike | Home | None) -> Home:
    from tracewh.session import resolve_home

    return resolve_home(home)


def connect(home: PathLike | None = None, *, tz: str | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only DuckDB connection on the catalog (every trace's views); close it when done.

    The session zone is ``tz``, else UTC whatever the home holds (so ``hour(event_time)`` gives one
    answer); ``event_time_local`` columns carry the trace's own wall clock.
    """
    from tracewh.catalog import query

    con = query.open_read_only(_home(home))
    try:
        query.set_zone(con, tz or query.zone_for(con))
    except BaseException:
        con.close()
        raise
    return con


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
    ``style``: a tracewh.reports.plots.Style, or a preset name: ``single`` / ``double`` (paper column /
    text width), ``screen``. In Jupyter the figure shows itself, without ``%matplotlib inline``."""
    from tracewh.reports import plots

    result = name if isinstance(name, ReportResult) else report(name, trace, cell, home=home, **params)  # type: ignore[arg-type]
    chosen = style if isinstance(style, plots.Style) else plots.Style.parse(style)
    return plots.figure(result.name, result.rows, chosen)


def cite(target: str | None = None) -> str:
    """BibTeX for the traces (``target``: one trace) or for a report: its traces and the papers it
    reproduces (the same text as `tracewh cite`)."""
    from tracewh.reports import citations

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
    tables: list[str] | None = _INGEST.tables,
    table: str | None = _INGEST.table_for_file,
    cell: str | None = _INGEST.cell,
    replace: bool = _INGEST.replace,
    append: bool = _INGEST.append,
    parts: str | None = _INGEST.parts,
    allow_empty: bool = _INGEST.allow_empty,
    verify: bool = _INGEST.verify,
    memory_limit: str | None = None,
    workers: int | None = _INGEST.workers,
    progress: Progress | None = None,
    spark: Any = None,
    compact: bool = _INGEST.compact,
) -> IngestResult:
    """Ingest raw trace files (download folders, or single files with ``table=``) into the home:
    the parts given are written, every other part is kept (``replace=True``: only these).
    ``spark``: a SparkSession to convert the files on, one task per file (warehouse/engines/spark.py).
    ``compact``: merge each day's small Parquet files into large ones (tracewh.ingestion.compaction).
    The keywords are tracewh.IngestOptions' fields (``table``: its ``table_for_file``), checked
    before anything is read: a contradiction (``replace`` with ``append``), a malformed ``parts``
    or ``workers`` below 1 is an OptionError (a UsageError)."""
    from tracewh.session import open_warehouse

    options = from_keywords(IngestOptions, locals(), table_for_file="table")
    with open_warehouse(home, memory_limit=memory_limit, read_only=False) as wh:
        return wh.ingest(trace, source, options, progress=progress, spark=spark)


@contextlib.contextmanager
def snapshot(home: PathLike | Home | None = None) -> Iterator[None]:
    """A session: every ``report``, ``plot`` and ``info`` on this home inside the block reads one
    state of the warehouse (the one when the block began), whatever ingests commit meanwhile."""
    from tracewh.catalog import query

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
