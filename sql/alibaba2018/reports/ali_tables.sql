-- name: ali-tables
-- traces: alibaba2018
-- description: the six tables of the trace as the paper's Table 1 groups them (machines, batch jobs, online containers; static and runtime), with the rows, rejects, time span and distinct keys ingested here beside the published row counts
-- params: none
-- reproduces: Alibaba co-location paper, Table 1 (the six csv tables of trace-2018: a static and a runtime table for each of machines, batch jobs and containers); published whole-trace rows: batch_task 14,295,731, batch_instance 1,351,255,775
-- cites: wang2020colocation
-- note: one row per table of the paper's Table 1, listed even when not ingested (rows NULL). Times are seconds since the trace start (Alibaba gives no real instant). Columns = the file's fields in order (traces.md section 3), read from the raw table.
-- caveat: rows are what was ingested here; the published counts are for the whole trace
WITH layout(ord, subject, kind, table_name, published_rows) AS (VALUES
    (1, 'machine', 'static', 'machine_meta', NULL::BIGINT), (2, 'machine', 'runtime', 'machine_usage', NULL),
    (3, 'batch job', 'static', 'batch_task', 14295731), (4, 'batch job', 'runtime', 'batch_instance', 1351255775),
    (5, 'online container', 'static', 'container_meta', NULL), (6, 'online container', 'runtime', 'container_usage', NULL)
),
fields AS (
    -- the raw columns in file order; day and seq are tracewh's partition and source-order columns
    SELECT table_name, count(*) AS n, string_agg(column_name, ', ' ORDER BY ordinal_position) AS names
    FROM information_schema.columns
    WHERE table_schema = 'alibaba2018_raw' AND column_name NOT IN ('day', 'seq')
    GROUP BY table_name
)
SELECT l.subject, l.kind, l.table_name AS "table", f.n AS columns, t.rows, t.rows_rejected AS rejected,
       t.min_time AS first_time_s, t.max_time AS last_time_s, t.distinct_jobs AS jobs, t.distinct_machines AS machines,
       l.published_rows, f.names AS fields
FROM layout AS l
LEFT JOIN (SELECT * FROM meta.tables WHERE trace = 'alibaba2018') AS t USING (table_name)
LEFT JOIN fields AS f USING (table_name)
ORDER BY l.ord;
