"""Google clusterdata 2019 (v3): the JSON export layout and the columns of its five tables.

This module is the one place that knows the 2019 file layout (newline-delimited
JSON shards ``<table>-NNNNNNNNNNNN.json.gz``, one folder per cell
``clusterdata_2019_<cell>/`` or a flat folder with ``--cell``) and each
table's fields and types. 64-bit integers (enum codes included) arrive as JSON
strings or numbers; the reader casts both. Nested records stay STRUCTs and
repeated fields LISTs; the views in ``sql/google2019/`` flatten what users query.
"""

from __future__ import annotations

import re
from pathlib import Path

from warehouse.errors import InputError, UsageError
from warehouse.traces import Column, Remote, SourceFile, Table

NAME = "google2019"
TITLE = "Google clusterdata 2019 (v3)"
FORMAT = "json"
UNITS_PER_DAY = 86_400_000_000  # times are microseconds
CELLS = ("a", "b", "c", "d", "e", "f", "g", "h")
SHARD_PATTERN = re.compile(r"^(?P<table>[a-z_]+)-(?P<shard>\d{12})\.json(\.gz)?$")
# The shard number of a file name (regex, group): also parsed in SQL (meta.part_number) to find gaps.
PART_RULE: tuple[str, int] | None = (SHARD_PATTERN.pattern, 2)
CELL_FOLDER = re.compile(r"^clusterdata_2019_(?P<cell>[a-h])$")
# One public bucket per cell, listed with the Cloud Storage JSON API (names, sizes, md5, crc32c);
# a download keeps the bucket name as the cell folder, which CELL_FOLDER recognises.
REMOTE = Remote(
    base="https://storage.googleapis.com",
    root="clusterdata_2019_{cell}",
    listing="storage-json-api",
    local_root="clusterdata_2019_{cell}",
)

RESOURCES = "STRUCT(cpus DOUBLE, memory DOUBLE)"
_TIME = "microseconds since 600 s before the trace start; 0 = before the window, 2^63-1 = after"


def _time(name: str, comment: str = _TIME) -> Column:
    return Column(name, "BIGINT", mandatory=True, comment=comment, read_type="UBIGINT", is_time=True)


