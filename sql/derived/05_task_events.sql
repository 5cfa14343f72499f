-- name: derived.task_events
-- description: lifecycle.task_events of one trace, stored and sorted by task: every task event with its part and the parts missing before it, so a task's events read as one stretch of one file.
-- grain: one row per task event (trace, cell, job_id, task_index, time, seq)
-- params: trace
-- sort: cell, job_id, task_index, time, seq
-- note: an ingest that recomputes only the tasks its parts touch reads their earlier events here (the files of the job ranges holding them) and the events of its own parts from the raw tables, not every stored event: its cost follows the jobs it touches, not the home.
SELECT * FROM lifecycle.task_events WHERE trace = $trace
