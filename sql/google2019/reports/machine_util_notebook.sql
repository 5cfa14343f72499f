-- name: machine-util-notebook
-- traces: google2019
-- description: the distribution of per-machine CPU and memory utilisation over machine x 5-minute windows, capped at 1, by the official clusterdata 2019 example notebook's definition (its "per machine resource usage distribution")
-- params: trace, cell
-- reproduces: the official clusterdata 2019 example notebook (clusterdata_analysis_colab.ipynb): per-machine utilisation CDF, one value per machine and 5-minute window
-- note: as the notebook computes it: usage windows at least 5 minutes long of the instances outside alloc sets (alloc_collection_id NULL or 0), placed in the 5-minute window of their start; per machine and window, the sum of their mean usage over the machine's largest capacity, capped at 1 (a machine with no capacity, or capacity 0, has no value); quantiles by linear interpolation over every machine-window (the notebook's APPROX_QUANTILES are approximate). machines' utilisation section is a different measure (each machine's mean over its windows, uncapped).
-- caveat: a window counts in the 5 minutes it starts in whatever its length, as in the notebook
WITH capacity AS (
    SELECT cell, machine_id, max(capacity_cpus) AS cpu_cap, max(capacity_memory) AS memory_cap
    FROM google2019.machine_events WHERE $cell IS NULL OR cell = $cell
    GROUP BY cell, machine_id
),
usage AS (
    SELECT cell, start_time // meta.time_units($trace, 300) AS window_index, machine_id,
           sum(average_cpus) AS cpu, sum(average_memory) AS memory
    FROM google2019.instance_usage
    WHERE ($cell IS NULL OR cell = $cell) AND coalesce(alloc_collection_id, 0) = 0
      AND end_time - start_time >= meta.time_units($trace, 300)
    GROUP BY cell, window_index, machine_id
),
util AS (
    SELECT least(u.cpu / nullif(c.cpu_cap, 0), 1.0) AS cpu, least(u.memory / nullif(c.memory_cap, 0), 1.0) AS memory
    FROM usage AS u JOIN capacity AS c ON c.cell = u.cell AND c.machine_id = u.machine_id
)
SELECT metric, CAST(q.p AS DOUBLE) AS level, round(q.v, 6) AS utilisation, n AS machine_windows
FROM (
    SELECT metric, n, unnest([0.1, 0.5, 0.9, 0.99]) AS p, unnest(qs) AS v
    FROM (
        SELECT metric, count(v) AS n, quantile_cont(v, [0.1, 0.5, 0.9, 0.99]) AS qs
        FROM (SELECT 'cpu' AS metric, cpu AS v FROM util UNION ALL SELECT 'memory', memory FROM util)
        GROUP BY metric
    )
) AS q
ORDER BY metric, level;
