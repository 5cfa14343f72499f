"""How the Parquet a home stores is written: the one place for the writer settings of every writer
(the fast path's pyarrow writer, the exact path's and the compaction's DuckDB COPY, the derived
layer's COPY), so the same table is written alike whichever path wrote it.

The figures behind each choice are in bench/RESULTS.md, "Parquet size against the gzip input":

- **Raw tables in row groups of 2^20 rows.** A usage float's dictionary is written once per row
  group, so 2^20 rows made a task_usage part 0.71x the bytes of DuckDB's default 122,880. DuckDB's
  writers (the exact path, the compaction) hold a group inside DuckDB's memory pool; the fast path
  holds it in Arrow, outside the pool, and its groups are sized by ``fast_row_group`` below (at a
  small budget they are smaller than DuckDB's). A streamed whole-trace ingest at 2^20 rows peaked
  169-269 MiB over its 3GB budget before: the pages the finished workers freed stayed with Arrow's
  allocator through the derived build; the conversion now hands them back (bench/RESULTS.md, "Row
  groups sized from the budget": 2,684 MiB at 2^20 rows, 2,659 at 122,880).
- **zstd level 3** (DuckDB's default) everywhere: level 1 saves little CPU once the row groups are
  large, and costs 1.3-1.6x the bytes on the derived layer's sums of floats (plain pages).
- **Parquet format 2 encodings in DuckDB's COPY of a raw table** (``PARQUET_VERSION V2``: data
  pages stay version 1, as pyarrow writes them): a time or ``seq`` column that its dictionary does
  not fit is delta-coded (DELTA_BINARY_PACKED), as the fast path writes them, instead of plain
  (compacted task events 0.82x the bytes). Not for the derived tables: there the floats (sums, not
  4-digit values) would go byte-stream-split, 1.3x their plain pages.
- **The derived tables keep DuckDB's default row groups**: 2^20 rows gains them at most 5% and
  would grow the derived build's pages held outside DuckDB's memory pool at its peak.

Each writer reads its settings here: ``copy_options`` for a DuckDB COPY, ``arrow_options`` and
``fast_row_group`` for pyarrow. tests/test_parquet_settings.py changes them here and finds the
change in the files of every path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Writer:
    codec: str  # the Parquet codec (DuckDB's and pyarrow's names agree for these)
    level: int | None  # the codec's level; None: the codec has none
    row_group: int  # rows per row group
    format_2: bool  # DuckDB: Parquet format 2 encodings (PARQUET_VERSION V2)


ZSTD_LEVEL = 3
# DuckDB's default row group size, named so each table says what it uses.
DUCKDB_ROW_GROUP = 122_880

# The raw tables (every path: the fast path, the exact path, the compaction).
RAW = Writer(codec="zstd", level=ZSTD_LEVEL, row_group=1 << 20, format_2=True)
# The derived layer's stored tables.
DERIVED = Writer(codec="zstd", level=ZSTD_LEVEL, row_group=DUCKDB_ROW_GROUP, format_2=False)
# Scratch files a build writes and reads back once (never stored): fast to write and read.
SCRATCH = Writer(codec="lz4_raw", level=None, row_group=DUCKDB_ROW_GROUP, format_2=False)


def copy_options(w: Writer) -> str:
    """The options of a DuckDB ``COPY ... TO ... (FORMAT parquet, ...)`` writing with ``w``."""
    opts = [f"FORMAT parquet, COMPRESSION {w.codec}"]
    if w.level is not None:
        opts.append(f"COMPRESSION_LEVEL {w.level}")
    opts.append(f"ROW_GROUP_SIZE {w.row_group}")
    if w.format_2:
        opts.append("PARQUET_VERSION V2")
    return ", ".join(opts)


def arrow_options(w: Writer, names: Sequence[str], delta: Sequence[str]) -> dict:
    """Keyword arguments of a ``pyarrow.parquet.ParquetWriter`` writing with ``w`` the columns
    ``names``: ``delta`` (times and ``seq``, which rise through a part) delta-coded, the others
    dictionary-coded (falling back to plain where a dictionary outgrows its page). The row group
    size is the caller's (``w.row_group`` rows per ``write_table``)."""
    return {
        "compression": w.codec,
        "compression_level": w.level,
        "use_dictionary": [n for n in names if n not in delta],
        "column_encoding": dict.fromkeys(delta, "DELTA_BINARY_PACKED"),
    }


# The fast path's row groups, counted in the ingest's memory budget. A fast-path worker holds the
# rows of the row group it is filling (all its open files together: _Sink in
# tracewh.ingestion.fastpath) as Arrow arrays until the group is written, outside DuckDB's pool
# and so outside the budget rule that gives DuckDB the budget less what the process holds beside
# its pool (tracewh.catalog.pool_limit). During the conversion that memory is taken from the pool
# instead: the conversion's DuckDB gets the pool less FAST_PATH_SHARE of it (DuckDB there only
# runs the exact path on the files the fast path refuses, one at a time a worker), and each of the
# W workers may hold FAST_PATH_SHARE * pool / W bytes of rows; the compaction and the derived build
# after the conversion have the whole pool again (the workers' memory handed back first). At a
# 3GB budget (2,349 MiB pool, 2 workers) a worker may hold 293 MiB: task_usage (163 bytes a row)
# keeps groups of 2^20 rows; at 1GB (477 MiB pool) 59 MiB, groups of 376,832 rows.
FAST_PATH_SHARE = 0.25
# The fast path's row groups are a multiple of this many rows (a size read back from a budget by
# hand), and never fewer.
FAST_GROUP_STEP = 1 << 13


def fast_path_bytes(pool: int | None, workers: int) -> int | None:
    """The bytes of rows each of ``workers`` fast-path workers may hold when the ingest's DuckDB
    pool is ``pool`` bytes (None: a limit that is not a size, no bound)."""
    return None if pool is None else int(pool * FAST_PATH_SHARE) // max(workers, 1)


def fast_row_group(held: int | None, row_bytes: float) -> int:
    """Rows per row group of the fast path's files for a worker that may hold ``held`` bytes of
    rows of ``row_bytes`` each: RAW.row_group, or fewer: the largest multiple of FAST_GROUP_STEP
    rows that fits in ``held`` (at least FAST_GROUP_STEP: a budget that small is over anyway)."""
    if held is None:
        return RAW.row_group
    fits = int(held // row_bytes) // FAST_GROUP_STEP * FAST_GROUP_STEP
    return min(RAW.row_group, max(FAST_GROUP_STEP, fits))
