"""Where the time of a DAG report goes: its input statement, the grouping per job, the walk of
tracewh.catalog.dag, the registration of its result and the final statement, each timed.

Usage: python -m bench.probes.alibaba_dag_phases HOME REPORT"""


def main() -> None:
    import inspect
    import json
    import resource
    import sys
    import time

    t_import = time.perf_counter()
    from tracewh import reports
    from tracewh.catalog import dag, query
    from tracewh.home import Home

    def rss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    out = {"import_s": time.perf_counter() - t_import}
    rep = reports.get(sys.argv[2])
    first, _, second = rep.sql.partition(reports.STEP_MARKER)
    # The step takes Arrow (newer tracewh.catalog.dag: tasks, batch_rows) or (columns, rows) (older),
    # as reports.run does.
    arrow_step = "tasks" in inspect.signature(dag.register_dag_paths).parameters and hasattr(
        query, "fetch_arrow"
    )
    out["mode"] = "query.fetch_arrow (Arrow table)" if arrow_step else "query.fetch (Python tuples)"
    COLS = ("job_name", "task_id", "parent_task_ids", "run_s", "times_known")
    with query.read_only(Home.resolve(sys.argv[1])) as con:
        t = time.perf_counter()
        tbl = con.cursor().sql(first.strip().rstrip(";")).to_arrow_table()
        out["input_sql_arrow_s"] = time.perf_counter() - t
        out["input_rows"] = tbl.num_rows
        del tbl
        out["rss_after_arrow"] = rss()
        t = time.perf_counter()
        data = query.fetch_arrow(con, first) if arrow_step else query.fetch(con, first)
        out["input_sql_fetch_s"] = time.perf_counter() - t
        out["rss_after_fetch"] = rss()
        # Grouping into per-job task lists, then walk_job alone, timed separately from the step.
        t = time.perf_counter()
        if arrow_step:
            cols = [data.column(c).to_pylist() for c in COLS]
        else:
            ix = [data.columns.index(c) for c in COLS]
            cols = [[r[i] for r in data.rows] for i in ix]
        job_c, id_c, par_c, run_c, known_c = cols
        jobs, start = [], 0
        for end in range(1, len(job_c) + 1):
            if end < len(job_c) and job_c[end] == job_c[start]:
                continue
            jobs.append([(id_c[i], par_c[i] or [], run_c[i], bool(known_c[i])) for i in range(start, end)])
            start = end
        out["group_s"] = time.perf_counter() - t
        del cols, job_c, id_c, par_c, run_c, known_c
        t = time.perf_counter()
        for tasks in jobs:
            dag.walk_job(tasks)
        out["walk_s"] = time.perf_counter() - t
        out["jobs"] = len(jobs)
        del jobs
        t = time.perf_counter()
        if arrow_step:
            dag.register_dag_paths(con, data)
        else:
            dag.register_dag_paths(con, data.columns, data.rows)
        out["register_s"] = time.perf_counter() - t
        out["rss_after_register"] = rss()
        del data
        t = time.perf_counter()
        res = query.fetch(con, second)
        out["final_sql_s"] = time.perf_counter() - t
        out["output_rows"] = len(res.rows)
    print("\n@@JSON " + json.dumps(out))


if __name__ == "__main__":
    main()
