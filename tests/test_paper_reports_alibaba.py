"""The Alibaba reports added for Figures 2-4, 7-9 and Table 1, worked out by hand on a hand-built
batch_task / batch_instance pair in the raw format (tests/handbuilt.py, case paper_alibaba).

The jobs and their times are listed in the builder's docstring (paper_alibaba2018); the hand
computations are beside each assertion.
"""

from __future__ import annotations

import numpy as np
import pytest
from handbuilt import PAPER_ALIBABA_INSTANCES as INSTANCES
from handbuilt import PAPER_ALIBABA_TASKS as TASKS

from tracewh import reports
from tracewh.catalog import dag
from tracewh.home import Home
from tracewh.reports import plots


@pytest.fixture(scope="module")
def home(handbuilt_home) -> Home:
    return handbuilt_home("paper_alibaba")


def rows(home, name, **options):
    r = reports.run(home, name, options={k: str(v) for k, v in options.items()})
    return [dict(zip(r.columns, row, strict=True)) for row in r.rows]


def test_interval_in_the_papers_two_cases(home):
    got = {(r["case"], r["measure"]): r for r in rows(home, "ali-interval")}
    assert len(got) == 8  # every case x measure is listed
    one, several = "one parent", "several parents"
    # one parent: j_2041 M1_4, M2_4, M3_4, M5_4 (parent M4: run 5); j_a M4_3 (parent R3, run 35),
    # M5_4 (parent M4_3 still Running: end and run unknown); j_d M2_1 (parent run 10), j_e M2_1 (40).
    # (j_b and j_odd have cycles: left out whole.)
    w = got[(one, "waiting time")]  # 108-105, 106-105, 110-108, 105-105, 86-85, 101-100, 321-320, 320-320
    assert (w["n"], w["mean_s"], w["max_s"], w["max_job"]) == (8, 9 / 8, 3, "j_2041")
    e = got[(one, "parent execution time")]  # 5, 5, 5, 5, 35, 10, 40
    assert (e["n"], e["mean_s"], e["max_s"], e["max_job"]) == (7, 15.0, 40, "j_e")
    i = got[(one, "interval time (each parent)")]  # 3, 1, 5, 0, 86-80 = 6, 321-310 = 11; 320-340 < 0
    assert (i["n"], i["below_zero_left_out"], i["mean_s"], i["min_s"], i["max_s"]) == (
        6,
        1,
        round(26 / 6, 3),
        0,
        11,
    )
    assert got[(one, "interval time (last parent)")]["n"] == 6
    # several parents: j_2041 R6 (parents 1, 2, 3, 5 end 125, 115, 163, 130; first instance 166),
    # j_a R3_1_2 (parents end 50 and 30; first instance 45)
    assert (got[(several, "waiting time")]["n"], got[(several, "waiting time")]["mean_s"]) == (2, 0.5)
    e = got[(several, "parent execution time")]  # 20, 10, 55, 25, 40, 20
    assert (e["n"], e["mean_s"], e["max_s"]) == (6, round(170 / 6, 3), 55)
    i = got[(several, "interval time (each parent)")]  # 41, 51, 3, 36, 15; 45 - 50 < 0
    assert (i["n"], i["below_zero_left_out"], i["mean_s"], i["max_s"], i["max_job"]) == (
        5,
        1,
        29.2,
        51,
        "j_2041",
    )
    last = got[(several, "interval time (last parent)")]  # R6: 166 - 163; R3: 45 - 50 < 0
    assert (last["n"], last["below_zero_left_out"], last["max_s"]) == (1, 1, 3)


