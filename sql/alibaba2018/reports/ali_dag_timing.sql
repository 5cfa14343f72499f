-- name: ali-dag-timing
-- traces: alibaba2018
-- description: per DAG job the critical path (longest chain of task run times), job time and communication time = job time - critical path; per edge the interval time (child start - parent end); per task the waiting time (first instance start - task start)
-- params: none
-- python: dag_paths
-- reproduces: Alibaba co-location paper, Table 8: critical path mean 134.97 s (71.20% of job time), communication mean 54.59 s (28.80%); max critical path 175,453 s and max job time 175,460 s (job j_2724077); max communication 4,691 s
-- cites: wang2020colocation
-- note: the critical path walks the DAG of alibaba2018.dag_tasks (Kahn's algorithm, warehouse/catalog/dag.py); jobs with a cycle, or a task whose start or end is unknown (start 0, end 0, end before start, or status Running / Waiting / Ready: not ended), are not timed and are counted (jobs: ...). Edges to missing parents and self-loops are not DAG edges; the edges of cyclic jobs stay out of the interval distribution. Job time = latest end - earliest start of the job's tasks. Anomalies are left out of the distributions and counted in their own rows (examples: ali-dag-anomalies): edges whose child starts before its parent ends (negative interval) and jobs whose critical path exceeds the job time (negative communication). max_job = the job with the largest value (ties: the first job name).
-- caveat: only jobs whose every task has known times are timed: read jobs: unknown_times beside n
-- plot: kind=quantiles; group=measure; where=p50_s; title=DAG timing (CDF over jobs / edges / tasks); xlabel=seconds (log scale); ylabel=fraction; logx=true; ref=vline@134.97:paper: mean critical path 134.97 s|vline@54.59:paper: mean communication 54.59 s
SELECT job_name, task_id, parent_task_ids, run_s, times_known FROM alibaba2018.dag_tasks ORDER BY job_name, task_id;
-- then:
WITH t AS MATERIALIZED (
    -- the task names are parsed once for the job times and the edges
    SELECT job_name, task_name, task_id, parent_task_ids, name_form, start_time, end_time,
           start_time_class, end_time_class
    FROM alibaba2018.batch_task
),
jobs AS (
    SELECT job_name, min(start_time) FILTER (start_time > 0) AS t0, max(end_time) FILTER (end_time > 0) AS t1
    FROM t GROUP BY job_name
),
timed AS (
    SELECT p.job_name, p.critical_path_s, (j.t1 - j.t0)::DOUBLE AS job_time_s,
           (j.t1 - j.t0) - p.critical_path_s AS communication_s
    FROM dag_paths AS p JOIN jobs AS j USING (job_name) WHERE p.status = 'ok'
),
-- a critical path longer than the job is an anomaly (tasks overlapping their parents), not a job
per_job AS (SELECT * FROM timed WHERE communication_s >= 0),
dag AS (SELECT * FROM t WHERE name_form = 'dag'),
all_edges AS (
    -- the edges of task_edges whose parent exists and is not the task itself, with known times,
    -- in jobs without a cycle
    SELECT c.job_name, (c.start_time - p.end_time)::DOUBLE AS interval_s
    FROM (SELECT DISTINCT job_name, task_id, unnest(parent_task_ids) AS parent_task_id, start_time, start_time_class
          FROM dag) AS c
    JOIN dag AS p ON p.job_name = c.job_name AND p.task_id = c.parent_task_id
    WHERE c.parent_task_id <> c.task_id AND c.start_time_class = 'known' AND p.end_time_class = 'known'
      AND c.job_name NOT IN (SELECT job_name FROM dag_paths WHERE status = 'cycle')
),
edges AS (SELECT * FROM all_edges WHERE interval_s >= 0),
waits AS (
    SELECT t.job_name, (i.first_start - t.start_time)::DOUBLE AS waiting_s
    FROM t
    JOIN (SELECT job_name, task_name, min(start_time) AS first_start FROM alibaba2018.batch_instance
          WHERE start_time > 0 GROUP BY job_name, task_name) AS i
      ON i.job_name = t.job_name AND i.task_name = t.task_name
    WHERE t.start_time > 0
),
measures AS (
    SELECT 1 AS ord, 'critical path' AS measure, critical_path_s AS v, job_name FROM per_job
    UNION ALL SELECT 2, 'job time', job_time_s, job_name FROM per_job
    UNION ALL SELECT 3, 'communication time', communication_s, job_name FROM per_job
    UNION ALL SELECT 4, 'edge interval time', interval_s, job_name FROM edges
    UNION ALL SELECT 5, 'task waiting time', waiting_s, job_name FROM waits
),
summary AS (
    SELECT ord, measure, count(v) AS n, round(avg(v), 3) AS mean_s,
           round(quantile_cont(v, 0.1), 3) AS p10_s, round(quantile_cont(v, 0.5), 3) AS p50_s,
           round(quantile_cont(v, 0.9), 3) AS p90_s, round(quantile_cont(v, 0.99), 3) AS p99_s,
           max(v) AS max_s,
           -- the largest value, ties to the first job name (a total order: the same job on every engine)
           arg_min(job_name, {'neg_v': -v, 'job': job_name}) FILTER (v IS NOT NULL) AS max_job, meta.cdf(v) AS _cdf
    FROM measures GROUP BY ord, measure
),
shares AS (
    SELECT avg(critical_path_s) / nullif(avg(job_time_s), 0) AS cp, avg(communication_s) / nullif(avg(job_time_s), 0) AS comm
    FROM per_job
),
published(measure, published_mean_s, published_share, published_max_s) AS (VALUES
    ('critical path', 134.97, 0.7120, 175453), ('communication time', 54.59, 0.2880, 4691), ('job time', NULL, NULL, 175460)
),
statuses AS (
    SELECT 10 + row_number() OVER (ORDER BY status) AS ord, 'jobs: ' || status AS measure, count(*) AS n
    FROM dag_paths GROUP BY status
    UNION ALL
    SELECT 20, 'jobs: critical path > job time (left out)', count(*) FROM timed WHERE communication_s < 0
    UNION ALL
    SELECT 21, 'edges: child starts before parent ends (left out)', count(*) FROM all_edges WHERE interval_s < 0
)
SELECT s.measure, s.n, s.mean_s,
       round(CASE s.measure WHEN 'critical path' THEN sh.cp WHEN 'communication time' THEN sh.comm END, 4) AS share_of_job_time,
       s.p10_s, s.p50_s, s.p90_s, s.p99_s, s.max_s, s.max_job,
       p.published_mean_s, p.published_share, p.published_max_s, s._cdf
FROM summary AS s, shares AS sh LEFT JOIN published AS p ON p.measure = s.measure
UNION ALL
SELECT measure, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM statuses
ORDER BY 1 ASC;
