"""The DAG walk in batches cut at job boundaries: any batch size, a table or a stream, the same
answer as the walk of each job whole (hand computation below)."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from tracewh.catalog import dag

# (job, task, parents, run_s, times known), ordered by job as alibaba2018.dag_tasks is read:
#   A: 1 (10 s) -> 2 (5 s): critical path 10 + 5 = 15 s
#   B: 1 (3 s) -> 2 (4 s) -> 3 (1 s): 3 + 4 + 1 = 8 s
#   C: 1 <-> 2, each the other's parent: a cycle, both tasks on it, no path
#   D: one task with an unknown time: unknown_times
ROWS = [
    ("A", 1, [], 10.0, True),
    ("A", 2, [1], 5.0, True),
    ("B", 1, [], 3.0, True),
    ("B", 2, [1], 4.0, True),
    ("B", 3, [2], 1.0, True),
    ("C", 1, [2], 1.0, True),
    ("C", 2, [1], 1.0, True),
    ("D", 1, [], None, False),
]
WANT = [
    ("A", "ok", 15.0, 2, []),
    ("B", "ok", 8.0, 3, []),
    ("C", "cycle", None, 2, [1, 2]),
    ("D", "unknown_times", None, 1, []),
]


def _table() -> pa.Table:
    cols = list(zip(*ROWS, strict=True))
    return pa.table(
        {
            "job_name": pa.array(cols[0], pa.string()),
            "task_id": pa.array(cols[1], pa.int64()),
            "parent_task_ids": pa.array(cols[2], pa.list_(pa.int64())),
            "run_s": pa.array(cols[3], pa.float64()),
            "times_known": pa.array(cols[4], pa.bool_()),
        }
    )


def _paths(con) -> list[tuple]:
    return con.execute(
        "SELECT job_name, status, critical_path_s, tasks, cycle_task_ids FROM dag_paths ORDER BY job_name"
    ).fetchall()


@pytest.mark.parametrize("batch_rows", [1, 2, 3, 4, 100])
def test_any_batch_size_walks_each_job_whole(batch_rows):
    # batch_rows 2 cuts B (rows 3-5) and C (rows 6-7) across batches; 1 puts every row alone
    con = duckdb.connect()
    dag.register_dag_paths(con, _table(), batch_rows)
    assert _paths(con) == WANT
    stream = pa.RecordBatchReader.from_batches(_table().schema, _table().to_batches(batch_rows))
    dag.register_dag_paths(con, stream, batch_rows)
    assert _paths(con) == WANT


def test_no_dag_task_gives_an_empty_table():
    con = duckdb.connect()
    dag.register_dag_paths(con, _table().slice(0, 0))
    assert _paths(con) == []


def test_a_piece_never_holds_more_than_a_batch_and_the_job_it_ends_in():
    pieces = list(dag._batches(_table(), 2))
    # [A1 A2] | [B1 B2] carried -> [B1 B2 B3] | C1 carried -> [C1 C2] | D1
    assert [p.column("job_name").to_pylist() for p in pieces] == [
        ["A", "A"],
        ["B", "B", "B"],
        ["C", "C"],
        ["D"],
    ]


def test_the_paths_live_in_duckdbs_pool_not_in_python(tmp_path):
    # A temporary table: DuckDB's memory limit covers it and spills it; an Arrow table registered
    # on the connection would sit outside the limit (110 MiB at the whole trace's 2.9 M DAG jobs).
    catalog = tmp_path / "catalog.duckdb"
    duckdb.connect(str(catalog)).close()
    con = duckdb.connect(str(catalog), read_only=True)  # reports read the catalog read-only
    dag.register_dag_paths(con, _table(), 2)
    kinds = con.execute("SELECT temporary FROM duckdb_tables() WHERE table_name = 'dag_paths'").fetchall()
    assert kinds == [(True,)]
    assert _paths(con) == WANT


def test_a_walk_that_fails_leaves_no_partial_table():
    con = duckdb.connect()
    dag.register_dag_paths(con, _table())  # an earlier, complete walk on the same connection

    def failing():
        yield from _table().to_batches(2)
        raise RuntimeError("the input stream broke")

    stream = pa.RecordBatchReader.from_batches(_table().schema, failing())
    with pytest.raises(RuntimeError):
        dag.register_dag_paths(con, stream, 2)
    tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'dag_paths'")
    assert tables.fetchall() == [(0,)]
    pieces = con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'dag_paths_piece'")
    assert pieces.fetchall() == [(0,)]
