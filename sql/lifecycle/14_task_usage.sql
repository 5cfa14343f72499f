-- name: lifecycle.task_usage
-- description: task resource usage of every Google trace in one shape: mean normalised CPU cores and memory per measurement window.
-- grain: one row per (trace, cell, job_id, task_index, machine_id, start_time) window
-- note: the UNION of every trace's adapter view <trace>.lifecycle_task_usage (2019: average_usage of instances of jobs, alloc instances left out).
CREATE OR REPLACE VIEW lifecycle.task_usage AS
SELECT trace, cell, job_id, task_index, machine_id, start_time, end_time, window_s, cpu, memory, memory_assigned,
       meta.seq_part(seq) AS part
FROM {{union lifecycle_task_usage}};

COMMENT ON VIEW lifecycle.task_usage IS 'Task usage windows of every Google trace: cpu = mean normalised cores, memory = mean normalised memory, window_s = length (NULL for special times)';
COMMENT ON COLUMN lifecycle.task_usage.part IS 'The source part (2011 part number, 2019 shard) the window was read from';
