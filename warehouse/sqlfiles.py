"""Finding and reading the SQL files that ship with the package (``sql/`` in the repository).

Each file starts with a header of ``-- key: value`` lines, parsed and validated when the file
is read (tracewh.headers: one key per meaning, typed report parameters, the plot spec); the
body is plain DuckDB SQL with ``$name`` parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from tracewh import headers

# The folders whose files are reports, checks or derived tables; every other folder holds views
# and macros.
_KIND = {"reports": "report", "checks": "check", "derived": "derived"}


@dataclass(frozen=True)
class SqlFile:
    path: Path
    meta: headers.Header
    body: str = ""

    @property
    def header(self) -> dict[str, str]:
        return self.meta.values

    @property
    def name(self) -> str:
        return self.header.get("name", self.path.stem)


@cache
def sql_root() -> Path:
    """The folder holding the shipped SQL (editable install: the repo's sql/; wheel: warehouse/sql)."""
    return Path(str(resources.files("tracewh.sql")))


@cache
def data_root() -> Path:
    """The folder holding the bundled samples (the repo's data/)."""
    return Path(str(resources.files("tracewh.data")))


def parse(path: Path) -> SqlFile:
    """One SQL file with its validated header (HeaderError when the header breaks the rules).
    Parsed once per process while the file is unchanged (its size and modification time)."""
    st = path.stat()
    return _parse(path, st.st_mtime_ns, st.st_size)


@cache
def _parse(path: Path, mtime_ns: int, size: int) -> SqlFile:
    text = path.read_text(encoding="utf-8")
    kind = _KIND.get(path.parent.name, "view")
    return SqlFile(path, headers.parse(f"{path.parent.name}/{path.name}", kind, headers.read(text)), text)


def folder(name: str | Path) -> list[SqlFile]:
    """Every .sql file of one folder (e.g. 'reports', or a trace's folder), in name order."""
    root = sql_root() / name
    if not root.is_dir():
        return []
    return [parse(p) for p in sorted(root.glob("*.sql"))]
