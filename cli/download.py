"""`tracewh download TRACE DEST`: argument parsing, the plan on stdout (--dry-run), the rich bar on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tracewh.cli.common import FormatOpt, byte_bar, comma_list, err_console, example_trace, examples, literal
from tracewh.errors import Interrupted, UsageError
from tracewh.traces import download_options, downloadable

if TYPE_CHECKING:  # typed without importing httpx at startup
    from tracewh.download import OfflinePlan, Plan

# Which traces the trace argument and each selection option cover, from the registry.
_OPTIONS = download_options()
_FOR = {option: ", ".join(names) or "no trace" for option, names in _OPTIONS.items()}
# The examples' traces: one in numbered parts, one in cells of shards, one listed by neither.
_PARTS = example_trace(lambda s: s.name in _OPTIONS["--parts"])
_SHARDS = example_trace(lambda s: s.name in _OPTIONS["--shards"] and s.name in _OPTIONS["--cells"])
_PLAIN = example_trace(lambda s: s.name in downloadable() and all(s.name not in v for v in _OPTIONS.values()))

HELP = examples(
    "Download (part of) a trace from its official public address, resumable and verified, into the "
    "layout `tracewh ingest` reads. Re-run the same command after any failure to finish the job.",
    f"tracewh download {_PARTS.name} ~/{_PARTS.name} --tables {','.join(list(_PARTS.tables)[:2])} "
    "--parts 0-9",
    f"tracewh download {_SHARDS.name} ~/{_SHARDS.name} --cells {','.join(_SHARDS.cells or ())[:1]} "
    "--shards 0-3 --dry-run",
    f"tracewh download {_PLAIN.name} ~/{_PLAIN.name} --dry-run --offline",
)


def download(
    trace: Annotated[str, typer.Argument(help=f"The trace: {', '.join(downloadable())}.")],
    dest: Annotated[Path, typer.Argument(help="Folder to download into (created if needed).")],
    tables: Annotated[
        list[str] | None, typer.Option("--tables", help="Only these tables (repeat or comma-separate).")
    ] = None,
    parts: Annotated[
        str | None, typer.Option("--parts", help=f"Part numbers ({_FOR['--parts']}), e.g. 0-99,120.")
    ] = None,
    cells: Annotated[
        list[str] | None,
        typer.Option("--cells", help=f"Cells ({_FOR['--cells']}), e.g. a,b (required there)."),
    ] = None,
    shards: Annotated[
        str | None, typer.Option("--shards", help=f"Shard numbers ({_FOR['--shards']}), e.g. 0-9.")
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Parallel transfers.")] = 4,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Print the plan (files, sizes, free space) and check room; fetch nothing."
        ),
    ] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="With --dry-run: the plan from the sizes the publisher's documents state, without "
            "the network (files whose size is not published are marked so).",
        ),
    ] = False,
    mirror: Annotated[
        str | None,
        typer.Option("--mirror", help="Use this scheme+host (and path prefix) instead of the official one."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")] = False,
    fmt: FormatOpt = "table",
) -> None:
    from tracewh import download as dl

    selection = dl.Selection(tables=comma_list(tables), parts=parts, cells=comma_list(cells), shards=shards)
    if offline:
        if not dry_run:
            raise UsageError("--offline plans without the network, so it needs --dry-run")
        if mirror is not None:
            raise UsageError("--offline reads no host, so --mirror has no use with it")
        offline_plan = dl.offline_plan(trace, dest, selection)
        _print_offline_plan(offline_plan, fmt)
        offline_plan.check_room()
        return
    if not quiet and err_console.is_terminal:  # listing thousands of files takes a while
        err_console.print(literal(f"listing {trace} files...", "dim"))
    plan = dl.plan(trace, dest, selection, mirror=mirror, jobs=jobs)
    if dry_run:
        _print_plan(plan, fmt)
        plan.check_room()
        return
    try:
        result = dl.download(plan, jobs=jobs, progress=make_progress(quiet))
    except KeyboardInterrupt:
        # The error boundary prints it: one line, exit 130.
        raise Interrupted(
            "interrupted; partial files are kept as .part and the same command resumes them"
        ) from None
    if not quiet:
        got = f"{dl.human_bytes(result.bytes_received)} in {result.seconds:.1f} s"
        err_console.print(
            literal(
                f"{trace}: {len(result.downloaded)} file(s) downloaded ({got}), "
                f"{len(result.present)} already present, all verified, in {dest}\n"
                f"next: tracewh ingest {trace} {dest}"
            )
        )


def _print_plan(plan: Plan, fmt: str | None) -> None:
    """The files on stdout (data); the totals and the room check on stderr."""
    from tracewh import download as dl
    from tracewh.catalog.query import Rows
    from tracewh.cli.render import render

    rows = plan.rows()
    render(
        Rows(
            ["path", "bytes", "bytes_here", "state", "verified_by"],
            ["VARCHAR", "BIGINT", "BIGINT", "VARCHAR", "VARCHAR"],
            rows,
        ),
        fmt,
        title=f"{plan.trace}: download plan",
    )
    need, free = plan.bytes_to_fetch(), plan.free_bytes()
    present = sum(1 for r in rows if r[3] == "present")
    unknown = sum(1 for r in rows if r[1] is None)
    err_console.print(
        literal(
            f"{len(rows)} file(s), {dl.human_bytes(plan.total_bytes)} in total"
            + (f" ({unknown} of unknown size)" if unknown else "")
            + f"; {present} already present; {dl.human_bytes(need)} to fetch; "
            f"{dl.human_bytes(free)} free in {plan.dest}: " + ("fits" if need <= free else "DOES NOT FIT")
        )
    )


def _print_offline_plan(plan: OfflinePlan, fmt: str | None) -> None:
    """The files with their published sizes on stdout; on stderr what the sizes are, where they are
    stated, one line for the files without one, the whole trace's size and the room check."""
    from tracewh import download as dl
    from tracewh.catalog.query import Rows
    from tracewh.cli.render import render

    rows = plan.rows()
    render(
        Rows(
            ["path", "approx_bytes", "published_size", "bytes_here", "state", "verified_by"],
            ["VARCHAR", "BIGINT", "VARCHAR", "BIGINT", "VARCHAR", "VARCHAR"],
            rows,
        ),
        fmt,
        title=f"{plan.trace}: download plan from the published sizes (offline)",
    )
    pub, sized, unsized = plan.published, plan.sized(), plan.unsized()
    lines = []
    if sized:
        total = sum(f.size or 0 for f in sized)
        lines.append(
            f"{len(sized)} of {len(rows)} file(s) have a published size: {dl.human_bytes(total)} "
            f"by those sizes ({pub.size_note}; {pub.sizes_source})"
        )
    if unsized:
        listed = [f for f in unsized if "*" in f.path]
        why = (
            "the host's listing names these files and gives their sizes at download time"
            if listed
            else "no document states per-file sizes; the host gives them at download time"
        )
        lines.append(f"{len(unsized)} of {len(rows)} file(s): size {dl.NOT_PUBLISHED}; {why}")
    lines.append(f"the whole trace: {pub.total.text} ({pub.total.source})")
    present = sum(1 for r in rows if r[4] == "present")
    need, free = plan.bytes_to_fetch(), dl.human_bytes(plan.free_bytes())
    if sized:
        fits = "fits" if need <= plan.free_bytes() else "DOES NOT FIT"
        room = f"{dl.human_bytes(need)} to fetch by the published sizes; {free} free in {plan.dest}: {fits}"
    else:
        room = f"{free} free in {plan.dest}; room not checked (no published sizes)"
    lines.append(f"{present} already present; {room}")
    err_console.print(literal("\n".join(lines)))


