-- name: arrivals
-- traces: with lifecycle_job_events, lifecycle_task_events
-- description: jobs submitted per hour (median, mean, spread) and the ratio of task resubmissions to new task submissions
-- params: trace, cell
-- needs: job_events, task_events
-- reproduces: Borg 2020 paper ("Borg: the next generation"): median 885 jobs/hour in 2011 (3,309 in 2019); resubmitted:new task ratio 0.66:1 in 2011 (2.26:1 in 2019)
-- cites: clusterdata:Tirmazi2020
-- note: a job arrival is the first SUBMIT of a job (lifecycle.hourly_job_arrivals); an hour counts when the ingested job events observe it whole (lifecycle.job_observed_segments: an hour inside or across a missing part, or only partly covered at the edges of the data, is not observed, not an hour with 0 arrivals), empty observed ones as 0; with several cells, a cell-hour is one observation. Resubmissions = SUBMITs of a task after its first. 2019: jobs only (alloc sets left out).
-- caveat: jobs submitted before the window (time 0) arrive in no hour; on a slice the hourly rate is of that slice only. The resubmitted : new ratio is not the Borg 2020 paper's definition, which our sources do not give: this report's (a task's SUBMITs after its first / tasks with a SUBMIT) gives 0.903 on the whole 2011 trace (the 10-observations paper's totals: 48,375,166 submissions, 25,424,731 new), not the published 0.66, so the two figures differ in definition and are not comparable
WITH per_hour AS (
    SELECT jobs FROM lifecycle.hourly_job_arrivals
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
before_window AS (
    SELECT count(DISTINCT (cell, job_id)) AS jobs FROM lifecycle.job_events
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND event_type_name = 'SUBMIT' AND time = 0
),
tasks AS (
    -- no task events: unknown, not 0 (the footer names the table to ingest)
    SELECT CASE WHEN count(*) > 0 THEN count(*) FILTER (submits > 0) END AS new_tasks,
           sum(greatest(submits - 1, 0)) AS resubmissions
    FROM derived.tasks WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
rows(ord, metric, value, published_2011, published_2019) AS (
    SELECT 1, 'hours observed (whole)', count(*)::DOUBLE, NULL, NULL FROM per_hour
    UNION ALL SELECT 2, 'jobs submitted in the observed hours', sum(jobs), NULL, NULL FROM per_hour
    UNION ALL SELECT 3, 'jobs submitted before the window (time 0)', jobs, NULL, NULL FROM before_window
    UNION ALL SELECT 4, 'jobs per hour: median', median(jobs), 885, 3309 FROM per_hour
    UNION ALL SELECT 5, 'jobs per hour: mean', round(avg(jobs), 2), NULL, NULL FROM per_hour
    UNION ALL SELECT 6, 'jobs per hour: p10', quantile_cont(jobs, 0.1), NULL, NULL FROM per_hour
    UNION ALL SELECT 7, 'jobs per hour: p90', quantile_cont(jobs, 0.9), NULL, NULL FROM per_hour
    UNION ALL SELECT 8, 'jobs per hour: max', max(jobs), NULL, NULL FROM per_hour
    UNION ALL SELECT 9, 'new task submissions', new_tasks, NULL, NULL FROM tasks
    UNION ALL SELECT 10, 'task resubmissions', resubmissions, NULL, NULL FROM tasks
    UNION ALL SELECT 11, 'resubmitted : new tasks', round(resubmissions / nullif(new_tasks, 0), 4), 0.66, 2.26 FROM tasks
)
SELECT metric, round(value, 4) AS value, published_2011, published_2019 FROM rows ORDER BY ord;
