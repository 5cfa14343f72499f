-- name: lifecycle.event_types
-- purpose: the event types each Google trace documents, from the trace's own code table, so reports list every type (with zero counts) without copying code tables.
-- grain: one row per (trace, event name)
CREATE OR REPLACE VIEW lifecycle.event_types AS
SELECT 'google2011' AS trace, code, name FROM google2011.codes WHERE code_set = 'event_type'
UNION ALL
SELECT 'google2019', code, name FROM google2019.codes WHERE code_set = 'type';

COMMENT ON VIEW lifecycle.event_types IS 'Documented task event types per Google trace (code, name)';
