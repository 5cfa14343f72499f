"""The derived layer (tracewh.derived): the stored episodes, transitions, per-task summaries and
observed window / segments equal the life-cycle views they store, whatever order the parts came
in; an ingest interrupted while building them leaves the previous state whole."""

from __future__ import annotations

import gzip
import os
import signal
import sys
from pathlib import Path

import duckdb
import pytest
from cli_helpers import signal_at
from conftest import REPO, SAMPLE, write_gz

from tracewh import catalog, checks, derived
from tracewh import ingestion as ingest
from tracewh.home import Home

TRACEWH = [sys.executable, "-c", "from tracewh.cli.main import main; main()"]
NAMES = [derived.short(f) for f in derived.files()]
STORED = [derived.short(f) for f in derived.stored_files()]
# Real task events of the sample's part 1 (sorted by time), cut into time slices that stand for
# parts: tasks run across slices, so a part's events change episodes begun in another part.
_LINES = (
    gzip.decompress((SAMPLE / "task_events" / "part-00001-of-00500.csv.gz").read_bytes())
    .decode()
    .splitlines()
)
SLICES = {0: _LINES[0:3000], 1: _LINES[3000:6000], 3: _LINES[9000:12000], 5: _LINES[15000:18000]}
# part 1 as it is replaced later: a shorter file (its last 500 events gone)
PART_1_AGAIN = _LINES[3000:5500]


def read(home: Home, sql: str) -> list[tuple]:
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def source(folder: Path, parts: dict[int, list[str]]) -> Path:
    for n, lines in parts.items():
        write_gz(folder / "task_events" / f"part-{n:05d}-of-00500.csv.gz", lines)
    return folder


def stored(home: Home, name: str) -> list[tuple]:
    """A derived table read straight from its Parquet (not through the catalog's view)."""
    ((data_dir,),) = read(
        home, f"SELECT data_dir FROM meta.derived WHERE trace = 'google2011' AND name = '{name}'"
    )
    with duckdb.connect() as con:
        return con.execute(
            f"SELECT * FROM read_parquet('{home.root / data_dir / name}.parquet') ORDER BY ALL"
        ).fetchall()


def test_the_derived_views_read_the_stored_tables_and_equal_the_lifecycle_views(sample_con):
    # both Google traces stored at ingest (and Alibaba's DAG walk: tests/test_dag_paths_stored.py);
    # the views read their Parquet, not the view stack
    assert sample_con.execute("SELECT DISTINCT trace FROM meta.derived ORDER BY 1").fetchall() == [
        ("alibaba2018",),
        ("google2011",),
        ("google2019",),
    ]
    for name in NAMES:
        (sql,) = sample_con.execute(
            f"SELECT sql FROM duckdb_views() WHERE schema_name = 'derived' AND view_name = '{name}'"
        ).fetchone()
        assert "lifecycle." not in sql, name
        assert "read_parquet" in sql or name == "task_episodes", name
        for a, b in (("derived", "lifecycle"), ("lifecycle", "derived")):
            extra = sample_con.execute(
                f"SELECT * FROM {a}.{name} EXCEPT ALL SELECT * FROM {b}.{name}"
            ).fetchall()
            assert extra == [], (name, a, extra[:3])
        n = sample_con.execute(f"SELECT count(*) FROM lifecycle.{name}").fetchone()
        assert n is not None and n[0] > 0, name
    # the comments of the view's columns come with the table
    (comment,) = sample_con.execute(
        "SELECT comment FROM duckdb_columns() WHERE schema_name = 'derived' AND table_name = 'task_episodes' "
        "AND column_name = 'wait_s'"
    ).fetchone()
    assert comment and comment.startswith("Scheduling delay")


def same_as_the_views(home: Home) -> None:
    """Every derived table holds what the life-cycle views compute from all the events now."""
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        for name in NAMES:
            for a, b in (("derived", "lifecycle"), ("lifecycle", "derived")):
                extra = con.execute(
                    f"SELECT * FROM {a}.{name} EXCEPT ALL SELECT * FROM {b}.{name}"
                ).fetchall()
                assert extra == [], (name, a, extra[:3])
    finally:
        con.close()


