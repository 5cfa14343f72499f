-- name: lifecycle.hourly_job_arrivals
-- description: jobs arriving (first SUBMIT of a job) per hour since the trace start, for the hours the ingested job events observe whole, empty hours included, for every Google trace and cell.
-- grain: lifecycle.job_observed_segments one row per (trace, cell, segment); lifecycle.hourly_job_arrivals one row per (trace, cell, observed hour)
-- note: the job events observe time in segments (a missing part of the job table splits them, as lifecycle.observed_segments does for the task events): [t0, t1] = the smallest and largest in-window time of a segment's job events. An hour counts only when it lies wholly inside one segment: an hour partly or wholly inside a missing part, or before the first or after the last ingested job event, is not an hour with 0 arrivals but an hour not observed. A job first submitted at time 0 (before the window) arrives in no hour.
CREATE OR REPLACE VIEW lifecycle.job_observed_segments AS
WITH src AS (SELECT trace, table_name FROM meta.inputs WHERE input = 'job_events'),
missing AS (SELECT m.trace, m.cell, m.part FROM meta.missing_parts AS m JOIN src USING (trace, table_name)),
per_part AS (
    SELECT trace, cell, meta.seq_part(seq) AS part,
           min(time) FILTER (time > 0 AND time < meta.after_window(trace)) AS t0,
           max(time) FILTER (time > 0 AND time < meta.after_window(trace)) AS t1
    FROM lifecycle.job_events
    GROUP BY ALL
),
numbered AS (
    -- the parts missing below each part, by a join: Spark pushes a query's filter on trace through
    -- a join and an aggregate into the job events' scan, not through a correlated count (where a
    -- report of one trace read the job events of every trace)
    SELECT p.trace, p.cell, p.t0, p.t1, count(m.part) AS segment
    FROM per_part AS p
    LEFT JOIN missing AS m ON m.trace = p.trace AND m.cell IS NOT DISTINCT FROM p.cell AND m.part < p.part
    GROUP BY p.trace, p.cell, p.part, p.t0, p.t1
)
SELECT trace, cell, segment, min(t0) AS t0, max(t1) AS t1
FROM numbered
WHERE t0 IS NOT NULL
GROUP BY ALL;

CREATE OR REPLACE VIEW lifecycle.hourly_job_arrivals AS
WITH first_submit AS (
    SELECT trace, cell, job_id, min(time) AS t
    FROM lifecycle.job_events WHERE event_type_name = 'SUBMIT'
    GROUP BY ALL
),
whole AS (
    -- the whole hours of each segment: from the first hour starting at or after t0 to the last
    -- one ending at or before t1 (inclusive: its last raw unit is t1)
    SELECT trace, cell, meta.trace_hour(trace, t0 - 1) + 1 AS h0, meta.trace_hour(trace, t1 + 1) AS h1
    FROM lifecycle.job_observed_segments
),
hours AS (
    -- the bounds first: Spark takes no SQL function inside the generator
    SELECT trace, cell, unnest(range(h0, h1)) AS hour FROM whole WHERE h1 > h0
),
arrived AS (
    SELECT trace, cell, meta.trace_hour(trace, t) AS hour, count(*) AS jobs
    FROM first_submit WHERE t > 0 AND t < meta.after_window(trace)
    GROUP BY ALL
),
counted AS (
    -- every observed hour at 0 and the arrivals of every hour, summed below per hour, where the
    -- hour is an observed one: a union and an aggregate, not a join of the arrivals to the hours,
    -- since Spark pushes a filter on trace through both (a query of one trace read the job events
    -- of every trace through the join)
    SELECT trace, cell, hour, 0 AS jobs, true AS observed FROM hours
    UNION ALL
    SELECT trace, cell, hour, jobs, false FROM arrived
)
SELECT trace, cell, hour, sum(jobs)::BIGINT AS jobs
FROM counted
GROUP BY trace, cell, hour
HAVING bool_or(observed);

COMMENT ON VIEW lifecycle.job_observed_segments IS 'Per trace and cell, the stretches of time the ingested job events observe (split by missing parts of the job table), raw trace time';
COMMENT ON VIEW lifecycle.hourly_job_arrivals IS 'Jobs arriving (first SUBMIT) per observed hour since the trace start, per trace and cell; hours not wholly observed are absent, empty observed hours 0';
