"""Parquet compaction (tracewh.ingestion.compaction): the small files of each day folder become one large
file; every row stays, with its part identity, so a part re-ingested or dropped later on a
compacted table gives the rows it would give without compaction. (Interrupts during
`tracewh compact`: tests/test_safety.py.)"""

from __future__ import annotations

from pathlib import Path

import duckdb
from conftest import SAMPLE
from test_safety import job_parts, read

from tracewh import ingestion as ingest
from tracewh.catalog import checks
from tracewh.home import Home
from tracewh.ingestion import compaction
from tracewh.options import IngestOptions


def live_files(home: Home, table: str) -> list[Path]:
    return sorted(home.table_link("google2011", table).resolve().rglob("*.parquet"))


def folders(files: list[Path]) -> dict[str, int]:
    """Leaf folder (day=N, or the table's own) -> files in it."""
    out: dict[str, int] = {}
    for f in files:
        out[f.parent.name] = out.get(f.parent.name, 0) + 1
    return out


def t_(table: str) -> str:
    """A table's stored rows (day included) in source order."""
    return f"google2011_raw.{table} ORDER BY seq"


def green(home: Home) -> bool:
    return not [c.name for c in checks.run_all(home) if c.failed]


def test_an_ingest_merges_each_day_into_one_file_and_keeps_every_row(tmp_path):
    compacted = Home.resolve(tmp_path / "a")
    plain = Home.resolve(tmp_path / "b")
    ingest.ingest(compacted, "google2011", SAMPLE, IngestOptions(tables=["task_events", "job_events"]))
    ingest.ingest(
        plain, "google2011", SAMPLE, IngestOptions(tables=["task_events", "job_events"], compact=False)
    )
    # The sample's task_events parts 0 and 1 both fall on day 0, part 499 on the last day: without
    # compaction day 0 holds two files (one per part), with it one; job_events (no days) 3 -> 1.
    assert folders(live_files(plain, "task_events"))["day=0"] == 2
    assert set(folders(live_files(compacted, "task_events")).values()) == {1}
    assert len(live_files(plain, "job_events")) == 3 and len(live_files(compacted, "job_events")) == 1
    assert compaction.COMPACTED_STEM in live_files(compacted, "job_events")[0].name
    for t in ("task_events", "job_events"):
        assert read(compacted, f"SELECT * FROM {t_(t)}") == read(plain, f"SELECT * FROM {t_(t)}")
    # the catalog counts the files the table has now
    assert read(compacted, "SELECT files FROM meta.tables WHERE table_name = 'job_events'") == [(1,)]
    assert green(compacted) and green(plain)


def test_a_part_reingested_or_added_on_a_compacted_table_gives_the_rows_it_gives_without(tmp_path):
    homes = {c: Home.resolve(tmp_path / f"home-{c}") for c in (True, False)}
    first = job_parts(tmp_path / "first", {0: [1, 2], 1: [3], 2: [4]})
    again = job_parts(tmp_path / "again", {1: [30, 31], 3: [40]})
    jobs = "SELECT list(job_id ORDER BY job_id) FROM google2011.job_events"
    for compact, home in homes.items():
        ingest.ingest(home, "google2011", first, IngestOptions(compact=compact))
        assert len(live_files(home, "job_events")) == (1 if compact else 3)
        # part 1 rewritten (job 3 -> jobs 30, 31), part 3 added; parts 0 and 2 kept:
        # by hand {1, 2} + {30, 31} + {4} + {40}
        ingest.ingest(home, "google2011", again, IngestOptions(compact=compact))
        assert read(home, jobs) == [([1, 2, 4, 30, 31, 40],)]
        assert read(home, "SELECT count(*), sum(rows_written) FROM meta.ingests WHERE is_current") == [(4, 6)]
        assert green(home)
    # the rows carry their part: seq // 2^32 = the part number, compacted or not
    by_part = (
        "SELECT meta.seq_part(seq) AS part, list(job_id ORDER BY job_id) "
        "FROM google2011_raw.job_events GROUP BY 1 ORDER BY 1"
    )
    assert (
        read(homes[True], by_part)
        == read(homes[False], by_part)
        == [
            (0, [1, 2]),
            (1, [30, 31]),
            (2, [4]),
            (3, [40]),
        ]
    )
    # a part whose rows are all in a compacted file, rewritten to nothing but one new row
    only = job_parts(tmp_path / "only", {0: [7]})
    for home in homes.values():
        ingest.ingest(home, "google2011", only)
        assert read(home, jobs) == [([4, 7, 30, 31, 40],)]
        assert green(home)
    # --replace makes the table exactly the given parts, compacted files or not
    for home in homes.values():
        ingest.ingest(home, "google2011", only, IngestOptions(replace=True))
        assert read(home, jobs) == [([7],)]


def test_compact_merges_a_home_ingested_without_and_says_when_nothing_is_left(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(
        home, "google2011", SAMPLE, IngestOptions(tables=["task_events", "job_events"], compact=False)
    )
    before = {t: read(home, f"SELECT * FROM {t_(t)}") for t in ("task_events", "job_events")}
    files = len(live_files(home, "task_events")), len(live_files(home, "job_events"))
    reader = duckdb.connect(str(home.catalog), read_only=True)  # a session on the old generation
    try:
        done = compaction.compact(home, "google2011")
        # task_events: day 0's two files -> one (the last day's single file is left); job_events 3 -> 1
        assert {(c.table, c.files_before, c.files_after) for c in done} == {
            ("task_events", files[0], files[0] - 1),
            ("job_events", files[1], 1),
        }
        assert reader.execute("SELECT count(*) FROM google2011.job_events").fetchall() == [
            (len(before["job_events"]),)
        ]
    finally:
        reader.close()
    for t, rows in before.items():
        assert read(home, f"SELECT * FROM {t_(t)}") == rows
    assert read(home, "SELECT files FROM meta.tables WHERE table_name = 'task_events'") == [(files[0] - 1,)]
    assert green(home)
    assert compaction.compact(home) == []  # nothing small left to merge: no new generation


def test_merged_files_keep_seq_order_whether_their_seq_ranges_are_apart_or_interleaved(tmp_path):
    """Files whose seq ranges are apart are streamed one after another (no sort); interleaved
    ranges (a compacted file holding parts 1 and 5 beside part 3) are sorted. Either way the
    merged file holds every row, in seq order, one thread or two."""
    con = duckdb.connect(config={"threads": 2})

    def part(name: str, seqs: list[int]) -> Path:
        path = tmp_path / name
        values = ", ".join(f"({s}, 'r{s}')" for s in seqs)
        con.execute(f"COPY (SELECT * FROM (VALUES {values}) t(seq, v)) TO '{path}' (FORMAT parquet)")
        return path

    apart = [part("c.parquet", [30, 31]), part("a.parquet", [10, 11, 12]), part("b.parquet", [20])]
    interleaved = [part("d.parquet", [1, 5, 9]), part("e.parquet", [3, 4]), part("f.parquet", [7])]
    for group, want in [(apart, [10, 11, 12, 20, 30, 31]), (interleaved, [1, 3, 4, 5, 7, 9])]:
        out = tmp_path / f"merged-{want[0]}.parquet"
        compaction._merge(con, group, out)
        rows = con.execute(f"SELECT seq, v FROM read_parquet('{out}')").fetchall()
        assert rows == [(s, f"r{s}") for s in want]
    assert con.execute("SELECT current_setting('threads')").fetchone() == (2,)
