-- name: tier-usage-notebook
-- traces: google2019
-- description: hourly CPU and memory usage by priority tier as a fraction of the cell's capacity, by the official clusterdata 2019 example notebook's definition (its "cell level resource usage time series")
-- params: trace, cell
-- reproduces: the official clusterdata 2019 example notebook (clusterdata_analysis_colab.ipynb): usage by tier for every hour of the trace, as a fraction of the cell's capacity
-- note: per cell, as the notebook computes it: usage windows at least 5 minutes long of the instances outside alloc sets (alloc_collection_id NULL or 0; the alloc-set instances themselves count), each joined to its instance's events (outside alloc sets) on the same machine (collection_id, instance_index, machine_id; windows with no such events drop out); tier = the highest priority of those events, every priority >= 120 counted as production (the notebook's 4_prod: monitoring folded in); hour_index = floor(start_time / 1 h) in raw trace time; avg_*_usage = sum of the windows' mean usage / (12 x the cell's capacity), the capacity = the sum over the cell's machines of each machine's largest capacity. tier-usage is a different measure (absolute normalised units, usage weighted by window length, the last priority).
-- caveat: a window counts as 1/12 of an hour whatever its length, as in the notebook; hour 0 starts at raw time 0, 600 s before the trace start
-- plot: x=hour_index; y=avg_cpu_usage; group=tier; kind=line; title=CPU usage by tier, fraction of cell capacity (notebook definition); xlabel=hour index (raw trace time); ylabel=fraction of cell CPU capacity
WITH capacity AS (
    SELECT cell, sum(cpu_cap) AS cpu_capacity, sum(memory_cap) AS memory_capacity
    FROM (SELECT cell, machine_id, max(capacity_cpus) AS cpu_cap, max(capacity_memory) AS memory_cap
          FROM google2019.machine_events WHERE $cell IS NULL OR cell = $cell
          GROUP BY cell, machine_id)
    GROUP BY cell
),
usage AS (
    SELECT cell, start_time, collection_id, instance_index, machine_id, average_cpus AS cpu, average_memory AS memory
    FROM google2019.instance_usage
    WHERE ($cell IS NULL OR cell = $cell) AND coalesce(alloc_collection_id, 0) = 0
      AND end_time - start_time >= meta.time_units($trace, 300)
),
priorities AS (
    SELECT cell, collection_id, instance_index, machine_id, max(priority) AS priority
    FROM google2019.instance_events
    WHERE ($cell IS NULL OR cell = $cell) AND coalesce(alloc_collection_id, 0) = 0
    GROUP BY cell, collection_id, instance_index, machine_id
)
SELECT
    u.cell,
    u.start_time // meta.time_units($trace, 3600) AS hour_index,
    CASE WHEN google2019.is_production(e.priority) THEN 'production'
         ELSE google2019.priority_tier(e.priority) END AS tier,
    sum(u.cpu) / (12 * c.cpu_capacity) AS avg_cpu_usage,
    sum(u.memory) / (12 * c.memory_capacity) AS avg_memory_usage,
    count(*) AS windows
FROM usage AS u
JOIN priorities AS e
    ON e.cell = u.cell AND e.collection_id = u.collection_id AND e.instance_index = u.instance_index
   AND e.machine_id = u.machine_id
JOIN capacity AS c ON c.cell = u.cell
GROUP BY u.cell, hour_index, tier, c.cpu_capacity, c.memory_capacity
ORDER BY u.cell, hour_index, tier;
