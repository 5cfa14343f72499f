"""A warehouse session: one home opened once, one DuckDB connection for everything read from it.

    with tracewh.open("tracewh-home") as wh:
        r = wh.report("queue", ReportOptions(trace=TRACE, params={"bucket_s": 600}))
        rows = wh.sql("SELECT count(*) FROM lifecycle.task_events")

What a session saves over a call per operation: the catalog is opened (and the home tidied) once,
not once per read (a report reads its rows, its footer, its gaps and its provenance); the memory
limit is checked once; report headers are parsed once per process (tracewh.reports). Every read of
a session sees the state of the warehouse when its connection opened, whatever ingests commit
meanwhile (like tracewh.snapshot); ``refresh()`` moves it to the latest state, and a session's own
``ingest`` / ``compact`` does so itself (they replace the catalog file by a rename, which an open
connection never sees). DuckDB keeps one database per file and process: while another connection
of this process holds the catalog open (tracewh.connect(), another session), a reopened one shares
that connection's state. The CLI commands and the module-level functions of tracewh.api are thin
layers over this class; the options of an operation travel as one typed value (ReportOptions,
IngestOptions, of tracewh.options), built once by the caller.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracewh.errors import UsageError
from tracewh.home import Home
from tracewh.options import IngestOptions, ReportOptions
from tracewh.results import ReportResult

if TYPE_CHECKING:
    import duckdb

    from tracewh.catalog.checks import CheckResult
    from tracewh.ingestion import IngestResult, Progress
    from tracewh.ingestion.compaction import TableCompaction
    from tracewh.reports import Report
    from tracewh.results import Rows

PathLike = str | Path


def resolve_home(home: PathLike | Home | None) -> Home:
    """A Home from a path (default $TRACEWH_HOME, else the nearest tracewh-home: Home.resolve)."""
    if isinstance(home, Home):
        return home
    return Home.resolve(Path(home) if home is not None else None)


def open_warehouse(
    home: PathLike | Home | None = None,
    *,
    memory_limit: str | None = None,
    tz: str | None = None,
    read_only: bool = True,
) -> Warehouse:
    """Open a home (exported as ``tracewh.open``). ``memory_limit`` bounds DuckDB (else
    $TRACEWH_MEMORY_LIMIT, else 4GB; checked here, once); ``tz`` is the default zone of the
    session's queries and reports; ``read_only=False`` allows ``ingest`` and ``compact`` (the
    home and its catalog are then created on the first ingest). A read-only session opens the
    catalog now: a missing or unusable catalog is an error here, not at the first query."""
    wh = Warehouse(resolve_home(home), memory_limit=memory_limit, tz=tz, read_only=read_only)
    if read_only:
        try:
            wh.connection  # noqa: B018 - opens it
        except BaseException:
            wh.close()
            raise
    return wh


class Warehouse:
    """One home, one read-only DuckDB connection (opened on first use), closed by ``close()`` or
    at the end of a ``with`` block. Not for several threads at once."""

    def __init__(
        self, home: Home, *, memory_limit: str | None = None, tz: str | None = None, read_only: bool = True
    ) -> None:
        from tracewh import catalog
        from tracewh.catalog import query

        self.home = home
        # The limit of the session's reads (checked now); writes take the one asked for, else
        # their own default (an ingest's working set differs from a query's).
        self.memory_limit = catalog.memory_limit(memory_limit, query.DEFAULT_MEMORY_LIMIT)
        self._asked = memory_limit
        self.tz = tz
        self.read_only = read_only
        self._con: duckdb.DuckDBPyConnection | None = None
        self._owned = False  # False: the connection of an enclosing tracewh.snapshot block
        # What the connection answered of the catalog's records (query.fact): valid while it is open.
        self._facts: dict[tuple[str, str], list[tuple]] = {}

    # -- the connection -------------------------------------------------------------------------

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The session's read-only connection (the session closes it; queries on it see every
        trace's views). Inside a ``tracewh.snapshot`` block on the same home: the block's."""
        if self._con is None:
            from tracewh.catalog import query

            shared = query.shared_connection(self.home)
            if shared is not None:
                self._con, self._owned = shared, False
            else:
                from tracewh import signals

                # Opened with Ctrl-C blocked, so DuckDB's threads never take it (query.sharing's
                # watcher answers it by interrupting the query).
                with signals.blocked():
                    self._con, self._owned = query.open_read_only(self.home, self._asked), True
        return self._con

    def refresh(self) -> None:
        """See what was committed since the connection opened (the next read reopens it)."""
        if self._con is not None and self._owned:
            self._con.close()
        self._con = None
        self._facts = {}

    def close(self) -> None:
        self.refresh()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def reading(self, tz: str | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor of the session's connection, its zone ``tz`` (else the session's, else UTC);
        every tracewh read inside the block (footers, gaps, provenance) shares the connection, and
        Ctrl-C cancels what runs on it."""
        from tracewh.catalog import query

        con = self.connection
        with query.sharing(self.home, con, self._facts), query.read_only(self.home) as cur:
            zone = tz or self.tz
            query.set_zone(cur, zone or query.zone_for(cur))
            yield cur

    # -- reading --------------------------------------------------------------------------------

    @staticmethod
    def reports() -> dict[str, Report]:
        """Every report (name -> its parsed header), parsed once per process."""
        from tracewh import reports

        return reports.all_reports()

    def report(self, name: str, options: ReportOptions | None = None, *, spark: Any = None) -> ReportResult:
        """Run a report read-only: its rows, footer and provenance from the one connection.
        ``spark``: a SparkSession with the catalog registered (warehouse/engines/spark.py) to run it on."""
        from tracewh import reports, results
        from tracewh.catalog import query
        from tracewh.reports import provenance

        opts = options or ReportOptions()
        meta = reports.get(name)
        reports.bind(meta, opts.texts())  # a bad parameter fails before the catalog opens
        with query.sharing(self.home, self.connection, self._facts):
            rows = self.rows(name, opts, spark=spark)
            ctx = rows.context
            chosen = str(ctx["trace"]) if ctx.get("trace") else None
            footer = tuple(reports.footer(self.home, name, trace=chosen if meta.needs_trace else opts.trace))
            caveats = results.caveats(meta.name, footer)
            chosen_params: dict[str, object] = dict(ctx.get("params", {}))  # type: ignore[call-overload]
            record = provenance.collect(
                self.home,
                [chosen] if chosen else list(meta.traces),
                report=meta.name,
                params={"trace": chosen, "cell": ctx.get("cell"), "tz": ctx.get("zone"), **chosen_params},
                reproduces=meta.reproduces,
                caveats=caveats,
            )
        return ReportResult(
            name=meta.name,
            description=meta.description,
            reproduces=meta.reproduces,
            footer=footer,
            method=meta.note,
            trace=chosen,
            cell=str(ctx["cell"]) if ctx.get("cell") else None,
            zone=str(ctx.get("zone", "UTC")),
            params=chosen_params,
            rows=rows,
            provenance=record,
        )

    def rows(self, name: str, options: ReportOptions | None = None, *, spark: Any = None) -> Rows:
        """A report's rows only (tracewh.reports.run: no footer, no provenance)."""
        from tracewh import reports
        from tracewh.catalog import query

        opts = options or ReportOptions()
        reports.bind(reports.get(name), opts.texts())  # a bad parameter fails before the catalog opens
        with query.sharing(self.home, self.connection, self._facts):
            return reports.run(
                self.home,
                name,
                trace=opts.trace,
                cell=opts.cell,
                options=opts.texts(),
                tz=opts.tz or self.tz,
                spark=spark,
            )

    def sql(self, text: str, params: Mapping[str, object] | None = None, *, tz: str | None = None) -> Rows:
        """Run one read-only query; its rows (times in ``tz``, else the session's zone, else UTC)."""
        from tracewh.catalog import query

        with self.reading(tz) as cur:
            return query.fetch(cur, text, dict(params or {}))

    def info(self, tz: str | None = None) -> Rows:
        """What is ingested: per table rows, rejects, time range, files, size, last update."""
        from tracewh.catalog import holdings, query

        with query.sharing(self.home, self.connection, self._facts):
            return holdings.tables(self.home, tz=tz or self.tz)

    def gaps(self) -> list[str]:
        """One line per table with parts missing inside its ingested run."""
        from tracewh.catalog import parts, query

        with query.sharing(self.home, self.connection, self._facts):
            return parts.warnings(self.home)

    def check(self) -> list[CheckResult]:
        """The data invariants (sql/checks/ and the mandatory columns); a failed one has rows."""
        from tracewh.catalog import checks, query

        with query.sharing(self.home, self.connection, self._facts):
            return checks.run_all(self.home)

    # -- writing --------------------------------------------------------------------------------

    def ingest(
        self,
        trace: str,
        source: PathLike | Sequence[PathLike],
        options: IngestOptions | None = None,
        *,
        progress: Progress | None = None,
        spark: Any = None,
    ) -> IngestResult:
        """Ingest raw trace files into the home (tracewh.ingestion.ingest); the session then reads
        the new state. ``spark``: a SparkSession to convert the files on."""
        from tracewh import ingestion

        self._writable()
        sources = [Path(source)] if isinstance(source, str | Path) else [Path(s) for s in source]
        # Closed first: a connection this process holds keeps the retired catalog's generations.
        self.refresh()
        return ingestion.ingest(
            self.home,
            trace,
            sources,
            options or IngestOptions(),
            memory_limit=self._asked,
            progress=progress,
            spark=spark,
        )

    def compact(self, trace: str | None = None) -> list[TableCompaction]:
        """Merge each day folder's small Parquet files (tracewh.ingestion.compaction); then read the new
        state."""
        from tracewh.ingestion import compaction

        self._writable()
        self.refresh()
        return compaction.compact(self.home, trace, self._asked)

    def _writable(self) -> None:
        if self.read_only:
            raise UsageError("this warehouse is read-only: open it with tracewh.open(home, read_only=False)")
        if not self._owned and self._con is not None:
            raise UsageError("cannot write inside tracewh.snapshot(): it holds the catalog it began with")
