-- name: google2019.collection_events
-- description: collection (job and alloc set) events per cell with every enum named, defaults applied, special times classified and priority tiers.
-- grain: one row per collection event (cell, collection_id, time, seq)
-- note: the export omits fields holding their default value: absent type, scheduling_class, missing_type, collection_type, priority, alloc_collection_id, max_per_machine, max_per_switch are 0 here (the raw NULL is in google2019_raw); max_per_machine / max_per_switch 0 = no limit.
CREATE OR REPLACE VIEW google2019.collection_events AS
SELECT
    {{event_time r.time | local c.time_zone}},
    r.cell,
    r.collection_id,
    {{decoded r.type}},
    {{decoded r.scheduling_class}},
    {{decoded r.missing_type}},
    {{decoded r.collection_type}},
    coalesce(r.priority, 0) AS priority,
    google2019.priority_tier(coalesce(r.priority, 0)) AS priority_tier,
    google2019.nonzero(r.alloc_collection_id) AS alloc_collection_id,
    google2019.nonzero(r.alloc_collection_id) IS NOT NULL AS in_alloc_set,
    r.user,
    r.collection_name,
    r.collection_logical_name,
    google2019.nonzero(r.parent_collection_id) AS parent_collection_id,
    coalesce(r.start_after_collection_ids, []) AS start_after_collection_ids,
    -- absent = 0 = no limit (v3 format: proto3 omits zero values)
    coalesce(r.max_per_machine, 0) AS max_per_machine,
    coalesce(r.max_per_switch, 0) AS max_per_switch,
    {{decoded r.vertical_scaling}},
    {{decoded r.scheduler}},
    r.day,
    r.seq
FROM google2019_raw.collection_events AS r
LEFT JOIN google2019.cells AS c ON c.cell = r.cell;

COMMENT ON VIEW google2019.collection_events IS 'Collection events of the 2019 trace (jobs and alloc sets) per cell, decoded, defaults applied';
COMMENT ON COLUMN google2019.collection_events.priority_tier IS 'free 0-99 | best-effort batch 100-115 | mid 116-119 | production 120-359 | monitoring >= 360 (google2019.priority_tiers)';
