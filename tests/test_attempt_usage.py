"""The usage windows summed per run attempt (lifecycle.attempt_usage, stored as derived.attempt_usage
at ingest, read by cpu-by-runtime): the stored table equals the view recomputed from the raw
rows whatever order the task events and the task usage came in, and holds the sums worked out by
hand below."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from conftest import read_catalog as read
from conftest import stored_paths, stored_rows, task_row, write_gz

import tracewh
from tracewh import ingestion
from tracewh.home import Home
from tracewh.options import IngestOptions

S = 1_000_000  # microseconds per second
SUBMIT, SCHEDULE, FINISH = 0, 1, 4
COLUMNS = "job_id, task_index, episode_no, windows, window_s, cpu_s, memory_s"


def usage_row(start_s: int, end_s: int, job: int, cpu: str, mem: str) -> str:
    """A task_usage line in the published shape (20 fields), task index 0 on machine 5."""
    rest = f"0.0001,0.001,0.05,1e-06,2e-05,{cpu},0.0001,,,0,0,{cpu}"
    return f"{start_s * S},{end_s * S},{job},0,5,{cpu},{mem},{mem},{rest}"


# task (1, 0) submitted at 600 s and scheduled at 700 s, task (2, 0) both at 800 s
TWO_STARTS = [
    task_row(600 * S, 1, 0, SUBMIT),
    task_row(700 * S, 1, 0, SCHEDULE, machine=5),
    task_row(800 * S, 2, 0, SUBMIT),
    task_row(800 * S, 2, 0, SCHEDULE, machine=5),
]


def raw(src: Path) -> Path:
    """Two task_events parts and two task_usage parts (600-1299 s, 1300-2500 s).
    task (1, 0): SUBMIT 600, SCHEDULE 700 (part 0), FINISH 1300, SUBMIT 1400, SCHEDULE 1500, no end
      (part 1): attempt 1 runs [700, 1300), attempt 2 from 1500 on.
      windows: [600, 900) cpu .5 mem .1 -> starts before attempt 1's SCHEDULE: outside (NULL)
               [700, 1000) cpu .1 mem .2, [1000, 1300) cpu .2 mem .2 -> attempt 1
               [1300, 1600) cpu .4 mem .1 -> attempt 1 ended at 1300 (end excluded), attempt 2 runs
                                            from 1500: outside (NULL)
               [1600, 1900) cpu .3 mem .3 -> attempt 2
    task (2, 0): SUBMIT and SCHEDULE 800, FINISH 1100 (part 0); window [800, 1100) cpu .25 mem .5.
    task (3, 0): no task event; window [1300, 1600) cpu .6 mem .4 (no attempt: no row)."""
    write_gz(
        src / "task_events" / "part-00000-of-00500.csv.gz",
        [*TWO_STARTS, task_row(1100 * S, 2, 0, FINISH, machine=5)],
    )
    write_gz(
        src / "task_events" / "part-00001-of-00500.csv.gz",
        [
            task_row(1300 * S, 1, 0, FINISH, machine=5),
            task_row(1400 * S, 1, 0, SUBMIT),
            task_row(1500 * S, 1, 0, SCHEDULE, machine=5),
            task_row(2500 * S, 9, 0, SUBMIT),  # the end of the observed time
        ],
    )
    write_gz(
        src / "task_usage" / "part-00000-of-00500.csv.gz",
        [
            usage_row(600, 900, 1, "0.5", "0.1"),
            usage_row(700, 1000, 1, "0.1", "0.2"),
            usage_row(800, 1100, 2, "0.25", "0.5"),
            usage_row(1000, 1300, 1, "0.2", "0.2"),
        ],
    )
    write_gz(
        src / "task_usage" / "part-00001-of-00500.csv.gz",
        [
            usage_row(1300, 1600, 1, "0.4", "0.1"),
            usage_row(1300, 1600, 3, "0.6", "0.4"),
            usage_row(1600, 1900, 1, "0.3", "0.3"),
        ],
    )
    return src


# By hand from the rows above: (job, task, episode_no, windows, window_s, cpu_s, memory_s)
EXPECTED = [
    (1, 0, 1, 2, 600.0, 0.1 * 300 + 0.2 * 300, 0.2 * 300 + 0.2 * 300),
    (1, 0, 2, 1, 300.0, 0.3 * 300, 0.3 * 300),
    (1, 0, None, 2, 600.0, 0.5 * 300 + 0.4 * 300, 0.1 * 300 + 0.1 * 300),
    (2, 0, 1, 1, 300.0, 0.25 * 300, 0.5 * 300),
]


def stored(home: Home) -> list[tuple]:
    """derived.attempt_usage of google2011 from the Parquet of the stored per-hour table (not
    through a view): its hours added up per attempt by a plain query."""
    listed = ", ".join(f"'{x}'" for x in stored_paths(home, "google2011", "attempt_usage_hourly"))
    if not listed:  # no window yet: no file
        return []
    with duckdb.connect() as con:
        return con.execute(
            "SELECT job_id, task_index, episode_no, sum(windows)::BIGINT, fsum(window_s), fsum(cpu_s), "
            f"fsum(memory_s) FROM read_parquet([{listed}]) GROUP BY ALL ORDER BY ALL"
        ).fetchall()


def recomputed(home: Home) -> list[tuple]:
    """The life-cycle view, which computes the table from the raw rows."""
    return read(
        home, f"SELECT {COLUMNS} FROM lifecycle.attempt_usage WHERE trace = 'google2011' ORDER BY ALL"
    )


def approx(rows: list[tuple]) -> list[tuple]:
    return [tuple(pytest.approx(v) if isinstance(v, float) else v for v in r) for r in rows]


def test_stored_attempt_usage_equals_the_view_on_the_sample(sample_home):
    for trace in ("google2011", "google2019"):
        rows = read(
            sample_home,
            f"SELECT count(*) FROM (SELECT * FROM derived.attempt_usage WHERE trace = '{trace}' "
            f"EXCEPT ALL SELECT * FROM lifecycle.attempt_usage WHERE trace = '{trace}')",
        )
        again = read(
            sample_home,
            f"SELECT count(*) FROM (SELECT * FROM lifecycle.attempt_usage WHERE trace = '{trace}' "
            f"EXCEPT ALL SELECT * FROM derived.attempt_usage WHERE trace = '{trace}')",
        )
        assert rows == again == [(0,)], trace
    # The stored rows are read from Parquet, and every window of a task with an event is in one
    # row (counted by a plain query on the usage view; the sample's attempts do not overlap).
    ((windows, total),) = read(
        sample_home,
        "SELECT count(*), sum(cpu * window_s) FROM lifecycle.task_usage AS u "
        "SEMI JOIN lifecycle.tasks AS t ON t.trace = u.trace AND t.cell IS NOT DISTINCT FROM u.cell "
        "AND t.job_id = u.job_id AND t.task_index = u.task_index WHERE u.window_s IS NOT NULL",
    )
    ((held, held_cpu),) = read(sample_home, "SELECT sum(windows), sum(cpu_s) FROM derived.attempt_usage")
    assert windows > 0 and held == windows and held_cpu == pytest.approx(total)


@pytest.mark.parametrize(
    ("order", "last_recomputed"),
    [
        # events first, then the usage: the table, built by the events' ingest, is recomputed for
        # the hours the usage's parts hold (every window here: the two tasks with events and windows)
        ([("task_events", None), ("task_usage", None)], 2),
        # usage first; then the events part by part (the second recomputes the 2 tasks of part 1)
        ([("task_usage", None), ("task_events", "0"), ("task_events", "1")], 2),
        # interleaved, the usage parts out of order; the last recomputes the hour its part holds
        # (hour 0: every window here), so the two tasks with events and windows
        ([("task_events", "0"), ("task_usage", "1"), ("task_events", "1"), ("task_usage", "0")], 2),
    ],
    ids=["events-then-usage", "usage-then-events", "interleaved"],
)
def test_stored_attempt_usage_equals_the_view_after_ingests_in_any_order(tmp_path, order, last_recomputed):
    src = raw(tmp_path / "src")
    home = Home.resolve(tmp_path / "home")
    for table, parts in order:
        ingestion.ingest(home, "google2011", src, IngestOptions(tables=[table], parts=parts))
        assert stored(home) == recomputed(home), (table, parts)
    assert approx(stored(home)) == EXPECTED
    assert read(home, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'attempt_usage_hourly'") == [
        (last_recomputed,)
    ]
    # What cpu-by-runtime makes of it: every window's CPU once, with the event-less task's
    # (3, 0) among the usage outside every attempt: 90 + 90 + 270 + 75 + 180 core-seconds.
    r = tracewh.report("cpu-by-runtime", trace="google2011", home=home.root)
    rows = [dict(zip(r.rows.columns, row, strict=True)) for row in r.rows.rows]
    by_time = [x for x in rows if x["section"] == "by execution time"]
    assert sum(x["cpu_core_hours"] for x in by_time) == pytest.approx(705 / 3600, abs=1e-5)
    (outside,) = [x for x in by_time if x["class"] == "(usage outside every run attempt)"]
    assert outside["cpu_core_hours"] == pytest.approx((270 + 180) / 3600, abs=1e-6)
    # no attempt: a count of distinct attempt keys counted the unmatched rows' all-NULL key as one
    assert outside["attempts"] == 0


# Execution times at and just below each bound of cpu-by-runtime's classes (a class is [lower, upper)).
CLASS_BOUND_RUNS = [299, 300, 1_799, 1_800, 3_599, 3_600, 21_599, 21_600, 86_399, 86_400]


def test_cpu_by_runtime_puts_a_run_of_exactly_a_bound_in_the_class_that_starts_there(tmp_path):
    # job j runs one attempt of CLASS_BOUND_RUNS[j - 1] s from 1000 s, with one window [1000, 1300)
    # of j / 100 cores (and memory): the classes' CPU is the sum of their jobs' j, over 55.
    src = tmp_path / "src"
    events, usage = [], []
    for job, run_s in enumerate(CLASS_BOUND_RUNS, start=1):
        events += [
            task_row(1000 * S, job, 0, SUBMIT),
            task_row(1000 * S, job, 0, SCHEDULE, machine=5),
            task_row((1000 + run_s) * S, job, 0, FINISH, machine=5),
        ]
        usage.append(usage_row(1000, 1300, job, f"{job / 100}", f"{job / 100}"))
    events.append(task_row(90_000 * S, 99, 0, SUBMIT))  # the end of the observed time
    write_gz(
        src / "task_events" / "part-00000-of-00500.csv.gz", sorted(events, key=lambda x: int(x.split(",")[0]))
    )
    write_gz(src / "task_usage" / "part-00000-of-00500.csv.gz", usage)
    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", src)
    r = tracewh.report("cpu-by-runtime", trace="google2011", home=home.root)
    rows = [dict(zip(r.rows.columns, row, strict=True)) for row in r.rows.rows]
    got = {x["class"]: (x["attempts"], x["cpu_share"]) for x in rows if x["section"] == "by execution time"}
    assert got == {
        "< 5 min": (1, round(1 / 55, 4)),
        "5-30 min": (2, round((2 + 3) / 55, 4)),
        "30 min - 1 h": (2, round((4 + 5) / 55, 4)),
        "1-6 h": (2, round((6 + 7) / 55, 4)),
        "6-24 h": (2, round((8 + 9) / 55, 4)),
        ">= 1 day": (1, round(10 / 55, 4)),
    }


D = 86_400  # seconds a day
U = 6 * 3_600  # seconds of a unit of the stored usage tables' files (clock_hour // 6)


def day_windows(day: int, ks: range, job: int, scale: float, offset: int = 1000) -> list[str]:
    """Windows of 300 s of task (job, 0) on ``day``, CPU and memory varying with k."""
    return [
        usage_row(
            day * D + offset + 300 * k,
            day * D + offset + 300 * (k + 1),
            job,
            f"{scale * (k + 1):.4g}",
            f"{scale / (k + 2):.4g}",
        )
        for k in ks
    ]


# Four days of usage of two tasks with events, in usage parts that stand for stretches of time.
# task (1, 0): attempt 1 runs from 700 s to its FINISH on day 2 (2D + 5000), attempt 2 from 2D + 7000
# on; task (2, 0) runs from 800 s on. Each day's windows lie in its first 6 hours (unit 4 x day),
# but part 2 also holds one window of day 1, an hour after part 1's (a unit's windows in two
# parts); day 2's window at 2D + 5500 lies between the attempts (outside both).
DAY_PARTS = {
    0: day_windows(0, range(4), 1, 0.113) + day_windows(0, range(3), 2, 0.071),
    1: day_windows(1, range(5), 1, 0.097) + day_windows(1, range(4), 2, 0.13),
    2: day_windows(1, range(1), 2, 0.3, offset=4000)
    + day_windows(2, range(2), 1, 0.21, offset=4000)
    + day_windows(2, range(1), 1, 0.17, offset=5500)
    + day_windows(2, range(3), 1, 0.059, offset=8000)
    + day_windows(2, range(2), 2, 0.083),
    3: day_windows(3, range(3), 1, 0.149) + day_windows(3, range(2), 2, 0.101),
}
DAY_1_AGAIN = day_windows(1, range(2), 1, 0.43) + day_windows(1, range(1), 2, 0.029)
USAGE_TABLES = ("task_usage_hourly", "attempt_usage_hourly")


def days_events(src: Path) -> Path:
    write_gz(
        src / "task_events" / "part-00000-of-00500.csv.gz",
        [
            *TWO_STARTS,
            task_row((2 * D + 5000) * S, 1, 0, FINISH, machine=5),
            task_row((2 * D + 6000) * S, 1, 0, SUBMIT),
            task_row((2 * D + 7000) * S, 1, 0, SCHEDULE, machine=5),
            task_row(4 * D * S, 9, 0, SUBMIT),  # the end of the observed time
        ],
    )
    return src


def days_usage(src: Path, parts: dict[int, list[str]]) -> Path:
    for n, lines in parts.items():
        write_gz(src / "task_usage" / f"part-{n:05d}-of-00500.csv.gz", lines)
    return src


def unit_files(home: Home) -> dict[tuple[str, int], tuple[int, int]]:
    """(table, unit) -> (inode, mtime) of each unit file of the stored usage tables."""
    out = {}
    have = {n for (n,) in read(home, "SELECT name FROM meta.derived")}
    for name in have & set(USAGE_TABLES):
        for x in stored_paths(home, "google2011", name):
            st = x.stat()
            out[(name, int(x.stem))] = (st.st_ino, st.st_mtime_ns)
    return out


def test_usage_ingests_rewrite_only_the_units_their_parts_hold_and_equal_a_full_rebuild(
    tmp_path, monkeypatch
):
    from tracewh import catalog

    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)  # the old generations go at each ingest
    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", days_events(tmp_path / "e"), IngestOptions(tables=["task_events"]))
    # (usage parts, --replace, the units they hold by hand: the files written again)
    steps = [
        ({2: DAY_PARTS[2]}, False, None),  # the first usage ingest: every table built whole
        ({0: DAY_PARTS[0]}, False, {0}),  # a part before the first one
        ({3: DAY_PARTS[3]}, False, {12}),
        ({1: DAY_PARTS[1]}, False, {4}),  # unit 4 also holds part 2's window (its hour kept)
        ({1: DAY_1_AGAIN}, False, {4}),  # part 1 replaced by a shorter file
        ({0: DAY_PARTS[0], 1: DAY_1_AGAIN, 2: DAY_PARTS[2]}, True, None),  # part 3 removed
    ]
    now: dict[int, list[str]] = {}
    for i, (parts, replace, units) in enumerate(steps):
        before, gens_before = unit_files(home), set(home.generations("google2011").iterdir())
        now = dict(parts) if replace else {**now, **parts}
        ingestion.ingest(
            home,
            "google2011",
            days_usage(tmp_path / f"u{i}", parts),
            IngestOptions(tables=["task_usage"], replace=replace),
        )
        # the same rows, to the last bit, as one ingest of the events and the parts there are now
        fresh = Home.resolve(tmp_path / f"fresh{i}")
        ingestion.ingest(fresh, "google2011", days_usage(days_events(tmp_path / f"f{i}"), now))
        for name in USAGE_TABLES:
            assert stored_rows(home, "google2011", name) == stored_rows(fresh, "google2011", name), (i, name)
        assert stored(home) == recomputed(home) == recomputed(fresh), i
        after = unit_files(home)
        # every unit with a window has its file in each table (day 3's gone with its part)
        assert {u for _, u in after} == {
            int(line.split(",")[0]) // (U * S) for lines in now.values() for line in lines
        }, i
        if units is None:
            continue
        # the units the parts hold are written again; every other unit's file is the old one (the
        # same inode, never rewritten), in the new generation's folder
        for key, (ino, mtime) in after.items():
            assert (key[1] in units) != (before.get(key) == (ino, mtime)), (i, key)
        (gen,) = {
            x
            for x in set(home.generations("google2011").iterdir()) - gens_before
            if x.name.startswith("derived.")
        }
        assert all(gen in x.parents for name in USAGE_TABLES for x in stored_paths(home, "google2011", name))
    n = read(home, "SELECT name, tasks_recomputed FROM meta.derived WHERE name IN ('attempt_usage_hourly') ")
    assert n == [("attempt_usage_hourly", None)]  # the last, --replace: rebuilt whole
    # by hand, part 2's window between the attempts of task (1, 0) is outside both: 0.17 x 300
    outside = [r for r in stored(home) if r[0] == 1 and r[2] is None]
    assert approx(outside) == [(1, 0, None, 1, 300.0, 0.17 * 300, 0.17 / 2 * 300)]


def test_an_events_ingest_rewrites_only_the_units_where_its_tasks_change_attempt(tmp_path, monkeypatch):
    from tracewh import catalog

    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)  # the old generations go at each ingest
    # days_events' rows in two parts: attempt 1 of task (1, 0) open at first; the second part ends
    # it on day 2 (2D + 5000) and starts attempt 2 (2D + 7000)
    first, later = (
        TWO_STARTS,
        [
            task_row((2 * D + 5000) * S, 1, 0, FINISH, machine=5),
            task_row((2 * D + 6000) * S, 1, 0, SUBMIT),
            task_row((2 * D + 7000) * S, 1, 0, SCHEDULE, machine=5),
            task_row(4 * D * S, 9, 0, SUBMIT),
        ],
    )
    src = days_usage(tmp_path / "src", DAY_PARTS)
    write_gz(src / "task_events" / "part-00000-of-00500.csv.gz", first)
    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", src, IngestOptions(tables=["task_events", "task_usage"]))
    before = unit_files(home)
    write_gz(src / "task_events" / "part-00001-of-00500.csv.gz", later)
    ingestion.ingest(home, "google2011", src, IngestOptions(tables=["task_events"], parts="1"))
    recomputed_now = "SELECT tasks_recomputed FROM meta.derived WHERE name = 'attempt_usage_hourly'"
    assert read(home, recomputed_now) == [(2,)]  # tasks (1, 0) and (9, 0)
    fresh = Home.resolve(tmp_path / "fresh")
    ingestion.ingest(fresh, "google2011", days_usage(days_events(tmp_path / "f"), DAY_PARTS))
    for name in USAGE_TABLES:
        assert stored_rows(home, "google2011", name) == stored_rows(fresh, "google2011", name), name
    assert stored(home) == recomputed(fresh)
    # by hand: the windows of task (1, 0) from 2D + 5000 on change attempt (units 8 and 12, days 2
    # and 3); its windows of days 0 and 1 stay in attempt 1, task (2, 0) is not touched: units 0
    # and 4 are the old files (same inode), 8 and 12 written again
    after = unit_files(home)
    rows = {u for (name, u) in after if name == "attempt_usage_hourly"}
    assert rows == {0, 4, 8, 12}
    kept = {u for (n, u), st in after.items() if n == "attempt_usage_hourly" and before[(n, u)] == st}
    assert kept == {0, 4}


UPDATE_PENDING = 7
# Two more tasks whose attempts the second events part changes in hours long before its events:
# task (4, 0) has only an UPDATE_PENDING (900 s) in part 0: attempt 0, not run, its windows outside
# every attempt; part 1's FINISH on a machine (2D + 5000) says attempt 0 ran, from time 0 (its
# SCHEDULE before the data) to the FINISH: its windows of days 0 and 1 move into attempt 0, day 3's
# stay outside. Task (5, 0) has windows on days 0 and 1 but no event before part 1 (SUBMIT 2D + 100,
# SCHEDULE 2D + 200): its windows of days 0 and 1 get rows (outside every attempt), day 2's are
# attempt 1's.
LATE_WINDOWS = {
    0: day_windows(0, range(3), 4, 0.07) + day_windows(0, range(2), 5, 0.11),
    1: day_windows(1, range(2), 4, 0.05) + day_windows(1, range(3), 5, 0.031),
    2: day_windows(2, range(2), 5, 0.21, offset=3000),
    3: day_windows(3, range(2), 4, 0.09),
}


def window_sums(lines: list[str]) -> tuple:
    """(windows, window_s, cpu_s, memory_s) of usage lines, in plain Python."""
    fields = [line.split(",") for line in lines]
    spans = [(int(f[1]) - int(f[0])) / S for f in fields]
    return (
        len(fields),
        sum(spans),
        sum(float(f[5]) * s for f, s in zip(fields, spans, strict=True)),
        sum(float(f[6]) * s for f, s in zip(fields, spans, strict=True)),
    )


@pytest.mark.parametrize("usage_too", [False, True], ids=["events-only", "with-usage-part"])
def test_an_events_ingest_recomputes_the_windows_of_earlier_hours_whose_attempt_it_changes(
    tmp_path, monkeypatch, usage_too
):
    # Old windows whose attempt a later events part changes although they start days before its
    # events (a build that recomputed only the hours from a task's new events on keeps them as
    # they were); usage_too: the streamed case, the last usage part comes with the events part
    from tracewh import catalog

    monkeypatch.setattr(catalog, "RETIRED_GRACE_S", 0)
    usage = {n: DAY_PARTS[n] + LATE_WINDOWS[n] for n in DAY_PARTS}
    first = [*TWO_STARTS, task_row(900 * S, 4, 0, UPDATE_PENDING)]
    later = [
        task_row(100 * S + 2 * D * S, 5, 0, SUBMIT),
        task_row(200 * S + 2 * D * S, 5, 0, SCHEDULE, machine=5),
        task_row((2 * D + 5000) * S, 1, 0, FINISH, machine=5),
        task_row((2 * D + 5000) * S, 4, 0, FINISH, machine=5),
        task_row((2 * D + 6000) * S, 1, 0, SUBMIT),
        task_row((2 * D + 7000) * S, 1, 0, SCHEDULE, machine=5),
        task_row(4 * D * S, 9, 0, SUBMIT),
    ]
    src = days_usage(tmp_path / "src", {n: w for n, w in usage.items() if n < 3 or not usage_too})
    write_gz(src / "task_events" / "part-00000-of-00500.csv.gz", first)
    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", src, IngestOptions(tables=["task_events", "task_usage"]))
    write_gz(src / "task_events" / "part-00001-of-00500.csv.gz", later)
    if usage_too:
        days_usage(src, {3: usage[3]})
    ingestion.ingest(home, "google2011", src, IngestOptions(parts="1,3" if usage_too else "1"))
    recomputed_now = "SELECT tasks_recomputed FROM meta.derived WHERE name = 'task_episode_core'"
    assert read(home, recomputed_now) == [(4,)]  # an incremental build: tasks 1, 4, 5 and 9
    fresh = Home.resolve(tmp_path / "fresh")
    write_gz(tmp_path / "f" / "task_events" / "part-00000-of-00500.csv.gz", first + later)
    ingestion.ingest(fresh, "google2011", days_usage(tmp_path / "f", usage))
    for name in USAGE_TABLES:
        assert stored_rows(home, "google2011", name) == stored_rows(fresh, "google2011", name), name
    # by hand, the attempts of tasks 4 and 5 from the windows above
    days = LATE_WINDOWS
    job = {4: [w for n in days for w in days[n] if w.split(",")[2] == "4"]}
    job[5] = [w for n in days for w in days[n] if w.split(",")[2] == "5"]
    want = [
        (4, 0, 0, *window_sums([w for w in job[4] if int(w.split(",")[0]) < 2 * D * S])),
        (4, 0, None, *window_sums([w for w in job[4] if int(w.split(",")[0]) >= 3 * D * S])),
        (5, 0, 1, *window_sums([w for w in job[5] if int(w.split(",")[0]) >= 2 * D * S])),
        (5, 0, None, *window_sums([w for w in job[5] if int(w.split(",")[0]) < 2 * D * S])),
    ]
    assert [r for r in stored(home) if r[0] in (4, 5)] == approx(want)


def test_a_usage_ingest_reads_the_stored_attempts_of_the_ranges_holding_its_hours_jobs_only(
    tmp_path, monkeypatch
):
    # The attempts a usage ingest matches its windows to are read from the job-range files holding
    # the jobs of the touched hours' windows, not from every stored attempt (a read that grew with
    # the home at every ingest). Shown by planting, in the file of a range holding none of those
    # jobs, a second attempt of a task that has windows there: read, it would take the windows.
    from tracewh.catalog import derived

    # ranges of ~2 events: jobs 1 (5 events), 2 (2) and 9 (1) each in a range of its own
    monkeypatch.setattr(derived, "BATCH_EVENTS", 2)
    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", days_events(tmp_path / "e"), IngestOptions(tables=["task_events"]))
    core = stored_paths(home, "google2011", "task_episode_core")
    with duckdb.connect() as con:
        jobs = [
            con.execute(f"SELECT list(DISTINCT job_id) FROM read_parquet('{x}')").fetchone()[0] for x in core
        ]
        assert sorted(jobs) == [[1], [2], [9]], jobs
        (of_1,) = [x for x, j in zip(core, jobs, strict=True) if j == [1]]
        (of_2,) = [x for x, j in zip(core, jobs, strict=True) if j == [2]]
        was = tmp_path / "was.parquet"
        of_1.rename(was)  # (the new content in a new inode: the hard links of other generations kept)
        con.execute(
            f"COPY (SELECT * FROM read_parquet('{was}') UNION ALL "
            f"SELECT * REPLACE (episode_no + 1 AS episode_no) FROM read_parquet('{of_2}')) "
            f"TO '{of_1}' (FORMAT parquet)"
        )
    # day 0's windows of job 2 only: the hours' jobs are {2}
    only_2 = [line for line in DAY_PARTS[0] if line.split(",")[2] == "2"]
    ingestion.ingest(
        home, "google2011", days_usage(tmp_path / "u", {0: only_2}), IngestOptions(tables=["task_usage"])
    )
    fresh = Home.resolve(tmp_path / "fresh")
    ingestion.ingest(fresh, "google2011", days_usage(days_events(tmp_path / "f"), {0: only_2}))
    for name in USAGE_TABLES:
        assert stored_rows(home, "google2011", name) == stored_rows(fresh, "google2011", name), name
    # by hand: task (2, 0) scheduled at 800 s and never ended: its 3 windows of day 0 (from 1000 s)
    # in its attempt 1, none outside
    assert [r[:4] for r in stored(home) if r[0] == 2] == [(2, 0, 1, 3)]


def test_a_derived_build_that_fails_says_why_and_leaves_the_home_as_it_was(tmp_path):
    # The usage build points the attempts' view at the stored files first; a statement failing after
    # that aborted the transaction, and putting the view back on it failed too: the error said
    # only "Current transaction is aborted (please ROLLBACK)". Here a stored file of the attempts
    # is not Parquet (a damaged home): the error names it, and nothing is committed.
    from tracewh.errors import CatalogError

    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", days_usage(days_events(tmp_path / "e"), {0: DAY_PARTS[0]}))
    before = stored_rows(home, "google2011", "task_usage_hourly")
    (damaged,) = stored_paths(home, "google2011", "task_episode_core")
    damaged.unlink()
    damaged.write_bytes(b"not a parquet file\n" * 10)
    with pytest.raises(CatalogError) as e:
        ingestion.ingest(
            home,
            "google2011",
            days_usage(tmp_path / "u", {1: DAY_PARTS[1]}),
            IngestOptions(tables=["task_usage"]),
        )
    assert "transaction is aborted" not in str(e.value) and str(damaged) in str(e.value), str(e.value)
    assert stored_rows(home, "google2011", "task_usage_hourly") == before
