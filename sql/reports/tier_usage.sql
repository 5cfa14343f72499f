-- name: tier-usage
-- traces: with lifecycle_task_usage, lifecycle_task_events, lifecycle_priority_tiers
-- description: hourly CPU and memory usage by priority tier, and the allocation (requests) of the measured instances beside it
-- params: trace, cell
-- needs: task_usage
-- reproduces: the 2020 Borg paper, Figure 2 (usage by tier)
-- cites: clusterdata:Tirmazi2020
-- note: hour = hours since the trace start of the usage window's start; used = sum of mean usage x window length / 3600 (mean normalised cores / memory over the hour); allocated = the instance's last known request x window length / 3600, over the same windows. Tier = the instance's last known priority tier. 2019: instances of jobs only (alloc instances are reservations; their usage is the usage of the tasks inside them). Not the official 2019 notebook's query, which differs in alloc handling, units (a fraction of the cell's capacity), hour alignment, tier rule (the highest priority) and short windows (left out): tier-usage-notebook computes that definition.
-- caveat: usage windows are observed by construction; allocation is each instance's last known request over its usage windows, not over its whole life
-- plot: x=hour; y=cpu_used,memory_used; group=tier; kind=area; panels=cpu_,memory_; xstep=1; title=Usage by priority tier (stacked); xlabel=hours since the trace start; ylabel=mean normalised usage; xtime=hours
WITH usage AS (
    -- the windows summed per task and hour (derived.task_usage_hourly; windows of unknown length left out)
    SELECT u.cell, u.job_id, u.task_index, u.hour, u.window_s, u.cpu_s, u.memory_s, u.windows
    FROM derived.task_usage_hourly AS u
    WHERE u.trace = $trace AND ($cell IS NULL OR u.cell = $cell)
),
task_groups AS (
    -- the tasks grouped by job where they share tier and requests (derived.task_groups): the
    -- task-hours join one row per such job, and a task of any other job, instead of every task
    SELECT cell, job_id, first_index, last_index, whole_job, priority_tier, cpu_request, memory_request
    FROM derived.task_groups WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
)
-- the whole jobs are a row per job: Spark is told to broadcast them (they are larger than its
-- default threshold at whole-trace size), so only the join to the other tasks shuffles
SELECT /*+ BROADCAST(j) */
    u.hour,
    coalesce(j.priority_tier, t.priority_tier, '(no task events)') AS tier,
    round(sum(u.cpu_s) / 3600, 6) AS cpu_used,
    round(sum(u.memory_s) / 3600, 6) AS memory_used,
    round(sum(coalesce(j.cpu_request, t.cpu_request) * u.window_s) / 3600, 6) AS cpu_allocated,
    round(sum(coalesce(j.memory_request, t.memory_request) * u.window_s) / 3600, 6) AS memory_allocated,
    sum(u.windows)::BIGINT AS windows
FROM usage AS u
LEFT JOIN task_groups AS j
    ON j.whole_job AND j.cell IS NOT DISTINCT FROM u.cell AND j.job_id = u.job_id
   AND u.task_index BETWEEN j.first_index AND j.last_index
LEFT JOIN task_groups AS t
    ON NOT t.whole_job AND t.cell IS NOT DISTINCT FROM u.cell AND t.job_id = u.job_id AND t.first_index = u.task_index
GROUP BY u.hour, tier
ORDER BY u.hour, tier;
