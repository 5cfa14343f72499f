-- name: google2011.job_events
-- description: job life-cycle events with every code named and the special times classified.
-- grain: one row per job event (job_id, time, event_type); synthesized rows kept, flagged by missing_info
CREATE OR REPLACE VIEW google2011.job_events AS
SELECT
    {{event_time r.time | local}},
    {{decoded r.missing_info}},
    r.job_id,
    {{decoded r.event_type}},
    r.user,
    {{decoded r.scheduling_class}},
    r.job_name,
    r.logical_job_name,
    r.seq
FROM google2011_raw.job_events AS r;

COMMENT ON VIEW google2011.job_events IS 'Job events of the 2011 trace, decoded: event_type_name, missing_info_name, time_class, event_time (UTC instant, NULL for special times)';
