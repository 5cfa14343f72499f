-- name: derived.tasks
-- description: lifecycle.tasks of one trace, stored and sorted by task: events, submits, first event, last known priority and requests per task.
-- grain: one row per (trace, cell, job_id, task_index)
-- params: trace
-- sort: cell, job_id, task_index
SELECT * FROM lifecycle.tasks WHERE trace = $trace
