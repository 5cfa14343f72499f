"""Where one google2011 task_events part's ingest CPU goes, against a bare DuckDB COPY of the same file.

Each step runs in this one process on a single-threaded DuckDB connection (as the ingest's workers
do) and is timed by the process CPU time it costs (``getrusage``: user + system, all threads), not
the wall: on a machine shared with other work the wall time says more about the others than
about the step. Steps, each best of ``--repeat``:

- the hashing pass the ingest makes before converting (sha256 of the gzip file) alone, and with a
  Python zlib inflate that checks every member's CRC-32 and counts lines;
- the bare ``COPY (SELECT * FROM read_csv(file)) TO x.parquet``;
- tracewh's reader alone (``count(*)``), and with its checks (the strict integer and finite checks);
- tracewh's COPY without and with ``PARTITION_BY (day)``, reading the ``.csv.gz`` directly;
- tracewh's COPY as the ingest runs it: through the named pipe a thread feeds (CRC check on the way).

    .venv/bin/python -m bench.bench_ingest_profile \
        --file /work/bigdata/g2011/task_events/part-00100-of-00500.csv.gz
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from bench import harness as h
from tracewh.ingestion import readers
from tracewh.quoting import quote_literal
from tracewh.traces import get_trace

SECTION = "## Ingest profile: one task_events part, step by step (CPU seconds)"


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--file", type=Path, required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-write", action="store_true")
    a = p.parse_args(argv)
    trace = get_trace("google2011")
    table = trace.tables["task_events"]
    f = a.file
    tmp = Path(tempfile.mkdtemp(dir=f.parent.parent.parent))
    db = duckdb.connect(config={"threads": 1, "preserve_insertion_order": True})
    sel = readers.select_list(table, 1, trace)
    part = ", PARTITION_BY (day), OVERWRITE_OR_IGNORE true"

    def copy_sql(reader: str, target: str, opts: str) -> str:
        checked = readers.checked(table, reader, text_ints=True)
        return (
            f"COPY (SELECT {sel} FROM {checked} WHERE {readers.PROBLEM} IS NULL) "
            f"TO {quote_literal(tmp / target)} (FORMAT parquet, COMPRESSION zstd{opts})"
        )

    def direct(name: str) -> str:
        return readers.csv_reader(table, f, f"rj_{name}", f"rs_{name}")

    def sql(text: str):
        return lambda: db.execute(text).fetchone()[0]

    def hash_only() -> int:
        hs = hashlib.sha256()
        with open(f, "rb") as fh:
            while chunk := fh.read(1 << 20):
                hs.update(chunk)
        return 0

    def hash_crc_count() -> int:
        hs, chk, lines = hashlib.sha256(), readers.GzipCheck(), readers.LineCount()
        with open(f, "rb") as fh:
            while chunk := fh.read(1 << 20):
                hs.update(chunk)
                for out in chk.inflate(chunk):
                    lines.feed(out)
        chk.finish()
        return lines.total

    def piped() -> int:
        with readers.streamed(f, tmp / "feed.fifo") as feed:
            reader = readers.csv_reader(table, feed.path, "rj_pipe", "rs_pipe")
            return db.execute(copy_sql(reader, "piped", part)).fetchone()[0]

    bare = (
        f"COPY (SELECT * FROM read_csv({quote_literal(f)}, header = false, auto_detect = true)) "
        f"TO {quote_literal(tmp / 'bare.parquet')} (FORMAT parquet, COMPRESSION zstd)"
    )
    checked_b = readers.checked(table, direct("b"), text_ints=True)
    steps = [
        ("sha256 of the gzip file (the hashing pass)", hash_only),
        ("sha256 + zlib inflate with CRC check + line count", hash_crc_count),
        ("bare DuckDB COPY read_csv(auto_detect) -> one Parquet", sql(bare)),
        ("tracewh reader alone: count(*) (integers as text)", sql(f"SELECT count(*) FROM {direct('a')}")),
        (
            "tracewh reader + checks: count(*) of good rows",
            sql(f"SELECT count(*) FROM {checked_b} WHERE {readers.PROBLEM} IS NULL"),
        ),
        ("tracewh COPY, .csv.gz read by DuckDB, one file", sql(copy_sql(direct("c"), "one.parquet", ""))),
        ("tracewh COPY, .csv.gz read by DuckDB, PARTITION_BY day", sql(copy_sql(direct("d"), "days", part))),
        ("tracewh COPY as ingested: through the CRC-checking pipe", piped),
    ]
    results = []
    for label, fn in steps:
        runs = []
        for _ in range(a.repeat):
            c0, w0 = cpu(), time.perf_counter()
            n = fn()
            runs.append((cpu() - c0, time.perf_counter() - w0, n))
        best = min(runs)
        h.log(f"{label}: CPU {best[0]:.3f} s (wall {best[1]:.2f} s), rows {best[2]}")
        results.append((label, best[0], best[1], [round(r[0], 3) for r in runs]))
    db.close()
    shutil.rmtree(tmp, ignore_errors=True)
    base = results[2][1]
    size = f.stat().st_size / 1e6
    lines = [
        SECTION,
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/bench_ingest_profile.py`.",
        "",
        h.machine_text(h.machine_info()),
        "",
        f"**Command**: `{h.command_line('bench_ingest_profile.py', argv)}` ({f.name}, {size:.1f} MB gzip).",
        "",
        "| step | CPU s (best) | x bare COPY | CPU s (all runs) | wall s (best run) |",
        "|---|---|---|---|---|",
    ]
    for label, c, w, runs in results:
        lines.append(f"| {label} | {c:.3f} | {c / base:.2f} | {', '.join(map(str, runs))} | {w:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not a.no_write:
        h.write_section(h.RESULTS, text, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
