"""Memory sizes as DuckDB writes them (a module of its own: the catalog and the derived build, which
the catalog imports, both read them)."""

from __future__ import annotations

import re

# A memory limit's units as DuckDB reads them: '4GB' is 4 * 1000**3 bytes, '4GiB' 4 * 1024**3.
_UNITS = {"b": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def limit_bytes(limit: str) -> int | None:
    """A memory limit in bytes; None for one that is not a size (a percentage of the machine's
    memory, 'none')."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([A-Za-z]+)\s*", limit)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