def make_progress(quiet: bool) -> Any:
    """A tracewh.download.Progress: a rich bar on a terminal, one line per file otherwise."""
    from tracewh.download import Progress

    if quiet:
        return Progress()

    class Lines(Progress):
        def retry(self, path: str, failures: int, reason: str, wait: float) -> None:
            err_console.print(
                literal(f"{path}: {reason}; retry {failures} in {wait:.1f} s", "yellow"),
                highlight=False,
            )

        def file_done(self, path: str, outcome: str) -> None:
            if outcome != "present":
                err_console.print(literal(f"{path}: {outcome}"))

    if not err_console.is_terminal:
        return Lines()

    class Bar(Lines):
        def __init__(self) -> None:
            self.bar = byte_bar("downloading", "files", binary_units=True)
            self.task: Any = None
            self.files = 0
            self.done = 0

        def begin(self, files: int, total_bytes: int, present_bytes: int) -> None:
            self.files = files
            self.bar.start()
            self.task = self.bar.add_task(
                "downloading", total=total_bytes, completed=present_bytes, files=f"0/{files} files"
            )

        def advance(self, nbytes: int) -> None:
            self.bar.update(self.task, advance=nbytes)

        def file_done(self, path: str, outcome: str) -> None:
            self.done += 1
            self.bar.update(self.task, files=f"{self.done}/{self.files} files")
            if outcome == "failed":
                self.bar.console.print(literal(f"{path}: failed", "red"))

        def end(self) -> None:
            self.bar.stop()

    return Bar()
