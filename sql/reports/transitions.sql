-- name: transitions
-- traces: with lifecycle_task_events
-- description: per task, consecutive state events (from -> to, UPDATE_* collapsed) with counts, marking the pairs the documented state machine does not allow, and apart the pairs across a missing source part (gap artifacts, not anomalies)
-- params: trace, cell
-- reproduces: "10 Observations on Google Cluster Trace", Figure 1 and section 2.2: tasks are evicted straight from pending (SUBMIT -> EVICT), and SUBMIT never follows SUBMIT
-- cites: zhu2015observations
-- note: (start) -> X is a task's first event; X other than SUBMIT means the task was already alive when the data begins (or its creation is missing). across_gap = a source part is missing between the two events (lifecycle.task_transitions.spans_gap): the events of that slice are absent, so an undocumented pair there is not evidence of a trace anomaly; such rows are listed apart (note says so) and never counted as anomalies.
-- caveat: with missing parts, compare only the rows with across_gap = false with the paper
WITH pairs AS (
    -- the distinct tasks of each pair: the rows that are a task's first of their pair (stored
    -- with the transitions), so no grouping by task
    SELECT from_event, to_event, spans_gap, count(*) AS transitions, count(*) FILTER (first_of_pair) AS tasks,
           count(*) FILTER (is_synthesized) AS synthesized
    FROM derived.task_transitions
    WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
    GROUP BY from_event, to_event, spans_gap
)
SELECT
    t.from_event,
    t.to_event,
    t.spans_gap AS across_gap,
    t.transitions,
    t.tasks,
    t.synthesized,
    d.to_event IS NOT NULL AS documented,
    CASE
        WHEN d.to_event IS NOT NULL THEN ''
        WHEN t.spans_gap THEN 'across a missing part: may be an artifact of the gap, not an anomaly'
        WHEN t.from_event = '(start)' THEN 'first event is not SUBMIT'
        WHEN t.from_event = 'SUBMIT' AND t.to_event = 'EVICT' THEN 'evicted while pending (the paper found this too)'
        WHEN t.from_event = t.to_event THEN 'repeated event'
        ELSE 'not in the documented state machine'
    END AS note
FROM pairs AS t
LEFT JOIN lifecycle.documented_transitions AS d
    ON d.from_event = t.from_event AND d.to_event = t.to_event
ORDER BY across_gap, documented DESC, transitions DESC, t.from_event, t.to_event;
