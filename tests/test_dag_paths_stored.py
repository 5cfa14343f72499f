"""The walked derived table derived.dag_paths (tracewh.catalog.derived, warehouse/catalog/dag.py):
each Alibaba batch job's DAG walk stored at ingest, written again only for the jobs whose input changed (equal
to a full rebuild), and read by the DAG reports instead of walking every job."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import SAMPLE_ALIBABA, stored_rows

import tracewh
from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.catalog import checks, dag, derived
from tracewh.home import Home
from tracewh.options import IngestOptions

LINES = (SAMPLE_ALIBABA / "batch_task.csv").read_text().splitlines()
COLUMNS = "job_name, status, critical_path_s, tasks, cycle_task_ids"
# By hand from data/sample/alibaba2018/batch_task.csv (run = end - start; parents from the names):
# j_1: M1 100 s -> M3_1 200 s -> R4_2_3 50 s; j_2: J1 100 -> J2_1 200 -> R3_2 90; j_3 has no DAG
# task (task_<base64>, MergeTask); j_4: M1_2 and M2_1 need each other; j_5: M2_7's parent is
# missing and M3_3 names itself, so each task is a root (the longest, M3_3, 250 s); j_6: one end 0,
# one end before its start; j_7: both Waiting (0, 0).
SAMPLE_PATHS = [
    ("j_1", "ok", 350.0, 4, []),
    ("j_2", "ok", 390.0, 3, []),
    ("j_4", "cycle", None, 3, [1, 2]),
    ("j_5", "ok", 250.0, 3, []),
    ("j_6", "unknown_times", None, 2, []),
    ("j_7", "unknown_times", None, 2, []),
]


def read(home: Home, sql: str) -> list[tuple]:
    with tracewh.open(home) as wh:
        return wh.sql(sql).rows


def stored(home: Home) -> list[tuple]:
    """The stored table straight from its Parquet (not through the catalog's view)."""
    return stored_rows(home, "alibaba2018", "dag_paths")


def batch_task(folder: Path, lines: list[str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "batch_task.csv").write_text("\n".join(lines) + "\n")
    return folder


def test_the_ingest_stores_each_jobs_walk(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", batch_task(tmp_path / "a", LINES))
    assert read(home, f"SELECT {COLUMNS} FROM derived.dag_paths ORDER BY job_name") == SAMPLE_PATHS
    assert read(home, "SELECT rows, tasks_recomputed FROM meta.derived WHERE name = 'dag_paths'") == [
        (6, None)
    ]


def test_a_changed_batch_task_walks_only_the_changed_jobs_and_equals_a_full_rebuild(tmp_path):
    # j_1's last task ends 140 s later (critical path 350 -> 490 s), j_2 is gone, j_8 is new
    # (M1 30 s -> M2_1 70 s); every other job's rows are the same
    changed = [
        ln.replace("R4_2_3,1,j_1,1,Terminated,410,460", "R4_2_3,1,j_1,1,Terminated,410,600") for ln in LINES
    ]
    changed = [ln for ln in changed if ",j_2," not in ln]
    changed += ["M1,1,j_8,1,Terminated,10,40,100,0.39", "M2_1,1,j_8,1,Terminated,40,110,100,0.39"]
    assert changed != LINES
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", batch_task(tmp_path / "a", LINES))
    ingest.ingest(home, "alibaba2018", batch_task(tmp_path / "b", changed))
    assert read(home, "SELECT tasks_recomputed FROM meta.derived WHERE name = 'dag_paths'") == [(2,)]
    expected = [("j_1", "ok", 490.0, 4, []), *SAMPLE_PATHS[2:], ("j_8", "ok", 100.0, 2, [])]
    assert read(home, f"SELECT {COLUMNS} FROM derived.dag_paths ORDER BY job_name") == expected
    fresh = Home.resolve(tmp_path / "fresh")
    ingest.ingest(fresh, "alibaba2018", batch_task(tmp_path / "c", changed))
    assert stored(home) == stored(fresh)


def test_the_dag_reports_read_the_stored_walk_and_answer_as_the_walk(tmp_path, monkeypatch):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", SAMPLE_ALIBABA, IngestOptions(tables=["batch_task", "batch_instance"]))
    names = ["ali-dag-anomalies", "ali-dag-timing", "ali-interval", "ali-job-cdf"]
    assert names == sorted(n for n, r in reports.all_reports().items() if r.python == "dag_paths")
    with monkeypatch.context() as m:
        m.setattr(derived, "stored_walk", lambda *a: None)  # as a catalog without the stored table
        with tracewh.open(home) as wh:
            walked = {n: wh.rows(n).rows for n in names}

    def no_walk(*a: object) -> None:
        raise AssertionError("a job was walked")

    monkeypatch.setitem(dag.STEPS, "dag_paths", no_walk)
    with tracewh.open(home) as wh:
        assert {n: wh.rows(n).rows for n in names} == walked
    assert all(walked.values())


def test_the_view_is_typed_and_empty_before_batch_task_and_an_ingest_of_another_table_keeps_the_walk(
    tmp_path,
):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", SAMPLE_ALIBABA, IngestOptions(tables=["machine_meta"]))
    assert read(home, "SELECT count(*) FROM derived.dag_paths") == [(0,)]
    types = dict(
        read(home, "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'dag_paths'")
    )
    assert types["critical_path_s"] == "DOUBLE" and types["cycle_task_ids"] == "BIGINT[]"
    ingest.ingest(home, "alibaba2018", batch_task(tmp_path / "a", LINES))
    before = read(home, "SELECT name, data_dir, writer_id FROM meta.derived")
    assert [n for n, _, _ in before] == ["dag_paths"]
    ingest.ingest(home, "alibaba2018", SAMPLE_ALIBABA, IngestOptions(tables=["batch_instance"]))
    assert read(home, "SELECT name, data_dir, writer_id FROM meta.derived") == before


def test_check_finds_a_stored_walk_not_made_from_the_input_now(tmp_path):
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", batch_task(tmp_path / "a", LINES))
    assert not [c.name for c in checks.run_all(home) if c.failed]
    # j_1's stored row as if made from other rows (a stale incremental build)
    ((data_dir,),) = read(home, "SELECT data_dir FROM meta.derived WHERE name = 'dag_paths'")
    path = home.root / data_dir / "dag_paths.parquet"
    table = pq.read_table(path)
    jobs, tasks = table.column("job_name").to_pylist(), table.column("tasks").to_pylist()
    bumped = pa.array([n + 1 if j == "j_1" else n for j, n in zip(jobs, tasks, strict=True)], pa.int64())
    pq.write_table(table.set_column(table.schema.get_field_index("tasks"), "tasks", bumped), path)
    failed = [c for c in checks.run_all(home) if c.failed]
    assert [(c.name, c.count) for c in failed] == [("derived.dag_paths.inputs", 2)]
