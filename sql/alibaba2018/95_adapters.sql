-- name: alibaba2018.adapters
-- description: the 2018 trace in the shared batch and machine contracts (tracewh.traces.ADAPTERS): machine utilisation, container placement, batch tasks and instances, and the published figures of the batch hierarchy; the reports over them cover every trace providing them.
-- grain: machine_utilisation one row per machine_usage sample; container_placement one per container_meta row with a machine; batch_tasks one per batch_task row; batch_instances one per batch_instance row; batch_published one per published figure
-- note: dag_class is the task name's class (no_dag | dag_root | dag_dependent), 'unparsed name' when the name does not parse.
CREATE OR REPLACE VIEW alibaba2018.machine_utilisation AS
SELECT 'alibaba2018' AS trace, machine_id, time_stamp AS time, cpu_util_percent, mem_util_percent
FROM alibaba2018.machine_usage;

CREATE OR REPLACE VIEW alibaba2018.container_placement AS
SELECT 'alibaba2018' AS trace, container_id, machine_id FROM alibaba2018.container_meta;

CREATE OR REPLACE VIEW alibaba2018.batch_tasks AS
SELECT 'alibaba2018' AS trace, job_name, task_name, instance_num, coalesce(dag_class, 'unparsed name') AS dag_class,
       status, start_time, end_time
FROM alibaba2018.batch_task;

CREATE OR REPLACE VIEW alibaba2018.batch_instances AS
SELECT 'alibaba2018' AS trace, job_name, task_name, machine_id, coalesce(dag_class, 'unparsed name') AS dag_class,
       status, start_time, end_time
FROM alibaba2018.batch_instance;

-- The Alibaba co-location paper's Tables 2, 4 and 5 (wang2020colocation): the whole trace's jobs,
-- tasks and instances, and the shares of tasks and instance schedulings by DAG class.
CREATE OR REPLACE VIEW alibaba2018.batch_published AS
SELECT 'alibaba2018' AS trace, level, class::VARCHAR AS class, published_count::BIGINT AS published_count,
       published_share::DOUBLE AS published_share
FROM (VALUES
    ('jobs', NULL, 4201014, NULL), ('tasks', NULL, 14295731, NULL), ('instances', NULL, 1351255775, NULL),
    ('tasks by class', 'no_dag', NULL, 0.1598), ('tasks by class', 'dag_dependent', NULL, 0.4707),
    ('tasks by class', 'dag_root', NULL, 0.3695), ('instances by class', 'no_dag', NULL, 0.0309)
) AS p(level, class, published_count, published_share);

COMMENT ON VIEW alibaba2018.machine_utilisation IS 'machine_usage in the shared machine_utilisation contract (reports over machine utilisation)';
COMMENT ON VIEW alibaba2018.container_placement IS 'container_meta in the shared container_placement contract';
COMMENT ON VIEW alibaba2018.batch_tasks IS 'batch_task in the shared batch_tasks contract (dag_class: unparsed name where the name does not parse)';
COMMENT ON VIEW alibaba2018.batch_instances IS 'batch_instance in the shared batch_instances contract';
COMMENT ON VIEW alibaba2018.batch_published IS 'The Alibaba co-location paper''s figures of the batch hierarchy (Tables 2, 4, 5), for the reports over batch_tasks';
