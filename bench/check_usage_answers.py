"""Spot checks of the task_usage reports of bench_wholetrace.py against DuckDB on the Parquet files.

Reads the task_usage and task_events Parquet files of a home directly (not through tracewh's views)
and compares them with the report csv files that ``bench_wholetrace.py --save DIR`` kept: the
usage windows, CPU and memory hours of tier-usage and cpu-by-runtime, the five-minute windows of
utilization-change; and prints the usage-richest task with its last task_events priority.

    .venv/bin/python -m bench.check_usage_answers /work/bigdata/tu50 20-49 /work/bigdata/tu_out
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import duckdb

FOREVER = 9223372036854775807  # google2011's after-window time


def rows(out: Path, key: str, report: str) -> list[dict]:
    p = out / f"{key}.{report}.csv"
    return list(csv.DictReader(p.open())) if p.is_file() else []


def main(argv: list[str]) -> int:
    home, key, out = Path(argv[0]), argv[1], Path(argv[2])
    cat = duckdb.connect(str(home / "tracewh.duckdb"), read_only=True)
    q = "SELECT table_name, data_dir FROM meta.tables WHERE trace = 'google2011'"
    dirs = dict(cat.execute(q).fetchall())
    cat.close()
    con = duckdb.connect(config={"memory_limit": "4GB"})
    tu = f"read_parquet('{home / dirs['task_usage']}/**/*.parquet')"
    te = f"read_parquet('{home / dirs['task_events']}/**/*.parquet')"
    n_all, n, cpu_h, mem_h, w300 = con.execute(f"""
        SELECT count(*), count(*) FILTER (ok),
               sum(cpu_rate * (end_time - start_time) / 1e6) FILTER (ok) / 3600,
               sum(canonical_memory_usage * (end_time - start_time) / 1e6) FILTER (ok) / 3600,
               count(DISTINCT start_time // 300000000) FILTER (ok)
        FROM (SELECT *, start_time > 0 AND start_time < {FOREVER} AND end_time > 0
                        AND end_time < {FOREVER} AS ok FROM {tu})""").fetchone()
    print(
        f"{key}: parquet task_usage rows {n_all:,}, both times in the window {n:,}; "
        f"cpu core-h {cpu_h:,.3f}; memory h {mem_h:,.3f}; 300-s windows {w300:,}"
    )
    t = rows(out, key, "tier-usage")
    if t:
        tw = sum(int(r["windows"]) for r in t)
        tc = sum(float(r["cpu_used"]) for r in t)
        tm = sum(float(r["memory_used"]) for r in t)
        by: dict[str, float] = {}
        for r in t:
            by[r["tier"]] = by.get(r["tier"], 0) + float(r["cpu_used"])
        print(
            f"  tier-usage: {len(t)} rows; windows {tw:,} ({'same' if tw == n else 'DIFFERENT'}); "
            f"cpu_used {tc:,.3f} (rel diff {abs(tc - cpu_h) / cpu_h:.1e}); memory_used {tm:,.3f} "
            f"(rel diff {abs(tm - mem_h) / mem_h:.1e}); cpu by tier "
            + ", ".join(f"{k} {v / tc:.1%}" for k, v in sorted(by.items()))
        )
    c = rows(out, key, "cpu-by-runtime")
    if c:
        sec = [r for r in c if r["section"] == "by execution time"]
        cc = sum(float(r["cpu_core_hours"]) for r in sec)
        share = sum(float(r["cpu_share"]) for r in sec)
        print(
            f"  cpu-by-runtime: {len(c)} rows; by execution time {cc:,.3f} core-h "
            f"(rel diff {abs(cc - cpu_h) / cpu_h:.1e}), share sum {share:.3f}"
        )
        for r in c:
            if r["section"] != "by execution time":
                print(f"    {r['class']}: {r['cpu_share']} of the cpu, {r['attempts']} attempts")
    u = rows(out, key, "utilization-change")
    for r in u:
        print(f"  utilization-change {r['resource']}: {r['windows']} windows (parquet {w300:,})")
    for name in ("machines", "job-size"):
        print(f"  {name}: {len(rows(out, key, name))} rows")
    j, i, ch = con.execute(f"""
        SELECT job_id, task_index, sum(cpu_rate * (end_time - start_time) / 1e6) / 3600 AS ch FROM {tu}
        WHERE start_time > 0 AND end_time < {FOREVER} GROUP BY ALL ORDER BY ch DESC LIMIT 1""").fetchone()
    pr = con.execute(
        f"SELECT priority FROM {te} WHERE job_id = {j} AND task_index = {i} "
        "ORDER BY time DESC, seq DESC LIMIT 1"
    ).fetchone()
    print(f"  usage-richest task: job {j} task {i}, {ch:.3f} core-h; last task_events priority {pr}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
