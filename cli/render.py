"""Putting result rows on stdout or into a file: table, csv, json, jsonl, markdown, parquet.

How each value reads lives in tracewh.display (shared with the HTML summary); this module
owns the layouts:
- table: a box table that fits the width (``$COLUMNS``, else the terminal, else PIPE_WIDTH
  for a pipe or file). Numbers and times never wrap. Too wide: text columns wrap at words;
  still too wide: a record layout (one ``column  value`` block per row) for a few rows, or the
  leading columns that fit, with a note on stderr naming the others;
- csv (header then rows), json (an array of objects), jsonl (one object a line): raw values;
- markdown: a GitHub table of the human values;
- parquet: only into a file (``--output``).
Rows are streamed: a table stops reading after ``max_rows`` (it never counts the rest), the
other formats write batch by batch. A file is written beside its target and renamed over it
at the end, so an interrupted export leaves any earlier file untouched.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Literal

from rich import box
from rich.console import Console
from rich.table import Table

from tracewh import display
from tracewh.cli.common import PIPE_WIDTH, StdoutClosed, err_console, literal
from tracewh.errors import TracewhError, UsageError
from tracewh.results import Rows

FORMATS = ("table", "csv", "json", "jsonl", "markdown", "parquet")
# --output FILE without --format: the format from the file's suffix.
SUFFIXES = {
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".md": "markdown",
    ".markdown": "markdown",
    ".parquet": "parquet",
    ".txt": "table",
}
# Up to this many rows a table too wide for the screen turns into records (psql -x); more rows keep
# the leading columns that fit (a long record listing is harder to scan than a narrower table).
RECORD_ROWS = 60
# A wrapping text column keeps at least this many characters (or its header's length).
TEXT_MIN = 16


def check_format(fmt: str | None, output: Path | None = None) -> str:
    """The format to write: --format, else the --output suffix, else table."""
    if fmt is None:
        fmt = SUFFIXES.get(output.suffix.lower(), "table") if output is not None else "table"
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")
    if fmt == "parquet" and output is None:
        raise UsageError("--format parquet writes a file: add --output FILE")
    return fmt


def render(rows: Rows, fmt: str | None, title: str | None = None, output: Path | None = None) -> None:
    """Render a tracewh.query.Rows."""
    render_stream(rows.columns, rows.types, iter([rows.rows]), fmt, title=title, output=output)


def render_stream(
    columns: list[str],
    types: list[str],
    batches: Iterator[list[tuple]],
    fmt: str | None,
    *,
    title: str | None = None,
    max_rows: int | None = None,
    output: Path | None = None,
) -> None:
    fmt = check_format(fmt, output)
    if fmt == "parquet":
        assert output is not None  # check_format refuses parquet without a file
        with atomic_file(output, binary=True) as tmp:
            _parquet(columns, batches, tmp)
        return
    if output is not None:
        with atomic_file(output) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
            _write(fh, fmt, columns, types, batches, title, None, PIPE_WIDTH)
        return
    try:
        _write(sys.stdout, fmt, columns, types, batches, title, max_rows, screen_width())
        sys.stdout.flush()
    except BrokenPipeError as e:  # `| head`: the reader went away; main() ends quietly
        raise StdoutClosed from e


def _write(
    out: IO[str],
    fmt: str,
    columns: list[str],
    types: list[str],
    batches: Iterator[list[tuple]],
    title: str | None,
    max_rows: int | None,
    width: int,
) -> None:
    if fmt == "csv":
        _csv(out, columns, batches)
    elif fmt == "json":
        _json(out, columns, batches)
    elif fmt == "jsonl":
        _jsonl(out, columns, batches)
    elif fmt == "markdown":
        _markdown(out, columns, types, batches)
    else:
        _table(out, columns, types, batches, title, max_rows, width)


def screen_width() -> int:
    """$COLUMNS when set, else the terminal's width, else PIPE_WIDTH (a pipe or file is never folded)."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return PIPE_WIDTH


