-- name: queue
-- traces: with lifecycle_task_events
-- description: tasks pending (submitted, not yet scheduled or ended) and running (scheduled, not yet ended) at the end of each time bucket
-- params: trace, cell, bucket_s: int > 0 = 3600
-- reproduces: "10 Observations on Google Cluster Trace", methods 3-2 and 3-3, Figures 4 and 5 (the queue slowly grows; running tasks surge at the end of the month)
-- cites: zhu2015observations
-- note: as in the paper, changes are summed from zero at time 0 over the collapsed transitions: pending += SUBMIT - SCHEDULE - (an end event after a pending event: SUBMIT, QUEUE, ENABLE); running += SCHEDULE - FINISH - (any other end event after SCHEDULE); event kinds from lifecycle.event_kinds. One deliberate difference: an EVICT straight from pending (which the paper found) leaves the queue instead of the running set. Events after the window (time_class after_window) are left out; time 0 falls in the first bucket. Negative pending: a task whose SUBMIT lies before the ingested data (an earlier part not ingested) is still removed by its SCHEDULE or end, so a slice that does not start at the trace start can go below zero; before_data_starts counts, per bucket, the tasks whose first event in the data is not SUBMIT. missing_parts_so_far = source parts missing before the bucket's last event (lifecycle.task_event_parts): from the first bucket where it is above 0 the running sums lack the events of those parts and drift. in_gap = the bucket overlaps, even in part, the time of a missing part (lifecycle.missing_spans: between the last observed time before it and the first after it): its counts are not the trace's.
-- caveat: pending and running are sums from the first ingested event: on a slice, or with missing parts, read them as changes, not levels
-- plot: x=hours; y=pending,running; kind=step; title=Tasks pending and running; xlabel=hours since the trace start; ylabel=tasks; xtime=hours; xstep=bucket_s/3600; negative=pending and running are sums from the first ingested event (on a slice of the trace, read them as changes)
WITH moves AS (
    -- the transitions counted per bucket and (from, to) event pair first, then the few pairs given
    -- their kinds: one aggregate over the transitions instead of two joins and a dozen string
    -- comparisons per transition (the cost of this report on Spark)
    SELECT
        time // meta.time_units($trace, $bucket_s) AS bucket,
        from_event,
        to_event,
        count(*) AS n,
        count(*) FILTER (spans_gap) AS across_gap,
        max(gaps_before) AS gaps_before
    FROM derived.task_transitions
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND time < meta.after_window($trace)
    GROUP BY ALL
),
changes AS (
    SELECT
        bucket,
        -- the kinds of lifecycle.event_kinds: submit | pending (QUEUE, ENABLE) | schedule | end | update
        n * CASE
            WHEN kt.kind = 'submit' THEN 1
            WHEN kt.kind = 'schedule' THEN -1
            WHEN kt.kind = 'end' AND kf.kind IN ('submit', 'pending') THEN -1
            ELSE 0
        END AS d_pending,
        n * CASE
            WHEN kt.kind = 'schedule' THEN 1
            WHEN to_event = 'FINISH' THEN -1
            WHEN kt.kind = 'end' AND kf.kind = 'schedule' THEN -1
            ELSE 0
        END AS d_running,
        n,
        kt.kind AS to_kind,
        from_event,
        across_gap,
        gaps_before
    FROM moves AS m
    LEFT JOIN lifecycle.event_kinds AS kt ON kt.event = m.to_event
    LEFT JOIN lifecycle.event_kinds AS kf ON kf.event = m.from_event
),
per_bucket AS (
    SELECT
        bucket,
        sum(d_pending) AS d_pending,
        sum(d_running) AS d_running,
        sum(CASE WHEN to_kind = 'submit' THEN n ELSE 0 END)::BIGINT AS submitted,
        sum(CASE WHEN to_kind = 'schedule' THEN n ELSE 0 END)::BIGINT AS scheduled,
        sum(CASE WHEN to_kind = 'end' THEN n ELSE 0 END)::BIGINT AS ended,
        sum(CASE WHEN from_event = '(start)' AND to_kind IS DISTINCT FROM 'submit' THEN n ELSE 0 END)::BIGINT
            AS before_data_starts,
        sum(across_gap)::BIGINT AS across_gap,
        max(gaps_before) AS gaps_before
    FROM changes
    GROUP BY bucket
),
-- every bucket between the first and the last event, empty ones included (they carry the state on)
all_buckets AS (
    SELECT b.bucket, coalesce(p.d_pending, 0) AS d_pending, coalesce(p.d_running, 0) AS d_running,
           coalesce(p.submitted, 0) AS submitted, coalesce(p.scheduled, 0) AS scheduled,
           coalesce(p.ended, 0) AS ended, coalesce(p.before_data_starts, 0) AS before_data_starts,
           coalesce(p.across_gap, 0) AS across_gap, p.gaps_before
    FROM (SELECT unnest(range(min(bucket), max(bucket) + 1)) AS bucket FROM per_bucket) AS b
    LEFT JOIN per_bucket AS p USING (bucket)
)
SELECT
    bucket,
    round((bucket * $bucket_s - meta.start_s($trace)) / 3600.0, 4) AS hours,
    sum(d_pending) OVER w AS pending,
    sum(d_running) OVER w AS running,
    submitted,
    scheduled,
    ended,
    before_data_starts,
    across_gap AS transitions_across_gap,
    -- an empty bucket carries the count of the last bucket with events
    coalesce(max(gaps_before) OVER w, 0) AS missing_parts_so_far,
    (SELECT count(*) > 0 FROM derived.missing_spans AS g
      WHERE lifecycle.in_gap(g.trace, g.cell, g.t0, g.t1, $trace, $cell, bucket, $bucket_s)) AS in_gap
FROM all_buckets
WINDOW w AS (ORDER BY bucket ROWS UNBOUNDED PRECEDING)
ORDER BY bucket;
