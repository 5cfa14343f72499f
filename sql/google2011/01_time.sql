-- name: google2011.time macros
-- description: trace time to real instants; the special values 0 (before the window) and 2^63-1 (after) never become dates.
-- params: t = raw trace time in microseconds since 600 s before the trace start
-- source: traces.md section 1 "Time": trace start (t = 600 s) is 2011-05-01 19:00 America/New_York = 23:00 UTC
CREATE OR REPLACE MACRO google2011.trace_start() AS TIMESTAMPTZ '2011-05-01 23:00:00+00';

CREATE OR REPLACE MACRO google2011.time_zone() AS 'America/New_York';

-- Any time >= 2^63-1 is "after the window" (ingest clamps 2^64-1 to 2^63-1).
CREATE OR REPLACE MACRO google2011.time_class(t) AS
    CASE
        WHEN t IS NULL THEN NULL
        WHEN t = 0 THEN 'before_window'
        WHEN t >= 9223372036854775807 THEN 'after_window'
        ELSE 'in_window'
    END;

-- Exact to the microsecond (integer interval arithmetic, no floating point).
CREATE OR REPLACE MACRO google2011.trace_timestamp(t) AS
    CASE WHEN t > 0 AND t < 9223372036854775807
         THEN google2011.trace_start() + to_microseconds(t - 600000000) END;

-- Wall-clock time of the cluster (America/New_York), NULL for special times.
CREATE OR REPLACE MACRO google2011.trace_local_time(t) AS
    timezone(google2011.time_zone(), google2011.trace_timestamp(t));

-- Seconds since the trace start (t = 600 s); NULL for special times. Negative for 0 < t < 600 s.
CREATE OR REPLACE MACRO google2011.trace_seconds(t) AS
    CASE WHEN t > 0 AND t < 9223372036854775807 THEN (t - 600000000) / 1e6 END;
