-- name: ali-hierarchy
-- traces: alibaba2018
-- description: jobs, tasks and instances (Table 2); tasks and instance schedulings by DAG class (Tables 4 and 5); mean instances per task by class (Table 6)
-- params: none
-- reproduces: Alibaba co-location paper, Tables 2, 4, 5, 6: ~4.2M jobs (4,201,014), 14,295,731 tasks, 1,351,255,775 instances; no-DAG 15.98% of tasks, DAG with dependencies 47.07%; 96.91% of instance schedulings belong to DAG tasks
-- cites: wang2020colocation
-- note: class from the task name: no_dag (task_<base64>, MergeTask), dag_root (DAG task without dependency), dag_dependent; unparsable names in their own row. Instance schedulings = batch_instance rows; instances per task = instance_num of batch_task.
-- caveat: the shares are of the ingested rows; the published counts are for the whole trace
WITH tasks AS (
    SELECT coalesce(dag_class, 'unparsed name') AS class, count(*) AS tasks, sum(instance_num) AS planned_instances
    FROM alibaba2018.batch_task GROUP BY 1
),
instances AS (
    SELECT coalesce(dag_class, 'unparsed name') AS class, count(*) AS instances
    FROM alibaba2018.batch_instance GROUP BY 1
),
classes AS (
    -- every class is listed, a class with no task too (0 is an answer)
    SELECT class FROM (VALUES ('no_dag'), ('dag_root'), ('dag_dependent')) AS c(class)
    UNION SELECT class FROM tasks UNION SELECT class FROM instances
),
published(class, task_share, instance_share) AS (VALUES
    ('no_dag', 0.1598, 0.0309), ('dag_dependent', 0.4707, NULL), ('dag_root', 0.3695, NULL)
)
SELECT 'jobs' AS level, NULL AS class, (SELECT count(DISTINCT job_name) FROM alibaba2018.batch_task) AS count,
       NULL::DOUBLE AS share, NULL::DOUBLE AS instances_per_task, 4201014 AS published_count, NULL::DOUBLE AS published_share
UNION ALL
SELECT 'tasks', NULL, (SELECT sum(tasks) FROM tasks), NULL, NULL, 14295731, NULL
UNION ALL
SELECT 'instances', NULL, (SELECT sum(instances) FROM instances), NULL, NULL, 1351255775, NULL
UNION ALL
SELECT 'tasks by class', c.class, coalesce(t.tasks, 0), round(coalesce(t.tasks, 0) / (SELECT sum(tasks) FROM tasks), 4),
       round(t.planned_instances / t.tasks, 3), NULL, p.task_share
FROM classes AS c LEFT JOIN tasks AS t USING (class) LEFT JOIN published AS p USING (class)
UNION ALL
SELECT 'instances by class', c.class, coalesce(i.instances, 0),
       round(coalesce(i.instances, 0) / (SELECT sum(instances) FROM instances), 4), NULL, NULL, p.instance_share
FROM classes AS c LEFT JOIN instances AS i USING (class) LEFT JOIN published AS p USING (class)
ORDER BY level DESC, class NULLS FIRST;
