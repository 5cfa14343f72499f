-- name: alloc-usage
-- traces: with lifecycle_task_events, lifecycle_task_usage, lifecycle_machine_events
-- description: CPU and memory allocation rate (requests of running attempts) and usage rate, both as fractions of the cluster capacity, for production tasks and for all tasks, per time bucket and over the whole window
-- params: trace, cell, bucket_s: int > 0 = 3600
-- needs: task_usage (cpu_used_all, cpu_used_production, memory_used_all, memory_used_production, production_cpu_used_per_allocated, production_share_of_cpu_used, production_share_of_memory_used), task_events, machine_events
-- reproduces: "10 Observations on Google Cluster Trace", Figure 9: allocation far above usage; production uses about half of what it is allocated yet most of the CPU and memory used
-- cites: zhu2015observations
-- note: allocation, capacity and their rates are time-weighted means over the observed part of each bucket (exact integrals of step functions over lifecycle.observed_segments: the time of a missing part never counts, and a bucket nobody observed has no rate). Allocated = the request of every run attempt that ran (lifecycle.task_episodes) from its SCHEDULE to its end event; as lifecycle.task_episodes.run_from / run_to give it, the rule of priority-share's requested time: one scheduled before the data counts from the start of the observed segment of its first event, one with no end until the next attempt of its task or the end of the observed segment of its last event (a run still open before a missing part is not assumed to go on after it). Capacity = the machines present (ADD/UPDATE to REMOVE) with their last known capacity; a machine without a capacity value adds none. Used = mean usage x window length of the task usage windows starting in the bucket (over the whole bucket). Production: the attempt's priority (allocation) and the task's last known priority (usage), is_production as in priority-share. Rates above 1 mean over-commitment. hours = the bucket's start since the trace start (the first bucket from the start); observed_h = the hours of the bucket the task events observe, the time its rates are over.
-- caveat: capacity is that of the machines in machine_events; usage comes from the task usage parts ingested, which may cover less time than the task events; after a missing part, an attempt that ran through it with no event after it is not known to run on and does not count there, so allocation after a gap is a lower bound
-- plot: x=hours; y=cpu_allocated_all,cpu_used_all,cpu_allocated_production,cpu_used_production,memory_allocated_all,memory_used_all,memory_allocated_production,memory_used_production; kind=line; panels=cpu_,memory_; dashed=allocated; where=section:per bucket; title=Allocation and usage as a fraction of cluster capacity; xlabel=hours since the trace start; ylabel=fraction of capacity; xstep=bucket_s/3600
WITH segs AS MATERIALIZED (
    -- the observed time of each cell (derived.observed_segments: a missing part splits it)
    SELECT cell, t0, t1 FROM derived.observed_segments WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
bounds AS MATERIALIZED (SELECT cell, min(t0) AS t0, max(t1) AS t1 FROM segs GROUP BY cell),
buckets AS (
    SELECT unnest(range(min(t0) // meta.time_units($trace, $bucket_s), max(t1) // meta.time_units($trace, $bucket_s) + 1))
           AS bucket
    FROM bounds
),
-- The integrals need no window over all the changes of a cell (one partition of every change of
-- the trace, which does not spill): time is cut into pieces at every bucket and segment edge (a
-- small table), each change goes to its piece by a join and an aggregate, and the integral of a
-- step function over a piece [a, b) is its level at a x (b - a) + the sum over its changes at t
-- of change x (b - t). The level at a is a running sum over the pieces only.
pieces AS MATERIALIZED (
    -- [a, b) between two consecutive edges of a cell: inside one bucket, observed or not as a whole
    SELECT cell, a, b, a // meta.time_units($trace, $bucket_s) AS bucket
    FROM (SELECT cell, time AS a, lead(time) OVER (PARTITION BY cell ORDER BY time) AS b
          FROM (SELECT b.cell, k.bucket * meta.time_units($trace, $bucket_s) AS time FROM bounds AS b, buckets AS k
                UNION SELECT cell, t0 FROM segs
                UNION SELECT cell, t1 FROM segs))
    WHERE b IS NOT NULL
),
attempts AS (
    -- the run interval of derived.task_episodes (run_from, run_to: the rule priority-share's
    -- observed_run_s uses), integrated over the observed pieces only
    SELECT cell, run_from AS s, run_to AS e,
           coalesce(cpu_request, 0) AS cpu, coalesce(memory_request, 0) AS mem,
           coalesce(is_production, false) AS prod
    FROM derived.task_episodes
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND ran
),
machine_levels AS (
    -- each machine's capacity after each of its events (0 after a REMOVE; the last known value otherwise)
    SELECT m.cell, m.machine_id, greatest(m.time, b.t0) AS time, m.seq,
           CASE WHEN m.event_type_name = 'REMOVE' THEN 0
                ELSE coalesce(last_value(m.cpus IGNORE NULLS) OVER w, 0) END AS cpu,
           CASE WHEN m.event_type_name = 'REMOVE' THEN 0
                ELSE coalesce(last_value(m.memory IGNORE NULLS) OVER w, 0) END AS mem
    FROM lifecycle.machine_events AS m JOIN bounds AS b ON b.cell IS NOT DISTINCT FROM m.cell
    WHERE m.trace = $trace AND ($cell IS NULL OR m.cell = $cell) AND m.time < meta.after_window($trace)
    WINDOW w AS (PARTITION BY m.cell, m.machine_id ORDER BY m.time, m.seq ROWS UNBOUNDED PRECEDING)
),
-- every change of a step function (capacity, allocation): a run attempt adds its request at its
-- start and takes it back at its end
deltas(cell, time, cap_cpu, cap_mem, cpu_all, mem_all, cpu_prod, mem_prod) AS (
    SELECT cell, time, cpu - coalesce(lag(cpu) OVER m, 0), mem - coalesce(lag(mem) OVER m, 0), 0, 0, 0, 0
    FROM machine_levels WINDOW m AS (PARTITION BY cell, machine_id ORDER BY time, seq)
    UNION ALL
    SELECT a.cell, CASE WHEN k.sign > 0 THEN a.s ELSE a.e END, 0, 0, k.sign * a.cpu, k.sign * a.mem,
           CASE WHEN a.prod THEN k.sign * a.cpu ELSE 0 END, CASE WHEN a.prod THEN k.sign * a.mem ELSE 0 END
    FROM attempts AS a CROSS JOIN (VALUES (1), (-1)) AS k(sign)
    WHERE a.e > a.s
),
placed AS (
    -- per piece: the sum of its changes (d_) and their integral up to the piece's end (w_); a change
    -- after the last edge of its cell changes nothing observed
    SELECT p.cell, p.a,
           sum(d.cap_cpu) AS d_cap_cpu, sum(d.cap_mem) AS d_cap_mem, sum(d.cpu_all) AS d_cpu_all,
           sum(d.mem_all) AS d_mem_all, sum(d.cpu_prod) AS d_cpu_prod, sum(d.mem_prod) AS d_mem_prod,
           sum(d.cap_cpu * meta.seconds($trace, p.b - d.time)) AS w_cap_cpu,
           sum(d.cap_mem * meta.seconds($trace, p.b - d.time)) AS w_cap_mem,
           sum(d.cpu_all * meta.seconds($trace, p.b - d.time)) AS w_cpu_all,
           sum(d.mem_all * meta.seconds($trace, p.b - d.time)) AS w_mem_all,
           sum(d.cpu_prod * meta.seconds($trace, p.b - d.time)) AS w_cpu_prod,
           sum(d.mem_prod * meta.seconds($trace, p.b - d.time)) AS w_mem_prod
    FROM deltas AS d
    JOIN pieces AS p ON p.cell IS NOT DISTINCT FROM d.cell
                    AND p.bucket = d.time // meta.time_units($trace, $bucket_s) AND d.time >= p.a AND d.time < p.b
    GROUP BY p.cell, p.a
),
steps AS (
    -- each piece's integrals: the level at its start (the changes of the earlier pieces) x its length
    -- plus its own changes' integrals
    SELECT cell, a, bucket, len_s,
           coalesce(sum(d_cap_cpu) OVER c, 0) * len_s + coalesce(w_cap_cpu, 0) AS cap_cpu,
           coalesce(sum(d_cap_mem) OVER c, 0) * len_s + coalesce(w_cap_mem, 0) AS cap_mem,
           coalesce(sum(d_cpu_all) OVER c, 0) * len_s + coalesce(w_cpu_all, 0) AS cpu_all,
           coalesce(sum(d_mem_all) OVER c, 0) * len_s + coalesce(w_mem_all, 0) AS mem_all,
           coalesce(sum(d_cpu_prod) OVER c, 0) * len_s + coalesce(w_cpu_prod, 0) AS cpu_prod,
           coalesce(sum(d_mem_prod) OVER c, 0) * len_s + coalesce(w_mem_prod, 0) AS mem_prod
    FROM (SELECT p.cell, p.a, p.bucket, meta.seconds($trace, p.b - p.a) AS len_s,
                 d.d_cap_cpu, d.d_cap_mem, d.d_cpu_all, d.d_mem_all, d.d_cpu_prod, d.d_mem_prod,
                 d.w_cap_cpu, d.w_cap_mem, d.w_cpu_all, d.w_mem_all, d.w_cpu_prod, d.w_mem_prod
          FROM pieces AS p LEFT JOIN placed AS d ON d.cell IS NOT DISTINCT FROM p.cell AND d.a = p.a)
    WINDOW c AS (PARTITION BY cell ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
observed AS (
    -- only the pieces inside an observed segment count: the time of a missing part never does
    SELECT s.* FROM steps AS s
    SEMI JOIN segs AS g ON g.cell IS NOT DISTINCT FROM s.cell AND s.a >= g.t0 AND s.a < g.t1
),
integrals AS (
    SELECT bucket, max(len_s) AS len_s, sum(cap_cpu) AS cap_cpu, sum(cap_mem) AS cap_mem,
           sum(cpu_all) AS cpu_all, sum(mem_all) AS mem_all, sum(cpu_prod) AS cpu_prod, sum(mem_prod) AS mem_prod
    FROM (
        -- per cell first: the observed seconds of a bucket are those of its most observed cell
        SELECT cell, bucket, sum(len_s) AS len_s, sum(cap_cpu) AS cap_cpu, sum(cap_mem) AS cap_mem,
               sum(cpu_all) AS cpu_all, sum(mem_all) AS mem_all, sum(cpu_prod) AS cpu_prod, sum(mem_prod) AS mem_prod
        FROM observed GROUP BY cell, bucket
    )
    GROUP BY bucket
),
production AS (
    -- the production tasks only (a few per cent of the tasks): the table of the join below, which
    -- every task-hour probes, stays small (every task in it: 25 M rows at the whole 2011 trace)
    SELECT cell, job_id, task_index, true AS prod
    FROM derived.tasks WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND is_production
),
usage_rows AS (
    -- buckets of whole hours: the windows summed per task and hour (derived.task_usage_hourly, whose
    -- clock_hour is start_time // 1 h, the grid of these buckets); other widths: every window
    SELECT cell, job_id, task_index, clock_hour // ($bucket_s // 3600) AS bucket, cpu_s, memory_s
    FROM derived.task_usage_hourly
    WHERE $bucket_s % 3600 = 0 AND trace = $trace AND ($cell IS NULL OR cell = $cell)
    UNION ALL
    SELECT cell, job_id, task_index, start_time // meta.time_units($trace, $bucket_s), cpu * window_s, memory * window_s
    FROM lifecycle.task_usage
    WHERE $bucket_s % 3600 <> 0 AND trace = $trace AND ($cell IS NULL OR cell = $cell) AND window_s IS NOT NULL
),
used AS (
    SELECT u.bucket,
           sum(u.cpu_s) AS cpu_all, sum(u.memory_s) AS mem_all,
           sum(u.cpu_s) FILTER (p.prod) AS cpu_prod, sum(u.memory_s) FILTER (p.prod) AS mem_prod
    FROM usage_rows AS u
    LEFT JOIN production AS p
        ON p.cell IS NOT DISTINCT FROM u.cell AND p.job_id = u.job_id AND p.task_index = u.task_index
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
    SELECT 'whole window', NULL, sum(len_s), sum(cap_cpu), sum(cap_mem), sum(cpu_all), sum(mem_all), sum(cpu_prod),
           sum(mem_prod), sum(used_cpu_all), sum(used_mem_all), sum(used_cpu_prod), sum(used_mem_prod)
    FROM per_bucket
)
SELECT
    section,
    bucket,
    -- the bucket's start since the trace start; the first bucket's observed part starts at it, not before
    CASE WHEN bucket IS NOT NULL THEN round(greatest(bucket * $bucket_s - meta.start_s($trace), 0) / 3600.0, 4) END AS hours,
    round(len_s / 3600.0, 4) AS observed_h,
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
