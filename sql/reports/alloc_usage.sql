-- name: alloc-usage
-- traces: google2011, google2019
-- description: CPU and memory allocation rate (requests of running attempts) and usage rate, both as fractions of the cluster capacity, for production tasks and for all tasks, per time bucket and over the whole window
-- params: trace, cell, bucket_s = 3600
-- reproduces: "10 Observations on Google Cluster Trace", Figure 9: allocation far above usage; production uses about half of what it is allocated yet most of the CPU and memory used
-- note: allocation, capacity and their rates are time-weighted means over each bucket (exact integrals of step functions). Allocated = the request of every run attempt (lifecycle.task_episodes) from its SCHEDULE to its end event, clipped to the observed window (the trace start at 600 s to the last real task event), so attempts scheduled before the window or running at its end count for the part observed. Capacity = the machines present (ADD/UPDATE to REMOVE) with their last known capacity; a machine without a capacity value adds none. Used = mean usage x window length of the task usage windows starting in the bucket. Production: the attempt's priority (allocation) and the task's last known priority (usage), is_production as in priority-share. Rates above 1 mean over-commitment.
-- plot: x=hours; y=cpu_allocated_all,cpu_used_all,cpu_allocated_production,cpu_used_production,memory_allocated_all,memory_used_all,memory_allocated_production,memory_used_production; kind=line; panels=cpu_,memory_; dashed=allocated; where=section:per bucket; title=Allocation and usage as a fraction of cluster capacity; xlabel=hours since the trace start; ylabel=fraction of capacity
WITH bounds AS (
    SELECT 600000000 AS t0, max(time) AS t1 FROM lifecycle.task_events
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND time < 9223372036854775807
),
attempts AS (
    SELECT greatest(e.schedule_time, b.t0) AS s, least(coalesce(e.end_time, b.t1), b.t1) AS e,
           coalesce(e.cpu_request, 0) AS cpu, coalesce(e.memory_request, 0) AS mem, coalesce(e.is_production, false) AS prod
    FROM lifecycle.task_episodes AS e, bounds AS b
    WHERE e.trace = $trace AND ($cell IS NULL OR e.cell = $cell) AND e.schedule_time IS NOT NULL
),
machine_levels AS (
    -- each machine's capacity after each of its events (0 after a REMOVE; the last known value otherwise)
    SELECT cell, machine_id, greatest(time, (SELECT t0 FROM bounds)) AS time, seq,
           CASE WHEN event_type_name = 'REMOVE' THEN 0
                ELSE coalesce(last_value(cpus IGNORE NULLS) OVER w, 0) END AS cpu,
           CASE WHEN event_type_name = 'REMOVE' THEN 0
                ELSE coalesce(last_value(memory IGNORE NULLS) OVER w, 0) END AS mem
    FROM lifecycle.machine_events
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND time < 9223372036854775807
    WINDOW w AS (PARTITION BY cell, machine_id ORDER BY time, seq ROWS UNBOUNDED PRECEDING)
),
buckets AS (
    SELECT unnest(range(t0 // ($bucket_s::BIGINT * 1000000), t1 // ($bucket_s::BIGINT * 1000000) + 1)) AS bucket
    FROM bounds
),
-- every change of a step function (capacity, allocation) and every bucket edge, as deltas
deltas(time, cap_cpu, cap_mem, cpu_all, mem_all, cpu_prod, mem_prod) AS (
    SELECT time, cpu - coalesce(lag(cpu) OVER m, 0), mem - coalesce(lag(mem) OVER m, 0), 0, 0, 0, 0
    FROM machine_levels WINDOW m AS (PARTITION BY cell, machine_id ORDER BY time, seq)
    UNION ALL SELECT s, 0, 0, cpu, mem, CASE WHEN prod THEN cpu ELSE 0 END, CASE WHEN prod THEN mem ELSE 0 END
    FROM attempts WHERE e > s
    UNION ALL SELECT e, 0, 0, -cpu, -mem, CASE WHEN prod THEN -cpu ELSE 0 END, CASE WHEN prod THEN -mem ELSE 0 END
    FROM attempts WHERE e > s
    UNION ALL SELECT greatest(bucket * $bucket_s::BIGINT * 1000000, t0), 0, 0, 0, 0, 0, 0 FROM buckets, bounds
    UNION ALL SELECT t1, 0, 0, 0, 0, 0, 0 FROM bounds
),
points AS (
    SELECT time, sum(cap_cpu) AS cap_cpu, sum(cap_mem) AS cap_mem, sum(cpu_all) AS cpu_all, sum(mem_all) AS mem_all,
           sum(cpu_prod) AS cpu_prod, sum(mem_prod) AS mem_prod
    FROM deltas GROUP BY time
),
segments AS (
    -- the level after each point holds until the next point; bucket edges are points, so no segment crosses one
    SELECT time // ($bucket_s::BIGINT * 1000000) AS bucket,
           (lead(time) OVER o - time) / 1e6 AS len_s,
           sum(cap_cpu) OVER c AS cap_cpu, sum(cap_mem) OVER c AS cap_mem, sum(cpu_all) OVER c AS cpu_all,
           sum(mem_all) OVER c AS mem_all, sum(cpu_prod) OVER c AS cpu_prod, sum(mem_prod) OVER c AS mem_prod
    FROM points, bounds
    WHERE time >= t0 AND time <= t1
    WINDOW o AS (ORDER BY time), c AS (ORDER BY time ROWS UNBOUNDED PRECEDING)
),
integrals AS (
    SELECT bucket, sum(len_s) AS len_s, sum(cap_cpu * len_s) AS cap_cpu, sum(cap_mem * len_s) AS cap_mem,
           sum(cpu_all * len_s) AS cpu_all, sum(mem_all * len_s) AS mem_all,
           sum(cpu_prod * len_s) AS cpu_prod, sum(mem_prod * len_s) AS mem_prod
    FROM segments WHERE len_s IS NOT NULL GROUP BY bucket
),
production AS (
    SELECT cell, job_id, task_index, coalesce(is_production, false) AS prod
    FROM lifecycle.tasks WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
used AS (
    SELECT u.start_time // ($bucket_s::BIGINT * 1000000) AS bucket,
           sum(u.cpu * u.window_s) AS cpu_all, sum(u.memory * u.window_s) AS mem_all,
           sum(u.cpu * u.window_s) FILTER (p.prod) AS cpu_prod, sum(u.memory * u.window_s) FILTER (p.prod) AS mem_prod
    FROM lifecycle.task_usage AS u
    LEFT JOIN production AS p
        ON p.cell IS NOT DISTINCT FROM u.cell AND p.job_id = u.job_id AND p.task_index = u.task_index
    WHERE u.trace = $trace AND ($cell IS NULL OR u.cell = $cell) AND u.window_s IS NOT NULL
    GROUP BY ALL
),
per_bucket AS (
    SELECT b.bucket, i.len_s, i.cap_cpu, i.cap_mem, i.cpu_all, i.mem_all, i.cpu_prod, i.mem_prod,
           u.cpu_all AS used_cpu_all, u.mem_all AS used_mem_all,
           u.cpu_prod AS used_cpu_prod, u.mem_prod AS used_mem_prod
    FROM buckets AS b LEFT JOIN integrals AS i USING (bucket) LEFT JOIN used AS u USING (bucket)
),
rows AS (
    SELECT 'per bucket' AS section, bucket, * EXCLUDE (bucket) FROM per_bucket
    UNION ALL
    SELECT 'whole window', NULL, sum(COLUMNS(* EXCLUDE (bucket))) FROM per_bucket
)
SELECT
    section,
    bucket,
    round((bucket * $bucket_s - 600) / 3600.0, 4) AS hours,
    round(cap_cpu / nullif(len_s, 0), 6) AS cpu_capacity,
    round(cap_mem / nullif(len_s, 0), 6) AS memory_capacity,
    round(cpu_all / nullif(cap_cpu, 0), 4) AS cpu_allocated_all,
    round(coalesce(used_cpu_all, 0) / nullif(cap_cpu, 0), 4) AS cpu_used_all,
    round(cpu_prod / nullif(cap_cpu, 0), 4) AS cpu_allocated_production,
    round(coalesce(used_cpu_prod, 0) / nullif(cap_cpu, 0), 4) AS cpu_used_production,
    round(mem_all / nullif(cap_mem, 0), 4) AS memory_allocated_all,
    round(coalesce(used_mem_all, 0) / nullif(cap_mem, 0), 4) AS memory_used_all,
    round(mem_prod / nullif(cap_mem, 0), 4) AS memory_allocated_production,
    round(coalesce(used_mem_prod, 0) / nullif(cap_mem, 0), 4) AS memory_used_production,
    round(used_cpu_prod / nullif(cpu_prod, 0), 4) AS production_cpu_used_per_allocated,
    round(used_cpu_prod / nullif(used_cpu_all, 0), 4) AS production_share_of_cpu_used,
    round(used_mem_prod / nullif(used_mem_all, 0), 4) AS production_share_of_memory_used
FROM rows
ORDER BY section, bucket;
