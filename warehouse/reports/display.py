"""How one value reads: the human form (tables, markdown, the HTML summary) and the raw form (csv, json).

The rules, in one place:
- numbers read with thousands separators (``48,375,166``) in the human form; identifiers and
  raw trace times (``job_id``, ``parent_task_ids``, ``task_index``, ``time``, ``start_time``:
  see ``is_identifier``) print as plain digits, so they paste back into SQL; the raw form
  (csv, json) never has separators;
- a float that holds a whole number prints as one (``4,034``, not ``4034.0``); other floats
  keep 4 significant digits without an exponent down to 1e-6 (``0.000013``), and NaN and
  infinities print as ``NaN``, ``Infinity``, ``-Infinity`` in every format;
- a duration (an INTERVAL, or a number in a column whose name ends in ``_s``) reads as
  ``29d 0h`` / ``3h 12m`` / ``4m 05s`` / ``12.3s`` in the human form and stays raw seconds
  in the raw form;
- a timestamp with a zone prints in the zone the connection was set to (the fixed rule of
  tracewh.catalog.query.zone_for) with its abbreviation; raw form: ISO 8601 with the offset.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

NULL = "NULL"
SIGNIFICANT = 4
# Numeric DuckDB types (by prefix): right-aligned, never wrapped.
NUMERIC_TYPES = (
    "BIGINT",
    "INTEGER",
    "DOUBLE",
    "HUGEINT",
    "FLOAT",
    "SMALLINT",
    "TINYINT",
    "UBIGINT",
    "UINTEGER",
    "USMALLINT",
    "UTINYINT",
    "UHUGEINT",
    "DECIMAL",
    "REAL",
    "INTERVAL",
)


def is_numeric(type_name: str) -> bool:
    upper = type_name.upper()
    return upper.startswith(NUMERIC_TYPES) and not upper.endswith("]")  # not a LIST or ARRAY


# Column names whose numbers are identifiers or raw trace times: never grouped (they are looked up, not read).
IDENTIFIER_SUFFIXES = ("_id", "_ids", "_index", "_time")
IDENTIFIER_NAMES = frozenset({"id", "time", "part", "cell"})


def is_identifier(column: str) -> bool:
    name = column.lower()
    return name in IDENTIFIER_NAMES or name.endswith(IDENTIFIER_SUFFIXES)


def grouped(text: str) -> str:
    """Thousands separators in a number's integer digits: '48375166' -> '48,375,166', '-1234.5' ->
    '-1,234.5'; an exponent form or a special value stays as it is."""
    sign = "-" if text.startswith("-") else ""
    digits, dot, fraction = text.removeprefix("-").partition(".")
    if not digits.isdigit() or "e" in fraction:
        return text
    return f"{sign}{int(digits):,}{dot}{fraction}"


def is_text(type_name: str) -> bool:
    """Free text, which may wrap at words (a time, a number or a list never does)."""
    return type_name.upper() in ("VARCHAR", "TEXT", "STRING")


def is_duration(column: str, type_name: str) -> bool:
    """Seconds by naming convention (``run_s``, ``p50_s``) or an INTERVAL."""
    return type_name.upper().startswith("INTERVAL") or (column.endswith("_s") and is_numeric(type_name))


def special_float(value: float) -> str | None:
    """NaN and the infinities: the same spelling in every format (csv, json, table)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return None


def number(value: float, significant: int = SIGNIFICANT) -> str:
    """A float for reading: whole numbers without '.0', else SIGNIFICANT digits, no exponent >= 1e-6."""
    special = special_float(value)
    if special is not None:
        return special
    if value == 0:
        return "0"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude < -6 or magnitude >= 15:
        return f"{value:.{significant - 1}e}"
    decimals = max(0, significant - 1 - magnitude)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def duration(seconds: float) -> str:
    """Seconds for reading: 2505330 -> '29d 0h', 11520 -> '3h 12m', 245 -> '4m 05s', 12.34 -> '12.34s'."""
    special = special_float(seconds)
    if special is not None:
        return special
    sign = "-" if seconds < 0 else ""
    s = abs(seconds)
    if s < 60:
        return f"{sign}{number(s, 3)}s"
    whole = round(s)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{sign}{days}d {hours}h"
    if hours:
        return f"{sign}{hours}h {minutes:02d}m"
    return f"{sign}{minutes}m {secs:02d}s"


def timestamp(value: dt.datetime) -> str:
    """'2011-05-01 19:02:00 EDT' (fraction only when there is one)."""
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    zone = value.strftime("%Z") if value.tzinfo is not None else ""
    return f"{text} {zone}" if zone else text


def human(value: Any, column: str = "", type_name: str = "") -> str:
    """One value as a person reads it."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.timedelta):
        return duration(value.total_seconds())
    if isinstance(value, int | float | decimal.Decimal) and is_duration(column, type_name):
        return duration(float(value))
    if isinstance(value, int):
        return str(value) if is_identifier(column) else f"{value:,}"
    if isinstance(value, float | decimal.Decimal):
        text = number(float(value))
        return text if is_identifier(column) else grouped(text)
    if isinstance(value, dt.datetime):
        return timestamp(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(human(v, column) for v in value) + "]"
    return str(value)


def raw(value: Any) -> str:
    """One value for csv: exact, machine-readable; NULL is the empty field."""
    if value is None:
        return ""
    if isinstance(value, float):
        return special_float(value) or repr(value)
    if isinstance(value, dt.timedelta):
        return repr(value.total_seconds())
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def json_value(value: Any) -> Any:
    """One value for json/jsonl: numbers stay numbers; NaN and inf become the strings of special_float."""
    if isinstance(value, float):
        return special_float(value) or value
    if isinstance(value, decimal.Decimal):
        return json_value(float(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return value
