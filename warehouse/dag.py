"""Walks over the Alibaba job DAGs that SQL cannot do in bounded time: the critical path of each job
(the longest chain of task run times, parents before children) and its cycles.

Kahn's algorithm per job: a task is placed once all its parents are; what is never placed sits on
or behind a cycle. That terminates on any input (each task is placed at most once) and reports
cycles instead of hanging. Input: the rows of ``alibaba2018.dag_tasks`` ordered by job.
"""

from __future__ import annotations

from collections import deque

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


def register_dag_paths(con: duckdb.DuckDBPyConnection, tasks: pa.Table) -> None:
    """Walk every job of the ``alibaba2018.dag_tasks`` rows (ordered by job) and register the view
    ``dag_paths`` (job_name, status, critical_path_s, tasks, cycle_task_ids) on the connection."""
    jobs = tasks.column("job_name").to_pylist()
    ids = tasks.column("task_id").to_pylist()
    parents = tasks.column("parent_task_ids").to_pylist()
    runs = tasks.column("run_s").to_pylist()
    known = tasks.column("times_known").to_pylist()
    out: dict[str, list] = {
        "job_name": [],
        "status": [],
        "critical_path_s": [],
        "tasks": [],
        "cycle_task_ids": [],
    }
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
    table = pa.table(
        out,
        schema=pa.schema(
            [
                ("job_name", pa.string()),
                ("status", pa.string()),
                ("critical_path_s", pa.float64()),
                ("tasks", pa.int64()),
                ("cycle_task_ids", pa.list_(pa.int64())),
            ]
        ),
    )
    con.register("dag_paths", table)


STEPS = {"dag_paths": register_dag_paths}
