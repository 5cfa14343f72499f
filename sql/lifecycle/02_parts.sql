-- name: lifecycle.task_event_parts
-- purpose: the parts of the task event tables (2011 task_events, 2019 instance_events per cell) that are live, each with the number of parts missing before it, and the observed window of the task events, so life-cycle views can mark what spans a missing part and clip run time to what was observed.
-- grain: task_event_parts one row per (trace, cell, live part); observed_window one row per Google trace with task events
-- note: an event of part p with gaps_before(p) > gaps_before(of the task's previous event) has a missing part between the two: the events of that slice are absent, so the pair is not evidence of a trace anomaly. observed_window = [smallest, largest] in-window time of the ingested task events (meta.tables; special times 0 and 2^63-1 excluded), the same for every cell.
CREATE OR REPLACE VIEW lifecycle.task_event_parts AS
WITH src(trace, table_name) AS (VALUES ('google2011', 'task_events'), ('google2019', 'instance_events')),
present AS (SELECT DISTINCT p.trace, p.cell, p.part FROM meta.parts AS p JOIN src USING (trace, table_name)),
missing AS (SELECT m.trace, m.cell, m.part FROM meta.missing_parts AS m JOIN src USING (trace, table_name))
SELECT
    p.trace, p.cell, p.part,
    (SELECT count(*) FROM missing AS m
      WHERE m.trace = p.trace AND m.cell IS NOT DISTINCT FROM p.cell AND m.part < p.part) AS gaps_before,
    (SELECT count(*) FROM missing AS m
      WHERE m.trace = p.trace AND m.cell IS NOT DISTINCT FROM p.cell) AS gaps_total
FROM present AS p;

CREATE OR REPLACE VIEW lifecycle.observed_window AS
SELECT trace, min_time AS t0, max_time AS t1, (max_time - min_time) / 1e6 AS window_s
FROM meta.tables
WHERE (trace, table_name) IN (('google2011', 'task_events'), ('google2019', 'instance_events'))
  AND min_time IS NOT NULL;

COMMENT ON VIEW lifecycle.task_event_parts IS 'Live parts of the task event tables with gaps_before = parts missing below them (per trace and cell)';
COMMENT ON VIEW lifecycle.observed_window IS 'Per Google trace: the in-window time span [t0, t1] of the ingested task events (raw microseconds)';
