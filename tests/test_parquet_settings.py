"""The Parquet writer settings come from one place (tracewh.parquet_settings) and every writer of a
stored file takes them from there: the fast path's pyarrow writer, the exact path's COPY, the
compaction's COPY and the derived layer's COPY. Each test changes the settings there and reads the
change back from the files' own metadata (pyarrow's reader, not tracewh's)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import SAMPLE, stored_paths

from tracewh import ingestion as ingest
from tracewh import parquet_settings
from tracewh.home import Home
from tracewh.ingestion import compaction, fastpath
from tracewh.options import IngestOptions
from tracewh.parquet_settings import Writer

RAW_TABLES = ("task_events", "job_events", "task_usage")
DERIVED_TABLES = ("task_transitions", "task_episode_core", "tasks", "task_usage_hourly")
# Row group sizes no writer uses by itself, far under the tables' rows (task events 77,915): a
# writer that keeps its own size writes groups of tens of thousands of rows. DuckDB's COPY closes
# a row group at the first chunk of rows (up to a vector, 2,048) that reaches the size.
RAW_GROUP, DERIVED_GROUP, VECTOR = 5000, 3000, 2048


def raw_files(home: Home, table: str) -> list[Path]:
    return sorted((home.root / "parquet" / "google2011" / table).resolve().rglob("*.parquet"))


def codecs_and_groups(paths: list[Path]) -> tuple[set[str], list[int], dict[str, set[str]]]:
    """The codecs of every column chunk, the rows of every row group, the encodings per column."""
    codecs: set[str] = set()
    groups: list[int] = []
    encodings: dict[str, set[str]] = {}
    for path in paths:
        md = pq.ParquetFile(path).metadata
        for i in range(md.num_row_groups):
            rg = md.row_group(i)
            groups.append(rg.num_rows)
            for j in range(rg.num_columns):
                col = rg.column(j)
                codecs.add(col.compression)
                encodings.setdefault(col.path_in_schema, set()).update(col.encodings)
    return codecs, groups, encodings


def ingested(tmp_path: Path, monkeypatch, mode: str, name: str) -> tuple[Home, ingest.IngestResult]:
    monkeypatch.setenv(fastpath.MODE_VARIABLE, mode)
    home = Home.resolve(tmp_path / f"{name}-{mode}")
    return home, ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=list(RAW_TABLES)))


@pytest.mark.parametrize("mode", ["auto", "exact"])
def test_every_writer_of_a_stored_file_takes_level_and_row_groups_from_the_one_place(
    tmp_path, monkeypatch, mode
):
    """The level is not in a file's metadata: the same rows at level 19 take fewer bytes than at
    level 1, in the raw tables and in the derived layer. The row groups are."""
    size: dict[int, tuple[int, int]] = {}
    for level in (1, 19):
        monkeypatch.setattr(parquet_settings, "RAW", Writer("zstd", level, RAW_GROUP, format_2=True))
        monkeypatch.setattr(parquet_settings, "DERIVED", Writer("zstd", level, DERIVED_GROUP, format_2=False))
        home, result = ingested(tmp_path, monkeypatch, mode, f"level{level}")
        assert {f.fast for f in result.files} == {mode == "auto"}
        names = {p.name for t in RAW_TABLES for p in raw_files(home, t)}
        assert any(n.startswith(compaction.COMPACTED_STEM) for n in names)  # the compaction wrote some
        for table in RAW_TABLES:
            _, groups, encodings = codecs_and_groups(raw_files(home, table))
            assert max(groups) <= RAW_GROUP + VECTOR, table
            # format 2 encodings: seq (every value distinct) is delta-coded, by pyarrow and DuckDB alike
            assert "DELTA_BINARY_PACKED" in encodings["seq"], table
        for name in DERIVED_TABLES:
            _, groups, encodings = codecs_and_groups(stored_paths(home, "google2011", name))
            assert max(groups) <= DERIVED_GROUP + VECTOR, name
            # format 1 for the derived tables: no delta-coded, no byte-stream-split column
            assert not set().union(*encodings.values()) & {"DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"}, name
        raw = sum(p.stat().st_size for t in RAW_TABLES for p in raw_files(home, t))
        der = sum(p.stat().st_size for n in DERIVED_TABLES for p in stored_paths(home, "google2011", n))
        size[level] = (raw, der)
    assert size[19][0] < size[1][0]
    assert size[19][1] < size[1][1]


def test_the_settings_give_each_stored_file_zstd_and_its_encodings(sample_home):
    """As shipped (the bundled sample's home): zstd everywhere; the raw tables' seq delta-coded
    whichever writer wrote the file; the derived tables' floats (sums) never byte-stream-split."""
    home = sample_home
    for table in RAW_TABLES:
        codecs, _, encodings = codecs_and_groups(raw_files(home, table))
        assert codecs == {"ZSTD"}, table
        assert "DELTA_BINARY_PACKED" in encodings["seq"], table
    for name in DERIVED_TABLES:
        codecs, _, encodings = codecs_and_groups(stored_paths(home, "google2011", name))
        assert codecs == {"ZSTD"}, name
        assert "BYTE_STREAM_SPLIT" not in set().union(*encodings.values()), name
    assert parquet_settings.RAW.level == parquet_settings.DERIVED.level == parquet_settings.ZSTD_LEVEL
