"""Alibaba 2018: every task-name form parses as traces.md says (also on generated names), archives,
plain and gzip'd csv ingest alike, invalid values become NULL with the raw kept, and the reports
match hand computations on the bundled sample (data/sample/alibaba2018; its DAG jobs below)."""

from __future__ import annotations

import gzip
import tarfile

import duckdb
import numpy as np
import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.catalog import dag
from tracewh.errors import InputError
from tracewh.home import Home
from tracewh.options import IngestOptions

SAMPLE = REPO / "data" / "sample" / "alibaba2018"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    h = Home.resolve(tmp_path_factory.mktemp("ali") / "home")
    ingest.ingest(h, "alibaba2018", SAMPLE)
    return h


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    c.execute("CREATE SCHEMA alibaba2018")
    c.execute((REPO / "sql" / "alibaba2018" / "00_macros.sql").read_text())
    yield c
    c.close()


def parse(con, name):
    (p,) = con.execute("SELECT alibaba2018.parse_task_name($n)", {"n": name}).fetchone()
    return p


@pytest.mark.parametrize(
    "name,form,kind,task_id,parents,stage,trailing",
    [
        ("task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw==", "independent", None, None, [], None, False),
        ("MergeTask", "merge_task", None, None, [], None, False),
        ("M1", "dag", "M", 1, [], None, False),
        ("M2_1", "dag", "M", 2, [1], None, False),
        ("R4_2", "dag", "R", 4, [2], None, False),
        ("M5_3_4", "dag", "M", 5, [3, 4], None, False),
        ("J3_1_2", "dag", "J", 3, [1, 2], None, False),
        ("M9_Stg4", "dag", "M", 9, [], 4, False),
        ("J10_7_9_Stg4", "dag", "J", 10, [7, 9], 4, False),
        ("J30_4_5_25_", "dag", "J", 30, [4, 5, 25], None, True),
        ("MR12_3", "dag", "MR", 12, [3], None, False),
        ("M5_5", "dag", "M", 5, [5], None, False),
        ("weird-name", "unparsed", None, None, [], None, False),
        ("M", "unparsed", None, None, [], None, False),
        ("_1", "unparsed", None, None, [], None, False),
    ],
)
def test_every_task_name_form(con, name, form, kind, task_id, parents, stage, trailing):
    p = parse(con, name)
    assert (
        p["form"],
        p["task_kind"],
        p["task_id"],
        p["parent_task_ids"],
        p["stage"],
        p["trailing_underscore"],
    ) == (form, kind, task_id, parents, stage, trailing)


names = st.tuples(
    st.text(alphabet="MRJLab", min_size=1, max_size=3),
    st.integers(0, 10**6),
    st.lists(st.integers(0, 10**6), max_size=6),
    st.one_of(st.none(), st.integers(0, 99)),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(names)
def test_generated_dag_names_parse_back(con, parts):
    kind, task_id, deps, stage, trailing = parts
    name = kind + str(task_id) + "".join(f"_{d}" for d in deps)
    name += f"_Stg{stage}" if stage is not None else ""
    name += "_" if trailing else ""
    p = parse(con, name)
    assert p["form"] == "dag" and p["task_kind"] == kind and p["task_id"] == task_id
    assert p["parent_task_ids"] == deps and p["stage"] == stage and p["trailing_underscore"] == trailing
    (cls,) = con.execute("SELECT alibaba2018.dag_class($n)", {"n": name}).fetchone()
    assert cls == ("dag_dependent" if deps else "dag_root")


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30))
def test_any_text_parses_without_error(con, name):
    p = parse(con, name)
    assert p["form"] in ("independent", "merge_task", "dag", "unparsed")


# ---- the DAG walk ----


def test_walk_chain_diamond_cycle_and_unknown_times():
    # j_1 of the sample: 1 (100 s) -> 2 (50 s), 1 -> 3 (200 s), {2, 3} -> 4 (50 s)
    assert dag.walk_job(
        [(1, [], 100, True), (2, [1], 50, True), (3, [1], 200, True), (4, [2, 3], 50, True)]
    ) == ("ok", 350, [])
    assert dag.walk_job([(1, [2], 10, True), (2, [1], 10, True), (3, [], 45, True)]) == (
        "cycle",
        None,
        [1, 2],
    )
    assert dag.walk_job([(1, [], None, False), (2, [1], 5, True)]) == ("unknown_times", None, [])
    assert dag.walk_job([(7, [], 1.5, True)]) == ("ok", 1.5, [])


