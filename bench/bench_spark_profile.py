"""Where a report's CPU goes on Spark: per run in one session, the CPU of the JVM's threads by kind
(executor tasks, the C1 and C2 JIT compilers, the garbage collector, the driver's py4j threads
that plan) and each Spark stage's executor CPU and bytes read, shuffled and written.

Usage (from the project root; the home e.g. a synthetic google2011 home, see bench_spark_register):

    SPARK_DRIVER_MEMORY=4g .venv/bin/python -m bench.bench_spark_profile --home H \
        [--report task-times ...] [--trace google2011] [--runs 3] [--conf key=value ...]

Prints one JSON line per run (``cpu``: the whole process tree's CPU seconds, registration
included; ``register_cpu``; ``threads``: CPU seconds by thread kind) and, under it, one line per
stage of that run with at least 0.2 s of executor CPU (every stage of the last run). ``--conf``
adds a setting to the session tracewh starts (e.g. ``spark.driver.extraJavaOptions=...``), to
compare settings that apply when the JVM starts, one session each.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.bench_spark_register import cpu_now


def thread_cpu(pid: int) -> Counter[str]:
    """CPU seconds so far of a process's threads, summed by kind (from the thread names)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: Counter[str] = Counter()
    for t in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (t / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[_kind(name)] += (int(fields[11]) + int(fields[12])) / tick
    return out


def _kind(name: str) -> str:
    if name.startswith("Executor task"):
        return "executor"
    if name.startswith(("C1", "C2")):
        return name[:2]
    if "GC" in name or name.startswith("G1"):
        return "gc"
    if "py4j" in name or name.startswith("Thread-"):
        return "py4j"
    return "other"


def stages(spark: Any) -> dict[tuple[int, int], tuple]:
    """Every stage the session's status store holds: (id, attempt) -> (name, executor CPU s,
    executor run s, input bytes, shuffle read bytes, shuffle write bytes, tasks)."""
    gw = spark.sparkContext._gateway
    listed = (
        spark.sparkContext._jsc.sc()
        .statusStore()
        .stageList(None, False, False, gw.new_array(gw.jvm.double, 0), None)
    )
    out = {}
    for i in range(listed.size()):
        s = listed.apply(i)
        out[(s.stageId(), s.attemptId())] = (
            s.name()[:50],
            s.executorCpuTime() / 1e9,
            s.executorRunTime() / 1e3,
            s.inputBytes(),
            s.shuffleReadBytes(),
            s.shuffleWriteBytes(),
            s.numTasks(),
        )
    return out


def main(argv: list[str] | None = None) -> int:
    from tracewh import reports
    from tracewh.engines import spark as ws
    from tracewh.home import Home

    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument(
        "--report", action="append", help="a report to run (repeat; default the three of the Spark target)"
    )
    ap.add_argument("--trace", default="google2011")
    ap.add_argument("--runs", type=int, default=3, help="runs of each report in the session")
    ap.add_argument("--conf", action="append", default=[], help="key=value: a setting of the session")
    a = ap.parse_args(argv)
    home = Home.resolve(a.home)
    # every stage of a run kept (the sessions tracewh starts keep 50, fewer than one task-times run has)
    ws.OWN_SESSION_CONF.update({"spark.ui.retainedStages": "2000", "spark.ui.retainedJobs": "2000"})
    ws.OWN_SESSION_CONF.update(dict(c.split("=", 1) for c in a.conf))
    spark = ws.session("local[2]", home=home)
    jvm = spark.sparkContext._gateway.proc.pid
    for name in a.report or ["task-times", "priority-share", "queue"]:
        for i in range(a.runs):
            t0, c0, th0, st0 = time.perf_counter(), cpu_now(), thread_cpu(jvm), stages(spark)
            ws.register(spark, home, only=reports.get(name))
            c1 = cpu_now()
            rows = reports.run(home, name, trace=a.trace, spark=spark)
            t1, c2, th1, st1 = time.perf_counter(), cpu_now(), thread_cpu(jvm), stages(spark)
            threads = {k: round(v - th0[k], 2) for k, v in th1.items() if v - th0[k] >= 0.05}
            run = {"report": name, "run": i, "wall": round(t1 - t0, 2), "cpu": round(c2 - c0, 2)}
            run |= {"register_cpu": round(c1 - c0, 2), "rows": len(rows.rows), "threads": threads}
            print(json.dumps(run), flush=True)
            for key, s in sorted(st1.items()):
                if key not in st0 and (s[1] >= 0.2 or i == a.runs - 1):
                    print(
                        f"  stage {key[0]} {s[0]}: cpu {s[1]:.2f} run {s[2]:.2f} input {s[3]} "
                        f"shuffle read {s[4]} write {s[5]} tasks {s[6]}",
                        flush=True,
                    )
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
