-- name: lifecycle.task_transitions
-- description: each task's event sequence with UPDATE_* collapsed (the 10-observations paper's method 3-2): every row is one transition from the previous state event into this one.
-- grain: one row per non-update task event (trace, cell, job_id, task_index, time, seq)
-- note: events are ordered by (time, seq): seq is the source order, so events sharing a microsecond keep the trace's order.
CREATE OR REPLACE VIEW lifecycle.task_transitions AS
SELECT
    *,
    -- the task's first transition of its (from, to, across a gap) pair: a report counts the
    -- distinct tasks of each pair as the rows flagged, instead of grouping every transition by
    -- pair and task (a hash table of ~10^8 groups at the whole trace's size)
    row_number() OVER (
        PARTITION BY trace, cell, job_id, task_index, from_event, to_event, spans_gap ORDER BY time, seq
    ) = 1 AS first_of_pair
FROM (
SELECT
    e.trace,
    e.cell,
    e.job_id,
    e.task_index,
    e.time,
    e.seq,
    e.time_class,
    coalesce(lag(e.event_type_name) OVER w, '(start)') AS from_event,
    e.event_type_name AS to_event,
    lag(e.time) OVER w AS from_time,
    e.is_synthesized,
    e.priority_tier,
    e.part,
    e.gaps_before,
    lag(e.part) OVER w AS from_part,
    -- a part is missing between the previous event and this one (or before a first event that
    -- is not in the first part): the events of that slice are absent, the pair may be an artifact
    e.gaps_before > coalesce(lag(e.gaps_before) OVER w, 0) AS spans_gap,
    -- the run attempt the event belongs to (lifecycle.task_episodes.episode_no: the SUBMITs up to
    -- it, same sort), so a task's first SUBMIT is the one with episode_no = 1 without a window of
    -- the reader's own
    count(CASE WHEN e.event_kind = 'submit' THEN 1 END) OVER (
        PARTITION BY e.trace, e.cell, e.job_id, e.task_index ORDER BY e.time, e.seq ROWS UNBOUNDED PRECEDING
    ) AS episode_no
FROM lifecycle.task_events AS e
WHERE e.event_kind IS DISTINCT FROM 'update'
WINDOW w AS (PARTITION BY e.trace, e.cell, e.job_id, e.task_index ORDER BY e.time, e.seq)
);

COMMENT ON VIEW lifecycle.task_transitions IS 'Per task, each state event with the previous one (UPDATE_* collapsed); from_event = (start) for the first';
COMMENT ON COLUMN lifecycle.task_transitions.spans_gap IS 'true = a source part is missing between the previous event and this one: not evidence of a trace anomaly';
COMMENT ON COLUMN lifecycle.task_transitions.first_of_pair IS 'true on the task''s first transition of its (from_event, to_event, spans_gap) pair: count(*) FILTER (first_of_pair) per pair = its distinct tasks';
COMMENT ON COLUMN lifecycle.task_transitions.episode_no IS 'The run attempt the event belongs to (lifecycle.task_episodes.episode_no): SUBMITs of the task up to and including it; 0 before the first SUBMIT. A task''s first SUBMIT: to_event = ''SUBMIT'' AND episode_no = 1';
