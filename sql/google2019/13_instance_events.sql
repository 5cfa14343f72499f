-- name: google2019.instance_events
-- description: instance (task and alloc instance) events per cell with every enum named, defaults applied, machine and alloc flags, requests flattened, special times classified and priority tiers.
-- grain: one row per instance event (cell, collection_id, instance_index, time, seq)
-- note: absent type, scheduling_class, missing_type, collection_type, priority, instance_index are 0 (the export omits defaults). machine_id: absent/NULL/0 = not on a machine (placed_machine_id NULL), -1 = some dedicated machine. A present resource_request with an absent field has 0 there.
CREATE OR REPLACE VIEW google2019.instance_events AS
SELECT
    {{event_time r.time | local c.time_zone}},
    r.cell,
    r.collection_id,
    coalesce(r.instance_index, 0) AS instance_index,
    {{decoded r.type}},
    {{decoded r.scheduling_class}},
    {{decoded r.missing_type}},
    {{decoded r.collection_type}},
    coalesce(r.priority, 0) AS priority,
    google2019.priority_tier(coalesce(r.priority, 0)) AS priority_tier,
    google2019.nonzero(r.alloc_collection_id) AS alloc_collection_id,
    google2019.nonzero(r.alloc_collection_id) IS NOT NULL AS in_alloc_set,
    coalesce(r.alloc_instance_index, 0) AS alloc_instance_index,
    r.machine_id,
    CASE WHEN r.machine_id > 0 THEN r.machine_id END AS placed_machine_id,
    coalesce(r.machine_id = -1, false) AS on_dedicated_machine,
    r.resource_request,
    CASE WHEN r.resource_request IS NOT NULL THEN coalesce(r.resource_request.cpus, 0) END AS request_cpus,
    CASE WHEN r.resource_request IS NOT NULL THEN coalesce(r.resource_request.memory, 0) END AS request_memory,
    coalesce(r."constraint", []) AS "constraint",
    array_length(coalesce(r."constraint", [])) AS constraints,
    r.day,
    r.seq
FROM google2019_raw.instance_events AS r
LEFT JOIN google2019.cells AS c ON c.cell = r.cell;

-- One row per constraint of an instance event, the relation named.
CREATE OR REPLACE VIEW google2019.instance_constraints AS
SELECT e.cell, e.collection_id, e.instance_index, e.time, e.seq, e.type_name,
       k.c.name AS attribute_name, k.c.value AS attribute_value,
       TRY_CAST(k.c.value AS BIGINT) AS attribute_value_int,
       coalesce(k.c.relation, 0) AS relation,
       google2019.decode('constraint_relation', coalesce(k.c.relation, 0)) AS relation_name
FROM google2019.instance_events AS e,
     LATERAL (SELECT unnest(e."constraint") AS c) AS k;

COMMENT ON VIEW google2019.instance_events IS 'Instance events of the 2019 trace (tasks and alloc instances) per cell, decoded, defaults applied';
COMMENT ON VIEW google2019.instance_constraints IS 'One row per placement constraint of an instance event, relation named';
COMMENT ON COLUMN google2019.instance_events.priority_tier IS 'free 0-99 | best-effort batch 100-115 | mid 116-119 | production 120-359 | monitoring >= 360';
COMMENT ON COLUMN google2019.instance_events.placed_machine_id IS 'The machine the instance is on; NULL when not on a machine (0/absent) or on a dedicated machine (-1)';
COMMENT ON COLUMN google2019.instance_events.on_dedicated_machine IS 'machine_id = -1: on some dedicated machine';
COMMENT ON COLUMN google2019.instance_events.in_alloc_set IS 'The instance runs inside an alloc set (alloc_collection_id not absent/NULL/0)';
COMMENT ON COLUMN google2019.instance_events.request_cpus IS 'Requested CPU, normalised compute units; NULL when no request';
