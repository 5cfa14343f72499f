-- name: alibaba2017.adapters
-- description: the 2017 trace in the shared batch and machine contracts (tracewh.traces.ADAPTERS): machine utilisation, container placement, batch tasks and instances; the reports over them cover this trace.
-- grain: machine_utilisation one row per server_usage sample; container_placement one per Create event of container_event; batch_tasks one per batch_task row; batch_instances one per batch_instance row
-- note: ids are the trace's integers as text (an instance whose job or task id is missing has NULL there). A task starts at its create_timestamp and ends at its modify_timestamp (its latest state change: schema.csv calls it the task's end time). The trace has no DAG: dag_class is 'no DAG information' for every task and instance. Percents outside 0..100 are NULL in machine_utilisation.
CREATE OR REPLACE VIEW alibaba2017.machine_utilisation AS
SELECT 'alibaba2017' AS trace, machine_id::VARCHAR AS machine_id, "timestamp" AS time,
       CASE WHEN cpu_util BETWEEN 0 AND 100 THEN cpu_util END AS cpu_util_percent,
       CASE WHEN mem_util BETWEEN 0 AND 100 THEN mem_util END AS mem_util_percent
FROM alibaba2017.server_usage;

CREATE OR REPLACE VIEW alibaba2017.container_placement AS
SELECT 'alibaba2017' AS trace, instance_id::VARCHAR AS container_id, machine_id::VARCHAR AS machine_id
FROM alibaba2017.container_event WHERE event = 'Create';

CREATE OR REPLACE VIEW alibaba2017.batch_tasks AS
SELECT 'alibaba2017' AS trace, job_id::VARCHAR AS job_name, task_id::VARCHAR AS task_name, instance_num,
       'no DAG information' AS dag_class, status, create_timestamp AS start_time, modify_timestamp AS end_time
FROM alibaba2017.batch_task;

CREATE OR REPLACE VIEW alibaba2017.batch_instances AS
SELECT 'alibaba2017' AS trace, job_id::VARCHAR AS job_name, task_id::VARCHAR AS task_name,
       machine_id::VARCHAR AS machine_id, 'no DAG information' AS dag_class, status,
       start_timestamp AS start_time, end_timestamp AS end_time
FROM alibaba2017.batch_instance;

COMMENT ON VIEW alibaba2017.machine_utilisation IS 'server_usage in the shared machine_utilisation contract (percents outside 0..100 NULL)';
COMMENT ON VIEW alibaba2017.container_placement IS 'The Create events of container_event in the shared container_placement contract';
COMMENT ON VIEW alibaba2017.batch_tasks IS 'batch_task in the shared batch_tasks contract: start = create_timestamp, end = modify_timestamp, no DAG';
COMMENT ON VIEW alibaba2017.batch_instances IS 'batch_instance in the shared batch_instances contract (ids as text, NULL where missing)';
