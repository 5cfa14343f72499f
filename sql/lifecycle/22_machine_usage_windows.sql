-- name: lifecycle.machine_usage_windows
-- description: the task usage windows of every Google trace summed per machine and window start: what the machine-level usage reports aggregate (machines' utilisation, utilization-change's cluster usage per window), so they read one row per machine and window start instead of every task's window.
-- grain: one row per (trace, cell, machine_id, start_time)
-- note: windows with a special start or end time (window_s NULL) are left out, as every usage report leaves them out. clock_hour = start_time // 1 h of raw time (as lifecycle.task_usage_hourly.clock_hour), the hour an ingest of usage recomputes the rows of. cpu and memory = sum of the tasks' mean usage of the windows starting at start_time on the machine (the machine's usage in that window when the tasks' windows are aligned); cpu_s and memory_s = sum of mean usage x window length. Sums are fsum, the same whatever order the windows are read in.
CREATE OR REPLACE VIEW lifecycle.machine_usage_windows AS
SELECT
    trace, cell, machine_id, start_time,
    start_time // meta.time_units(trace, 3600) AS clock_hour,
    count(*) AS windows,
    fsum(cpu) AS cpu,
    fsum(memory) AS memory,
    fsum(cpu * window_s) AS cpu_s,
    fsum(memory * window_s) AS memory_s
FROM lifecycle.task_usage
WHERE window_s IS NOT NULL
GROUP BY ALL;

COMMENT ON VIEW lifecycle.machine_usage_windows IS 'Task usage windows summed per machine and window start: tasks'' mean CPU and memory, core- and memory-seconds, windows';
COMMENT ON COLUMN lifecycle.machine_usage_windows.clock_hour IS 'start_time // 1 h of raw time (as lifecycle.task_usage_hourly.clock_hour): the hour the windows start in';
COMMENT ON COLUMN lifecycle.machine_usage_windows.windows IS 'Usage windows (with a known length) of the machine''s tasks starting at start_time';
COMMENT ON COLUMN lifecycle.machine_usage_windows.cpu IS 'Sum of the windows'' mean CPU (normalised cores): the machine''s tasks'' CPU in the window';
COMMENT ON COLUMN lifecycle.machine_usage_windows.memory IS 'Sum of the windows'' mean memory (normalised)';
COMMENT ON COLUMN lifecycle.machine_usage_windows.cpu_s IS 'Sum of mean CPU x window length: normalised core-seconds used';
COMMENT ON COLUMN lifecycle.machine_usage_windows.memory_s IS 'Sum of mean memory x window length: normalised memory-seconds used';
