-- name: overview
-- traces: any
-- description: per ingested trace and table: rows, rejects, time span as real instants, distinct jobs / tasks / machines, files and bytes
-- params: none
-- reproduces: table sizes published for the whole traces (traces.md; meta.published_rows, from each trace's spec)
-- note: parts_present / parts_missing: the numbered parts (2011 part-NNNNN, 2019 shards, per cell) of each table that are live and those missing inside their run (meta.part_coverage); a table with missing parts lacks the events of those time slices. distinct_jobs_in_table = distinct job ids in that table (compare counts jobs from the job table: job_events); distinct_tasks_in_table = distinct tasks in that table, exact (meta.tables.approx_distinct_tasks: an estimate only in a catalog ingested before exact counts, until the table is ingested again).
-- caveat: a sample or a partial download is not the whole trace: compare rows with published_rows only when every part is present
SELECT
    t.trace,
    t.table_name AS "table",
    t.rows,
    t.rows_rejected AS rejected,
    strftime(t.first_time AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M') AS first_utc,
    strftime(t.last_time AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M') AS last_utc,
    t.distinct_jobs AS distinct_jobs_in_table,
    t.approx_distinct_tasks AS distinct_tasks_in_table,
    t.distinct_machines AS machines,
    round(t.bytes / 1e6, 1) AS parquet_mb,
    p.published_rows,
    pc.parts_present,
    pc.parts_missing
-- the traces in the registry's order (meta.trace_place), as every listing: the place is a column of
-- the FROM (Spark refuses a SQL function in ORDER BY)
FROM (SELECT *, meta.trace_place(trace) AS place FROM meta.tables) AS t
LEFT JOIN meta.published_rows AS p ON p.trace = t.trace AND p.table_name = t.table_name
LEFT JOIN meta.table_parts AS pc ON pc.trace = t.trace AND pc.table_name = t.table_name
ORDER BY t.place, t.trace, t.table_name;
