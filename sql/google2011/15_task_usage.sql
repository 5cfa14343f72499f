-- name: google2011.task_usage
-- description: per-task resource usage per measurement window, with the window as real instants.
-- grain: one row per (job_id, task_index, machine_id, start_time) measurement window
CREATE OR REPLACE VIEW google2011.task_usage AS
SELECT
    {{window r.start_time, r.end_time}},
    r.job_id,
    r.task_index,
    r.machine_id,
    r.cpu_rate,
    r.canonical_memory_usage,
    r.assigned_memory_usage,
    r.unmapped_page_cache,
    r.total_page_cache,
    r.maximum_memory_usage,
    r.disk_io_time,
    r.local_disk_space_usage,
    r.maximum_cpu_rate,
    r.maximum_disk_io_time,
    r.cycles_per_instruction,
    r.memory_accesses_per_instruction,
    r.sample_portion,
    r.aggregation_type,
    r.sampled_cpu_usage,
    r.seq,
    r.day
FROM google2011_raw.task_usage AS r;

COMMENT ON VIEW google2011.task_usage IS 'Task resource usage of the 2011 trace per measurement window (~300 s; windows may straddle the trace start and end)';
COMMENT ON COLUMN google2011.task_usage.day IS 'Partition: trace day of start_time (start_time // 86400000000)';
