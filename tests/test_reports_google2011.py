"""Every life-cycle report on a small hand-built trace whose answers are worked out by hand below.

Times are seconds after the trace start (raw time = 600 s + s, in microseconds); each task's story:
  T1 (1,0) p0  free:        SUBMIT 10, SCHEDULE 20 (m101), FINISH 320
  T2 (1,1) p9  production:  SUBMIT 10, SCHEDULE 15, EVICT 115, SUBMIT 115 (same microsecond, after the
                            EVICT in the file), SCHEDULE 215, KILL 1915
  T3 (1,2) p4  middle:      SUBMIT 30, EVICT 40 (while pending), SUBMIT 40, UPDATE_PENDING 50, SCHEDULE 4000
  T4 (2,0) p11 production:  SCHEDULE 5 (first event, no SUBMIT), FAIL 65, SUBMIT 65
  T5 (2,1) p2  middle:      SUBMIT and SCHEDULE at raw time 0 (before the window), FINISH 3700
  T6 (2,2) p10 production:  SUBMIT 100, SCHEDULE 200 (m102), UPDATE_RUNNING 300, FINISH at 2^63-1
Every request is cpu 0.1, memory 0.2.
"""

from __future__ import annotations

import math

import pytest
from conftest import MAX_TIME, task_row, write_gz

from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.home import Home

# One worker runs this module (`--dist loadgroup`): its module-scoped homes are built once, not on
# each worker that gets one of its tests.
pytestmark = [pytest.mark.xdist_group("reports_google2011")]

US = 1_000_000


def t(s: float) -> int:
    return int((600 + s) * US)


EVENTS = [
    # time, job, index, event, machine, priority
    (0, 2, 1, 0, "", 2),
    (0, 2, 1, 1, 101, 2),
    (t(5), 2, 0, 1, 101, 11),
    (t(10), 1, 0, 0, "", 0),
    (t(10), 1, 1, 0, "", 9),
    (t(15), 1, 1, 1, 102, 9),
    (t(20), 1, 0, 1, 101, 0),
    (t(30), 1, 2, 0, "", 4),
    (t(40), 1, 2, 2, "", 4),
    (t(40), 1, 2, 0, "", 4),
    (t(50), 1, 2, 7, "", 4),
    (t(65), 2, 0, 3, 101, 11),
    (t(65), 2, 0, 0, "", 11),
    (t(100), 2, 2, 0, "", 10),
    (t(115), 1, 1, 2, 102, 9),
    (t(115), 1, 1, 0, "", 9),
    (t(200), 2, 2, 1, 102, 10),
    (t(215), 1, 1, 1, 102, 9),
    (t(300), 2, 2, 8, 102, 10),
    (t(320), 1, 0, 4, 101, 0),
    (t(1915), 1, 1, 5, 102, 9),
    (t(3700), 2, 1, 4, 101, 2),
    (t(4000), 1, 2, 1, 101, 4),
    (MAX_TIME, 2, 2, 4, 102, 10),
]


def usage_row(start, end, job, idx, machine, cpu, mem) -> str:
    fields = [start, end, job, idx, machine, cpu, mem] + [""] * 13
    return ",".join(str(f) for f in fields)


USAGE = [
    usage_row(t(20), t(320), 1, 0, 101, 0.5, 0.2),
    usage_row(t(15), t(115), 1, 1, 101, 0.1, 0.1),
    usage_row(t(200), t(500), 2, 2, 102, 0.3, 0.4),
    usage_row(t(500), t(800), 2, 2, 102, 0.33, 0.4),
    usage_row(t(800), t(1100), 2, 2, 102, 0.165, 0.4),
]
DAY = 86_400


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    src = tmp_path_factory.mktemp("hand") / "src"
    write_gz(
        src / "task_events" / "part-00000-of-00001.csv.gz",
        [task_row(time, job, idx, ev, machine=m, prio=p) for time, job, idx, ev, m, p in EVENTS],
    )
    write_gz(src / "task_usage" / "part-00000-of-00001.csv.gz", USAGE)
    write_gz(
        src / "job_events" / "part-00000-of-00001.csv.gz",
        ["0,,2,0,u,0,n,l", f"{t(10)},,1,0,u,0,n,l", f"{t(4000)},,3,0,u,0,n,l", f"{t(5000)},,1,0,u,0,n,l"],
    )
    write_gz(
        src / "machine_events" / "part-00000-of-00001.csv.gz",
        [
            "0,101,0,P,0.5,0.5",
            "0,102,0,P,1,1",
            f"{t(DAY)},102,1,P,,",
            f"{t(2 * DAY)},103,0,P,,",
            f"{t(2 * DAY + 5)},101,2,P,0.25,0.5",
        ],
    )
    h = Home.resolve(src.parent / "home")
    ingest.ingest(h, "google2011", src)
    return h


