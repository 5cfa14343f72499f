-- name: lifecycle.attempt_usage_hourly
-- description: the task usage windows of every Google trace summed per run attempt of their task (the attempt running when a window starts) and hour of the windows' start: what lifecycle.attempt_usage sums per attempt, stored so that an ingest of usage parts recomputes only the hours its parts hold (as lifecycle.task_usage_hourly).
-- grain: one row per (trace, cell, job_id, task_index, episode_no, clock_hour); episode_no NULL: the task's windows outside every run attempt
-- note: a window belongs to the attempt that ran (lifecycle.task_episodes.ran) of the same task that was running when the window started: from its SCHEDULE (or, scheduled before the data, from the start) to its end event, or with none to the next attempt's first event (SUBMIT, else SCHEDULE), else to the end of the window (meta.after_window); the rule of cpu-by-runtime. Only what a task's own events and windows give (lifecycle.task_episode_core, not the clipping to the observed segments), so an ingest recomputes the tasks it touches. Only tasks with a task event have rows: the windows of a task with none lie outside every attempt (lifecycle.task_usage_hourly holds them). Windows with a special start or end time (window_s NULL) are left out, as every usage report leaves them out. clock_hour = start_time // 1 h of raw time, as in lifecycle.task_usage_hourly. Sums are fsum of the windows' products, the same whatever order the windows are read in.
CREATE OR REPLACE VIEW lifecycle.attempt_usage_hourly AS
WITH attempts AS (
    SELECT trace, cell, job_id, task_index, episode_no, ran,
           coalesce(schedule_time, 0) AS run_start,
           least(coalesce(end_time, meta.after_window(trace)), coalesce(next_start, meta.after_window(trace))) AS run_end
    FROM (SELECT *, lead(coalesce(submit_time, schedule_time)) OVER (
                        PARTITION BY trace, cell, job_id, task_index ORDER BY episode_no) AS next_start
          FROM lifecycle.task_episode_core)
),
windows AS (
    -- the windows of the tasks with an event (an attempt of any kind)
    SELECT u.* FROM lifecycle.task_usage AS u
    SEMI JOIN (SELECT DISTINCT trace, cell, job_id, task_index FROM attempts) AS t
        ON t.trace = u.trace AND t.cell IS NOT DISTINCT FROM u.cell AND t.job_id = u.job_id AND t.task_index = u.task_index
    WHERE u.window_s IS NOT NULL
)
SELECT
    w.trace, w.cell, w.job_id, w.task_index, a.episode_no,
    w.start_time // meta.time_units(w.trace, 3600) AS clock_hour,
    count(*) AS windows,
    fsum(w.window_s) AS window_s,
    fsum(w.cpu * w.window_s) AS cpu_s,
    fsum(w.memory * w.window_s) AS memory_s
FROM windows AS w
LEFT JOIN (SELECT * FROM attempts WHERE ran) AS a
    ON a.trace = w.trace AND a.cell IS NOT DISTINCT FROM w.cell AND a.job_id = w.job_id AND a.task_index = w.task_index
   AND w.start_time >= a.run_start AND w.start_time < a.run_end
GROUP BY ALL;

COMMENT ON VIEW lifecycle.attempt_usage_hourly IS 'Task usage windows summed per run attempt and hour of the windows'' start (the attempt running when a window starts; episode_no NULL: outside every attempt of the task)';
COMMENT ON COLUMN lifecycle.attempt_usage_hourly.clock_hour IS 'start_time // 1 h of raw time (as lifecycle.task_usage_hourly.clock_hour): the hour the windows start in';
