-- name: lifecycle.task_events
-- purpose: the task (2011) / instance (2019) events of every Google trace in one shape, so each life-cycle report is written once and filtered by $trace.
-- grain: one row per task event (trace, cell, job_id, task_index, time, event_type)
CREATE SCHEMA IF NOT EXISTS lifecycle;

CREATE OR REPLACE VIEW lifecycle.task_events AS
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    job_id,
    task_index,
    time,
    time_class,
    event_time,
    event_type_name,
    is_synthesized,
    missing_info_name,
    machine_id,
    priority,
    priority_tier,
    is_production,
    cpu_request,
    memory_request
FROM google2011.task_events;

COMMENT ON VIEW lifecycle.task_events IS 'Task/instance events of every Google trace in one shape (trace, cell, job_id, task_index, time, event_type_name, ...)';
