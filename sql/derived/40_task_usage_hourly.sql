-- name: derived.task_usage_hourly
-- description: lifecycle.task_usage_hourly of one trace, stored: the usage windows summed per task and hour, which the usage reports (tier-usage, priority-share, alloc-usage, compare) read instead of every window.
-- grain: one row per (trace, cell, job_id, task_index, clock_hour, hour)
-- params: trace
-- input: task_usage
-- sort: cell, clock_hour, job_id, task_index, hour
-- unit: clock_hour // 6
-- note: an ingest of task usage recomputes the hours its parts hold (every window starting in them, whichever part holds it), rewrites the files of the 6-hour units holding them (unit = clock_hour // 6) and carries the other units' files into its generation unchanged (hard links).
SELECT * FROM lifecycle.task_usage_hourly WHERE trace = $trace
