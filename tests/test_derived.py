"""The derived layer (tracewh.catalog.derived): the stored episodes, transitions, per-task summaries and
observed window / segments equal the life-cycle views they store, whatever order the parts came
in; an ingest interrupted while building them leaves the previous state whole."""

from __future__ import annotations

import gzip
import itertools
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from cli_helpers import signal_at
from conftest import REPO, SAMPLE, stored_paths, stored_rows, write_gz
from conftest import read_catalog as read

from tracewh import catalog
from tracewh import ingestion as ingest
from tracewh.catalog import checks, derived
from tracewh.home import Home
from tracewh.options import IngestOptions

TRACEWH = [sys.executable, "-c", "from tracewh.cli.main import main; main()"]
NAMES = [derived.short(f) for f in derived.files()]
STORED = [derived.short(f) for f in derived.stored_files()]
OVER_STORED = {derived.short(f) for f in derived.files() if derived.reads(f)}
# Real task events of the sample's part 1 (sorted by time), cut into time slices that stand for
# parts: tasks run across slices, so a part's events change episodes begun in another part.
_LINES = (
    gzip.decompress((SAMPLE / "task_events" / "part-00001-of-00500.csv.gz").read_bytes())
    .decode()
    .splitlines()
)
SLICES = {0: _LINES[0:3000], 1: _LINES[3000:6000], 3: _LINES[9000:12000], 5: _LINES[15000:18000]}
# a part after them all: 20 of its jobs come after every job of the slices above
LATER = _LINES[18000:21000]
# part 1 as it is replaced later: a shorter file (its last 500 events gone)
PART_1_AGAIN = _LINES[3000:5500]


def source(folder: Path, parts: dict[int, list[str]]) -> Path:
    for n, lines in parts.items():
        write_gz(folder / "task_events" / f"part-{n:05d}-of-00500.csv.gz", lines)
    return folder


def stored(home: Home, name: str) -> list[tuple]:
    return stored_rows(home, "google2011", name)


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
        # (a view over stored tables reads their views)
        assert "read_parquet" in sql or name in OVER_STORED, name
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


def _derived_views(catalog_file: Path) -> list[tuple]:
    """Every derived view of a catalog file as DuckDB holds it: its SQL, its comment and its
    columns' comments."""
    con = duckdb.connect(str(catalog_file), read_only=True)
    try:
        return con.execute(
            "SELECT v.view_name, v.sql, v.comment, list(c.comment ORDER BY c.column_index) "
            "FROM duckdb_views() AS v JOIN duckdb_columns() AS c "
            "ON c.schema_name = v.schema_name AND c.table_name = v.view_name "
            "WHERE v.schema_name = 'derived' GROUP BY ALL ORDER BY 1"
        ).fetchall()
    finally:
        con.close()


def test_an_ingest_makes_again_only_the_derived_views_it_changes_and_they_equal_a_whole_rebuild(tmp_path):
    # An ingest makes a derived view again only where its definition changed (an ingest of usage
    # leaves the views of the stored events as they are, and the other way round): after each
    # ingest of a sequence, the catalog's derived views are those a whole rebuild of it makes.
    home = Home.resolve(tmp_path / "home")
    steps = [
        (source(tmp_path / "s0", {0: SLICES[0]}), None),
        (SAMPLE, ["task_usage"]),
        (source(tmp_path / "s1", {1: SLICES[1]}), None),
        (SAMPLE, ["job_events"]),
    ]
    for n, (folder, tables) in enumerate(steps):
        ingest.ingest(home, "google2011", folder, IngestOptions(tables=tables))
        again = tmp_path / f"rebuilt{n}.duckdb"
        shutil.copyfile(home.catalog, again)
        con = duckdb.connect(str(again))
        try:
            con.execute("BEGIN")
            catalog.rebuild(con, home)
            con.execute("COMMIT")
        finally:
            con.close()
        views = _derived_views(home.catalog)
        assert {v[0] for v in views} >= set(NAMES)
        assert views == _derived_views(again), n


def test_the_build_puts_back_the_lifecycle_views_it_pointed_at_its_files(tmp_path):
    # while the tables are built, the view of each one written reads its file (the window and the
    # missing spans come from the stored segments); the catalog keeps the views the files make
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(
        home, "google2011", source(tmp_path / "a", {0: SLICES[0]}), IngestOptions(tables=["task_events"])
    )
    rows = read(home, "SELECT view_name, sql, comment FROM duckdb_views() WHERE schema_name = 'lifecycle'")
    views = {name: (sql, comment) for name, sql, comment in rows}
    for name in STORED:
        sql, comment = views[name]
        assert "read_parquet" not in sql and "derived_events" not in sql, name
        assert comment, name
    assert "FROM lifecycle.observed_segments" in views["observed_window"][0]
    # the build ran with the time macros of its one trace as constants: the catalog keeps every
    # trace's own (raw units: microseconds in Google's traces, seconds in Alibaba's; Google 2011's
    # hours counted from its start 600 s after raw time 0)
    assert read(
        home,
        "SELECT meta.time_units('google2011', 1), meta.time_units('google2019', 1), "
        "meta.time_units('alibaba2018', 1), meta.trace_hour('google2011', 3600000000 + 600000000), "
        "meta.trace_hour('alibaba2018', 7200), meta.time_units('no such trace', 1)",
    ) == [(1_000_000, 1_000_000, 1, 1, 2, None)]


def same_as_the_views(home: Home) -> None:
    """Every derived table holds what the life-cycle views compute from all the events now: the
    same rows as multisets. Each side is read once (EXCEPT ALL both ways computed the life-cycle
    stack twice): every distinct row with its count in the derived view less its count in the
    life-cycle view, which must be 0."""
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        for name in NAMES:
            extra = con.execute(
                f"SELECT * EXCLUDE (side_), sum(side_) AS more_in_derived FROM (SELECT *, 1 AS side_ "
                f"FROM derived.{name} UNION ALL SELECT *, -1 FROM lifecycle.{name}) "
                "GROUP BY ALL HAVING sum(side_) <> 0"
            ).fetchall()
            assert extra == [], (name, extra[:3])
    finally:
        con.close()


