"""Finding and reading the SQL files that ship with the package (``sql/`` in the repository).

Each file starts with a header of ``-- key: value`` lines, parsed and validated when the file
is read (tracewh.headers: one key per meaning, typed report parameters, the plot spec); the
body is plain DuckDB SQL with ``$name`` parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from tracewh import headers

# What a SQL text creates: the qualified name after CREATE [OR REPLACE] VIEW / TABLE / MACRO /
# FUNCTION (the build plan's steps, the derived build's swaps of life-cycle views).
_CREATES = re.compile(
    r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(VIEW|TABLE|MACRO|FUNCTION)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+\.\w+)",
    re.IGNORECASE,
)
COMMENT = re.compile(r"--[^\n]*")

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


@cache
def creates(text: str, kind: str | None = None) -> frozenset[str]:
    """The qualified names (lower case) a SQL text creates, comments left out; ``kind`` ('view',
    'table', 'macro', 'function'): of that kind only. Read once per text (the derived build asks
    of each life-cycle file ~1,700 times an ingest)."""
    return frozenset(
        n.lower() for k, n in _CREATES.findall(COMMENT.sub("", text)) if kind is None or k.lower() == kind
    )
