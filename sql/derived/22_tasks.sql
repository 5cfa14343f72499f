-- name: derived.tasks
-- description: lifecycle.tasks of one trace, stored and sorted by task: events, submits, first event, last known priority and requests per task.
-- grain: one row per (trace, cell, job_id, task_index)
-- params: trace
SELECT * FROM lifecycle.tasks WHERE trace = $trace ORDER BY cell, job_id, task_index
