-- name: derived.task_groups
-- description: lifecycle.task_groups over the stored derived.tasks: the tasks grouped by job where a job's tasks share tier, production flag and requests, which the usage reports join their task-hours to instead of every task.
-- grain: one row per (trace, cell, job_id, first_index)
-- params: trace
-- reads: tasks
SELECT * FROM lifecycle.task_groups WHERE trace = $trace
