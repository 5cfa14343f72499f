-- name: google2011.job_events
-- description: job life-cycle events with every code named and the special times classified.
-- grain: one row per job event (job_id, time, event_type); synthesized rows kept, flagged by missing_info
CREATE OR REPLACE VIEW google2011.job_events AS
SELECT
    r.time,
    {{event_time r.time | local}},
    r.missing_info,
    google2011.decode('missing_info', r.missing_info) AS missing_info_name,
    r.missing_info IS NOT NULL AS is_synthesized,
    r.job_id,
    r.event_type,
    google2011.decode('event_type', r.event_type) AS event_type_name,
    r.user,
    r.scheduling_class,
    google2011.decode('scheduling_class', r.scheduling_class) AS scheduling_class_name,
    r.job_name,
    r.logical_job_name,
    r.seq
FROM google2011_raw.job_events AS r;

COMMENT ON VIEW google2011.job_events IS 'Job events of the 2011 trace, decoded: event_type_name, missing_info_name, time_class, event_time (UTC instant, NULL for special times)';
COMMENT ON COLUMN google2011.job_events.time_class IS 'before_window (time 0) | in_window | after_window (time >= 2^63-1)';
COMMENT ON COLUMN google2011.job_events.event_time IS 'Real instant (TIMESTAMPTZ); NULL unless time_class = in_window';
COMMENT ON COLUMN google2011.job_events.event_time_local IS 'Wall-clock time of the cell, America/New_York; NULL unless in_window';
COMMENT ON COLUMN google2011.job_events.missing_info_name IS 'NULL for real records; else why the record was synthesized';
COMMENT ON COLUMN google2011.job_events.is_synthesized IS 'true = a record synthesized by the trace producers (missing_info not empty)';
COMMENT ON COLUMN google2011.job_events.event_type_name IS 'SUBMIT | SCHEDULE | EVICT | FAIL | FINISH | KILL | LOST | UPDATE_PENDING | UPDATE_RUNNING; UNKNOWN(<code>) otherwise';
COMMENT ON COLUMN google2011.job_events.scheduling_class_name IS 'MOST_INSENSITIVE (0) .. MOST_SENSITIVE (3); NULL when empty';
