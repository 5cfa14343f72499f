-- name: utilization-change
-- traces: with lifecycle_task_usage
-- description: cluster CPU and memory usage per measurement window (default 5 minutes) and the distribution of the relative change between consecutive windows
-- params: trace, cell, window_s: int > 0 = 300
-- needs: task_usage
-- reproduces: "10 Observations on Google Cluster Trace", Figure 10: for more than 90% of 5-minute windows the consumption changes by less than 20%
-- cites: zhu2015observations
-- note: usage of a window = sum over task usage records starting in it of mean usage x record length / window length (normalised cores, memory). Change = |u(t) - u(t-1)| / u(t-1) between consecutive non-empty windows. Records with special times are left out.
-- caveat: the first and last windows of the ingested data are partial: their changes are edge effects
-- plot: kind=quantiles; group=resource; title=Relative change of cluster usage between consecutive windows (CDF); xlabel=relative change; ylabel=fraction of windows; ref=point@0.2,0.9:paper: >90% of 5-min windows change <20%
WITH windows AS (
    -- from the windows summed per machine and window start (derived.machine_usage_windows, stored at
    -- ingest; windows of unknown length left out): about a ninth of the rows of every window
    SELECT start_time // meta.time_units($trace, $window_s) AS w,
           sum(cpu_s) / $window_s AS cpu,
           sum(memory_s) / $window_s AS memory
    FROM derived.machine_usage_windows
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
    GROUP BY 1
),
changes AS (
    SELECT 'cpu' AS resource, abs(cpu - lag(cpu) OVER (ORDER BY w)) / nullif(lag(cpu) OVER (ORDER BY w), 0) AS v,
           cpu AS usage FROM windows
    UNION ALL
    SELECT 'memory', abs(memory - lag(memory) OVER (ORDER BY w)) / nullif(lag(memory) OVER (ORDER BY w), 0),
           memory FROM windows
)
SELECT
    resource,
    count(*) AS windows,
    round(avg(usage), 4) AS mean_usage,
    count(v) AS changes,
    round(count(*) FILTER (v < 0.05) / nullif(count(v), 0), 4) AS share_under_5pct,
    round(count(*) FILTER (v < 0.10) / nullif(count(v), 0), 4) AS share_under_10pct,
    round(count(*) FILTER (v < 0.20) / nullif(count(v), 0), 4) AS share_under_20pct,
    round(count(*) FILTER (v < 0.50) / nullif(count(v), 0), 4) AS share_under_50pct,
    round(quantile_cont(v, 0.10), 4) AS p10,
    round(quantile_cont(v, 0.25), 4) AS p25,
    round(quantile_cont(v, 0.50), 4) AS p50,
    round(quantile_cont(v, 0.75), 4) AS p75,
    round(quantile_cont(v, 0.90), 4) AS p90,
    round(quantile_cont(v, 0.99), 4) AS p99,
    round(max(v), 4) AS max,
    meta.cdf(v) AS _cdf  -- for the chart only (101 levels)
FROM changes
GROUP BY resource
ORDER BY resource;
