-- name: lifecycle.machine_events
-- description: machine events of every Google trace in one shape: ADD, REMOVE, UPDATE with normalised capacity.
-- grain: one row per machine event (trace, cell, machine_id, time, seq)
CREATE OR REPLACE VIEW lifecycle.machine_events AS
SELECT trace, cell, machine_id, time, seq, time_class, event_type_name, cpus, memory
FROM {{union lifecycle_machine_events}};

COMMENT ON VIEW lifecycle.machine_events IS 'Machine events of every Google trace: event_type_name ADD | REMOVE | UPDATE, cpus and memory normalised';
