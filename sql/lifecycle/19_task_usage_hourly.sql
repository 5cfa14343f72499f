-- name: lifecycle.task_usage_hourly
-- description: the task usage windows of every Google trace summed per task and hour: what the usage reports aggregate (used core- and memory-seconds, window seconds for request x time, windows, the 5-minute slots with usage), so they read one row per task-hour instead of every window.
-- grain: one row per (trace, cell, job_id, task_index, clock_hour, hour)
-- note: windows with a special start or end time (window_s NULL) are left out, as every usage report leaves them out. A row is the windows starting in one hour of each of the two grids the reports use: clock_hour = start_time // 1 h of raw time (alloc-usage's buckets, which start at raw time 0), hour = hours since the trace start (meta.trace_hour: tier-usage's hours); with the trace start on a 10-minute boundary a task-hour is at most two rows. Sums are exact sums of the windows' products, added with fsum so that the same windows give the same value whatever order they are read in.
CREATE OR REPLACE VIEW lifecycle.task_usage_hourly AS
SELECT
    trace, cell, job_id, task_index,
    start_time // meta.time_units(trace, 3600) AS clock_hour,
    meta.trace_hour(trace, start_time) AS hour,
    count(*) AS windows,
    fsum(window_s) AS window_s,
    fsum(cpu * window_s) AS cpu_s,
    fsum(memory * window_s) AS memory_s,
    -- the 5-minute slots (the usage sampling period) of the clock hour that hold a window: bit k = slot k
    bit_or(1::BIGINT << ((start_time % meta.time_units(trace, 3600)) // meta.time_units(trace, 300))::INTEGER) AS slots
FROM lifecycle.task_usage
WHERE window_s IS NOT NULL
GROUP BY ALL;

COMMENT ON VIEW lifecycle.task_usage_hourly IS 'Task usage windows summed per task and hour (clock_hour: raw time // 1 h; hour: since the trace start): used core- and memory-seconds, window seconds, windows, 5-minute slots';
COMMENT ON COLUMN lifecycle.task_usage_hourly.clock_hour IS 'start_time // 1 h of raw time (the buckets of alloc-usage, which start at raw time 0)';
COMMENT ON COLUMN lifecycle.task_usage_hourly.hour IS 'Whole hours since the trace start of the windows'' start (meta.trace_hour)';
COMMENT ON COLUMN lifecycle.task_usage_hourly.windows IS 'Usage windows (with a known length) of the task starting in the hour';
COMMENT ON COLUMN lifecycle.task_usage_hourly.window_s IS 'Sum of the windows'' lengths, seconds';
COMMENT ON COLUMN lifecycle.task_usage_hourly.cpu_s IS 'Sum of mean CPU x window length: normalised core-seconds used';
COMMENT ON COLUMN lifecycle.task_usage_hourly.memory_s IS 'Sum of mean memory x window length: normalised memory-seconds used';
COMMENT ON COLUMN lifecycle.task_usage_hourly.slots IS 'Bit k set: a window starts in the k-th 5-minute slot of the clock hour (k = 0..11)';