def run(home, name, **options):
    rows = reports.run(home, name, trace="google2011", options={k: str(v) for k, v in options.items()})
    return [dict(zip(rows.columns, r, strict=True)) for r in rows.rows]


def by(rows, *keys):
    return {tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]: r for r in rows}


def test_lifecycle_counts(home):
    got = {r["metric"]: r["value"] for r in run(home, "lifecycle-counts")}
    assert got["events: SUBMIT"] == 8 and got["events: SCHEDULE"] == 7 and got["events: FINISH"] == 3
    assert got["events: EVICT"] == 2 and got["events: KILL"] == 1 and got["events: FAIL"] == 1
    assert (
        got["events: UPDATE_PENDING"] == 1 and got["events: UPDATE_RUNNING"] == 1 and got["events: LOST"] == 0
    )
    assert got["events: all"] == 24
    assert got["distinct tasks"] == 6
    assert got["new submissions (first SUBMIT of a task)"] == 6
    assert got["resubmissions (later SUBMITs of a task)"] == 2
    assert got["tasks that finished"] == 3


def test_transitions_collapse_updates_and_mark_undocumented_pairs(home):
    got = by(run(home, "transitions"), "from_event", "to_event")
    counts = {k: r["transitions"] for k, r in got.items()}
    assert counts == {
        ("(start)", "SUBMIT"): 5,
        ("SUBMIT", "SCHEDULE"): 6,
        ("SCHEDULE", "FINISH"): 3,
        ("SCHEDULE", "EVICT"): 1,
        ("EVICT", "SUBMIT"): 2,
        ("SCHEDULE", "KILL"): 1,
        ("SUBMIT", "EVICT"): 1,
        ("(start)", "SCHEDULE"): 1,
        ("SCHEDULE", "FAIL"): 1,
        ("FAIL", "SUBMIT"): 1,
    }
    undocumented = {k for k, r in got.items() if not r["documented"]}
    assert undocumented == {("SUBMIT", "EVICT"), ("(start)", "SCHEDULE")}
    assert got[("SUBMIT", "SCHEDULE")]["tasks"] == 5
    assert "pending" in got[("SUBMIT", "EVICT")]["note"]


def test_queue_follows_the_papers_methods(home):
    rows = run(home, "queue", bucket_s=3600)
    assert [
        (r["bucket"], r["pending"], r["running"], r["submitted"], r["scheduled"], r["ended"]) for r in rows
    ] == [(0, 1, 2, 8, 6, 5), (1, 0, 2, 0, 1, 1)]
    assert rows[0]["hours"] == round(-600 / 3600, 4)


def test_event_cdf(home):
    rows = run(home, "event-cdf", bucket_s=3600)
    assert [(r["new_submissions"], r["submissions"], r["schedules"], r["completions"]) for r in rows] == [
        (6, 8, 6, 1),
        (6, 8, 7, 2),
    ]
    assert rows[-1]["cdf_new_submissions"] == 1.0
    assert rows[-1]["weighted_submissions"] == round(8 / 6, 6)


