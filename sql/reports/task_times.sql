-- name: task-times
-- traces: google2011, google2019
-- description: distribution of scheduling delay (SUBMIT -> SCHEDULE) and execution time (SCHEDULE -> end event) over run attempts, by priority tier and by end reason, with every attempt counted: completed, left-censored, right-censored, both, across a missing part
-- params: trace, cell
-- reproduces: "10 Observations on Google Cluster Trace", Figure 8 and Observation 10: execution times from 1 us to 8.969 days; ~80% under 30 minutes; ~40% under 5 minutes
-- cites: zhu2015observations
-- note: one row of lifecycle.task_episodes per attempt. attempts = every attempt the measure applies to (scheduling delay: every attempt; execution time: attempts that ran) = completed + left_censored (start before the window: time 0 or before the data) + right_censored (no end in the window: still pending / running at its end) + both_censored + across_gap (a missing source part lies inside the measured phase: the wait SUBMIT -> SCHEDULE for the delay, the run SCHEDULE -> end for the execution time; each phase on its own interval) + never_scheduled (delay only: killed or failed while pending, no delay exists) + invalid (end before start). The quantiles, mean, min, max and shares are over the completed attempts only (distribution_over says so): censored attempts are longer than what was observed, so the distribution is biased short when censored is large. Times in seconds.
-- caveat: on a slice of the trace most long-running attempts (production services) are censored and so absent from the quantiles: read censored beside them
-- plot: kind=quantiles; group=measure,grouping,grp; where=grouping:all; title=Scheduling delay and execution time (CDF, completed attempts); xlabel=seconds (log scale); ylabel=fraction of completed run attempts; logx=true; ref=point@1800,0.8:paper: ~80% of run times under 30 min|point@300,0.4:paper: ~40% under 5 min
WITH ep AS MATERIALIZED (
    SELECT coalesce(priority_tier, '(none)') AS priority_tier, coalesce(end_reason, state_at_end) AS end_reason,
           wait_s, run_s, ran, start_censored, run_start_censored, run_end_censored, wait_spans_gap, run_spans_gap,
           end_reason IS NOT NULL AS ended
    FROM derived.task_episodes WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
measures AS (
    SELECT 'scheduling delay' AS measure, priority_tier, end_reason,
           CASE WHEN wait_spans_gap THEN 'across_gap'
                WHEN wait_s IS NOT NULL THEN 'completed'
                WHEN NOT ran AND ended THEN 'never_scheduled'
                WHEN start_censored AND NOT ran THEN 'both_censored'
                WHEN start_censored THEN 'left_censored'
                WHEN NOT ran THEN 'right_censored'
                ELSE 'invalid' END AS status,
           wait_s AS v
    FROM ep
    UNION ALL
    SELECT 'execution time', priority_tier, end_reason,
           CASE WHEN run_spans_gap THEN 'across_gap'
                WHEN run_s IS NOT NULL THEN 'completed'
                WHEN run_start_censored AND run_end_censored THEN 'both_censored'
                WHEN run_start_censored THEN 'left_censored'
                WHEN run_end_censored THEN 'right_censored'
                ELSE 'invalid' END,
           run_s
    FROM ep WHERE ran
),
done AS (
    SELECT measure, priority_tier, end_reason, status, CASE WHEN status = 'completed' THEN v END AS v FROM measures
),
summary AS (
    SELECT
        measure,
        CASE WHEN grouping(priority_tier) = 0 THEN 'priority tier'
             WHEN grouping(end_reason) = 0 THEN 'end reason' ELSE 'all' END AS grouping,
        coalesce(priority_tier, end_reason, 'all') AS grp,
        count(*) AS attempts,
        count(v) AS completed,
        count(*) FILTER (status = 'left_censored') AS left_censored,
        count(*) FILTER (status = 'right_censored') AS right_censored,
        count(*) FILTER (status = 'both_censored') AS both_censored,
        count(*) FILTER (status = 'across_gap') AS across_gap,
        count(*) FILTER (status = 'never_scheduled') AS never_scheduled,
        count(*) FILTER (status = 'invalid') AS invalid,
        avg(v) AS mean_s, min(v) AS min_s, max(v) AS max_s,
        count(*) FILTER (v < 300) / nullif(count(v), 0) AS share_under_5min,
        count(*) FILTER (v < 1800) / nullif(count(v), 0) AS share_under_30min
    FROM done
    -- one pass for the three groupings (all, by tier, by end reason)
    GROUP BY GROUPING SETS ((measure), (measure, priority_tier), (measure, end_reason))
),
-- The quantiles by a sort, not by quantile_cont (issue 13): quantile_cont keeps every value of a
-- group in an aggregate state that never spills, one state per quantile (8 x every completed value
-- x 3 groupings: out of memory at 29.4 M task events under 4GB); a sort spills to disk. Same
-- figures: quantile_cont's interpolation, the value at rank (n - 1) * q (0-based) between the
-- values at its floor and ceiling ranks, lo + (rank - floor) * (hi - lo).
groups AS (
    -- a number per group: the sort below orders by (an integer, v), several times faster than by
    -- the three text keys
    SELECT measure, grouping, grp, completed, row_number() OVER () AS gid FROM summary WHERE completed > 0
),
vals AS (
    SELECT g.gid, d.v
    FROM (SELECT measure, 'all' AS grouping, 'all' AS grp, v FROM done WHERE v IS NOT NULL
          UNION ALL SELECT measure, 'priority tier', priority_tier, v FROM done WHERE v IS NOT NULL
          UNION ALL SELECT measure, 'end reason', end_reason, v FROM done WHERE v IS NOT NULL) AS d
    JOIN groups AS g USING (measure, grouping, grp)
),
ranked AS (SELECT gid, v, row_number() OVER (PARTITION BY gid ORDER BY v) - 1 AS r FROM vals),
levels AS (
    -- the 101 levels of meta.cdf (0, 0.01, ..., 1): the report's quantiles are among them
    SELECT gid, l.x, (completed - 1) * (l.x / 100) AS pos FROM groups, range(101) AS l(x)
),
picked AS (
    SELECT ranked.* FROM ranked
    SEMI JOIN (SELECT gid, floor(pos)::BIGINT AS r FROM levels
               UNION SELECT gid, ceil(pos)::BIGINT FROM levels) AS w USING (gid, r)
),
cdf AS (
    SELECT g.measure, g.grouping, g.grp, list(lo.v + (l.pos - floor(l.pos)) * (hi.v - lo.v) ORDER BY l.x) AS c
    FROM levels AS l
    JOIN picked AS lo ON lo.gid = l.gid AND lo.r = floor(l.pos)::BIGINT
    JOIN picked AS hi ON hi.gid = l.gid AND hi.r = ceil(l.pos)::BIGINT
    JOIN groups AS g ON g.gid = l.gid
    GROUP BY ALL
)
SELECT
    measure, grouping, grp, attempts, completed, left_censored, right_censored, both_censored,
    across_gap, never_scheduled, invalid,
    'completed' AS distribution_over,
    round(mean_s, 3) AS mean_s,
    round(min_s, 6) AS min_s,
    -- level x / 100 is element x + 1 of the list
    round(c[11], 3) AS p10_s,
    round(c[26], 3) AS p25_s,
    round(c[51], 3) AS p50_s,
    round(c[76], 3) AS p75_s,
    round(c[91], 3) AS p90_s,
    round(c[100], 3) AS p99_s,
    round(max_s, 3) AS max_s,
    round(share_under_5min, 4) AS share_under_5min,
    round(share_under_30min, 4) AS share_under_30min,
    c AS _cdf  -- for the chart only (101 levels)
FROM summary LEFT JOIN cdf USING (measure, grouping, grp)
ORDER BY measure DESC, CASE grouping WHEN 'all' THEN 0 WHEN 'priority tier' THEN 1 ELSE 2 END, grp;
