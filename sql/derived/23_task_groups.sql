-- name: derived.task_groups
-- description: lifecycle.task_groups of one trace, stored: the tasks grouped by job where a job's tasks share tier, production flag and requests, which the usage reports join their task-hours to instead of every task. Computed at each ingest of task events from the stored derived.tasks (a row per job: read, not recomputed, by every report and both engines).
-- grain: one row per (trace, cell, job_id, first_index)
-- params: trace
-- sort: cell, job_id, first_index
SELECT * FROM lifecycle.task_groups WHERE trace = $trace
