-- name: priority-share
-- traces: with lifecycle_task_events, lifecycle_task_usage, lifecycle_priority_tiers
-- description: tasks, requested CPU and memory (request x run time) and used CPU and memory (from task usage) per priority tier and for production (priority >= 9)
-- params: trace, cell
-- needs: task_events, task_usage (cpu_used_share, memory_used_share, cpu_used_per_requested, cpu_used_core_hours)
-- reproduces: "10 Observations on Google Cluster Trace", section 4.1: production tasks (priority >= 9) are 6% of tasks (1,558,255) yet use more than 80% of CPU and memory
-- cites: zhu2015observations
-- note: is_production = priority >= 9 (2011, the paper's definition) or >= 120 (2019, production tier and above). A task counts in the tier of its last known priority. Requested = sum over run attempts of request x the run time observed inside the window of the ingested task events (lifecycle.task_episodes.observed_run_s: an attempt scheduled before the window or still running at its end counts for the part observed, a service running through the whole window for the whole window; normalised core-seconds, memory-seconds). censored_attempts = attempts whose run start or end lies outside the window. Used = sum over usage windows of mean usage x window length. Shares are of the trace total.
-- caveat: an attempt with no event in the ingested data is invisible: on a slice, long-running services scheduled in an earlier part are missing unless they have an event in the slice; censored attempts count for the part of the window observed
WITH tasks AS (
    -- the tasks counted per tier (by_tier); their rows are summed through task_groups below
    SELECT priority_tier, is_production
    FROM derived.tasks WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
task_rows AS (
    -- the run attempts and the task-hours of usage (derived.task_usage_hourly: the windows summed
    -- per task and hour, windows of unknown length left out) as rows of one relation; src 1 is an
    -- attempt, 2 an hour of usage
    SELECT cell, job_id, task_index, 1 AS src, run_start_censored OR run_end_censored AS censored,
           cpu_request * observed_run_s AS cpu_req, memory_request * observed_run_s AS mem_req,
           CAST(NULL AS DOUBLE) AS cpu_used, CAST(NULL AS DOUBLE) AS mem_used
    FROM derived.task_episodes WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND ran
    UNION ALL
    SELECT cell, job_id, task_index, 2, CAST(NULL AS BOOLEAN), CAST(NULL AS DOUBLE), CAST(NULL AS DOUBLE), cpu_s, memory_s
    FROM derived.task_usage_hourly WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
task_groups AS (
    -- the tasks grouped by job where they share tier and production flag (derived.task_groups)
    SELECT cell, job_id, first_index, last_index, whole_job, priority_tier, is_production
    FROM derived.task_groups WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
sums AS (
    -- Each row summed straight into its task's tier: joined to one row per job whose tasks share
    -- it, or else to its own task, so the joins' tables are a row per job and the tasks of the
    -- few other jobs, not every task (a table of every task spilled at whole-trace size). Rows
    -- of tasks derived.tasks does not hold meet neither and are left out. Spark is told to
    -- broadcast the whole jobs (larger than its default threshold at whole-trace size), so only
    -- the join to the other tasks shuffles.
    SELECT /*+ BROADCAST(j) */ coalesce(j.priority_tier, t.priority_tier) AS priority_tier,
           coalesce(j.is_production, t.is_production) AS is_production,
           count(*) FILTER (WHERE r.src = 1) AS run_attempts,
           count(*) FILTER (WHERE r.src = 1 AND r.censored) AS censored_attempts,
           sum(r.cpu_req) AS cpu_req, sum(r.mem_req) AS mem_req, sum(r.cpu_used) AS cpu_used, sum(r.mem_used) AS mem_used
    FROM task_rows AS r
    LEFT JOIN task_groups AS j
        ON j.whole_job AND j.cell IS NOT DISTINCT FROM r.cell AND j.job_id = r.job_id
       AND r.task_index BETWEEN j.first_index AND j.last_index
    LEFT JOIN task_groups AS t
        ON NOT t.whole_job AND t.cell IS NOT DISTINCT FROM r.cell AND t.job_id = r.job_id AND t.first_index = r.task_index
    WHERE j.job_id IS NOT NULL OR t.job_id IS NOT NULL
    GROUP BY ALL
),
by_tier AS (
    -- the tasks counted once per tier and production flag, beside their sums: the groups below
    -- add up these few rows
    SELECT c.priority_tier, c.is_production, c.tasks, s.run_attempts, s.censored_attempts,
           s.cpu_req, s.mem_req, s.cpu_used, s.mem_used
    FROM (SELECT priority_tier, is_production, count(*) AS tasks FROM tasks GROUP BY priority_tier, is_production) AS c
    LEFT JOIN sums AS s
        ON s.priority_tier IS NOT DISTINCT FROM c.priority_tier AND s.is_production IS NOT DISTINCT FROM c.is_production
),
groups AS (
    SELECT coalesce(priority_tier, '(none)') AS grp, 1 AS ord, * FROM by_tier
    UNION ALL SELECT 'production and above (is_production)', 2, * FROM by_tier WHERE is_production
    UNION ALL SELECT 'all', 3, * FROM by_tier
),
totals AS (
    SELECT sum(tasks) AS tasks, sum(cpu_req) AS cpu_req, sum(mem_req) AS mem_req,
           sum(cpu_used) AS cpu_used, sum(mem_used) AS mem_used
    FROM by_tier
)
SELECT
    g.grp AS tier,
    sum(g.tasks)::BIGINT AS tasks,
    round(sum(g.tasks) / t.tasks, 4) AS task_share,
    coalesce(sum(g.run_attempts), 0) AS run_attempts,
    coalesce(sum(g.censored_attempts), 0) AS censored_attempts,
    round(sum(g.cpu_req) / nullif(t.cpu_req, 0), 4) AS cpu_requested_share,
    round(sum(g.mem_req) / nullif(t.mem_req, 0), 4) AS memory_requested_share,
    round(sum(g.cpu_used) / nullif(t.cpu_used, 0), 4) AS cpu_used_share,
    round(sum(g.mem_used) / nullif(t.mem_used, 0), 4) AS memory_used_share,
    round(sum(g.cpu_used) / nullif(sum(g.cpu_req), 0), 4) AS cpu_used_per_requested,
    round(sum(g.cpu_used) / 3600, 3) AS cpu_used_core_hours
FROM groups AS g
CROSS JOIN totals AS t
-- tiers in the order of the trace's tier table; (none) and unknown tiers after them
LEFT JOIN lifecycle.priority_tiers AS pt ON pt.trace = $trace AND pt.tier = g.grp
GROUP BY g.grp, g.ord, t.tasks, t.cpu_req, t.mem_req, t.cpu_used, t.mem_used, pt.min_priority
ORDER BY g.ord, pt.min_priority NULLS LAST;
