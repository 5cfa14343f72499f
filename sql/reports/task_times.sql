-- name: task-times
-- traces: with lifecycle_task_events
-- description: distribution of scheduling delay (SUBMIT -> SCHEDULE) and execution time (SCHEDULE -> end event) over run attempts, by priority tier and by end reason, with every attempt counted: completed, left-censored, right-censored, both, across a missing part
-- params: trace, cell
-- reproduces: "10 Observations on Google Cluster Trace", Figure 8 and Observation 10: execution times from 1 us to 8.969 days; ~80% under 30 minutes; ~40% under 5 minutes
-- cites: zhu2015observations
-- note: one row of lifecycle.task_episodes per attempt. attempts = every attempt the measure applies to (scheduling delay: every attempt; execution time: attempts that ran) = completed + left_censored (start before the window: time 0 or before the data) + right_censored (no end in the window: still pending / running at its end) + both_censored + across_gap (a missing source part lies inside the measured phase: the wait SUBMIT -> SCHEDULE for the delay, the run SCHEDULE -> end for the execution time; each phase on its own interval) + never_scheduled (delay only: killed or failed while pending, no delay exists) + invalid (end before start). The quantiles, mean, min, max and shares are over the completed attempts only (distribution_over says so): censored attempts are longer than what was observed, so the distribution is biased short when censored is large. Times in seconds.
-- caveat: on a slice of the trace most long-running attempts (production services) are censored and so absent from the quantiles: read censored beside them
-- plot: kind=quantiles; group=measure,grouping,grp; where=grouping:all; title=Scheduling delay and execution time (CDF, completed attempts); xlabel=seconds (log scale); ylabel=fraction of completed run attempts; logx=true; ref=point@1800,0.8:paper: ~80% of run times under 30 min|point@300,0.4:paper: ~40% under 5 min
WITH done AS NOT MATERIALIZED (
    -- read twice from the stored Parquet (a count pass, then the few values the quantiles need),
    -- not held in memory. The stored attempts before the clipping to the observed segments: this
    -- report reads no clipped column, so it needs no join to the segments. One row per attempt
    -- and measure: the delay of every attempt, the execution time of those that ran. The measure
    -- (delay: scheduling delay, else execution time) and the status are small codes, named in
    -- summary: the group keys of the passes over every attempt, where Spark pays for each string
    -- key per row (0 completed, 1 left_censored, 2 right_censored, 3 both_censored, 4 across_gap,
    -- 5 never_scheduled, 6 invalid).
    SELECT delay, priority_tier, end_reason, status, CASE WHEN status = 0 THEN v END AS v,
           -- the value's bin (below): it keeps the order, v <= w gives bin(v) <= bin(w), since a
           -- square root is exact to the last bit and so monotone (4096: a power of two, exact).
           -- Bins this fine leave few values in the bins read again (on the whole synthetic 2011
           -- trace 1.8 M (group, value) rows to order, 7.0 M at 1024) for 1.0 M bins counted (0.27 M)
           CASE WHEN status = 0 THEN floor(sqrt(sqrt(v)) * 4096)::BIGINT END AS bin
    FROM (
        SELECT m.delay, coalesce(priority_tier, '(none)') AS priority_tier,
               coalesce(end_reason, state_at_end) AS end_reason,
               CASE WHEN m.delay THEN
                    CASE WHEN wait_spans_gap THEN 4
                         WHEN wait_s IS NOT NULL THEN 0
                         WHEN NOT ran AND end_reason IS NOT NULL THEN 5
                         WHEN start_censored AND NOT ran THEN 3
                         WHEN start_censored THEN 1
                         WHEN NOT ran THEN 2
                         ELSE 6 END
               ELSE
                    CASE WHEN run_spans_gap THEN 4
                         WHEN run_s IS NOT NULL THEN 0
                         WHEN run_start_censored AND run_end_censored THEN 3
                         WHEN run_start_censored THEN 1
                         WHEN run_end_censored THEN 2
                         ELSE 6 END
               END AS status,
               CASE WHEN m.delay THEN wait_s ELSE run_s END AS v
        FROM derived.task_episode_core
        CROSS JOIN (VALUES (true), (false)) AS m(delay)
        WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND (m.delay OR ran)
    )
),
fine AS (
    -- the one pass over every attempt: counts per (measure, tier, end reason, status, bin)
    SELECT delay, priority_tier, end_reason, status, bin,
           count(*) AS n, count(v) AS completed, sum(v) AS sum_v, min(v) AS min_v, max(v) AS max_v,
           count(*) FILTER (v < 300) AS under_5min, count(*) FILTER (v < 1800) AS under_30min
    FROM done GROUP BY ALL
),
summary AS (
    SELECT
        delay,
        CASE WHEN delay THEN 'scheduling delay' ELSE 'execution time' END AS measure,
        CASE WHEN grouping(priority_tier) = 0 THEN 'priority tier'
             WHEN grouping(end_reason) = 0 THEN 'end reason' ELSE 'all' END AS grouping,
        coalesce(priority_tier, end_reason, 'all') AS grp,
        sum(n)::BIGINT AS attempts,
        sum(completed)::BIGINT AS completed,
        coalesce(sum(n) FILTER (status = 1), 0)::BIGINT AS left_censored,
        coalesce(sum(n) FILTER (status = 2), 0)::BIGINT AS right_censored,
        coalesce(sum(n) FILTER (status = 3), 0)::BIGINT AS both_censored,
        coalesce(sum(n) FILTER (status = 4), 0)::BIGINT AS across_gap,
        coalesce(sum(n) FILTER (status = 5), 0)::BIGINT AS never_scheduled,
        coalesce(sum(n) FILTER (status = 6), 0)::BIGINT AS invalid,
        sum(sum_v) / nullif(sum(completed), 0) AS mean_s, min(min_v) AS min_s, max(max_v) AS max_s,
        sum(under_5min) / nullif(sum(completed), 0) AS share_under_5min,
        sum(under_30min) / nullif(sum(completed), 0) AS share_under_30min
    FROM fine
    -- the three groupings (all, by tier, by end reason)
    GROUP BY GROUPING SETS ((delay), (delay, priority_tier), (delay, end_reason))
),
-- The exact quantiles without a sort of every value. quantile_cont keeps every value of a group in
-- an aggregate state that never spills (out of memory at 29.4 M task events under 4GB); a sort of
-- every completed value x 3 groupings spills but was most of this report's cost. Instead the counts
-- per bin tell which bin holds each wanted rank and where in it, and only the values of those
-- bins (a few per cent) are read again and ordered. Same figures as quantile_cont: the value at
-- rank (n - 1) * q (0-based) between the values at its floor and ceiling ranks,
-- lo + (rank - floor) * (hi - lo).
groups AS (
    -- a number per group, the key of everything below
    SELECT delay, measure, grouping, grp, completed, row_number() OVER (ORDER BY measure, grouping, grp) AS gid
    FROM summary WHERE completed > 0
),
bins AS (
    -- each group's bins (a value counts in three groups: all, its tier, its end reason) and the
    -- rank of the first value of each
    SELECT gid, bin, n, sum(n) OVER (PARTITION BY gid ORDER BY bin ROWS UNBOUNDED PRECEDING) - n AS first_r
    FROM (
        SELECT g.gid, f.bin, sum(f.n) AS n
        FROM fine AS f
        JOIN groups AS g ON g.delay = f.delay
            AND (g.grouping = 'all' OR (g.grouping = 'priority tier' AND g.grp = f.priority_tier)
                 OR (g.grouping = 'end reason' AND g.grp = f.end_reason))
        WHERE f.bin IS NOT NULL
        GROUP BY g.gid, f.bin
    )
),
levels AS (
    -- the 101 levels of meta.cdf (0, 0.01, ..., 1): the report's quantiles are among them
    SELECT gid, l.x, (completed - 1) * (l.x / 100) AS pos FROM groups, range(101) AS l(x)
),
located AS (
    -- each wanted rank (the floor and ceiling of every level's) in the last bin that starts at or
    -- before it
    SELECT gid, r, bin FROM (
        SELECT gid, r, kind, max(bin) OVER (PARTITION BY gid ORDER BY r, kind ROWS UNBOUNDED PRECEDING) AS bin
        FROM (SELECT gid, first_r AS r, 0 AS kind, bin FROM bins
              UNION ALL
              SELECT gid, r, 1, NULL FROM (SELECT gid, floor(pos)::BIGINT AS r FROM levels
                                           UNION SELECT gid, ceil(pos)::BIGINT FROM levels))
    )
    WHERE kind = 1
),
hits AS (
    SELECT g.gid, g.delay, g.grouping, g.grp, b.bin, b.first_r
    FROM (SELECT DISTINCT gid, bin FROM located) AS l
    JOIN bins AS b ON b.gid = l.gid AND b.bin = l.bin JOIN groups AS g ON g.gid = l.gid
),
hit_lists AS (
    -- the bins that hold a wanted rank, per measure as a list indexed by bin + 1: the pass below
    -- over every attempt keeps the values of those bins (a few per cent) by a lookup in the list
    -- (its length grows as the fourth root of the largest value: ~170 k bins for the 29 days of
    -- the 2011 trace; indexed inside each branch of the CASE, which would copy a list it returns).
    -- A join of every attempt to hits instead cost a hash probe per attempt, and DuckDB, which
    -- estimates hits as large as its inputs, built its hash table on the attempts' side: at the
    -- whole trace's size (94 M rows) most of this report's time and 3 GB of memory.
    SELECT list(x.hit ORDER BY x.bin) FILTER (x.delay) AS delay_hits,
           list(x.hit ORDER BY x.bin) FILTER (NOT x.delay) AS run_hits
    FROM (
        SELECT b.delay, b.bin, h.bin IS NOT NULL AS hit
        FROM (SELECT delay, unnest(range(0, max(bin) + 1)) AS bin FROM fine GROUP BY delay) AS b
        LEFT JOIN (SELECT DISTINCT delay, bin FROM hits) AS h ON h.delay = b.delay AND h.bin = b.bin
    ) AS x
),
ranked AS (
    -- the values of the bins that hold a wanted rank, each distinct value with its first rank
    SELECT gid, bin, v, n, first_r + sum(n) OVER (PARTITION BY gid, bin ORDER BY v ROWS UNBOUNDED PRECEDING) - n AS r_lo
    FROM (
        -- hits is a few thousand rows: Spark is told to broadcast them (it estimates the join that
        -- makes them as large as its inputs, and would shuffle every attempt to join them)
        SELECT /*+ BROADCAST(h) */ h.gid, h.bin, h.first_r, d.v, count(*) AS n
        FROM (
            SELECT d.* FROM done AS d CROSS JOIN hit_lists AS l
            WHERE CASE WHEN d.delay THEN l.delay_hits[d.bin + 1] ELSE l.run_hits[d.bin + 1] END
        ) AS d
        JOIN hits AS h ON h.bin = d.bin AND h.delay = d.delay
            AND (h.grouping = 'all' OR (h.grouping = 'priority tier' AND h.grp = d.priority_tier)
                 OR (h.grouping = 'end reason' AND h.grp = d.end_reason))
        GROUP BY h.gid, h.bin, h.first_r, d.v
    )
),
picked AS (
    SELECT l.gid, l.r, k.v
    FROM located AS l JOIN ranked AS k ON k.gid = l.gid AND k.bin = l.bin AND l.r >= k.r_lo AND l.r < k.r_lo + k.n
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
