-- name: alibaba2018.batch_task
-- description: batch tasks with the DAG parsed out of the name (task_id, kind, parents, class, odd-form flags), cores, and start/end time classes.
-- grain: one row per batch_task record (job_name, task_name)
CREATE OR REPLACE VIEW alibaba2018.batch_task AS
WITH parsed AS (
    SELECT r.*, alibaba2018.parse_task_name(r.task_name) AS p FROM alibaba2018_raw.batch_task AS r
)
SELECT
    task_name,
    instance_num,
    job_name,
    task_type,
    status,
    start_time,
    end_time,
    alibaba2018.start_time_class(start_time) AS start_time_class,
    alibaba2018.end_time_class(start_time, end_time, status) AS end_time_class,
    alibaba2018.duration_s(start_time, end_time, status) AS duration_s,
    plan_cpu,
    alibaba2018.cores(plan_cpu) AS plan_cpu_cores,
    plan_mem,
    p.form AS name_form,
    p.task_kind,
    p.task_id,
    p.parent_task_ids,
    CASE p.form
        WHEN 'independent' THEN 'no_dag'
        WHEN 'merge_task' THEN 'no_dag'
        WHEN 'dag' THEN CASE WHEN array_length(p.parent_task_ids) = 0 THEN 'dag_root' ELSE 'dag_dependent' END
    END AS dag_class,
    p.stage,
    p.stage IS NOT NULL AS has_stage_suffix,
    p.trailing_underscore AS has_trailing_underscore,
    coalesce(list_contains(p.parent_task_ids, p.task_id), false) AS is_self_dependent,
    p.form = 'unparsed' AS is_unparsed,
    seq
FROM parsed;

-- name: alibaba2018.batch_instance
-- description: batch instances with invalid values NULL, cpu in cores, start/end time classes and the DAG class of their task.
-- grain: one row per instance attempt (job_name, task_name, instance_name, seq_no)
CREATE OR REPLACE VIEW alibaba2018.batch_instance AS
SELECT
    r.instance_name,
    r.task_name,
    r.job_name,
    r.task_type,
    r.status,
    r.start_time,
    r.end_time,
    alibaba2018.start_time_class(r.start_time) AS start_time_class,
    alibaba2018.end_time_class(r.start_time, r.end_time, r.status) AS end_time_class,
    alibaba2018.duration_s(r.start_time, r.end_time, r.status) AS duration_s,
    r.machine_id,
    r.seq_no,
    r.total_seq_no,
    CASE WHEN r.cpu_avg >= 0 THEN r.cpu_avg END AS cpu_avg,
    CASE WHEN r.cpu_max >= 0 THEN r.cpu_max END AS cpu_max,
    alibaba2018.cores(CASE WHEN r.cpu_avg >= 0 THEN r.cpu_avg END) AS cpu_avg_cores,
    alibaba2018.cores(CASE WHEN r.cpu_max >= 0 THEN r.cpu_max END) AS cpu_max_cores,
    alibaba2018.valid_percent(r.mem_avg) AS mem_avg,
    alibaba2018.valid_percent(r.mem_max) AS mem_max,
    r.cpu_avg AS cpu_avg_raw,
    r.mem_avg AS mem_avg_raw,
    alibaba2018.dag_class(r.task_name) AS dag_class,
    r.day,
    r.seq
FROM alibaba2018_raw.batch_instance AS r;

-- name: alibaba2018.task_edges
-- description: the DAG edges of every job: one row per (task, parent) named in a task name, flagged when the parent does not exist in the job or is the task itself.
-- grain: one row per (job_name, task_id, parent_task_id)
CREATE OR REPLACE VIEW alibaba2018.task_edges AS
-- the task names are parsed once (MATERIALIZED) for both the edges and the ids they point at
WITH t AS MATERIALIZED (
    SELECT job_name, task_id, parent_task_ids FROM alibaba2018.batch_task WHERE name_form = 'dag'
),
edges AS (
    SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) AS parent_task_id FROM t
),
ids AS (
    SELECT DISTINCT job_name, task_id FROM t
)
SELECT
    e.job_name,
    e.task_id,
    e.parent_task_id,
    i.task_id IS NOT NULL AS parent_exists,
    e.parent_task_id = e.task_id AS is_self_loop