def test_walk_terminates_on_a_big_cycle_behind_a_chain():
    n = 20_000
    tasks = [(i, [i - 1] if i > 1 else [n], 1.0, True) for i in range(1, n + 1)]  # one ring of 20k tasks
    tasks.append((n + 1, [], 3.0, True))
    status, path, stuck = dag.walk_job(tasks)
    assert status == "cycle" and len(stuck) == n


# ---- ingest: archives, plain and gzip'd csv ----


def test_archives_plain_and_gzip_ingest_alike(tmp_path, home):
    arch = tmp_path / "archives"
    arch.mkdir()
    for f in SAMPLE.iterdir():
        if not f.name.endswith((".csv", ".csv.gz")):
            continue
        table = f.name.split(".")[0]
        data = gzip.decompress(f.read_bytes()) if f.name.endswith(".gz") else f.read_bytes()
        (tmp_path / f"{table}.csv").write_bytes(data)
        with tarfile.open(arch / f"{table}.tar.gz", "w:gz") as tf:
            tf.add(tmp_path / f"{table}.csv", arcname=f"{table}.csv")
    with pytest.raises(InputError, match="does not match the published digest"):
        ingest.ingest(Home.resolve(tmp_path / "h0"), "alibaba2018", arch)  # not the official archives
    h = Home.resolve(tmp_path / "h1")
    result = ingest.ingest(h, "alibaba2018", arch, IngestOptions(verify=False))
    assert sorted(f.name for f in result.files) == sorted(
        f"{t}.tar.gz"
        for t in (
            "batch_instance",
            "batch_task",
            "container_meta",
            "container_usage",
            "machine_meta",
            "machine_usage",
        )
    )
    for table in (
        "machine_meta",
        "machine_usage",
        "batch_task",
        "batch_instance",
        "container_meta",
        "container_usage",
    ):
        a = duckdb.connect(str(h.catalog), read_only=True)
        b = duckdb.connect(str(home.catalog), read_only=True)
        q = f"SELECT * EXCLUDE (seq) FROM alibaba2018.{table} ORDER BY ALL"
        assert a.execute(q).fetchall() == b.execute(q).fetchall(), table
        a.close()
        b.close()


def test_a_truncated_archive_fails_and_leaves_the_warehouse_as_it_was(tmp_path):
    h = Home.resolve(tmp_path / "h")
    ingest.ingest(h, "alibaba2018", SAMPLE, IngestOptions(tables=["batch_task"]))
    data = gzip.decompress((SAMPLE / "machine_meta.csv.gz").read_bytes())
    (tmp_path / "machine_meta.csv").write_bytes(data)
    src = tmp_path / "src"
    src.mkdir()
    with tarfile.open(src / "machine_meta.tar.gz", "w:gz") as tf:
        tf.add(tmp_path / "machine_meta.csv", arcname="machine_meta.csv")
    blob = (src / "machine_meta.tar.gz").read_bytes()
    (src / "machine_meta.tar.gz").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(InputError, match=r"machine_meta\.tar\.gz"):
        ingest.ingest(h, "alibaba2018", src, IngestOptions(verify=False))
    c = duckdb.connect(str(h.catalog), read_only=True)
    assert c.execute("SELECT table_name FROM meta.tables").fetchall() == [("batch_task",)]
    c.close()


def test_real_machine_meta_quirks(home):
    c = duckdb.connect(str(home.catalog), read_only=True)
    assert c.execute(
        "SELECT count(*), count(DISTINCT machine_id) FROM alibaba2018.machine_meta"
    ).fetchone() == (17592, 4034)
    assert c.execute("SELECT DISTINCT cpu_num, mem_size FROM alibaba2018.machine_meta").fetchall() == [
        (96, 100.0)
    ]
    assert {s for (s,) in c.execute("SELECT DISTINCT status FROM alibaba2018.machine_meta").fetchall()} == {
        "USING",
        "IMPORT_INSTALLING",
    }
    empty, typed = c.execute(
        "SELECT count(*) FILTER (failure_domain_2 IS NULL), "
        "count(failure_domain_2_int) = count(failure_domain_2) FROM alibaba2018.machine_meta"
    ).fetchone()
    assert typed
    c.close()


