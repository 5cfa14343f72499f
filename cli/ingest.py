"""`tracewh ingest TRACE SOURCE`: argument parsing, the rich progress on stderr and the summary table."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tracewh.cli.common import (
    TRACES_HELP,
    EngineOpt,
    HomeOpt,
    MasterOpt,
    byte_bar,
    err_console,
    example_trace,
    examples,
    home_of,
    literal,
    spark_session,
)

if TYPE_CHECKING:  # typed without importing duckdb at startup
    from tracewh.ingestion import FileResult, IngestResult

# The examples' traces (from the registry): the first, and the first with cells.
_FIRST = example_trace()
_CELLS = example_trace(lambda s: bool(s.cells))
_CELL = (_CELLS.cells or ("",))[0]

HELP = examples(
    "Ingest raw trace files (the original download layout, or single files with --table) into "
    "partitioned Parquet and the catalog. A part (one source file) is the unit: an ingest writes "
    "exactly the parts it is given and keeps every other part; unchanged parts are skipped; "
    "--replace makes the tables exactly the given parts.",
    f"tracewh ingest {_FIRST.name} ~/{_FIRST.name} --tables {','.join(list(_FIRST.tables)[:2])}",
    f"tracewh ingest {_CELLS.name} ~/shards-of-cell-{_CELL} --cell {_CELL}",
)


def ingest(
    ctx: typer.Context,
    trace: Annotated[str, typer.Argument(help=f"The trace: {TRACES_HELP}.")],
    sources: Annotated[
        list[Path], typer.Argument(help="Downloaded folders and/or single part files (one or more).")
    ],
    tables: Annotated[
        list[str] | None,
        typer.Option("--tables", help="Only these tables (repeat or comma-separate)."),
    ] = None,
    table: Annotated[
        str | None, typer.Option("--table", help="The table a single SOURCE file belongs to.")
    ] = None,
    cell: Annotated[
        str | None, typer.Option("--cell", help="Google 2019: the cell (a..h) of a flat folder of shards.")
    ] = None,
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Make each table exactly the given parts (drop the others)."),
    ] = False,
    append: Annotated[
        bool,
        typer.Option("--append", help="Only add new parts; refuse a part ingested with other content."),
    ] = False,
    parts: Annotated[
        str | None, typer.Option("--parts", help="Only these part numbers, e.g. 0-99,250.")
    ] = None,
    allow_empty: Annotated[
        bool, typer.Option("--allow-empty", help="Accept a file with no rows (else an error).")
    ] = False,
    no_verify: Annotated[bool, typer.Option("--no-verify", help="Skip the SHA256SUM check.")] = False,
    memory_limit: Annotated[
        str | None,
        typer.Option(
            "--memory-limit",
            help="Memory budget of the whole ingest, e.g. 4GB: DuckDB gets it less a reserve for "
            "the rest of the process (default $TRACEWH_MEMORY_LIMIT, else 2GB).",
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Files converted in parallel (default: cores).")
    ] = None,
    no_compact: Annotated[
        bool,
        typer.Option(
            "--no-compact", help="Keep one Parquet file per part and day (no merge into large files)."
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")] = False,
    home: HomeOpt = None,
    engine: EngineOpt = "duckdb",
    master: MasterOpt = None,
) -> None:
    from tracewh.options import IngestOptions, from_keywords
    from tracewh.session import Warehouse

    # The options made once, checked as they are made (an OptionError, worded with these flags by
    # the error boundary); the flags that differ from IngestOptions' fields are given their value.
    given = {
        **locals(),
        "tables": [t.strip() for item in tables or [] for t in item.split(",") if t.strip()] or None,
        "verify": not no_verify,
        "compact": not no_compact,
    }
    options = from_keywords(IngestOptions, given, table_for_file="table")
    # --engine spark: one Spark task per file (executors share the source and home paths)
    spark = spark_session(engine, master, home_of(ctx, home))
    progress = make_progress(quiet)
    try:
        with Warehouse(home_of(ctx, home), memory_limit=memory_limit, read_only=False) as wh:
            result = wh.ingest(trace, sources, options, progress=progress, spark=spark)
    finally:
        progress.close()  # a bar still drawn (an ingest that ended early) is taken down
    if not quiet:
        print_summary(result)
    # issue 9: a part missing inside the run of parts is named even with --quiet (it changes answers).
    from tracewh.catalog import parts as part_gaps  # `parts` is the --parts option here

    for line in part_gaps.warnings(home_of(ctx, home), trace):
        err_console.print(f"Warning: {line}", markup=False, highlight=False)


def make_progress(quiet: bool) -> Any:
    """A tracewh.ingestion.Progress drawing a rich bar on stderr, or a silent one."""
    from tracewh.ingestion import Progress

    class Silent(Progress):
        def close(self) -> None:
            """Nothing drawn, nothing to take down."""

    if quiet or not err_console.is_terminal:
        return Silent()

    class Bar(Progress):
        def __init__(self) -> None:
            self.bar = byte_bar("{task.description}", "files", "rows")
            self.task: Any = None
            self.text = "ingesting"
            self.rows = 0
            self.done = 0
            self.files = 0

        def begin(self, files: int, total_bytes: int) -> None:
            # each phase that reads the input (hashing, converting) has a bar of its own: its rate
            # and ETA come from the bytes of that phase
            self.files, self.done, self.rows = files, 0, 0
            self.close()
            self.bar.start()
            self.task = self.bar.add_task(self.text, total=total_bytes, files=f"0/{files} files", rows="")

        def phase(self, text: str) -> None:
            # a bar belongs to one phase: the next one ends it
            self.close()
            self.text = text
            err_console.print(literal(f"{text}...", "dim"))

        def close(self) -> None:
            if self.task is not None:
                self.bar.stop()
                self.bar.remove_task(self.task)
                self.task = None

        def advance(self, nbytes: int) -> None:
            self.bar.update(self.task, advance=nbytes)

        def file_done(self, result: FileResult) -> None:
            self.done += 1
            self.rows += result.rows_read
            elapsed = self.bar.tasks[-1].elapsed or 1e-9
            self.bar.update(
                self.task,
                files=f"{self.done}/{self.files} files",
                rows=f"{self.rows / elapsed:,.0f} rows/s",
            )
            if self.done == self.files:
                self.close()

    return Bar()


def print_summary(result: IngestResult) -> None:
    """The end-of-ingest table on stderr: per table files, rows read/written/rejected."""
    from rich.table import Table

    from tracewh.ingestion import summarize

    title = f"{result.trace}: ingest {result.ingest_id} ({result.mode}) in {result.seconds:.1f} s"
    if not result.committed:
        title = (
            f"{result.trace}: nothing to ingest, every part is unchanged "
            f"(checked in {result.seconds:.1f} s); the warehouse is as it was"
        )
    t = Table(title=title, title_justify="left")
    for col in (
        "table",
        "files",
        "skipped",
        "MB read",
        "rows read",
        "written",
        "rejected",
        "rows now",
    ):
        t.add_column(col, justify="left" if col == "table" else "right")
    for tr in result.tables:
        s = summarize(tr.files)
        t.add_row(
            tr.table,
            str(s["files"]),
            str(len(tr.skipped)),
            f"{s['bytes'] / 1e6:,.1f}",
            f"{s['rows_read']:,}",
            f"{s['rows_written']:,}",
            f"[red]{s['rows_rejected']:,}[/red]" if s["rows_rejected"] else "0",
            f"{tr.rows_total:,}",
        )
    err_console.print(t)
    rejected = sum(f.rows_rejected for f in result.files)
    if rejected:
        err_console.print(
            f"{rejected:,} rejected row(s) kept in meta.rejects: "
            f"tracewh sql \"SELECT * FROM meta.rejects WHERE ingest_id = '{result.ingest_id}'\""
        )
