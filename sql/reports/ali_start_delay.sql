-- name: ali-start-delay
-- traces: with batch_instances
-- description: how long a task's instances wait after its first instance starts: per task the mean and max start delay, aggregated by the task's instance count
-- params: trace
-- reproduces: Alibaba co-location paper, Figure 6 (instance start delay grows with the number of instances of a task)
-- cites: wang2020colocation
-- note: delay of an instance = its start_time - the earliest start_time of the task's instances (instances with start_time 0 = unknown, or below 0 = before the trace, are left out; so are instances whose job or task id is missing, which name no task). Buckets of instance count: 1, 2-10, 11-100, 101-1000, > 1000.
-- caveat: instances with start_time 0 (unknown) or before the trace are left out
WITH inst AS (
    SELECT job_name, task_name, start_time,
           start_time - min(start_time) OVER (PARTITION BY job_name, task_name) AS delay_s
    FROM {{union batch_instances}}
    WHERE trace = $trace AND start_time > 0 AND job_name IS NOT NULL AND task_name IS NOT NULL
),
per_task AS (
    SELECT job_name, task_name, count(*) AS instances, avg(delay_s) AS mean_delay_s, max(delay_s) AS max_delay_s
    FROM inst GROUP BY job_name, task_name
)
SELECT
    CASE WHEN instances = 1 THEN '1' WHEN instances <= 10 THEN '2-10' WHEN instances <= 100 THEN '11-100'
         WHEN instances <= 1000 THEN '101-1000' ELSE '> 1000' END AS instances_per_task,
    count(*) AS tasks,
    round(avg(mean_delay_s), 3) AS mean_of_mean_delay_s,
    round(avg(max_delay_s), 3) AS mean_of_max_delay_s,
    round(quantile_cont(max_delay_s, 0.5), 3) AS p50_max_delay_s,
    round(quantile_cont(max_delay_s, 0.9), 3) AS p90_max_delay_s,
    max(max_delay_s) AS max_delay_s
FROM per_task
GROUP BY 1
ORDER BY min(instances);
