"""The ingest against its baselines, each one whole process over the same ``.csv.gz`` files of a
google2011 source folder (``<table>/part-*.csv.gz``), to be timed from outside (CPU = user +
system of the process tree, A B A B pairs against a same-run baseline) beside ``tracewh ingest``:

- ``copy``: a bare DuckDB ``COPY (SELECT * FROM read_csv(file, typed columns)) TO x.parquet``
  per file (zstd), on single-threaded cursors, two files at a time, as the ingest's workers run;
  DuckDB's own gzip reader (no CRC check), no checks, no seq, no days, no catalog;
- ``polars``: ``polars.read_csv`` of each file (typed columns, no checks) to Parquet (zstd);
- ``ingest``: ``tracewh.ingest`` of the folder into a fresh home (deleted after), printing one
  JSON line: the library's own phases (IngestResult.phases: wall and CPU seconds of hashing,
  converting, compacting, counting, deriving, committing), the files each path took, the
  process's peak RSS; so the convert phase is measured alone and the derived build apart;
- ``gzip -dc FILES > /dev/null`` is the floor (not in this script).

Each run prints one JSON line; the baselines time their conversion alone too (imports aside).

    python -m bench.bench_fastpath copy SRC OUT
    python -m bench.bench_fastpath polars SRC OUT
    python -m bench.bench_fastpath ingest SRC OUT >> phases.jsonl   # OUT: the home, emptied first
    TRACEWH_INGEST_PATH=exact python -m bench.bench_fastpath ingest SRC OUT  # the exact path
    python -m bench.bench_fastpath summary phases.jsonl              # medians per phase

``--parts 0-9`` and ``--tables a,b`` take only those parts and tables (the same files for every
command). The figures
and the exact commands are in bench/RESULTS.md, "Ingest: the strict fast path".
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tracewh.quoting import quote_literal
from tracewh.traces import get_trace

TRACE = "google2011"


def _types(table_name: str) -> list[tuple[str, str]]:
    table = get_trace(TRACE).tables[table_name]
    return [(c.name, (c.read_type or c.type).upper()) for c in table.columns]


def _files(src: Path, parts: set[int] | None, tables: list[str] | None) -> list[tuple[str, Path]]:
    """(table, file) of every ``.csv.gz`` part under ``src``, in order."""
    spec = get_trace(TRACE)
    out = []
    for folder in sorted(p for p in src.iterdir() if p.is_dir() and p.name in (tables or spec.tables)):
        for f in sorted(folder.glob("*.csv.gz")):
            if parts is None or spec.file_order(f.name) in parts:
                out.append((folder.name, f))
    return out


def copy(files: list[tuple[str, Path]], out: Path) -> None:
    import duckdb

    db = duckdb.connect(config={"threads": 1, "preserve_insertion_order": True, "memory_limit": "2GB"})

    def one(item: tuple[str, Path]) -> None:
        table, f = item
        columns = "{" + ", ".join(f"{quote_literal(n)}: {quote_literal(t)}" for n, t in _types(table)) + "}"
        cur = db.cursor()
        cur.execute(
            f"COPY (SELECT * FROM read_csv({quote_literal(f)}, columns = {columns}, header = false, "
            f"auto_detect = false, delim = ',', quote = '', escape = '')) "
            f"TO {quote_literal(out / f'{table}.{f.name}.parquet')} (FORMAT parquet, COMPRESSION zstd)"
        )
        cur.close()

    with ThreadPoolExecutor(2) as ex:
        list(ex.map(one, files))


def polars(files: list[tuple[str, Path]], out: Path) -> None:
    import polars as pl

    kinds = {
        "BIGINT": pl.Int64,
        "UBIGINT": pl.UInt64,
        "INTEGER": pl.Int32,
        "DOUBLE": pl.Float64,
        "BOOLEAN": pl.Int8,  # polars reads no 0/1 booleans
        "VARCHAR": pl.String,
    }
    for table, f in files:
        schema = {n: kinds[t] for n, t in _types(table)}
        frame = pl.read_csv(f, has_header=False, schema=schema, quote_char=None)
        frame.write_parquet(out / f"{table}.{f.name}.parquet", compression="zstd")


def ingest(src: Path, home: Path, parts: str | None, tables: list[str] | None) -> None:
    import tracewh
    from tracewh.ingestion import fastpath

    result = tracewh.ingest(TRACE, src, home=home, parts=parts, tables=tables, workers=2)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    line = {
        "path": fastpath.mode(),
        "files": len(result.files),
        "fast_files": sum(f.fast for f in result.files),
        "rows": sum(f.rows_written for f in result.files),
        "seconds": round(result.seconds, 3),
        "phases": {p.name: [round(p.seconds, 3), round(p.cpu_seconds, 3)] for p in result.phases},
        "peak_rss_mb": round(peak_kb / 1024, 1),
    }
    print(json.dumps(line), flush=True)
    shutil.rmtree(home, ignore_errors=True)


def summary(path: Path) -> None:
    """Medians of each phase's wall and CPU over the runs in a file of ``ingest`` lines (or of a
    baseline's lines: its conversion alone)."""
    runs = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
    runs = runs[1:] if len(runs) > 1 else runs  # the first is the warm-up
    if "baseline" in runs[0]:
        wall = statistics.median(r["seconds"] for r in runs)
        cpu = statistics.median(r["cpu_seconds"] for r in runs)
        print(
            f"{len(runs)} runs of {runs[0]['baseline']}, {runs[0]['files']} files: "
            f"conversion wall {wall:.2f} cpu {cpu:.2f}"
        )
        return
    names = list(dict.fromkeys(n for r in runs for n in r["phases"]))
    print(
        f"{len(runs)} runs, {runs[0]['files']} files, {runs[0]['fast_files']} fast, {runs[0]['rows']:,} rows"
    )
    for n in names:
        wall = statistics.median(r["phases"].get(n, [0, 0])[0] for r in runs)
        cpu = statistics.median(r["phases"].get(n, [0, 0])[1] for r in runs)
        print(f"{n:12s} wall {wall:7.2f}  cpu {cpu:7.2f}")
    total = statistics.median(sum(v[1] for v in r["phases"].values()) for r in runs)
    print(f"{'all phases':12s} wall {statistics.median(r['seconds'] for r in runs):7.2f}  cpu {total:7.2f}")
    print(f"peak RSS MB (median) {statistics.median(r['peak_rss_mb'] for r in runs):.0f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["copy", "polars", "ingest", "summary"])
    p.add_argument("src", type=Path, help="a google2011 source folder (<table>/*.csv.gz), or phases.jsonl")
    p.add_argument("out", type=Path, nargs="?", help="a folder to write (emptied first)")
    p.add_argument("--parts", help="only these part numbers, e.g. 0-9")
    p.add_argument("--tables", help="only these tables, e.g. task_events,task_usage")
    a = p.parse_args(argv)
    if a.what == "summary":
        summary(a.src)
        return 0
    if a.out is None:
        p.error("OUT is needed")
    shutil.rmtree(a.out, ignore_errors=True)
    tables = a.tables.split(",") if a.tables else None
    if a.what == "ingest":
        ingest(a.src, a.out, a.parts, tables)
        return 0
    from tracewh.options import IngestOptions

    files = _files(a.src, IngestOptions(parts=a.parts).part_numbers(), tables)
    a.out.mkdir(parents=True)
    # the conversion alone (imports and start-up aside), as the ingest's converting phase
    wall, cpu = time.monotonic(), time.process_time()
    {"copy": copy, "polars": polars}[a.what](files, a.out)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "baseline": a.what,
                "files": len(files),
                "seconds": round(wall, 3),
                "cpu_seconds": round(cpu, 3),
                "peak_rss_mb": round(peak_mb, 1),
            }
        ),
        flush=True,
    )
    shutil.rmtree(a.out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
