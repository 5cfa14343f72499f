-- name: alibaba2018.headline
-- description: the 2018 trace's row of the compare report (its headline metrics in the shared definitions): Alibaba is not in the life-cycle layer, so it brings its own.
-- grain: one row (trace, machines, jobs, tasks, tasks_per_job, median_jobs_per_hour, resubmit_ratio, finish, kill, fail, evict, lost, mean_cpu_utilisation, mean_memory_utilisation)
-- note: tasks are batch tasks, outcomes their status (Terminated = finish, Failed = fail, Cancelled/Interrupted = kill), jobs per hour from each job's earliest task start, utilisation the mean of valid machine_usage samples / 100.
CREATE OR REPLACE VIEW alibaba2018.headline AS
WITH tasks AS (
    -- the run outcome of each ended task, its status named once; NULL = not ended (or unknown)
    SELECT *, CASE WHEN status = 'Terminated' THEN 'finish' WHEN status = 'Failed' THEN 'fail'
                   WHEN status IN ('Cancelled', 'Interrupted') THEN 'kill' END AS outcome
    FROM alibaba2018.batch_task
)
SELECT
    'alibaba2018' AS trace,
    (SELECT count(DISTINCT machine_id) FROM alibaba2018.machine_meta) AS machines,
    -- no batch tasks ingested: unknown, not 0 (compare's footer names the table)
    nullif(count(DISTINCT job_name), 0) AS jobs,
    nullif(count(*), 0) AS tasks,
    count(*) / nullif(count(DISTINCT job_name), 0) AS tasks_per_job,
    (SELECT median(jobs) FROM (
        SELECT h, count(*) AS jobs FROM (
            SELECT job_name, min(start_time) FILTER (start_time > 0) // 3600 AS h
            FROM alibaba2018.batch_task GROUP BY job_name
        ) WHERE h IS NOT NULL GROUP BY h)) AS median_jobs_per_hour,
    NULL::DOUBLE AS resubmit_ratio,
    count(*) FILTER (outcome = 'finish') / nullif(count(outcome), 0) AS finish,
    count(*) FILTER (outcome = 'kill') / nullif(count(outcome), 0) AS kill,
    count(*) FILTER (outcome = 'fail') / nullif(count(outcome), 0) AS fail,
    NULL::DOUBLE AS evict,
    NULL::DOUBLE AS lost,
    (SELECT avg(cpu_util_percent) / 100 FROM alibaba2018.machine_usage) AS mean_cpu_utilisation,
    (SELECT avg(mem_util_percent) / 100 FROM alibaba2018.machine_usage) AS mean_memory_utilisation
FROM tasks;
