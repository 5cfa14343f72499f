-- name: derived.missing_spans
-- description: lifecycle.missing_spans of one trace, stored: the time between observed segments where a missing part lies.
-- grain: one row per (trace, cell, missing stretch)
-- params: trace
-- sort: cell, t0
SELECT * FROM lifecycle.missing_spans WHERE trace = $trace
