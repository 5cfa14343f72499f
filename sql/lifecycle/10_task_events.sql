-- name: lifecycle.task_events
-- description: the task (2011) / instance (2019) events of every Google trace in one shape, so each life-cycle report is written once and filtered by $trace.
-- grain: one row per task event (trace, cell, job_id, task_index, time, seq)
-- note: the UNION of every trace's adapter view <trace>.lifecycle_task_events (in its SQL folder, e.g. sql/google2019/90_lifecycle.sql, which says how its columns map); event_kind and the part are added here, once.
CREATE OR REPLACE VIEW lifecycle.task_events AS
WITH ev AS (
SELECT
    u.trace,
    u.cell,
    u.job_id,
    u.task_index,
    u.time,
    u.seq,
    u.time_class,
    u.event_time,
    u.event_type_name,
    k.kind AS event_kind,
    u.is_synthesized,
    u.missing_info_name,
    u.machine_id,
    u.priority,
    u.priority_tier,
    u.is_production,
    u.scheduling_class,
    u.cpu_request,
    u.memory_request,
    meta.seq_part(u.seq) AS part
FROM {{union lifecycle_task_events}} AS u
LEFT JOIN lifecycle.event_kinds AS k ON k.event = u.event_type_name
)
-- the part each event came from and how many parts are missing before it (lifecycle.task_event_parts)
SELECT ev.*, coalesce(p.gaps_before, 0) AS gaps_before, coalesce(p.gaps_total, 0) AS gaps_total
FROM ev
LEFT JOIN lifecycle.task_event_parts AS p
    ON p.trace = ev.trace AND p.cell IS NOT DISTINCT FROM ev.cell AND p.part = ev.part;

COMMENT ON VIEW lifecycle.task_events IS 'Task/instance events of every Google trace in one shape (trace, cell, job_id, task_index, time, seq, event_type_name, event_kind, ...)';
COMMENT ON COLUMN lifecycle.task_events.part IS 'The source part (2011 part number, 2019 shard) the event was read from';
COMMENT ON COLUMN lifecycle.task_events.gaps_before IS 'Parts missing inside the ingested run before this event''s part (0 = none)';
COMMENT ON COLUMN lifecycle.task_events.event_kind IS 'submit | pending | schedule | end | update (lifecycle.event_kinds); NULL for unknown codes';
