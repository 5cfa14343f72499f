-- name: lifecycle.task_event_parts
-- description: the parts of the task event tables (2011 task_events, 2019 instance_events per cell) that are live, each with the number of parts missing before it, so life-cycle views can mark what spans a missing part (and lifecycle.observed_segments clip run time to what was observed).
-- grain: one row per (trace, cell, live part)
-- note: an event of part p with gaps_before(p) > gaps_before(of the task's previous event) has a missing part between the two: the events of that slice are absent, so the pair is not evidence of a trace anomaly.
CREATE OR REPLACE VIEW lifecycle.task_event_parts AS
WITH src AS (SELECT trace, table_name FROM {{union lifecycle_task_event_tables}}),
present AS (SELECT DISTINCT p.trace, p.cell, p.part FROM meta.parts AS p JOIN src USING (trace, table_name)),
missing AS (SELECT m.trace, m.cell, m.part FROM meta.missing_parts AS m JOIN src USING (trace, table_name))
SELECT
    p.trace, p.cell, p.part,
    (SELECT count(*) FROM missing AS m
      WHERE m.trace = p.trace AND m.cell IS NOT DISTINCT FROM p.cell AND m.part < p.part) AS gaps_before,
    (SELECT count(*) FROM missing AS m
      WHERE m.trace = p.trace AND m.cell IS NOT DISTINCT FROM p.cell) AS gaps_total
FROM present AS p;

COMMENT ON VIEW lifecycle.task_event_parts IS 'Live parts of the task event tables with gaps_before = parts missing below them (per trace and cell)';
