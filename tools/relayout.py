"""The move of warehouse/'s flat modules into subpackages, as a script that can be run again.

    python tools/relayout.py move      # git mv of the files (nothing else: git's rename detection
                                       # then carries edits made elsewhere to the old paths)
    python tools/relayout.py imports   # rewrite every reference to a moved module (imports,
                                       # dotted names in strings, warehouse/<file> paths)

Both are idempotent: a file already moved is skipped, a reference already rewritten no longer
matches. History (CHANGELOG.md, bench/RESULTS.md) is left as written.

Merging a branch written against the flat layout: git follows the renames, so its edits land in
the moved files. Where it conflicts with the rewrite (an import block both sides touched), take
that branch's side of the hunk (the rewrite's side only renamed modules), then run `move` (for a
module it added under an old name, rare) and `imports`, which also sorts and formats the files it
changed with the project's ruff; `make lint` then names any line a longer module path made too
long.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# old module (under tracewh) -> new module. A group's main module becomes its package's
# __init__.py, so `tracewh.catalog`, `tracewh.ingestion` and `tracewh.reports` keep their names.
MOVES = {
    # the catalog and everything that reads it: the catalog file, the derived layer, queries
    "derived": "catalog.derived",
    "dag": "catalog.dag",
    "query": "catalog.query",
    "checks": "catalog.checks",
    "holdings": "catalog.holdings",
    "parts": "catalog.parts",
    "reference": "catalog.reference",
    # raw files -> Parquet generations
    "fastpath": "ingestion.fastpath",
    "readers": "ingestion.readers",
    "compaction": "ingestion.compaction",
    "generations": "ingestion.generations",
    "notebook": "ingestion.notebook",
    # the reports and what shows or exports their results
    "plots": "reports.plots",
    "dagplot": "reports.dagplot",
    "summary": "reports.summary",
    "citations": "reports.citations",
    "provenance": "reports.provenance",
    "display": "reports.display",
    # the engines besides the in-process DuckDB
    "spark": "engines.spark",
    "shell": "engines.shell",
}
# modules that become their package's __init__.py
PACKAGES = ("catalog", "ingestion", "reports")


def _path(module: str, package: bool = False) -> Path:
    parts = module.split(".")
    if package:
        return ROOT / "warehouse" / Path(*parts) / "__init__.py"
    return ROOT / "warehouse" / Path(*parts[:-1]) / f"{parts[-1]}.py"


def file_moves() -> list[tuple[Path, Path]]:
    out = [(_path(m), _path(m, package=True)) for m in PACKAGES]
    out += [(_path(old), _path(new)) for old, new in MOVES.items()]
    return out


def move() -> None:
    # the main modules first: warehouse/catalog.py must leave before warehouse/catalog/ exists
    for old, new in file_moves():
        if old.exists():
            new.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", str(old), str(new)], cwd=ROOT, check=True)


_NAMES = "|".join(sorted(MOVES, key=len, reverse=True))
# a dotted reference: tracewh.query, tracewh.query.run, "tracewh.spark" (not tracewh.catalog.query)
_DOTTED = re.compile(rf"(?<![\w.])tracewh\.({_NAMES})(?!\w)")
# a path: warehouse/query.py (not warehouse/catalog/query.py)
_PATH = re.compile(rf"(?<![\w/])warehouse/({_NAMES}|{'|'.join(PACKAGES)})\.py\b")
# `from tracewh import a, b as c` on one line or in parentheses
_FROM = re.compile(
    r"^(?P<indent>[ \t]*)from tracewh import (?P<names>\([^)]*\)|[^\n]*?)(?P<tail>[ \t]*#[^\n]*)?$", re.M
)


def _split_from(m: re.Match[str]) -> str:
    indent, names = m["indent"], m["names"].strip("()")
    items = [n.strip() for n in names.replace("\n", " ").split(",") if n.strip()]
    if not any(i.split()[0] in MOVES for i in items):
        return m[0]
    groups: dict[str, list[str]] = {}
    for item in items:
        name = item.split()[0]
        target = "tracewh." + MOVES[name].rsplit(".", 1)[0] if name in MOVES else "tracewh"
        groups.setdefault(target, []).append(item)
    lines = [f"{indent}from {target} import {', '.join(items)}" for target, items in sorted(groups.items())]
    return "\n".join(lines) + (m["tail"] or "")


# Names that look like a module's but are not one: the key under which an export carries its
# provenance (Parquet metadata, PNG text chunk, JSON) is a file format and stays as written.
KEEP_PHRASES = (
    'KEY = "tracewh.provenance"',
    'KEY == "tracewh.provenance"',
    "key ``tracewh.provenance``",
    "chunk ``tracewh.provenance``",
    "the `tracewh.provenance` key",
)


def rewrite(text: str) -> str:
    text = _FROM.sub(_split_from, text)
    kept = {f"\0KEEP{i}\0": phrase for i, phrase in enumerate(KEEP_PHRASES)}
    for mark, phrase in kept.items():
        text = text.replace(phrase, mark)
    text = _DOTTED.sub(lambda m: f"tracewh.{MOVES[m[1]]}", text)
    for mark, phrase in kept.items():
        text = text.replace(mark, phrase)

    def path(m: re.Match[str]) -> str:
        name = m[1]
        if name in PACKAGES:
            return f"warehouse/{name}/__init__.py"
        return "warehouse/" + MOVES[name].replace(".", "/") + ".py"

    return _PATH.sub(path, text)


# where references live; history is not rewritten
TREES = ("warehouse", "cli", "sql", "tests", "bench", "docs", "tools")
FILES = ("README.md", "Makefile", "pyproject.toml", "setup.py")
KEEP = {"CHANGELOG.md", "bench/RESULTS.md", "tools/relayout.py"}
SUFFIXES = {".py", ".md", ".toml", ".sql", ".sh", ".cfg", ".txt", ".ipynb"}


def imports() -> list[Path]:
    paths = [ROOT / f for f in FILES]
    for tree in TREES:
        paths += [
            p for p in (ROOT / tree).rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts
        ]
    changed = []
    for p in paths:
        if not p.is_file() or p.relative_to(ROOT).as_posix() in KEEP:
            continue
        text = p.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            p.write_text(new, encoding="utf-8")
            changed.append(p)
    return changed


if __name__ == "__main__":
    what = sys.argv[1:] or ["move", "imports"]
    if "move" in what:
        move()
    if "imports" in what:
        changed = imports()
        for p in changed:
            print(p.relative_to(ROOT))
        # the split `from tracewh import` lines sorted and formatted as the project's ruff wants;
        # a line made too long by a longer module path is reported by `make lint` (wrap it by hand)
        ruff = ROOT / ".venv" / "bin" / "ruff"
        py = [str(p) for p in changed if p.suffix == ".py"]
        if py and ruff.exists():
            subprocess.run([str(ruff), "check", "--fix", "--select", "I", "-q", *py], cwd=ROOT, check=False)
            subprocess.run([str(ruff), "format", "-q", *py], cwd=ROOT, check=False)
