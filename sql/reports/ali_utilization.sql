-- name: ali-utilization
-- traces: with machine_utilisation, container_placement, batch_instances
-- description: machine CPU and memory utilisation per hour of the trace (mean over machines and samples), and per machine the online containers against the batch instances it ran
-- params: trace
-- reproduces: Alibaba co-location paper, utilisation of co-located machines over the 8 days
-- cites: wang2020colocation
-- note: long format (section, item, x, values...). Invalid percents (-1, 101) are left out. Hour = whole hours of the trace clock (meta.trace_hour); samples at time 0 or below (before the trace, or unknown) are left out of it; hours without a sample are listed with machines 0 and empty utilisation. Per machine: distinct containers placed on it (container_placement), batch instance rows (batch_instances), mean CPU and memory utilisation (machine_utilisation), over the trace's adapters.
-- caveat: hours are of the trace clock (no real instant); invalid percents (-1, 101) are left out
-- plot: x=x; y=cpu_util_percent,mem_util_percent; kind=line; where=section:hourly; title=Machine utilisation per hour; xlabel=hours since the trace start; ylabel=percent
WITH usage AS (SELECT * FROM {{union machine_utilisation}} WHERE trace = $trace),
sampled AS (
    SELECT meta.trace_hour($trace, time) AS hour, count(DISTINCT machine_id) AS machines,
           avg(cpu_util_percent) AS cpu, avg(mem_util_percent) AS mem
    FROM usage WHERE time > 0 GROUP BY 1
),
-- every hour between the first and the last sample, an hour without samples too (machines 0)
hourly AS (
    SELECT h.hour, coalesce(s.machines, 0) AS machines, s.cpu, s.mem
    FROM (SELECT unnest(range(min(hour), max(hour) + 1)) AS hour FROM sampled) AS h
    LEFT JOIN sampled AS s USING (hour)
),
containers AS (
    SELECT machine_id, count(DISTINCT container_id) AS containers
    FROM {{union container_placement}} WHERE trace = $trace GROUP BY 1
),
instances AS (
    SELECT machine_id, count(*) AS instances
    FROM {{union batch_instances}} WHERE trace = $trace AND machine_id IS NOT NULL GROUP BY 1
),
util AS (
    SELECT machine_id, avg(cpu_util_percent) AS cpu, avg(mem_util_percent) AS mem FROM usage GROUP BY 1
),
machines AS (
    SELECT coalesce(c.machine_id, i.machine_id) AS machine_id, coalesce(c.containers, 0) AS containers,
           coalesce(i.instances, 0) AS instances
    FROM containers AS c FULL JOIN instances AS i USING (machine_id)
)
SELECT 'hourly' AS section, 'hour ' || hour AS item, hour AS x, machines, NULL::BIGINT AS containers,
       NULL::BIGINT AS batch_instances, round(cpu, 3) AS cpu_util_percent, round(mem, 3) AS mem_util_percent
FROM hourly
UNION ALL
SELECT 'per machine', m.machine_id, NULL, NULL, m.containers, m.instances, round(u.cpu, 3), round(u.mem, 3)
FROM machines AS m LEFT JOIN util AS u USING (machine_id)
ORDER BY section, x, item;
