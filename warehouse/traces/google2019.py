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
from datetime import datetime, timezone

from tracewh.traces import Column, Layout, Paper, Published, Remote, Stated, Table, TraceSpec

NAME = "google2019"
CELLS = ("a", "b", "c", "d", "e", "f", "g", "h")
# One public bucket per cell, listed with the Cloud Storage JSON API (names, sizes, md5, crc32c);
# a download keeps the bucket name as the cell folder, which the layout's cell_folder recognises.
REMOTE = Remote(
    base="https://storage.googleapis.com",
    root="clusterdata_2019_{cell}",
    listing="storage-json-api",
    local_root="clusterdata_2019_{cell}",
    # Neither the shards of a table nor their sizes are published anywhere but in the buckets'
    # listings: only the whole trace's size is stated.
    published=Published(
        total=Stated(
            "about 2.4TiB compressed (all eight cells)",
            "https://github.com/google/cluster-data/blob/master/ClusterData2019.md",
        ),
    ),
)

RESOURCES = "STRUCT(cpus DOUBLE, memory DOUBLE)"
_TIME = "microseconds since 600 s before the trace start; 0 = before the window, 2^63-1 = after"


def _time(name: str, comment: str = _TIME, default: int | None = None) -> Column:
    return Column(
        name, "BIGINT", mandatory=True, comment=comment, read_type="UBIGINT", is_time=True, default=default
    )


# Shared by collection_events and instance_events, in this order.
_THING = (
    _time("time", default=0),
    Column(
        "type",
        "INTEGER",
        mandatory=True,
        comment="event type, code in google2019.codes",
        codes="type",
        default=0,
    ),
    Column("collection_id", "BIGINT", mandatory=True),
    Column(
        "scheduling_class",
        "INTEGER",
        comment="0 (most insensitive) .. 3 (most latency-sensitive)",
        codes="scheduling_class",
        default=0,
    ),
    Column(
        "missing_type",
        "INTEGER",
        comment="absent/NULL/0 = real record; else why it was synthesized",
        codes="missing_type",
        default=0,
        synthesized=True,
    ),
    Column("collection_type", "INTEGER", comment="0 JOB, 1 ALLOC_SET", codes="collection_type", default=0),
    Column("priority", "INTEGER", comment="tiers in google2019.priority_tiers"),
    Column(
        "alloc_collection_id",
        "BIGINT",
        comment="the alloc set this runs in; absent, null and 0 in the export = none (NULL in the view)",
    ),
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "machine_events",
            (
                _time("time", default=0),
                Column("machine_id", "BIGINT", mandatory=True),
                Column(
                    "type",
                    "INTEGER",
                    comment="0 UNKNOWN, 1 ADD, 2 REMOVE, 3 UPDATE",
                    codes="machine_event_type",
                    default=0,
                ),
                Column("switch_id", "VARCHAR", comment="hash of the top-of-rack switch"),
                Column("capacity", RESOURCES, comment="normalised capacity {cpus, memory}; NULL = unknown"),
                Column("platform_id", "VARCHAR", comment="hash of the microarchitecture and chipset"),
                Column(
                    "missing_data_reason",
                    "INTEGER",
                    comment="0/absent NONE, 1 SNAPSHOT_BUT_NO_TRANSITION",
                    codes="missing_data_reason",
                    default=0,
                ),
            ),
            "Machines added to, removed from and updated in each cell",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "machine_attributes",
            (
                _time("time", default=0),
                Column("machine_id", "BIGINT", mandatory=True),
                Column("name", "VARCHAR", mandatory=True, comment="hash of the attribute name"),
                Column("value", "VARCHAR", comment="hash or integer as text"),
                Column("deleted", "BOOLEAN", comment="true = the attribute is being deleted"),
            ),
            "Machine attribute values (key-value pairs used by constraints)",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "collection_events",
            (
                *_THING,
                Column("user", "VARCHAR", comment="hash of the user name"),
                Column("collection_name", "VARCHAR", comment="hash"),
                Column("collection_logical_name", "VARCHAR", comment="hash"),
                Column(
                    "parent_collection_id",
                    "BIGINT",
                    comment="parent job; absent, null and 0 in the export = none (NULL in the view)",
                ),
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
                    codes="vertical_scaling",
                    default=0,
                ),
                Column("scheduler", "INTEGER", comment="0 DEFAULT, 1 BATCH", codes="scheduler", default=0),
            ),
            "Life-cycle events of collections (jobs and alloc sets)",
            partition_time="time",
            entities={"jobs": ("collection_id",)},
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
                "jobs": ("collection_id",),
                "tasks": ("collection_id", "instance_index"),
                "machines": ("machine_id",),
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
                Column(
                    "collection_type",
                    "INTEGER",
                    comment="0 JOB, 1 ALLOC_SET",
                    codes="collection_type",
                    default=0,
                ),
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
                "jobs": ("collection_id",),
                "tasks": ("collection_id", "instance_index"),
                "machines": ("machine_id",),
            },
        ),
    )
}


