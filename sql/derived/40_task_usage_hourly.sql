-- name: derived.task_usage_hourly
-- description: lifecycle.task_usage_hourly of one trace, stored: the usage windows summed per task and hour, which the usage reports (tier-usage, priority-share, alloc-usage, compare) read instead of every window.
-- grain: one row per (trace, cell, job_id, task_index, clock_hour, hour)
-- params: trace
-- input: task_usage
-- sort: cell, clock_hour, job_id, task_index, hour
SELECT * FROM lifecycle.task_usage_hourly WHERE trace = $trace
