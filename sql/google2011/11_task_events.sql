-- name: google2011.task_events
-- description: task life-cycle events with every code named, special times classified, priority tiers and production flag.
-- grain: one row per task event (job_id, task_index, time, event_type); synthesized rows kept, flagged by missing_info
CREATE OR REPLACE VIEW google2011.task_events AS
SELECT
    {{event_time r.time | local}},
    {{decoded r.missing_info}},
    r.job_id,
    r.task_index,
    r.machine_id,
    {{decoded r.event_type}},
    r.user,
    {{decoded r.scheduling_class}},
    r.priority,
    google2011.priority_tier(r.priority) AS priority_tier,
    google2011.is_production(r.priority) AS is_production,
    r.cpu_request,
    r.memory_request,
    r.disk_space_request,
    r.different_machines_restriction,
    r.seq,
    r.day
FROM google2011_raw.task_events AS r;

COMMENT ON VIEW google2011.task_events IS 'Task events of the 2011 trace, decoded: event_type_name, missing_info_name, time_class, event_time, priority_tier';
COMMENT ON COLUMN google2011.task_events.is_synthesized IS 'true = a record synthesized by the trace producers (missing_info not empty); its requests may be NULL';
COMMENT ON COLUMN google2011.task_events.priority_tier IS 'free 0-1 | middle 2-8 | production 9-11 (google2011.priority_tiers)';
COMMENT ON COLUMN google2011.task_events.is_production IS 'priority >= the lowest production tier (google2011.priority_tiers: 9, the production definition of the 10-observations paper)';
COMMENT ON COLUMN google2011.task_events.day IS 'Partition: trace day = time // 86400000000 (time 0 is in day 0; 2^63-1 in day 106751991)';
