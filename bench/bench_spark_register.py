"""What registering the catalog in Spark costs, and what reports cost on Spark against DuckDB, on
one home (one Spark session).

Usage (from the project root; the home e.g. from ``tracewh --home /tmp/h29 demo`` or a synthetic
google2011 home, ``tracewh synth google2011 DIR --scale 0.01`` then ``tracewh ingest``):

    SPARK_DRIVER_MEMORY=2g .venv/bin/python -m bench.bench_spark_register --home /tmp/h29 \
        [--report task-times ...] [--trace google2011] [--master local[2]] [--all] [--duckdb] [--repeat 2] \
        [--small]

Prints one JSON line: wall seconds and CPU seconds of the whole process tree (this Python process,
the JVM and its Python workers, read from /proc) for the session start, ``register`` (what the
reports need, or every view with ``--all``) and each report on Spark (``<report>_spark_cpu_s``:
its first run, registration included; ``..._warm``: the runs after it, median;
``<report>_register_<i>_cpu_s`` and ``<report>_spark_run_<i>_cpu_s``: the two parts of run i); with
``--duckdb``, each report on DuckDB first (same process, before the JVM starts, median of
``--repeat`` runs; memory limit 3 GB), and the task events of the home, so that CPU per event can
be compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from bench.bench_spark import tree_usage


def cpu_now() -> float:
    import os

    return sum(tree_usage(os.getpid())[1].values())


def main(argv: list[str] | None = None) -> int:
    from tracewh import reports
    from tracewh.catalog import query
    from tracewh.engines import spark as ws
    from tracewh.home import Home

    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--report", action="append", help="a report to run (repeat; default task-times)")
    ap.add_argument("--trace", default="google2011")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--all", action="store_true", help="register every view (not only the reports')")
    ap.add_argument("--duckdb", action="store_true", help="run the reports on DuckDB too, first")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each report per engine")
    ap.add_argument("--small", action="store_true", help="the session sized for a small home (the suite's)")
    a = ap.parse_args(argv)
    names = a.report or ["task-times"]
    home = Home.resolve(a.home)
    out: dict[str, float | int | str] = {"reports": ",".join(names)}
    marks = [(time.perf_counter(), cpu_now())]

    def mark(name: str) -> tuple[float, float]:
        marks.append((time.perf_counter(), cpu_now()))
        wall, cpu = marks[-1][0] - marks[-2][0], marks[-1][1] - marks[-2][1]
        out[f"{name}_wall_s"] = round(wall, 2)
        out[f"{name}_cpu_s"] = round(cpu, 2)
        return wall, cpu

    if a.duckdb:
        with query.read_only(home) as con:
            out["task_events"] = con.execute(
                "SELECT count(*) FROM google2011_raw.task_events" if a.trace == "google2011" else "SELECT 0"
            ).fetchone()[0]
        mark("duckdb_start")
        for name in names:
            runs = []
            for _ in range(a.repeat):
                rows = reports.run(home, name, trace=a.trace, memory_limit="3GB")
                runs.append(mark(f"{name}_duckdb"))
            out[f"{name}_duckdb_cpu_s"] = round(statistics.median(c for _, c in runs), 2)
            out[f"{name}_duckdb_wall_s"] = round(statistics.median(w for w, _ in runs), 2)
            out[f"{name}_rows"] = len(rows.rows)
    spark = ws.session(a.master, home=home, small=a.small)
    mark("session")
    if a.all:
        out["views"] = len(ws.register(spark, home))
        mark("register")
    for name in names:
        runs = []
        for i in range(a.repeat):
            registered = (0.0, 0.0)
            if not a.all:
                ws.register(spark, home, only=reports.get(name))  # what `report --engine spark` does
                registered = mark(f"{name}_register_{i}")
            rows = reports.run(home, name, trace=a.trace, spark=spark)
            wall, cpu = mark(f"{name}_spark_run_{i}")
            runs.append((wall + registered[0], cpu + registered[1]))
        out[f"{name}_spark_cpu_s"], out[f"{name}_spark_wall_s"] = round(runs[0][1], 2), round(runs[0][0], 2)
        if len(runs) > 1:
            out[f"{name}_spark_warm_cpu_s"] = round(statistics.median(c for _, c in runs[1:]), 2)
            out[f"{name}_spark_warm_wall_s"] = round(statistics.median(w for w, _ in runs[1:]), 2)
        out[f"{name}_spark_rows"] = len(rows.rows)
    print(json.dumps(out), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
