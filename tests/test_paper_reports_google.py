"""The 10-observations reports added for Figures 6, 7, 9 and 11 and Observation 3, worked out by hand on
the hand-built 2011 trace of test_reports_google2011 (its stories T1..T6 are told there).

Its run attempts, in seconds after the trace start (raw time = 600 s + s), all requests cpu 0.1,
memory 0.2, production = priority >= 9 (T2, T4, T6):
  A T1 e1  SCHEDULE 20,  FINISH 320    run 300,  wait 10 (SUBMIT 10)
  B T2 e1  SCHEDULE 15,  EVICT 115     run 100,  wait 5  (SUBMIT 10)        production
  C T2 e2  SCHEDULE 215, KILL 1915     run 1700, wait 100 (SUBMIT 115)      production
  D T3 e2  SCHEDULE 4000, no end       censored,  wait 3960 (SUBMIT 40)
  E T4 e0  SCHEDULE 5,   FAIL 65       run 60, no SUBMIT before it           production
  F T5 e1  SCHEDULE at raw 0, FINISH 3700   censored start
  G T6 e1  SCHEDULE 200, FINISH at 2^63-1   censored end, wait 100           production
The last real task event is at 4000 s. Usage windows: T1 20-320 cpu 0.5 mem 0.2; T2 15-115 cpu 0.1
mem 0.1; T6 200-500, 500-800, 800-1100 cpu 0.3, 0.33, 0.165, mem 0.4 each. Machines 101 (cpu 0.5,
mem 0.5) and 102 (1, 1) are added at time 0 and stay through 4000 s (102 leaves after a day).
"""

from __future__ import annotations

import pytest
from test_reports_google2011 import by, home, run  # noqa: F401 (home is the module's fixture)

from tracewh import reports
from tracewh.reports import plots

# One worker runs this module (`--dist loadgroup`): its module-scoped home is built once, not on
# each worker that gets one of its tests.
pytestmark = [pytest.mark.xdist_group("paper_reports_google")]


def test_task_times_trend_places_values_when_they_become_known(home):  # noqa: F811
    rows = run(home, "task-times-trend", bucket_s=3600, window_s=7200)
    # bucket 0 = s < 3000 (raw time < 3600 s), bucket 1 = 3000..6600.
    # delays at their SCHEDULE: 10 (20 s), 5 (15 s), 100 (215 s), 100 (200 s) in bucket 0; 3960 (4000 s) in 1.
    # execution times at their end: 300 (320), 100 (115), 1700 (1915), 60 (65), all in bucket 0.
    assert [
        (
            r["bucket"],
            r["scheduling_values"],
            r["scheduling_mean_s"],
            r["execution_values"],
            r["execution_mean_s"],
        )
        for r in rows
    ] == [(0, 4, 53.75, 4, 540.0), (1, 1, 3960.0, 0, None)]
    # a 2-bucket window: bucket 1 averages (215 + 3960) / 5 and keeps the execution mean 2160 / 4
    assert [(r["scheduling_moving_avg_s"], r["execution_moving_avg_s"]) for r in rows] == [
        (53.75, 540.0),
        (835.0, 540.0),
    ]
    assert [r["hours"] for r in rows] == [round(-600 / 3600, 4), round(3000 / 3600, 4)]
    one = run(home, "task-times-trend", bucket_s=3600, window_s=3600)
    assert [(r["scheduling_moving_avg_s"], r["execution_moving_avg_s"]) for r in one] == [
        (53.75, 540.0),
        (3960.0, None),
    ]


