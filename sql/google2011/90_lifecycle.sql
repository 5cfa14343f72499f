-- name: google2011.lifecycle
-- description: the 2011 trace's contribution to the shared life-cycle layer (sql/lifecycle): one adapter view per shared view, each in the shared shape; lifecycle.* is the UNION of every trace's adapters.
-- grain: as the shared view each adapter feeds
CREATE OR REPLACE VIEW google2011.lifecycle_event_types AS
SELECT 'google2011' AS trace, code, name FROM google2011.codes WHERE code_set = 'event_type';

-- the priority tiers, for reports that list tiers in their order (lifecycle.priority_tiers)
CREATE OR REPLACE VIEW google2011.lifecycle_priority_tiers AS
SELECT 'google2011' AS trace, tier, min_priority, max_priority, production FROM google2011.priority_tiers;

-- the table whose parts hold the task events (lifecycle.task_event_parts)
CREATE OR REPLACE VIEW google2011.lifecycle_task_event_tables AS
SELECT 'google2011' AS trace, 'task_events' AS table_name;

CREATE OR REPLACE VIEW google2011.lifecycle_task_events AS
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    job_id,
    task_index,
    time,
    seq,
    time_class,
    event_time,
    event_type_name,
    is_synthesized,
    missing_info_name,
    machine_id,
    priority,
    priority_tier,
    is_production,
    scheduling_class,
    cpu_request,
    memory_request
FROM google2011.task_events;

CREATE OR REPLACE VIEW google2011.lifecycle_task_usage AS
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    job_id,
    task_index,
    machine_id,
    start_time,
    end_time,
    seq,
    window_seconds AS window_s,
    cpu_rate AS cpu,
    canonical_memory_usage AS memory,
    assigned_memory_usage AS memory_assigned
FROM google2011.task_usage;

CREATE OR REPLACE VIEW google2011.lifecycle_job_events AS
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    job_id,
    time,
    seq,
    time_class,
    event_type_name,
    is_synthesized
FROM google2011.job_events;

CREATE OR REPLACE VIEW google2011.lifecycle_machine_events AS
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    machine_id,
    time,
    seq,
    time_class,
    event_type_name,
    cpus,
    memory
FROM google2011.machine_events;

COMMENT ON VIEW google2011.lifecycle_event_types IS 'Adapter: the 2011 task event types, for lifecycle.event_types';
COMMENT ON VIEW google2011.lifecycle_priority_tiers IS 'Adapter: google2011.priority_tiers with its trace, for lifecycle.priority_tiers';
COMMENT ON VIEW google2011.lifecycle_task_event_tables IS 'Adapter: the table holding the 2011 task events, for lifecycle.task_event_parts';
COMMENT ON VIEW google2011.lifecycle_task_events IS 'Adapter: google2011.task_events in the shape of lifecycle.task_events';
COMMENT ON VIEW google2011.lifecycle_task_usage IS 'Adapter: google2011.task_usage in the shape of lifecycle.task_usage';
COMMENT ON VIEW google2011.lifecycle_job_events IS 'Adapter: google2011.job_events in the shape of lifecycle.job_events';
COMMENT ON VIEW google2011.lifecycle_machine_events IS 'Adapter: google2011.machine_events in the shape of lifecycle.machine_events';
COMMENT ON COLUMN google2011.lifecycle_task_event_tables.table_name IS 'The google2011 table whose parts hold the task events';