# The 2019 trace's announcement, its document and the paper that introduced it, as
# github.com/google/cluster-data's bibliography.bib gives them (it asks users of the 2019 trace to
# cite all three; the abstracts and keywords are left out).
BIBLIOGRAPHY = "https://github.com/google/cluster-data/blob/master/bibliography.bib"
PAPERS = (
    Paper(
        "clusterdata:Wilkes2020",
        """@Misc{clusterdata:Wilkes2020,
  author = {John Wilkes},
  title = {Yet more {Google} compute cluster trace data},
  howpublished = {Google research blog},
  month = Apr,
  year = 2020,
  address = {Mountain View, CA, USA},
  note = {Posted at \\url{https://ai.googleblog.com/2020/04/yet-more-google-compute-cluster-trace.html}.},
}""",
        BIBLIOGRAPHY,
        cite_with_trace=True,
    ),
    Paper(
        "clusterdata:Wilkes2020a",
        """@TechReport{clusterdata:Wilkes2020a,
  author = {John Wilkes},
  title = {{Google} cluster-usage traces v3},
  institution = {Google Inc.},
  year = 2020,
  month = Apr,
  type = {Technical Report},
  address = {Mountain View, CA, USA},
  note = {Posted at \\url{https://github.com/google/cluster-data/blob/master/ClusterData2019.md}},
}""",
        BIBLIOGRAPHY,
        cite_with_trace=True,
    ),
    Paper(
        "clusterdata:Tirmazi2020",
        """@InProceedings{clusterdata:Tirmazi2020,
  author = {Tirmazi, Muhammad and Barker, Adam and Deng, Nan and Haque, Md E. and Qin, Zhijing Gene
            and Hand, Steven and Harchol-Balter, Mor and Wilkes, John},
  title = {{Borg: the Next Generation}},
  year = {2020},
  isbn = {9781450368827},
  publisher = {ACM},
  address = {Heraklion, Greece},
  url = {https://doi.org/10.1145/3342195.3387517},
  doi = {10.1145/3342195.3387517},
  booktitle = {Proceedings of the Fifteenth European Conference on Computer Systems (EuroSys'20)},
  articleno = {30},
  numpages = {14},
}""",
        BIBLIOGRAPHY,
        cite_with_trace=True,
    ),
)

SPEC = TraceSpec(
    name=NAME,
    title="Google clusterdata 2019 (v3)",
    place=2,
    tables=TABLES,
    layout=Layout(
        # the shard number: shards of a table are consecutive slices of it
        pattern=re.compile(r"^(?P<table>[a-z_]+)-(?P<part>\d{12})\.json(\.gz)?$"),
        expected=(
            "<table>-NNNNNNNNNNNN.json.gz, in clusterdata_2019_<cell>/ folders or a flat folder with --cell,"
        ),
        cell_folder=re.compile(r"^clusterdata_2019_(?P<cell>[a-h])$"),
    ),
    reader="ndjson",
    units_per_day=86_400_000_000,  # times are microseconds
    # traces.md "Time": t = 600 s is the trace start; 0 = before the window, 2^63-1 = after it
    trace_start=datetime(2019, 5, 1, 7, 0, tzinfo=timezone.utc),  # 00:00 America/Los_Angeles
    start_offset=600_000_000,
    after_window=2**63 - 1,
    cells=CELLS,
    # each cell's wall clock (traces.md section 2), for reports by local hour
    cell_zones={
        "a": "America/New_York",
        "b": "America/Chicago",
        "c": "America/New_York",
        "d": "America/New_York",
        "e": "Europe/Helsinki",
        "f": "America/Chicago",
        "g": "Asia/Singapore",
        "h": "Europe/Brussels",
    },
    remote=REMOTE,  # the buckets publish no digests
    demo_reports=("lifecycle-counts",),
    inputs={
        "task_events": "instance_events",
        "task_usage": "instance_usage",
        "job_events": "collection_events",
        "machine_events": "machine_events",
    },
    synth="tracewh.synth.google2019",
    papers=PAPERS,
)
