"""Finding and reading the SQL files that ship with the package (``sql/`` in the repository).

Each file starts with a header of ``-- key: value`` lines (name, purpose,
grain or traces, params, reproduces); the body is plain DuckDB SQL with
``$name`` parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

_HEADER = re.compile(r"^--\s*([a-z_]+):\s*(.*)$")


@dataclass(frozen=True)
class SqlFile:
    path: Path
    header: dict[str, str] = field(default_factory=dict)
    body: str = ""

    @property
    def name(self) -> str:
        return self.header.get("name", self.path.stem)

    def params(self) -> dict[str, str | None]:
        """Parameters declared in the header, with their defaults (``-- params: trace, bucket_s = 3600``)."""
        raw = self.header.get("params", "").strip()
        if not raw or raw == "none":
            return {}
        out: dict[str, str | None] = {}
        for item in raw.split(","):
            name, _, default = item.partition("=")
            if name.strip():
                out[name.split("(")[0].strip()] = default.strip() or None
        return out


@cache
def sql_root() -> Path:
    """The folder holding the shipped SQL (editable install: the repo's sql/; wheel: warehouse/sql)."""
    return Path(str(resources.files("warehouse.sql")))


@cache
def data_root() -> Path:
    """The folder holding the bundled samples (the repo's data/)."""
    return Path(str(resources.files("warehouse.data")))


def parse(path: Path) -> SqlFile:
    text = path.read_text(encoding="utf-8")
    header: dict[str, str] = {}
    for line in text.splitlines():
        m = _HEADER.match(line)
        if not m:
            if line.startswith("--"):
                # continuation of the previous key
                if header:
                    last = next(reversed(header))
                    header[last] += " " + line.lstrip("- ").strip()
                continue
            break
        header[m.group(1)] = m.group(2).strip()
    return SqlFile(path, header, text)


def folder(name: str | Path) -> list[SqlFile]:
    """Every .sql file of one folder (e.g. 'reports', or a trace's folder), in name order."""
    root = sql_root() / name
    if not root.is_dir():
        return []
    return [parse(p) for p in sorted(root.glob("*.sql"))]
