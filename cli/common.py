"""What every command shares: the per-call state (in the Typer context), the option aliases (defined
once), the stderr console."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from tracewh.traces import registry

if TYPE_CHECKING:
    from tracewh.home import Home

# Wide enough that tables are never folded when the output goes to a file or a pipe.
PIPE_WIDTH = 400

# stdout carries data only: every message, progress bar and error goes here.
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else PIPE_WIDTH)


def literal(text: object, style: str = "") -> Text:
    """Text from outside (a path, a name from a host's listing, an HTTP reason, a value, an error
    message) as rich prints it: as written. A plain string is read as markup, and a stray
    ``[/x]`` in it is a MarkupError; escaping instead shows a trailing backslash doubled.
    ``style`` colours the whole text."""
    return Text(str(text), style=style)


class StdoutClosed(Exception):
    """The reader of stdout went away (``| head``); not an OSError, so typer leaves it to main()."""


@dataclass
class State:
    """The global options of one `tracewh` call, kept in its Typer context (``ctx.obj``, set by the
    root callback): never in a module global, so two calls in one process share nothing."""

    home: Path | None = None
    debug: bool = False


HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home",
        help="Home folder (default: $TRACEWH_HOME, else ./tracewh-home).",
        show_default=False,
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help="Output format: table, csv, json, jsonl, markdown, parquet "
        "(default: from the --output suffix, else table).",
        show_default=False,
    ),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", help="Write the result to FILE (replaced only when complete) instead of stdout."
    ),
]
TzOpt = Annotated[
    str | None,
    typer.Option(
        "--tz",
        help=(
            "Time zone of the session and its timestamps, e.g. America/New_York "
            "(default: a report's trace zone; sql and info: UTC)."
        ),
        show_default=False,
    ),
]
# Trace names and cells in help texts come from the registry (tracewh.traces).
TRACES_HELP = ", ".join(registry())
CELLS_HELP = "; ".join(f"{s.name}: {','.join(s.cells)}" for s in registry().values() if s.cells)
ColumnsOpt = Annotated[
    str | None,
    typer.Option(
        "--columns",
        "-c",
        help="Only these columns, comma-separated, in this order (e.g. measure,grp,p50_s).",
    ),
]
PlotSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--plot-size",
        help="Figure size: single (a paper column, 3.5 in), double (text width, 7 in), screen, or WxH.",
    ),
]
DpiOpt = Annotated[
    int | None, typer.Option("--dpi", help="Figure resolution (PNG); default 110, papers 300.")
]
FontSizeOpt = Annotated[float | None, typer.Option("--font-size", help="Figure font size in points.")]
# Rows a report prints as a table by default (other formats and --output: all).
REPORT_ROWS = 40
MaxRowsOpt = Annotated[
    int,
    typer.Option("--max-rows", help="Rows shown by --format table, 0 for all (other formats: all)."),
]
TraceOpt = Annotated[str | None, typer.Option("--trace", "-t", help=f"Trace: {TRACES_HELP}.")]
CellOpt = Annotated[str | None, typer.Option("--cell", help=f"Cell, for traces with cells ({CELLS_HELP}).")]


def examples(text: str, *lines: str) -> str:
    """A command's help: its text, then real examples kept as written (Click's \\b block)."""
    return text + "\n\nExamples:\n\n\b\n" + "\n".join(f"  {line}" for line in lines)


def state_of(ctx: typer.Context) -> State:
    """This call's global options (a bare State when the command runs without the root callback)."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, State) else State()


def home_of(ctx: typer.Context, home: Path | None) -> Home:
    """The home from the command's --home, else this call's global --home, else the environment."""
    from tracewh.home import Home

    return Home.resolve(home or state_of(ctx).home)


# The Spark engine (warehouse/engines/spark.py): the same views and reports on a SparkSession.
EngineOpt = Annotated[
    str, typer.Option("--engine", help="duckdb (default) or spark (needs the spark extra).")
]
MasterOpt = Annotated[
    str | None,
    typer.Option("--master", help="Spark master with --engine spark: local[2], spark://host:7077, yarn..."),
]


def spark_session(engine: str, master: str | None, home: Any) -> Any:
    """The SparkSession for --engine spark (None for duckdb), its folders under ``home`` (a
    tracewh.home.Home); a usage error for other engines."""
    from tracewh.errors import UsageError

    if engine == "duckdb":
        if master is not None:
            raise UsageError("--master goes with --engine spark")
        return None
    if engine != "spark":
        raise UsageError(f"--engine {engine!r}: choose duckdb or spark")
    from tracewh.engines import spark

    err_console.print(literal(f"starting Spark ({master or 'default master'})..."))
    return spark.session(master, home=home)
