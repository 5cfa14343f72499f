-- name: resubmissions
-- traces: with lifecycle_task_events
-- description: task resubmissions per time bucket, by the event they follow (EVICT, FAIL, KILL, LOST, FINISH), beside new submissions; the gap between the submission and new-submission CDFs; peak buckets grouped into numbered periods
-- params: trace, cell, bucket_s: int > 0 = 3600, peak_factor: float > 0 = 2
-- reproduces: "10 Observations on Google Cluster Trace", Observation 3: task resubmissions are concentrated in two periods (two lumps of the submission CDF over the new-submission CDF)
-- cites: zhu2015observations
-- note: a new submission is the first SUBMIT of a task, a resubmission every later one (as in lifecycle-counts and event-cdf); after_* says which state event came just before it (UPDATE_* collapsed, lifecycle.task_transitions). cdf_gap = cumulative submissions / all submissions - cumulative new submissions / all new submissions (the paper's lumps, Figure 2). A bucket is a peak when its resubmissions reach peak_factor x the mean per bucket; consecutive peak buckets form one period (1, 2, ...). across_gap = submissions with a missing source part just before them (lifecycle.task_transitions.spans_gap): whether new or resubmitted, and what they follow, may be an artifact of the gap. Events after the window (time_class after_window) are left out; every bucket between the first and the last event is listed. in_gap = the bucket overlaps, even in part, the time of a missing part (lifecycle.missing_spans): its values are not the trace's, and the chart leaves it out.
-- caveat: which periods stand out depends on bucket_s and peak_factor; on a slice a task's first SUBMIT in the data may be a resubmission of one submitted earlier
-- plot: x=hours; y=new_submissions,resubmissions; kind=line; title=New task submissions and resubmissions per bucket; xlabel=hours since the trace start; ylabel=submissions; xstep=bucket_s/3600
WITH subs AS (
    -- a task's first SUBMIT: the stored attempt number, not a window over every task's SUBMITs
    SELECT time, from_event, spans_gap, episode_no = 1 AS is_new
    FROM derived.task_transitions
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND to_event = 'SUBMIT'
),
per_bucket AS (
    SELECT
        time // meta.time_units($trace, $bucket_s) AS bucket,
        count(*) AS submissions,
        count(*) FILTER (is_new) AS new_submissions,
        count(*) FILTER (NOT is_new) AS resubmissions,
        count(*) FILTER (NOT is_new AND from_event = 'EVICT') AS after_evict,
        count(*) FILTER (NOT is_new AND from_event = 'FAIL') AS after_fail,
        count(*) FILTER (NOT is_new AND from_event = 'KILL') AS after_kill,
        count(*) FILTER (NOT is_new AND from_event = 'LOST') AS after_lost,
        count(*) FILTER (NOT is_new AND from_event = 'FINISH') AS after_finish,
        count(*) FILTER (NOT is_new AND from_event NOT IN ('EVICT', 'FAIL', 'KILL', 'LOST', 'FINISH')) AS after_other,
        count(*) FILTER (spans_gap) AS across_gap
    FROM subs
    WHERE time < meta.after_window($trace)
    GROUP BY bucket
),
all_buckets AS (
    SELECT b.bucket, coalesce(COLUMNS(p.* EXCLUDE (bucket)), 0)
    FROM (SELECT unnest(range(min(bucket), max(bucket) + 1)) AS bucket FROM per_bucket) AS b
    LEFT JOIN per_bucket AS p USING (bucket)
),
cum AS (
    SELECT *,
           sum(submissions) OVER w / sum(submissions) OVER () AS cdf_submissions,
           sum(new_submissions) OVER w / nullif(sum(new_submissions) OVER (), 0) AS cdf_new,
           sum(resubmissions) OVER w / nullif(sum(resubmissions) OVER (), 0) AS cdf_resubmissions,
           resubmissions > 0 AND resubmissions >= $peak_factor * avg(resubmissions) OVER () AS is_peak
    FROM all_buckets
    WINDOW w AS (ORDER BY bucket ROWS UNBOUNDED PRECEDING)
),
starts AS (
    -- a period starts at a peak bucket whose previous bucket is not a peak
    SELECT *, is_peak AND NOT coalesce(lag(is_peak) OVER (ORDER BY bucket), false) AS starts_period FROM cum
),
runs AS (
    SELECT *, sum(starts_period::INTEGER) OVER (ORDER BY bucket ROWS UNBOUNDED PRECEDING) AS run_no FROM starts
)
SELECT
    bucket,
    round((bucket * $bucket_s - meta.start_s($trace)) / 3600.0, 4) AS hours,
    submissions, new_submissions, resubmissions,
    after_evict, after_fail, after_kill, after_lost, after_finish, after_other, across_gap,
    round(resubmissions / nullif(submissions, 0), 4) AS resubmission_share,
    round(cdf_resubmissions, 6) AS cdf_resubmissions,
    round(cdf_submissions - cdf_new, 6) AS cdf_gap,
    CASE WHEN is_peak THEN run_no END AS peak_period,
    (SELECT count(*) > 0 FROM derived.missing_spans AS g
      WHERE lifecycle.in_gap(g.trace, g.cell, g.t0, g.t1, $trace, $cell, bucket, $bucket_s)) AS in_gap
FROM runs
ORDER BY bucket;
