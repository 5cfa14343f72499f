-- name: task-times
-- traces: google2011, google2019
-- description: distribution of scheduling delay (SUBMIT -> SCHEDULE) and execution time (SCHEDULE -> end event) over all run attempts, by priority tier and by end reason
-- params: trace, cell
-- reproduces: "10 Observations on Google Cluster Trace", Figures 6-8 and Observation 10: execution times from 1 us to 8.969 days; ~80% under 30 minutes; ~40% under 5 minutes
-- note: one value per run attempt (lifecycle.task_episodes); attempts whose start or end lies outside the window (time 0, 2^63-1, or no end event) are censored: counted in the censored column, not in the distribution. Times in seconds.
-- plot: kind=quantiles; group=measure,grouping,grp; where=grouping:all; title=Scheduling delay and execution time (CDF); xlabel=seconds (log scale); ylabel=fraction of run attempts; logx=true; ref=point@1800,0.8:paper: ~80% of run times under 30 min|point@300,0.4:paper: ~40% under 5 min
WITH ep AS (
    SELECT coalesce(priority_tier, '(none)') AS priority_tier, coalesce(end_reason, state_at_end) AS end_reason,
           schedule_time IS NOT NULL AS applies, wait_s, run_s
    FROM lifecycle.task_episodes WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
measures AS (
    SELECT 'scheduling delay' AS measure, wait_s AS v, priority_tier, end_reason, applies FROM ep
    UNION ALL
    SELECT 'execution time', run_s, priority_tier, end_reason, applies FROM ep
)
SELECT
    measure,
    CASE WHEN grouping(priority_tier) = 0 THEN 'priority tier'
         WHEN grouping(end_reason) = 0 THEN 'end reason' ELSE 'all' END AS grouping,
    coalesce(priority_tier, end_reason, 'all') AS grp,
    count(v) AS attempts,
    count(*) FILTER (applies AND v IS NULL) AS censored,
    round(avg(v), 3) AS mean_s,
    round(min(v), 6) AS min_s,
    round(quantile_cont(v, 0.10), 3) AS p10_s,
    round(quantile_cont(v, 0.25), 3) AS p25_s,
    round(quantile_cont(v, 0.50), 3) AS p50_s,
    round(quantile_cont(v, 0.75), 3) AS p75_s,
    round(quantile_cont(v, 0.90), 3) AS p90_s,
    round(quantile_cont(v, 0.99), 3) AS p99_s,
    round(max(v), 3) AS max_s,
    round(count(*) FILTER (v < 300) / nullif(count(v), 0), 4) AS share_under_5min,
    round(count(*) FILTER (v < 1800) / nullif(count(v), 0), 4) AS share_under_30min,
    meta.cdf(v) AS _cdf  -- for the chart only (101 levels)
FROM measures
-- one pass for the three groupings (all, by tier, by end reason)
GROUP BY GROUPING SETS ((measure), (measure, priority_tier), (measure, end_reason))
ORDER BY measure DESC, CASE grouping WHEN 'all' THEN 0 WHEN 'priority tier' THEN 1 ELSE 2 END, grp;
