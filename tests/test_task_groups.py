"""The usage reports join their task-hours to derived.task_groups (one row per job whose tasks share
tier and requests, else one per task) instead of to every task: each task-hour must still meet its
own task's tier and requests, and a task-hour of a task without task events none, whichever kind of
row its job has. A hand-built trace with one job of each kind, worked out by hand below.

Times are seconds after the trace start (raw time = 600 s + s, in microseconds). Every task is
SUBMITted at 0, SCHEDULEd at 10 and FINISHes at 1000 (990 s observed run time each):
  job 7, tasks 0, 1, 2: priority 9 (production), cpu 0.5, memory 0.25: a whole job
  job 8, tasks 0 and 2 (index 1 has no task event): priority 0 (free), cpu 0.1, memory 0.1: not
         whole (its range lacks index 1), so a row per task
  job 9, tasks 0 and 1: priority 4 (middle), cpu 0.2 and 0.3, memory 0.2: not whole (requests differ)
  job 11, tasks 0 and 1: priority 4 (middle), cpu unknown (empty) and 0.2: not whole (one lacks it)
  job 12, tasks 0 and 1: priority 0 (free), cpu unknown in both: whole, its cpu request NULL
One usage window of 300 s (100 to 400 s, hour 0) per task-hour below, cpu / memory used:
  (7, 0) 0.4 / 0.1   (7, 2) 0.2 / 0.1   (7, 5) 0.1 / 0.1: index 5 lies past job 7's tasks
  (8, 0) 0.3 / 0.2   (8, 1) 0.6 / 0.2: inside job 8's span, no task events   (8, 2) 0.05 / 0.2
  (9, 0) 0.1 / 0.3   (9, 1) 0.2 / 0.3   (11, 1) 0.2 / 0.3   (12, 0) 0.1 / 0.1
  (10, 0) 0.7 / 0.4: a job without task events
"""

from __future__ import annotations

import gzip

import pytest
from conftest import stored_rows, task_row, write_gz

from tracewh import catalog, reports, sqlfiles
from tracewh import ingestion as ingest
from tracewh.catalog import derived
from tracewh.home import Home
from tracewh.options import IngestOptions

US = 1_000_000
SUBMIT, SCHEDULE, FINISH = 0, 1, 4
WINDOW_S = 300
TASKS = [
    # job, index, priority, cpu, memory
    (7, 0, 9, 0.5, 0.25),
    (7, 1, 9, 0.5, 0.25),
    (7, 2, 9, 0.5, 0.25),
    (8, 0, 0, 0.1, 0.1),
    (8, 2, 0, 0.1, 0.1),
    (9, 0, 4, 0.2, 0.2),
    (9, 1, 4, 0.3, 0.2),
    (11, 0, 4, "", 0.2),
    (11, 1, 4, 0.2, 0.2),
    (12, 0, 0, "", 0.1),
    (12, 1, 0, "", 0.1),
]
USAGE = [
    # job, index, cpu, memory
    (7, 0, 0.4, 0.1),
    (7, 2, 0.2, 0.1),
    (7, 5, 0.1, 0.1),
    (8, 0, 0.3, 0.2),
    (8, 1, 0.6, 0.2),
    (8, 2, 0.05, 0.2),
    (9, 0, 0.1, 0.3),
    (9, 1, 0.2, 0.3),
    (11, 1, 0.2, 0.3),
    (12, 0, 0.1, 0.1),
    (10, 0, 0.7, 0.4),
]


# derived.task_groups of TASKS, worked out by hand (the docstring above): job, first_index,
# last_index, whole_job, priority_tier, cpu_request
GROUPS = [
    (7, 0, 2, True, "production", 0.5),
    (8, 0, 0, False, "free", 0.1),
    (8, 2, 2, False, "free", 0.1),
    (9, 0, 0, False, "middle", 0.2),
    (9, 1, 1, False, "middle", 0.3),
    (11, 0, 0, False, "middle", None),
    (11, 1, 1, False, "middle", 0.2),
    (12, 0, 1, True, "free", None),
]


def t(s: float) -> int:
    return int((600 + s) * US)


