-- name: ali-job
-- traces: alibaba2018
-- description: one batch job: its tasks with kind, parents (missing ones named), status, times, instances and waiting time, the Kahn level and critical path of its DAG; --plot draws the DAG (edges labelled with the parent's run time and, in brackets, the interval)
-- params: job: str
-- example: job=j_1
-- python: job_dag
-- reproduces: Alibaba co-location paper, Figures 2 and 3: the job-task-instance structure of one job (j_87) and the DAG of job j_2041 with its critical path highlighted (edge x -> y labelled with the run time of x)
-- cites: wang2020colocation
-- note: run_s = end_time - start_time, NULL when the end is unknown (end_time 0 or before the start, or status Running, Waiting or Ready); waiting_s = first instance start - start_time (section 4.3); interval_s = this task's first instance start - each parent's end, in the order of parent_task_ids (NULL where unknown). Parents that no task of the job has are listed in missing_parents and drawn as dashed ghost nodes; a self-dependency is flagged (self_dependent) and marked on its node, not walked as an edge. level = Kahn level over the usable edges (0 = no parent); tasks on or behind a cycle have no level and are drawn apart in red. on_critical_path: the chain of largest summed run time; NULL for every task when the job has a cycle or a DAG task with unknown run time (as ali-dag-timing skips such jobs); the plot title says why.
-- caveat: j_87 and j_2041 of the paper exist only in the whole trace; on the sample try job=j_1
-- plot: kind=dag; title=DAG of the job
SELECT task_id, parent_task_ids,
       duration_s::DOUBLE AS run_s
FROM alibaba2018.batch_task WHERE job_name = $job;
-- then:
WITH t AS (
    SELECT *, end_time_class = 'known' AS end_known
    FROM alibaba2018.batch_task WHERE job_name = $job
),
inst AS (
    SELECT task_name, count(*) AS instance_rows, count(DISTINCT instance_name) AS instances,
           min(start_time) FILTER (start_time_class = 'known') AS first_instance_start,
           count(DISTINCT machine_id) AS machines
    FROM alibaba2018.batch_instance WHERE job_name = $job GROUP BY task_name
),
ends AS (
    SELECT task_id, max(end_time) AS end_time, bool_and(end_known) AS end_known FROM t WHERE task_id IS NOT NULL
    GROUP BY task_id
),
intervals AS (
    SELECT t.task_name,
           list(CASE WHEN e.end_known AND i.first_instance_start IS NOT NULL
                     THEN i.first_instance_start - e.end_time END ORDER BY p.k) AS interval_s,
           list(p.parent ORDER BY p.k) FILTER (e.task_id IS NULL AND p.parent <> t.task_id) AS missing_parents
    FROM t
    CROSS JOIN LATERAL (SELECT unnest(t.parent_task_ids) AS parent, generate_subscripts(t.parent_task_ids, 1) AS k) AS p
    LEFT JOIN ends AS e ON e.task_id = p.parent
    LEFT JOIN inst AS i ON i.task_name = t.task_name
    GROUP BY t.task_name
)
SELECT
    t.job_name,
    t.task_name,
    CASE t.name_form WHEN 'dag' THEN t.task_kind WHEN 'independent' THEN 'no DAG (task_)'
                     WHEN 'merge_task' THEN 'no DAG (MergeTask)' ELSE 'unparsed name' END AS kind,
    t.task_id,
    t.parent_task_ids,
    coalesce(v.missing_parents, []::BIGINT[]) AS missing_parents,
    t.is_self_dependent AS self_dependent,
    t.status,
    t.start_time,
    t.end_time,
    t.duration_s AS run_s,
    t.instance_num AS planned_instances,
    coalesce(i.instances, 0) AS instances,
    coalesce(i.instance_rows, 0) AS instance_rows,
    coalesce(i.machines, 0) AS machines,
    i.first_instance_start,
    CASE WHEN t.start_time_class = 'known' THEN i.first_instance_start - t.start_time END AS waiting_s,
    v.interval_s,
    d.level,
    CASE WHEN t.task_id IS NULL THEN false ELSE d.on_critical_path END AS on_critical_path,
    coalesce(d.on_or_behind_cycle, false) AS on_or_behind_cycle
FROM t
LEFT JOIN inst AS i USING (task_name)
LEFT JOIN intervals AS v USING (task_name)
LEFT JOIN job_dag AS d ON d.task_id = t.task_id
ORDER BY d.level NULLS LAST, t.task_id NULLS LAST, t.task_name;
