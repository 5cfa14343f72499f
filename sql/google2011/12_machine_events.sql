-- name: google2011.machine_events
-- description: machines added, removed and updated, with the event named and the special times classified.
-- grain: one row per machine event (machine_id, time, event_type)
CREATE OR REPLACE VIEW google2011.machine_events AS
SELECT
    r.time,
    google2011.time_class(r.time) AS time_class,
    google2011.trace_timestamp(r.time) AS event_time,
    google2011.trace_local_time(r.time) AS event_time_local,
    r.machine_id,
    r.event_type,
    google2011.decode('machine_event_type', r.event_type) AS event_type_name,
    r.platform_id,
    r.cpus,
    r.memory,
    r.seq
FROM google2011_raw.machine_events AS r;

COMMENT ON VIEW google2011.machine_events IS 'Machine events of the 2011 trace: ADD, REMOVE, UPDATE with normalised capacity';
COMMENT ON COLUMN google2011.machine_events.event_type_name IS 'ADD | REMOVE | UPDATE (google2011.codes, code_set machine_event_type)';
COMMENT ON COLUMN google2011.machine_events.time_class IS 'before_window (time 0) | in_window | after_window (time >= 2^63-1)';
COMMENT ON COLUMN google2011.machine_events.event_time IS 'Real instant (TIMESTAMPTZ); NULL unless time_class = in_window';