def test_invalid_percents_become_null_with_the_raw_value_kept(home):
    c = duckdb.connect(str(home.catalog), read_only=True)
    got = c.execute(
        "SELECT container_id, time_stamp, cpu_util_percent, cpu_util_percent_raw, net_in, net_in_raw, "
        "disk_io_percent, disk_io_percent_raw FROM alibaba2018.container_usage "
        "WHERE container_id IN ('c_2', 'c_3') ORDER BY ALL"
    ).fetchall()
    assert got == [
        ("c_2", 100, 12.0, 12.0, 10.5, 10.5, 5.0, 5.0),
        ("c_2", 110, None, -1.0, 10.6, 10.6, None, 101.0),
        ("c_3", 100, None, 101.0, None, -1.0, 6.0, 6.0),
    ]
    assert c.execute(
        "SELECT cpu_avg, cpu_avg_raw, mem_avg, mem_avg_raw FROM alibaba2018.batch_instance "
        "WHERE instance_name = 'ins_3' AND job_name = 'j_1'"
    ).fetchall() == [(None, -1.0, None, -1.0)]
    assert c.execute(
        "SELECT cpu_request_cores, cpu_limit_cores FROM alibaba2018.container_meta WHERE container_id = 'c_4'"
    ).fetchall() == [(4.0, 8.0)]
    c.close()


def test_time_classes_of_batch_tasks(home):
    c = duckdb.connect(str(home.catalog), read_only=True)
    got = c.execute(
        "SELECT task_name, start_time_class, end_time_class, duration_s FROM alibaba2018.batch_task "
        "WHERE job_name IN ('j_6', 'j_7') ORDER BY task_name"
    ).fetchall()
    # MR12 / MR13_12 are Waiting and weird-name Running: not ended, whatever their end_time says
    assert got == [
        ("M1", "known", "unknown", None),
        ("M2_1", "known", "before_start", None),
        ("MR12", "unknown", "open", None),
        ("MR13_12", "unknown", "open", None),
        ("weird-name", "known", "open", None),
    ]
    c.close()


# ---- reports, by hand ----


def rows(home, name, **options):
    r = reports.run(home, name, options={k: str(v) for k, v in options.items()})
    return [dict(zip(r.columns, row, strict=True)) for row in r.rows]


def test_dag_timing_by_hand(home):
    got = {r["measure"]: r for r in rows(home, "ali-dag-timing")}
    # ok jobs: j_1 cp 100+200+50 = 350, time 460-100 = 360; j_2 cp 100+200+90 = 390, time 400;
    # j_5 (missing parent and self-loop are not edges) cp = max(50, 40, 250) = 250, time 400-100 = 300
    assert got["critical path"]["n"] == 3 and got["critical path"]["mean_s"] == 330.0
    assert got["critical path"]["max_s"] == 390.0 and got["critical path"]["max_job"] == "j_2"
    assert got["job time"]["mean_s"] == round((360 + 400 + 300) / 3, 3)
    assert got["communication time"]["mean_s"] == round((10 + 10 + 50) / 3, 3)
    assert got["communication time"]["max_job"] == "j_5"
    assert got["critical path"]["share_of_job_time"] == round(330 / ((360 + 400 + 300) / 3), 4)
    # edges with known times: j_1 10, 5, 150, 5; j_2 0, 10; j_4 is cyclic: its edges stay out
    assert got["edge interval time"]["n"] == 6 and got["edge interval time"]["mean_s"] == 30.0
    assert got["edges: child starts before parent ends (left out)"]["n"] == 0
    # waiting: j_1 2, 5, 0, 1; j_2 0, 1, 0; j_3 0, 0; j_6 0, 0
    assert got["task waiting time"]["n"] == 11 and got["task waiting time"]["mean_s"] == round(9 / 11, 3)
    assert (got["jobs: ok"]["n"], got["jobs: cycle"]["n"], got["jobs: unknown_times"]["n"]) == (3, 1, 2)


def test_dag_anomalies(home):
    got = {
        r["anomaly"]: (r["occurrences"], r["jobs"], r["example_job"], r["example"])
        for r in rows(home, "ali-dag-anomalies")
    }
    assert got == {
        "MergeTask name": (1, 1, "j_3", "MergeTask"),
        "_Stg<n> suffix": (2, 1, "j_2", "J1_Stg2"),
        "trailing underscore": (1, 1, "j_2", "J2_1_"),
        "unparsable name": (1, 1, "j_6", "weird-name"),
        "missing parent": (1, 1, "j_5", "2 -> 7"),
        "self-loop": (1, 1, "j_5", "3"),
        "cycle": (1, 1, "j_4", "1,2"),
        # j_6 M1 ends at 0; MR12 and MR13_12 (j_7) end at 0 too but are Waiting: not ended
        "end time unknown (0)": (1, 1, "j_6", "M1"),
        "end before start": (1, 1, "j_6", "M2_1"),
        "start time unknown (0)": (2, 1, "j_7", "MR12"),
        "not ended (status Running, Waiting or Ready)": (3, 2, "j_6", "weird-name"),
        # listed with 0, not hidden
        "child starts before parent ends": (0, 0, None, None),
        "critical path > job time": (0, 0, None, None),
    }


