"""The generations of a table's Parquet and the names written into them, shared by the ingest and
the compaction (both write a new generation beside the live one and link what they keep).

A Parquet file an ingest or a compaction writes is named ``<part stem>.<writer id>[_<i>].parquet``:
the id keeps every name new, so no write can reach a linked (live) file.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from datetime import datetime, timezone
from pathlib import Path

from tracewh.ingestion import readers

# The ingest's (and compaction's) memory budget unless --memory-limit or TRACEWH_MEMORY_LIMIT
# (the process's: DuckDB gets catalog.pool_limit of it).
DEFAULT_MEMORY_LIMIT = "2GB"
_ID_FORM = r"\d{8}T\d{6}-[0-9a-f]{6}"
_OUTPUT_NAME = re.compile(rf"^(?P<stem>.+)\.{_ID_FORM}(?:_\d+)?\.parquet$")


def new_writer_id() -> str:
    """The id of one ingest (or compaction): in every name it writes, so no name is ever reused."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def link_generation(old: Path, new: Path, replaced: set[tuple[str, str | None, str]]) -> None:
    """The new generation starts as hard links of the live one's files (no copy; the live one stays
    intact), less the files of the parts this ingest rewrites, each with its facts (fact_file).
    The ingest then writes only names that carry its own id, so no write can reach a linked (live)
    file."""
    stems = {(cell, stem) for _, cell, stem in replaced}
    facts = old / FACTS_FOLDER
    kinds = [d for d in facts.iterdir() if d.is_dir()] if facts.is_dir() else []
    for src in old.rglob("*.parquet"):
        rel = src.relative_to(old)
        cell = rel.parts[0].removeprefix("cell=") if rel.parts[0].startswith("cell=") else None
        # source_stem again: homes written before .tar.gz was a known suffix hold "<table>.tar" stems
        if (cell, source_stem(output_stem(src.name))) in stems:
            continue
        _link(src, new / rel)
        for kind in kinds:
            # a path, not a pattern: a file's name may hold [, * or ?
            if (fact := fact_file(old, kind.name, src)).is_file():
                _link(fact, fact_file(new, kind.name, new / rel))


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


# What meta.tables counts of each Parquet file of a generation, kept beside it so that an ingest
# counts only the files it wrote (a scan of a whole table for its distinct tasks cost 82 CPU s per
# ingest at the whole 2011 trace's 1.3 G usage windows): "rows" holds its rows and in-window time
# range (one row), the others its distinct entity keys. Each is a Parquet file at
# <generation>/_facts/<kind>.<digest of the query that made it>/<the file's path>.facts: the
# tables' globs (*.parquet) and Spark (a folder whose name starts with "_") do not read them. A
# file's name is never reused (writer ids), and a fact made by another query (a later tracewh's
# key or window) sits in another folder: a fact never goes stale; a missing one is made again.
FACTS_FOLDER = "_facts"
FACT_KINDS = ("rows", "tasks", "jobs", "machines")


def fact_file(gen: Path, kind: str, data_file: Path) -> Path:
    """Where the facts of ``kind`` (a FACT_KINDS name and its query's digest, ``rows.<digest>``)
    about ``data_file`` (a Parquet file of generation ``gen``) are."""
    return gen / FACTS_FOLDER / kind / f"{data_file.relative_to(gen).as_posix()}.facts"


def prune_facts(gen: Path, wanted: set[Path] | None = None) -> None:
    """Remove the facts of a generation that are not ``wanted`` (default: those of a file no longer
    in it, after a merge or a dropped part)."""
    folder = gen / FACTS_FOLDER
    if not folder.is_dir():
        return
    for fact in [x for x in folder.rglob("*") if x.is_file()]:
        kind = folder / fact.relative_to(folder).parts[0]
        described = gen / fact.relative_to(kind).with_suffix("")  # <file>.facts -> <file>
        if not (
            fact in wanted if wanted is not None else fact.name.endswith(".facts") and described.is_file()
        ):
            fact.unlink()
    # and the folders left empty (deepest first; a folder still holding facts stays)
    for d in sorted((x for x in folder.rglob("*") if x.is_dir()), key=lambda x: len(x.parts), reverse=True):
        with contextlib.suppress(OSError):
            d.rmdir()


def output_stem(filename: str) -> str:
    """The part stem of a Parquet file an ingest wrote (see _OUTPUT_NAME)."""
    m = _OUTPUT_NAME.match(filename)
    return m.group("stem") if m else filename.removesuffix(".parquet")


def source_stem(name: str) -> str:
    """A raw file's name less every suffix a raw file may carry: ``x.tar.gz``, ``x.csv.gz`` and
    ``x.csv`` are one part."""
    for suffix in readers.SOURCE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
