"""google2011 reports beside two bare-DuckDB floors on the same task_events Parquet, same run.

Issue 13 asks every whole-trace figure to stand next to a baseline measured in the same run. For
the life-cycle reports the baselines are two single queries straight on the home's task_events
Parquet (no tracewh view, the same memory limit as the reports):

- *usage scan floor* (homes with task_usage): one pass over the task_usage columns its readers
  use (``count(*), sum(hash(job_id, task_index, start_time, end_time, cpu_rate,
  canonical_memory_usage, machine_id))``);
- *scan floor*: one pass over the columns the life-cycle reports read
  (``count(*), sum(hash(job_id, task_index, time, seq, event_type, machine_id))``);
- *sort floor*: the ordering of every task's events by time that ``lifecycle.task_episodes`` and
  ``lifecycle.task_transitions`` need, keys only
  (``row_number() OVER (PARTITION BY job_id, task_index ORDER BY time, seq)``, summed). The views
  carry more columns through their windows (the episodes view some 17, and a join and a GROUP
  BY after), so this is a lower bound on their sort, not their cost.

Beside them, tracewh's ``lifecycle.task_episodes`` view alone (``count(*), sum(observed_run_s)``
through ``tracewh sql``): what materialising the episodes at ingest would take off a report that
reads them. A report near the scan floor is bound by reading; the rest of a report's CPU is its
own work. Each row is one run under /usr/bin/time (wall, CPU s of the process tree, peak RSS), as
bench_wholetrace.py.

    .venv/bin/python -m bench.bench_report_floors HOME [HOME ...] --reports lifecycle-counts queue task-times
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench import harness as h
from tracewh.home import Home


def glob_of(home: Home, table: str) -> str:
    """Every Parquet file of a google2011 table's live data (the home's own path rule)."""
    return str(home.table_link("google2011", table) / "**" / "*.parquet")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("homes", nargs="+", type=Path, help="tracewh homes holding google2011 task_events")
    ap.add_argument("--reports", nargs="+", default=["lifecycle-counts", "queue", "task-times"])
    ap.add_argument("--memory-limit", default="4GB", help="for the floors and the reports alike")
    ap.add_argument("--save", type=Path, help="write the figures as JSON here too")
    a = ap.parse_args(argv)

    results = []
    for home in map(Home.resolve, a.homes):
        events = h.catalog_task_events(home.root)
        h.banner(f"{home.root}: {events:,} task events")
        row: dict = {"home": str(home.root), "events": events, "runs": {}}
        usage = home.table_link("google2011", "task_usage").is_dir()
        for kind in ("usage scan", "scan", "sort") if usage else ("scan", "sort"):
            source = "task_usage" if kind == "usage scan" else "task_events"
            run, out, _ = h.measure(
                f"{kind} floor",
                h.probe("report_floor", glob_of(home, source), a.memory_limit, kind, str(home.tmp)),
            )
            run.extra = h.last_json(out) or {}
            if run.ok and kind != "usage scan" and run.extra.get("rows") != events:
                run.ok, run.note = False, f"read {run.extra.get('rows')} rows, not {events}"
            row["runs"][f"{kind} floor"] = run.__dict__
        run, _, _ = h.measure(
            "episodes view",
            [
                "env",
                f"TRACEWH_MEMORY_LIMIT={a.memory_limit}",
                str(h.TRACEWH),
                "--home",
                str(home.root),
                "sql",
                "SELECT count(*), sum(observed_run_s) FROM lifecycle.task_episodes",
                "--format",
                "csv",
            ],
        )
        row["runs"]["episodes view"] = run.__dict__
        for name in a.reports:
            run, _, _ = h.measure(
                name,
                [
                    str(h.TRACEWH),
                    "--home",
                    str(home.root),
                    "report",
                    name,
                    "--memory-limit",
                    a.memory_limit,
                    "--format",
                    "csv",
                ],
                stdout_devnull=True,
            )
            row["runs"][name] = run.__dict__
        results.append(row)
        if a.save:
            a.save.write_text(json.dumps({"machine": h.machine_info(), "results": results}, indent=1))
    print(table(results))
    return 0


def table(results: list[dict]) -> str:
    lines = [
        "| task events | run | wall s | CPU s | peak RSS MiB | CPU / sort floor | others (cores) |",
        "|--:|---|--:|--:|--:|--:|--:|",
    ]
    for row in results:
        sort_cpu = row["runs"]["sort floor"]["cpu_s"]
        for name, r in row["runs"].items():
            ratio = (r["cpu_s"] / sort_cpu) if r["cpu_s"] and sort_cpu else None
            status = "" if r["ok"] else f" ({r['note']})"
            lines.append(
                f"| {row['events'] / 1e6:.1f} M | {name}{status} | {h.fmt(r['wall'], '.1f')} | "
                f"{h.fmt(r['cpu_s'], '.1f')} | {h.fmt(r['rss_mb'], ',.0f')} | {h.fmt(ratio, '.2f')} | "
                f"{r['others']:.2f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