def write_task_events(path) -> None:
    """TASKS' events (SUBMIT at 0, SCHEDULE at 10, FINISH at 1000) as a task_events part."""
    events = []
    for job, idx, prio, cpu, mem in TASKS:
        kw = {"prio": prio, "cpu": cpu, "mem": mem}
        events += [
            (t(0), task_row(t(0), job, idx, SUBMIT, **kw)),
            (t(10), task_row(t(10), job, idx, SCHEDULE, machine=5, **kw)),
            (t(1000), task_row(t(1000), job, idx, FINISH, machine=5, **kw)),
        ]
    write_gz(path, [line for _, line in sorted(events)])


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    src = tmp_path_factory.mktemp("groups") / "src"
    write_task_events(src / "task_events" / "part-00000-of-00001.csv.gz")
    usage = [
        ",".join(str(f) for f in [t(100), t(100 + WINDOW_S), job, idx, 5, cpu, mem] + [""] * 13)
        for job, idx, cpu, mem in USAGE
    ]
    write_gz(src / "task_usage" / "part-00000-of-00001.csv.gz", usage)
    h = Home.resolve(src.parent / "home")
    ingest.ingest(h, "google2011", src)
    return h


def rows(home: Home, name: str) -> list[dict]:
    r = reports.run(home, name, trace="google2011")
    return [dict(zip(r.columns, row, strict=True)) for row in r.rows]


def test_a_job_is_one_row_only_when_its_tasks_fill_one_range_and_share_tier_and_requests(home):
    with catalog.connect(home, read_only=True) as con:
        got = con.execute(
            "SELECT job_id, first_index, last_index, whole_job, priority_tier, cpu_request "
            "FROM derived.task_groups WHERE trace = 'google2011' ORDER BY ALL"
        ).fetchall()
    assert got == GROUPS


def test_tier_usage_gives_each_task_hour_its_own_tasks_tier_and_request(home):
    got = {r["tier"]: r for r in rows(home, "tier-usage")}
    assert {r["hour"] for r in got.values()} == {0}
    per_hour = WINDOW_S / 3600
    used = {
        "production": 0.4 + 0.2,
        "free": 0.3 + 0.05 + 0.1,
        "middle": 0.1 + 0.2 + 0.2,
        # (7, 5) past job 7's tasks, (8, 1) in job 8's span without events, job 10
        "(no task events)": 0.1 + 0.6 + 0.7,
    }
    # (12, 0): a request unknown adds nothing; (11, 1): its own 0.2, not task (11, 0)'s unknown one
    allocated = {"production": 0.5 * 2, "free": 0.1 * 2, "middle": 0.2 + 0.3 + 0.2, "(no task events)": None}
    windows = {"production": 2, "free": 3, "middle": 3, "(no task events)": 3}
    assert set(got) == set(used)
    for tier, r in got.items():
        assert r["cpu_used"] == round(used[tier] * per_hour, 6), tier
        assert r["windows"] == windows[tier], tier
        if allocated[tier] is None:
            assert r["cpu_allocated"] is None
        else:
            assert r["cpu_allocated"] == round(allocated[tier] * per_hour, 6), tier
    assert got["middle"]["memory_allocated"] == round(0.2 * 3 * per_hour, 6)


def test_priority_share_sums_each_task_hour_and_attempt_into_its_own_tasks_tier(home):
    got = {r["tier"]: r for r in rows(home, "priority-share")}
    assert {k: r["tasks"] for k, r in got.items()} == {
        "free": 4,
        "middle": 4,
        "production": 3,
        "production and above (is_production)": 3,
        "all": 11,
    }
    # the task-hours of tasks without task events are left out: 0.6 + 0.45 + 0.5 of used CPU
    assert got["production"]["cpu_used_share"] == round(0.6 / 1.55, 4)
    assert got["free"]["cpu_used_share"] == round(0.45 / 1.55, 4)
    assert got["middle"]["cpu_used_share"] == round(0.5 / 1.55, 4)
    # requested = request x 990 s per attempt (an unknown request adds nothing): 3 x 0.5 (production),
    # 2 x 0.1 (free), 0.2 + 0.3 + 0.2 (middle) of 2.4
    assert got["production"]["cpu_requested_share"] == round(1.5 / 2.4, 4)
    assert got["free"]["cpu_requested_share"] == round(0.2 / 2.4, 4)
    assert got["middle"]["cpu_requested_share"] == round(0.7 / 2.4, 4)
    assert (got["all"]["run_attempts"], got["production"]["run_attempts"]) == (11, 3)


