-- name: lifecycle.task_events
-- purpose: the task (2011) / instance (2019) events of every Google trace in one shape, so each life-cycle report is written once and filtered by $trace.
-- grain: one row per task event (trace, cell, job_id, task_index, time, seq)
-- note: 2019 maps collection_id -> job_id, instance_index -> task_index, placed_machine_id -> machine_id; only instances of jobs (collection_type 0); is_production = priority >= 120 (production tier and above) for 2019, >= 9 for 2011.
CREATE OR REPLACE VIEW lifecycle.task_events AS
WITH ev AS (
SELECT
    'google2011' AS trace,
    NULL::VARCHAR AS cell,
    e.job_id,
    e.task_index,
    e.time,
    e.seq,
    e.time_class,
    e.event_time,
    e.event_type_name,
    k.kind AS event_kind,
    e.is_synthesized,
    e.missing_info_name,
    e.machine_id,
    e.priority,
    e.priority_tier,
    e.is_production,
    e.scheduling_class,
    e.cpu_request,
    e.memory_request,
    meta.seq_part(e.seq) AS part
FROM google2011.task_events AS e
LEFT JOIN lifecycle.event_kinds AS k ON k.event = e.event_type_name
UNION ALL
-- 2019: the instances of jobs are the tasks; alloc instances (collection_type ALLOC_SET) are
-- resource reservations, not work, and stay out of the life-cycle reports.
SELECT
    'google2019',
    e.cell,
    e.collection_id,
    e.instance_index,
    e.time,
    e.seq,
    e.time_class,
    e.event_time,
    e.type_name,
    k.kind,
    e.is_synthesized,
    CASE WHEN e.is_synthesized THEN e.missing_type_name END,
    e.placed_machine_id,
    e.priority,
    e.priority_tier,
    e.priority >= 120,
    e.scheduling_class,
    e.request_cpus,
    e.request_memory,
    meta.seq_part(e.seq)
FROM google2019.instance_events AS e
LEFT JOIN lifecycle.event_kinds AS k ON k.event = e.type_name
WHERE e.collection_type = 0
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
