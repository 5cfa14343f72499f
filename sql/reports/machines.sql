-- name: machines
-- traces: with lifecycle_machine_events, lifecycle_task_usage
-- description: machines present over time (per day), the capacity histogram, machines without capacity, and the distribution of per-machine CPU and memory utilisation
-- params: trace, cell
-- needs: machine_events, task_usage
-- reproduces: traces.md: 2011 has ~12.5k machines (machine_events 37,780 rows); 2019 cell a has 459 machines without a capacity value
-- note: long format (section, item, machines, value, x). A machine is present from an ADD until a REMOVE; time 0 counts as the start. Capacity = the last known (cpus, memory) of each machine. Utilisation of a machine = its mean total task usage over the usage windows it appears in, divided by its capacity (one value per machine, uncapped): not the official 2019 notebook's distribution over machine x 5-minute windows capped at 1, which machine-util-notebook computes.
-- caveat: machines added before the window appear at time 0; capacity is the last known value
-- plot: x=x; y=machines; kind=step; where=section:present per day; title=Machines present at the end of each day; xlabel=trace day; ylabel=machines
WITH ev AS (
    SELECT * FROM lifecycle.machine_events WHERE trace = $trace AND ($cell IS NULL OR cell = $cell) AND time < meta.after_window($trace)
),
state AS (
    SELECT cell, machine_id, time // meta.time_units($trace, 86400) AS day,
           arg_max(event_type_name, lifecycle.event_order(time, seq)) FILTER (event_type_name IN ('ADD', 'REMOVE')) AS last_event
    FROM ev GROUP BY ALL
),
days AS (
    SELECT d FROM range(0, (SELECT coalesce(max(day), -1) + 1 FROM state)) AS r(d)
),
present AS (
    SELECT days.d, count(*) FILTER (s.last_event = 'ADD') AS machines
    FROM days
    JOIN (SELECT cell, machine_id, day, last_event,
                 lead(day) OVER (PARTITION BY cell, machine_id ORDER BY day) AS next_day
          FROM state WHERE last_event IS NOT NULL) AS s
      ON s.day <= days.d AND (s.next_day IS NULL OR days.d < s.next_day)
    GROUP BY days.d
),
capacity AS (
    SELECT cell, machine_id,
           arg_max(cpus, lifecycle.event_order(time, seq)) FILTER (cpus IS NOT NULL) AS cpus,
           arg_max(memory, lifecycle.event_order(time, seq)) FILTER (memory IS NOT NULL) AS memory
    FROM ev GROUP BY cell, machine_id
),
window_use AS (
    -- the tasks' windows summed per machine and window start (derived.machine_usage_windows, stored
    -- at ingest; windows of unknown length left out)
    SELECT cell, machine_id, start_time, cpu, memory
    FROM derived.machine_usage_windows WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
machine_use AS (
    SELECT u.cell, u.machine_id, avg(u.cpu) / c.cpus AS cpu_util, avg(u.memory) / c.memory AS memory_util
    FROM window_use AS u
    JOIN capacity AS c ON c.cell IS NOT DISTINCT FROM u.cell AND c.machine_id = u.machine_id
    WHERE c.cpus > 0 AND c.memory > 0
    GROUP BY u.cell, u.machine_id, c.cpus, c.memory
)
SELECT 'present per day' AS section, 'day ' || d AS item, machines, NULL::DOUBLE AS value, d AS x, 1 AS ord
FROM present
UNION ALL
SELECT 'capacity', 'cpus ' || coalesce(cpus::VARCHAR, 'NULL') || ', memory ' || coalesce(memory::VARCHAR, 'NULL'),
       count(*), NULL, NULL, 2
FROM capacity GROUP BY cpus, memory
UNION ALL
SELECT 'without capacity', 'no cpus or no memory value', count(*), NULL, NULL, 3
FROM capacity WHERE cpus IS NULL OR memory IS NULL
UNION ALL
SELECT 'utilisation', metric || ' p' || (q.p * 100)::INTEGER, n, round(q.v, 4), q.p, 4
FROM (
    SELECT metric, n, unnest([0.1, 0.5, 0.9, 0.99]) AS p, unnest(qs) AS v
    FROM (
        SELECT metric, count(v) AS n, quantile_cont(v, [0.1, 0.5, 0.9, 0.99]) AS qs
        FROM (SELECT 'cpu' AS metric, cpu_util AS v FROM machine_use
              UNION ALL SELECT 'memory', memory_util FROM machine_use)
        GROUP BY metric
    )
) AS q
ORDER BY ord, x NULLS LAST, machines DESC, item;
