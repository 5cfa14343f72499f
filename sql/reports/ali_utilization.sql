-- name: ali-utilization
-- traces: alibaba2018
-- description: machine CPU and memory utilisation per hour of the trace (mean over machines and samples), and per machine the online containers against the batch instances it ran
-- params: none
-- reproduces: Alibaba co-location paper, utilisation of co-located machines over the 8 days
-- cites: wang2020colocation
-- note: long format (section, item, x, values...). Invalid percents (-1, 101) are left out. Hour = time_stamp // 3600; hours without a sample are listed with machines 0 and empty utilisation. Per machine: distinct containers in container_meta, batch instance rows, mean CPU utilisation.
-- caveat: hours are of the trace clock (no real instant); invalid percents (-1, 101) are left out
-- plot: x=x; y=cpu_util_percent,mem_util_percent; kind=line; where=section:hourly; title=Machine utilisation per hour; xlabel=hours since the trace start; ylabel=percent
WITH sampled AS (
    SELECT meta.trace_hour('alibaba2018', time_stamp) AS hour, count(DISTINCT machine_id) AS machines,
           avg(cpu_util_percent) AS cpu, avg(mem_util_percent) AS mem
    FROM alibaba2018.machine_usage GROUP BY 1
),
-- every hour between the first and the last sample, an hour without samples too (machines 0)
hourly AS (
    SELECT h.hour, coalesce(s.machines, 0) AS machines, s.cpu, s.mem
    FROM (SELECT unnest(range(min(hour), max(hour) + 1)) AS hour FROM sampled) AS h
    LEFT JOIN sampled AS s USING (hour)
),
containers AS (
    SELECT machine_id, count(DISTINCT container_id) AS containers FROM alibaba2018.container_meta GROUP BY 1
),
instances AS (
    SELECT machine_id, count(*) AS instances FROM alibaba2018.batch_instance WHERE machine_id IS NOT NULL GROUP BY 1
),
util AS (
    SELECT machine_id, avg(cpu_util_percent) AS cpu, avg(mem_util_percent) AS mem FROM alibaba2018.machine_usage GROUP BY 1
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
