"""The driver of tests/test_spark_cluster.py, run in a process of its own against a standalone
master: ``python spark_cluster_driver.py MASTER HOME OUT``.

It ingests the bundled samples into HOME with the fanned-out conversion (one Spark task per file,
on the cluster's executors), runs two reports on Spark, and pickles into OUT what the test
compares and checks: the reports' rows, this driver's process ids, and the process ids of the
JVMs that ran the tasks (found by the tasks themselves, each from its own process's ancestry).
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from pathlib import Path

# (report, trace) pairs the test compares with DuckDB: a life-cycle report, and an Alibaba one whose
# Python step (the DAG walk) the ingest stored (derived.dag_paths): a plain aggregate on the executors.
REPORTS = (("task-times", "google2011"), ("ali-dag-timing", "alibaba2018"))
# (trace, the bundled sample's folder below data/sample)
SAMPLES = (("google2011", "google2011"), ("google2019", "google2019"), ("alibaba2018", "alibaba2018"))


def _stat(pid: int) -> tuple[str, int]:
    """(command name, parent pid) of a process, from /proc/PID/stat: ``pid (comm) state ppid ...``;
    comm may hold spaces, so the fields are split after its closing parenthesis."""
    with open(f"/proc/{pid}/stat") as fh:
        text = fh.read()
    return text[text.index("(") + 1 : text.rindex(")")], int(text[text.rindex(")") + 2 :].split()[1])


def task_jvm(_: object) -> tuple[int, int]:
    """(the pid of the JVM this Python worker serves: its nearest ``java`` ancestor, that JVM's
    parent pid)."""
    pid = os.getpid()
    while pid > 1:
        comm, parent = _stat(pid)
        if comm == "java":
            return pid, parent
        pid = parent
    raise RuntimeError("no JVM above this Python worker")


def main(master: str, home_dir: str, out: str, samples: str) -> None:
    from tracewh import ingestion, reports
    from tracewh.engines import spark as ws
    from tracewh.home import Home

    home = Home.resolve(home_dir)
    spark = ws.session(master, app_name="tracewh-cluster-test", home=home)
    try:
        sc = spark.sparkContext
        start = time.monotonic()
        for trace, folder in SAMPLES:
            ingestion.ingest(home, trace, Path(samples) / folder, spark=spark)
        seconds = {"ingest": time.monotonic() - start}
        rows = {}
        for name, trace in REPORTS:
            report = reports.get(name)
            ws.register(spark, home, only=report)  # what the report reads, as `report --engine spark`
            rows[name, trace] = reports.run(
                home, name, trace=trace, options=report.example_options, spark=spark
            )
            seconds[name] = time.monotonic() - start - sum(seconds.values())
        # one task per executor core and more: every executor runs some
        n = 4 * max(1, sc.defaultParallelism)
        tasks = sc.parallelize(range(n), n).map(task_jvm).collect()
        infos = sc._jsc.sc().statusTracker().getExecutorInfos()
        executors = sorted(f"{i.host()}:{i.port()}" for i in infos)
        result = {
            "rows": rows,
            "driver_pid": os.getpid(),
            "driver_jvm_pid": int(sc._jvm.java.lang.ProcessHandle.current().pid()),
            "task_jvms": sorted(set(tasks)),
            "executors": executors,
            "master": sc.master,
            "seconds": seconds,
        }
    finally:
        spark.stop()
    Path(out).write_bytes(pickle.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
