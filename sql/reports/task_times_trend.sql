-- name: task-times-trend
-- traces: with lifecycle_task_events
-- description: moving averages of scheduling delay (SUBMIT -> SCHEDULE) and execution time (SCHEDULE -> end event) along the trace, per time bucket, beside how many values each bucket adds
-- params: trace, cell, bucket_s: int > 0 = 3600, window_s: int > 0 = 21600
-- reproduces: "10 Observations on Google Cluster Trace", Figures 6 and 7 and Observation 9: execution and scheduling times vary hugely but show no trend as tasks accumulate in the cluster
-- cites: zhu2015observations
-- note: as in the paper's traversal of events in time order, a value is placed at the instant it becomes known: a scheduling delay at its SCHEDULE, an execution time at its end event (lifecycle.task_episodes; censored attempts have no value and, like a wait or run across a missing part, are left out of the averages, as of task-times' distribution). Moving average at a bucket = mean of the values placed in the trailing window_s ending with that bucket (all values weighted alike); buckets without a new value carry the window's mean on, and every bucket between the first and the last event is listed. in_gap = the bucket overlaps, even in part, the time of a missing part (lifecycle.missing_spans): its values are not the trace's, and the chart leaves it out.
-- caveat: the paper averages over the whole month; near both edges of a slice the averages lean short (a value needs both of its events in the data, so long ones are censored there)
-- plot: x=hours; y=scheduling_moving_avg_s,execution_moving_avg_s; kind=line; logy=true; title=Moving average of scheduling delay and execution time; xlabel=hours since the trace start; ylabel=seconds (log scale); xstep=bucket_s/3600
WITH ep AS (
    -- each phase on its own interval: a wait observed whole counts although its run crosses a
    -- missing part. The stored attempts before the clipping: no clipped column is read here.
    SELECT schedule_time, end_time,
           CASE WHEN NOT wait_spans_gap THEN wait_s END AS wait_s,
           CASE WHEN NOT run_spans_gap THEN run_s END AS run_s
    FROM derived.task_episode_core WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
placed AS (
    SELECT schedule_time // meta.time_units($trace, $bucket_s) AS bucket, wait_s AS sched, NULL::DOUBLE AS exec
    FROM ep WHERE wait_s IS NOT NULL
    UNION ALL
    SELECT end_time // meta.time_units($trace, $bucket_s), NULL, run_s FROM ep WHERE run_s IS NOT NULL
),
per_bucket AS (
    SELECT bucket, count(sched) AS sched_n, sum(sched) AS sched_sum, count(exec) AS exec_n, sum(exec) AS exec_sum
    FROM placed GROUP BY bucket
),
all_buckets AS (
    SELECT b.bucket, coalesce(p.sched_n, 0) AS sched_n, p.sched_sum, coalesce(p.exec_n, 0) AS exec_n, p.exec_sum
    FROM (SELECT unnest(range(min(bucket), max(bucket) + 1)) AS bucket FROM per_bucket) AS b
    LEFT JOIN per_bucket AS p USING (bucket)
)
SELECT
    bucket,
    round((bucket * $bucket_s - meta.start_s($trace)) / 3600.0, 4) AS hours,
    sched_n AS scheduling_values,
    round(sched_sum / nullif(sched_n, 0), 3) AS scheduling_mean_s,
    round(sum(sched_sum) OVER w / nullif(sum(sched_n) OVER w, 0), 3) AS scheduling_moving_avg_s,
    exec_n AS execution_values,
    round(exec_sum / nullif(exec_n, 0), 3) AS execution_mean_s,
    round(sum(exec_sum) OVER w / nullif(sum(exec_n) OVER w, 0), 3) AS execution_moving_avg_s,
    (SELECT count(*) > 0 FROM derived.missing_spans AS g
      WHERE lifecycle.in_gap(g.trace, g.cell, g.t0, g.t1, $trace, $cell, bucket, $bucket_s)) AS in_gap
FROM all_buckets
-- the trailing window: this bucket and the ones before it that end within window_s
WINDOW w AS (ORDER BY bucket ROWS BETWEEN greatest($window_s // $bucket_s, 1) - 1 PRECEDING AND CURRENT ROW)
ORDER BY bucket;
