-- name: google2019.time macros
-- description: trace time to real instants; 0 (before the window) and 2^63-1 (after) never become dates.
-- params: t = raw trace time in microseconds since 600 s before the trace start
-- source: traces.md section 2 "Time": trace start (t = 600 s) is 2019-05-01 00:00 America/Los_Angeles = 07:00 UTC for every cell
CREATE OR REPLACE MACRO google2019.trace_start() AS TIMESTAMPTZ '2019-05-01 07:00:00+00';

CREATE OR REPLACE MACRO google2019.time_class(t) AS
    CASE
        WHEN t IS NULL THEN NULL
        WHEN t = 0 THEN 'before_window'
        WHEN t >= 9223372036854775807 THEN 'after_window'
        ELSE 'in_window'
    END;

CREATE OR REPLACE MACRO google2019.trace_timestamp(t) AS
    CASE WHEN t > 0 AND t < 9223372036854775807
         THEN google2019.trace_start() + to_microseconds(t - 600000000) END;

CREATE OR REPLACE MACRO google2019.trace_seconds(t) AS
    CASE WHEN t > 0 AND t < 9223372036854775807 THEN (t - 600000000) / 1e6 END;

-- absent, NULL and 0 mean the same for machine_id, alloc_collection_id, missing_type, parent ids
CREATE OR REPLACE MACRO google2019.nonzero(x) AS CASE WHEN x <> 0 THEN x END;
