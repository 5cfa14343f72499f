"""The `tracewh` command: global options, the one error boundary, and the small commands.

Heavy modules (duckdb, polars, pyarrow) are imported inside the commands, so
`tracewh --help` stays instant. stdout carries data only; everything else
(progress, warnings, errors) goes to stderr.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer._click import exceptions as click

from tracewh import __version__
from tracewh.cli import download as download_cmd
from tracewh.cli import ingest as ingest_cmd
from tracewh.cli import report as report_cmd
from tracewh.cli import synth as synth_cmd
from tracewh.cli.common import (
    EXAMPLE_TRACE,
    ColumnsOpt,
    EngineOpt,
    FormatOpt,
    HomeOpt,
    MasterOpt,
    MaxRowsOpt,
    OutputOpt,
    State,
    StdoutClosed,
    TzOpt,
    err_console,
    examples,
    home_of,
    literal,
    spark_session,
)
from tracewh.errors import Interrupted, OptionError, TracewhError, UsageError
from tracewh.traces import builtin_titles, registry

if TYPE_CHECKING:
    from tracewh.home import Home

APP_HELP = f"A local warehouse for public cluster traces ({', '.join(builtin_titles())})."
app = typer.Typer(
    name="tracewh",
    help=APP_HELP,
    no_args_is_help=True,
    # `tracewh --install-completion` (bash, zsh, fish, PowerShell; the shell is detected).
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.command("ingest", help=ingest_cmd.HELP)(ingest_cmd.ingest)
app.command("download", help=download_cmd.HELP)(download_cmd.download)
app.add_typer(report_cmd.app, name="report")
app.command("synth", help=synth_cmd.HELP)(synth_cmd.synth)


def _version(value: bool) -> None:
    if value:
        print(f"tracewh {__version__}")
        raise typer.Exit()


@app.callback(help=APP_HELP)
def root(
    ctx: typer.Context,
    home: HomeOpt = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """The options every command shares (the home, --debug, --version)."""
    ctx.obj = State(home=home, debug=debug)


@app.command(
    help=examples(
        "Ingest the bundled samples into a fresh home and print reports.",
        "tracewh demo",
        "tracewh --home /tmp/tracewh-demo demo",
    )
)
def demo(ctx: typer.Context, home: HomeOpt = None) -> None:
    from tracewh import demo as demo_lib

    h = home_of(ctx, home)
    err_console.print(literal(f"tracewh demo: ingesting the bundled sample into {h.root}"))
    results = demo_lib.run(h, progress=ingest_cmd.make_progress(quiet=False))
    for result in results:
        ingest_cmd.print_summary(result)
    from tracewh import reports
    from tracewh.cli.render import render
    from tracewh.session import ReportOptions, Warehouse

    with Warehouse(h) as wh:
        err_console.print("\nreport overview:")
        render(wh.rows("overview"), "table", title="overview")
        for trace, spec in registry().items():  # each trace names the reports its demo shows
            for name in spec.demo_reports:
                needs = reports.get(name).needs_trace
                err_console.print(f"\nreport {name}{f' --trace {trace}' if needs else ''}:")
                rows = wh.rows(name, ReportOptions(trace=trace if needs else None))
                render(rows, "table", title=f"{name} ({trace})")
        err_console.print("\nreport compare:")
        render(wh.rows("compare"), "table", title="compare")


@app.command(
    help=examples(
        "What is ingested: tables, rows, time ranges, rejects, last ingest.",
        "tracewh info",
        "tracewh info -f json",
    )
)
def info(
    ctx: typer.Context,
    home: HomeOpt = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    tz: TzOpt = None,
    columns: ColumnsOpt = None,
) -> None:
    from tracewh.catalog import holdings
    from tracewh.cli.render import render
    from tracewh.session import Warehouse

    with Warehouse(home_of(ctx, home), tz=tz) as wh:
        render(wh.info(), fmt, title="ingested tables", output=output, columns=columns)
        # missing parts named on stderr too
        for line in wh.gaps():
            err_console.print(f"Warning: {line}", markup=False, highlight=False)
    extra = holdings.beyond_live(home_of(ctx, home))
    err_console.print(
        f"{extra / 1e6:,.2f} MB on disk beyond the live data (superseded generations and catalogs "
        "kept while a reader holds them; the first command after it closes deletes them)",
        markup=False,
        highlight=False,
    )


@app.command(
    help=examples(
        "Run SQL against the catalog (read-only) and print the result. QUERY '-' reads it from stdin.",
        'tracewh sql "SELECT trace, event_type_name, count(*) FROM lifecycle.task_events GROUP BY ALL"',
        "tracewh sql - -o events.parquet < query.sql",
    )
)
def sql(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="SQL to run read-only against the catalog ('-': stdin).")],
    home: HomeOpt = None,
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    tz: TzOpt = None,
    max_rows: MaxRowsOpt = 1000,
    columns: ColumnsOpt = None,
    engine: EngineOpt = "duckdb",
    master: MasterOpt = None,
) -> None:
    from tracewh.catalog import query as query_lib
    from tracewh.cli.render import check_format, render
    from tracewh.errors import UsageError

    if query == "-":
        query = sys.stdin.read()
    if not query.strip():
        raise UsageError("the query is empty")
    fmt = check_format(fmt, output)
    if columns and fmt == "parquet":
        raise UsageError("--columns does not apply to parquet: name the columns in the query")
    spark = spark_session(engine, master, home_of(ctx, home))
    if spark is not None:
        # --engine spark: the same (DuckDB) SQL, translated, on Spark over the same views
        from tracewh.engines import spark as spark_engine

        with query_lib.read_only(home_of(ctx, home)) as con:
            zone = tz or query_lib.zone_for(con)
        spark_engine.register(spark, home_of(ctx, home))
        if fmt == "parquet" and output is not None:
            query_lib.write_parquet(spark_engine.to_arrow(spark, query).to_reader(), output)
        else:
            render(
                spark_engine.fetch(spark, query, zone=zone),
                fmt,
                output=output,
                columns=columns,
                max_rows=max_rows,
            )
    else:
        _sql_duckdb(home_of(ctx, home), query, fmt, output, tz, max_rows, columns)
    if output is not None:
        err_console.print(f"wrote {output}", markup=False, highlight=False)


def _sql_duckdb(
    home: Home, query: str, fmt: str, output: Path | None, tz: str | None, max_rows: int, columns: str | None
) -> None:
    from tracewh.catalog import query as query_lib
    from tracewh.cli.render import Stream, render
    from tracewh.reports import provenance
    from tracewh.session import Warehouse

    with Warehouse(home) as wh, wh.reading(tz) as con:
        record = provenance.collect(home, sql=query) if output is not None else None
        if fmt == "parquet" and output is not None:
            # Arrow batches straight from DuckDB: streamed, with the exact column types.
            query_lib.copy_to_parquet(con, query, output, provenance.parquet_metadata(record or {}))
        else:
            names, types, batches = query_lib.stream(con, query)
            render(
                Stream(names, types, batches),
                fmt,
                output=output,
                provenance=record,
                columns=columns,
                max_rows=max_rows,
            )


@app.command(
    help=examples(
        "One self-contained HTML page with every report that applies to what is ingested: its "
        "table, its chart, the published figure beside tracewh's number, caveats.",
        "tracewh summary --html summary.html",
    )
)
def summary(
    ctx: typer.Context,
    html: Annotated[Path, typer.Option("--html", help="The HTML file to write.")],
    home: HomeOpt = None,
    tz: TzOpt = None,
) -> None:
    from tracewh.cli.render import atomic_file
    from tracewh.reports import summary as summary_lib

    def progress(name: str) -> None:
        err_console.print(f"report {name}", markup=False, highlight=False)

    page = summary_lib.html_page(home_of(ctx, home), tz=tz, progress=progress)
    with atomic_file(html) as tmp:
        tmp.write_text(page.html, encoding="utf-8")
    for name, reason in page.skipped:
        err_console.print(f"skipped {name}: {reason}", markup=False, highlight=False)
    err_console.print(f"wrote {html} ({len(page.sections)} reports)", markup=False, highlight=False)


@app.command(
    help=examples(
        "Open the DuckDB shell (duckdb-cli) on the catalog, read-only by default.",
        "tracewh shell",
        "tracewh shell --write",
    )
)
def shell(
    ctx: typer.Context,
    home: HomeOpt = None,
    write: Annotated[bool, typer.Option("--write", help="Open read-write (blocks ingests).")] = False,
) -> None:
    from tracewh.engines import shell as shell_lib

    h = home_of(ctx, home)
    argv = shell_lib.command(h, write=write)
    os.execv(argv[0], argv)


@app.command(
    help=examples(
        "Run the data invariants (sql/checks/ and the traces' own checks/); exit 1 when any returns rows.",
        "tracewh check",
        "tracewh check -f csv",
    )
)
def check(ctx: typer.Context, home: HomeOpt = None, fmt: FormatOpt = None) -> None:
    from tracewh.catalog import checks
    from tracewh.cli.render import render
    from tracewh.session import Warehouse

    with Warehouse(home_of(ctx, home)) as wh:
        results = wh.check()
    render(checks.summary(results), fmt, title="checks")
    failed = [r for r in results if r.failed]
    for r in failed:
        err_console.print(literal(f"check {r.name} failed: {r.count} offending row(s), e.g. {r.sample[:1]}"))
    if failed:
        raise typer.Exit(1)


# `tracewh plot` (report.py, beside the reports' chart options), listed here among the commands
app.command(name="plot", help=report_cmd.PLOT_HELP)(report_cmd.plot)


@app.command(
    help=examples(
        "BibTeX for the traces (what their publishers ask users to cite) and the papers a report reproduces.",
        "tracewh cite",
        f"tracewh cite {EXAMPLE_TRACE}",
        "tracewh cite task-times > refs.bib",
    )
)
def cite(
    target: Annotated[
        str | None,
        typer.Argument(help="A trace or a report (default: every trace).", metavar="[TRACE|REPORT]"),
    ] = None,
) -> None:
    from tracewh.reports import citations

    sys.stdout.write(citations.bibtex(target))


@app.command(
    help=examples(
        "Repoint every view at the home's current location (after moving the home folder).",
        "tracewh --home /new/place/tracewh-home repair",
    )
)
def repair(ctx: typer.Context, home: HomeOpt = None) -> None:
    from tracewh import catalog

    h = home_of(ctx, home)
    before = catalog.repair(h)
    err_console.print(literal(f"views rebuilt for {h.root}" + (f" (was {before})" if before else "")))


@app.command(
    help=examples(
        "Merge the small Parquet files of each day folder into files of up to 128 MB, in a new "
        "generation committed at once (an ingest does this for what it writes; this compacts a "
        "home ingested with --no-compact or by an older tracewh).",
        "tracewh compact",
        f"tracewh compact {EXAMPLE_TRACE}",
    )
)
def compact(
    ctx: typer.Context,
    trace: Annotated[str | None, typer.Argument(help="Only this trace (default: every trace).")] = None,
    memory_limit: Annotated[
        str | None,
        typer.Option(
            "--memory-limit",
            help="Memory budget of the whole process: DuckDB gets it less a reserve "
            "for the rest (default $TRACEWH_MEMORY_LIMIT, else 2GB).",
        ),
    ] = None,
    home: HomeOpt = None,
) -> None:
    from tracewh.session import Warehouse

    if trace is not None and trace not in registry():
        raise UsageError(f"no trace named {trace!r} (traces: {', '.join(registry())})")
    with Warehouse(home_of(ctx, home), memory_limit=memory_limit, read_only=False) as wh:
        done = wh.compact(trace)
    for c in done:
        err_console.print(
            f"{c.trace}.{c.table}: {c.files_before:,} -> {c.files_after:,} files "
            f"({c.bytes_before / 1e6:,.1f} -> {c.bytes_after / 1e6:,.1f} MB)"
        )
    if not done:
        err_console.print("nothing to compact: every partition folder holds at most one small file")


def main(argv: list[str] | None = None) -> None:
    """Entry point: the one error boundary. Exit 0 ok, 1 failed, 2 usage error."""
    args = sys.argv[1:] if argv is None else argv
    # Read here, not from the call's context: the boundary below runs after that context is gone.
    debug = "--debug" in args or bool(os.environ.get("TRACEWH_DEBUG"))
    from tracewh import signals

    signals.terminate_as_interrupt()
    try:
        # Not typer's standalone mode: it ends silently on Ctrl-C and with exit 1 on a closed pipe.
        code = app(args=args, prog_name="tracewh", standalone_mode=False)
        if code == 130:  # typer's translation of KeyboardInterrupt
            err_console.print("Error: interrupted")
        sys.exit(code if isinstance(code, int) else 0)
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("Error: interrupted")
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except StdoutClosed:
        # stdout closed early (e.g. `| head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    except OptionError as e:  # worded with the command line's flags, not the API's keywords
        _fail(e, 2, debug, e.worded(OptionError.flag))
    except UsageError as e:
        _fail(e, 2, debug)
    except Interrupted as e:
        _fail(e, 130, debug)
    except TracewhError as e:
        _fail(e, 1, debug)
    except Exception as e:  # the boundary: anything unexpected is still one line
        if debug:
            raise
        text = " ".join(str(e).split())  # one line, even for a message of several (mathtext's)
        err_console.print(literal(f"Error: internal error: {type(e).__name__}: {text} (run with --debug)"))
        sys.exit(1)


def _fail(e: TracewhError, code: int, debug: bool, text: str | None = None) -> None:
    if debug:
        import traceback

        traceback.print_exc()
    err_console.print(f"Error: {text or e}", markup=False, highlight=False, soft_wrap=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