FROM edges AS e
LEFT JOIN ids AS i ON i.job_name = e.job_name AND i.task_id = e.parent_task_id;

COMMENT ON VIEW alibaba2018.batch_task IS 'Batch tasks with the DAG parsed from task_name: task_id, task_kind, parent_task_ids, dag_class (no_dag | dag_root | dag_dependent), odd-form flags';
COMMENT ON VIEW alibaba2018.batch_instance IS 'Batch instance attempts: cpu in cores, invalid values NULL (raw kept), time classes, dag_class of the task';
COMMENT ON VIEW alibaba2018.task_edges IS 'DAG edges (job_name, task_id, parent_task_id) with parent_exists and is_self_loop flags; cycles: report ali-dag-anomalies';
COMMENT ON COLUMN alibaba2018.batch_task.dag_class IS 'no_dag (task_<base64>, MergeTask) | dag_root (no dependency) | dag_dependent; NULL when the name does not parse';
COMMENT ON COLUMN alibaba2018.batch_task.name_form IS 'independent (task_<base64>) | merge_task | dag | unparsed';
COMMENT ON COLUMN alibaba2018.batch_task.start_time_class IS 'unknown (0) | known';
COMMENT ON COLUMN alibaba2018.batch_task.end_time_class IS 'open (status Running, Waiting or Ready: not ended, end unknown) | unknown (0) | before_start (end < start) | known';
COMMENT ON COLUMN alibaba2018.batch_task.duration_s IS 'end_time - start_time when both are known; NULL for open tasks, start 0, end 0 or end before start';
COMMENT ON COLUMN alibaba2018.batch_task.plan_cpu_cores IS 'plan_cpu in cores (plan_cpu / 100), per instance';
COMMENT ON COLUMN alibaba2018.batch_instance.dag_class IS 'no_dag | dag_root | dag_dependent (from the task name); NULL when it does not parse';
COMMENT ON COLUMN alibaba2018.batch_instance.cpu_avg_cores IS 'cpu_avg in cores (cpu_avg / 100)';
COMMENT ON COLUMN alibaba2018.task_edges.parent_exists IS 'false: the name depends on a task id that no task of the job has';

-- name: alibaba2018.dag_tasks
-- description: the input of the DAG walks (critical path, cycle detection): per DAG task of a job, its usable parents (existing, not itself) and its run time.
-- grain: one row per (job_name, task_id)
-- note: a task id named twice in one job is one node (its longest run); edges to missing parents and self-loops are left out here (see task_edges for them).
CREATE OR REPLACE VIEW alibaba2018.dag_tasks AS
-- every task name is parsed once (MATERIALIZED), then nodes and edges come from that one parse
WITH t AS MATERIALIZED (
    SELECT job_name, task_id, parent_task_ids, duration_s
    FROM alibaba2018.batch_task WHERE name_form = 'dag'
),
nodes AS (
    SELECT job_name, task_id, max(duration_s) AS run_s, bool_and(duration_s IS NOT NULL) AS times_known
    FROM t GROUP BY job_name, task_id
),
edges AS (
    SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) AS parent_task_id FROM t
),
parents AS (
    SELECT e.job_name, e.task_id, list(e.parent_task_id ORDER BY e.parent_task_id) AS parent_task_ids
    FROM edges AS e
    SEMI JOIN nodes AS n ON n.job_name = e.job_name AND n.task_id = e.parent_task_id
    WHERE e.parent_task_id <> e.task_id
    GROUP BY e.job_name, e.task_id
)
SELECT n.job_name, n.task_id, coalesce(p.parent_task_ids, []::BIGINT[]) AS parent_task_ids, n.run_s, n.times_known
FROM nodes AS n LEFT JOIN parents AS p USING (job_name, task_id);

COMMENT ON VIEW alibaba2018.dag_tasks IS 'Per DAG task: usable parents (existing, not itself) and run time (s); the input of the critical-path walk';
