"""What every command shares: the per-call state (in the Typer context), the option aliases (defined
once), the stderr console."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tracewh.traces import registry

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from tracewh.home import Home
    from tracewh.traces import TraceSpec

# Wide enough that tables are never folded when the output goes to a file or a pipe.
PIPE_WIDTH = 400


class _StderrConsole:
    """stderr's rich Console, made when first used: `tracewh --help` prints none of it, and
    importing rich costs 20 ms of its start-up."""

    _console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if _StderrConsole._console is None:
            from rich.console import Console

            _StderrConsole._console = Console(stderr=True, width=None if sys.stderr.isatty() else PIPE_WIDTH)
        return getattr(_StderrConsole._console, name)


# stdout carries data only: every message, progress bar and error goes here.
err_console: Console = _StderrConsole()  # type: ignore[assignment]


def literal(text: object, style: str = "") -> Text:
    """Text from outside (a path, a name from a host's listing, an HTTP reason, a value, an error
    message) as rich prints it: as written. A plain string is read as markup, and a stray
    ``[/x]`` in it is a MarkupError; escaping instead shows a trailing backslash doubled.
    ``style`` colours the whole text."""
    from rich.text import Text

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
# The example zone of --tz: the first trace's own (a zone is a trace fact, its spec's).
_ZONE_EXAMPLE = next((s.time_zone for s in registry().values() if s.time_zone), "UTC")
TzOpt = Annotated[
    str | None,
    typer.Option(
        "--tz",
        help=(
            f"Time zone of the session and its timestamps, e.g. {_ZONE_EXAMPLE} "
            "(default: a report's trace zone; sql and info: UTC)."
        ),
        show_default=False,
    ),
]


# Trace names and cells in help texts come from the registry (tracewh.traces).
def example_trace(applies: Callable[[TraceSpec], bool] = lambda spec: True) -> TraceSpec:
    """The trace a help text's example names: the first registered one (by place) the example
    applies to, else the first (a name is a trace fact, its spec's; no help text writes one)."""
    specs = list(registry().values())
    return next((s for s in specs if applies(s)), specs[0])


# The trace most examples name: the first registered one.
EXAMPLE_TRACE = example_trace().name
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


def _plain_coercion() -> None:
    """Typer converts every option of the command that runs through a pydantic TypeAdapter, and
    building the first one imports pydantic: 70 ms of CPU (several times that on a loaded machine)
    in every command, more than opening the catalog. The options here are plain text, paths,
    integers, floats and lists of text: those are converted directly, with pydantic's own error
    messages and the same checks of paths; any other annotation (and any typer whose internals
    differ from the pinned one's) keeps typer's converter."""
    try:
        from typer import _coercion, core
        from typer._click.exceptions import BadParameter
        from typer._param_types import coerce_cli_path
    except ImportError:
        return
    typer_build: Any = getattr(core, "build_runtime_param", None)
    base: Any = getattr(_coercion, "RuntimeParam", None)
    if typer_build is None or base is None or getattr(typer_build, "plain", False):
        return

    class Plain(base):
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.annotation is bool and not isinstance(value, bool):
                # a flag's value is a bool; text (from an environment variable) is typer's to read
                descriptor = _coercion.resolve_type_descriptor(bool, self.parameter_info)
                return typer_build(descriptor)._coerce_value(value, param, ctx)
            convert = _PLAIN[_leaf(self.annotation)]
            try:
                if isinstance(value, list | tuple):
                    return [convert(v, self.parameter_info) for v in value]
                return convert(value, self.parameter_info)
            except ValueError as e:
                raise BadParameter(str(e), ctx=ctx, param=param) from e

    def build(descriptor: Any) -> Any:
        info = descriptor.parameter_info
        leaf = _leaf(descriptor.annotation)
        plain = (
            leaf in _PLAIN
            and descriptor.file_annotation is None
            and getattr(info, "parser", None) is None
            and getattr(info, "min", None) is None
            and getattr(info, "max", None) is None
            and not getattr(info, "clamp", False)
            and (leaf is not Path or getattr(info, "path_type", None) is None)
        )
        if not plain:
            return typer_build(descriptor)
        return Plain(parameter_info=info, annotation=descriptor.annotation)

    def path(value: Any, info: Any) -> Any:
        # typer's own checks (exists, readable, ...), given a Path: they need no TypeAdapter
        return coerce_cli_path(Path(value), info, path_type=Path)

    _PLAIN.update(
        {
            str: lambda v, _: str(v),
            int: lambda v, _: _int(v),
            float: lambda v, _: _float(v),
            bool: lambda v, _: v,
            Path: path,
        }
    )
    build.plain = True  # type: ignore[attr-defined]
    core.build_runtime_param = build


_PLAIN: dict[type, Any] = {}
_WHOLE = re.compile(r"\s*([+-]?\d[\d_]*)(?:\.0*)?\s*")


def _leaf(annotation: Any) -> Any:
    """str for list[str]; the annotation itself otherwise."""
    args: tuple[Any, ...] = getattr(annotation, "__args__", ())
    return args[0] if getattr(annotation, "__origin__", None) is list and len(args) == 1 else annotation


def _int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = _WHOLE.fullmatch(str(value))
    if m is None:
        raise ValueError("Input should be a valid integer, unable to parse string as an integer")
    return int(m.group(1))


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError("Input should be a valid number, unable to parse string as a number") from None


_plain_coercion()


def comma_list(values: list[str] | None) -> list[str] | None:
    """A repeatable option's values, each also comma-separated, as one list (None when empty)."""
    return [v.strip() for item in values or [] for v in item.split(",") if v.strip()] or None


def byte_bar(label: str, *fields: str, binary_units: bool = False) -> Any:
    """A rich bar on stderr of the bytes of a task (download's and ingest's): ``label`` (a format
    of the task, as text), the bar, bytes, rate, the task's text ``fields``, time left; gone when
    it stops."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    return Progress(
        TextColumn(label, markup=False),
        BarColumn(),
        DownloadColumn(binary_units=binary_units),
        TransferSpeedColumn(),
        *(TextColumn(f"{{task.fields[{f}]}}") for f in fields),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )


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