def test_hierarchy_by_hand(home):
    got = {(r["level"], r["class"]): r for r in rows(home, "ali-hierarchy")}
    assert got[("jobs", None)]["count"] == 7 and got[("tasks", None)]["count"] == 20
    assert got[("instances", None)]["count"] == 18
    # tasks: no_dag 2 (task_..., MergeTask); roots M1 x3, J1_Stg2, M3, MR12 = 6; unparsed 1; dependent 11
    assert {
        c: got[("tasks by class", c)]["count"]
        for c in ("no_dag", "dag_root", "dag_dependent", "unparsed name")
    } == {"no_dag": 2, "dag_root": 6, "dag_dependent": 11, "unparsed name": 1}
    assert got[("tasks by class", "no_dag")]["instances_per_task"] == 2.5  # (4 + 1) / 2
    assert got[("instances by class", "no_dag")]["count"] == 5


def test_app_zipf_fit_matches_numpy(home):
    got = rows(home, "ali-app-zipf")
    fit = next(r for r in got if r["what"] == "fit from rank 1")
    counts = np.array([8, 4, 2, 1, 1, 1], dtype=float)  # app_1, app_2, app_3, then three apps of one
    x, y = np.log10(np.arange(1, 7)), np.log10(counts)
    slope, intercept = np.polyfit(x, y, 1)
    r2 = np.corrcoef(x, y)[0, 1] ** 2
    assert (fit["alpha"], fit["c"], fit["r2"]) == (round(-slope, 4), round(10**intercept, 2), round(r2, 4))
    assert next(r for r in got if r["what"] == "fit from rank 10")["containers"] == 0


def test_machines_correlation_matches_numpy(home):
    got = rows(home, "ali-machines")
    no_dag = {r["machine_id"]: r["no_dag_instances"] for r in got}
    dags = {r["machine_id"]: r["dag_instances"] for r in got}
    assert no_dag == {"m_1455": 4, "m_1932": 1, "m_1933": 0}
    assert dags == {"m_1455": 5, "m_1932": 4, "m_1933": 4}
    ms = sorted(no_dag)
    r = np.corrcoef([dags[m] for m in ms], [no_dag[m] for m in ms])[0, 1]
    assert got[0]["correlation"] == round(r, 4) and got[0]["machine_id"] == "m_1455"


def test_start_delay_by_hand(home):
    got = {r["instances_per_task"]: r for r in rows(home, "ali-start-delay")}
    # tasks with 2..10 instances: j_1 M1 (102, 104: max 2), M3_1 (205, 206, 210: max 5),
    # j_2 J2_1_ (1101, 1103: max 2), j_3 task_ (500..530: max 30)
    assert got["2-10"]["tasks"] == 4 and got["2-10"]["max_delay_s"] == 30
    assert got["2-10"]["mean_of_max_delay_s"] == round((2 + 5 + 2 + 30) / 4, 3)
    assert got["1"]["tasks"] == 7 and got["1"]["max_delay_s"] == 0


def test_dag_timing_plot(home, tmp_path):
    from tracewh.reports import plots

    out = tmp_path / "dag.png"
    plots.write("ali-dag-timing", reports.run(home, "ali-dag-timing"), out)
    assert out.read_bytes()[:4] == b"\x89PNG" and out.stat().st_size > 10_000


def test_copy_of_the_sample_folder_is_refused_as_another_trace(tmp_path):
    with pytest.raises(InputError, match="no google2011 files found"):
        ingest.ingest(Home.resolve(tmp_path / "h"), "google2011", SAMPLE)


def test_examples_and_max_jobs_follow_a_total_order_not_the_row_order(tmp_path):
    """Ties pick by name, whatever order the rows come in (Spark's join strategy once changed it):
    the _Stg example is the first (job, name), here J1_Stg2 although R2_1_Stg1 comes first in the
    file; j_1 and j_2 have the same critical path (10 + 20 = 30 s), max_job is the first, j_1."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "batch_task.csv").write_text(
        "M1,1,j_2,1,Terminated,100,110,100,0.5\n"
        "M2_1,1,j_2,1,Terminated,110,130,100,0.5\n"
        "R2_1_Stg1,1,j_1,1,Terminated,110,130,100,0.5\n"
        "J1_Stg2,1,j_1,1,Terminated,100,110,100,0.5\n"
    )
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", src)
    stg = next(r for r in rows(home, "ali-dag-anomalies") if r["anomaly"] == "_Stg<n> suffix")
    assert (stg["occurrences"], stg["example_job"], stg["example"]) == (2, "j_1", "J1_Stg2")
    timing = {r["measure"]: r for r in rows(home, "ali-dag-timing")}
    assert (timing["critical path"]["max_s"], timing["critical path"]["max_job"]) == (30, "j_1")
