-- name: derived.task_transitions
-- description: lifecycle.task_transitions of one trace, stored and sorted by task: each state event with the previous one (UPDATE_* collapsed).
-- grain: one row per non-update task event (trace, cell, job_id, task_index, time, seq)
-- params: trace
-- sort: cell, job_id, task_index, time, seq
SELECT * FROM lifecycle.task_transitions WHERE trace = $trace