def test_job_cdf_over_jobs_with_known_times_and_no_cycle(home):
    got = rows(home, "ali-job-cdf")
    # kept: j_2041 (job 105, path 100, communication 5) and j_d (50, 40, 10). Out: j_a (a task still
    # Running), j_b and j_odd (cycles), j_e (path 70 > job time 50: counted in jobs_left_out).
    curves = {}
    for r in got:
        curves.setdefault(r["measure"], {})[r["fraction"]] = r["value_s"]
        assert (r["jobs"], r["jobs_left_out"]) == (2, 1)
    assert list(curves) == ["job time", "critical path", "communication time"]
    assert [curves[m][0.0] for m in curves] == [50, 40, 5]
    assert [curves[m][0.5] for m in curves] == [77.5, 70, 7.5]
    assert [curves[m][1.0] for m in curves] == [105, 100, 10]
    assert curves["job time"][0.25] == 50 + 0.25 * 55  # linear between the two jobs
    assert len(curves["job time"]) == 23


def test_machine_dist_normalises_each_type_to_its_own_maximum(home):
    got = rows(home, "ali-machine-dist")
    # DAG instances: m_1 3 (j_2041) + 1 (j_a) + 2 (j_b) = 6; m_2 2 + 1 + 2 = 5; m_3 1 + 3 + 2 = 6; m_1455 0.
    # no-DAG: m_1455 3, m_1 1, m_2 1. Ascending by DAG count (then no-DAG, then id).
    assert [(r["rank"], r["machine_id"], r["dag_instances"], r["no_dag_instances"]) for r in got] == [
        (1, "m_1455", 0, 3),
        (2, "m_2", 5, 1),
        (3, "m_3", 6, 0),
        (4, "m_1", 6, 1),
    ]
    # DAG max 6; no-DAG max without m_1455 = 1, so m_1455 stands at 3.0
    assert [r["dag_normalised"] for r in got] == [0.0, round(5 / 6, 6), 1.0, 1.0]
    assert [r["no_dag_normalised"] for r in got] == [3.0, 1.0, 0.0, 1.0]
    assert [r["excluded_from_max"] for r in got] == [True, False, False, False]
    r_all = np.corrcoef([0, 5, 6, 6], [3, 1, 0, 1])[0, 1]
    r_without = np.corrcoef([5, 6, 6], [1, 0, 1])[0, 1]
    assert got[0]["correlation_all"] == round(r_all, 4)
    assert got[0]["correlation_without_excluded"] == round(r_without, 4)
    plain = rows(home, "ali-machine-dist", exclude="")
    assert plain[0]["no_dag_normalised"] == 1.0 and plain[1]["no_dag_normalised"] == round(1 / 3, 6)
    assert not any(r["excluded_from_max"] for r in plain)


def test_tables_lists_the_six_tables_of_table_1(home):
    got = rows(home, "ali-tables")
    assert [(r["subject"], r["kind"], r["table"]) for r in got] == [
        ("machine", "static", "machine_meta"),
        ("machine", "runtime", "machine_usage"),
        ("batch job", "static", "batch_task"),
        ("batch job", "runtime", "batch_instance"),
        ("online container", "static", "container_meta"),
        ("online container", "runtime", "container_usage"),
    ]
    t = {r["table"]: r for r in got}
    assert (t["batch_task"]["rows"], t["batch_task"]["columns"]) == (len(TASKS), 9)
    assert (t["batch_instance"]["rows"], t["batch_instance"]["columns"]) == (len(INSTANCES), 14)
    assert t["batch_task"]["fields"].startswith("task_name, instance_num, job_name, task_type, status")
    assert t["batch_task"]["published_rows"] == 14295731
    assert t["machine_meta"]["rows"] is None  # not ingested here, still listed


def test_job_j2041_as_in_figure_3(home):
    got = {r["task_name"]: r for r in rows(home, "ali-job", job="j_2041")}
    assert {n: r["level"] for n, r in got.items()} == {
        "M4": 0,
        "M1_4": 1,
        "M2_4": 1,
        "M3_4": 1,
        "M5_4": 1,
        "R6_1_2_3_5": 2,
    }
    assert {n for n, r in got.items() if r["on_critical_path"]} == {"M4", "M3_4", "R6_1_2_3_5"}
    r6 = got["R6_1_2_3_5"]
    assert (r6["parent_task_ids"], r6["interval_s"], r6["waiting_s"], r6["run_s"]) == (
        [1, 2, 3, 5],
        [41, 51, 3, 36],
        1,
        40,
    )
    assert (got["M1_4"]["instances"], got["M1_4"]["machines"], got["M1_4"]["kind"]) == (1, 1, "M")


