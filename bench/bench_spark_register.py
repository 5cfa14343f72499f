"""What registering the catalog in Spark costs, beside one report, on one home (one session).

Usage (from the project root; the home e.g. from ``tracewh --home /tmp/h29 demo``):

    SPARK_DRIVER_MEMORY=2g .venv/bin/python -m bench.bench_spark_register --home /tmp/h29 \
        [--report task-times] [--trace google2011] [--master local[2]]

Prints one JSON line: wall seconds and CPU seconds of the whole process tree (this Python process,
the JVM and its Python workers, read from /proc) for the session start, ``register`` (what the
report needs, or every view with ``--all``) and the report, and the number of views registered.
"""

from __future__ import annotations

import argparse
import json
import time

from bench.bench_spark import tree_usage


def cpu_now() -> float:
    import os

    return sum(tree_usage(os.getpid())[1].values())


def main(argv: list[str] | None = None) -> int:
    from tracewh import reports
    from tracewh.engines import spark as ws
    from tracewh.home import Home

    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--report", default="task-times")
    ap.add_argument("--trace", default="google2011")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--all", action="store_true", help="register every view (not only the report's)")
    a = ap.parse_args(argv)
    home = Home.resolve(a.home)
    out: dict[str, float | int | str] = {"report": a.report}
    marks = [(time.perf_counter(), cpu_now())]

    def mark(name: str) -> None:
        marks.append((time.perf_counter(), cpu_now()))
        out[f"{name}_wall_s"] = round(marks[-1][0] - marks[-2][0], 2)
        out[f"{name}_cpu_s"] = round(marks[-1][1] - marks[-2][1], 2)

    spark = ws.session(a.master, home=home)
    mark("session")
    kwargs = {} if a.all else {"only": reports.get(a.report)}
    views = ws.register(spark, home, **kwargs)
    out["views"] = len(views)
    mark("register")
    rows = reports.run(home, a.report, trace=a.trace, spark=spark)
    out["rows"] = len(rows.rows)
    mark("report")
    print(json.dumps(out), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
