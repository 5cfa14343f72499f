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
    -- The task key carries the cell as two columns, coalesce(cell, '') and cell IS NULL (cell is
    -- NULL for single-cell traces): equal on both exactly when the cells are NOT DISTINCT, so the
    -- joins below are plain equalities on the columns the per-task aggregates group by, and Spark
    -- joins each aggregate where it computed it (a null-safe join on cell made it shuffle both
    -- aggregates again, on coalesce(cell, '') and isnull(cell)).
    SELECT coalesce(cell, '') AS cell_key, cell IS NULL AS no_cell, job_id, task_index, priority_tier, is_production
    FROM derived.tasks WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
requested AS (
    SELECT coalesce(cell, '') AS cell_key, cell IS NULL AS no_cell, job_id, task_index,
           sum(cpu_request * observed_run_s) AS cpu_req, sum(memory_request * observed_run_s) AS mem_req,
           count(*) AS run_attempts,
           count(*) FILTER (run_start_censored OR run_end_censored) AS censored_attempts
    FROM derived.task_episodes WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND ran
    GROUP BY ALL
),
used AS (
    -- the windows summed per task and hour (derived.task_usage_hourly; windows of unknown length left out)
    SELECT coalesce(cell, '') AS cell_key, cell IS NULL AS no_cell, job_id, task_index, sum(cpu_s) AS cpu_used, sum(memory_s) AS mem_used
    FROM derived.task_usage_hourly WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
    GROUP BY ALL
),
per_task AS (
    SELECT t.*, r.cpu_req, r.mem_req, r.run_attempts, r.censored_attempts, u.cpu_used, u.mem_used
    FROM tasks AS t
    LEFT JOIN requested AS r
        ON r.cell_key = t.cell_key AND r.no_cell = t.no_cell AND r.job_id = t.job_id AND r.task_index = t.task_index
    LEFT JOIN used AS u
        ON u.cell_key = t.cell_key AND u.no_cell = t.no_cell AND u.job_id = t.job_id AND u.task_index = t.task_index
),
by_tier AS (
    -- the tasks summed once per tier and production flag: the groups below add up these few rows
    -- instead of reading every task three times
    SELECT priority_tier, is_production, count(*) AS tasks,
           sum(run_attempts) AS run_attempts, sum(censored_attempts) AS censored_attempts,
           sum(cpu_req) AS cpu_req, sum(mem_req) AS mem_req, sum(cpu_used) AS cpu_used, sum(mem_used) AS mem_used
    FROM per_task
    GROUP BY priority_tier, is_production
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
