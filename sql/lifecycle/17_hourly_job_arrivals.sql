-- name: lifecycle.hourly_job_arrivals
-- description: jobs arriving (first SUBMIT of a job) per hour since the trace start, empty hours included, for every Google trace and cell.
-- grain: one row per (trace, cell, hour)
-- note: hours run from the first to the last in-window job event of the trace and cell; a job first submitted at time 0 (before the window) arrives in no hour.
CREATE OR REPLACE VIEW lifecycle.hourly_job_arrivals AS
WITH first_submit AS (
    SELECT trace, cell, job_id, min(time) AS t
    FROM lifecycle.job_events WHERE event_type_name = 'SUBMIT'
    GROUP BY ALL
),
span AS (
    SELECT trace, cell,
           meta.trace_hour(trace, min(time) FILTER (time > 0)) AS h0,
           meta.trace_hour(trace, max(time) FILTER (time < meta.after_window(trace))) AS h1
    FROM lifecycle.job_events GROUP BY trace, cell
),
hours AS (
    SELECT trace, cell, unnest(range(h0, h1 + 1)) AS hour FROM span WHERE h0 IS NOT NULL
),
arrived AS (
    SELECT trace, cell, meta.trace_hour(trace, t) AS hour, count(*) AS jobs
    FROM first_submit WHERE t > 0 AND t < meta.after_window(trace)
    GROUP BY ALL
)
SELECT h.trace, h.cell, h.hour, coalesce(a.jobs, 0) AS jobs
FROM hours AS h
LEFT JOIN arrived AS a ON a.trace = h.trace AND a.cell IS NOT DISTINCT FROM h.cell AND a.hour = h.hour;

COMMENT ON VIEW lifecycle.hourly_job_arrivals IS 'Jobs arriving (first SUBMIT) per hour since the trace start, per trace and cell, empty hours as 0';