def test_resubmissions_by_bucket_with_what_they_follow_and_peaks(home):  # noqa: F811
    rows = run(home, "resubmissions", bucket_s=60, peak_factor=2)
    # bucket = raw seconds // 60 = 10 + s // 60. New: T5 at raw 0 (bucket 0); T1, T2, T3 at 10-30 s
    # (bucket 10); T4 at 65 s (its first SUBMIT, though after a FAIL) and T6 at 100 s (bucket 11).
    # Resubmissions: T3 at 40 s after its EVICT while pending (bucket 10), T2 at 115 s after EVICT (11).
    assert len(rows) == 12 and [r["bucket"] for r in rows] == list(range(12))
    got = {r["bucket"]: r for r in rows}
    assert (got[0]["submissions"], got[0]["new_submissions"], got[0]["resubmissions"]) == (1, 1, 0)
    assert (got[10]["submissions"], got[10]["new_submissions"], got[10]["resubmissions"]) == (4, 3, 1)
    assert (got[11]["submissions"], got[11]["new_submissions"], got[11]["resubmissions"]) == (3, 2, 1)
    assert got[10]["after_evict"] == 1 and got[11]["after_evict"] == 1 and got[11]["after_fail"] == 0
    assert got[10]["resubmission_share"] == 0.25 and got[11]["resubmission_share"] == round(1 / 3, 4)
    # CDF gap: bucket 0..9: 1/8 - 1/6; bucket 10: 5/8 - 4/6; bucket 11: 1 - 1
    assert got[5]["cdf_gap"] == round(1 / 8 - 1 / 6, 6) and got[10]["cdf_gap"] == round(5 / 8 - 4 / 6, 6)
    assert got[11]["cdf_gap"] == 0.0 and got[10]["cdf_resubmissions"] == 0.5
    # mean resubmissions per bucket 2 / 12: buckets with >= 2 x that (>= 1/3) are 10 and 11, one period
    assert {b: r["peak_period"] for b, r in got.items() if r["peak_period"] is not None} == {10: 1, 11: 1}
    assert run(home, "resubmissions", bucket_s=60, peak_factor=7)[10]["peak_period"] is None  # 1 < 7 x 1/6


def test_resubmissions_flag_what_a_missing_part_may_have_made(handbuilt_home):
    # gapped trace (part 2 of 4 missing): SUBMITs at 700, 800, 1100 s are new; task 2's SUBMIT at 3200 s
    # follows its SCHEDULE at 900 s across the gap (its FINISH was in the missing part): a resubmission
    # after SCHEDULE ('other'), flagged across_gap.
    rows = reports.run(handbuilt_home("gapped"), "resubmissions", trace="google2011")
    (r,) = [dict(zip(rows.columns, row, strict=True)) for row in rows.rows]
    assert (r["submissions"], r["new_submissions"], r["resubmissions"]) == (4, 3, 1)
    assert (r["after_other"], r["across_gap"]) == (1, 1)


def test_cpu_by_runtime_gives_each_usage_window_to_its_run_attempt(home):  # noqa: F811
    got = by(run(home, "cpu-by-runtime", short_s=300), "section", "class")
    # usage (core-seconds): T1's window -> A (run 300: '5-30 min') 0.5 x 300 = 150; T2's -> B (run 100:
    # '< 5 min') 10; T6's three -> G (censored: observed 200..4000 s = 3800 s, at least '1-6 h')
    # 90 + 99 + 49.5 = 238.5. Total 398.5. Memory: 60, 10, 360 of 430.
    cls = {k[1]: r for k, r in got.items() if k[0] == "by execution time"}
    assert list(cls) == [
        "< 5 min",
        "5-30 min",
        "30 min - 1 h",
        "1-6 h",
        "1-6 h (censored: at least)",
        "6-24 h",
        ">= 1 day",
    ]
    assert cls["< 5 min"]["cpu_share"] == round(10 / 398.5, 4) and cls["< 5 min"]["attempts"] == 1
    assert cls["5-30 min"]["cpu_share"] == round(150 / 398.5, 4)
    assert cls["1-6 h (censored: at least)"]["cpu_share"] == round(238.5 / 398.5, 4)
    assert cls["1-6 h (censored: at least)"]["memory_share"] == round(360 / 430, 4)
    assert cls["1-6 h (censored: at least)"]["cpu_core_hours"] == round(238.5 / 3600, 6)
    assert cls["1-6 h"]["attempts"] == 0 and cls["1-6 h"]["cpu_share"] == 0.0
    kinds = {k[1]: r["cpu_share"] for k, r in got.items() if k[0] == "short vs long"}
    assert kinds == {
        "short-lived (< 300 s)": round(10 / 398.5, 4),
        "long-running (>= 300 s)": round(388.5 / 398.5, 4),
        "undetermined (censored, observed < 300 s)": 0.0,
    }
    # with short_s = 1000 the 300 s attempt A becomes short-lived too
    longer = {r["class"]: r["cpu_share"] for r in run(home, "cpu-by-runtime", short_s=1000)}
    assert longer["short-lived (< 1000 s)"] == round(160 / 398.5, 4)


