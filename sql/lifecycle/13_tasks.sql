-- name: lifecycle.tasks
-- description: one row per task of every Google trace: its first event, its last known priority and tier, how often it was submitted and whether it ever finished.
-- grain: one row per (trace, cell, job_id, task_index)
CREATE OR REPLACE VIEW lifecycle.tasks AS
SELECT
    trace, cell, job_id, task_index,
    count(*) AS events,
    count(*) FILTER (event_kind = 'submit') AS submits,
    bool_or(event_type_name = 'FINISH') AS finished,
    arg_min(event_type_name, lifecycle.event_order(time, seq)) AS first_event,
    min(time) AS first_time,
    arg_max(priority, lifecycle.event_order(time, seq)) FILTER (priority IS NOT NULL) AS priority,
    arg_max(priority_tier, lifecycle.event_order(time, seq)) FILTER (priority IS NOT NULL) AS priority_tier,
    arg_max(is_production, lifecycle.event_order(time, seq)) FILTER (priority IS NOT NULL) AS is_production,
    arg_max(cpu_request, lifecycle.event_order(time, seq)) FILTER (cpu_request IS NOT NULL) AS cpu_request,
    arg_max(memory_request, lifecycle.event_order(time, seq)) FILTER (memory_request IS NOT NULL) AS memory_request,
    -- first seen after a missing part: its first SUBMIT in the data may follow one lost there
    min(gaps_before) > 0 AS after_gap
FROM lifecycle.task_events
GROUP BY ALL;

COMMENT ON VIEW lifecycle.tasks IS 'One row per task: events, submits, finished, first event, last known priority / tier / requests';
COMMENT ON COLUMN lifecycle.tasks.after_gap IS 'true = every event of the task lies after a missing part of its cell (min gaps_before > 0): its first SUBMIT in the data may follow one lost there, so whether it is new is unknown';