def test_task_times(home):
    got = by(run(home, "task-times"), "measure", "grouping", "grp")
    ex = got[("execution time", "all", "all")]
    # attempts that ran: T1 300, T2 100 and 1700, T4 60 (before its first SUBMIT, SCHEDULE at 5 s) are
    # completed; T5 is left-censored (SCHEDULE at time 0); T3 e2 (no end) and T6 (FINISH at 2^63-1)
    # right-censored. The quantiles are over the four completed ones.
    assert (ex["attempts"], ex["completed"], ex["left_censored"], ex["right_censored"]) == (7, 4, 1, 2)
    assert (ex["both_censored"], ex["mean_s"], ex["min_s"], ex["max_s"]) == (0, 540.0, 60.0, 1700.0)
    assert ex["p50_s"] == 200.0 and ex["share_under_5min"] == 0.5 and ex["share_under_30min"] == 1.0
    assert ex["distribution_over"] == "completed"
    wait = got[("scheduling delay", "all", "all")]
    # waits 10 (T1), 5 and 100 (T2), 3960 (T3 e2), 100 (T6); left-censored: T4 e0 (no SUBMIT), T5
    # (time 0); right-censored: T4 e1 (SUBMIT at 65 s, still pending at the end); T3 e1 was evicted
    # while pending: it never had a delay. Every attempt is counted: 5 + 2 + 1 + 1 = 9.
    assert (wait["attempts"], wait["completed"], wait["mean_s"], wait["p50_s"]) == (9, 5, 835.0, 100.0)
    assert (wait["left_censored"], wait["right_censored"], wait["never_scheduled"]) == (2, 1, 1)
    assert got[("execution time", "end reason", "KILL")]["max_s"] == 1700.0
    prod = got[("execution time", "priority tier", "production")]
    # T2 twice, T6, and T4 (priority 11: production in the 2011 document's bands)
    assert (prod["attempts"], prod["completed"], prod["right_censored"]) == (4, 3, 1)


def test_priority_share(home):
    got = by(run(home, "priority-share"), "tier")
    used = {"free": 0.5 * 300, "production": 0.1 * 100 + 0.3 * 300 + 0.33 * 300 + 0.165 * 300}
    total_used = sum(used.values())
    # request x run time clipped to the observed window [5 s, 4000 s] (the first and last in-window
    # times): T1 300 s; T2 100 + 1700 s; T6 from 200 s to the window end (FINISH at 2^63-1): 3800 s;
    # T4 60 s; T5 scheduled at time 0, FINISH at 3700 s: from the window start, 3695 s; T3 e2
    # scheduled at 4000 s, the window end: 0 s
    requested = {
        "free": 0.1 * 300,
        "production": 0.1 * (100 + 1700) + 0.1 * 3800 + 0.1 * 60,
        "middle": 0.1 * 3695,
    }
    total_req = sum(requested.values())
    assert {k: r["tasks"] for k, r in got.items()} == {
        "free": 1,
        "middle": 2,
        "production": 3,
        "production and above (is_production)": 3,
        "all": 6,
    }
    assert got["production and above (is_production)"]["task_share"] == 0.5
    assert got["production"]["cpu_used_share"] == round(used["production"] / total_used, 4)
    assert got["free"]["cpu_requested_share"] == round(requested["free"] / total_req, 4)
    assert got["production"]["cpu_requested_share"] == round(requested["production"] / total_req, 4)
    assert got["middle"]["cpu_requested_share"] == round(requested["middle"] / total_req, 4)
    # T2 e2 (ok), T2 e1 (ok), T6 (end censored), T4 e0 (ok): 4 attempts, 1 censored
    assert (got["production"]["run_attempts"], got["production"]["censored_attempts"]) == (4, 1)
    assert got["middle"]["cpu_used_share"] is None


def test_utilization_change(home):
    got = by(run(home, "utilization-change", window_s=300), "resource")
    cpu = [(150 + 10 + 90) / 300, 0.33, 0.165]
    mem = [(60 + 10 + 120) / 300, 0.4, 0.4]
    cpu_changes = [abs(cpu[1] - cpu[0]) / cpu[0], abs(cpu[2] - cpu[1]) / cpu[1]]
    assert got["cpu"]["windows"] == 3 and got["cpu"]["changes"] == 2
    assert got["cpu"]["max"] == round(max(cpu_changes), 4)
    assert got["cpu"]["share_under_50pct"] == 0.0  # 0.604 and exactly 0.5
    assert got["memory"]["share_under_5pct"] == 0.5 and got["memory"]["share_under_50pct"] == 1.0
    assert got["memory"]["mean_usage"] == round(sum(mem) / 3, 4)


