"""Putting result rows on stdout or into a file: table, csv, json, jsonl, markdown, parquet.

How each value reads lives in tracewh.reports.display (shared with the HTML summary); this module
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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from rich import box
from rich.console import Console
from rich.table import Table

from tracewh.cli.common import PIPE_WIDTH, StdoutClosed, err_console, literal
from tracewh.errors import TracewhError, UsageError
from tracewh.reports import display
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
# Up to this many rows a table too wide for the screen is printed in slices of columns that repeat
# the key columns; more rows keep the leading columns that fit (slices of a long listing are
# harder to follow than a narrower table with the others named).
RECORD_ROWS = 60
# Up to this many rows a table too wide for the screen may be turned on its side instead.
TRANSPOSE_ROWS = 3
# More slices than this read worse than the leading columns with the others named.
MAX_SLICES = 3
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


@dataclass
class Stream:
    """Rows that come in batches, written as they come: their columns, types and the batches;
    ``total`` the row count when known (a table then says how many it left out)."""

    columns: list[str]
    types: list[str]
    batches: Iterator[list[tuple]]
    total: int | None = None


def render(
    rows: Rows | Stream,
    fmt: str | None,
    title: str | None = None,
    output: Path | None = None,
    provenance: dict | None = None,
    *,
    columns: str | None = None,
    max_rows: int | None = None,
) -> None:
    """Render a tracewh.catalog.query.Rows, or a Stream of rows.
    ``columns`` (``a,b``, from --columns): just those columns, in that order.
    ``provenance`` (tracewh.reports.provenance.collect) goes with a file written to ``output``: in the
    Parquet metadata, else in a sidecar beside it."""
    if isinstance(rows, Rows):
        rows = Stream(rows.columns, rows.types, iter([rows.rows]), len(rows.rows))
    fmt = check_format(fmt, output)
    if columns:
        rows = Stream(*_select(rows.columns, rows.types, rows.batches, columns), rows.total)
    if fmt == "parquet":
        assert output is not None  # check_format refuses parquet without a file
        with atomic_file(output, binary=True) as tmp:
            _parquet(rows.columns, rows.batches, tmp, provenance)
        return
    if output is not None:
        with atomic_file(output) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
            _write(fh, fmt, rows, title, None, PIPE_WIDTH)
        if provenance is not None:
            write_sidecar(output, provenance)
        return
    try:
        _write(sys.stdout, fmt, rows, title, max_rows, screen_width())
        sys.stdout.flush()
    except BrokenPipeError as e:  # `| head`: the reader went away; main() ends quietly
        raise StdoutClosed from e


def _select(
    columns: list[str], types: list[str], batches: Iterator[list[tuple]], only: str
) -> tuple[list[str], list[str], Iterator[list[tuple]]]:
    wanted = [c.strip() for c in only.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in columns]
    if unknown:
        raise UsageError(f"--columns: no column {unknown[0]!r} (columns: {', '.join(columns)})")
    idx = [columns.index(c) for c in wanted]
    picked = ([tuple(r[i] for i in idx) for r in batch] for batch in batches)
    return wanted, [types[i] for i in idx], picked


def _write(out: IO[str], fmt: str, rows: Stream, title: str | None, max_rows: int | None, width: int) -> None:
    columns, types, batches = rows.columns, rows.types, rows.batches
    if fmt == "csv":
        _csv(out, columns, batches)
    elif fmt == "json":
        _json(out, columns, batches)
    elif fmt == "jsonl":
        _jsonl(out, columns, batches)
    elif fmt == "markdown":
        _markdown(out, columns, types, batches)
    else:
        _table(out, rows, title, max_rows, width)


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
        # mkstemp makes the file 0600; an export is created as any other file of the user's
        os.chmod(tmp, 0o666 & ~_umask())
        yield tmp
        os.replace(tmp, target)
    except OSError as e:
        raise TracewhError(f"cannot write {target}: {e.strerror or e}") from e
    finally:
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(mask)
    return mask


def write_sidecar(output: Path, record: dict) -> Path:
    """The provenance record beside an export: ``<file>.provenance.json``."""
    from tracewh.reports import provenance

    path = provenance.sidecar(output)
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8")
    return path


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


def _parquet(columns: list[str], batches: Iterable[list[tuple]], path: Path, record: dict | None) -> None:
    import polars as pl
    import pyarrow.parquet as pq

    from tracewh.reports import provenance

    frames = [
        pl.DataFrame(batch, schema=columns, orient="row", infer_schema_length=None)
        for batch in batches
        if batch
    ]
    frame = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame(schema=columns)
    table = frame.to_arrow()
    if record is not None:
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), **provenance.parquet_metadata(record)}
        )
    pq.write_table(table, path, compression="zstd")


def _table(out: IO[str], rows: Stream, title: str | None, max_rows: int | None, width: int) -> None:
    columns, types, batches, total = rows.columns, rows.types, rows.batches, rows.total
    cells: list[list[str]] = []
    more = False
    for row in _rows(batches):
        if max_rows and len(cells) >= max_rows:
            more = True  # one row past the limit is enough: the rest is never read
            break
        cells.append([display.human(v, c, t) for v, c, t in zip(row, columns, types, strict=True)])
    layout = fit(columns, types, cells, width)
    console = Console(file=out, width=width, highlight=False, soft_wrap=False)
    if layout.transposed:
        console.print(_transposed(columns, types, cells, title))
    else:
        for n, keep in enumerate(layout.slices):
            if n:
                console.print()
            part = title if n == 0 else None
            if len(layout.slices) > 1:
                shown = [columns[i] for i in keep if i not in layout.key]
                where = f"columns {shown[0]}..{shown[-1]}, part {n + 1} of {len(layout.slices)}"
                part = f"{title} ({where})" if n == 0 and title else f"({where})"
            console.print(_box_table(columns, types, cells, keep, layout, part))
        dropped = [columns[i] for i in range(len(columns)) if not any(i in k for k in layout.slices)]
        if dropped:
            err_console.print(
                f"{len(dropped)} column(s) not shown at width {width}: {', '.join(dropped)} "
                "(choose with --columns, widen the terminal, or use --format csv / --output FILE)",
                markup=False,
                highlight=False,
            )
    if more:
        left = (
            f"of {total:,} rows ({total - len(cells):,} not shown: "
            if total is not None
            else "rows; there are more ("
        )
        err_console.print(
            f"showed the first {len(cells):,} {left}--max-rows N, 0 for all, or --output FILE for all)",
            markup=False,
            highlight=False,
        )


def _box_table(
    columns: list[str],
    types: list[str],
    cells: list[list[str]],
    keep: list[int],
    layout: Layout,
    title: str | None,
) -> Table:
    table = Table(title=None if title is None else literal(title), title_justify="left", box=box.HEAVY_HEAD)
    for i in keep:
        justify: Literal["left", "right"] = "right" if display.is_numeric(types[i]) else "left"
        wraps = i in layout.wrapping
        table.add_column(
            literal(header(columns[i], layout.widths[i])),
            justify=justify,
            no_wrap=not wraps,
            overflow="fold" if wraps else "ellipsis",
            min_width=layout.widths[i],
        )
    for line in cells:
        table.add_row(*[literal(line[i]) for i in keep])
    return table


def _transposed(columns: list[str], types: list[str], cells: list[list[str]], title: str | None) -> Table:
    """A few wide rows turned on their side: one line per column, one column per row."""
    table = Table(title=None if title is None else literal(title), title_justify="left", box=box.HEAVY_HEAD)
    table.add_column("column", no_wrap=True)
    for n in range(len(cells)):
        table.add_column(str(n + 1) if len(cells) > 1 else "value", overflow="fold")
    for i, name in enumerate(columns):
        values = [row[i] for row in cells]
        table.add_row(literal(name), *[literal(v) for v in values])
    return table


def _header_min(name: str) -> int:
    """The narrowest a header gets when it breaks after its underscores."""
    return max(len(p) for p in name.replace("_", "_ ").split())


def header(name: str, width: int) -> str:
    """A column name in lines of at most ``width``, broken after underscores (never inside a word)."""
    if len(name) <= width:
        return name
    lines: list[str] = []
    for part in name.replace("_", "_ ").split():
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(lines)


class Layout:
    """How a table fits: slices of columns (each a table of its own, all sharing the key columns
    that name a row), each column's width, the columns that may wrap; or turned on its side."""

    def __init__(
        self,
        slices: list[list[int]],
        widths: dict[int, int],
        wrapping: set[int],
        key: list[int] | None = None,
        transposed: bool = False,
    ):
        self.slices, self.widths, self.wrapping = slices, widths, wrapping
        self.key, self.transposed = key or [], transposed


