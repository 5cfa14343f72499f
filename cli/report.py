"""`tracewh report list` and one `tracewh report NAME` command per SQL file in sql/reports/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.common import CellOpt, FormatOpt, HomeOpt, TraceOpt, home_of
from warehouse import reports

app = typer.Typer(
    help="Ready-made analyses from the trace papers.", no_args_is_help=True, rich_markup_mode=None
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


@app.command("list")
def list_reports(fmt: FormatOpt = "table") -> None:
    """Every report with the traces it covers and what it shows."""
    from cli.render import render_stream

    rows = [
        (r.name, ", ".join(r.traces), r.description, r.reproduces) for r in reports.all_reports().values()
    ]
    render_stream(
        ["report", "traces", "description", "reproduces"],
        ["VARCHAR"] * 4,
        iter([rows]),
        fmt,
        title="reports",
    )


def _make_command(report: reports.Report):
    def command(
        trace: TraceOpt = None,
        cell: CellOpt = None,
        fmt: FormatOpt = "table",
        plot: PlotOpt = None,
        param: ParamOpt = None,
        memory_limit: MemoryOpt = None,
        home: HomeOpt = None,
    ) -> None:
        from cli.render import render
        from warehouse.errors import UsageError

        options = {}
        for item in param or []:
            key, sep, value = item.partition("=")
            if not sep:
                raise UsageError(f"--param wants NAME=VALUE, got {item!r}")
            options[key.strip()] = value.strip()
        rows = reports.run(
            home_of(home), report.name, trace=trace, cell=cell, options=options, memory_limit=memory_limit
        )
        render(rows, fmt, title=report.name)
        from cli.common import err_console

        # what the report reproduces and the caveats of this data, on stderr (stdout is data only)
        for line in reports.footer(home_of(home), report.name, trace=trace):
            err_console.print(line, markup=False, highlight=False)
        if plot is not None:
            from warehouse import plots

            plots.write(report.name, rows, plot)

    command.__doc__ = (
        report.description
        + (f"\n\nReproduces: {report.reproduces}" if report.reproduces else "")
        + f"\n\nTraces: {', '.join(report.traces)}."
    )
    return command


for _report in reports.all_reports().values():
    app.command(_report.name)(_make_command(_report))
