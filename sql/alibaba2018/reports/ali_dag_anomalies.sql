-- name: ali-dag-anomalies
-- traces: alibaba2018
-- description: how many tasks and jobs have each odd DAG form (MergeTask, _Stg suffix, trailing underscore, unparsable name, missing parent, self-loop, cycle, unknown start, unknown or inverted end, not ended, child starting before its parent ends, critical path longer than the job), with an example
-- params: none
-- python: dag_paths
-- reproduces: traces.md section 3 quirks (e.g. cycles in job j_1053726; names like J30_4_5_25_ and M9_Stg4)
-- note: cycles come from the DAG walk (warehouse/catalog/dag.py): the tasks listed are on or behind a cycle. Everything else is read from alibaba2018.batch_task (missing parents and self-loops as in alibaba2018.task_edges). start 0 = unknown start; status Running / Waiting / Ready = not ended (end unknown, whatever end_time says). Negative edges (child start < parent end) and critical path > job time are counted in jobs without a cycle and with known times, as ali-dag-timing leaves them out; example = the edge child <- parent with its interval, the job's two times. The example shown is the first flagged row by job name, then by its text.
-- caveat: counts are over the ingested batch_task rows
SELECT job_name, task_id, parent_task_ids, run_s, times_known FROM alibaba2018.dag_tasks ORDER BY job_name, task_id;
-- then:
WITH t AS MATERIALIZED (
    -- every task name parsed once
    SELECT job_name, task_name, task_id, parent_task_ids, name_form, has_stage_suffix,
           has_trailing_underscore, is_unparsed, start_time, end_time, start_time_class, end_time_class
    FROM alibaba2018.batch_task
),
dag AS (SELECT * FROM t WHERE name_form = 'dag'),
cyclic AS (SELECT job_name FROM dag_paths WHERE status = 'cycle'),
negative_edges AS (
    SELECT c.job_name, c.task_id, c.parent_task_id, c.start_time - p.end_time AS interval_s
    FROM (SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) AS parent_task_id, start_time, start_time_class
          FROM dag) AS c
    JOIN dag AS p ON p.job_name = c.job_name AND p.task_id = c.parent_task_id
    WHERE c.parent_task_id <> c.task_id AND c.start_time_class = 'known' AND p.end_time_class = 'known'
      AND c.start_time < p.end_time AND c.job_name NOT IN (SELECT job_name FROM cyclic)
),
long_paths AS (
    SELECT p.job_name, p.critical_path_s, j.t1 - j.t0 AS job_time_s
    FROM dag_paths AS p
    JOIN (SELECT job_name, min(start_time) FILTER (start_time > 0) AS t0, max(end_time) FILTER (end_time > 0) AS t1
          FROM t GROUP BY job_name) AS j USING (job_name)
    WHERE p.status = 'ok' AND p.critical_path_s > j.t1 - j.t0
),
ids AS (SELECT DISTINCT job_name, task_id FROM dag),
edges AS (SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) AS parent_task_id FROM dag),
flagged AS (
    SELECT 'MergeTask name' AS anomaly, job_name, task_name FROM t WHERE name_form = 'merge_task'
    UNION ALL SELECT '_Stg<n> suffix', job_name, task_name FROM t WHERE has_stage_suffix
    UNION ALL SELECT 'trailing underscore', job_name, task_name FROM t WHERE has_trailing_underscore
    UNION ALL SELECT 'unparsable name', job_name, task_name FROM t WHERE is_unparsed
    UNION ALL SELECT 'missing parent', e.job_name, e.task_id::VARCHAR || ' -> ' || e.parent_task_id::VARCHAR
              FROM edges AS e ANTI JOIN ids AS i ON i.job_name = e.job_name AND i.task_id = e.parent_task_id
    UNION ALL SELECT 'self-loop', job_name, task_id::VARCHAR FROM edges WHERE parent_task_id = task_id
    UNION ALL SELECT 'cycle', job_name, array_to_string(cycle_task_ids, ',') FROM dag_paths WHERE status = 'cycle'
    UNION ALL SELECT 'start time unknown (0)', job_name, task_name FROM t WHERE start_time_class = 'unknown'
    UNION ALL SELECT 'end time unknown (0)', job_name, task_name FROM t WHERE end_time_class = 'unknown'
    UNION ALL SELECT 'end before start', job_name, task_name FROM t WHERE end_time_class = 'before_start'
    UNION ALL SELECT 'not ended (status Running, Waiting or Ready)', job_name, task_name FROM t WHERE end_time_class = 'open'
    UNION ALL SELECT 'child starts before parent ends', job_name,
                     task_id::VARCHAR || ' <- ' || parent_task_id::VARCHAR || ' (' || interval_s::VARCHAR || ' s)'
              FROM negative_edges
    UNION ALL SELECT 'critical path > job time', job_name,
                     'critical path ' || critical_path_s::BIGINT::VARCHAR || ' s > job time ' || job_time_s::VARCHAR || ' s'
              FROM long_paths
),
-- every kind is listed, those with no occurrence too (0 is an answer)
kinds(anomaly) AS (VALUES
    ('MergeTask name'), ('_Stg<n> suffix'), ('trailing underscore'), ('unparsable name'), ('missing parent'),
    ('self-loop'), ('cycle'), ('start time unknown (0)'), ('end time unknown (0)'), ('end before start'),
    ('not ended (status Running, Waiting or Ready)'), ('child starts before parent ends'), ('critical path > job time')
)
SELECT k.anomaly, count(f.anomaly) AS occurrences, count(DISTINCT f.job_name) AS jobs,
       -- the example is the first row by job, then by text: a total order, so every engine and every
       -- run shows the same one (ordering by job alone left ties to the join strategy)
       min(f.job_name) AS example_job, arg_min(f.task_name, {'job': f.job_name, 'text': f.task_name}) AS example
FROM kinds AS k LEFT JOIN flagged AS f USING (anomaly)
GROUP BY k.anomaly
ORDER BY k.anomaly;
