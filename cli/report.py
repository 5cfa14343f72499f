"""`tracewh report list` and one `tracewh report NAME` command per SQL file in sql/reports/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tracewh import reports
from tracewh.cli.common import (
    CellOpt,
    EngineOpt,
    FormatOpt,
    HomeOpt,
    MasterOpt,
    OutputOpt,
    TraceOpt,
    TzOpt,
    err_console,
    examples,
    home_of,
    spark_session,
)

app = typer.Typer(
    help=examples(
        "Ready-made analyses from the trace papers.",
        "tracewh report list",
        "tracewh report queue --trace google2011 --plot queue.png",
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)

PlotOpt = Annotated[
    Path | None, typer.Option("--plot", help="Also write a PNG chart (needs the plot extra).")
]
MemoryOpt = Annotated[
    str | None,
    typer.Option(
        "--memory-limit",
        help="DuckDB memory limit, e.g. 2GB; beyond it the report spills to tmp/ "
        "(default $TRACEWH_MEMORY_LIMIT, else 4GB).",
    ),
]
ParamOpt = Annotated[
    list[str] | None,
    typer.Option("--param", "-p", help="Report parameter NAME=VALUE (see the report's help)."),
]


@app.command(
    "list",
    help=examples(
        "Every report with the traces it covers and what it shows.",
        "tracewh report list",
        "tracewh report list -f markdown",
    ),
)
def list_reports(fmt: FormatOpt = None, output: OutputOpt = None) -> None:
    from tracewh.cli.render import render_stream

    rows = [
        (r.name, ", ".join(r.traces), r.description, r.reproduces) for r in reports.all_reports().values()
    ]
    render_stream(
        ["report", "traces", "description", "reproduces"],
        ["VARCHAR"] * 4,
        iter([rows]),
        fmt,
        title="reports",
        output=output,
    )


def parse_params(items: list[str] | None) -> dict[str, str]:
    from tracewh.errors import UsageError

    options = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--param wants NAME=VALUE, got {item!r}")
        options[key.strip()] = value.strip()
    return options


def _make_command(report: reports.Report):
    def command(
        ctx: typer.Context,
        trace: TraceOpt = None,
        cell: CellOpt = None,
        fmt: FormatOpt = None,
        output: OutputOpt = None,
        plot: PlotOpt = None,
        param: ParamOpt = None,
        tz: TzOpt = None,
        memory_limit: MemoryOpt = None,
        home: HomeOpt = None,
        engine: EngineOpt = "duckdb",
        master: MasterOpt = None,
    ) -> None:
        from tracewh import api
        from tracewh.cli.render import render

        if plot is not None:  # a chart it cannot write fails before the report runs
            from tracewh import plots

            plots.target(plot)
        spark = spark_session(engine, master)
        if spark is not None:
            from tracewh import spark as spark_engine

            spark_engine.register(spark, home_of(ctx, home))
        result = api.report(
            report.name,
            trace,
            cell,
            home=home_of(ctx, home),
            tz=tz,
            memory_limit=memory_limit,
            spark=spark,
            **parse_params(param),
        )
        render(result.rows, fmt, title=report.name, output=output)
        # what the report reproduces and the caveats of this data, on stderr (stdout is data only)
        for line in result.footer:
            err_console.print(line, markup=False, highlight=False)
        if output is not None:
            err_console.print(f"wrote {output}", markup=False, highlight=False)
        if plot is not None:
            from tracewh import plots

            written = plots.write(report.name, result.rows, plot)
            err_console.print(f"plot written to {written}", markup=False, highlight=False)

    return command


def _help(report: reports.Report) -> str:
    trace = f" --trace {report.traces[0]}" if report.needs_trace else ""
    lines = [f"tracewh report {report.name}{trace}"]
    if report.plot:
        lines.append(f"tracewh report {report.name}{trace} --plot {report.name}.png")
    else:
        lines.append(f"tracewh report {report.name}{trace} --output {report.name}.csv")
    text = (
        report.description
        + (f"\n\nReproduces: {report.reproduces}" if report.reproduces else "")
        + f"\n\nTraces: {', '.join(report.traces)}."
    )
    if report.options:
        text += "\n\nParameters (--param NAME=VALUE): " + "; ".join(p.describe() for p in report.param_specs)
    return examples(text, *lines)


for _report in reports.all_reports().values():
    app.command(_report.name, help=_help(_report))(_make_command(_report))
