-- name: derived.task_episode_core
-- description: lifecycle.task_episode_core of one trace, stored and sorted by task: one row per run attempt with what its task's events give (wait, run, censoring and gap flags, the run interval before the clipping to the observed segments).
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- params: trace
-- sort: cell, job_id, task_index, episode_no
SELECT * FROM lifecycle.task_episode_core WHERE trace = $trace
