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
    SELECT p.*, (SELECT count(*) FROM missing AS m
                  WHERE m.trace = p.trace AND m.cell IS NOT DISTINCT FROM p.cell AND m.part < p.part) AS segment
    FROM per_part AS p
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
)
SELECT h.trace, h.cell, h.hour, coalesce(a.jobs, 0) AS jobs
FROM hours AS h
LEFT JOIN arrived AS a ON a.trace = h.trace AND a.cell IS NOT DISTINCT FROM h.cell AND a.hour = h.hour;

COMMENT ON VIEW lifecycle.job_observed_segments IS 'Per trace and cell, the stretches of time the ingested job events observe (split by missing parts of the job table), raw trace time';
COMMENT ON VIEW lifecycle.hourly_job_arrivals IS 'Jobs arriving (first SUBMIT) per observed hour since the trace start, per trace and cell; hours not wholly observed are absent, empty observed hours 0';
