"""Rendering result rows on stdout: a rich table, CSV (header then rows) or JSON (an array of objects)."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
import math
import sys
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from cli.common import PIPE_WIDTH, StdoutClosed, err_console
from warehouse.errors import UsageError

FORMATS = ("table", "csv", "json")


def check_format(fmt: str) -> str:
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r} (choose table, csv or json)")
    return fmt


def render(rows: Any, fmt: str, title: str | None = None) -> None:
    """Render a warehouse.query.Rows."""
    render_stream(rows.columns, rows.types, iter([rows.rows]), fmt, title=title)


def render_stream(
    columns: list[str],
    types: list[str],
    batches: Iterator[list[tuple]],
    fmt: str,
    *,
    title: str | None = None,
    max_rows: int | None = None,
) -> None:
    fmt = check_format(fmt)
    try:
        if fmt == "csv":
            _csv(columns, batches)
        elif fmt == "json":
            _json(columns, batches)
        else:
            _table(columns, types, batches, title, max_rows)
        sys.stdout.flush()
    except BrokenPipeError as e:
        raise StdoutClosed from e


def text(value: Any) -> str:
    """One value as text for table and CSV output; NULL stays distinguishable from ''."""
    if value is None:
        return ""
    if isinstance(value, float):
        if not math.isfinite(value):
            return _NON_FINITE[_non_finite_key(value)]
        return repr(value) if value != int(value) or abs(value) >= 1e16 else f"{value:.1f}"
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    return str(value)


# How every format prints the floats JSON cannot carry (the same text in table, CSV and JSON).
_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _non_finite_key(value: float) -> str:
    return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"


def _csv(columns: list[str], batches: Iterable[list[tuple]]) -> None:
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(columns)
    for batch in batches:
        out.writerows([[text(v) for v in row] for row in batch])


def _json_value(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE[_non_finite_key(value)]  # JSON has no NaN or infinity: a string, not invalid JSON
    return value


def _json(columns: list[str], batches: Iterable[list[tuple]]) -> None:
    write = sys.stdout.write
    write("[")
    first = True
    for batch in batches:
        for row in batch:
            obj = {c: _json_value(v) for c, v in zip(columns, row, strict=True)}
            write(("\n" if first else ",\n") + json.dumps(obj, default=str))
            first = False
    write("\n]\n" if not first else "]\n")


def _table(
    columns: list[str],
    types: list[str],
    batches: Iterable[list[tuple]],
    title: str | None,
    max_rows: int | None,
) -> None:
    table = Table(title=title, title_justify="left")
    numeric = {
        "BIGINT",
        "INTEGER",
        "DOUBLE",
        "HUGEINT",
        "FLOAT",
        "SMALLINT",
        "TINYINT",
        "UBIGINT",
        "DECIMAL",
        "NUMBER",
    }
    for c, t in zip(columns, types, strict=True):
        justify: Literal["left", "right"] = (
            "right" if any(t.upper().startswith(n) for n in numeric) else "left"
        )
        table.add_column(c, justify=justify, overflow="fold")
    shown = total = 0
    for batch in batches:
        for row in batch:
            total += 1
            if max_rows is None or shown < max_rows:
                table.add_row(*[_cell(v) for v in row])
                shown += 1
    width = None if sys.stdout.isatty() else PIPE_WIDTH
    Console(file=sys.stdout, width=width).print(table)
    if max_rows is not None and total > shown:
        err_console.print(f"showed {shown} of {total} rows; use --format csv for all of them")


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return text(value).replace("[", r"\[")
