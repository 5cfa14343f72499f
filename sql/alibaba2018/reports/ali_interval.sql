-- name: ali-interval
-- traces: alibaba2018
-- description: interval time between dependent tasks in the paper's two cases, a task with one parent and a task with several parents (interval from each parent and from the last parent to end), with the CDFs of the child's waiting time, the parent's execution time and the interval time per case
-- params: none
-- python: dag_paths
-- reproduces: Alibaba co-location paper, Figures 7 and 9: with one parent, interval and waiting time nearly coincide for short waits (about 3 s) and the interval matters less as waits grow; with several parents, the interval from an early parent includes the wait for the slowest one (e.g. 239 s in job j_2959) and tracks the waiting time
-- cites: wang2020colocation
-- note: as the paper defines them (sections 4.2 and 4.3): a task actually starts when its first instance starts; interval = child's actual start - parent's end (batch_task end_time); waiting = child's actual start - its start_time (registration in the job master); parent execution = parent end - parent start. Cases by the child's usable parents (existing, not itself; alibaba2018.dag_tasks): one parent | several parents; the paper's Figure 9 splits by job instead (case 1: every task of the job has at most one parent). Unknown times are left out, never taken as 0: start_time 0, end_time 0 or before the start, and a task still Running, Waiting or Ready has no known end (end_time_class of alibaba2018.batch_task). Jobs with a cycle are left out whole; intervals below 0 (the child starts before the parent ends) are counted, not put in the distribution. ali-dag-timing's edge interval measures from the child's registration instead. max_job = the job with the largest value (ties: the first job name).
-- caveat: the paper splits the cases by job, this report by task (see note); its figures are over the whole trace
-- plot: kind=quantiles; group=measure; panel_by=case; where=p50_s; title=Waiting, parent execution and interval time (CDF) by case; xlabel=seconds (log scale); ylabel=fraction; logx=true
SELECT job_name, task_id, parent_task_ids, run_s, times_known FROM alibaba2018.dag_tasks ORDER BY job_name, task_id;
-- then:
WITH tasks AS (
    -- one node per (job, task id): a task id named twice in a job takes its earliest start and latest end
    SELECT job_name, task_id,
           min(start_time) FILTER (start_time_class = 'known') AS registered,
           CASE WHEN bool_and(end_time_class = 'known') THEN max(end_time) END AS end_time,
           CASE WHEN bool_and(end_time_class = 'known') THEN max(duration_s) END AS run_s,
           list(task_name) AS task_names
    FROM alibaba2018.batch_task
    WHERE name_form = 'dag' AND job_name IN (SELECT job_name FROM dag_paths WHERE status <> 'cycle')
    GROUP BY job_name, task_id
),
first_start AS (
    SELECT job_name, task_name, min(start_time) AS t FROM alibaba2018.batch_instance
    WHERE start_time_class = 'known' GROUP BY job_name, task_name
),
nodes AS (
    SELECT t.job_name, t.task_id, t.registered, t.end_time, t.run_s, min(f.t) AS actual_start
    FROM tasks AS t
    LEFT JOIN first_start AS f ON f.job_name = t.job_name AND list_contains(t.task_names, f.task_name)
    GROUP BY ALL
),
children AS (
    SELECT d.job_name, d.task_id, d.parent_task_ids,
           CASE WHEN array_length(d.parent_task_ids) = 1 THEN 'one parent' ELSE 'several parents' END AS "case"
    FROM alibaba2018.dag_tasks AS d
    WHERE array_length(d.parent_task_ids) > 0 AND d.job_name IN (SELECT job_name FROM dag_paths WHERE status <> 'cycle')
),
edges AS (
    SELECT c.job_name, c.task_id, c."case", n.actual_start, n.registered, p.end_time AS parent_end, p.run_s AS parent_run_s
    FROM (SELECT job_name, task_id, "case", unnest(parent_task_ids) AS parent_task_id FROM children) AS c
    JOIN nodes AS n ON n.job_name = c.job_name AND n.task_id = c.task_id
    JOIN nodes AS p ON p.job_name = c.job_name AND p.task_id = c.parent_task_id
),
per_child AS (
    SELECT job_name, task_id, "case", any_value(actual_start) AS actual_start, any_value(registered) AS registered,
           CASE WHEN count(parent_end) = count(*) THEN max(parent_end) END AS last_parent_end
    FROM edges GROUP BY ALL
),
measures AS MATERIALIZED (
    -- read twice below (the summary, the quantiles' sort): computed once
    SELECT "case", 1 AS ord, 'waiting time' AS measure, (actual_start - registered)::DOUBLE AS v, job_name
    FROM per_child WHERE actual_start IS NOT NULL AND registered IS NOT NULL
    UNION ALL SELECT "case", 2, 'parent execution time', parent_run_s, job_name FROM edges WHERE parent_run_s IS NOT NULL
    UNION ALL SELECT "case", 3, 'interval time (each parent)', (actual_start - parent_end)::DOUBLE, job_name
    FROM edges WHERE actual_start IS NOT NULL AND parent_end IS NOT NULL
    UNION ALL SELECT "case", 4, 'interval time (last parent)', (actual_start - last_parent_end)::DOUBLE, job_name
    FROM per_child WHERE actual_start IS NOT NULL AND last_parent_end IS NOT NULL
),
cases(case_ord, "case") AS (VALUES (1, 'one parent'), (2, 'several parents')),
kinds(ord, measure) AS (VALUES (1, 'waiting time'), (2, 'parent execution time'), (3, 'interval time (each parent)'),
                               (4, 'interval time (last parent)')),
summary AS (
    SELECT c.case_ord, c."case", k.ord, k.measure,
           count(m.v) FILTER (m.v >= 0) AS n,
           count(m.v) FILTER (m.v < 0) AS below_zero_left_out,
           round(avg(m.v) FILTER (m.v >= 0), 3) AS mean_s,
           min(m.v) FILTER (m.v >= 0) AS min_s,
           max(m.v) FILTER (m.v >= 0) AS max_s,
           -- the largest value, ties to the first job name (a total order: the same job on every engine)
           arg_min(m.job_name, {'neg_v': -m.v, 'job': m.job_name}) FILTER (m.v >= 0) AS max_job
    FROM cases AS c CROSS JOIN kinds AS k
    LEFT JOIN measures AS m ON m."case" = c."case" AND m.ord = k.ord
    GROUP BY c.case_ord, c."case", k.ord, k.measure
),
-- The quantiles by a sort, not by quantile_cont (issue 13), as task-times does: quantile_cont keeps
-- every value of a group in an aggregate state that never spills, one state per quantile (6 x ~33 M
-- values at the whole trace's 4.2 M jobs: out of memory under 4GB); a sort spills. Same figures:
-- quantile_cont's interpolation, the value at rank (n - 1) * q (0-based) between the values at its
-- floor and ceiling ranks, lo + (rank - floor) * (hi - lo).
groups AS (SELECT case_ord, ord, n, row_number() OVER (ORDER BY case_ord, ord) AS gid FROM summary WHERE n > 0),
vals AS (
    SELECT g.gid, m.v
    FROM measures AS m JOIN cases AS c ON c."case" = m."case"
    JOIN groups AS g ON g.case_ord = c.case_ord AND g.ord = m.ord
    WHERE m.v >= 0
),
ranked AS (SELECT gid, v, row_number() OVER (PARTITION BY gid ORDER BY v) - 1 AS r FROM vals),
levels AS (
    -- the report's six levels, as percentages (x / 100 is the double quantile_cont was given)
    SELECT gid, l.x, (n - 1) * (l.x / 100) AS pos FROM groups, (VALUES (10), (25), (50), (75), (90), (99)) AS l(x)
),
picked AS (
    SELECT ranked.* FROM ranked
    SEMI JOIN (SELECT gid, floor(pos)::BIGINT AS r FROM levels
               UNION SELECT gid, ceil(pos)::BIGINT FROM levels) AS w USING (gid, r)
),
interpolated AS (
    SELECT l.gid, l.x, lo.v + (l.pos - floor(l.pos)) * (hi.v - lo.v) AS q
    FROM levels AS l
    JOIN picked AS lo ON lo.gid = l.gid AND lo.r = floor(l.pos)::BIGINT
    JOIN picked AS hi ON hi.gid = l.gid AND hi.r = ceil(l.pos)::BIGINT
),
quantiles AS (
    -- one row per group, a column per level
    SELECT gid,
           max(q) FILTER (x = 10) AS p10, max(q) FILTER (x = 25) AS p25, max(q) FILTER (x = 50) AS p50,
           max(q) FILTER (x = 75) AS p75, max(q) FILTER (x = 90) AS p90, max(q) FILTER (x = 99) AS p99
    FROM interpolated GROUP BY gid
)
SELECT s."case", s.measure, s.n, s.below_zero_left_out, s.mean_s, s.min_s,
       round(q.p10, 3) AS p10_s,
       round(q.p25, 3) AS p25_s,
       round(q.p50, 3) AS p50_s,
       round(q.p75, 3) AS p75_s,
       round(q.p90, 3) AS p90_s,
       round(q.p99, 3) AS p99_s,
       s.max_s, s.max_job
FROM summary AS s
LEFT JOIN groups AS g ON g.case_ord = s.case_ord AND g.ord = s.ord
LEFT JOIN quantiles AS q ON q.gid = g.gid
ORDER BY s.case_ord, s.ord;
