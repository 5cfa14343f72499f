-- name: google2011_view_rows
-- description: every google2011 view returns exactly the rows recorded in meta.tables (the views read the live Parquet)
-- grain: one row per offending table
WITH counted(table_name, view_rows) AS (
    SELECT 'job_events', count(*) FROM google2011.job_events
    UNION ALL SELECT 'task_events', count(*) FROM google2011.task_events
    UNION ALL SELECT 'machine_events', count(*) FROM google2011.machine_events
    UNION ALL SELECT 'machine_attributes', count(*) FROM google2011.machine_attributes
    UNION ALL SELECT 'task_constraints', count(*) FROM google2011.task_constraints
    UNION ALL SELECT 'task_usage', count(*) FROM google2011.task_usage
)
SELECT c.table_name, c.view_rows, coalesce(t.rows, 0) AS recorded_rows
FROM counted AS c
LEFT JOIN meta.tables AS t ON t.trace = 'google2011' AND t.table_name = c.table_name
WHERE c.view_rows <> coalesce(t.rows, 0);
