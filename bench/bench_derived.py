"""The derived layer's build beside the keys-only sort floor of the same task events, one process
each, for farm-bench to pair (A B A B):

    farm-bench -n 3 --timeout 3000 -- .venv/bin/python -m bench.bench_derived build HOME \
        --vs ".venv/bin/python -m bench.bench_derived floor HOME"

*build*: what an ingest that rebuilds a google2011 trace whole adds (tracewh.catalog.derived.build with a
full plan; ``--batch-events`` sets derived.BATCH_EVENTS), on a scratch copy of the home's catalog,
written to a scratch folder (removed after); the home is not changed. *floor*: the keys-only sort
of the same events, written: ``COPY (SELECT cell, job_id, task_index, time, seq FROM events ORDER BY
ALL) TO parquet``, straight on the home's task_events Parquet (cell is NULL in google2011). *rowfloor*:
the older floor, ``row_number() OVER (PARTITION BY job_id, task_index ORDER BY time, seq)`` summed.
All under the ingest's default memory limit (tracewh.ingestion.DEFAULT_MEMORY_LIMIT) unless
--memory-limit, on as many threads as the machine has. Each prints its CPU seconds (the process's
user + system, process_time), wall and what it wrote on stderr.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from tracewh import ingestion
from tracewh.catalog import derived
from tracewh.home import Home
from tracewh.quoting import quote_literal

TRACE = "google2011"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("build", "floor", "rowfloor"))
    ap.add_argument("home", type=Path)
    ap.add_argument("--memory-limit", default=ingestion.DEFAULT_MEMORY_LIMIT)
    ap.add_argument("--batch-events", type=int, default=derived.BATCH_EVENTS)
    args = ap.parse_args(argv)
    home = Home.resolve(args.home)
    with tempfile.TemporaryDirectory(dir=home.root.parent, prefix=".bench-derived-") as scratch:
        root = Path(scratch)
        config = {"memory_limit": args.memory_limit, "temp_directory": str(root / "spill")}
        started, cpu = time.perf_counter(), time.process_time()
        glob = home.table_link(TRACE, "task_events") / "**" / "*.parquet"
        src = f"read_parquet({quote_literal(glob)}, hive_partitioning = true)"
        if args.what == "floor":
            con = duckdb.connect(config=config)
            keys = f"SELECT NULL::VARCHAR AS cell, job_id, task_index, time, seq FROM {src} ORDER BY ALL"
            (rows,) = con.execute(
                f"COPY ({keys}) TO {quote_literal(root / 'keys.parquet')} (FORMAT parquet)"
            ).fetchone()
            what = f"{rows:,} events' keys sorted and written"
        elif args.what == "rowfloor":
            con = duckdb.connect(config=config)
            sql = (
                "SELECT count(*), sum(o) FROM (SELECT row_number() OVER (PARTITION BY job_id, task_index "
                f"ORDER BY time, seq) AS o FROM {src})"
            )
            rows, _ = con.execute(sql).fetchall()[0]
            what = f"{rows:,} events sorted"
        else:
            shutil.copyfile(home.catalog, root / "catalog.duckdb")
            con = duckdb.connect(str(root / "catalog.duckdb"), config=config)
            con.execute("BEGIN")
            out = Home.resolve(root / "out")
            derived.BATCH_EVENTS = args.batch_events
            (gen,) = derived.build(con, out, derived.Plan(TRACE, True), "bench")
            derived.create_views(con, out)  # as the ingest does after its builders
            con.execute("ROLLBACK")
            rows = con.execute(
                f"SELECT count(*) FROM read_parquet({quote_literal(gen / 'task_episode_core.parquet')})"
            ).fetchall()[0][0]
            what = f"{rows:,} episodes written (and every other derived table)"
        con.close()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(f"{args.what}: {what} in {wall:.1f} s wall, {cpu:.1f} CPU s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
