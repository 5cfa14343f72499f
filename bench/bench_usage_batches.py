"""Usage ingests in batches into a home that holds task events: does a batch cost what it holds, or
what the home holds? (The derived usage tables: task_usage_hourly, attempt usage.)

One home per tracewh (``--tracewh``: a checkout's CLI, e.g. main's and a branch's): the task events
parts are ingested once (``--events-parts``), or the home is copied from ``--events-home`` (hard
links: no file of a home is ever written in place), then the usage parts in batches of
``--batch`` (each a ``tracewh ingest --tables task_usage --parts a-b``, wall, CPU of the process
tree and peak RSS by harness.measure), and every batch's figures printed as a table row.

    .venv/bin/python -m bench.bench_usage_batches --tracewh .venv/bin/tracewh \\
        --source /work/bigdata/g2011tu --usage-parts 0-19 --batch 5 \\
        --events-home /tmp/u30-events --home /tmp/u30-branch

``--table task_events``: the batches are task events parts instead (after ``--events-parts``, from
``--source``): does an events batch cost what it holds (the per-task tables in job ranges)?

    .venv/bin/python -m bench.bench_usage_batches --tracewh .venv/bin/tracewh --table task_events \
        --source /work/bigdata/g2011 --events-source /work/bigdata/g2011 --events-parts 0-19 \
        --usage-parts 20-34 --batch 5 --home /tmp/v30-branch
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

from bench import harness as h
from bench.bench_wholetrace import parse_range


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tracewh", required=True, help="the tracewh CLI to measure")
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--source", type=Path, required=True, help="a folder holding task_usage/part-*")
    ap.add_argument("--usage-parts", help="a-b: the parts ingested in batches (none: the task events only)")
    ap.add_argument("--table", default="task_usage", help="the table of the batches' parts")
    ap.add_argument("--batch", type=int, default=5)
    ap.add_argument("--events-home", type=Path, help="a home holding the task events: copied (hard links)")
    ap.add_argument("--events-source", type=Path, help="else: ingest its task_events parts first")
    ap.add_argument("--events-parts", default="0-49")
    ap.add_argument("--memory-limit", default="3GB")
    a = ap.parse_args(argv)
    base = [a.tracewh, "--home", str(a.home), "ingest", "google2011", "--memory-limit", a.memory_limit, "-q"]
    if a.events_home:
        shutil.rmtree(a.home, ignore_errors=True)
        subprocess.run(["cp", "-al", str(a.events_home), str(a.home)], check=True)
        # the catalog and the home's marker files copies of their own (written in place)
        for x in a.events_home.iterdir():
            if x.is_file():
                shutil.copyfile(x, a.home / f"{x.name}.copy")
                os.replace(a.home / f"{x.name}.copy", a.home / x.name)
    elif a.events_source:
        run, _, _ = h.measure(
            "events",
            [
                *base[:5],
                str(a.events_source),
                *base[5:],
                "--tables",
                "task_events",
                "--parts",
                a.events_parts,
            ],
        )
        print(
            f"| events {a.events_parts} | {run.wall:.0f} | {run.cpu_s:.1f} | {run.rss_mb:.0f} |", flush=True
        )
    if not a.usage_parts:
        return
    lo, hi = parse_range(a.usage_parts)
    parts = list(range(lo, hi + 1))
    print(f"| {a.table} parts | wall s | CPU s | peak RSS MB | load1 | other cores |")
    for i in range(0, len(parts), a.batch):
        chunk = parts[i : i + a.batch]
        span = f"{chunk[0]}-{chunk[-1]}"
        cmd = [*base[:5], str(a.source), *base[5:], "--tables", a.table, "--no-verify", "--parts", span]
        run, _, err = h.measure(f"{a.table} {span}", cmd)
        if not run.ok:
            raise SystemExit(f"{a.table} {span} failed: {err.strip()[-2000:]}")
        row = f"| {span} | {run.wall:.0f} | {run.cpu_s:.1f} | {run.rss_mb:.0f} | {run.load1:.1f} "
        print(f"{row}| {run.others:.2f} |", flush=True)


if __name__ == "__main__":
    main()
