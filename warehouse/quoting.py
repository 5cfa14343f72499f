"""The one quoting helper for what cannot be a bound parameter: identifiers and paths in SQL text."""

from __future__ import annotations

from pathlib import Path


def quote_ident(name: str) -> str:
    """A DuckDB identifier, double-quoted, with embedded quotes doubled."""
    if "\x00" in name:
        raise ValueError("identifier contains a NUL byte")
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str | Path) -> str:
    """A DuckDB string literal, single-quoted, with embedded quotes doubled."""
    text = str(value)
    if "\x00" in text:
        raise ValueError("string literal contains a NUL byte")
    return "'" + text.replace("'", "''") + "'"


def glob_escape(path: str | Path) -> str:
    """A path with DuckDB glob metacharacters escaped, so a folder named '[x]' is read literally."""
    out = []
    for ch in str(path):
        out.append("[" + ch + "]" if ch in "*?[]{}" else ch)
    return "".join(out)
