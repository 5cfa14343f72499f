-- name: event-cdf
-- traces: with lifecycle_task_events
-- description: cumulative new task submissions, all submissions, schedules and completions over time, as counts, CDFs and the paper's weighted CDFs
-- params: trace, cell, bucket_s: int > 0 = 3600
-- reproduces: "10 Observations on Google Cluster Trace", Figures 2 and 3 (methods 1 and 3-1); whole-trace totals 25,424,731 new submissions, 48,375,166 submissions, 47,331,507 schedules, 18,217,975 completions
-- cites: zhu2015observations
-- note: a new submission is the first SUBMIT of a task. The weighted CDF of an event = its CDF x (its total / the total of new submissions), so the curves share the new-submission scale as in Figure 3. Events after the window (time_class after_window) are left out. in_gap = the bucket overlaps, even in part, the time of a missing part (lifecycle.missing_spans): its values are not the trace's, and the chart leaves it out.
-- caveat: counts are over the ingested parts; the published totals are for the whole trace
-- plot: x=hours; y=new_submissions,submissions,schedules,completions; kind=line; title=Cumulative task events; xlabel=hours since the trace start; ylabel=events; xtime=hours; xstep=bucket_s/3600
WITH ev AS (
    -- a task's first SUBMIT: the stored attempt number, not a window over every task's events
    SELECT time, to_event, to_event = 'SUBMIT' AND episode_no = 1 AS is_new
    FROM derived.task_transitions
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND time < meta.after_window($trace)
),
per_bucket AS (
    SELECT
        time // meta.time_units($trace, $bucket_s) AS bucket,
        count(*) FILTER (is_new) AS new_submissions,
        count(*) FILTER (to_event = 'SUBMIT') AS submissions,
        count(*) FILTER (to_event = 'SCHEDULE') AS schedules,
        count(*) FILTER (to_event = 'FINISH') AS completions
    FROM ev
    GROUP BY bucket
),
all_buckets AS (
    SELECT b.bucket, coalesce(p.new_submissions, 0) AS new_submissions,
           coalesce(p.submissions, 0) AS submissions, coalesce(p.schedules, 0) AS schedules,
           coalesce(p.completions, 0) AS completions
    FROM (SELECT unnest(range(min(bucket), max(bucket) + 1)) AS bucket FROM per_bucket) AS b
    LEFT JOIN per_bucket AS p USING (bucket)
),
cum AS (
    SELECT
        bucket,
        sum(new_submissions) OVER w AS new_submissions,
        sum(submissions) OVER w AS submissions,
        sum(schedules) OVER w AS schedules,
        sum(completions) OVER w AS completions
    FROM all_buckets
    WINDOW w AS (ORDER BY bucket ROWS UNBOUNDED PRECEDING)
),
totals AS (
    SELECT max(new_submissions) AS n FROM cum
)
SELECT
    bucket,
    round((bucket * $bucket_s - meta.start_s($trace)) / 3600.0, 4) AS hours,
    new_submissions::BIGINT AS new_submissions,
    submissions::BIGINT AS submissions,
    schedules::BIGINT AS schedules,
    completions::BIGINT AS completions,
    round(new_submissions / nullif(n, 0), 6) AS cdf_new_submissions,
    -- (cumulative / total) x (total / new-submission total) = cumulative / new-submission total
    round(submissions / nullif(n, 0), 6) AS weighted_submissions,
    round(schedules / nullif(n, 0), 6) AS weighted_schedules,
    round(completions / nullif(n, 0), 6) AS weighted_completions,
    (SELECT count(*) > 0 FROM derived.missing_spans AS g
      WHERE lifecycle.in_gap(g.trace, g.cell, g.t0, g.t1, $trace, $cell, bucket, $bucket_s)) AS in_gap
FROM cum CROSS JOIN totals
ORDER BY bucket;
