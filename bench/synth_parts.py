"""Write only parts LO..HI of a 500-part google2011 table as ``tracewh synth --scale 1.0`` plans them.

``tracewh synth --scale 0.1`` shrinks the cluster (other jobs, other machines), and ``--parts 50``
makes each part 10x longer (its workers reached 11 GB RSS at scale 1.0). For a 0.1 slice of
task_usage that joins the whole-trace task_events, this keeps the scale-1.0 plan (same blocks,
same jobs, ~250 MB per worker) and drops the pieces outside the range. The files and the
manifest are the ones synth writes (``part-NNNNN-of-00500.csv.gz``), so ``tracewh ingest
--parts LO-HI`` reads them.

    .venv/bin/python -m bench.synth_parts /work/bigdata/g2011tu --tables task_usage --range 0-49
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracewh import synth as s
from tracewh.synth import google2011 as g


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--tables", default="task_usage")
    p.add_argument("--range", default="0-49", help="part range LO-HI of the 500")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int)
    p.add_argument("--level", type=int, default=6)
    p.add_argument("--isal", action="store_true", help="gzip by ISA-L (tracewh synth --isal)")
    p.add_argument(
        "--no-single",
        action="store_true",
        help="leave out the one-file tables (machine_events, machine_attributes): a later batch of a run",
    )
    a = p.parse_args(argv)
    lo, _, hi = a.range.partition("-")
    keep = range(int(lo), int(hi or lo) + 1)
    whole = g.plan

    def plan(cfg):  # the scale's plan, less the parts outside the range
        return [pc for pc in whole(cfg) if (pc.args[0] in keep if pc.args else not a.no_single)]

    g.plan = plan
    m = s.synth(
        "google2011",
        a.out,
        scale=a.scale,
        seed=a.seed,
        tables=a.tables.split(","),
        workers=a.workers,
        level=a.level,
        isal=a.isal,
    )
    for t, v in m["tables"].items():
        print(f"{t}: {v['rows']:,} rows in {v['files']} files", file=sys.stderr)
    print(
        f"{m['seconds']:.0f} s, worker CPU {m['worker_cpu_s']:.0f} s, "
        f"peak RSS {m['worker_peak_rss_mb']:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