def fit(columns: list[str], types: list[str], cells: list[list[str]], width: int) -> Layout:
    """The layout of a table at ``width``, first that fits: every column (text wrapping at words,
    headers after underscores, if need be); a few rows turned on their side; then, up to
    RECORD_ROWS rows, up to MAX_SLICES slices of columns that each repeat the key columns (the
    leading text columns, which name a row); else the leading columns that fit (the others are
    named on stderr). A number, a time or a short code never wraps."""
    n = len(columns)
    natural = {i: max([len(columns[i])] + [len(r[i]) for r in cells]) for i in range(n)}
    wraps = {
        i
        for i in range(n)
        if display.is_text(types[i])
        and natural[i] > max(len(columns[i]), TEXT_MIN)
        and any(" " in r[i] for r in cells)
    }
    # A long header may break after its underscores (left_censored -> left_ / censored).
    values = {i: max([len(r[i]) for r in cells], default=0) for i in range(n)}
    least = {
        i: max(TEXT_MIN, _header_min(columns[i])) if i in wraps else max(values[i], _header_min(columns[i]))
        for i in range(n)
    }

    def total(ids: Iterable[int], w: dict[int, int]) -> int:
        ids = list(ids)
        return sum(w[i] for i in ids) + 3 * len(ids) + 1  # "│ x " per column and the last "│"

    everything = list(range(n))
    if total(everything, natural) <= width:
        return Layout([everything], natural, set())
    if total(everything, least) <= width:
        return Layout([everything], least, wraps)
    if cells and len(cells) <= TRANSPOSE_ROWS:
        name_width = max(len(c) for c in columns)
        row_width = max(max(len(r[i]) for r in cells) for i in range(n))
        if name_width + len(cells) * min(row_width, TEXT_MIN * 2) + 3 * (len(cells) + 1) + 1 <= width:
            return Layout([], natural, set(), transposed=True)
    key: list[int] = []
    for i in range(n):
        if display.is_numeric(types[i]) or total([*key, i], least) > width * 2 // 3:
            break
        key.append(i)
    key = key or [0]
    slices: list[list[int]] = []
    current: list[int] = []
    for i in range(len(key), n):
        if current and total([*key, *current, i], least) > width:
            slices.append(key + current)
            current = []
        current.append(i)
    if current:
        slices.append(key + current)
    if len(cells) <= RECORD_ROWS and len(slices) <= MAX_SLICES:
        return Layout(slices or [key], least, wraps, key)
    keep: list[int] = []
    for i in range(n):
        if total([*keep, i], least) > width:
            break
        keep.append(i)
    return Layout([keep or [0]], least, wraps, key)
