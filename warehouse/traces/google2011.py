"""Google clusterdata-2011-2: the raw layout and the columns of its six tables.

This module is the one place that knows the 2011 file layout
(``<table>/part-NNNNN-of-MMMMM.csv.gz``) and the column list and types of each
table (from the official schema.csv). The semantics (codes, special times)
live in ``sql/google2011/``.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from tracewh.traces import Column, Layout, Paper, Published, Remote, Stated, Table, TraceSpec

NAME = "google2011"
CHECKSUM_FILE = "SHA256SUM"
PART_NAME = "part-{:05d}-of-{:05d}.csv.gz"  # part k of n of a table
# Parts per table in the bucket: the parts say it in their names (part-00001-of-00500 of the real
# job_events and task_events); the machine tables are one part each. `tracewh synth` writes these.
PARTS = {
    "machine_events": 1,
    "machine_attributes": 1,
    "job_events": 500,
    "task_events": 500,
    "task_constraints": 500,
    "task_usage": 500,
}
# The public bucket over plain HTTPS (no account): SHA256SUM names every part with its digest,
# and no document gives per-file sizes (the checksum files hold digests only).
REMOTE = Remote(
    base="https://storage.googleapis.com",
    root="clusterdata-2011-2",
    listing="checksum-file",
    checksum_file=CHECKSUM_FILE,
    extra_files=("schema.csv",),
    published=Published(
        total=Stated(
            "approximately 41GB (compressed)",
            "https://github.com/google/cluster-data/blob/master/ClusterData2011_2.md",
        ),
        parts=PARTS,
        part_name=PART_NAME,
        parts_source="the bucket's part names, part-NNNNN-of-MMMMM (spec/traces.md section 1)",
    ),
)


def _time(name: str, comment: str) -> Column:
    return Column(name, "BIGINT", mandatory=True, comment=comment, read_type="UBIGINT", is_time=True)


_TIME = "microseconds since 600 s before the trace start; 0 = before the window, 2^63-1 = after"

# Columns of job_events and task_events alike.
_MISSING_INFO = Column(
    "missing_info",
    "INTEGER",
    comment="NULL = real record; code in google2011.codes",
    codes="missing_info",
    synthesized=True,
)
_EVENT_TYPE = Column(
    "event_type", "INTEGER", mandatory=True, comment="code in google2011.codes", codes="event_type"
)
_SCHEDULING_CLASS = Column(
    "scheduling_class", "INTEGER", comment="0..3, 3 = most latency-sensitive", codes="scheduling_class"
)

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "job_events",
            (
                _time("time", _TIME),
                _MISSING_INFO,
                Column("job_id", "BIGINT", mandatory=True),
                _EVENT_TYPE,
                Column("user", "VARCHAR", comment="hash of the user name"),
                _SCHEDULING_CLASS,
                Column("job_name", "VARCHAR", comment="hash"),
                Column("logical_job_name", "VARCHAR", comment="hash"),
            ),
            "Job life-cycle events (submit, schedule, evict, fail, finish, kill, lost, update)",
            partition_time=None,
            entities={"jobs": ("job_id",)},
            published_rows=2_012_242,
        ),
        Table(
            "task_events",
            (
                _time("time", _TIME),
                _MISSING_INFO,
                Column("job_id", "BIGINT", mandatory=True),
                Column("task_index", "BIGINT", mandatory=True),
                Column("machine_id", "BIGINT", comment="NULL until the task is scheduled"),
                _EVENT_TYPE,
                Column("user", "VARCHAR", comment="hash of the user name"),
                _SCHEDULING_CLASS,
                Column(
                    "priority",
                    "INTEGER",
                    mandatory=True,
                    comment="0..11; tiers in google2011.priority_tiers",
                ),
                Column("cpu_request", "DOUBLE", comment="normalised cores (largest machine = 1)"),
                Column("memory_request", "DOUBLE", comment="normalised bytes (largest machine = 1)"),
                Column("disk_space_request", "DOUBLE", comment="normalised bytes"),
                Column(
                    "different_machines_restriction",
                    "BOOLEAN",
                    comment="true = tasks of the job must run on distinct machines",
                ),
            ),
            "Task life-cycle events, one row per event of one task (job_id, task_index)",
            partition_time="time",
            entities={"jobs": ("job_id",), "tasks": ("job_id", "task_index"), "machines": ("machine_id",)},
            published_rows=144_648_288,
        ),
        Table(
            "machine_events",
            (
                _time("time", _TIME),
                Column("machine_id", "BIGINT", mandatory=True),
                Column(
                    "event_type",
                    "INTEGER",
                    mandatory=True,
                    comment="0 ADD, 1 REMOVE, 2 UPDATE",
                    codes="machine_event_type",
                ),
                Column("platform_id", "VARCHAR", comment="hash of the microarchitecture and chipset"),
                Column("cpus", "DOUBLE", comment="normalised CPU capacity (largest machine = 1)"),
                Column("memory", "DOUBLE", comment="normalised memory capacity (largest machine = 1)"),
            ),
            "Machines added to, removed from and updated in the cluster",
            entities={"machines": ("machine_id",)},
            published_rows=37_780,
        ),
        Table(
            "machine_attributes",
            (
                _time("time", _TIME),
                Column("machine_id", "BIGINT", mandatory=True),
                Column("attribute_name", "VARCHAR", mandatory=True, comment="hash"),
                Column("attribute_value", "VARCHAR", comment="hash or integer as text; NULL = empty"),
                Column("attribute_deleted", "BOOLEAN", mandatory=True),
            ),
            "Machine attribute values (key-value pairs used by task constraints)",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "task_constraints",
            (
                _time("time", _TIME),
                Column("job_id", "BIGINT", mandatory=True),
                Column("task_index", "BIGINT", mandatory=True),
                Column(
                    "comparison_operator",
                    "INTEGER",
                    mandatory=True,
                    comment="0 EQUAL, 1 NOT_EQUAL, 2 LESS_THAN, 3 GREATER_THAN",
                    codes="comparison_operator",
                ),
                Column("attribute_name", "VARCHAR", mandatory=True, comment="hash"),
                Column("attribute_value", "VARCHAR", comment="hash or integer as text; NULL = empty"),
            ),
            "Placement constraints of tasks on machine attributes",
            partition_time="time",
            entities={"jobs": ("job_id",), "tasks": ("job_id", "task_index")},
        ),
        Table(
            "task_usage",
            (
                _time("start_time", "start of the measurement window, " + _TIME),
                _time("end_time", "end of the measurement window, " + _TIME),
                Column("job_id", "BIGINT", mandatory=True),
                Column("task_index", "BIGINT", mandatory=True),
                Column("machine_id", "BIGINT", mandatory=True),
                Column("cpu_rate", "DOUBLE", comment="mean CPU, normalised core-seconds per second"),
                Column("canonical_memory_usage", "DOUBLE", comment="normalised"),
                Column("assigned_memory_usage", "DOUBLE", comment="normalised"),
                Column("unmapped_page_cache", "DOUBLE", comment="normalised"),
                Column("total_page_cache", "DOUBLE", comment="normalised"),
                Column("maximum_memory_usage", "DOUBLE", comment="normalised"),
                Column("disk_io_time", "DOUBLE", comment="normalised"),
                Column("local_disk_space_usage", "DOUBLE", comment="normalised"),
                Column("maximum_cpu_rate", "DOUBLE", comment="normalised"),
                Column("maximum_disk_io_time", "DOUBLE", comment="normalised"),
                Column("cycles_per_instruction", "DOUBLE"),
                Column("memory_accesses_per_instruction", "DOUBLE"),
                Column("sample_portion", "DOUBLE"),
                Column(
                    "aggregation_type",
                    "BOOLEAN",
                    comment="true = maxima summed over sub-containers",
                ),
                Column("sampled_cpu_usage", "DOUBLE", comment="normalised"),
            ),
            "Resource usage of each task per measurement window (~300 s)",
            partition_time="start_time",
            entities={"jobs": ("job_id",), "tasks": ("job_id", "task_index"), "machines": ("machine_id",)},
        ),
    )
}


# The trace's own BibTeX, as github.com/google/cluster-data's bibliography.bib gives it (its
# README asks users of the 2011 trace to cite both), and the analysis the google2011 reports
# reproduce.
BIBLIOGRAPHY = "https://github.com/google/cluster-data/blob/master/bibliography.bib"
PAPERS = (
    Paper(
        "clusterdata:Reiss2011",
        """@TechReport{clusterdata:Reiss2011,
  author = {Charles Reiss and John Wilkes and Joseph L. Hellerstein},
  title = {{Google} cluster-usage traces: format + schema},
  institution = {Google Inc.},
  year = 2011,
  month = Nov,
  type = {Technical Report},
  address = {Mountain View, CA, USA},
  note = {Revised 2014-11-17 for version 2.1. Posted at \\url{https://github.com/google/cluster-data}},
}""",
        BIBLIOGRAPHY,
        cite_with_trace=True,
    ),
    Paper(
        "clusterdata:Wilkes2011",
        """@Misc{clusterdata:Wilkes2011,
  author = {John Wilkes},
  title = {More {Google} cluster data},
  howpublished = {Google research blog},
  month = Nov,
  year = 2011,
  address = {Mountain View, CA, USA},
  note = {Posted at \\url{http://googleresearch.blogspot.com/2011/11/more-google-cluster-data.html}.},
}""",
        BIBLIOGRAPHY,
        cite_with_trace=True,
    ),
    # An arXiv preprint (cs.DC, August 2015), not a venue's paper.
    Paper(
        "zhu2015observations",
        """@Misc{zhu2015observations,
  author = {Yuqing Zhu and Yilei Wang and Fan Wang},
  title = {10 Observations on {Google} Cluster Trace + 2 Measures for Cluster Utilization Enhancement},
  year = 2015,
  month = Aug,
  eprint = {1508.02111},
  archivePrefix = {arXiv},
  primaryClass = {cs.DC},
  howpublished = {arXiv preprint arXiv:1508.02111},
  url = {https://arxiv.org/abs/1508.02111},
}""",
        "https://arxiv.org/abs/1508.02111",
    ),
)

SPEC = TraceSpec(
    name=NAME,
    title="Google clusterdata-2011-2",
    place=1,
    tables=TABLES,
    layout=Layout(
        pattern=re.compile(r"^part-(?P<part>\d{5})-of-\d{5}\.csv(\.gz)?$"),
        expected="<table>/part-NNNNN-of-MMMMM.csv.gz",
        table_folders=True,
    ),
    reader="csv",
    units_per_day=86_400_000_000,  # times are microseconds
    # traces.md "Time": t = 600 s is the trace start; 0 = before the window, 2^63-1 = after it
    trace_start=datetime(2011, 5, 1, 23, 0, tzinfo=timezone.utc),  # 19:00 America/New_York
    start_offset=600_000_000,
    after_window=2**63 - 1,
    time_zone="America/New_York",  # the cell's wall clock (traces.md section 1)
    checksum_file=CHECKSUM_FILE,
    remote=REMOTE,
    demo_reports=("lifecycle-counts",),
    inputs={
        "task_events": "task_events",
        "task_usage": "task_usage",
        "job_events": "job_events",
        "machine_events": "machine_events",
    },
    synth="tracewh.synth.google2011",
    papers=PAPERS,
    # "10 Observations on Google Cluster Trace" (zhu2015observations), over the whole trace
    published_counts={
        "events: SUBMIT": 48_375_166,
        "events: SCHEDULE": 47_331_507,
        "events: FINISH": 18_217_975,
        "new submissions (first SUBMIT of a task)": 25_424_731,
        "distinct tasks": 25_444_397,
        "tasks that finished": 18_217_749,
    },
)
