"""What the Spark parity of tests/test_spark.py costs, view by view and report by report, on one
home (one Spark session, the test session's settings: ``session(small=True)``).

Usage (from the project root; the home e.g. from ``tracewh --home /tmp/h29p-s demo``):

    SPARK_DRIVER_MEMORY=4g .venv/bin/python -m bench.bench_spark_parity --home /tmp/h29p-s

Prints one line per phase (session start, ``register`` of every view, then each view's
``SELECT *`` and each report run of the parity, one at a time, no cache) with its wall and the CPU
seconds of the whole process tree (this Python process, the JVM and its Python workers, read from
/proc), then the totals of the items tests/test_spark.py lists as heavy (``make test-spark``) and of
the others (``make test``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench.bench_spark_register import cpu_now


def main(argv: list[str] | None = None) -> int:
    from tracewh import reports
    from tracewh.engines import spark as ws
    from tracewh.home import Home

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import test_spark as t

    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    a = ap.parse_args(argv)
    home = Home.resolve(a.home)
    totals = {"heavy": 0.0, "light": 0.0}
    last = [time.perf_counter(), cpu_now()]

    def mark(what: str) -> float:
        now = [time.perf_counter(), cpu_now()]
        wall, cpu = now[0] - last[0], now[1] - last[1]
        last[:] = now
        print(f"{what:60s} wall {wall:7.2f} cpu {cpu:7.2f}", flush=True)
        return cpu

    spark = ws.session("local[2]", app_name="bench-parity", home=home, small=True)
    mark("session")
    ws.register(spark, home)
    mark("register (every view)")
    for view in t.VIEWS:
        ws.fetch(spark, f"SELECT * FROM {view}")
        totals["heavy" if view in t.HEAVY_VIEWS else "light"] += mark(f"view {view}")
    for name, trace in t.REPORT_RUNS:
        reports.run(home, name, trace=trace, options=reports.get(name).example_options, spark=spark)
        heavy = (name, trace) in t.HEAVY_REPORTS
        totals["heavy" if heavy else "light"] += mark(f"report {name} {trace or ''}")
    print({k: round(v, 1) for k, v in totals.items()}, flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
