-- name: derived.attempt_usage_by_day
-- description: lifecycle.attempt_usage_by_day of one trace, stored one file per day of window start: the usage windows summed per run attempt and day, which derived.attempt_usage adds up per attempt.
-- grain: one row per (trace, cell, job_id, task_index, episode_no, clock_day)
-- params: trace
-- input: task_events, task_usage
-- sort: cell, job_id, task_index, episode_no, clock_day
-- unit: clock_day
-- note: computed from a task's own events and windows. An ingest of task events recomputes the tasks it touches (as the other tables of one row per task) and keeps the other rows; an ingest of task usage recomputes the days its parts hold (every window starting in them, whichever part holds it, with the stored attempts, lifecycle.task_episode_core as stored) and carries the other days' files into its generation unchanged (hard links).
SELECT * FROM lifecycle.attempt_usage_by_day WHERE trace = $trace
