-- name: lifecycle.task_usage
-- purpose: task resource usage of every Google trace in one shape: mean normalised CPU cores and memory per measurement window.
-- grain: one row per (trace, cell, job_id, task_index, machine_id, start_time) window
-- note: 2019 uses average_usage {cpus, memory} of instances of jobs (alloc instances left out, as in the task events).
CREATE OR REPLACE VIEW lifecycle.task_usage AS
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    job_id,
    task_index,
    machine_id,
    start_time,
    end_time,
    window_seconds AS window_s,
    cpu_rate AS cpu,
    canonical_memory_usage AS memory,
    assigned_memory_usage AS memory_assigned
FROM google2011.task_usage
UNION ALL
SELECT
    'google2019',
    cell,
    collection_id,
    instance_index,
    placed_machine_id,
    start_time,
    end_time,
    window_seconds,
    average_cpus,
    average_memory,
    assigned_memory
FROM google2019.instance_usage
WHERE collection_type = 0;

COMMENT ON VIEW lifecycle.task_usage IS 'Task usage windows of every Google trace: cpu = mean normalised cores, memory = mean normalised memory, window_s = length (NULL for special times)';
