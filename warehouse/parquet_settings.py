"""How the Parquet a home stores is written: the one place for the writer settings of every writer
(the fast path's pyarrow writer, the exact path's and the compaction's DuckDB COPY, the derived
layer's COPY), so the same table is written alike whichever path wrote it.

The figures behind each choice are in bench/RESULTS.md, "Parquet size against the gzip input":

- **Raw tables in DuckDB's default row groups (122,880 rows), not larger.** A usage float's
  dictionary is written once per row group, so 2^20 rows made a task_usage part 0.71x the bytes;
  but the fast path holds a row group's rows per open file until it is full, and a streamed
  whole-trace ingest (10 parts of all six tables a batch, 3GB budget) then peaked 3,030-3,130 MiB,
  over its budget, against 2,736 at the default size (bench/RESULTS.md, "Whole trace, streamed,
  after the session-20 merges"). Larger groups need that memory counted in the budget first.
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
``RAW.row_group`` for pyarrow. tests/test_parquet_settings.py changes them here and finds the
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
RAW = Writer(codec="zstd", level=ZSTD_LEVEL, row_group=DUCKDB_ROW_GROUP, format_2=True)
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
