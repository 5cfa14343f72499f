-- name: cpu-by-runtime
-- traces: with lifecycle_task_events, lifecycle_task_usage
-- description: the share of CPU (and memory) used by run attempts of each execution-time class, and by short-lived against long-running attempts
-- params: trace, cell, short_s: int > 0 = 300
-- needs: task_usage (attempts, cpu_core_hours, cpu_share, memory_share), task_events
-- reproduces: "10 Observations on Google Cluster Trace", Figure 11: short-lived tasks use a tiny portion of the total CPU (long-running tasks use most of it)
-- cites: zhu2015observations
-- note: usage = sum over task usage windows of mean usage x window length (core-hours, memory-hours), given to the run attempt (lifecycle.task_episodes) of the same task that was running when the window started (summed per attempt at ingest: lifecycle.attempt_usage); windows outside every attempt have their own row. The class is the attempt's execution time (SCHEDULE -> end event); a censored attempt (scheduled before the window, or still running at its end) is classed by the part observed (observed_run_s of lifecycle.task_episodes, clipped to the observed time), as a lower bound ('at least'). attempts = the run attempts with usage in the class. Short-lived = execution time known and < short_s (default 300 s, the usage sampling period); long-running = known >= short_s or observed >= short_s; the rest of the censored attempts are undetermined.
-- caveat: the paper does not give its short-lived bound (short_s, default 300 s); on a slice most long-running services are censored and count as 'at least' the part observed
-- plot: x=class; y=cpu_share,memory_share; kind=bar; where=section:by execution time; title=Share of CPU and memory used by execution-time class; xlabel=execution time of the run attempt; ylabel=share of the usage
-- the execution-time classes (their bounds, in seconds, are the CASE of classed)
WITH classes(ord, label) AS (VALUES
    (1, '< 5 min'), (2, '5-30 min'), (3, '30 min - 1 h'), (4, '1-6 h'), (5, '6-24 h'), (6, '>= 1 day')
),
attempts AS (
    -- the attempts that ran, with their execution-time class's inputs
    SELECT cell, job_id, task_index, episode_no, run_s IS NOT NULL AS known, coalesce(run_s, observed_run_s) AS length_s
    FROM derived.task_episodes WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND ran
),
eventless AS (
    -- The windows of tasks without a task event: every window (derived.task_usage_hourly) less
    -- those of the tasks with one (derived.attempt_usage_hourly holds each of their windows once), by
    -- count (exact) and by sum; no join of every task-hour to the tasks.
    SELECT every.windows - coalesce(held.windows, 0) AS windows,
           every.cpu_s - coalesce(held.cpu_s, 0) AS cpu_s, every.memory_s - coalesce(held.memory_s, 0) AS memory_s
    FROM (SELECT sum(windows) AS windows, fsum(cpu_s) AS cpu_s, fsum(memory_s) AS memory_s
          FROM derived.task_usage_hourly WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)) AS every,
         (SELECT sum(windows) AS windows, fsum(cpu_s) AS cpu_s, fsum(memory_s) AS memory_s
          FROM derived.attempt_usage_hourly WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)) AS held
),
usage AS (
    -- the windows summed per attempt (derived.attempt_usage: a window belongs to the attempt running
    -- when it starts, from its SCHEDULE, or scheduled before the data from the start, to its end
    -- event, or with none to the next attempt; episode_no NULL outside every attempt; one row per
    -- attempt), and the windows of tasks without a task event, outside every attempt
    SELECT cell, job_id, task_index, episode_no, cpu_s / 3600 AS cpu_h, memory_s / 3600 AS mem_h
    FROM derived.attempt_usage
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, e.cpu_s / 3600, e.memory_s / 3600
    FROM eventless AS e WHERE e.windows > 0
),
attributed AS (
    SELECT u.cpu_h, u.mem_h, a.known, a.length_s, a.episode_no IS NULL AS unmatched
    FROM usage AS u
    LEFT JOIN attempts AS a
        ON a.cell IS NOT DISTINCT FROM u.cell AND a.job_id = u.job_id AND a.task_index = u.task_index
       AND a.episode_no = u.episode_no
),
classed AS (
    SELECT x.*,
           -- the class (classes.ord) of the execution time, [lower, upper) in seconds: a CASE per row,
           -- not a range join with the classes (which sorts every attempt by its length)
           CASE WHEN x.length_s < 0 THEN NULL WHEN x.length_s < 300 THEN 1 WHEN x.length_s < 1800 THEN 2
                WHEN x.length_s < 3600 THEN 3 WHEN x.length_s < 21600 THEN 4 WHEN x.length_s < 86400 THEN 5
                WHEN x.length_s < 1e18 THEN 6 END AS ord,
           CASE WHEN x.unmatched THEN 'undetermined'
                WHEN x.known AND x.length_s < $short_s THEN 'short-lived'
                WHEN x.length_s >= $short_s THEN 'long-running'
                ELSE 'undetermined' END AS kind
    FROM attributed AS x
),
grouped AS (
    SELECT coalesce(ord, 0) AS ord, known OR unmatched AS known, unmatched, kind,
           -- a usage row matched to an attempt is that attempt's only row (derived.attempt_usage)
           count(*) FILTER (WHERE NOT unmatched) AS attempts, sum(cpu_h) AS cpu_h, sum(mem_h) AS mem_h
    FROM classed GROUP BY ALL
),
-- every class of known length is listed (0 when empty); censored classes and stray usage when present
grid AS (
    SELECT ord, label, true AS known, false AS unmatched FROM classes
    UNION SELECT g.ord, c.label, g.known, g.unmatched FROM grouped AS g LEFT JOIN classes AS c USING (ord)
),
kinds(o, kind) AS (VALUES (1, 'short-lived'), (2, 'long-running'), (3, 'undetermined')),
rows AS (
    SELECT 'by execution time' AS section,
           CASE WHEN x.unmatched THEN '(usage outside every run attempt)'
                ELSE x.label || CASE WHEN x.known THEN '' ELSE ' (censored: at least)' END END AS class,
           x.ord * 2 + CASE WHEN x.known THEN 0 ELSE 1 END AS o,
           sum(g.attempts) AS attempts, sum(g.cpu_h) AS cpu_h, sum(g.mem_h) AS mem_h
    FROM grid AS x
    LEFT JOIN grouped AS g ON g.ord = x.ord AND g.known = x.known AND g.unmatched = x.unmatched
    GROUP BY ALL
    UNION ALL
    SELECT 'short vs long', k.kind || CASE k.kind WHEN 'short-lived' THEN ' (< ' WHEN 'long-running' THEN ' (>= '
                                                 ELSE ' (censored, observed < ' END || $short_s || ' s)',
           100 + k.o, sum(g.attempts), sum(g.cpu_h), sum(g.mem_h)
    FROM kinds AS k LEFT JOIN grouped AS g USING (kind) GROUP BY ALL
)
SELECT r.section, r.class, coalesce(r.attempts, 0) AS attempts, round(coalesce(r.cpu_h, 0), 6) AS cpu_core_hours,
       round(coalesce(r.cpu_h, 0) / nullif(t.cpu_h, 0), 4) AS cpu_share,
       round(coalesce(r.mem_h, 0) / nullif(t.mem_h, 0), 4) AS memory_share
-- the totals from the few groups: every usage row is read once (a second reader of classed would
-- keep a row per attempt for a second pass)
FROM rows AS r, (SELECT sum(cpu_h) AS cpu_h, sum(mem_h) AS mem_h FROM grouped) AS t
ORDER BY r.o, r.class;
