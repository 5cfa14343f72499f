-- name: ali-job-cdf
-- traces: alibaba2018
-- description: CDFs over DAG jobs of the job time, the critical path length and the communication time (job time - critical path), as one chart
-- params: none
-- python: dag_paths
-- reproduces: Alibaba co-location paper, Figure 8: job time and critical path CDFs are nearly straight up to about 500 s; communication time lies mostly within 0-25 s
-- cites: wang2020colocation
-- note: one value per DAG job whose every task has a known start and end (start_time 0, end_time 0 or before the start, and a task still Running, Waiting or Ready leave the job out) and no cycle; critical path by the DAG walk (warehouse/catalog/dag.py) as in ali-dag-timing, whose Table 8 summary (means, maxima) goes with this chart. Job time = latest task end - earliest task start. A job whose critical path exceeds its job time is counted in jobs_left_out, not drawn. value_s at each fraction = quantile_cont over the jobs.
-- caveat: only DAG jobs whose every task has a known start and end: jobs still running at the trace end are absent
-- plot: x=value_s; y=fraction; group=measure; kind=line; title=Job time, critical path and communication time (CDF over DAG jobs); xlabel=seconds (log scale); ylabel=fraction of jobs; logx=true
SELECT job_name, task_id, parent_task_ids, run_s, times_known FROM alibaba2018.dag_tasks ORDER BY job_name, task_id;
-- then:
WITH jobs AS (
    SELECT job_name, min(start_time) AS t0, max(end_time) AS t1,
           bool_and(start_time_class = 'known' AND end_time_class = 'known') AS times_known
    FROM alibaba2018.batch_task GROUP BY job_name
),
per_job AS (
    SELECT p.critical_path_s, (j.t1 - j.t0)::DOUBLE AS job_time_s
    FROM dag_paths AS p JOIN jobs AS j USING (job_name)
    WHERE p.status = 'ok' AND j.times_known
),
kept AS (SELECT * FROM per_job WHERE critical_path_s <= job_time_s),
measures(ord, measure, v) AS (
    SELECT 1, 'job time', job_time_s FROM kept
    UNION ALL SELECT 2, 'critical path', critical_path_s FROM kept
    UNION ALL SELECT 3, 'communication time', job_time_s - critical_path_s FROM kept
),
names(ord, measure) AS (VALUES (1, 'job time'), (2, 'critical path'), (3, 'communication time')),
curves AS (
    -- the same level list as below (quantile_cont wants it as a constant)
    SELECT n.ord, n.measure, count(m.v) AS jobs,
           quantile_cont(m.v, [0.0, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0]) AS qs
    FROM names AS n LEFT JOIN measures AS m USING (ord) GROUP BY n.ord, n.measure
),
levels AS (
    SELECT generate_subscripts(l, 1) AS i, unnest(l)::DOUBLE AS fraction
    FROM (SELECT [0.0, 0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0] AS l)
)
SELECT c.measure, l.fraction, round(c.qs[l.i], 3) AS value_s, c.jobs,
       (SELECT count(*) FROM per_job WHERE critical_path_s > job_time_s) AS jobs_left_out
FROM curves AS c, levels AS l
ORDER BY c.ord, l.fraction;
