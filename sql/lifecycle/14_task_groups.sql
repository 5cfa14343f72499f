-- name: lifecycle.task_groups
-- description: the tasks of every Google trace as the usage reports join them: a job whose tasks hold every task index of one range and share their last known priority tier, production flag and requests is one row for all of them (whole_job); the tasks of any other job are a row each.
-- grain: one row per (trace, cell, job_id, first_index): a whole job, or one task (first_index = last_index = its task_index)
-- note: the attributes are lifecycle.tasks' (a task's last known values); NULL counts as one value, so a job whose tasks all lack a request is still whole. A report joins its task-hours to the whole jobs on the job and the task index's range (a table of one row per job: hundreds of thousands of rows where the tasks are tens of millions, so the join's table stays in memory) and the rest to the single tasks on the task: every task-hour meets the same attributes a join to lifecycle.tasks gives it, and a task that lifecycle.tasks does not hold meets none (the range holds only tasks it holds).
CREATE OR REPLACE VIEW lifecycle.task_groups AS
WITH jobs AS (
    SELECT trace, cell, job_id,
           min(task_index) AS first_index, max(task_index) AS last_index,
           -- every index of the range held, and per attribute one value in every task or none in any
           -- (min = max: no distinct-value sets to build)
           -- (min + count - 1 <= max always, the indexes being distinct: no overflow at the largest index)
           min(task_index) + (count(task_index) - 1) = max(task_index)
           AND (count(priority_tier) = 0 OR (count(priority_tier) = count(task_index) AND min(priority_tier) = max(priority_tier)))
           AND (count(is_production) = 0 OR (count(is_production) = count(task_index) AND min(is_production) = max(is_production)))
           AND (count(cpu_request) = 0 OR (count(cpu_request) = count(task_index) AND min(cpu_request) = max(cpu_request)))
           AND (count(memory_request) = 0 OR (count(memory_request) = count(task_index) AND min(memory_request) = max(memory_request)))
           AS whole_job,
           min(priority_tier) AS priority_tier, min(is_production) AS is_production,
           min(cpu_request) AS cpu_request, min(memory_request) AS memory_request
    FROM lifecycle.tasks
    GROUP BY trace, cell, job_id
)
SELECT trace, cell, job_id, first_index, last_index, true AS whole_job,
       priority_tier, is_production, cpu_request, memory_request
FROM jobs WHERE whole_job
UNION ALL
SELECT t.trace, t.cell, t.job_id, t.task_index, t.task_index, false,
       t.priority_tier, t.is_production, t.cpu_request, t.memory_request
FROM lifecycle.tasks AS t
JOIN jobs AS j ON j.trace = t.trace AND j.cell IS NOT DISTINCT FROM t.cell AND j.job_id = t.job_id
WHERE NOT j.whole_job;

COMMENT ON VIEW lifecycle.task_groups IS 'The tasks as the usage reports join them: one row per job whose tasks hold one whole range of task indexes with the same tier, production flag and requests (whole_job), else one row per task';
COMMENT ON COLUMN lifecycle.task_groups.first_index IS 'The first task index of the row: the job''s lowest (whole_job) or the task''s';
COMMENT ON COLUMN lifecycle.task_groups.last_index IS 'The last task index of the row: every index from first_index to it is a task of lifecycle.tasks';
COMMENT ON COLUMN lifecycle.task_groups.whole_job IS 'true: the row stands for every task of its job; false: for one task (first_index = last_index)';
