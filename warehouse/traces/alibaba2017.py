"""Alibaba cluster-trace-v2017: the six tables, their columns, and the one archive holding them.

This module is the one place that knows the 2017 layout, from the trace's own documents
(TRACE_DOC, SCHEMA; their text was read at commit 7a6c496e of github.com/alibaba/clusterdata):
six headerless CSV tables (``server_event.csv``, ``server_usage.csv``, ``batch_task.csv``,
``batch_instance.csv``, ``container_event.csv``, ``container_usage.csv``) published together in
one archive, read as members of it (streamed, never extracted). Columns in schema.csv order, ids
integers, times seconds relative to the trace start: 0 and negative times mean "before the trace
period". The semantics live in ``sql/alibaba2017/``.
"""

from __future__ import annotations

import re

from tracewh.traces import Column, Layout, Paper, Published, Remote, Stated, Table, TraceSpec

NAME = "alibaba2017"

_TREE = "https://github.com/alibaba/clusterdata/blob/master/cluster-trace-v2017"
TRACE_DOC = f"{_TREE}/trace_201708.md"  # the tables, fields, time rules and known issues
SCHEMA = f"{_TREE}/schema.csv"  # "the definitive specification": field order, types, mandatory
README = f"{_TREE}/README2017.md"  # the download command and the checksum file

# README2017's download command fetches this file; the trace's SHA256SUM names another,
# ``trace_201708.tgz`` (the archive's name when it was first published). Both names are accepted
# on disk; the digest is attached to the name SHA256SUM gives, never guessed onto the other one.
ARCHIVE = "alibaba-trace-2017.tar.gz"
SHA256SUM = {"trace_201708.tgz": "02c1fbc412fccc03b748c05ec18fc30fd93c0bc383eea47ac21146c4aa2235df"}

REMOTE = Remote(
    base="http://aliopentrace.oss-cn-beijing.aliyuncs.com",
    root="v2017Traces",
    listing="archive",
    archive=ARCHIVE,
    published=Published(
        # README2017 gives the span and the machines, no size of the archive or of its tables
        total=Stated("no size stated (the trace: about 1.3k machines, 12 to 24 hours)", README),
    ),
)

_T = "seconds since the trace start; 0 and negative = before the trace period"


def _time(name: str, comment: str = _T, mandatory: bool = True) -> Column:
    return Column(name, "BIGINT", mandatory=mandatory, comment=comment, is_time=True)


def _id(name: str, comment: str = "", mandatory: bool = True) -> Column:
    return Column(name, "BIGINT", mandatory=mandatory, comment=comment)


def _num(name: str, comment: str = "", mandatory: bool = True) -> Column:
    return Column(name, "DOUBLE", mandatory=mandatory, comment=comment)


_LOADS = (
    _num("load1", "linux cpu load average of 1 minute"),
    _num("load5", "linux cpu load average of 5 minutes"),
    _num("load15", "linux cpu load average of 15 minutes"),
)