def test_the_stored_tables_after_parts_out_of_order_a_replaced_and_a_removed_part_equal_a_full_rebuild(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    step = Home.resolve(tmp_path / "step")
    only = ["task_events"]
    steps = [
        ({1: SLICES[1]}, False),
        ({0: SLICES[0]}, False),  # before part 1: out of order, no gap opened
        ({3: SLICES[3]}, False),  # part 2 missing now: every part's gaps change
        ({1: PART_1_AGAIN}, False),  # part 1 replaced by a shorter file
        ({5: SLICES[5]}, False),
        ({0: SLICES[0], 1: PART_1_AGAIN, 3: SLICES[3]}, True),  # part 5 removed
    ]
    recomputed = []
    for i, (parts, replace) in enumerate(steps):
        ingest.ingest(step, "google2011", source(tmp_path / f"s{i}", parts), tables=only, replace=replace)
        same_as_the_views(step)
        (n,) = {r for (r,) in read(step, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'tasks'")}
        recomputed.append(n)
    # by hand: the first build, a gap opened (parts 3 and 5) and --replace rebuild the whole trace;
    # a part before the first one and a replaced part recompute their tasks only
    assert [n is not None for n in recomputed] == [False, True, False, True, False, False]
    # the tasks recomputed, from the files: those of the part added; of the replaced part 1, its
    # tasks before and after the replacement
    tasks_of = {n: {tuple(line.split(",")[2:4]) for line in lines} for n, lines in SLICES.items()}
    assert recomputed[1] == len(tasks_of[0])
    assert recomputed[3] == len(tasks_of[1] | {tuple(line.split(",")[2:4]) for line in PART_1_AGAIN})
    final = steps[-1][0]
    fresh = Home.resolve(tmp_path / "fresh")
    ingest.ingest(fresh, "google2011", source(tmp_path / "g", final), tables=only)
    for name in (derived.short(f) for f in derived.stored_files()):
        assert stored(step, name) == stored(fresh, name), name
    # and both hold what an independent reading of the files says: one task per (job, index) seen
    tasks = {tuple(line.split(",")[2:4]) for lines in final.values() for line in lines}
    assert read(step, "SELECT count(*) FROM derived.tasks") == [(len(tasks),)]
    # the segments by hand: part 2 is missing, so parts 0-1 and part 3 observe two stretches
    first, last = (int(final[0][0].split(",")[0]), int(final[1][-1].split(",")[0]))
    assert stored(step, "observed_segments")[0][:5] == ("google2011", None, 0, first, last)
    assert [r[2] for r in stored(step, "observed_segments")] == [0, 1]
    # only the live derived generation is left on disk
    gens = sorted(p.name for p in step.generations("google2011").iterdir() if p.name.startswith("derived."))
    assert gens == [Path(d).name for (d,) in read(step, "SELECT DISTINCT data_dir FROM meta.derived")]


def test_an_ingest_of_another_table_keeps_the_derived_tables(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", source(tmp_path / "a", {0: SLICES[0]}), tables=["task_events"])
    before = read(home, "SELECT name, data_dir, writer_id FROM meta.derived ORDER BY 1")
    ingest.ingest(home, "google2011", SAMPLE, tables=["machine_events"])
    assert read(home, "SELECT name, data_dir, writer_id FROM meta.derived ORDER BY 1") == before


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_an_ingest_stopped_after_building_the_derived_tables_leaves_the_old_state_whole(
    tmp_path, sig, monkeypatch
):
    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", source(tmp_path / "a", {0: SLICES[0]}), tables=["task_events"])
    before = {name: stored(home, name) for name in STORED}
    meta_before = read(home, "SELECT * FROM meta.derived ORDER BY ALL")
    env = {**os.environ, "PYTHONPATH": str(REPO), "TRACEWH_HOME": str(home.root)}
    new = source(tmp_path / "b", {1: SLICES[1]})
    code, err = signal_at(
        [*TRACEWH, "ingest", "google2011", str(new), "-q"], env, "derived tables built", sig
    )
    assert code == (130 if sig == signal.SIGINT else -signal.SIGKILL), err
    assert read(home, "SELECT * FROM meta.derived ORDER BY ALL") == meta_before
    assert {name: stored(home, name) for name in STORED} == before
    # the next writer removes what the stopped one left; then the ingest goes through
    ingest.ingest(home, "google2011", new)
    live = {Path(d).name for (d,) in read(home, "SELECT DISTINCT data_dir FROM meta.derived")}
    assert {p.name for p in home.generations("google2011").iterdir() if p.name.startswith("derived.")} == live
    assert read(home, "SELECT count(*) FROM derived.task_transitions") == read(
        home, "SELECT count(*) FROM lifecycle.task_transitions"
    )


def test_check_finds_a_stored_table_that_differs_from_the_events(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(
        home, "google2011", source(tmp_path / "a", {0: SLICES[0], 1: SLICES[1]}), tables=["task_events"]
    )
    assert not [c.name for c in checks.run_all(home) if c.failed]
    # a stored table overwritten with another's rows: every task of the sample differs
    ((data_dir,),) = read(home, "SELECT data_dir FROM meta.derived WHERE name = 'tasks'")
    path = home.root / data_dir / "tasks.parquet"
    with duckdb.connect() as con:
        con.execute(
            f"COPY (SELECT * REPLACE (events + 1 AS events) FROM read_parquet('{path}')) "
            f"TO '{path}.new' (FORMAT parquet)"
        )
    os.replace(f"{path}.new", path)
    failed = [c.name for c in checks.run_all(home) if c.failed]
    assert failed == ["derived.tasks.recomputed"]


def test_the_stored_tables_read_in_polars_with_decoded_columns_and_integer_keys(sample_home):
    import polars as pl

    ((data_dir,),) = read(
        sample_home,
        "SELECT data_dir FROM meta.derived WHERE trace = 'google2011' AND name = 'task_episode_core'",
    )
    df = pl.read_parquet(sample_home.root / data_dir / "task_episode_core.parquet")
    assert df.schema["episode_no"] == pl.Int64 and df.schema["job_id"] == pl.Int64
    # the end reasons as the names the trace documents, not codes
    assert set(df["end_reason"].drop_nulls().unique()) <= {"EVICT", "FAIL", "FINISH", "KILL", "LOST"}
    assert (
        df.height
        == read(sample_home, "SELECT count(*) FROM lifecycle.task_episodes WHERE trace = 'google2011'")[0][0]
    )
