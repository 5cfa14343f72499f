"""Rates over observed time only: a 5-part synthetic trace of which parts 0 and 4 are ingested.

The oracle reads the raw CSV files with the standard library: the observed time of each ingested
part (its smallest and largest in-window time), the whole hours inside it, and the first SUBMIT of
every job in the full data (all five parts), so each rate is the full-data answer restricted to
the hours the ingested parts observe whole.
"""

from __future__ import annotations

import csv
import gzip
import statistics
from collections import Counter
from pathlib import Path

import pytest

from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.home import Home
from tracewh.options import IngestOptions
from tracewh.synth import synth

# One worker runs this module (`--dist loadgroup`): its module-scoped homes are built once, not on
# each worker that gets one of its tests.
pytestmark = [pytest.mark.xdist_group("observed_time")]

US = 1_000_000
HOUR = 3600 * US
START = 600 * US  # the 2011 trace starts 600 s after time 0
AFTER = 2**63 - 1


def _rows(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def five_parts(tmp_path_factory):
    """job_events at a scale with a few jobs an hour, task_events tiny; both in five parts."""
    root = tmp_path_factory.mktemp("five")
    synth("google2011", root / "jobs", scale=0.003, parts=5, tables=["job_events"], workers=1, seed=3)
    synth("google2011", root / "tasks", scale=0.0001, parts=5, tables=["task_events"], workers=1, seed=3)
    home = Home.resolve(root / "home")
    ingest.ingest(home, "google2011", [root / "jobs", root / "tasks"], IngestOptions(parts="0,4"))
    return root, home


def _part(root: Path, table: str, n: int) -> Path:
    (path,) = (root / ("jobs" if table == "job_events" else "tasks") / table).glob(f"part-{n:05d}-*")
    return path


def _observed_hours(root: Path) -> list[int]:
    """The whole hours since the trace start inside the time one ingested job-events part spans."""
    hours: list[int] = []
    for n in (0, 4):
        times = [int(r[0]) for r in _rows(_part(root, "job_events", n)) if 0 < int(r[0]) < AFTER]
        t0, t1 = min(times), max(times)
        first = -((START - t0) // HOUR)  # ceil((t0 - START) / HOUR)
        hours += [h for h in range(first, (t1 - START) // HOUR + 1) if START + (h + 1) * HOUR - 1 <= t1]
    return hours


def _full_data_arrivals(root: Path) -> Counter[int]:
    """Jobs per hour from every job's first SUBMIT in all five parts (the full data)."""
    first: dict[str, int] = {}
    for n in range(5):
        for r in _rows(_part(root, "job_events", n)):
            if r[3] == "0":
                first[r[2]] = min(first.get(r[2], AFTER), int(r[0]))
    return Counter((t - START) // HOUR for t in first.values() if 0 < t < AFTER)


def test_arrivals_rates_count_only_the_hours_the_ingested_parts_observe(five_parts):
    root, home = five_parts
    hours = _observed_hours(root)
    arrivals = _full_data_arrivals(root)
    per_hour = [arrivals[h] for h in hours]
    assert len(hours) > 100 and statistics.median(per_hour) > 0  # the check has something to see
    got = {m: v for m, v, *_ in reports.run(home, "arrivals", trace="google2011").rows}
    assert got["hours observed (whole)"] == len(hours)
    assert got["jobs submitted in the observed hours"] == sum(per_hour)
    assert got["jobs per hour: median"] == statistics.median(per_hour)
    assert got["jobs per hour: mean"] == round(statistics.fmean(per_hour), 2)
    assert got["jobs per hour: max"] == max(per_hour)
    cmp = {r[0]: r[2] for r in reports.run(home, "compare").rows}
    assert cmp["median_jobs_per_hour"] == statistics.median(per_hour)


def test_hourly_arrivals_hold_every_observed_hour_with_its_jobs_and_no_other(five_parts):
    """lifecycle.hourly_job_arrivals, row for row: each whole hour the ingested parts observe with
    its jobs (0 where none arrived), and no hour of the missing parts or around them."""
    from tracewh.catalog import query

    root, home = five_parts
    hours = _observed_hours(root)
    arrivals = _full_data_arrivals(root)
    expected = [(h, arrivals[h]) for h in sorted(hours)]
    assert any(n == 0 for _, n in expected) and any(n > 0 for _, n in expected)
    with query.read_only(home) as con:
        got = con.execute(
            "SELECT hour, jobs FROM lifecycle.hourly_job_arrivals WHERE trace = 'google2011' ORDER BY hour"
        ).fetchall()
    assert got == expected


def test_compare_tasks_per_job_takes_tasks_and_jobs_from_the_same_task_events(five_parts):
    root, home = five_parts
    tasks, jobs = set(), set()
    for n in (0, 4):
        for r in _rows(_part(root, "task_events", n)):
            tasks.add((r[2], r[3]))
            jobs.add(r[2])
    cmp = {r[0]: r[2] for r in reports.run(home, "compare").rows}
    assert cmp["tasks"] == len(tasks)
    assert cmp["tasks_per_job"] == round(len(tasks) / len(jobs), 4)


# The censored hand-built home holds task_events only: no task_usage, job_events or machine_events.
USAGE_REPORTS = {
    "alloc-usage": ("cpu_used_all", "memory_used_production"),
    "cpu-by-runtime": ("attempts", "cpu_core_hours"),
    "job-size": ("jobs", "cpu"),
    "priority-share": ("cpu_used_share", "cpu_used_core_hours"),
    "utilization-change": (),
    "tier-usage": (),
    "machines": (),
}


@pytest.mark.parametrize("name", sorted(USAGE_REPORTS))
def test_a_report_without_its_usage_table_says_so_and_shows_null_not_zero(handbuilt_home, name):
    home = handbuilt_home("censored")
    rows = reports.run(home, name, trace="google2011")
    for col in USAGE_REPORTS[name]:
        i = rows.columns.index(col)
        assert rows.rows and all(r[i] is None for r in rows.rows), (name, col)
    absent = [line for line in reports.footer(home, name, "google2011") if line.startswith("absent:")]
    assert any("google2011.task_usage is not ingested" in line for line in absent), absent
    assert all("--tables" in line for line in absent)


def test_compare_and_arrivals_name_the_tables_a_trace_lacks(handbuilt_home):
    home = handbuilt_home("censored")
    for name in ("compare", "arrivals"):
        absent = " ".join(line for line in reports.footer(home, name) if line.startswith("absent:"))
        assert "google2011.job_events is not ingested" in absent, name
    cmp = {r[0]: r[2] for r in reports.run(home, "compare").rows}
    # no job events: no jobs and no hourly rate, rather than 0 (the task events hold 5 tasks)
    assert cmp["tasks"] == 5 and cmp.get("jobs") is None and cmp.get("median_jobs_per_hour") is None
    assert "google2011.machine_events is not ingested" in " ".join(reports.footer(home, "compare"))


S = 1_000_000


def test_alloc_usage_and_priority_share_end_a_run_open_before_a_gap_at_the_same_time(tmp_path):
    """Parts 0 and 2 of three (part 1 missing); one machine with 1 core from time 0.
    part 0: A (prio 0) SUBMIT 600 s, SCHEDULE 700 s, no end ever; C SUBMIT 1000 s -> segment [600, 1000]
    part 2: B (prio 9) SUBMIT 3000 s, SCHEDULE 3100 s, FINISH 3500 s -> segment [3000, 3500]
    A is open before the gap: both reports end it at its segment's end, 1000 s (300 s run);
    B runs 400 s. Requests 0.5 cores: A 150, B 200 core-s; capacity 1 x (400 + 500) s observed."""
    from conftest import task_row, write_gz

    src = tmp_path / "src"
    events = src / "task_events"
    write_gz(
        events / "part-00000-of-00003.csv.gz",
        [
            task_row(600 * S, 1, 0, 0, prio=0, cpu="0.5"),
            task_row(700 * S, 1, 0, 1, machine=5, prio=0, cpu="0.5"),
            task_row(1000 * S, 3, 0, 0, prio=0, cpu="0.5"),
        ],
    )
    write_gz(
        events / "part-00002-of-00003.csv.gz",
        [
            task_row(3000 * S, 2, 0, 0, prio=9, cpu="0.5"),
            task_row(3100 * S, 2, 0, 1, machine=5, prio=9, cpu="0.5"),
            task_row(3500 * S, 2, 0, 4, machine=5, prio=9, cpu="0.5"),
        ],
    )
    write_gz(src / "machine_events" / "part-00000-of-00001.csv.gz", ["0,5,0,P,1,1"])
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    alloc = reports.run(home, "alloc-usage", trace="google2011")
    rows = [dict(zip(alloc.columns, r, strict=True)) for r in alloc.rows]
    whole = next(r for r in rows if r["section"] == "whole window")
    assert whole["cpu_allocated_all"] == round((150 + 200) / 900, 4)
    assert whole["cpu_allocated_production"] == round(200 / 900, 4)
    assert whole["observed_h"] == round(900 / 3600, 4)
    share = reports.run(home, "priority-share", trace="google2011")
    tiers = {r[0]: dict(zip(share.columns, r, strict=True)) for r in share.rows}
    assert tiers["production"]["cpu_requested_share"] == round(200 / 350, 4)
    # the first bucket [0, 3600 s) starts 600 s before the trace start: shown from the start
    assert next(r["hours"] for r in rows if r["section"] == "per bucket") == 0
    assert all(r["observed_h"] > 0 for r in rows if r["section"] == "per bucket" and r["observed_h"])


@pytest.fixture(scope="module")
def gap_35(tmp_path_factory):
    """task_events parts 0 and 2 of three (part 1 missing). With 1000 s buckets:
    part 0: A (job 1) SUBMIT 1000 s, SCHEDULE 1200 s; C (job 3) SUBMIT 1500, SCHEDULE 1550, FINISH
            1650 s -> the observed time stops 65% into bucket 1 [1000, 2000 s): 35% of it is missing
    part 2: B (job 2) SUBMIT 3500 s (first seen after the gap), A SUBMIT again 4000 s, SCHEDULE 4100 s
    missing time (1650 s, 3500 s): buckets 1, 2 and 3 overlap it, bucket 4 does not."""
    from conftest import task_row, write_gz

    src = tmp_path_factory.mktemp("gap35") / "src"
    write_gz(
        src / "task_events" / "part-00000-of-00003.csv.gz",
        [
            task_row(1000 * S, 1, 0, 0),
            task_row(1200 * S, 1, 0, 1, machine=5),
            task_row(1500 * S, 3, 0, 0),
            task_row(1550 * S, 3, 0, 1, machine=5),
            task_row(1650 * S, 3, 0, 4, machine=5),
        ],
    )
    write_gz(
        src / "task_events" / "part-00002-of-00003.csv.gz",
        [task_row(3500 * S, 2, 0, 0), task_row(4000 * S, 1, 0, 0), task_row(4100 * S, 1, 0, 1, machine=5)],
    )
    home = Home.resolve(src.parent / "home")
    ingest.ingest(home, "google2011", src)
    return home


@pytest.mark.parametrize("name", ["queue", "event-cdf", "resubmissions", "task-times-trend"])
def test_every_bucket_that_overlaps_missing_time_is_flagged(gap_35, name):
    rows = reports.run(gap_35, name, trace="google2011", options={"bucket_s": "1000"})
    b, g = rows.columns.index("bucket"), rows.columns.index("in_gap")
    assert {r[b]: r[g] for r in rows.rows} == {1: True, 2: True, 3: True, 4: False}


def test_plots_leave_flagged_buckets_empty(gap_35):
    from tracewh.reports import plots

    rows = reports.run(gap_35, "event-cdf", trace="google2011", options={"bucket_s": "1000"})
    fig = plots.figure("event-cdf", rows)
    ys = fig.axes[0].lines[0].get_ydata()
    # buckets 1, 2, 3 are flagged: only bucket 4 is drawn
    assert sum(1 for y in ys if y == y) == 1


def test_lifecycle_counts_does_not_call_a_task_first_seen_after_a_gap_new(gap_35):
    got = {r[0]: r[1] for r in reports.run(gap_35, "lifecycle-counts", trace="google2011").rows}
    assert got["new submissions (first SUBMIT of a task)"] == 2  # A and C, in part 0
    assert got["first SUBMIT of a task first seen after a missing part (new or not: unknown)"] == 1  # B
    assert got["resubmissions (later SUBMITs of a task)"] == 1  # A at 4000 s
    assert got["tasks with no SUBMIT in the data"] == 0


def test_info_counts_the_rows_that_min_time_and_max_time_leave_out(sample_home):
    from conftest import SAMPLE, awk

    from tracewh.catalog import holdings

    rows = holdings.tables(sample_home)
    got = {(r[0], r[1]): r[rows.columns.index("rows_outside_window")] for r in rows.rows}
    for table in ("task_events", "job_events", "machine_events"):
        expected = awk(
            f"gzip -dc {SAMPLE}/{table}/*.csv.gz | awk -F, '$1 == 0 || $1 == 9223372036854775807' | wc -l"
        )
        assert got[("google2011", table)] == int(expected) > 0, table


def test_overview_counts_distinct_tasks_exactly(sample_home):
    from conftest import SAMPLE, awk

    rows = reports.run(sample_home, "overview")
    got = {(r[0], r[1]): r[rows.columns.index("distinct_tasks_in_table")] for r in rows.rows}
    expected = awk(
        f"gzip -dc {SAMPLE}/task_events/*.csv.gz | awk -F, '{{print $3\",\"$4}}' | sort -u | wc -l"
    )
    assert got[("google2011", "task_events")] == int(expected)


def test_compare_shows_what_a_trace_has_and_leaves_the_rest_empty_not_zero(tmp_path):
    """google2011: job_events only (jobs 1 and 2); alibaba2018: machine_meta only (m_1, m_2)."""
    from conftest import write_gz

    g, a = tmp_path / "g", tmp_path / "a"
    write_gz(
        g / "job_events" / "part-00000-of-00001.csv.gz",
        [f"{700 * S},,1,0,u,0,n,l", f"{800 * S},,2,0,u,0,n,l", f"{900 * S},,1,4,u,0,n,l"],
    )
    a.mkdir()
    (a / "machine_meta.csv").write_text("m_1,0,1,1,96,100,USING\nm_2,0,1,1,96,100,USING\n")
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", g)
    ingest.ingest(home, "alibaba2018", a, IngestOptions(verify=False))
    rows = reports.run(home, "compare")
    got = {r[0]: dict(zip(rows.columns, r, strict=True)) for r in rows.rows}
    assert got["jobs"]["google2011"] == 2  # from the job table, though no task events are ingested
    assert got["machines"]["alibaba2018"] == 2
    # no batch tasks: no jobs, tasks or outcome shares for alibaba2018 (not 0, not NaN)
    for metric in ("jobs", "tasks", "finish", "kill", "fail"):
        value = got.get(metric, {}).get("alibaba2018")
        assert value is None, (metric, value)
    absent = " ".join(line for line in reports.footer(home, "compare") if line.startswith("absent:"))
    assert "alibaba2018.batch_task is not ingested" in absent
    assert "google2011.task_events is not ingested" in absent


def test_compare_utilisation_divides_by_the_observed_usage_time(tmp_path):
    """task_usage parts 0 and 2 of three (part 1, 1200-3000 s, missing); one machine of 1 core.
    Windows of 300 s at 0.5 cores: [600, 900), [900, 1200) in part 0, [3000, 3300) in part 2.
    Used 3 x 150 = 450 core-s over 3 observed 5-minute slots (900 s): utilisation 0.5, not
    450 / 2700 (the span, gap included)."""
    from conftest import write_gz

    def window(start: int, end: int) -> str:
        return ",".join(str(f) for f in [start * S, end * S, 1, 0, 5, 0.5, 0.25] + [""] * 13)

    src = tmp_path / "src"
    usage = src / "task_usage"
    write_gz(usage / "part-00000-of-00003.csv.gz", [window(600, 900), window(900, 1200)])
    write_gz(usage / "part-00002-of-00003.csv.gz", [window(3000, 3300)])
    write_gz(src / "machine_events" / "part-00000-of-00001.csv.gz", ["0,5,0,P,1,1"])
    write_gz(src / "task_events" / "part-00000-of-00001.csv.gz", [f"{600 * S},,1,0,,0,u,0,0,0.5,0.25,0,0"])
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    got = {r[0]: r[2] for r in reports.run(home, "compare").rows}
    assert got["mean_cpu_utilisation"] == 0.5
    assert got["mean_memory_utilisation"] == 0.25
