"""The baselines the strict fast path is measured against, each one whole process over the same
``.csv.gz`` files of one google2011 table, to be timed from outside (CPU = user + system of the
process tree) beside ``tracewh ingest``:

- ``copy``: a bare DuckDB ``COPY (SELECT * FROM read_csv(file, typed columns)) TO x.parquet``
  per file (zstd), on single-threaded cursors, two files at a time, as the ingest's workers run;
  DuckDB's own gzip reader (no CRC check), no checks, no seq, no days;
- ``polars``: ``polars.read_csv`` of each file (typed columns, no checks) to Parquet (zstd);
- ``gzip -dc FILES > /dev/null`` is the floor (not in this script).

    python bench/bench_fastpath.py copy SRC/task_events OUT
    python bench/bench_fastpath.py polars SRC/task_events OUT
    TRACEWH_INGEST_PATH=exact tracewh --home H ingest google2011 SRC -q   # the exact path

The figures and the commands are in bench/RESULTS.md, "Ingest: the strict fast path".
"""

from __future__ import annotations

import argparse
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tracewh.quoting import quote_literal
from tracewh.traces import get_trace


def _types(table_name: str) -> list[tuple[str, str]]:
    table = get_trace("google2011").tables[table_name]
    return [(c.name, (c.read_type or c.type).upper()) for c in table.columns]


def copy(files: list[Path], out: Path, table: str) -> None:
    import duckdb

    columns = "{" + ", ".join(f"{quote_literal(n)}: {quote_literal(t)}" for n, t in _types(table)) + "}"
    db = duckdb.connect(config={"threads": 1, "preserve_insertion_order": True})

    def one(f: Path) -> None:
        cur = db.cursor()
        cur.execute(
            f"COPY (SELECT * FROM read_csv({quote_literal(f)}, columns = {columns}, header = false, "
            f"auto_detect = false, delim = ',', quote = '', escape = '')) "
            f"TO {quote_literal(out / (f.name + '.parquet'))} (FORMAT parquet, COMPRESSION zstd)"
        )
        cur.close()

    with ThreadPoolExecutor(2) as ex:
        list(ex.map(one, files))


def polars(files: list[Path], out: Path, table: str) -> None:
    import polars as pl

    kinds = {
        "BIGINT": pl.Int64,
        "UBIGINT": pl.UInt64,
        "INTEGER": pl.Int32,
        "DOUBLE": pl.Float64,
        "BOOLEAN": pl.Int8,  # polars reads no 0/1 booleans
        "VARCHAR": pl.String,
    }
    schema = {n: kinds[t] for n, t in _types(table)}
    for f in files:
        frame = pl.read_csv(f, has_header=False, schema=schema, quote_char=None)
        frame.write_parquet(out / (f.name + ".parquet"), compression="zstd")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("baseline", choices=["copy", "polars"])
    p.add_argument("folder", type=Path, help="a folder of .csv.gz parts of one google2011 table")
    p.add_argument("out", type=Path, help="a folder to write (emptied first)")
    a = p.parse_args(argv)
    files = sorted(a.folder.glob("*.csv.gz"))
    shutil.rmtree(a.out, ignore_errors=True)
    a.out.mkdir(parents=True)
    {"copy": copy, "polars": polars}[a.baseline](files, a.out, a.folder.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
