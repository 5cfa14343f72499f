"""Finding the DuckDB shell of the duckdb-cli package and the command line that opens the catalog."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tracewh.errors import CatalogError, TracewhError
from tracewh.home import NOT_FOUND_HINT, Home


def binary() -> str:
    """The duckdb executable installed beside this Python (the duckdb-cli package), else on PATH."""
    beside = Path(sys.executable).parent / "duckdb"
    if beside.is_file():
        return str(beside)
    found = shutil.which("duckdb")
    if not found:
        raise TracewhError("the DuckDB shell is not installed: pip install duckdb-cli")
    return found


def command(home: Home, *, write: bool = False) -> list[str]:
    if not home.catalog.exists():
        raise CatalogError(f"no catalog at {home.catalog}; {NOT_FOUND_HINT}")
    argv = [binary()]
    if not write:
        argv.append("-readonly")
    argv.append(str(home.catalog))
    return argv