def test_arrivals(home):
    got = {r["metric"]: r["value"] for r in run(home, "arrivals")}
    # the job events observe [10 s, 5000 s] after the trace start: hour 0 [0, 3600 s) starts before
    # the first event and hour 1 [3600, 7200 s) ends after the last, so no hour is observed whole
    # and no hourly rate can be given (job 1 in hour 0 and job 3 in hour 1 arrive in partial hours)
    assert got["hours observed (whole)"] == 0
    assert got["jobs per hour: median"] is None
    assert got["jobs submitted before the window (time 0)"] == 1
    assert got["resubmitted : new tasks"] == round(2 / 6, 4)


def test_job_size(home):
    got = by(run(home, "job-size"), "metric")
    job1, job2 = (150 + 10) / 3600, (90 + 99 + 49.5) / 3600
    top = got["share of the top 1% of jobs"]
    assert top["jobs"] == 1 and top["cpu"] == round(job2 / (job1 + job2), 4)
    c2 = ((job2 - job1) / 2) ** 2 / ((job1 + job2) / 2) ** 2
    assert got["squared coefficient of variation"]["cpu"] == round(c2, 4)
    assert got["Pareto tail index (Hill, top 1%)"]["cpu"] == round(1 / math.log(job2 / job1), 4)
    assert got["share of the top 100% of jobs"]["cpu"] == 1.0


def test_machines(home):
    rows = run(home, "machines")
    present = [(r["x"], r["machines"]) for r in rows if r["section"] == "present per day"]
    assert present == [(0, 2), (1, 1), (2, 2)]
    capacity = {r["item"]: r["machines"] for r in rows if r["section"] == "capacity"}
    assert capacity == {"cpus 0.25, memory 0.5": 1, "cpus 1.0, memory 1.0": 1, "cpus NULL, memory NULL": 1}
    assert [r["machines"] for r in rows if r["section"] == "without capacity"] == [1]
    util = {r["item"]: r["value"] for r in rows if r["section"] == "utilisation"}
    m101 = (0.5 + 0.1) / 2 / 0.25
    m102 = (0.3 + 0.33 + 0.165) / 3 / 1.0
    assert util["cpu p50"] == round((m101 + m102) / 2, 4)


def test_episodes_view_keeps_open_and_censored_attempts(home):
    import duckdb

    con = duckdb.connect(str(home.catalog), read_only=True)
    got = con.execute(
        "SELECT job_id, task_index, episode_no, state_at_end, end_reason, wait_s, run_s, "
        "start_censored, end_censored FROM lifecycle.task_episodes ORDER BY ALL"
    ).fetchall()
    con.close()
    assert got == [
        (1, 0, 1, "ended", "FINISH", 10.0, 300.0, False, False),
        (1, 1, 1, "ended", "EVICT", 5.0, 100.0, False, False),
        (1, 1, 2, "ended", "KILL", 100.0, 1700.0, False, False),
        (1, 2, 1, "ended", "EVICT", None, None, False, False),
        (1, 2, 2, "running_at_end", None, 3960.0, None, False, True),
        (2, 0, 0, "ended", "FAIL", None, 60.0, True, False),
        (2, 0, 1, "pending_at_end", None, None, None, False, True),
        (2, 1, 1, "ended", "FINISH", None, None, True, False),
        (2, 2, 1, "ended", "FINISH", 100.0, None, False, True),
    ]


@pytest.mark.parametrize(
    "name", ["queue", "event-cdf", "task-times", "utilization-change", "job-size", "machines"]
)
def test_plots_are_written_as_png(home, tmp_path, name):
    from tracewh.reports import plots

    rows = reports.run(home, name, trace="google2011")
    out = tmp_path / f"{name}.png"
    plots.write(name, rows, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
