-- name: derived.event_counts
-- description: lifecycle.event_counts of one trace, stored: the task events counted by cell and event type (real and synthesized), so counts by type read no event.
-- grain: one row per (trace, cell, event_type_name)
-- params: trace
-- sort: cell, event_type_name
-- sums: events, synthesized
-- note: an ingest that only adds parts (the old parts' gaps unchanged) counts the added parts' events and adds the counts to the stored ones, not every event.
SELECT * FROM lifecycle.event_counts WHERE trace = $trace
