-- name: google2019.lifecycle
-- description: the 2019 trace's contribution to the shared life-cycle layer (sql/lifecycle): one adapter view per shared view, each in the shared shape; lifecycle.* is the UNION of every trace's adapters.
-- grain: as the shared view each adapter feeds
-- note: collection_id -> job_id, instance_index -> task_index, placed_machine_id -> machine_id; only instances of jobs (collection_type 0): alloc instances (collection_type ALLOC_SET) are resource reservations, not work, and stay out of the life-cycle reports; is_production = the priority is in a production tier or above (google2019.priority_tiers: >= 120).
CREATE OR REPLACE VIEW google2019.lifecycle_event_types AS
SELECT 'google2019' AS trace, code, name FROM google2019.codes WHERE code_set = 'type';

-- the priority tiers, for reports that list tiers in their order (lifecycle.priority_tiers)
CREATE OR REPLACE VIEW google2019.lifecycle_priority_tiers AS
SELECT 'google2019' AS trace, tier, min_priority, max_priority, production FROM google2019.priority_tiers;

-- the table whose parts hold the task events (lifecycle.task_event_parts)
CREATE OR REPLACE VIEW google2019.lifecycle_task_event_tables AS
SELECT 'google2019' AS trace, 'instance_events' AS table_name;

CREATE OR REPLACE VIEW google2019.lifecycle_task_events AS
SELECT
    'google2019' AS trace,
    e.cell,
    e.collection_id AS job_id,
    e.instance_index AS task_index,
    e.time,
    e.seq,
    e.time_class,
    e.event_time,
    e.type_name AS event_type_name,
    e.is_synthesized,
    CASE WHEN e.is_synthesized THEN e.missing_type_name END AS missing_info_name,
    e.placed_machine_id AS machine_id,
    e.priority,
    e.priority_tier,
    google2019.is_production(e.priority) AS is_production,
    e.scheduling_class,
    e.request_cpus AS cpu_request,
    e.request_memory AS memory_request
FROM google2019.instance_events AS e
WHERE e.collection_type = 0;

CREATE OR REPLACE VIEW google2019.lifecycle_task_usage AS
SELECT
    'google2019' AS trace,
    cell,
    collection_id AS job_id,
    instance_index AS task_index,
    placed_machine_id AS machine_id,
    start_time,
    end_time,
    seq,
    window_seconds AS window_s,
    average_cpus AS cpu,
    average_memory AS memory,
    assigned_memory AS memory_assigned
FROM google2019.instance_usage
WHERE collection_type = 0;

CREATE OR REPLACE VIEW google2019.lifecycle_job_events AS
SELECT 'google2019' AS trace, cell, collection_id AS job_id, time, seq, time_class,
       type_name AS event_type_name, is_synthesized
FROM google2019.collection_events
WHERE collection_type = 0;

CREATE OR REPLACE VIEW google2019.lifecycle_machine_events AS
SELECT 'google2019' AS trace, cell, machine_id, time, seq, time_class, type_name AS event_type_name,
       capacity_cpus AS cpus, capacity_memory AS memory
FROM google2019.machine_events;

-- what the adapters above leave out, so a report can say why it counts less (or nothing)
CREATE OR REPLACE VIEW google2019.lifecycle_left_out AS
SELECT 'google2019' AS trace, cell,
       'instance events of alloc sets (reservations, not work)' AS what,
       count(*) FILTER (collection_type IS DISTINCT FROM 0) AS left_out,
       count(*) AS total
FROM google2019.instance_events
GROUP BY cell;

COMMENT ON VIEW google2019.lifecycle_event_types IS 'Adapter: the 2019 instance event types, for lifecycle.event_types';
COMMENT ON VIEW google2019.lifecycle_priority_tiers IS 'Adapter: google2019.priority_tiers with its trace, for lifecycle.priority_tiers';
COMMENT ON VIEW google2019.lifecycle_task_event_tables IS 'Adapter: the table holding the 2019 instance events, for lifecycle.task_event_parts';
COMMENT ON VIEW google2019.lifecycle_task_events IS 'Adapter: google2019.instance_events of jobs in the shape of lifecycle.task_events';
COMMENT ON VIEW google2019.lifecycle_left_out IS 'Adapter: the instance events of alloc sets the life-cycle views leave out, per cell, for lifecycle.left_out';
COMMENT ON VIEW google2019.lifecycle_task_usage IS 'Adapter: google2019.instance_usage of jobs in the shape of lifecycle.task_usage';
COMMENT ON VIEW google2019.lifecycle_job_events IS 'Adapter: google2019.collection_events of jobs in the shape of lifecycle.job_events';
COMMENT ON VIEW google2019.lifecycle_machine_events IS 'Adapter: google2019.machine_events in the shape of lifecycle.machine_events';
COMMENT ON COLUMN google2019.lifecycle_task_event_tables.table_name IS 'The google2019 table whose parts hold the task events';
