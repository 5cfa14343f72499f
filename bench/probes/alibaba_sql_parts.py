"""The SQL parts of the DAG reports, each timed alone (count(*) over the view or CTE, so no result
transfer), and the same parts over a TEMP table holding the parsed batch_task view.

Usage: python -m bench.probes.alibaba_sql_parts HOME"""


def main() -> None:
    import json
    import sys
    import time

    from tracewh.catalog import query
    from tracewh.home import Home

    EDGE_JOIN = (
        " AS e JOIN {bt} AS c ON c.job_name = e.job_name AND c.task_id = e.task_id"
        " JOIN {bt} AS p ON p.job_name = e.job_name AND p.task_id = e.parent_task_id"
        " WHERE e.parent_exists AND NOT e.is_self_loop"
        " AND c.start_time_class = 'known' AND p.end_time_class = 'known'"
    )
    PARTS = [
        (
            "raw batch_task scan (no parse)",
            "SELECT count(*), sum(start_time) FROM alibaba2018_raw.batch_task",
        ),
        (
            "batch_task view: every task name parsed once",
            "SELECT count(*), count(task_id), sum(len(parent_task_ids)) FROM alibaba2018.batch_task",
        ),
        (
            "dag_tasks view (the reports' input statement without ORDER BY)",
            "SELECT count(*), sum(len(parent_task_ids)) FROM alibaba2018.dag_tasks",
        ),
        (
            "task_edges view alone (user-facing)",
            "SELECT count(*), count(parent_exists) FROM alibaba2018.task_edges",
        ),
        (
            "task_edges joined to batch_task twice (child start, parent end: an edge-interval query)",
            "SELECT count(*) FROM alibaba2018.task_edges" + EDGE_JOIN.format(bt="alibaba2018.batch_task"),
        ),
        (
            "what-if: TEMP TABLE bt AS the batch_task view (one parse)",
            "CREATE TEMP TABLE bt AS SELECT * FROM alibaba2018.batch_task",
        ),
        (
            "what-if: TEMP TABLE te = task_edges over bt",
            "CREATE TEMP TABLE te AS WITH edges AS (SELECT DISTINCT job_name, task_id, "
            "unnest(parent_task_ids) AS parent_task_id FROM bt WHERE name_form = 'dag'), "
            "ids AS (SELECT DISTINCT job_name, task_id FROM bt WHERE name_form = 'dag') "
            "SELECT e.*, i.task_id IS NOT NULL AS parent_exists, "
            "e.parent_task_id = e.task_id AS is_self_loop FROM edges AS e "
            "LEFT JOIN ids AS i ON i.job_name = e.job_name AND i.task_id = e.parent_task_id",
        ),
        ("what-if: te joined to bt twice", "SELECT count(*) FROM te" + EDGE_JOIN.format(bt="bt")),
    ]
    out = []
    with query.read_only(Home.resolve(sys.argv[1])) as con:
        for label, sql in PARTS:
            t = time.perf_counter()
            con.execute(sql).fetchall()
            out.append([label, time.perf_counter() - t])
            print(f"{label}: {out[-1][1]:.2f} s", file=sys.stderr, flush=True)
    print("\n@@JSON " + json.dumps(out))


if __name__ == "__main__":
    main()
