-- name: ali-dag-anomalies
-- traces: alibaba2018
-- description: how many tasks and jobs have each odd DAG form (MergeTask, _Stg suffix, trailing underscore, unparsable name, missing parent, self-loop, cycle, unknown or inverted times), with an example
-- params: none
-- python: dag_paths
-- reproduces: traces.md section 3 quirks (e.g. cycles in job j_1053726; names like J30_4_5_25_ and M9_Stg4)
-- note: cycles come from the DAG walk (warehouse/dag.py): the tasks listed are on or behind a cycle. Everything else is read from alibaba2018.batch_task (missing parents and self-loops as in alibaba2018.task_edges).
SELECT job_name, task_id, parent_task_ids, run_s, times_known FROM alibaba2018.dag_tasks ORDER BY job_name, task_id;
-- then:
WITH t AS MATERIALIZED (
    -- every task name parsed once
    SELECT job_name, task_name, task_id, parent_task_ids, name_form, has_stage_suffix,
           has_trailing_underscore, is_unparsed, end_time_class
    FROM alibaba2018.batch_task
),
ids AS (SELECT DISTINCT job_name, task_id FROM t WHERE name_form = 'dag'),
edges AS (SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) AS parent_task_id FROM t WHERE name_form = 'dag'),
flagged AS (
    SELECT 'MergeTask name' AS anomaly, job_name, task_name FROM t WHERE name_form = 'merge_task'
    UNION ALL SELECT '_Stg<n> suffix', job_name, task_name FROM t WHERE has_stage_suffix
    UNION ALL SELECT 'trailing underscore', job_name, task_name FROM t WHERE has_trailing_underscore
    UNION ALL SELECT 'unparsable name', job_name, task_name FROM t WHERE is_unparsed
    UNION ALL SELECT 'missing parent', e.job_name, e.task_id::VARCHAR || ' -> ' || e.parent_task_id::VARCHAR
              FROM edges AS e ANTI JOIN ids AS i ON i.job_name = e.job_name AND i.task_id = e.parent_task_id
    UNION ALL SELECT 'self-loop', job_name, task_id::VARCHAR FROM edges WHERE parent_task_id = task_id
    UNION ALL SELECT 'cycle', job_name, array_to_string(cycle_task_ids, ',') FROM dag_paths WHERE status = 'cycle'
    UNION ALL SELECT 'end time unknown (0)', job_name, task_name FROM t WHERE end_time_class = 'unknown'
    UNION ALL SELECT 'end before start', job_name, task_name FROM t WHERE end_time_class = 'before_start'
)
SELECT anomaly, count(*) AS occurrences, count(DISTINCT job_name) AS jobs,
       min(job_name) AS example_job, arg_min(task_name, job_name) AS example
FROM flagged
GROUP BY anomaly
ORDER BY anomaly;
