-- name: lifecycle-counts
-- traces: with lifecycle_task_events
-- description: event counts by type (real and synthesized), new submissions vs resubmissions, distinct tasks, tasks that finished
-- params: trace, cell
-- reproduces: "10 Observations on Google Cluster Trace" (2011, whole trace): the counts of SUBMIT, SCHEDULE and FINISH events, new submissions, distinct tasks and tasks that ran to completion (column published_whole_trace, from the trace's spec)
-- cites: zhu2015observations
-- note: where a trace's tasks are the instances of its jobs, alloc instances are left out and its own events (QUEUE, ENABLE) are counted like any event. A new submission is the first SUBMIT of a task; every later SUBMIT of the same task is a resubmission. A task first seen after a missing part (lifecycle.task_events.gaps_before > 0 on its first event) may have been submitted in it: its first SUBMIT in the data is counted apart, neither new nor a resubmission. Synthesized (missing_info) events are counted, and shown apart.
-- caveat: counts are over the ingested parts; the published figures are for the whole trace
WITH by_type AS (
    -- the stored counts (derived.event_counts, derived.tasks): no scan of the events
    SELECT event_type_name, sum(events)::BIGINT AS events, sum(synthesized)::BIGINT AS synthesized
    FROM derived.event_counts WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
    GROUP BY event_type_name
),
totals AS (
    SELECT count(*) AS tasks,
           count(*) FILTER (submits > 0 AND NOT after_gap) AS new_submissions,
           count(*) FILTER (submits > 0 AND after_gap) AS unknown_first_submits,
           coalesce(sum(submits - 1) FILTER (submits > 0), 0) AS resubmissions,
           count(*) FILTER (finished) AS finished_tasks
    FROM derived.tasks WHERE trace = $trace AND ($cell IS NULL OR cell = $cell)
),
published AS (
    -- the whole-trace counts the trace's spec gives (TraceSpec.published_counts)
    SELECT metric, published_count FROM meta.published_counts WHERE trace = $trace
),
rows(ord, metric, value, synthesized) AS (
    SELECT 1 + c.code, 'events: ' || c.name, coalesce(b.events, 0), coalesce(b.synthesized, 0)
    FROM lifecycle.event_types AS c LEFT JOIN by_type AS b ON b.event_type_name = c.name
    WHERE c.trace = $trace
    UNION ALL
    SELECT 50, 'events: ' || b.event_type_name, b.events, b.synthesized
    FROM by_type AS b
    WHERE b.event_type_name NOT IN (SELECT name FROM lifecycle.event_types WHERE trace = $trace)
    UNION ALL SELECT 60, 'events: all', coalesce(sum(events), 0)::BIGINT, coalesce(sum(synthesized), 0)::BIGINT FROM by_type
    UNION ALL SELECT 70, 'distinct tasks', tasks, NULL FROM totals
    UNION ALL SELECT 71, 'new submissions (first SUBMIT of a task)', new_submissions, NULL FROM totals
    UNION ALL SELECT 72, 'resubmissions (later SUBMITs of a task)', resubmissions, NULL FROM totals
    UNION ALL SELECT 71.5, 'first SUBMIT of a task first seen after a missing part (new or not: unknown)',
                     unknown_first_submits, NULL FROM totals
    UNION ALL SELECT 73, 'tasks that finished', finished_tasks, NULL FROM totals
    UNION ALL SELECT 74, 'tasks with no SUBMIT in the data', tasks - new_submissions - unknown_first_submits, NULL FROM totals
)
SELECT r.metric, r.value, r.synthesized,
       p.published_count AS published_whole_trace
FROM rows AS r LEFT JOIN published AS p USING (metric)
ORDER BY r.ord, r.metric;
