"""The CPU seconds of every SQL statement of the derived builders during one ingest, in-process.

    .venv/bin/python -m bench.probes.derived_steps HOME RAW [MEMORY_LIMIT]

HOME is ingested into (use a copy: `cp -al` of a home, its catalog and writer lock copied, then
`tracewh repair`); RAW a folder of raw parts. CPU is the process's (every thread's, getrusage);
statements under 0.3 CPU s are left out of the listing, each builder's total is not. With
TRACEWH_PROBE_EXPLAIN=REGEX, each statement matching REGEX is run once more first under EXPLAIN
ANALYZE and its plan (operator timings) printed to stderr."""

from __future__ import annotations

import os
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

from tracewh import ingestion
from tracewh.catalog import derived
from tracewh.home import Home
from tracewh.options import IngestOptions

LOG: list[tuple[str, float, float, str]] = []
BUILDERS = ("plan", "plan_usage", "build", "build_usage", "build_walks", "create_views")


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class Timed:
    """A connection whose execute logs each statement's CPU and wall seconds."""

    def __init__(self, con: Any, tag: str) -> None:
        self._con, self._tag = con, tag

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        explain = os.environ.get("TRACEWH_PROBE_EXPLAIN")
        if explain and re.search(explain, sql):
            plan = self._con.execute(f"EXPLAIN ANALYZE {sql}", *args, **kwargs).fetchall()
            print(f"== EXPLAIN ANALYZE {sql[:200]}\n{plan[0][1]}", file=sys.stderr)
        c, w = cpu(), time.monotonic()
        out = self._con.execute(sql, *args, **kwargs)
        LOG.append((self._tag, cpu() - c, time.monotonic() - w, re.sub(r"\s+", " ", sql)[:230]))
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def timed(name: str) -> None:
    f = getattr(derived, name)

    def g(con: Any, *args: Any, **kwargs: Any) -> Any:
        c, w = cpu(), time.monotonic()
        try:
            return f(Timed(con, name), *args, **kwargs)
        finally:
            LOG.append((name, cpu() - c, time.monotonic() - w, f"== TOTAL {name}"))

    setattr(derived, name, g)


def main(argv: list[str]) -> None:
    for name in BUILDERS:
        timed(name)
    home, raw = Home.resolve(Path(argv[0])), Path(argv[1])
    c, w = cpu(), time.monotonic()
    ingestion.ingest(
        home, "google2011", raw, IngestOptions(), memory_limit=argv[2] if len(argv) > 2 else "3GB"
    )
    print(f"WHOLE INGEST cpu {cpu() - c:.1f} wall {time.monotonic() - w:.1f}")
    for tag, c, w, sql in LOG:
        if c >= 0.3 or sql.startswith("=="):
            print(f"{tag:12s} {c:7.2f} {w:7.2f}  {sql}")


if __name__ == "__main__":
    main(sys.argv[1:])
