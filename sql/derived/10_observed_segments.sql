-- name: derived.observed_segments
-- description: lifecycle.observed_segments of one trace, stored: the stretches of time its task events observe, so footers and reports read them without a scan of the events.
-- grain: one row per (trace, cell, segment)
-- params: trace
-- sort: cell, segment
SELECT * FROM lifecycle.observed_segments WHERE trace = $trace
