-- name: lifecycle.event_types
-- description: the event types each Google trace documents, from the trace's own code table, so reports list every type (with zero counts) without copying code tables; and each trace's priority tiers.
-- grain: event_types one row per (trace, event name); priority_tiers one row per (trace, tier)
CREATE OR REPLACE VIEW lifecycle.event_types AS
SELECT trace, code, name FROM {{union lifecycle_event_types}};

COMMENT ON VIEW lifecycle.event_types IS 'Documented task event types per Google trace (code, name)';

CREATE OR REPLACE VIEW lifecycle.priority_tiers AS
SELECT trace, tier, min_priority, max_priority, production FROM {{union lifecycle_priority_tiers}};

COMMENT ON VIEW lifecycle.priority_tiers IS 'Priority tiers of every trace in the life-cycle layer (inclusive bounds; production = the tier is production), from each trace''s priority_tiers';
