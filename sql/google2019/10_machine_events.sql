-- name: google2019.machine_events
-- description: machine events per cell with the event named, special times classified and capacity flattened.
-- grain: one row per machine event (cell, machine_id, time)
-- note: the export omits fields holding their default: an absent type is 0 (UNKNOWN); an absent capacity is unknown (NULL), an absent field inside a present capacity is 0.
CREATE OR REPLACE VIEW google2019.machine_events AS
SELECT
    coalesce(r.time, 0) AS time,
    {{event_time coalesce(r.time, 0) | local c.time_zone}},
    r.cell,
    r.machine_id,
    coalesce(r.type, 0) AS type,
    google2019.decode('machine_event_type', coalesce(r.type, 0)) AS type_name,
    r.switch_id,
    r.capacity,
    CASE WHEN r.capacity IS NOT NULL THEN coalesce(r.capacity.cpus, 0) END AS capacity_cpus,
    CASE WHEN r.capacity IS NOT NULL THEN coalesce(r.capacity.memory, 0) END AS capacity_memory,
    r.platform_id,
    coalesce(r.missing_data_reason, 0) AS missing_data_reason,
    google2019.decode('missing_data_reason', coalesce(r.missing_data_reason, 0)) AS missing_data_reason_name,
    r.seq
FROM google2019_raw.machine_events AS r
LEFT JOIN google2019.cells AS c ON c.cell = r.cell;

COMMENT ON VIEW google2019.machine_events IS 'Machine events of the 2019 trace per cell: ADD, REMOVE, UPDATE, capacity {cpus, memory} (NULL = no capacity value)';
COMMENT ON COLUMN google2019.machine_events.type_name IS 'UNKNOWN | ADD | REMOVE | UPDATE; UNKNOWN(<code>) for other codes';
COMMENT ON COLUMN google2019.machine_events.time_class IS 'before_window (time 0) | in_window | after_window (time >= 2^63-1)';
COMMENT ON COLUMN google2019.machine_events.event_time IS 'Real instant (TIMESTAMPTZ); NULL unless time_class = in_window';
COMMENT ON COLUMN google2019.machine_events.event_time_local IS 'Wall-clock time in the cell''s time zone (google2019.cells); NULL unless in_window';
COMMENT ON COLUMN google2019.machine_events.missing_data_reason_name IS 'NONE | SNAPSHOT_BUT_NO_TRANSITION';
COMMENT ON COLUMN google2019.machine_events.capacity_cpus IS 'Normalised CPU capacity; NULL when the machine has no capacity value';
