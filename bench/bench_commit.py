"""The fixed cost of an ingest's commit, in one process (a notebook, the test suite): CPU seconds
of tiny ingests of the bundled google2011 sample into new homes.

Usage (from the project root; run it with another checkout's Python to compare):

    .venv/bin/python bench/bench_commit.py [--homes 6] [--dir DIR]

For each of --homes new homes, three ingests in turn, each timed with ``time.process_time`` (every
thread of this process): ``machine_events`` into the new home (one 84-row part: the commit's cost
dominates), ``job_events`` into the home that now has a table (3 parts), and ``job_events`` again
(every part unchanged). The first home also pays what a process pays once (imports, the first
catalog); the medians of the other homes are printed. The homes are made under --dir (default: a
new temporary folder) and deleted at the end.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from tracewh import ingestion
from tracewh.home import Home
from tracewh.options import IngestOptions
from tracewh.sqlfiles import data_root

CASES = (
    ("new home, machine_events (1 part)", ["machine_events"]),
    ("second table, job_events (3 parts)", ["job_events"]),
    ("every part unchanged, job_events", ["job_events"]),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--homes", type=int, default=6)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    sample = data_root() / "sample" / "google2011"
    root = Path(tempfile.mkdtemp(prefix="bench-commit-", dir=args.dir))
    times: list[list[float]] = [[] for _ in CASES]
    try:
        for i in range(args.homes):
            home = Home.resolve(root / f"home{i}")
            for k, (_, tables) in enumerate(CASES):
                start = time.process_time()
                ingestion.ingest(home, "google2011", sample, IngestOptions(tables=tables))
                times[k].append(time.process_time() - start)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for (what, _), ts in zip(CASES, times, strict=True):
        rest = ts[1:] or ts
        print(f"{what}: first home {ts[0]:.2f} CPU s, median of the others {statistics.median(rest):.2f}")


if __name__ == "__main__":
    main()
