-- name: compare
-- traces: any
-- description: the same headline metrics side by side for every trace in the life-cycle layer or bringing its own headline row: machines, jobs, tasks per job, jobs per hour, outcome shares, mean utilisation
-- params: none
-- needs: task_events, task_usage, job_events, machine_events
-- reproduces: the 2011 vs 2019 comparison of the 2020 Borg paper (median 885 vs 3,309 jobs/hour; resubmitted:new 0.66 vs 2.26)
-- cites: clusterdata:Tirmazi2020
-- note: every metric has one definition for all traces, named in the definition column (jobs = distinct ids of the job table, as overview counts them per table). Google: outcome shares are over ended run attempts that ran (lifecycle.task_episodes.ran: a task killed while pending has no run outcome); mean utilisation = used core-seconds / (sum of the machines' last known capacity x the observed usage time: the 5-minute slots holding a usage window, so a missing usage part is not idle time); tasks_per_job = tasks / the jobs of those tasks (numerator and denominator from the same task events); median jobs per hour over the wholly observed hours (lifecycle.hourly_job_arrivals). Alibaba: tasks are batch tasks, outcomes their status (Terminated = finish, Failed = fail, Cancelled/Interrupted = kill), jobs per hour from each job's earliest task start, utilisation the mean of valid machine_usage samples / 100. Empty where a trace has no data.
-- caveat: each trace column is computed over what is ingested of that trace: a sample or slice is not the whole trace

-- the traces in the life-cycle layer; a trace outside it brings its own <trace>.headline
WITH traces AS (SELECT trace FROM {{union lifecycle_task_event_tables}}),
machines AS (
    SELECT trace, count(DISTINCT (cell, machine_id)) AS n FROM lifecycle.machine_events GROUP BY trace
),
capacity AS (
    SELECT trace, sum(cpus) AS cpus, sum(memory) AS memory FROM (
        SELECT trace, cell, machine_id,
               arg_max(cpus, lifecycle.event_order(time, seq)) FILTER (cpus IS NOT NULL) AS cpus,
               arg_max(memory, lifecycle.event_order(time, seq)) FILTER (memory IS NOT NULL) AS memory
        FROM lifecycle.machine_events GROUP BY ALL
    ) GROUP BY trace
),
jobs AS (
    -- one definition for every trace: the distinct ids of the job table (as in overview)
    SELECT trace, count(DISTINCT (cell, job_id)) AS jobs FROM lifecycle.job_events GROUP BY trace
),
tasks AS (
    -- tasks per job over the same observed time as its numerator: the jobs of the tasks in the
    -- ingested task events, not the job table (whose parts may cover other time)
    SELECT trace, count(*) AS tasks, count(DISTINCT (cell, job_id)) AS task_jobs,
           sum(greatest(submits - 1, 0)) / nullif(count(*) FILTER (submits > 0), 0) AS resubmit_ratio
    FROM derived.tasks
    GROUP BY trace
),
hourly AS (
    SELECT trace, median(jobs) AS median_jobs_per_hour FROM lifecycle.hourly_job_arrivals GROUP BY trace
),
outcomes AS (
    SELECT trace,
           count(*) FILTER (end_reason = 'FINISH') / count(*) AS finish,
           count(*) FILTER (end_reason = 'KILL') / count(*) AS kill,
           count(*) FILTER (end_reason = 'FAIL') / count(*) AS fail,
           count(*) FILTER (end_reason = 'EVICT') / count(*) AS evict,
           count(*) FILTER (end_reason = 'LOST') / count(*) AS lost
    -- run attempts only: an attempt killed while pending never ran and has no run outcome (the
    -- stored attempts before the clipping: no clipped column is read here)
    FROM derived.task_episode_core WHERE end_reason IS NOT NULL AND ran GROUP BY trace
),
usage AS (
    -- the observed usage time: the 5-minute slots that hold a usage window (a missing usage part
    -- holds none, so its time does not count as idle), from the windows summed per task and hour
    -- (derived.task_usage_hourly: slots has bit k set for the k-th slot of the clock hour)
    SELECT trace, sum(cpu_s) AS cpu_s, sum(mem_s) AS mem_s, sum(bit_count(slots)) * 300.0 AS span_s
    FROM (SELECT trace, clock_hour, sum(cpu_s) AS cpu_s, sum(memory_s) AS mem_s, bit_or(slots) AS slots
          FROM derived.task_usage_hourly GROUP BY trace, clock_hour)
    GROUP BY trace
),
wide AS (
    SELECT t.trace, m.n AS machines, j.jobs, k.tasks, k.tasks / nullif(k.task_jobs, 0) AS tasks_per_job,
           h.median_jobs_per_hour, k.resubmit_ratio,
           o.finish, o.kill, o.fail, o.evict, o.lost,
           u.cpu_s / nullif(c.cpus * u.span_s, 0) AS mean_cpu_utilisation,
           u.mem_s / nullif(c.memory * u.span_s, 0) AS mean_memory_utilisation
    FROM traces AS t
    LEFT JOIN machines AS m USING (trace) LEFT JOIN capacity AS c USING (trace)
    LEFT JOIN jobs AS j USING (trace) LEFT JOIN tasks AS k USING (trace) LEFT JOIN hourly AS h USING (trace)
    LEFT JOIN outcomes AS o USING (trace) LEFT JOIN usage AS u USING (trace)
    UNION ALL BY NAME
    SELECT * FROM {{union headline}}
),
present AS (
    SELECT * FROM wide WHERE trace IN (SELECT DISTINCT trace FROM meta.tables)
),
long AS (
    UNPIVOT present ON {{columns headline}}
    INTO NAME metric VALUE value
),
definitions(metric, position, definition) AS (VALUES
    ('machines', 1, 'distinct machine ids in the machine events (Alibaba: machine_meta)'),
    ('jobs', 2, 'distinct job ids in the job table (Google: job_events, 2019 collection_events of jobs; Alibaba: batch_task job_name)'),
    ('tasks', 3, 'distinct tasks in the task events (2019: instances of jobs; Alibaba: batch_task rows)'),
    ('tasks_per_job', 4, 'tasks / the jobs of those tasks (both from the task events: the same observed time)'),
    ('median_jobs_per_hour', 5, 'median over the wholly observed hours of first job SUBMITs (lifecycle.hourly_job_arrivals; Alibaba: earliest task start)'),
    ('resubmit_ratio', 6, 'later SUBMITs of a task / tasks with a SUBMIT'),
    ('finish', 7, 'share of ended run attempts (attempts that ran)'),
    ('kill', 8, 'share of ended run attempts (attempts that ran)'),
    ('fail', 9, 'share of ended run attempts (attempts that ran)'),
    ('evict', 10, 'share of ended run attempts (attempts that ran)'),
    ('lost', 11, 'share of ended run attempts (attempts that ran)'),
    ('mean_cpu_utilisation', 12, 'used core-seconds / (capacity x observed usage time: 5-minute slots with usage); Alibaba: mean machine_usage / 100'),
    ('mean_memory_utilisation', 13, 'used memory-seconds / (capacity x observed usage time: 5-minute slots with usage); Alibaba: mean machine_usage / 100')
)
SELECT metric,
       min(d.definition) AS definition,
       {{each trace with lifecycle_task_event_tables | headline: round(max(value) FILTER (trace = '@trace'), 4) AS "@trace"}},
       CASE metric WHEN 'median_jobs_per_hour' THEN '885 / 3,309' WHEN 'resubmit_ratio' THEN '0.66 / 2.26' END
           AS published_2011_2019
FROM long LEFT JOIN definitions AS d USING (metric)
GROUP BY metric
ORDER BY min(d.position), metric;
