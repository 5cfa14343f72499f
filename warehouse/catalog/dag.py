"""Walks over the Alibaba job DAGs that SQL cannot do in bounded time: the critical path of each job
(the longest chain of task run times, parents before children) and its cycles.

Kahn's algorithm per job: a task is placed once all its parents are; what is never placed sits on
or behind a cycle. That terminates on any input (each task is placed at most once) and reports
cycles instead of hanging. Input: the rows of a batch trace's ``<trace>.dag_tasks`` ordered by job.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator

import duckdb
import pyarrow as pa


def walk_job(tasks: list[tuple[int, list[int], float | None, bool]]) -> tuple[str, float | None, list[int]]:
    """(status, critical path in seconds, task ids on or behind a cycle) of one job.

    ``tasks``: (task_id, parent ids, run seconds, times known). status: ok | cycle | unknown_times.
    """
    run = {t: r for t, _, r, _ in tasks}
    children: dict[int, list[int]] = {t: [] for t in run}
    pending = {t: 0 for t in run}
    for t, parents, _, _ in tasks:
        for p in set(parents):
            if p in run and p != t:
                children[p].append(t)
                pending[t] += 1
    ready = deque(t for t, n in pending.items() if n == 0)
    longest: dict[int, float] = {}
    best_parent: dict[int, float] = dict.fromkeys(run, 0.0)
    while ready:
        t = ready.popleft()
        longest[t] = best_parent[t] + (run[t] or 0.0)
        for c in children[t]:
            best_parent[c] = max(best_parent[c], longest[t])
            pending[c] -= 1
            if pending[c] == 0:
                ready.append(c)
    stuck = sorted(t for t in run if t not in longest)
    if stuck:
        return "cycle", None, stuck
    if not all(known for _, _, _, known in tasks):
        return "unknown_times", None, []
    return "ok", max(longest.values(), default=0.0), []


# Rows of dag_tasks walked at a time: Python holds one batch's tasks (plus the job it ends inside),
# never the whole table (the full trace has 14.3 M tasks; as Python lists ~830 MB at 2.8 M).
BATCH_ROWS = 100_000

PATHS_SCHEMA = pa.schema(
    [
        ("job_name", pa.string()),
        ("status", pa.string()),
        ("critical_path_s", pa.float64()),
        ("tasks", pa.int64()),
        ("cycle_task_ids", pa.list_(pa.int64())),
    ]
)


def _batches(tasks: pa.Table | pa.RecordBatchReader, rows: int) -> Iterator[pa.Table]:
    """The rows in pieces cut at job boundaries: a job never spans two pieces (the job a batch
    ends inside is carried into the next piece, so one piece holds at most a batch plus one job)."""
    source = tasks.to_batches(rows) if isinstance(tasks, pa.Table) else tasks
    carry: pa.Table | None = None
    for batch in source:
        if batch.num_rows == 0:
            continue
        piece = pa.Table.from_batches([batch])
        if carry is not None:
            piece = pa.concat_tables([carry, piece])
        jobs = piece.column("job_name")
        last = jobs[piece.num_rows - 1]
        # the first row of the last job: rows of one job are adjacent (the input is ordered by job)
        cut = piece.num_rows - 1
        while cut > 0 and jobs[cut - 1] == last:
            cut -= 1
        if cut:
            yield piece.slice(0, cut)
        carry = piece.slice(cut)
    if carry is not None and carry.num_rows:
        yield carry


def _walk_piece(piece: pa.Table) -> pa.Table:
    """dag_paths rows of the whole jobs in ``piece`` (ordered by job)."""
    jobs = piece.column("job_name").to_pylist()
    ids = piece.column("task_id").to_pylist()
    parents = piece.column("parent_task_ids").to_pylist()
    runs = piece.column("run_s").to_pylist()
    known = piece.column("times_known").to_pylist()
    out: dict[str, list] = {name: [] for name in PATHS_SCHEMA.names}
    start = 0
    for end in range(1, len(jobs) + 1):
        if end < len(jobs) and jobs[end] == jobs[start]:
            continue
        job = [(ids[i], parents[i] or [], runs[i], bool(known[i])) for i in range(start, end)]
        status, path, stuck = walk_job(job)
        out["job_name"].append(jobs[start])
        out["status"].append(status)
        out["critical_path_s"].append(path)
        out["tasks"].append(end - start)
        out["cycle_task_ids"].append(stuck)
        start = end
    return pa.table(out, schema=PATHS_SCHEMA)


def register_dag_paths(
    con: duckdb.DuckDBPyConnection, tasks: pa.Table | pa.RecordBatchReader, batch_rows: int = BATCH_ROWS
) -> None:
    """Walk every job of the ``<trace>.dag_tasks`` rows (ordered by job; a table or a stream of
    batches) and create the temporary table ``dag_paths`` (job_name, status, critical_path_s, tasks,
    cycle_task_ids) on the connection. Jobs are walked a batch at a time (see BATCH_ROWS); each
    piece's rows go into the table at once, so the result (one row per job: 110 MiB of Arrow at
    the whole trace's 2.9 M DAG jobs) lives in DuckDB's buffer pool, under its memory limit and
    spilled with the rest, not beside it in Python (bench/RESULTS.md, issue 13)."""
    con.execute("DROP TABLE IF EXISTS temp.dag_paths")
    con.register("dag_paths_piece", PATHS_SCHEMA.empty_table())
    try:
        con.execute("CREATE TEMP TABLE dag_paths AS FROM dag_paths_piece")
        for piece in _batches(tasks, batch_rows):
            con.register("dag_paths_piece", _walk_piece(piece))
            con.execute("INSERT INTO temp.dag_paths FROM dag_paths_piece")
    except BaseException:
        # No half-filled table left for a later statement on this connection to read as whole.
        with contextlib.suppress(duckdb.Error):
            con.execute("DROP TABLE IF EXISTS temp.dag_paths")
        raise
    finally:
        con.unregister("dag_paths_piece")


def layout_job(
    tasks: list[tuple[int, list[int], float | None]],
) -> tuple[dict[int, int], list[int], list[int]]:
    """(Kahn level of each placed task, the critical path's task ids parents first, ids on or behind a cycle)
    of one job, for drawing it.

    ``tasks``: (task_id, usable parent ids, run seconds or None when unknown). Level 0 = no parent; a task's
    level is one more than its highest parent. The critical path is the chain of largest summed run time
    over the placed tasks (an unknown run time counts 0 there; ties go to the smaller task id).
    """
    run = {t: r for t, _, r in tasks}
    parents = {t: sorted({p for p in ps if p in run and p != t}) for t, ps, _ in tasks}
    children: dict[int, list[int]] = {t: [] for t in run}
    pending = {t: len(ps) for t, ps in parents.items()}
    for t, ps in parents.items():
        for p in ps:
            children[p].append(t)
    ready = deque(sorted(t for t, n in pending.items() if n == 0))
    level: dict[int, int] = {}
    longest: dict[int, float] = {}
    via: dict[int, int | None] = {}
    while ready:
        t = ready.popleft()
        placed = [p for p in parents[t] if p in longest]
        best = max(placed, key=lambda p: (longest[p], -p), default=None)
        level[t] = 1 + max((level[p] for p in placed), default=-1)
        longest[t] = (longest[best] if best is not None else 0.0) + (run[t] or 0.0)
        via[t] = best
        for c in sorted(children[t]):
            pending[c] -= 1
            if pending[c] == 0:
                ready.append(c)
    path: list[int] = []
    end = max(longest, key=lambda t: (longest[t], -t), default=None)
    while end is not None:
        path.append(end)
        end = via[end]
    return level, path[::-1], sorted(t for t in run if t not in level)


def register_job_dag(con: duckdb.DuckDBPyConnection, tasks: pa.Table | pa.RecordBatchReader) -> None:
    """Lay out the one job of the ``<trace>.batch_task`` rows given (task_id, parent_task_ids, run_s)
    and register the view ``job_dag`` (job_dag_table)."""
    con.register("job_dag", job_dag_table(tasks))


def job_dag_table(tasks: pa.Table | pa.RecordBatchReader) -> pa.Table:
    """The rows of ``job_dag`` (task_id, level, on_critical_path, on_or_behind_cycle) for the one job
    of the ``<trace>.batch_task`` rows given (task_id, parent_task_ids, run_s).

    Rows without a task_id (task_<base64>, MergeTask, unparsed names) belong to the job but not to its DAG."""
    from tracewh.errors import UsageError

    if isinstance(tasks, pa.RecordBatchReader):
        tasks = tasks.read_all()  # one job's tasks: small
    if tasks.num_rows == 0:
        raise UsageError("no batch task of that job is in the warehouse (job_name of the batch tasks)")
    nodes: dict[int, tuple[list[int], float | None]] = {}
    for t, ps, r in zip(
        tasks.column("task_id").to_pylist(),
        tasks.column("parent_task_ids").to_pylist(),
        tasks.column("run_s").to_pylist(),
        strict=True,
    ):
        if t is None:  # not a DAG task (task_<base64>, MergeTask, unparsed): no node of the DAG walk
            continue
        old_ps, old_r = nodes.get(t, ([], None))
        # a task id named twice in a job is one node (its parents together, its longest run)
        nodes[t] = (old_ps + list(ps or []), max((x for x in (old_r, r) if x is not None), default=None))
    level, path, stuck = layout_job([(t, ps, r) for t, (ps, r) in nodes.items()])
    # a path through unknown run times or past a cycle is not the job's critical path: none is marked
    known = not stuck and all(r is not None for _, r in nodes.values())
    on_path = set(path)
    ids = sorted(nodes)
    return pa.table(
        {
            "task_id": pa.array(ids, pa.int64()),
            "level": pa.array([level.get(t) for t in ids], pa.int64()),
            "on_critical_path": pa.array([t in on_path if known else None for t in ids], pa.bool_()),
            "on_or_behind_cycle": pa.array([t in stuck for t in ids], pa.bool_()),
        }
    )


STEPS = {"dag_paths": register_dag_paths, "job_dag": register_job_dag}
# The rows a step leaves in its temporary table, for a step an ingest stores (tracewh.catalog.derived).
SCHEMAS = {"dag_paths": PATHS_SCHEMA}