# Shared by collection_events and instance_events, in this order.
_THING = (
    _time("time"),
    Column("type", "INTEGER", mandatory=True, comment="event type, code in google2019.codes"),
    Column("collection_id", "BIGINT", mandatory=True),
    Column("scheduling_class", "INTEGER", comment="0 (most insensitive) .. 3 (most latency-sensitive)"),
    Column("missing_type", "INTEGER", comment="absent/NULL/0 = real record; else why it was synthesized"),
    Column("collection_type", "INTEGER", comment="0 JOB, 1 ALLOC_SET"),
    Column("priority", "INTEGER", comment="tiers in google2019.priority_tiers"),
    Column("alloc_collection_id", "BIGINT", comment="alloc set the thing runs in; absent/NULL/0 = none"),
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "machine_events",
            (
                _time("time"),
                Column("machine_id", "BIGINT", mandatory=True),
                Column("type", "INTEGER", comment="0 UNKNOWN, 1 ADD, 2 REMOVE, 3 UPDATE"),
                Column("switch_id", "VARCHAR", comment="hash of the top-of-rack switch"),
                Column("capacity", RESOURCES, comment="normalised capacity {cpus, memory}; NULL = unknown"),
                Column("platform_id", "VARCHAR", comment="hash of the microarchitecture and chipset"),
                Column(
                    "missing_data_reason", "INTEGER", comment="0/absent NONE, 1 SNAPSHOT_BUT_NO_TRANSITION"
                ),
            ),
            "Machines added to, removed from and updated in each cell",
            entities={"machines": "machine_id"},
        ),
        Table(
            "machine_attributes",
            (
                _time("time"),
                Column("machine_id", "BIGINT", mandatory=True),
                Column("name", "VARCHAR", mandatory=True, comment="hash of the attribute name"),
                Column("value", "VARCHAR", comment="hash or integer as text"),
                Column("deleted", "BOOLEAN", comment="true = the attribute is being deleted"),
            ),
            "Machine attribute values (key-value pairs used by constraints)",
            entities={"machines": "machine_id"},
        ),
        Table(
            "collection_events",
            (
                *_THING,
                Column("user", "VARCHAR", comment="hash of the user name"),
                Column("collection_name", "VARCHAR", comment="hash"),
                Column("collection_logical_name", "VARCHAR", comment="hash"),
                Column("parent_collection_id", "BIGINT", comment="parent job; absent/NULL/0 = none"),
                Column("start_after_collection_ids", "BIGINT[]", comment="jobs this one runs after"),
                Column(
                    "max_per_machine",
                    "INTEGER",
                    comment="instances per machine at most; absent = 0 = no limit",
                ),
                Column(
                    "max_per_switch", "INTEGER", comment="instances per switch at most; absent = 0 = no limit"
                ),
                Column(
                    "vertical_scaling",
                    "INTEGER",
                    comment="0 UNKNOWN, 1 OFF, 2 CONSTRAINED, 3 FULLY_AUTOMATED",
                ),
                Column("scheduler", "INTEGER", comment="0 DEFAULT, 1 BATCH"),
            ),
            "Life-cycle events of collections (jobs and alloc sets)",
            partition_time="time",
            entities={"jobs": "collection_id"},
        ),
        Table(
            "instance_events",
            (
                *_THING,
                Column("instance_index", "BIGINT", comment="index of the instance in its collection"),
                Column(
                    "machine_id",
                    "BIGINT",
                    comment="absent/NULL/0 = not on a machine; -1 = a dedicated machine",
                ),
                Column("alloc_instance_index", "BIGINT", comment="-1 = not in an alloc"),
                Column("resource_request", RESOURCES, comment="requested {cpus, memory}, normalised"),
                Column(
                    "constraint",
                    "STRUCT(name VARCHAR, value VARCHAR, relation INTEGER)[]",
                    comment="placement constraints; relation code in google2019.codes",
                ),
            ),
            "Life-cycle events of instances (tasks and alloc instances)",
            partition_time="time",
            entities={
                "jobs": "collection_id",
                "tasks": "(collection_id, instance_index)",
                "machines": "machine_id",
            },
        ),
        Table(
            "instance_usage",
            (
                _time("start_time", "start of the measurement window, " + _TIME),
                _time("end_time", "end of the measurement window, " + _TIME),
                Column("collection_id", "BIGINT", mandatory=True),
                Column("instance_index", "BIGINT"),
                Column("machine_id", "BIGINT"),
                Column("alloc_collection_id", "BIGINT"),
                Column("alloc_instance_index", "BIGINT"),
                Column("collection_type", "INTEGER", comment="0 JOB, 1 ALLOC_SET"),
                Column("average_usage", RESOURCES, comment="mean usage {cpus, memory} over the window"),
                Column("maximum_usage", RESOURCES, comment="maximum usage {cpus, memory} over the window"),
                # The schema calls it random_sample_usage, the format document random_sampled_usage.
                Column(
                    "random_sample_usage",
                    RESOURCES,
                    comment="a random 1 s sample {cpus, memory}",
                    aliases=("random_sampled_usage",),
                ),
                Column("assigned_memory", "DOUBLE", comment="memory limit, normalised"),
                Column("page_cache_memory", "DOUBLE", comment="normalised"),
                Column("cycles_per_instruction", "DOUBLE"),
                Column("memory_accesses_per_instruction", "DOUBLE"),
                Column("sample_rate", "DOUBLE", comment="samples per second"),
                Column(
                    "cpu_usage_distribution",
                    "DOUBLE[]",
                    comment="CPU usage percentiles 0,10,..,100 (11 values in real data; never assume)",
                ),
                Column("tail_cpu_usage_distribution", "DOUBLE[]", comment="CPU usage percentiles 91..99"),
            ),
            "Resource usage of each instance per measurement window (<= 300 s)",
            partition_time="start_time",
            entities={
                "jobs": "collection_id",
                "tasks": "(collection_id, instance_index)",
                "machines": "machine_id",
            },
        ),
    )
}