def test_a_range_holds_only_its_jobs_indexes_even_at_the_largest_index(tmp_path):
    """Job 20's tasks are 1 and 2 (whole: its range starts at 1), so a task-hour of index 0 meets no
    task; job 21's tasks are 0 and 2^63 - 1, the largest index the trace's column holds (not whole:
    its range is not filled), whose test of the range must not overflow."""
    largest = 2**63 - 1
    src = tmp_path / "src"
    kw = {"prio": 9, "cpu": 0.5, "mem": 0.25}
    write_gz(
        src / "task_events" / "part-00000-of-00001.csv.gz",
        [
            task_row(t(0), 20, 1, SUBMIT, **kw),
            task_row(t(0), 20, 2, SUBMIT, **kw),
            task_row(t(0), 21, 0, SUBMIT, prio=0),
            task_row(t(0), 21, largest, SUBMIT, prio=0),
        ],
    )
    usage = [
        ",".join(str(f) for f in [t(100), t(100 + WINDOW_S), job, idx, 5, cpu, 0.1] + [""] * 13)
        for job, idx, cpu in ((20, 0, 0.1), (20, 1, 0.2), (21, largest, 0.4))
    ]
    write_gz(src / "task_usage" / "part-00000-of-00001.csv.gz", usage)
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    got = {r["tier"]: r["cpu_used"] for r in rows(home, "tier-usage")}
    per_hour = WINDOW_S / 3600
    assert got == {
        "(no task events)": round(0.1 * per_hour, 6),
        "production": round(0.2 * per_hour, 6),
        "free": round(0.4 * per_hour, 6),
    }


def test_check_samples_a_table_of_task_rows_by_task_and_the_groups_by_job():
    """`tracewh check` compares a sample of a derived table's rows with the same rows recomputed:
    all of a key's rows or none. The episodes and the attempts' usage (read from per-task tables,
    a row per task's attempt) by task; the groups, whose whole-job rows stand for several tasks, by
    job (a task key would split nothing, but the table has no task_index to hash)."""
    by_name = {derived.short(f): f for f in sqlfiles.folder(derived.SCHEMA)}
    keys = {n: derived.sample_key(by_name[n]) for n in ("task_episodes", "attempt_usage", "task_groups")}
    assert keys == {
        "task_episodes": derived.TASK_KEY,
        "attempt_usage": derived.TASK_KEY,
        "task_groups": derived.JOB_KEY,
    }


def test_the_groups_are_stored_at_ingest_and_an_ingest_of_more_events_stores_them_again(tmp_path):
    """derived.task_groups is a table of the derived layer, written by the ingest from the stored
    tasks (read straight from its Parquet here, not through a view): the hand-worked rows above.
    A second part re-submits task (9, 1) with cpu 0.2 (its last known request now that of job 9's
    other task: the job becomes one row) and adds job 13 (tasks 0 and 1, alike: one row); the
    other jobs' rows stay as they were."""
    src = tmp_path / "src"
    write_task_events(src / "task_events" / "part-00000-of-00002.csv.gz")
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    columns = "job_id, first_index, last_index, whole_job, priority_tier, cpu_request"
    assert stored_rows(home, "google2011", "task_groups", columns) == GROUPS

    later = [
        task_row(t(2000), 9, 1, SUBMIT, prio=4, cpu=0.2, mem=0.2),
        task_row(t(2000), 13, 0, SUBMIT, prio=9, cpu=0.3, mem=0.1),
        task_row(t(2000), 13, 1, SUBMIT, prio=9, cpu=0.3, mem=0.1),
    ]
    write_gz(src / "task_events" / "part-00001-of-00002.csv.gz", later)
    ingest.ingest(home, "google2011", src)
    after = [r for r in GROUPS if r[0] != 9]
    after += [(9, 0, 1, True, "middle", 0.2), (13, 0, 1, True, "production", 0.3)]
    assert stored_rows(home, "google2011", "task_groups", columns) == sorted(after, key=lambda r: r[:2])


def test_a_trace_without_task_events_ingests_and_stores_no_group(tmp_path):
    """A first ingest of one empty task_events part, allowed: it commits, and the stored tables
    of tasks, the groups among them, hold no row (the groups are computed from the stored tasks;
    a trace with no stored task file keeps reading the view of its events, which are none)."""
    src = tmp_path / "src"
    (src / "task_events").mkdir(parents=True)
    (src / "task_events" / "part-00000-of-00001.csv.gz").write_bytes(gzip.compress(b""))
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src, IngestOptions(allow_empty=True))
    assert stored_rows(home, "google2011", "task_groups") == []
    with catalog.connect(home, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM derived.task_groups").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM derived.tasks").fetchall() == [(0,)]