def jobs_of(lines: list[str]) -> set[int]:
    return {int(line.split(",")[2]) for line in lines}


def range_files(home: Home) -> dict[tuple[str, int], tuple[int, int, int, int]]:
    """(table, range) -> (first job, last job, inode, mtime) of each file of the tables stored by
    job ranges, read from the files (the sample's Google 2011 events have no cell)."""
    out: dict[tuple[str, int], tuple[int, int, int, int]] = {}
    if not home.catalog.exists():
        return out
    with duckdb.connect() as con:
        for name in (derived.short(f) for f in derived.stored_files() if derived.job_ranges(f)):
            paths = stored_paths(home, "google2011", name)
            if not paths:
                continue
            listed = ", ".join(f"'{x}'" for x in paths)
            # all the table's files in one read (a connection and a query per file cost seconds)
            per_file = {
                f: rest
                for f, *rest in con.execute(
                    "SELECT filename, count(cell), min(job_id), max(job_id) "
                    f"FROM read_parquet([{listed}], filename = true) GROUP BY filename"
                ).fetchall()
            }
            for x in paths:
                cells, lo, hi = per_file.get(str(x), (0, None, None))
                assert cells == 0
                st = x.stat()
                out[(name, int(x.stem))] = (lo, hi, st.st_ino, st.st_mtime_ns)
    return out


