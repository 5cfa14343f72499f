-- name: lifecycle.attempt_usage
-- description: the task usage windows of every Google trace summed per run attempt of their task (the attempt running when a window starts), so a report of usage by attempt reads one row per attempt instead of joining every window to the attempts.
-- grain: one row per (trace, cell, job_id, task_index, episode_no); episode_no NULL: the task's windows outside every run attempt
-- note: a window belongs to the attempt that ran (lifecycle.task_episodes.ran) of the same task that was running when the window started: from its SCHEDULE (or, scheduled before the data, from the start) to its end event, or with none to the next attempt's first event (SUBMIT, else SCHEDULE), else to the end of the window (meta.after_window); the rule of cpu-by-runtime. Only what a task's own events and windows give (lifecycle.task_episode_core, not the clipping to the observed segments), so an ingest recomputes the tasks it touches. Only tasks with a task event have rows: the windows of a task with none lie outside every attempt (lifecycle.task_usage_hourly holds them). Windows with a special start or end time (window_s NULL) are left out, as every usage report leaves them out. Sums are fsum of the per-hour sums (each an fsum of the windows' products), the same whatever order the windows or the hours are read in.
CREATE OR REPLACE VIEW lifecycle.attempt_usage AS
-- the hours added up: an ingest of usage parts recomputes the hours they hold (the stored
-- lifecycle.attempt_usage_hourly), and a whole rebuild sums the same hours the same way, so both
-- give the same value to the last bit
SELECT trace, cell, job_id, task_index, episode_no,
       sum(windows)::BIGINT AS windows,
       fsum(window_s) AS window_s,
       fsum(cpu_s) AS cpu_s,
       fsum(memory_s) AS memory_s
FROM lifecycle.attempt_usage_hourly
GROUP BY ALL;

COMMENT ON VIEW lifecycle.attempt_usage IS 'Task usage windows summed per run attempt (the one running when a window starts; episode_no NULL: outside every attempt of the task): used core- and memory-seconds, window seconds, windows';
COMMENT ON COLUMN lifecycle.attempt_usage.episode_no IS 'The run attempt (lifecycle.task_episodes.episode_no) the windows belong to; NULL: the task''s windows outside every attempt that ran';
COMMENT ON COLUMN lifecycle.attempt_usage.windows IS 'Usage windows (with a known length) given to the attempt';
COMMENT ON COLUMN lifecycle.attempt_usage.window_s IS 'Sum of the windows'' lengths: the seconds of the attempt the usage observes';
COMMENT ON COLUMN lifecycle.attempt_usage.cpu_s IS 'Sum of mean CPU x window length: normalised core-seconds used';
COMMENT ON COLUMN lifecycle.attempt_usage.memory_s IS 'Sum of mean memory x window length: normalised memory-seconds used';
