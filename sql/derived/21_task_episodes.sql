-- name: derived.task_episodes
-- description: lifecycle.task_episodes of one trace, stored and sorted by task: one row per run attempt with its wait, run, censoring and gap flags.
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- params: trace
SELECT * FROM lifecycle.task_episodes WHERE trace = $trace ORDER BY cell, job_id, task_index, episode_no
