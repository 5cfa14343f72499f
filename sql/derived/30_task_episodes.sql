-- name: derived.task_episodes
-- description: lifecycle.task_episodes over the stored tables: the stored attempts with their run clipped to the stored observed segments (a join with a table of a few rows; nothing is read from the events).
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- params: trace
-- reads: task_episode_core, observed_segments
SELECT * FROM lifecycle.task_episodes WHERE trace = $trace
