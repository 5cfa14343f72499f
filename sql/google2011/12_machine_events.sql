-- name: google2011.machine_events
-- description: machines added, removed and updated, with the event named and the special times classified.
-- grain: one row per machine event (machine_id, time, event_type)
CREATE OR REPLACE VIEW google2011.machine_events AS
SELECT
    {{event_time r.time | local}},
    r.machine_id,
    {{decoded r.event_type}},
    r.platform_id,
    r.cpus,
    r.memory,
    r.seq
FROM google2011_raw.machine_events AS r;

COMMENT ON VIEW google2011.machine_events IS 'Machine events of the 2011 trace: ADD, REMOVE, UPDATE with normalised capacity';