def test_job_with_a_cycle_a_missing_parent_and_a_self_loop(home):
    got = {r["task_name"]: r for r in rows(home, "ali-job", job="j_odd")}
    assert {n for n, r in got.items() if r["on_or_behind_cycle"]} == {"M2_3", "M3_2"}
    assert got["M4_9"]["missing_parents"] == [9] and got["M4_9"]["level"] == 0
    assert got["M5_1_5"]["self_dependent"] and got["M5_1_5"]["level"] == 1
    assert all(r["on_critical_path"] is None for r in got.values())  # no critical path with a cycle


def test_job_with_unknown_end_has_no_critical_path_and_no_dag_job_has_none(home):
    ja = {r["task_name"]: r for r in rows(home, "ali-job", job="j_a")}
    assert ja["M4_3"]["run_s"] is None and ja["M4_3"]["status"] == "Running"
    assert all(r["on_critical_path"] is None for r in ja.values())
    jn = rows(home, "ali-job", job="j_n")
    assert {r["kind"] for r in jn} == {"no DAG (task_)", "no DAG (MergeTask)"}
    assert all(r["level"] is None and r["on_critical_path"] is False for r in jn)


def test_unknown_job_and_missing_parameter_are_usage_errors(home):
    from tracewh.errors import UsageError

    with pytest.raises(UsageError, match="no batch task of that job"):
        reports.run(home, "ali-job", options={"job": "j_404"})
    with pytest.raises(UsageError, match="needs --param job"):
        reports.run(home, "ali-job")


def test_layout_levels_and_critical_path_by_hand():
    # 1 -> 2 -> 4, 1 -> 3 -> 4 with runs 1, 5, 2, 1: path 1 -> 2 -> 4 (7 s); 5 <-> 6 a cycle, 7 behind it
    level, path, stuck = dag.layout_job(
        [
            (1, [], 1.0),
            (2, [1], 5.0),
            (3, [1], 2.0),
            (4, [2, 3], 1.0),
            (5, [6], 1.0),
            (6, [5], 1.0),
            (7, [6], 1.0),
        ]
    )
    assert level == {1: 0, 2: 1, 3: 1, 4: 2}
    assert path == [1, 2, 4] and stuck == [5, 6, 7]
    # a tie goes to the smaller id; an unknown run counts 0
    assert dag.layout_job([(1, [], None), (2, [], 3.0), (3, [1, 2], 1.0)])[1] == [2, 3]


@pytest.mark.parametrize("job", ["j_2041", "j_odd", "j_a", "j_n", "j_b"])
def test_ali_job_draws_every_job(home, tmp_path, job):
    out = tmp_path / f"{job}.png"
    plots.write("ali-job", reports.run(home, "ali-job", options={"job": job}), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


@pytest.mark.parametrize("name", ["ali-interval", "ali-job-cdf", "ali-machine-dist"])
def test_new_alibaba_reports_draw_png(home, tmp_path, name):
    out = tmp_path / f"{name}.png"
    plots.write(name, reports.run(home, name), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_cli_prints_the_job_on_stdout_and_draws_it(home, tmp_path, capsys):
    from test_cli import run as cli

    png = tmp_path / "dag.png"
    code, out, err = cli(
        capsys,
        "--home",
        str(home.root),
        "report",
        "ali-job",
        "--param",
        "job=j_2041",
        "--format",
        "csv",
        "--plot",
        str(png),
    )
    assert code == 0 and out.splitlines()[0].startswith("job_name,task_name,kind,task_id,parent_task_ids")
    assert len(out.splitlines()) == 1 + 6 and png.read_bytes()[:4] == b"\x89PNG"
    code, out, err = cli(capsys, "--home", str(home.root), "report", "ali-job", "--param", "job=j_404")
    assert code == 2 and out == "" and err.startswith("Error: no batch task of that job")
