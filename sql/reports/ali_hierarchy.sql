-- name: ali-hierarchy
-- traces: with batch_tasks, batch_instances
-- description: jobs, tasks and instances (Table 2); tasks and instance schedulings by DAG class (Tables 4 and 5); mean instances per task by class (Table 6)
-- params: trace
-- reproduces: Alibaba co-location paper, Tables 2, 4, 5, 6: ~4.2M jobs (4,201,014), 14,295,731 tasks, 1,351,255,775 instances; no-DAG 15.98% of tasks, DAG with dependencies 47.07%; 96.91% of instance schedulings belong to DAG tasks
-- cites: wang2020colocation
-- note: class = the dag_class of the trace's batch_tasks adapter, in the trace's own words (its adapter file says what they mean; the paper's: no_dag, dag_root, dag_dependent). Instance schedulings = batch_instances rows; instances per task = instance_num of batch_tasks. Published figures from the trace's batch_published (none: NULL); every class published is listed, one with no task too.
-- caveat: the shares are of the ingested rows; the published counts are for the whole trace
WITH tasks AS (
    SELECT dag_class AS class, count(*) AS tasks, sum(instance_num) AS planned_instances
    FROM {{union batch_tasks}} WHERE trace = $trace GROUP BY 1
),
instances AS (
    SELECT dag_class AS class, count(*) AS instances
    FROM {{union batch_instances}} WHERE trace = $trace GROUP BY 1
),
published AS (SELECT level, class, published_count, published_share FROM {{union batch_published}} WHERE trace = $trace),
classes AS (
    -- every published class is listed, a class with no task too (0 is an answer)
    SELECT class FROM published WHERE class IS NOT NULL
    UNION SELECT class FROM tasks UNION SELECT class FROM instances
),
levels(level) AS (VALUES ('jobs'), ('tasks'), ('instances')),
counts AS (
    SELECT 'jobs' AS level, (SELECT count(DISTINCT job_name) FROM {{union batch_tasks}} WHERE trace = $trace) AS count
    UNION ALL SELECT 'tasks', (SELECT sum(tasks) FROM tasks)
    UNION ALL SELECT 'instances', (SELECT sum(instances) FROM instances)
)
SELECT l.level, NULL AS class, c.count, NULL::DOUBLE AS share, NULL::DOUBLE AS instances_per_task,
       p.published_count, NULL::DOUBLE AS published_share
FROM levels AS l JOIN counts AS c USING (level) LEFT JOIN published AS p ON p.level = l.level AND p.class IS NULL
UNION ALL
SELECT 'tasks by class', c.class, coalesce(t.tasks, 0), round(coalesce(t.tasks, 0) / (SELECT sum(tasks) FROM tasks), 4),
       round(t.planned_instances / t.tasks, 3), NULL, p.published_share
FROM classes AS c LEFT JOIN tasks AS t USING (class)
LEFT JOIN published AS p ON p.level = 'tasks by class' AND p.class = c.class
UNION ALL
SELECT 'instances by class', c.class, coalesce(i.instances, 0),
       round(coalesce(i.instances, 0) / (SELECT sum(instances) FROM instances), 4), NULL, NULL, p.published_share
FROM classes AS c LEFT JOIN instances AS i USING (class)
LEFT JOIN published AS p ON p.level = 'instances by class' AND p.class = c.class
ORDER BY level DESC, class NULLS FIRST;
