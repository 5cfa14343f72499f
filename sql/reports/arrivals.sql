-- name: arrivals
-- traces: google2011
-- description: jobs submitted per hour (median, mean, spread) and the ratio of task resubmissions to new task submissions
-- params: trace
-- reproduces: Borg 2020 paper ("Borg: the next generation"): median 885 jobs/hour in 2011 (3,309 in 2019); resubmitted:new task ratio 0.66:1 in 2011 (2.26:1 in 2019)
-- note: a job arrival is the first SUBMIT of a job (lifecycle.job_events); hours are whole hours since the trace start with at least one event in the data, empty hours count as 0. Resubmissions = SUBMITs of a task after its first.
WITH first_submit AS (
    SELECT cell, job_id, min(time) AS t
    FROM lifecycle.job_events
    WHERE trace = $trace AND event_type_name = 'SUBMIT'
    GROUP BY ALL
),
span AS (
    SELECT min(time) FILTER (time > 0) AS t0, max(time) FILTER (time < 9223372036854775807) AS t1
    FROM lifecycle.job_events WHERE trace = $trace
),
hours AS (
    SELECT h FROM span, range(((t0 - 600000000) // 3600000000)::BIGINT, ((t1 - 600000000) // 3600000000)::BIGINT + 1) AS r(h)
),
per_hour AS (
    SELECT hours.h, count(f.job_id) AS jobs
    FROM hours
    LEFT JOIN first_submit AS f
        ON f.t > 0 AND f.t < 9223372036854775807 AND (f.t - 600000000) // 3600000000 = hours.h
    GROUP BY hours.h
),
tasks AS (
    SELECT count(*) FILTER (submits > 0) AS new_tasks, sum(greatest(submits - 1, 0)) AS resubmissions
    FROM lifecycle.tasks WHERE trace = $trace
),
rows(ord, metric, value, published_2011, published_2019) AS (
    SELECT 1, 'hours observed', count(*), NULL, NULL FROM per_hour
    UNION ALL SELECT 2, 'jobs submitted in the window', sum(jobs), NULL, NULL FROM per_hour
    UNION ALL SELECT 3, 'jobs submitted before the window (time 0)', (SELECT count(*) FROM first_submit WHERE t = 0), NULL, NULL
    UNION ALL SELECT 4, 'jobs per hour: median', median(jobs), 885, 3309 FROM per_hour
    UNION ALL SELECT 5, 'jobs per hour: mean', round(avg(jobs), 2), NULL, NULL FROM per_hour
    UNION ALL SELECT 6, 'jobs per hour: p10', quantile_cont(jobs, 0.1), NULL, NULL FROM per_hour
    UNION ALL SELECT 7, 'jobs per hour: p90', quantile_cont(jobs, 0.9), NULL, NULL FROM per_hour
    UNION ALL SELECT 8, 'jobs per hour: max', max(jobs), NULL, NULL FROM per_hour
    UNION ALL SELECT 9, 'new task submissions', new_tasks, NULL, NULL FROM tasks
    UNION ALL SELECT 10, 'task resubmissions', resubmissions, NULL, NULL FROM tasks
    UNION ALL SELECT 11, 'resubmitted : new tasks', round(resubmissions / nullif(new_tasks, 0), 4), 0.66, 2.26 FROM tasks
)
SELECT metric, value, published_2011, published_2019 FROM rows ORDER BY ord;