def discover(
    source: Path, tables: list[str] | None, table_for_file: str | None, cell: str | None
) -> list[SourceFile]:
    """The shards under ``source``: cell folders ``clusterdata_2019_<c>/`` or a flat folder with --cell."""
    for name in tables or []:
        if name not in TABLES:
            raise UsageError(f"unknown {NAME} table {name!r} (known: {', '.join(TABLES)})")
    if cell is not None and cell not in CELLS:
        raise UsageError(f"unknown {NAME} cell {cell!r} (cells: {', '.join(CELLS)})")
    if source.is_file():
        m = SHARD_PATTERN.match(source.name)
        table = table_for_file or (m.group("table") if m else None)
        if table not in TABLES:
            raise UsageError(f"{source}: a single file needs --table (one of {', '.join(TABLES)})")
        return [SourceFile(table, source, source.name, _cell_of(source.parent, cell, source))]
    if not source.is_dir():
        raise InputError(f"{source}: no such file or folder")
    wanted = set(tables or TABLES)
    folders = sorted(p for p in source.iterdir() if p.is_dir() and CELL_FOLDER.match(p.name))
    if CELL_FOLDER.match(source.name):
        folders = [source]
    if cell is not None and folders:
        folders = [f for f in folders if CELL_FOLDER.match(f.name).group("cell") == cell]  # type: ignore[union-attr]
    found: list[SourceFile] = []
    for folder in folders or [source]:
        shards = [p for p in sorted(folder.iterdir()) if SHARD_PATTERN.match(p.name)]
        if not shards:
            continue
        folder_cell = _cell_of(folder, cell, folder)
        for path in shards:
            table = SHARD_PATTERN.match(path.name).group("table")  # type: ignore[union-attr]
            if table in wanted and table in TABLES:
                found.append(SourceFile(table, path, path.name, folder_cell))
    if not found:
        present = sorted(p.name for p in source.iterdir())[:8]
        raise InputError(
            f"{source}: no {NAME} files found (expected <table>-NNNNNNNNNNNN.json.gz, in "
            f"clusterdata_2019_<cell>/ folders or a flat folder with --cell; the folder holds: "
            f"{', '.join(present) or 'nothing'})"
        )
    return sorted(found, key=lambda s: (s.table, s.cell or "", s.name))


def _cell_of(folder: Path, cell: str | None, where: Path) -> str:
    m = CELL_FOLDER.match(folder.name)
    if m:
        if cell is not None and cell != m.group("cell"):
            raise UsageError(f"{where} is in the folder of cell {m.group('cell')}, not --cell {cell}")
        return m.group("cell")
    if cell is None:
        raise UsageError(f"{where}: which cell? put the shards in clusterdata_2019_<cell>/ or pass --cell")
    return cell


def expected_sha256(source: Path, f: SourceFile) -> str | None:
    return None  # the buckets publish no digests


def file_order(name: str) -> int:
    """The shard number: shards of a table are consecutive slices of it."""
    m = SHARD_PATTERN.match(name)
    return int(m.group("shard")) if m else 0


def part_of(relpath: str) -> tuple[str, int] | None:
    """The table and shard number of a shard (``<table>-NNNNNNNNNNNN.json.gz``), else None."""
    m = SHARD_PATTERN.match(relpath.rpartition("/")[2])
    return (m.group("table"), int(m.group("shard"))) if m and m.group("table") in TABLES else None
