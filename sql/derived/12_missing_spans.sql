-- name: derived.missing_spans
-- description: lifecycle.missing_spans of one trace, stored: the time between observed segments where a missing part lies.
-- grain: one row per (trace, cell, missing stretch)
-- params: trace
SELECT * FROM lifecycle.missing_spans WHERE trace = $trace ORDER BY cell, t0
