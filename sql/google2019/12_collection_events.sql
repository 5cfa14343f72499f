-- name: google2019.collection_events
-- description: collection (job and alloc set) events per cell with every enum named, defaults applied, special times classified and priority tiers.
-- grain: one row per collection event (cell, collection_id, time, seq)
-- note: the export omits fields holding their default value: absent type, scheduling_class, missing_type, collection_type, priority, alloc_collection_id, max_per_machine, max_per_switch are 0 here (the raw NULL is in google2019_raw); max_per_machine / max_per_switch 0 = no limit.
CREATE OR REPLACE VIEW google2019.collection_events AS
SELECT
    coalesce(r.time, 0) AS time,
    {{event_time coalesce(r.time, 0) | local c.time_zone}},
    r.cell,
    r.collection_id,
    coalesce(r.type, 0) AS type,
    google2019.decode('type', coalesce(r.type, 0)) AS type_name,
    coalesce(r.scheduling_class, 0) AS scheduling_class,
    google2019.decode('scheduling_class', coalesce(r.scheduling_class, 0)) AS scheduling_class_name,
    coalesce(r.missing_type, 0) AS missing_type,
    google2019.decode('missing_type', coalesce(r.missing_type, 0)) AS missing_type_name,
    coalesce(r.missing_type, 0) <> 0 AS is_synthesized,
    coalesce(r.collection_type, 0) AS collection_type,
    google2019.decode('collection_type', coalesce(r.collection_type, 0)) AS collection_type_name,
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
    coalesce(r.vertical_scaling, 0) AS vertical_scaling,
    google2019.decode('vertical_scaling', coalesce(r.vertical_scaling, 0)) AS vertical_scaling_name,
    coalesce(r.scheduler, 0) AS scheduler,
    google2019.decode('scheduler', coalesce(r.scheduler, 0)) AS scheduler_name,
    r.day,
    r.seq
FROM google2019_raw.collection_events AS r
LEFT JOIN google2019.cells AS c ON c.cell = r.cell;

COMMENT ON VIEW google2019.collection_events IS 'Collection events of the 2019 trace (jobs and alloc sets) per cell, decoded, defaults applied';
COMMENT ON COLUMN google2019.collection_events.type_name IS 'SUBMIT | QUEUE | ENABLE | SCHEDULE | EVICT | FAIL | FINISH | KILL | LOST | UPDATE_PENDING | UPDATE_RUNNING; UNKNOWN(<code>) otherwise';
COMMENT ON COLUMN google2019.collection_events.event_time_local IS 'Wall-clock time in the cell''s time zone; NULL unless in_window';
COMMENT ON COLUMN google2019.collection_events.scheduling_class_name IS 'MOST_INSENSITIVE | INSENSITIVE | SENSITIVE | MOST_SENSITIVE';
COMMENT ON COLUMN google2019.collection_events.missing_type_name IS 'NONE for real records; else why the record was synthesized (codes 1..5)';
COMMENT ON COLUMN google2019.collection_events.collection_type_name IS 'JOB | ALLOC_SET';
COMMENT ON COLUMN google2019.collection_events.priority_tier IS 'free 0-99 | best-effort batch 100-115 | mid 116-119 | production 120-359 | monitoring >= 360 (google2019.priority_tiers)';
COMMENT ON COLUMN google2019.collection_events.vertical_scaling_name IS 'UNKNOWN | OFF | CONSTRAINED | FULLY_AUTOMATED';
COMMENT ON COLUMN google2019.collection_events.scheduler_name IS 'DEFAULT | BATCH';
