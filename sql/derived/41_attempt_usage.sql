-- name: derived.attempt_usage
-- description: lifecycle.attempt_usage of one trace, stored and sorted by task: the usage windows summed per run attempt, which cpu-by-runtime reads instead of joining every window to the attempts.
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- params: trace
-- input: task_events, task_usage
-- sort: cell, job_id, task_index, episode_no
-- note: computed from a task's own events and windows. An ingest of task events recomputes the tasks it touches (as the other tables of one row per task) and keeps the other rows; an ingest of task usage rebuilds the table whole from the stored attempts (lifecycle.task_episode_core as stored) and every window (its parts are stretches of time, not tasks).
SELECT * FROM lifecycle.attempt_usage WHERE trace = $trace
