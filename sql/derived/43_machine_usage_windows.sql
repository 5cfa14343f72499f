-- name: derived.machine_usage_windows
-- description: lifecycle.machine_usage_windows of one trace, stored: the usage windows summed per machine and window start, which machines and utilization-change read instead of every window (about a ninth of the rows on the synthetic 2011 trace: 151.8 M for 1,297 M windows).
-- grain: one row per (trace, cell, machine_id, start_time)
-- params: trace
-- input: task_usage
-- sort: cell, clock_hour, machine_id, start_time
-- unit: clock_hour // 6
-- note: as derived.task_usage_hourly: an ingest of task usage recomputes the hours its parts hold (every window starting in them, whichever part holds it), rewrites the files of the 6-hour units holding them and carries the other units' files into its generation unchanged (hard links).
SELECT * FROM lifecycle.machine_usage_windows WHERE trace = $trace
