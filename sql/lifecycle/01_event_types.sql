-- name: lifecycle.event_types
-- description: the event types each Google trace documents, from the trace's own code table, so reports list every type (with zero counts) without copying code tables.
-- grain: one row per (trace, event name)
CREATE OR REPLACE VIEW lifecycle.event_types AS
SELECT trace, code, name FROM {{union lifecycle_event_types}};

COMMENT ON VIEW lifecycle.event_types IS 'Documented task event types per Google trace (code, name)';
