-- name: lifecycle.event_counts
-- description: the task events of every Google trace counted by cell and event type, real and synthesized (the counts by type without a scan of the events, once stored: derived.event_counts).
-- grain: one row per (trace, cell, event_type_name)
CREATE OR REPLACE VIEW lifecycle.event_counts AS
SELECT trace, cell, event_type_name, count(*) AS events, count(*) FILTER (is_synthesized) AS synthesized
FROM lifecycle.task_events
GROUP BY ALL;

COMMENT ON VIEW lifecycle.event_counts IS 'Per trace, cell and event type: task events, and of them synthesized (missing_info)';
COMMENT ON COLUMN lifecycle.event_counts.events IS 'Task events of this type in the cell';
COMMENT ON COLUMN lifecycle.event_counts.synthesized IS 'Of them, events the trace marks as synthesized (missing_info)';