def test_the_stored_tables_after_parts_out_of_order_a_replaced_and_a_removed_part_equal_a_full_rebuild(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    # ranges of ~500 events: the slices' 3,000 events each make several files of each table
    monkeypatch.setattr(derived, "BATCH_EVENTS", 500)
    step = Home.resolve(tmp_path / "step")
    only = ["task_events"]
    steps = [
        ({1: SLICES[1]}, False),
        ({0: SLICES[0]}, False),  # before part 1: out of order, no gap opened
        ({3: SLICES[3]}, False),  # part 2 missing now: every part's gaps change
        ({1: PART_1_AGAIN}, False),  # part 1 replaced by a shorter file
        ({5: SLICES[5]}, False),
        ({6: LATER}, False),  # after part 5: new jobs after every stored one
        ({0: SLICES[0], 1: PART_1_AGAIN, 3: SLICES[3]}, True),  # parts 5 and 6 removed
    ]
    recomputed = []
    had: dict[int, list[str]] = {}
    carried = rewritten = 0
    for i, (parts, replace) in enumerate(steps):
        before = range_files(step)
        # the jobs the ingest touches, from the files: those of its parts and of the parts it replaces
        touched = jobs_of([line for n, lines in parts.items() for line in lines + had.get(n, [])])
        ingest.ingest(
            step, "google2011", source(tmp_path / f"s{i}", parts), IngestOptions(tables=only, replace=replace)
        )
        had = dict(parts) if replace else {**had, **parts}
        same_as_the_views(step)
        (n,) = {r for (r,) in read(step, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'tasks'")}
        recomputed.append(n)
        if n is None:
            continue
        # an incremental ingest: a range's file (a stretch of jobs, from its first job to the next
        # file's first) holding no touched job is the same file as before (inode and mtime); the
        # others are written again; the jobs after every stored one are in files after the old ones
        after = range_files(step)
        starts: dict[int, int] = {}  # a range's first job: the least of its files' first jobs
        for (_, unit), (lo, *_) in before.items():
            starts[unit] = min(lo, starts.get(unit, lo))
        top = max(hi for (_, hi, *_) in before.values())
        for (name, unit), (_, _, ino, mtime) in before.items():
            lo = starts[unit] if unit != min(starts) else min(touched | {starts[unit]})
            nxt = min([x for x in starts.values() if x > starts[unit]], default=top + 1)
            holds = any(lo <= j < nxt for j in touched)
            kept = after.get((name, unit), (0, 0, 0, 0))[2:] == (ino, mtime)
            assert kept != holds, (i, name, unit)
            carried, rewritten = carried + kept, rewritten + (not kept)
        if max(touched) > top:
            (_, newest), _ = max(after.items(), key=lambda kv: kv[1][1])
            assert newest > max(starts), i
    assert carried > 0 and rewritten > 0, (carried, rewritten)
    # by hand: the first build, a gap opened (parts 3 and 5) and --replace rebuild the whole trace;
    # a part before the first one, a replaced part and a part after the last recompute their tasks only
    assert [n is not None for n in recomputed] == [False, True, False, True, False, True, False]
    # the tasks recomputed, from the files: those of the part added; of the replaced part 1, its
    # tasks before and after the replacement
    tasks_of = {n: {tuple(line.split(",")[2:4]) for line in lines} for n, lines in SLICES.items()}
    assert recomputed[1] == len(tasks_of[0])
    assert recomputed[3] == len(tasks_of[1] | {tuple(line.split(",")[2:4]) for line in PART_1_AGAIN})
    final = steps[-1][0]
    fresh = Home.resolve(tmp_path / "fresh")
    ingest.ingest(fresh, "google2011", source(tmp_path / "g", final), IngestOptions(tables=only))
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


def test_an_ingest_of_a_later_part_reads_the_touched_tasks_earlier_events_from_the_stored_copy(tmp_path):
    # An ingest that adds a part recomputes the tasks with an event in it, from all their events:
    # the earlier ones must come from the stored copy sorted by task (the files of the job ranges
    # holding them), not from a read of every raw part, whose cost grew with the home at every
    # ingest. Shown by rewriting the raw events already ingested (every in-trace time one
    # microsecond later, every CPU request doubled): a build that read them would store those
    # values for the touched tasks, and the tables would differ from a home built from the files.
    home = Home.resolve(tmp_path / "home")
    first = {0: SLICES[0], 1: SLICES[1]}
    ingest.ingest(home, "google2011", source(tmp_path / "s0", first), IngestOptions(tables=["task_events"]))
    raw = sorted((home.root / "parquet" / "google2011" / ".gen").glob("task_events.*/**/*.parquet"))
    assert raw
    with duckdb.connect() as con:
        for i, x in enumerate(raw):
            was = shutil.move(x, tmp_path / f"was{i}.parquet")
            con.execute(
                "COPY (SELECT * REPLACE (CASE WHEN time > 0 AND time < 9223372036854775807 "
                "THEN time + 1 ELSE time END AS time, cpu_request * 2 AS cpu_request) "
                f"FROM read_parquet('{was}')) TO '{x}' (FORMAT parquet)"
            )
    later = {2: _LINES[6000:9000]}
    ingest.ingest(home, "google2011", source(tmp_path / "s2", later), IngestOptions(tables=["task_events"]))
    fresh = Home.resolve(tmp_path / "fresh")
    both = source(tmp_path / "f", {**first, **later})
    ingest.ingest(fresh, "google2011", both, IngestOptions(tables=["task_events"]))
    (n,) = {r for (r,) in read(home, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'tasks'")}
    assert n is not None  # incremental
    for name in STORED:
        if name in {"observed_segments", "observed_window", "missing_spans", "event_counts"}:
            continue  # (of every event, not by task: read from the raw parts' rewritten times)
        assert stored(home, name) == stored(fresh, name), name
    # by hand, from the files: tasks of part 2 with events in parts 0-1 too, so the test has some
    key = {tuple(line.split(",")[2:4]) for line in later[2]}
    assert len(key & {tuple(line.split(",")[2:4]) for lines in first.values() for line in lines}) > 0


def in_file_order(home: Home, name: str) -> tuple[list[tuple], list[tuple]]:
    """A derived table's column types, and its rows in the order its Parquet files hold them."""
    paths = stored_paths(home, "google2011", name)
    if not paths:  # a table of unit files with no unit (no usage window)
        return [], []
    with duckdb.connect() as con:
        types = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{paths[0]}')").fetchall()
        return types, [r for x in paths for r in con.execute(f"SELECT * FROM read_parquet('{x}')").fetchall()]


def test_the_build_in_batches_of_a_few_jobs_writes_the_files_one_batch_writes_row_for_row(
    tmp_path, monkeypatch
):
    # a trace larger than a batch is built batch by batch (whole jobs each); forced here on a
    # small home: the files, rows and order, are those of the build in one batch, and a later
    # ingest that recomputes part of the tasks in batches still equals a build from scratch
    first, then = {0: SLICES[0], 1: SLICES[1]}, {1: PART_1_AGAIN}
    whole = Home.resolve(tmp_path / "whole")
    ingest.ingest(whole, "google2011", source(tmp_path / "w", first), IngestOptions(tables=["task_events"]))
    fresh = Home.resolve(tmp_path / "fresh")
    ingest.ingest(
        fresh, "google2011", source(tmp_path / "f", {**first, **then}), IngestOptions(tables=["task_events"])
    )
    cut: list[int] = []
    batches = derived.batches
    monkeypatch.setattr(derived, "BATCH_EVENTS", 1500)
    monkeypatch.setattr(derived, "batches", lambda *a: cut.append(len(b := batches(*a))) or b)
    step = Home.resolve(tmp_path / "step")
    ingest.ingest(step, "google2011", source(tmp_path / "s", first), IngestOptions(tables=["task_events"]))
    for name in STORED:
        assert in_file_order(step, name) == in_file_order(whole, name), name
    ingest.ingest(step, "google2011", source(tmp_path / "t", then), IngestOptions(tables=["task_events"]))
    for name in STORED:
        assert stored(step, name) == stored(fresh, name), name
    same_as_the_views(step)
    # by hand: 6,000 events in batches of about 1,500 (whole jobs: fewer when a job is large); the
    # replaced part's tasks hold more than 1,500 events (its 2,500 at least)
    assert cut[0] >= 2 and cut[1] >= 2, cut
    (n,) = {r for (r,) in read(step, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'tasks'")}
    assert n is not None


def test_a_range_grown_past_its_bound_is_cut_and_a_later_ingest_rewrites_only_the_piece_it_touches(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    home = Home.resolve(tmp_path / "home")
    parts = {0: SLICES[0], 1: SLICES[1]}
    ingest.ingest(home, "google2011", source(tmp_path / "s0", parts), IngestOptions(tables=["task_events"]))
    assert {unit for _, unit in range_files(home)} == {0}  # 6,000 events: one range (~2 M a range)
    monkeypatch.setattr(derived, "RANGE_ROWS", 300)
    old = jobs_of(SLICES[0] + SLICES[1])

    def one_job(lines: list[str], pick) -> list[str]:
        """The lines of one job of parts 0-1 with a single line here (the least or greatest id)."""
        once = [j for j in old if sum(int(x.split(",")[2]) == j for x in lines) == 1]
        return [x for x in lines if int(x.split(",")[2]) == pick(once)]

    # parts 2 and 3, each one event of an old job: the parts after the last, so incremental
    for i, (n, lines) in enumerate(
        [(2, one_job(_LINES[6000:9000], min)), (3, one_job(_LINES[9000:12000], max))]
    ):
        before = range_files(home)
        ingest.ingest(
            home, "google2011", source(tmp_path / f"s{n}", {n: lines}), IngestOptions(tables=["task_events"])
        )
        parts[n] = lines
        fresh = Home.resolve(tmp_path / f"fresh{n}")
        ingest.ingest(
            fresh, "google2011", source(tmp_path / f"f{n}", parts), IngestOptions(tables=["task_events"])
        )
        for name in STORED:
            assert stored(home, name) == stored(fresh, name), (n, name)
        after = range_files(home)
        (job,) = jobs_of(lines)
        for name in {name for name, _ in after}:
            files = [after[(name, u)] for u in sorted(u for t, u in after if t == name)]
            # the files numbered 0, 1, ... in the jobs' order
            assert sorted(u for t, u in after if t == name) == list(range(len(files))), (n, name)
            assert all(a[1] < b[0] for a, b in itertools.pairwise(files)), (n, name)
            inodes = {v[2] for (t, _), v in before.items() if t == name}
            if i == 0:
                # the one range (thousands of rows of transitions: more than 2 x 300) is cut, at
                # the same jobs in every table (each table's file n holds the same jobs)
                assert len(files) > 1, (n, name)
                assert [f[:2] for f in files] == [
                    after[("task_transitions", u)][:2] for u in range(len(files))
                ], (n, name)
            else:
                # only the file holding the job touched is written again, the others are the
                # old files (the same inodes); none of them is cut again (each under 2 x 300 rows)
                assert {ino for lo, hi, ino, _ in files if not lo <= job <= hi} <= inodes, (n, name)
                assert [lo <= job <= hi for lo, hi, ino, _ in files if ino not in inodes] == [True], (n, name)
                assert len(files) == len(inodes), (n, name)


def test_an_ingest_of_another_table_keeps_the_derived_tables(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(
        home, "google2011", source(tmp_path / "a", {0: SLICES[0]}), IngestOptions(tables=["task_events"])
    )
    before = read(home, "SELECT name, data_dir, writer_id FROM meta.derived ORDER BY 1")
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["machine_events"]))
    assert read(home, "SELECT name, data_dir, writer_id FROM meta.derived ORDER BY 1") == before


def _home_of_the_first_slice(
    tmp_path, monkeypatch, usage: bool = False, batch: int | None = None
) -> tuple[Home, dict, list]:
    """A home with the first slice's task events (``usage``: and two usage slices) and its derived
    tables, and what a stopped ingest must leave as it is: the stored tables and meta.derived
    (``batch``: events per job range of the per-task tables)."""
    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    if batch:
        monkeypatch.setattr(derived, "BATCH_EVENTS", batch)
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(
        home, "google2011", source(tmp_path / "a", {0: SLICES[0]}), IngestOptions(tables=["task_events"])
    )
    if usage:
        parts = {0: USAGE_SLICES[0], 1: USAGE_SLICES[1]}
        ingest.ingest(
            home, "google2011", usage_source(tmp_path / "u", parts), IngestOptions(tables=["task_usage"])
        )
    return (
        home,
        {name: stored(home, name) for (name,) in read(home, "SELECT name FROM meta.derived ORDER BY 1")},
        read(home, "SELECT * FROM meta.derived ORDER BY ALL"),
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_an_ingest_stopped_after_building_the_derived_tables_leaves_the_old_state_whole(
    tmp_path, sig, monkeypatch
):
    home, before, meta_before = _home_of_the_first_slice(tmp_path, monkeypatch)
    env = {**os.environ, "PYTHONPATH": str(REPO), "TRACEWH_HOME": str(home.root)}
    new = source(tmp_path / "b", {1: SLICES[1]})
    code, err = signal_at(
        [*TRACEWH, "ingest", "google2011", str(new), "-q"], env, "derived tables built", sig
    )
    assert code == (130 if sig == signal.SIGINT else -signal.SIGKILL), err
    assert read(home, "SELECT * FROM meta.derived ORDER BY ALL") == meta_before
    assert {name: stored(home, name) for name in before} == before
    # the next writer removes what the stopped one left; then the ingest goes through
    ingest.ingest(home, "google2011", new)
    live = {Path(d).name for (d,) in read(home, "SELECT DISTINCT data_dir FROM meta.derived")}
    assert {p.name for p in home.generations("google2011").iterdir() if p.name.startswith("derived.")} == live
    assert read(home, "SELECT count(*) FROM derived.task_transitions") == read(
        home, "SELECT count(*) FROM lifecycle.task_transitions"
    )


@pytest.mark.parametrize(
    "table, at", [("task_events", "start"), ("task_events", "ranges"), ("task_usage", "start")]
)
def test_a_ctrl_c_inside_a_query_of_the_derived_build_stops_it_at_once_and_leaves_the_old_state_whole(
    tmp_path, monkeypatch, table, at
):
    # Old code: the build's queries ran with no signal watch, so a SIGINT that came while one of
    # them ran waited for it to end (over a minute at the whole trace's size): here, never. An
    # ingest of usage parts is stopped between two tables, one already written in its generation
    # (the usage build's unit files: the old generation's files linked in, the touched days new);
    # an ingest of events ("ranges") once a table of job ranges is written, its untouched ranges'
    # files linked (ranges of ~500 events, in the home and in the stopped ingest alike).
    batch = 500 if at == "ranges" else None
    home, before, meta_before = _home_of_the_first_slice(tmp_path, monkeypatch, table == "task_usage", batch)
    tables_before = read(home, "SELECT * FROM meta.tables ORDER BY ALL")
    gens_before = sorted(p.name for p in home.generations("google2011").iterdir())
    flag = tmp_path / "inside-the-build"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TRACEWH_HOME": str(home.root),
        derived.WAIT_ENV: str(flag),
        derived.WAIT_AT_ENV: at,
    }
    if table == "task_usage":
        new = usage_source(tmp_path / "b", {3: USAGE_SLICES[3]})
    else:  # (stopped at "ranges": a short part, whose few jobs leave some ranges untouched)
        new = source(tmp_path / "b", {1: SLICES[1][:200] if batch else SLICES[1]})
    run = TRACEWH
    if batch:
        setup = f"from tracewh.catalog import derived; derived.BATCH_EVENTS = {batch}; "
        run = [sys.executable, "-c", setup + TRACEWH[2]]
    proc = subprocess.Popen(
        [*run, "ingest", "google2011", str(new), "-q"], env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 300
        while not flag.exists():  # the build's query runs (the process says so), whatever the load
            assert proc.poll() is None, ("ended outside the build's query", proc.communicate())
            assert time.monotonic() < deadline
            time.sleep(0.02)
        if at == "ranges":  # stopped with old files linked into the new generation
            linked = [x for x in home.generations("google2011").rglob("*.parquet") if x.stat().st_nlink > 1]
            assert linked
        proc.send_signal(signal.SIGINT)
        # the build's query never ends by itself: an exit at all means the signal stopped it (the
        # timeout is only a safety net, no measure of speed)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert (
        err.strip().splitlines()[-1]
        == "Error: interrupted; nothing was committed, the warehouse is as it was"
    )
    assert read(home, "SELECT * FROM meta.derived ORDER BY ALL") == meta_before
    assert read(home, "SELECT * FROM meta.tables ORDER BY ALL") == tables_before
    assert {name: stored(home, name) for name in before} == before
    # nothing of the stopped ingest is left: no generation, no scratch
    assert sorted(p.name for p in home.generations("google2011").iterdir()) == gens_before
    assert not home.tmp.exists() or not any(home.tmp.iterdir())


def test_check_finds_a_stored_table_that_differs_from_the_events(tmp_path):
    home = home_of_two_slices(tmp_path)
    # a stored table overwritten with another's rows: every task of the sample differs
    assert failed_after_changing(home, "tasks", "events") == ["derived.tasks.recomputed"]
    # the check recomputes google2011 only (google2019's events are not ingested), yet a stored row
    # of google2019 beside google2011's is found: the stored side is read whole
    (path,) = stored_paths(home, "google2011", "observed_window")
    with duckdb.connect() as con:
        con.execute(
            f"COPY (SELECT * FROM read_parquet('{path}') UNION ALL "
            f"SELECT * REPLACE ('google2019' AS trace) FROM read_parquet('{path}')) "
            f"TO '{path}.new' (FORMAT parquet)"
        )
    os.replace(f"{path}.new", path)
    failed = [c.name for c in checks.run_all(home) if c.failed]
    assert failed == ["derived.observed_window.recomputed", "derived.tasks.recomputed"], failed


def test_a_check_that_cannot_run_is_one_line_naming_it(tmp_path):
    # Old code: "Error: internal error: IOException: ... (run with --debug)" (seen as a full disk
    # under `tracewh check` of the whole trace). Here a stored file is damaged: the check reading it
    # cannot run, and says which.
    home = home_of_two_slices(tmp_path)
    (damaged,) = stored_paths(home, "google2011", "tasks")
    damaged.unlink()
    damaged.write_bytes(b"not a parquet file\n" * 10)
    proc = subprocess.run(
        [*TRACEWH, "--home", str(home.root), "check"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1 and proc.stdout == "", proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("Error: check derived.tasks.recomputed could not run: "), lines
    assert "internal error" not in lines[0] and str(damaged) in lines[0], lines


def test_check_recomputes_the_traces_with_an_input_ingested():
    # by hand (the traces' specs): google2011's task events and usage are task_events and
    # task_usage, google2019's instance_events and instance_usage
    files = {derived.short(f): f for f in derived.files()}
    live = [("google2011", "task_events"), ("google2011", "job_events"), ("google2019", "instance_usage")]
    assert derived.checked_traces(files["tasks"], live) == ["google2011"]
    assert derived.checked_traces(files["task_usage_hourly"], live) == ["google2019"]
    # of events and usage: either input
    assert derived.checked_traces(files["attempt_usage_hourly"], live) == ["google2011", "google2019"]
    assert derived.checked_traces(files["tasks"], [("google2011", "job_events")]) == []


@pytest.mark.parametrize("pool, share", [("1GB", 1), ("500MB", 2), ("250MB", 3), ("110MB", 6)])
def test_a_range_is_cut_into_as_many_batches_as_the_pool_needs(monkeypatch, pool, share):
    # by hand: 2 M events a range at 300 bytes an event need 600 MB: a pool of 1 GB holds a whole
    # range, 500 MB half of one, 250 MB a third (2.4 batches), 110 MB a sixth (5.5)
    monkeypatch.setattr(derived, "BATCH_EVENTS", 2_000_000)
    monkeypatch.setattr(derived, "BATCH_BYTES_PER_EVENT", 300)
    with duckdb.connect(config={"memory_limit": pool}) as con:
        assert derived.batch_share(con) == share


def home_of_two_slices(tmp_path: Path, name: str = "home") -> Home:
    """A home of the task events of the first two slices (parts 0 and 1) and their derived tables."""
    home = Home.resolve(tmp_path / name)
    source_ = source(tmp_path / f"{name}-src", {0: SLICES[0], 1: SLICES[1]})
    ingest.ingest(home, "google2011", source_, IngestOptions(tables=["task_events"]))
    return home


def test_a_home_built_in_smaller_batches_has_the_same_ranges_and_files_row_for_row(tmp_path, monkeypatch):
    # a small memory pool cuts each job range into several build batches (batch_share); the
    # stored layout must not follow it: the same range files, each the same rows in the same order
    monkeypatch.setattr(derived, "BATCH_EVENTS", 2000)
    homes = {}
    cut: list[list[int]] = []
    batches = derived.batches

    def counted(*a):
        b = batches(*a)
        cut.append([r for r, _ in b])
        return b

    monkeypatch.setattr(derived, "batches", counted)
    for share in (1, 3):
        monkeypatch.setattr(derived, "batch_share", lambda con, share=share: share)
        homes[share] = home_of_two_slices(tmp_path, f"share{share}")
        same_as_the_views(homes[share])
    for name in STORED:
        assert in_file_order(homes[3], name) == in_file_order(homes[1], name), name
        assert [x.name for x in stored_paths(homes[3], "google2011", name)] == [
            x.name for x in stored_paths(homes[1], "google2011", name)
        ], name
    # by hand: 6,000 events in ranges of ~2,000 (whole jobs): 3 or 4 ranges; a third of a range a
    # batch, each range numbered as its batches come (0, 0, 0, 1, 1, 1, ...)
    one, three = cut
    assert len(set(one)) >= 3 and one == sorted(set(one)), one
    assert len(three) > len(one) and sorted(set(three)) == one and three == sorted(three), three
    assert len(stored_paths(homes[1], "google2011", "tasks")) == len(one)


def test_the_build_keeps_no_batch_in_memory_after_the_batch(tmp_path, monkeypatch):
    # Old code: each batch's events were a temp table made again for the next batch, but inside
    # the ingest's transaction a replaced table stays in memory (or spilled) to the commit: every
    # batch's events, the whole trace's at the end. The build now reads a batch from its scratch
    # file: DuckDB's temp tables hold as much after many batches as after 2.
    home = home_of_two_slices(tmp_path)
    cut: list[int] = []
    batches = derived.batches
    monkeypatch.setattr(derived, "batches", lambda *a: cut.append(len(b := batches(*a))) or b)
    held = {}
    for n in (3000, 500):
        monkeypatch.setattr(derived, "BATCH_EVENTS", n)
        shutil.copyfile(home.catalog, tmp_path / f"catalog{n}.duckdb")  # (the build writes its views)
        con = duckdb.connect(str(tmp_path / f"catalog{n}.duckdb"))
        try:
            con.execute("BEGIN")
            derived.build(con, Home.resolve(tmp_path / f"out{n}"), derived.Plan("google2011", True), "t")
            (held[n],) = con.execute(
                "SELECT sum(memory_usage_bytes) + sum(temporary_storage_bytes) FROM duckdb_memory() "
                "WHERE tag = 'IN_MEMORY_TABLE'"
            ).fetchone()
            con.execute("ROLLBACK")
        finally:
            con.close()
    # by hand: 6,000 events, more than a batch of 3,000; at 500 (whole jobs) many more batches
    assert cut[0] >= 2 and cut[1] >= cut[0] + 4, cut
    # (each batch table of the old code: 22 columns, a block of 256 KiB or more each)
    assert held[500] <= held[3000], held


def failed_after_changing(home: Home, name: str, column: str) -> list[str]:
    """The checks that fail once every row of the stored table has ``column`` + 1 (none before)."""
    assert not [c.name for c in checks.run_all(home) if c.failed]
    for path in stored_paths(home, "google2011", name):
        with duckdb.connect() as con:
            con.execute(
                f"COPY (SELECT * REPLACE ({column} + 1 AS {column}) FROM read_parquet('{path}')) "
                f"TO '{path}.new' (FORMAT parquet)"
            )
        os.replace(f"{path}.new", path)
    return [c.name for c in checks.run_all(home) if c.failed]


def test_the_stored_tables_read_in_polars_with_decoded_columns_and_integer_keys(sample_home):
    import polars as pl

    df = pl.read_parquet(stored_paths(sample_home, "google2011", "task_episode_core"))
    assert df.schema["episode_no"] == pl.Int64 and df.schema["job_id"] == pl.Int64
    # the end reasons as the names the trace documents, not codes
    assert set(df["end_reason"].drop_nulls().unique()) <= {"EVICT", "FAIL", "FINISH", "KILL", "LOST"}
    assert (
        df.height
        == read(sample_home, "SELECT count(*) FROM lifecycle.task_episodes WHERE trace = 'google2011'")[0][0]
    )


def test_a_stored_table_older_than_a_column_of_its_file_is_recomputed_until_the_next_ingest(tmp_path):
    home = Home.resolve(tmp_path / "h")
    ingest.ingest(
        home, "google2011", source(tmp_path / "s", {1: SLICES[1]}), IngestOptions(tables=["task_events"])
    )
    sql = "SELECT data_dir FROM meta.derived WHERE trace = 'google2011' AND name = 'task_transitions'"
    (path,) = stored_paths(home, "google2011", "task_transitions")
    # as a tracewh from before the attempt number wrote it
    with duckdb.connect() as con:
        old = f"SELECT * EXCLUDE (episode_no) FROM read_parquet('{path}')"
        con.execute(f"COPY ({old}) TO '{path}.old' (FORMAT parquet)")
    os.replace(f"{path}.old", path)
    catalog.repair(home)
    assert read(home, sql) == []
    # the view answers from the events: one first SUBMIT per task with a SUBMIT (event type 0), by hand
    with_submit = {tuple(r[2:4]) for r in (line.split(",") for line in SLICES[1]) if r[5] == "0"}
    first = "SELECT count(*) FROM derived.task_transitions WHERE to_event = 'SUBMIT' AND episode_no = 1"
    assert read(home, first) == [(len(with_submit),)]
    # the next ingest stores it again, whole (not the old rows of the tasks it does not touch)
    # (part 0 before part 1 opens no gap: with the old table kept it would recompute its tasks only)
    ingest.ingest(
        home, "google2011", source(tmp_path / "t", {0: SLICES[0]}), IngestOptions(tables=["task_events"])
    )
    assert len(read(home, sql)) == 1
    recomputed = "SELECT tasks_recomputed FROM meta.derived WHERE name = 'task_transitions'"
    assert read(home, recomputed) == [(None,)]
    assert read(home, "SELECT count(*) FROM derived.task_transitions WHERE episode_no IS NULL") == [(0,)]


# Real usage windows of the sample (both its parts, by start time), cut into slices that stand for
# usage parts: an hour's windows lie in two slices, so recomputing an hour reads another part's rows.
_USAGE = sorted(
    (
        line
        for p in sorted((SAMPLE / "task_usage").iterdir())
        for line in gzip.decompress(p.read_bytes()).decode().splitlines()
    ),
    key=lambda line: int(line.split(",")[0]),
)
USAGE_SLICES = {0: _USAGE[0:50], 1: _USAGE[50:100], 3: _USAGE[140:190], 5: _USAGE[190:]}
USAGE_1_AGAIN = _USAGE[50:85]  # part 1 replaced by a shorter file, without its windows of hour 1
HOUR_US = 3_600_000_000
START_US = 600_000_000  # the 2011 trace start in raw time


def usage_source(folder: Path, parts: dict[int, list[str]]) -> Path:
    for n, lines in parts.items():
        write_gz(folder / "task_usage" / f"part-{n:05d}-of-00500.csv.gz", lines)
    return folder


def known_windows(lines: list[str]) -> Iterator[tuple[list[str], int, float]]:
    """The fields, start and seconds of each window of known length (a special start or end time,
    0 or the largest time, leaves it out)."""
    for line in lines:
        f = line.split(",")
        start, end = int(f[0]), int(f[1])
        if start not in (0, 2**63 - 1) and end not in (0, 2**63 - 1):
            yield f, start, (end - start) / 1e6


def hourly_by_hand(lines: list[str]) -> dict[tuple, tuple]:
    """task_usage_hourly from the CSV lines in plain Python: per (job, task, clock hour, trace hour),
    windows, seconds, core-seconds, memory-seconds and the 5-minute slots (windows of unknown length,
    with a special start or end time, left out)."""
    out: dict[tuple, list] = {}
    for f, start, s in known_windows(lines):
        since = (
            start - START_US
        )  # SQL's integer division truncates: a window just before the start is in hour 0
        key = (int(f[2]), int(f[3]), start // HOUR_US, abs(since) // HOUR_US * (1 if since >= 0 else -1))
        acc = out.setdefault(key, [0, 0.0, 0.0, 0.0, 0])
        acc[0] += 1
        acc[1] += s
        acc[2] += float(f[5]) * s if f[5] else 0.0
        acc[3] += float(f[6]) * s if f[6] else 0.0
        acc[4] |= 1 << ((start % HOUR_US) // 300_000_000)
    return {k: tuple(v) for k, v in out.items()}


def machine_windows_by_hand(lines: list[str]) -> dict[tuple, tuple]:
    """machine_usage_windows from the CSV lines in plain Python: per (machine, window start),
    windows, summed mean CPU and memory, core- and memory-seconds (windows of unknown length left
    out)."""
    out: dict[tuple, list] = {}
    for f, start, s in known_windows(lines):
        acc = out.setdefault((int(f[4]) if f[4] else None, start), [0, 0.0, 0.0, 0.0, 0.0])
        acc[0] += 1
        acc[1] += float(f[5]) if f[5] else 0.0
        acc[2] += float(f[6]) if f[6] else 0.0
        acc[3] += float(f[5]) * s if f[5] else 0.0
        acc[4] += float(f[6]) * s if f[6] else 0.0
    return {k: tuple(v) for k, v in out.items()}


def stored_hourly(home: Home) -> dict[tuple, tuple]:
    rows = stored(home, "task_usage_hourly")
    cols = [
        c
        for (c,) in read(
            home,
            "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'derived' "
            "AND table_name = 'task_usage_hourly' ORDER BY column_index",
        )
    ]
    out = {}
    for r in rows:
        d = dict(zip(cols, r, strict=True))
        key = (d["job_id"], d["task_index"], d["clock_hour"], d["hour"])
        out[key] = (d["windows"], d["window_s"], d["cpu_s"], d["memory_s"], d["slots"])
    return out


# usage parts ingested one after the other: (parts, --replace)
USAGE_STEPS = [
    ({1: USAGE_SLICES[1]}, False),
    ({0: USAGE_SLICES[0]}, False),  # before part 1: its hour 0 also holds part 1's windows
    ({3: USAGE_SLICES[3]}, False),
    ({1: USAGE_1_AGAIN}, False),  # part 1 replaced by a shorter file: its old last hour too
    ({5: USAGE_SLICES[5]}, False),
    ({0: USAGE_SLICES[0], 1: USAGE_1_AGAIN, 3: USAGE_SLICES[3]}, True),  # part 5 removed
]


def test_the_usage_rollup_after_parts_out_of_order_a_replaced_and_a_removed_part_equals_a_full_rebuild(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    step, only, steps = Home.resolve(tmp_path / "step"), ["task_usage"], USAGE_STEPS
    recomputed = []
    for i, (parts, replace) in enumerate(steps):
        ingest.ingest(
            step,
            "google2011",
            usage_source(tmp_path / f"s{i}", parts),
            IngestOptions(tables=only, replace=replace),
        )
        same_as_the_views(step)
        (n,) = read(step, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'task_usage_hourly'")[0]
        recomputed.append(n)
    # by hand: the first build and --replace rebuild whole; the other ingests recompute their hours
    assert [n is not None for n in recomputed] == [False, True, True, True, True, False]
    # the tasks of the hours part 0 touches (hour 0 and the hours of its windows), from the files
    now = USAGE_SLICES[0] + USAGE_SLICES[1]
    hours_0 = {int(line.split(",")[0]) // HOUR_US for line in USAGE_SLICES[0]}
    assert recomputed[1] == len(
        {tuple(line.split(",")[2:4]) for line in now if int(line.split(",")[0]) // HOUR_US in hours_0}
    )
    final = steps[-1][0]
    fresh = Home.resolve(tmp_path / "fresh")
    ingest.ingest(fresh, "google2011", usage_source(tmp_path / "g", final), IngestOptions(tables=only))
    assert stored(step, "task_usage_hourly") == stored(fresh, "task_usage_hourly")
    assert stored(step, "machine_usage_windows") == stored(fresh, "machine_usage_windows")
    # and both hold what a plain reading of the files gives
    lines = [line for ls in final.values() for line in ls]
    want = hourly_by_hand(lines)
    got = stored_hourly(step)
    assert set(got) == set(want)
    for key, (windows, secs, cpu_s, mem_s, slots) in want.items():
        assert got[key][0] == windows and got[key][4] == slots, key
        assert got[key][1:4] == pytest.approx((secs, cpu_s, mem_s), rel=1e-12), key
    by_machine = {
        (m, start): (n, cpu, mem, cpu_s, mem_s)
        for (m, start, n, cpu, mem, cpu_s, mem_s) in read(
            step,
            "SELECT machine_id, start_time, windows, cpu, memory, cpu_s, memory_s "
            "FROM derived.machine_usage_windows",
        )
    }
    want_machines = machine_windows_by_hand(lines)
    assert set(by_machine) == set(want_machines)
    for key, (n, *sums) in want_machines.items():
        assert by_machine[key][0] == n and by_machine[key][1:] == pytest.approx(tuple(sums), rel=1e-12), key


def test_check_finds_a_usage_rollup_that_differs_from_the_windows(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(
        home, "google2011", usage_source(tmp_path / "a", USAGE_SLICES), IngestOptions(tables=["task_usage"])
    )
    assert failed_after_changing(home, "task_usage_hourly", "windows") == [
        "derived.task_usage_hourly.recomputed"
    ]


def test_the_signal_watch_hears_a_ctrl_c_that_a_thread_started_before_it_takes():
    # Old code: the watch took only the signals the kernel left pending; with the main thread
    # blocking them, the kernel hands a SIGINT to a thread that does not (here the only one, as
    # pyarrow's pool after an ingest's conversion), Python's handler only notes it for the main
    # thread, and the query inside the watch ran on (here until the test's fallback interrupt).
    from tracewh import signals

    quit_early = threading.Event()
    fell_back = threading.Event()  # the query was stopped by the test's own interrupt, not the signal
    earlier = threading.Thread(target=quit_early.wait, daemon=True)  # SIGINT not blocked in it
    earlier.start()
    con = None
    try:
        with pytest.raises(KeyboardInterrupt), signals.interrupting(lambda: con and con.interrupt()):
            con = duckdb.connect()  # its threads block the signals, as the watch's own thread
            main = threading.get_ident()

            def send() -> None:
                while (frame := sys._current_frames().get(main)) is None or frame.f_code.co_name != "query":
                    time.sleep(0.001)
                os.kill(os.getpid(), signal.SIGINT)
                if not quit_early.wait(120):
                    fell_back.set()
                    con.interrupt()

            sender = threading.Thread(target=send, daemon=True)
            sender.start()

            def query() -> None:
                con.execute("SELECT count(*) FROM range(1000000000000000) AS t(x) WHERE x % 7 = 3").fetchall()

            query()
    finally:
        quit_early.set()
        if con is not None:
            con.close()
    assert not fell_back.is_set()  # whatever the load: the signal stopped it, not the fallback


def test_a_usage_table_the_home_lacks_is_built_whole_and_the_others_by_their_hours(tmp_path):
    # a home from a tracewh before the table (here its row of meta.derived removed, as the catalog
    # forgets an outdated table): the next ingest of usage builds it whole, from every window, and
    # recomputes only the hours of its parts in the tables the home holds
    home = Home.resolve(tmp_path / "h")
    only = IngestOptions(tables=["task_usage"])
    ingest.ingest(home, "google2011", usage_source(tmp_path / "a", {0: USAGE_SLICES[0]}), only)
    with duckdb.connect(str(home.catalog)) as con:
        con.execute("DELETE FROM meta.derived WHERE name = 'machine_usage_windows'")
    catalog.repair(home)
    ingest.ingest(home, "google2011", usage_source(tmp_path / "b", {1: USAGE_SLICES[1]}), only)
    recomputed = dict(read(home, "SELECT name, tasks_recomputed FROM meta.derived"))
    assert recomputed["machine_usage_windows"] is None
    assert recomputed["task_usage_hourly"] is not None
    same_as_the_views(home)
    assert read(home, "SELECT count(*) FROM derived.machine_usage_windows") == [
        (len(machine_windows_by_hand(USAGE_SLICES[0] + USAGE_SLICES[1])),)
    ]


@pytest.mark.parametrize("name", ["task_usage_hourly", "tasks"])
def test_a_table_stored_as_one_file_by_an_older_tracewh_is_rebuilt_as_unit_files(tmp_path, name):
    # the usage table (6-hour units) and a table of task rows (job ranges), each with its input
    table, make, first, then = (
        ("task_usage", usage_source, USAGE_SLICES[0], USAGE_SLICES[1])
        if name == "task_usage_hourly"
        else ("task_events", source, SLICES[0], SLICES[1])
    )
    home = Home.resolve(tmp_path / "h")
    ingest.ingest(home, "google2011", make(tmp_path / "a", {0: first}), IngestOptions(tables=[table]))
    sql = f"SELECT name FROM meta.derived WHERE name = '{name}'"
    catalog.repair(home)  # a home in this layout keeps its tables
    assert read(home, sql) == [(name,)]
    rows = stored(home, name)
    # as a tracewh from before the unit files wrote it: one file beside the generation's tables
    folder = stored_paths(home, "google2011", name)[0].parent
    listed = ", ".join(f"'{x}'" for x in sorted(folder.iterdir()))
    with duckdb.connect() as con:
        con.execute(f"COPY (SELECT * FROM read_parquet([{listed}])) TO '{folder}.parquet' (FORMAT parquet)")
    shutil.rmtree(folder)
    catalog.repair(home)
    assert read(home, sql) == []  # forgotten: the view answers from the input
    assert read(home, f"SELECT * FROM derived.{name} ORDER BY ALL") == rows
    # the next ingest of the input stores it again, whole, in unit files
    ingest.ingest(home, "google2011", make(tmp_path / "b", {1: then}), IngestOptions(tables=[table]))
    assert read(home, f"SELECT tasks_recomputed FROM meta.derived WHERE name = '{name}'") == [(None,)]
    assert stored_paths(home, "google2011", name)[0].parent.name == name
    same_as_the_views(home)
