-- name: lifecycle.observed_segments
-- description: the time the ingested task events observe: one segment per run of consecutive present parts (a missing part splits the window), so time integrals count only what was observed.
-- grain: observed_segments one row per (trace, cell, segment); missing_spans one row per (trace, cell, missing stretch); observed_window one row per Google trace
-- note: segment = gaps_before of its parts (0 before the first missing part, 1 after it, ...); [t0, t1] = smallest and largest in-window time of its events (the special values before and after the window excluded). cum_s = the observed seconds of the earlier segments of the same trace and cell, so an interval across segments adds the segments between without a join per segment. observed_window sums the segments (window_s) and spans them (t0, t1), over the cells. missing_spans = (t1 of a segment, t0 of the next): a time bucket that overlaps it holds missing time (its counts are not the trace's).
CREATE OR REPLACE VIEW lifecycle.observed_segments AS
WITH seg AS (
    SELECT trace, cell, gaps_before AS segment,
           min(time) FILTER (time > 0 AND time < meta.after_window(trace)) AS t0,
           max(time) FILTER (time > 0 AND time < meta.after_window(trace)) AS t1
    FROM lifecycle.task_events
    GROUP BY ALL
)
SELECT trace, cell, segment, t0, t1, meta.seconds(trace, t1 - t0) AS length_s,
       coalesce(sum(meta.seconds(trace, t1 - t0)) OVER (PARTITION BY trace, cell ORDER BY segment
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS cum_s
FROM seg
WHERE t0 IS NOT NULL;

CREATE OR REPLACE VIEW lifecycle.observed_window AS
SELECT trace, min(t0) AS t0, max(t1) AS t1, max(cells_s) AS window_s, count(*) AS segments
FROM (SELECT *, sum(length_s) OVER (PARTITION BY trace, cell) AS cells_s FROM lifecycle.observed_segments)
GROUP BY trace;

-- the time between two consecutive segments of a trace and cell: where a missing part lies
CREATE OR REPLACE VIEW lifecycle.missing_spans AS
SELECT trace, cell, t0, t1
FROM (SELECT trace, cell, t1 AS t0, lead(t0) OVER (PARTITION BY trace, cell ORDER BY segment) AS t1
      FROM lifecycle.observed_segments)
WHERE t1 IS NOT NULL;

COMMENT ON VIEW lifecycle.missing_spans IS 'Per trace and cell, the open interval (t0, t1) between the last observed time before a missing part and the first after it, raw trace time';
COMMENT ON VIEW lifecycle.observed_segments IS 'Per trace and cell, the stretches of time the ingested task events observe (split by missing parts), raw trace time';
COMMENT ON VIEW lifecycle.observed_window IS 'Per Google trace: first and last observed time, observed seconds (window_s, the longest cell), segments';
