-- name: derived.attempt_usage
-- description: lifecycle.attempt_usage over the stored derived.attempt_usage_hourly: the usage windows summed per run attempt, which cpu-by-runtime reads instead of joining every window to the attempts.
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- params: trace
-- reads: attempt_usage_hourly
SELECT * FROM lifecycle.attempt_usage WHERE trace = $trace
