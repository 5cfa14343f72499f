"""The registry of traces and the declarative description every trace module fills in.

A trace module declares its raw layout (which files hold which table), its
columns and types (the one place for each table's column list), and its
partitioning; the ingest engine and the catalog builder are generic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from warehouse.errors import UsageError


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # DuckDB type as stored in Parquet and shown by the raw view
    mandatory: bool = False
    comment: str = ""
    # Type the CSV reader parses with, when it differs from the stored type
    # (time columns are read as UBIGINT so 2^64-1 survives to be clamped).
    read_type: str | None = None
    is_time: bool = False  # special-valued trace time (0 / 2^63-1)
    # Other source names of the same field (JSON exports disagree); the first present wins.
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    comment: str
    # Column whose trace day partitions the Parquet; None = one unpartitioned file per source file.
    partition_time: str | None = None
    # Columns counted as distinct entities in meta.tables (label -> SQL expression).
    entities: dict[str, str] = field(default_factory=dict)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]


@dataclass(frozen=True)
class SourceFile:
    """One raw file to ingest: which table it feeds, and its name as recorded in the catalog."""

    table: str
    path: Path
    name: str  # stable name, e.g. "part-00001-of-00500.csv.gz"
    cell: str | None = None  # traces with several cells (google2019)


@dataclass(frozen=True)
class Remote:
    """Where a trace is published and how `tracewh download` lists and verifies its files.

    ``base`` is the scheme and host of the official address (``--mirror`` replaces only it);
    ``root`` is the path under it, with ``{cell}`` for traces with one bucket per cell.
    ``listing`` says where the file list and digests come from:
    ``checksum-file`` (a sha256sum-format file under ``root`` names every file),
    ``storage-json-api`` (the Google Cloud Storage object listing gives names, sizes, md5, crc32c),
    ``fixed`` (one ``<table><suffix>`` per table, digests in ``sha256``).
    Files land under the download folder in exactly the layout ``discover`` reads.
    """

    base: str
    root: str
    listing: str
    checksum_file: str | None = None
    extra_files: tuple[str, ...] = ()  # small companions fetched when the checksum file lists them
    suffix: str = ""  # fixed: the file of a table is <table><suffix>
    sha256: dict[str, str] = field(default_factory=dict)  # fixed: file name -> official sha256
    local_root: str = ""  # folder under the download folder (may hold {cell}); "" = the folder itself


def parse_sha256sum(text: str) -> dict[str, str]:
    """A ``sha256sum``-format listing (``<hex>  <path>``, ``*`` for binary mode) as path -> digest."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out[parts[-1].lstrip("*").removeprefix("./")] = parts[0].lower()
    return out


TRACE_NAMES = ("google2011", "google2019", "alibaba2018")


def get_trace(name: str):  # -> module with the trace protocol
    if name not in TRACE_NAMES:
        raise UsageError(f"unknown trace {name!r} (known: {', '.join(TRACE_NAMES)})")
    import importlib

    return importlib.import_module(f"warehouse.traces.{name}")