# The tables in schema.csv order of fields; mandatory = its "mandatory" column, except where a
# known issue of TRACE_DOC says real rows lack the field (those stay, with NULL).
TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "server_event",
            (
                _time("timestamp", _T + "; every machine's add event is at 0"),
                _id("machine_id"),
                Column("event_type", "VARCHAR", mandatory=True, comment="add | softerror | harderror"),
                Column("event_detail", "VARCHAR", comment="the reason of an error event"),
                _num("cpus", "cores (not normalised)", mandatory=False),
                _num("memory", "normalised memory capacity", mandatory=False),
                _num("disk", "normalised disk capacity", mandatory=False),
            ),
            "Machine events: added (at 0), soft and hard errors, with capacities",
            entities={"machines": ("machine_id",)},
            member="server_event.csv",
        ),
        Table(
            "server_usage",
            (
                _time("timestamp"),
                _id("machine_id"),
                _num("cpu_util", "percent of the machine's cpus used, operating system included"),
                _num("mem_util", "percent of memory used"),
                _num("disk_util", "percent of disk space used"),
                *_LOADS,
            ),
            "Machine utilisation: 300-second averages taken every 60 seconds",
            entities={"machines": ("machine_id",)},
            member="server_usage.csv",
        ),
        Table(
            "batch_task",
            (
                _time("create_timestamp", "the task's create time; " + _T),
                _time("modify_timestamp", "the task's latest state change (schema.csv: its end time); " + _T),
                _id("job_id"),
                _id("task_id", "unique within its job"),
                Column("instance_num", "BIGINT", mandatory=True, comment="instances of the task"),
                Column(
                    "status",
                    "VARCHAR",
                    mandatory=True,
                    comment="Ready | Waiting | Running | Terminated | Failed | Cancelled",
                ),
                _num("plan_cpu", "cpus requested per instance (schema.csv: an integer)"),
                _num("plan_mem", "normalised memory requested per instance"),
            ),
            "Batch tasks: one row per task of a job (jobs themselves are not in the trace)",
            entities={"jobs": ("job_id",), "tasks": ("job_id", "task_id")},
            member="batch_task.csv",
        ),
        Table(
            "batch_instance",
            (
                _time("start_timestamp", "the instance's start if started, else 0; " + _T),
                _time("end_timestamp", "the instance's end if ended, else 0", mandatory=False),
                # known issue: some rows lack the job and task ids (mostly starts in [60K, 89K[)
                _id("job_id", "empty in some rows (a known issue of the trace)", mandatory=False),
                _id("task_id", "empty in some rows (a known issue of the trace)", mandatory=False),
                _id("machine_id", "the machine running the instance"),
                Column(
                    "status",
                    "VARCHAR",
                    mandatory=True,
                    comment="Ready | Waiting | Running | Terminated | Failed | Cancelled | Interupted",
                ),
                Column("seq_no", "BIGINT", mandatory=True, comment="the try, from 1"),
                Column("total_seq_no", "BIGINT", mandatory=True, comment="tries in all"),
                # known issue: some usage values are missing
                _num("real_cpu_max", "maximum cpus used", mandatory=False),
                _num("real_cpu_avg", "average cpus used", mandatory=False),
                _num("real_mem_max", "maximum normalised memory used", mandatory=False),
                _num("real_mem_avg", "average normalised memory used", mandatory=False),
            ),
            "Batch instances: one row per try of an instance",
            entities={"jobs": ("job_id",), "tasks": ("job_id", "task_id"), "machines": ("machine_id",)},
            member="batch_instance.csv",
        ),
        Table(
            "container_event",
            (
                _time("ts", "when the event finished; 0 = the container was created before the trace"),
                Column("event", "VARCHAR", mandatory=True, comment="Create | Remove"),
                _id("instance_id", "the online instance (container)"),
                _id("machine_id"),
                _num("plan_cpu", "cpus requested (schema.csv: an integer)"),
                _num("plan_mem", "normalised memory requested"),
                _num("plan_disk", "normalised disk space requested"),
                Column("cpuset", "VARCHAR", mandatory=True, comment="the cpus assigned, '|'-separated"),
            ),
            "Online service instances (containers): creations and removals",
            entities={"machines": ("machine_id",)},
            member="container_event.csv",
        ),
        Table(
            "container_usage",
            (
                _time("ts", "start of the measurement interval; " + _T),
                _id("instance_id", "the online instance; some are not in container_event (known issue)"),
                _num("cpu_util", "percent of the requested cpus used"),
                _num("mem_util", "percent of the requested memory used"),
                _num("disk_util", "percent of the requested disk space used", mandatory=False),
                *_LOADS,
                _num("avg_cpi", "average cycles per instruction", mandatory=False),
                _num("avg_mpki", "average last-level cache misses per 1000 instructions", mandatory=False),
                _num("max_cpi", "maximum cycles per instruction", mandatory=False),
                _num("max_mpki", "maximum last-level cache misses per 1000 instructions", mandatory=False),
            ),
            "Online instance utilisation samples",
            member="container_usage.csv",
        ),
    )
}

MEMBERS = tuple(str(t.member) for t in TABLES.values())

PAPERS = (
    Paper(
        "alibaba:clusterdata2017",
        """@Misc{alibaba:clusterdata2017,
  author = {{Alibaba Group}},
  title = {{Alibaba} Cluster Trace Program: cluster-trace-v2017},
  year = 2017,
  howpublished = {\\url{https://github.com/alibaba/clusterdata/tree/master/cluster-trace-v2017}},
}""",
        README,
        cite_with_trace=True,
    ),
)

SPEC = TraceSpec(
    name=NAME,
    title="Alibaba cluster-trace-v2017",
    place=4,
    tables=TABLES,
    layout=Layout(
        pattern=re.compile(r"^(alibaba-trace-2017\.tar\.gz|trace_201708\.tgz)$"),
        expected=f"{ARCHIVE} (or trace_201708.tgz) holding {', '.join(MEMBERS)}",
        holds_every_table=True,
        one_file_per_table=True,  # both names in one folder: the same tables twice
    ),
    reader="csv",
    units_per_day=86_400,  # times are seconds
    official_sha256=SHA256SUM,
    remote=REMOTE,
    negative_times=True,  # TRACE_DOC: negative timestamps "indicate the events happen before the start"
    inputs={"task_events": "batch_task", "machine_events": "server_event"},
    synth="tracewh.synth.alibaba2017",
    papers=PAPERS,
)
