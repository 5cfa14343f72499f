-- name: job-size
-- traces: with lifecycle_task_usage
-- description: how concentrated usage is: share of CPU-hours and memory-hours used by the top 0.01% / 0.1% / 1% / 10% of jobs, squared coefficient of variation, Pareto tail index
-- params: trace, cell
-- needs: task_usage (jobs, cpu, memory)
-- reproduces: Borg 2020 paper: the top 1% of jobs use 97.3% of CPU-hours and 98.6% of memory-hours in 2011 (99.2% / 99.1% in 2019); Pareto tail index ~0.69 (CPU) / 0.72 (memory) in 2019
-- cites: clusterdata:Tirmazi2020
-- note: job usage = sum over its usage windows of mean usage x window length / 3600 (normalised core-hours, memory-hours). C^2 = variance / mean^2 over jobs. Pareto index: Hill estimator over the top 1% of jobs (alpha = k / sum ln(x_i / x_(k+1))).
-- caveat: a job's usage is what its ingested usage windows hold: jobs crossing the window edges are truncated
-- plot: x=top_fraction; y=cpu,memory; kind=line; where=top_fraction; title=Share of usage by the largest jobs; xlabel=fraction of jobs (largest first, log scale); ylabel=share of usage; logx=true
WITH jobs AS (
    -- the windows summed per task and hour (derived.task_usage_hourly, windows of unknown length
    -- left out), a fraction of the windows to read
    SELECT cell, job_id, sum(cpu_s) / 3600 AS cpu, sum(memory_s) / 3600 AS memory
    FROM derived.task_usage_hourly
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
    GROUP BY ALL
),
ranked AS (
    SELECT cpu, memory,
           row_number() OVER (ORDER BY cpu DESC) AS cpu_rank,
           row_number() OVER (ORDER BY memory DESC) AS mem_rank,
           count(*) OVER () AS n
    FROM jobs
),
levels(label, top_fraction) AS (VALUES ('0.01%', 0.0001::DOUBLE), ('0.1%', 0.001), ('1%', 0.01), ('10%', 0.1),
                                     ('50%', 0.5), ('100%', 1.0)),
shares AS (
    SELECT l.label, l.top_fraction,
           greatest(1, ceil(l.top_fraction * max(r.n)))::BIGINT AS jobs,
           sum(r.cpu) FILTER (r.cpu_rank <= greatest(1, ceil(l.top_fraction * r.n))) / nullif(sum(r.cpu), 0) AS cpu,
           sum(r.memory) FILTER (r.mem_rank <= greatest(1, ceil(l.top_fraction * r.n))) / nullif(sum(r.memory), 0) AS memory
    FROM levels AS l, ranked AS r
    GROUP BY l.label, l.top_fraction
),
hill AS (
    -- k = top 1% (at least 1); threshold = the (k+1)-th largest value
    SELECT
        (SELECT greatest(1, floor(0.01 * count(*)))::BIGINT FROM jobs) AS k
),
tail AS (
    SELECT
        k / nullif(sum(ln(r.cpu / t.cpu_k)) FILTER (r.cpu_rank <= k AND r.cpu > 0), 0) AS cpu_alpha,
        k / nullif(sum(ln(r.memory / t.mem_k)) FILTER (r.mem_rank <= k AND r.memory > 0), 0) AS memory_alpha
    FROM ranked AS r, hill,
         (SELECT max(cpu) FILTER (cpu_rank = (SELECT k FROM hill) + 1) AS cpu_k,
                 max(memory) FILTER (mem_rank = (SELECT k FROM hill) + 1) AS mem_k FROM ranked) AS t
    GROUP BY k
),
published(label, cpu_2011, memory_2011, cpu_2019, memory_2019) AS (VALUES ('1%', 0.973, 0.986, 0.992, 0.991))
SELECT 'share of the top ' || s.label || ' of jobs' AS metric,
       s.top_fraction, s.jobs, round(s.cpu, 4) AS cpu, round(s.memory, 4) AS memory,
       p.cpu_2011 AS published_cpu_2011, p.memory_2011 AS published_memory_2011,
       p.cpu_2019 AS published_cpu_2019, p.memory_2019 AS published_memory_2019
FROM shares AS s LEFT JOIN published AS p USING (label)
UNION ALL
SELECT 'jobs with usage', NULL, count(*), round(sum(cpu), 3), round(sum(memory), 3), NULL, NULL, NULL, NULL FROM jobs
UNION ALL
SELECT 'squared coefficient of variation', NULL, count(*),
       round(var_pop(cpu) / nullif(avg(cpu) ^ 2, 0), 4), round(var_pop(memory) / nullif(avg(memory) ^ 2, 0), 4),
       NULL, NULL, NULL, NULL FROM jobs
UNION ALL
SELECT 'Pareto tail index (Hill, top 1%)', NULL, (SELECT k FROM hill), round(cpu_alpha, 4), round(memory_alpha, 4),
       NULL, NULL, 0.69, 0.72 FROM tail
ORDER BY top_fraction NULLS LAST, metric;