def test_alloc_usage_integrates_requests_over_the_observed_window(home):  # noqa: F811
    rows = run(home, "alloc-usage", bucket_s=3600)
    got = {r["bucket"]: r for r in rows if r["section"] == "per bucket"}
    whole = next(r for r in rows if r["section"] == "whole window")
    # observed: the first to the last in-window event, 5 s .. 4000 s; bucket 0 = 5..3000 s (2995 s observed),
    # bucket 1 = 3000..4000 s (1000 s); capacity cpu 0.5 + 1 = 1.5 throughout.
    # running (seconds in bucket 0 / 1): A 300/0, B 100/0 (prod), C 1700/0 (prod), D 0 (scheduled at the
    # last instant), E 60/0 (prod), F from the first observed instant (scheduled before the window) to 3700:
    # 2995/700, G 200..the last observed instant: 2800/1000 (prod).
    # x cpu 0.1: all 795.5 / 170, production 466 / 100 core-seconds; capacity 4492.5 / 1500.
    assert got[0]["cpu_capacity"] == 1.5 and got[1]["cpu_capacity"] == 1.5
    assert got[0]["cpu_allocated_all"] == round(795.5 / 4492.5, 4)
    assert got[0]["cpu_allocated_production"] == round(466 / 4492.5, 4)
    assert got[1]["cpu_allocated_all"] == round(170 / 1500, 4)
    assert got[1]["cpu_allocated_production"] == round(100 / 1500, 4)
    assert got[0]["memory_allocated_all"] == round(1591 / 4492.5, 4)
    # used, by the window's start bucket (all in 0): 398.5 core-seconds, production (T2, T6) 248.5
    assert got[0]["cpu_used_all"] == round(398.5 / 4492.5, 4)
    assert got[0]["cpu_used_production"] == round(248.5 / 4492.5, 4)
    assert got[0]["memory_used_all"] == round(430 / 4492.5, 4) and got[1]["cpu_used_all"] == 0.0
    assert whole["cpu_allocated_all"] == round(965.5 / 5992.5, 4)
    assert whole["production_cpu_used_per_allocated"] == round(248.5 / 566, 4)
    assert whole["production_share_of_cpu_used"] == round(248.5 / 398.5, 4)


def test_alloc_usage_counts_no_time_of_a_missing_part(handbuilt_home):
    # the gapped trace observes 700..1200 s (parts 0, 1) and 3100..3300 s (part 3); part 2 is missing.
    # With 1000 s buckets, bucket 2 (2000..3000 s) lies wholly in the gap: no rate at all, while the
    # observed buckets have capacity 0 (the trace has no machine events).
    rows = reports.run(
        handbuilt_home("gapped"), "alloc-usage", trace="google2011", options={"bucket_s": "1000"}
    )
    got = {r[1]: dict(zip(rows.columns, r, strict=True)) for r in rows.rows if r[0] == "per bucket"}
    assert sorted(got) == [0, 1, 2, 3]
    assert [got[b]["cpu_capacity"] for b in range(4)] == [0.0, 0.0, None, 0.0]


@pytest.mark.parametrize("name", ["task-times-trend", "resubmissions", "cpu-by-runtime", "alloc-usage"])
def test_new_reports_draw_png(home, tmp_path, name):  # noqa: F811
    out = tmp_path / f"{name}.png"
    plots.write(name, reports.run(home, name, trace="google2011"), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
