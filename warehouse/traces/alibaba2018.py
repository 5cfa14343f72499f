"""Alibaba cluster-trace-v2018: the six tables, their columns, and where their files may come from.

This module is the one place that knows the 2018 layout: each table is one headerless
``<table>.csv``, given as the official ``<table>.tar.gz`` archive (read as a stream, never
extracted to disk), as the extracted ``<table>.csv``, or gzip'd (``<table>.csv.gz``); and the
official sha256 digests of the archives. Column order is the corrected official one (the first
README had another). Times are seconds since the trace start; the semantics (invalid -1/101
values, DAG task names) live in ``sql/alibaba2018/``.
"""

from __future__ import annotations

import re

from tracewh.traces import Column, Layout, Paper, Published, Remote, Stated, Table, TraceSpec

NAME = "alibaba2018"

# The trace's own README states the archives' digests and sizes (traces.md section 3 quotes it).
TRACE_README = "https://github.com/alibaba/clusterdata/blob/master/cluster-trace-v2018/trace_2018.md"

# sha256 of the official archives, as TRACE_README's `sha256sum *` states them
OFFICIAL_SHA256 = {
    "batch_instance.tar.gz": "e73e5a9326669aa079ba20048ddd759383cabe1fe3e58620aa75bd034e2450c6",
    "batch_task.tar.gz": "7c4b32361bd1ec2083647a8f52a6854a03bc125ca5c202652316c499fbf978c6",
    "container_meta.tar.gz": "febd75e693d1f208a8941395e7faa7e466e50d21c256eff12a815b7e2fa2053f",
    "container_usage.tar.gz": "b4bd3b1b82f5407c1b0dd47fe736ff5152c4b016a9c30cb26f988e2d1c5e5031",
    "machine_meta.tar.gz": "b5b1b786b22cd413a3674b8f2ebfb2f02fac991c95df537f363ef2797c8f6d55",
    "machine_usage.tar.gz": "3e6ee87fd204bb85b9e234c5c75a5096580fdabc8f085b224033080090753a7a",
}

# The six official archives on Alibaba's OSS (plain HTTP there; the digests above guard them).
REMOTE = Remote(
    base="http://aliopentrace.oss-cn-beijing.aliyuncs.com",
    root="v2018Traces",
    listing="fixed",
    suffix=".tar.gz",
    sha256=OFFICIAL_SHA256,
    published=Published(
        total=Stated("about 48GB in .tar.gz format and 280GB after extraction", TRACE_README),
        # `ls -sh1` in TRACE_README: the six archives are the trace (its single-file form,
        # alibaba_clusterdata_v2018.tar.gz, 49G, holds the same tables and is not downloaded).
        sizes={
            "batch_instance.tar.gz": "20G",
            "batch_task.tar.gz": "125M",
            "container_meta.tar.gz": "2.4M",
            "container_usage.tar.gz": "28G",
            "machine_meta.tar.gz": "92K",
            "machine_usage.tar.gz": "1.7G",
        },
        sizes_source=TRACE_README,
        size_note="`ls -sh1`: disk blocks, rounded up to the unit shown; the host gives exact bytes",
    ),
)

_T = "seconds since the trace start (0 can mean unknown)"
_PCT = "percent 0..100; -1 and 101 mark invalid values (NULL in the view, raw value in <name>_raw)"


def _time(name: str, comment: str = _T) -> Column:
    return Column(name, "BIGINT", comment=comment, is_time=True)


def _pct(name: str) -> Column:
    return Column(name, "DOUBLE", comment=_PCT)


TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "machine_meta",
            (
                Column("machine_id", "VARCHAR", mandatory=True),
                _time("time_stamp"),
                Column("failure_domain_1", "BIGINT", comment="first failure domain (integer)"),
                Column(
                    "failure_domain_2", "VARCHAR", comment="documented as string; holds integers or empty"
                ),
                Column("cpu_num", "INTEGER", comment="cores (96 in every real row)"),
                Column("mem_size", "DOUBLE", comment="normalised memory (100 in every real row)"),
                Column("status", "VARCHAR", comment="USING | IMPORT_INSTALLING | ..."),
            ),
            "Machine descriptions and status changes",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "machine_usage",
            (
                Column("machine_id", "VARCHAR", mandatory=True),
                _time("time_stamp"),
                _pct("cpu_util_percent"),
                _pct("mem_util_percent"),
                Column("mem_gps", "DOUBLE", comment="memory bandwidth (normalised); empty in most rows"),
                Column(
                    "mkpi", "DOUBLE", comment="cache misses per thousand instructions; empty in most rows"
                ),
                _pct("net_in"),
                _pct("net_out"),
                _pct("disk_io_percent"),
            ),
            "Machine utilisation samples (irregular intervals)",
            partition_time="time_stamp",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "container_meta",
            (
                Column("container_id", "VARCHAR", mandatory=True),
                Column("machine_id", "VARCHAR"),
                _time("time_stamp"),
                Column("app_du", "VARCHAR", comment="application deployment unit (a service)"),
                Column("status", "VARCHAR", comment="e.g. started, allocated"),
                Column("cpu_request", "DOUBLE", comment="100 = 1 core"),
                Column("cpu_limit", "DOUBLE", comment="100 = 1 core"),
                Column("mem_size", "DOUBLE", comment="normalised memory"),
            ),
            "Online containers (Sigma): placement, app and requests",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "container_usage",
            (
                Column("container_id", "VARCHAR", mandatory=True),
                Column("machine_id", "VARCHAR"),
                _time("time_stamp"),
                _pct("cpu_util_percent"),
                _pct("mem_util_percent"),
                Column("cpi", "DOUBLE", comment="cycles per instruction"),
                Column("mem_gps", "DOUBLE", comment="memory bandwidth (normalised)"),
                Column("mpki", "DOUBLE", comment="cache misses per thousand instructions"),
                _pct("net_in"),
                _pct("net_out"),
                _pct("disk_io_percent"),
            ),
            "Online container utilisation samples",
            partition_time="time_stamp",
            entities={"machines": ("machine_id",)},
        ),
        Table(
            "batch_task",
            (
                Column(
                    "task_name",
                    "VARCHAR",
                    mandatory=True,
                    comment="DAG name: see alibaba2018.parse_task_name",
                ),
                Column("instance_num", "BIGINT", comment="instances of the task"),
                Column("job_name", "VARCHAR", mandatory=True),
                Column("task_type", "VARCHAR"),
                Column("status", "VARCHAR", comment="Terminated | Failed | Running | Waiting | ..."),
                _time("start_time"),
                _time("end_time", "seconds since the trace start; 0 = unknown; may precede start_time"),
                Column("plan_cpu", "DOUBLE", comment="per instance, 100 = 1 core"),
                Column("plan_mem", "DOUBLE", comment="per instance, normalised memory"),
            ),
            "Batch tasks (Fuxi): one row per task of a job, its DAG position in the name",
            entities={"jobs": ("job_name",), "tasks": ("job_name", "task_name")},
            published_rows=14_295_731,
        ),
        Table(
            "batch_instance",
            (
                Column("instance_name", "VARCHAR", mandatory=True),
                Column("task_name", "VARCHAR", mandatory=True),
                Column("job_name", "VARCHAR", mandatory=True),
                Column("task_type", "VARCHAR"),
                Column("status", "VARCHAR"),
                _time("start_time"),
                _time("end_time", "seconds since the trace start; 0 = unknown; may precede start_time"),
                Column("machine_id", "VARCHAR"),
                Column("seq_no", "BIGINT", comment="attempt number of the instance"),
                Column("total_seq_no", "BIGINT", comment="attempts in all"),
                Column("cpu_avg", "DOUBLE", comment="100 = 1 core"),
                Column("cpu_max", "DOUBLE", comment="100 = 1 core"),
                Column("mem_avg", "DOUBLE", comment="normalised memory"),
                Column("mem_max", "DOUBLE", comment="normalised memory"),
            ),
            "Batch instances: one row per instance attempt of a task",
            partition_time="start_time",
            entities={"jobs": ("job_name",), "tasks": ("job_name", "task_name"), "machines": ("machine_id",)},
            published_rows=1_351_255_775,
        ),
    )
}


# The paper the trace's publishers list first for cluster-trace-v2018 (the README of
# github.com/alibaba/clusterdata: its authors are the trace's team, its DOI the ACM link there),
# the trace itself, then the co-location analysis the alibaba2018 reports reproduce.
PAPERS = (
    Paper(
        "guo2019limits",
        """@InProceedings{guo2019limits,
  author = {Jing Guo and Zihao Chang and Sa Wang and Haiyang Ding and Yihui Feng and Liang Mao
            and Yungang Bao},
  title = {Who Limits the Resource Efficiency of My Datacenter: An Analysis of {Alibaba} Datacenter Traces},
  booktitle = {Proceedings of the IEEE/ACM International Symposium on Quality of Service (IWQoS '19)},
  year = 2019,
  month = Jun,
  publisher = {ACM},
  doi = {10.1145/3326285.3329074},
}""",
        "https://doi.org/10.1145/3326285.3329074, as listed in https://github.com/alibaba/clusterdata",
        cite_with_trace=True,
    ),
    Paper(
        "alibaba:clusterdata2018",
        """@Misc{alibaba:clusterdata2018,
  author = {{Alibaba Group}},
  title = {{Alibaba} Cluster Trace Program: cluster-trace-v2018},
  year = 2018,
  howpublished = {\\url{https://github.com/alibaba/clusterdata/tree/master/cluster-trace-v2018}},
}""",
        TRACE_README,
        cite_with_trace=True,
    ),
    # No DOI or publisher's page was found: the entry follows the paper's own header (its authors,
    # and the journal and issue: 計算機工程與科學 2020年1期) in the copy the reports were built from.
    Paper(
        "wang2020colocation",
        """@Article{wang2020colocation,
  author = {Wang, Jiwei and Ge, Zhefeng and Jiang, Congfeng and Zhang, Jilin and Yu, Jun
            and Lin, Jiangbin and Yan, Longchuan and Ren, Zujie and Wan, Jian},
  title = {Workload characteristics of a co-located data center and its task scheduling optimization},
  journal = {Computer Engineering \\& Science},
  year = 2020,
  number = 1,
  note = {In Chinese; title translated},
}""",
        "no DOI or publisher's page found; the paper's own header (journal, 2020, issue 1)",
    ),
)

SPEC = TraceSpec(
    name=NAME,
    title="Alibaba cluster-trace-v2018",
    place=3,
    tables=TABLES,
    layout=Layout(
        # one file per table: no parts, no gaps
        pattern=re.compile(r"^(?P<table>[a-z_]+)\.(?P<ext>tar\.gz|csv\.gz|csv)$"),
        expected="<table>.tar.gz, <table>.csv or <table>.csv.gz",
        one_file_per_table=True,
    ),
    reader="csv",  # the official archives are read as a stream
    units_per_day=86_400,  # times are seconds
    official_sha256=OFFICIAL_SHA256,  # extracted or re-compressed files have none
    remote=REMOTE,
    demo_reports=("ali-dag-timing",),
    # no life-cycle layer; compare reads its batch tasks and machine list (alibaba2018.headline)
    inputs={"task_events": "batch_task", "machine_events": "machine_meta"},
    synth="tracewh.synth.alibaba2018",
    papers=PAPERS,
)
