"""The Parquet writer settings come from one place (tracewh.parquet_settings) and every writer of a
stored file takes them from there: the fast path's pyarrow writer, the exact path's COPY, the
compaction's COPY and the derived layer's COPY. Each test changes the settings there and reads the
change back from the files' own metadata (pyarrow's reader, not tracewh's)."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
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
DERIVED_TABLES = ("task_events", "task_transitions", "task_episode_core", "tasks", "task_usage_hourly")
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


def fast_groups(home: Home, table: str) -> dict[str, list[int]]:
    """The row groups of each of a table's files (the ingest id taken out of the names)."""
    out = {}
    for path in raw_files(home, table):
        rel = str(path.relative_to((home.root / "parquet" / "google2011" / table).resolve()))
        out[re.sub(r"\d{8}T\d{6}-[0-9a-f]{6}", "ID", rel)] = codecs_and_groups([path])[1]
    return out


def test_the_fast_paths_row_groups_are_sized_from_the_budget_and_hold_the_same_rows(tmp_path, monkeypatch):
    """At 64MB: DuckDB's pool max(64,000,000 - 512 MiB, 32,000,000) = 32,000,000 B; a quarter of it
    for the fast path: 8,000,000 B for one worker, 4,000,000 B each for two. A task_events row: 5
    BIGINT (seq one of them) 40 B, 4 INTEGER 16, 3 DOUBLE 24, a BOOLEAN 1/8, the user text 4 + 48, a
    validity bit each of the 14 columns: 133.875 B. 8,000,000 / 133.875 = 59,757 rows -> 57,344
    (7 x 8,192); 4,000,000 / 133.875 = 29,878 -> 24,576 (3 x 8,192). The sample's part 1 holds
    77,776 rows, all in day 0; the other parts are under a group. At 3GB a worker may hold far more
    than RAW's 2^20 rows: one group a file."""
    monkeypatch.setenv(fastpath.MODE_VARIABLE, "auto")
    groups = {}
    for workers, limit in ((2, "3GB"), (1, "64MB"), (2, "64MB")):
        home = Home.resolve(tmp_path / f"{workers}-{limit}")
        opts = IngestOptions(tables=["task_events"], workers=workers, compact=False)
        result = ingest.ingest(home, "google2011", SAMPLE, opts, memory_limit=limit)
        assert all(f.fast for f in result.files)
        groups[workers, limit] = fast_groups(home, "task_events")
        files = raw_files(home, "task_events")
        if limit == "3GB":
            roomy = files
        else:  # the same rows in the same files
            for a, b in zip(files, roomy, strict=True):
                assert pq.read_table(a).equals(pq.read_table(b))
    part1 = "day=0/part-00001-of-00500.ID_0.parquet"
    assert groups[2, "3GB"][part1] == [77_776]
    assert groups[1, "64MB"][part1] == [57_344, 77_776 - 57_344]
    assert groups[2, "64MB"][part1] == [24_576, 24_576, 24_576, 77_776 - 3 * 24_576]
    for g in groups.values():
        assert {f: n for f, n in g.items() if f != part1} == {
            "day=0/part-00000-of-00500.ID_0.parquet": [110],
            "day=29/part-00499-of-00500.ID_0.parquet": [19],
            "day=106751991/part-00499-of-00500.ID_0.parquet": [10],  # times clamped to the trace's largest
        }


def test_a_part_crossing_midnight_writes_the_day_it_left_when_the_rows_held_reach_a_group(tmp_path):
    """The rows a worker holds, every open file's together, stay within one row group: a day the
    part has left is written as a shorter group once the rows held pass the group's size."""
    schema = pa.schema([("time", pa.int64()), ("seq", pa.int64())])
    sink = fastpath._Sink(tmp_path, "p", schema, [], ["time", "seq"], 500, partitioned=True)

    def batch(lo: int, n: int) -> pa.RecordBatch:
        return pa.RecordBatch.from_pydict(
            {"time": list(range(lo, lo + n)), "seq": list(range(lo, lo + n))}, schema
        )

    sink.add(0, batch(0, 300))
    sink.add(1, batch(300, 150))  # 450 held: day 0 waits
    assert sum(sink.rows.values()) == 450
    sink.add(1, batch(450, 150))  # 600 held: day 0's 300 written as a group
    assert sink.rows == {0: 0, 1: 300}
    sink.add(1, batch(600, 300))  # day 1 reaches 600: a group of 500, 100 held
    assert sink.rows == {0: 0, 1: 100}
    sink.flush()
    sink.close()
    assert codecs_and_groups([tmp_path / "day=0" / "p_0.parquet"])[1] == [300]
    assert codecs_and_groups([tmp_path / "day=1" / "p_0.parquet"])[1] == [500, 100]
    both = pa.concat_tables(pq.read_table(tmp_path / f"day={d}" / "p_0.parquet") for d in (0, 1))
    assert both.column("seq").to_pylist() == list(range(900))
