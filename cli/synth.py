"""`tracewh synth TRACE OUT`: argument parsing, a progress bar and a summary table on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tracewh.cli.common import comma_list, err_console, examples, literal
from tracewh.synth import synthetic_traces

# The examples' traces: the first and the last of those synth writes (registry order).
_SYNTH = synthetic_traces()

HELP = examples(
    "Write a synthetic trace in its original download layout (the files, compression and checksum "
    "lists `tracewh download` fetches), at --scale of "
    "the published size (1.0 = the whole trace), with manifest.json of the exact expected counts. "
    "Deterministic for a --seed. OUT must be new or empty.",
    f"tracewh synth {_SYNTH[0]} /tmp/synth-{_SYNTH[0]} --scale 0.001",
    f"tracewh synth {_SYNTH[-1]} /tmp/synth-{_SYNTH[-1]} --scale 0.0001 --seed 7",
)


def synth(
    trace: Annotated[str, typer.Argument(help=f"The trace: {', '.join(synthetic_traces())}.")],
    out: Annotated[Path, typer.Argument(help="Folder to write (new or empty).")],
    scale: Annotated[
        float, typer.Option("--scale", help="Fraction of the published size: 1.0 = whole trace.")
    ] = 0.001,
    seed: Annotated[int, typer.Option("--seed", help="Same seed and scale, same bytes.")] = 1,
    tables: Annotated[
        list[str] | None, typer.Option("--tables", help="Only these tables (repeat or comma-separate).")
    ] = None,
    cells: Annotated[
        list[str] | None,
        typer.Option("--cells", help="Cells, for traces with cells (default: the first; e.g. a,b)."),
    ] = None,
    form: Annotated[
        str | None,
        typer.Option(
            "--form",
            help="File form, for traces published in several (e.g. tar.gz, csv; default: as published).",
        ),
    ] = None,
    parts: Annotated[
        int | None,
        typer.Option(
            "--parts",
            help="Part files, for traces published in numbered parts (default: the published count x scale).",
        ),
    ] = None,
    instance_fraction: Annotated[
        float | None,
        typer.Option(
            "--instance-fraction",
            help="A trace with a per-task instance table: thin that table only; each task keeps its "
            "first max(1, round(F x instance_num)) instances (0 < F <= 1; the task table stays whole).",
        ),
    ] = None,
    level: Annotated[int, typer.Option("--level", help="gzip level 1..9 (originals: 6).")] = 6,
    isal: Annotated[
        bool,
        typer.Option(
            "--isal",
            help="Compress with ISA-L (its level 3) instead of zlib --level: ~10x faster, files ~8% larger.",
        ),
    ] = False,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Worker processes (default: cores).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")] = False,
) -> None:
    from tracewh import synth as synth_lib

    manifest = synth_lib.synth(
        trace,
        out,
        scale=scale,
        seed=seed,
        tables=comma_list(tables),
        cells=comma_list(cells),
        workers=workers,
        level=level,
        form=form,
        parts=parts,
        instance_fraction=instance_fraction,
        isal=isal,
        progress=_progress(quiet),
    )
    if not quiet:
        _summary(manifest, out)


def _progress(quiet: bool) -> Any:
    from tracewh.synth import Progress

    if quiet or not err_console.is_terminal:
        return Progress()
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as RichProgress

    bar = RichProgress(
        TextColumn("synth"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err_console, transient=True,
    )  # fmt: skip
    state: dict[str, Any] = {}

    def begin(total: int) -> None:
        bar.start()
        state["task"] = bar.add_task("synth", total=total)
        state["left"] = total

    def advance(rel: str, lines: int) -> None:
        bar.update(state["task"], advance=1)
        state["left"] -= 1
        if state["left"] == 0:
            bar.stop()

    return Progress(begin, advance)


def _summary(m: dict, out: Path) -> None:
    from rich.table import Table

    t = Table(
        title=literal(
            f"{m['trace']} at scale {m['scale']:g} (seed {m['seed']}) in {m['seconds']:.1f} s -> {out}"
        ),
        title_justify="left",
    )
    for col in ("table", "files", "rows", "MB", "MB on disk"):
        t.add_column(col, justify="left" if col == "table" else "right")
    for name, tab in m["tables"].items():
        files = [f for f in m["files"].values() if f["table"] == name]
        t.add_row(
            name,
            str(tab["files"]),
            f"{tab['rows']:,}",
            f"{sum(f['bytes'] for f in files) / 1e6:,.1f}",
            f"{sum(f['file_bytes'] for f in files) / 1e6:,.1f}",
        )
    err_console.print(t)
    err_console.print(literal(f"expected figures: {out / 'manifest.json'}"))
