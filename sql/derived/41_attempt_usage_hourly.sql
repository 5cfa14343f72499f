-- name: derived.attempt_usage_hourly
-- description: lifecycle.attempt_usage_hourly of one trace, stored one file per 6 hours of window start: the usage windows summed per run attempt and hour, which derived.attempt_usage adds up per attempt.
-- grain: one row per (trace, cell, job_id, task_index, episode_no, clock_hour)
-- params: trace
-- input: task_events, task_usage
-- sort: cell, job_id, task_index, episode_no, clock_hour
-- unit: clock_hour // 6
-- note: computed from a task's own events and windows. An ingest of task events recomputes the tasks it touches (as the other tables of one row per task) and keeps the other rows, writing again only the files of the units where a touched task's rows change (its windows that change attempt: the rows computed from the same windows with the old stored attempts differ) and carrying the others; an ingest of task usage recomputes the hours its parts hold (every window starting in them, whichever part holds it, with the stored attempts, lifecycle.task_episode_core as stored), writes the files of the 6-hour units holding them and carries the other units' files into its generation unchanged (hard links).
SELECT * FROM lifecycle.attempt_usage_hourly WHERE trace = $trace