@contextlib.contextmanager
def atomic_file(target: Path, binary: bool = False) -> Iterator[Path]:
    """A temporary path beside target, renamed over it only when the block completes."""
    target = Path(target)
    if target.is_dir():
        raise UsageError(f"--output {target} is a folder; give a file name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"--output {target}: folder {parent} does not exist")
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as e:
        raise TracewhError(f"cannot write {target}: {e.strerror or e}") from e
    finally:
        tmp.unlink(missing_ok=True)


def _rows(batches: Iterable[list[tuple]]) -> Iterator[tuple]:
    for batch in batches:
        yield from batch


def _csv(out: IO[str], columns: list[str], batches: Iterable[list[tuple]]) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for batch in batches:
        writer.writerows([[display.raw(v) for v in row] for row in batch])


def _json(out: IO[str], columns: list[str], batches: Iterable[list[tuple]]) -> None:
    out.write("[")
    first = True
    for row in _rows(batches):
        obj = {c: display.json_value(v) for c, v in zip(columns, row, strict=True)}
        out.write(("\n" if first else ",\n") + json.dumps(obj, default=str, allow_nan=False))
        first = False
    out.write("\n]\n" if not first else "]\n")


def _jsonl(out: IO[str], columns: list[str], batches: Iterable[list[tuple]]) -> None:
    for row in _rows(batches):
        obj = {c: display.json_value(v) for c, v in zip(columns, row, strict=True)}
        out.write(json.dumps(obj, default=str, allow_nan=False) + "\n")


def _markdown(out: IO[str], columns: list[str], types: list[str], batches: Iterable[list[tuple]]) -> None:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", r"\|").replace("\n", " ") for c in cells) + " |\n"

    out.write(line(columns))
    out.write("|" + "|".join("---:" if display.is_numeric(t) else "---" for t in types) + "|\n")
    for row in _rows(batches):
        out.write(line([display.human(v, c, t) for v, c, t in zip(row, columns, types, strict=True)]))


def _parquet(columns: list[str], batches: Iterable[list[tuple]], path: Path) -> None:
    import polars as pl

    frames = [
        pl.DataFrame(batch, schema=columns, orient="row", infer_schema_length=None)
        for batch in batches
        if batch
    ]
    frame = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame(schema=columns)
    frame.write_parquet(path)


def _table(
    out: IO[str],
    columns: list[str],
    types: list[str],
    batches: Iterable[list[tuple]],
    title: str | None,
    max_rows: int | None,
    width: int,
) -> None:
    cells: list[list[str]] = []
    more = False
    for row in _rows(batches):
        if max_rows is not None and len(cells) >= max_rows:
            more = True  # one row past the limit is enough: the rest is never read
            break
        cells.append([display.human(v, c, t) for v, c, t in zip(row, columns, types, strict=True)])
    layout = fit(columns, types, cells, width)
    console = Console(file=out, width=width, highlight=False, soft_wrap=False)
    if layout.records:
        _records(console, columns, cells, title, width)
    else:
        keep = layout.keep
        table = Table(
            title=None if title is None else literal(title), title_justify="left", box=box.HEAVY_HEAD
        )
        for i in keep:
            numeric = display.is_numeric(types[i])
            justify: Literal["left", "right"] = "right" if numeric else "left"
            wraps = i in layout.wrapping
            table.add_column(
                literal(columns[i]),
                justify=justify,
                no_wrap=not wraps,
                overflow="fold" if wraps else "ellipsis",
                min_width=layout.widths[i],
            )
        for line in cells:
            table.add_row(*[literal(line[i]) for i in keep])
        console.print(table)
        dropped = [columns[i] for i in range(len(columns)) if i not in keep]
        if dropped:
            err_console.print(
                f"{len(dropped)} column(s) not shown at width {width}: {', '.join(dropped)} "
                "(widen the terminal, or use --format csv / --output FILE)",
                markup=False,
                highlight=False,
            )
    if more:
        err_console.print(
            f"showed the first {len(cells)} rows; there are more (--max-rows N, or --output FILE for all)",
            markup=False,
            highlight=False,
        )


class Layout:
    """How a table fits: the columns kept, each one's width, which may wrap, or records."""

    def __init__(self, keep: list[int], widths: dict[int, int], wrapping: set[int], records: bool):
        self.keep, self.widths, self.wrapping, self.records = keep, widths, wrapping, records


def fit(columns: list[str], types: list[str], cells: list[list[str]], width: int) -> Layout:
    n = len(columns)
    natural = {i: max([len(columns[i])] + [len(r[i]) for r in cells]) for i in range(n)}
    # Text may wrap at words; a number, a time or a short code never does.
    wraps = {
        i
        for i in range(n)
        if not display.is_numeric(types[i])
        and natural[i] > max(len(columns[i]), TEXT_MIN)
        and any(" " in r[i] for r in cells)
    }
    least = {i: (max(len(columns[i]), TEXT_MIN) if i in wraps else natural[i]) for i in range(n)}

    def total(ids: Iterable[int], w: dict[int, int]) -> int:
        ids = list(ids)
        return sum(w[i] for i in ids) + 3 * len(ids) + 1  # "│ x " per column and the last "│"

    if total(range(n), natural) <= width:
        return Layout(list(range(n)), natural, set(), False)
    if total(range(n), least) <= width:
        return Layout(list(range(n)), least, wraps, False)
    if len(cells) <= RECORD_ROWS:
        return Layout([], {}, set(), True)
    keep: list[int] = []
    for i in range(n):
        if total([*keep, i], least) > width:
            break
        keep.append(i)
    return Layout(keep or [0], least, wraps, False)


def _records(
    console: Console, columns: list[str], cells: list[list[str]], title: str | None, width: int
) -> None:
    """One block per row: the column names down the left, values beside them (psql's expanded mode)."""
    key = max(len(c) for c in columns)
    room = max(width - key - 2, 10)
    lines = [title] if title else []
    for number, row in enumerate(cells, 1):
        head = f"─[ {number} ]"
        lines.append(head + "─" * max(width - len(head), 0))
        for column, value in zip(columns, row, strict=True):
            parts = textwrap.wrap(value, room, break_long_words=False, break_on_hyphens=False) or [""]
            lines.append(f"{column.ljust(key)}  {parts[0]}")
            lines.extend(" " * (key + 2) + p for p in parts[1:])
    console.out("\n".join(lines), highlight=False)
