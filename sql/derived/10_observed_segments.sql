-- name: derived.observed_segments
-- description: lifecycle.observed_segments of one trace, stored: the stretches of time its task events observe, so footers and reports read them without a scan of the events.
-- grain: one row per (trace, cell, segment)
-- params: trace
-- sort: cell, segment
-- standin: SELECT trace, cell, segment AS gaps_before, t0 AS time FROM stored
--   UNION ALL SELECT trace, cell, segment AS gaps_before, t1 AS time FROM stored
-- note: a segment is the least and greatest in-window time of its events, so its stored t0 and t1 stand for the events it had: an ingest that only adds parts (the old parts' gaps unchanged) reads the added parts' events and those two per segment, not every event.
SELECT * FROM lifecycle.observed_segments WHERE trace = $trace
