-- name: google2019.machine_events
-- description: machine events per cell with the event named, special times classified and capacity flattened.
-- grain: one row per machine event (cell, machine_id, time)
-- note: the export omits fields holding their default: an absent type is 0 (UNKNOWN); an absent capacity is unknown (NULL), an absent field inside a present capacity is 0.
CREATE OR REPLACE VIEW google2019.machine_events AS
SELECT
    {{event_time r.time | local c.time_zone}},
    r.cell,
    r.machine_id,
    {{decoded r.type}},
    r.switch_id,
    r.capacity,
    CASE WHEN r.capacity IS NOT NULL THEN coalesce(r.capacity.cpus, 0) END AS capacity_cpus,
    CASE WHEN r.capacity IS NOT NULL THEN coalesce(r.capacity.memory, 0) END AS capacity_memory,
    r.platform_id,
    {{decoded r.missing_data_reason}},
    r.seq
FROM google2019_raw.machine_events AS r
LEFT JOIN google2019.cells AS c ON c.cell = r.cell;

COMMENT ON VIEW google2019.machine_events IS 'Machine events of the 2019 trace per cell: ADD, REMOVE, UPDATE, capacity {cpus, memory} (NULL = no capacity value)';
COMMENT ON COLUMN google2019.machine_events.capacity_cpus IS 'Normalised CPU capacity; NULL when the machine has no capacity value';
