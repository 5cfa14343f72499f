-- name: google2011_usage_windows
-- description: task_usage measurement windows end after they start
-- grain: one row per offending measurement window
SELECT job_id, task_index, machine_id, start_time, end_time
FROM google2011.task_usage
WHERE end_time < start_time;
