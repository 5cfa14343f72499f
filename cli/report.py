"""`tracewh report list` and one `tracewh report NAME` command per SQL file in sql/reports/."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Annotated, Any

import typer
from typer._click import core as click
from typer.core import TyperGroup

from tracewh import reports
from tracewh.cli.common import (
    EXAMPLE_TRACE,
    REPORT_ROWS,
    CellOpt,
    ColumnsOpt,
    DpiOpt,
    EngineOpt,
    FontSizeOpt,
    FormatOpt,
    HomeOpt,
    MasterOpt,
    MaxRowsOpt,
    OutputOpt,
    PlotSizeOpt,
    TraceOpt,
    TzOpt,
    err_console,
    examples,
    home_of,
    spark_session,
)


class _ReportCommands(MutableMapping[str, click.Command]):
    """The report group's commands: `list`, then one per report, each built the first time it is
    asked for. Building a command reads its options' annotations (milliseconds each, times the
    reports), which `tracewh --help` and `tracewh report list` never need."""

    def __init__(self, fixed: MutableMapping[str, click.Command]) -> None:
        self._built = dict(fixed)
        self._fixed = list(fixed)

    def _names(self) -> list[str]:
        return [*self._fixed, *(n for n in reports.all_reports() if n not in self._fixed)]

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._built:
            report = reports.all_reports().get(name)
            if report is None:
                raise KeyError(name)
            info = typer.models.CommandInfo(name=name, help=_help(report), callback=_make_command(report))
            self._built[name] = typer.main.get_command_from_info(
                info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=None
            )
        return self._built[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._built[name] = command
        if name not in self._fixed:
            self._fixed.append(name)

    def __delitem__(self, name: str) -> None:
        del self._built[name]
        self._fixed.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class _ReportGroup(TyperGroup):
    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _ReportCommands(self.commands)


app = typer.Typer(
    cls=_ReportGroup,
    help=examples(
        "Ready-made analyses from the trace papers.",
        "tracewh report list",
        f"tracewh report queue --trace {EXAMPLE_TRACE} --plot queue.png",
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)

PlotOpt = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        help="Also write the chart: .png, .pdf or .svg (vector, for papers); needs the plot extra.",
    ),
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
    from tracewh.cli.render import Stream, check_format, render, screen_width
    from tracewh.traces import trace_names

    every = set(trace_names())
    rows = [
        (r.name, ", ".join(r.traces), r.description, r.reproduces) for r in reports.all_reports().values()
    ]
    if check_format(fmt, output) == "table" and output is None:
        # One line per report: the description cut to the width (the whole text: the report's
        # --help, or -f csv), traces covering every trace as 'all'.
        short = [(n, "all" if set(t.split(", ")) == every else t, d) for n, t, d, _ in rows]
        name_w = max(len(n) for n, _, _ in short)
        traces_w = max(len(t) for _, t, _ in short)
        room = max(screen_width() - name_w - traces_w - 10, 20)
        cut = [(n, t, d if len(d) <= room else d[: room - 1].rsplit(" ", 1)[0] + "…") for n, t, d in short]
        render(
            Stream(["report", "traces", "description"], ["VARCHAR"] * 3, iter([cut])), fmt, title="reports"
        )
        err_console.print(
            "the whole description and parameters: tracewh report NAME --help; "
            "what each reproduces: tracewh report list -f csv",
            markup=False,
            highlight=False,
        )
        return
    header = ["report", "traces", "description", "reproduces"]
    render(Stream(header, ["VARCHAR"] * 4, iter([rows])), fmt, title="reports", output=output)


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
        plot_size: PlotSizeOpt = None,
        dpi: DpiOpt = None,
        font_size: FontSizeOpt = None,
        param: ParamOpt = None,
        tz: TzOpt = None,
        memory_limit: MemoryOpt = None,
        columns: ColumnsOpt = None,
        max_rows: MaxRowsOpt = REPORT_ROWS,
        home: HomeOpt = None,
        engine: EngineOpt = "duckdb",
        master: MasterOpt = None,
    ) -> None:
        from tracewh.cli.render import render
        from tracewh.session import ReportOptions, Warehouse

        style = None
        if plot is not None:
            from tracewh.reports import plots

            # a report without a chart, a bad suffix or style fails before the query runs
            plots.check_target(report.name, plot)
            style = plots.Style.parse(plot_size, dpi, font_size)
        options = ReportOptions(trace=trace, cell=cell, tz=tz, params=parse_params(param))
        where = home_of(ctx, home)
        spark = spark_session(engine, master, where)
        if spark is not None:
            from tracewh.engines import spark as spark_engine

            # what this report reads, not the whole catalog (Spark analyses each view it creates)
            spark_engine.register(spark, where, only=report)
        with Warehouse(where, memory_limit=memory_limit) as wh:
            result = wh.report(report.name, options, spark=spark)
        render(
            result.rows,
            fmt,
            title=report.name,
            output=output,
            provenance=dict(result.provenance),
            columns=columns,
            max_rows=max_rows,
        )
        # what the report reproduces and the caveats of this data, on stderr (stdout is data only)
        for line in result.footer:
            err_console.print(line, markup=False, highlight=False)
        if output is not None:
            err_console.print(f"wrote {output}", markup=False, highlight=False)
        if plot is not None:
            from tracewh.reports import plots

            written = plots.write(report.name, result.rows, plot, dict(result.provenance), style)
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


# `tracewh plot`: a command of its own (main.py), beside the chart options of the reports.
PLOT_HELP = examples(
    "Draw a report's chart again from its export (csv, json, jsonl, parquet with its provenance), "
    "in another size or format, without running the query.",
    f"tracewh report queue --trace {EXAMPLE_TRACE} -o queue.parquet",
    "tracewh plot queue.parquet -o queue.pdf --plot-size single",
)


def plot(
    export: Annotated[Path, typer.Argument(help="A file written by tracewh report ... -o FILE.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The figure: .png, .pdf or .svg.")],
    plot_size: PlotSizeOpt = None,
    dpi: DpiOpt = None,
    font_size: FontSizeOpt = None,
) -> None:
    from tracewh.reports import plots

    name, rows, record = plots.from_export(export)
    plots.check_target(name, output)
    style = plots.Style.parse(plot_size, dpi, font_size)
    written = plots.write(name, rows, output, {**record, "replotted_from": str(export)}, style)
    err_console.print(f"plot written to {written}", markup=False, highlight=False)
