-- name: derived.observed_window
-- description: lifecycle.observed_window of one trace, stored: first and last observed time and observed seconds, for every report footer.
-- grain: one row per trace
-- params: trace
SELECT * FROM lifecycle.observed_window WHERE trace = $trace
