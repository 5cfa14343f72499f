-- name: lifecycle.task_episodes
-- description: one row per run attempt of a task: from a SUBMIT to the first end event (EVICT, FAIL, FINISH, KILL, LOST) after it, with wait and run time, whether the trace window censors them, the run time observed inside the window, and whether a missing part lies inside the attempt, its wait or its run.
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- note: episode_no counts SUBMITs in (time, seq) order; episode 0 holds the events of a task before its first SUBMIT (a task whose first event is not SUBMIT). Episodes with no end event are kept (state pending_at_end / running_at_end), not dropped. An attempt ran when it has a SCHEDULE, or (episode 0, scheduled before the data) an UPDATE_RUNNING or an end event on a machine. observed_run_s = its run interval clipped to the observed time (lifecycle.observed_segments): an unknown start (scheduled at time 0 or before the data) is the start of the observed segment of its first event, an unknown end (no end event, or one after the window) the next attempt's first event or the end of the segment of its last event; the time of missing parts never counts.
CREATE OR REPLACE VIEW lifecycle.task_episode_core AS
WITH numbered AS (
    SELECT
        -- only what the episodes need travels through the sort
        e.trace, e.cell, e.job_id, e.task_index, e.time, e.seq, e.event_kind, e.event_type_name,
        e.machine_id, e.priority, e.priority_tier, e.is_production, e.cpu_request, e.memory_request,
        e.is_synthesized, e.gaps_before, e.gaps_total,
        -- a count, not a sum: BIGINT (a sum is HUGEINT, which Parquet stores as a double)
        count(CASE WHEN e.event_kind = 'submit' THEN 1 END) OVER w AS episode_no,
        -- the event's position in its task (same window, one sort): a cheap key for arg_min
        row_number() OVER w AS k,
        -- the next SUBMIT after the event = the start of the next attempt (same sort)
        min(CASE WHEN e.event_kind = 'submit' THEN e.time END) OVER later AS next_submit_time,
        min(CASE WHEN e.event_kind = 'submit' THEN e.gaps_before END) OVER later AS next_submit_gaps
    FROM lifecycle.task_events AS e
    WINDOW w AS (PARTITION BY e.trace, e.cell, e.job_id, e.task_index ORDER BY e.time, e.seq
                 ROWS UNBOUNDED PRECEDING),
           later AS (PARTITION BY e.trace, e.cell, e.job_id, e.task_index ORDER BY e.time, e.seq
                     ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
),
episodes AS (
    SELECT
        trace, cell, job_id, task_index, episode_no,
        min(time) FILTER (event_kind = 'submit') AS submit_time,
        min(time) FILTER (event_kind = 'schedule') AS schedule_time,
        arg_min(machine_id, k) FILTER (event_kind = 'schedule') AS machine_id,
        arg_min(time, k) FILTER (event_kind = 'end') AS end_time,
        arg_min(event_type_name, k) FILTER (event_kind = 'end') AS end_reason,
        arg_min(machine_id, k) FILTER (event_kind = 'end') AS end_machine_id,
        bool_or(event_type_name = 'UPDATE_RUNNING') AS updated_running,
        arg_min(priority, k) AS priority,
        arg_min(priority_tier, k) AS priority_tier,
        arg_min(is_production, k) AS is_production,
        arg_max(cpu_request, k) FILTER (cpu_request IS NOT NULL) AS cpu_request,
        arg_max(memory_request, k) FILTER (memory_request IS NOT NULL) AS memory_request,
        count(*) AS events,
        bool_or(is_synthesized) AS has_synthesized,
        min(time) AS first_time,
        arg_min(gaps_before, k) AS first_gaps,
        arg_min(gaps_before, k) FILTER (event_kind = 'schedule') AS schedule_gaps,
        arg_min(gaps_before, k) FILTER (event_kind = 'end') AS end_gaps,
        arg_max(gaps_before, k) AS last_gaps,
        max(gaps_total) AS gaps_total,
        -- every event of an attempt has the same next SUBMIT: the next attempt's start
        min(next_submit_time) AS next_time,
        min(next_submit_gaps) AS next_gaps
    FROM numbered
    GROUP BY ALL
),
chained AS (
    SELECT *,
        schedule_time IS NOT NULL
            OR (episode_no = 0 AND (updated_running OR end_machine_id IS NOT NULL)) AS ran
    FROM episodes
)
SELECT
    trace, cell, job_id, task_index, episode_no,
    episode_no = 1 AS is_new_submission,
    submit_time, schedule_time, end_time, end_reason, machine_id,
    priority, priority_tier, is_production, cpu_request, memory_request, events, has_synthesized,
    CASE
        WHEN end_reason IS NOT NULL THEN 'ended'
        WHEN schedule_time IS NOT NULL THEN 'running_at_end'
        ELSE 'pending_at_end'
    END AS state_at_end,
    -- A time of 0 is "before the window": the real instant is unknown, so the duration is censored.
    submit_time IS NULL OR submit_time = 0 AS start_censored,
    end_time IS NULL OR end_time >= meta.after_window(trace) AS end_censored,
    CASE WHEN submit_time > 0 AND schedule_time > 0 AND schedule_time < meta.after_window(trace)
              AND schedule_time >= submit_time
         THEN meta.seconds(trace, schedule_time - submit_time) END AS wait_s,
    CASE WHEN schedule_time > 0 AND end_time < meta.after_window(trace) AND end_time >= schedule_time
         THEN meta.seconds(trace, end_time - schedule_time) END AS run_s,
    ran,
    ran AND coalesce(schedule_time, 0) = 0 AS run_start_censored,
    ran AND (end_time IS NULL OR end_time >= meta.after_window(trace)) AS run_end_censored,
    -- a part is missing between the attempt's first event and its end (or, with no end, the next
    -- attempt / the end of the data), or before an attempt whose SUBMIT is not in the data
    wait_spans_gap OR run_spans_gap AS spans_gap,
    -- each phase on its own interval: a wait observed whole stays a measurement although the run
    -- after it crosses a missing part (those waits are not typical: dropping them biases the
    -- delays short), and the other way round
    wait_spans_gap,
    run_spans_gap,
    -- the run interval before the clipping to the observed segments (lifecycle.task_episodes)
    lo AS run_lo,
    hi AS run_hi,
    first_gaps AS first_segment,
    run_last_gaps AS last_segment
FROM (
    SELECT *,
           -- the wait runs from the first event (the SUBMIT) to the SCHEDULE, else to what ends
           -- the pending attempt (its end event, the next attempt, the end of the data); before an
           -- attempt with no SUBMIT in the data (episode 0) after a missing part, the SUBMIT may
           -- be in that part
           CASE WHEN schedule_time IS NOT NULL THEN schedule_gaps
                WHEN end_reason IS NOT NULL THEN end_gaps
                ELSE coalesce(next_gaps, gaps_total) END > first_gaps
               OR (episode_no = 0 AND first_gaps > 0) AS wait_spans_gap,
           -- the run from the SCHEDULE (unknown: the first event, and then after a missing part
           -- the SCHEDULE may be in it) to the end event, else the next attempt / the end of data
           ran AND (CASE WHEN end_reason IS NOT NULL THEN end_gaps
                         ELSE coalesce(next_gaps, gaps_total) END > coalesce(schedule_gaps, first_gaps)
                    OR (episode_no = 0 AND schedule_time IS NULL AND first_gaps > 0)) AS run_spans_gap
    FROM (
        SELECT *,
               CASE WHEN schedule_time > 0 THEN schedule_time ELSE 0 END AS lo,
               CASE WHEN end_time < meta.after_window(trace) THEN end_time
                    ELSE coalesce(next_time, meta.after_window(trace)) END AS hi,
               CASE WHEN end_reason IS NOT NULL THEN end_gaps ELSE last_gaps END AS run_last_gaps
        FROM chained
    ) AS phased
) AS c;

-- The attempts with their run clipped to the observed segments: apart from the small segments
-- table, only what one task's events give (lifecycle.task_episode_core), so a task's attempts are
-- stored once and the clipping reads the segments of the day (tracewh.catalog.derived).
CREATE OR REPLACE VIEW lifecycle.task_episodes AS
-- the observed segments once for both joins below
WITH seg AS MATERIALIZED (SELECT * FROM lifecycle.observed_segments)
SELECT
    c.trace, c.cell, job_id, task_index, episode_no, is_new_submission,
    submit_time, schedule_time, end_time, end_reason, machine_id,
    priority, priority_tier, is_production, cpu_request, memory_request, events, has_synthesized,
    state_at_end, start_censored, end_censored, wait_s, run_s,
    ran, run_start_censored, run_end_censored,
    -- run interval [lo, hi] (an unknown start: the start of the segment of its first event; an
    -- unknown end: the next attempt, else the end of the segment of its last event), clipped to
    -- the observed segments from the first one to the last one it touches: partial first and
    -- last segments plus the whole segments between (cum_s)
    CASE WHEN ran THEN
        CASE WHEN fs.segment = ls.segment
             THEN meta.seconds(c.trace, greatest(0, least(run_hi, ls.t1) - greatest(run_lo, fs.t0)))
             ELSE meta.seconds(c.trace, greatest(0, fs.t1 - greatest(run_lo, fs.t0))) + (ls.cum_s - fs.cum_s - fs.length_s)
                  + meta.seconds(c.trace, greatest(0, least(run_hi, ls.t1) - ls.t0))
        END
    END AS observed_run_s,
    -- the same run interval as raw times (before the clipping to segments): the one rule every
    -- time integral of running attempts uses (alloc-usage integrates it over the observed pieces)
    CASE WHEN ran THEN greatest(run_lo, fs.t0) END AS run_from,
    CASE WHEN ran THEN least(run_hi, ls.t1) END AS run_to,
    spans_gap, wait_spans_gap, run_spans_gap
FROM lifecycle.task_episode_core AS c
LEFT JOIN seg AS fs
    ON fs.trace = c.trace AND fs.cell IS NOT DISTINCT FROM c.cell AND fs.segment = c.first_segment
LEFT JOIN seg AS ls
    ON ls.trace = c.trace AND ls.cell IS NOT DISTINCT FROM c.cell AND ls.segment = c.last_segment;

COMMENT ON VIEW lifecycle.task_episode_core IS 'lifecycle.task_episodes before the clipping to the observed segments: what one task''s events give (run_lo, run_hi, first_segment, last_segment carry the run interval)';
COMMENT ON COLUMN lifecycle.task_episode_core.run_lo IS 'Raw time the attempt''s run starts before the clipping (0: unknown, before the data)';
COMMENT ON COLUMN lifecycle.task_episode_core.run_hi IS 'Raw time the attempt''s run ends before the clipping (no end event: the next attempt, else the end of the window)';
COMMENT ON COLUMN lifecycle.task_episode_core.first_segment IS 'The observed segment of the attempt''s first event (lifecycle.observed_segments.segment)';
COMMENT ON COLUMN lifecycle.task_episode_core.last_segment IS 'The observed segment of the attempt''s end event, else of its last event';
COMMENT ON VIEW lifecycle.task_episodes IS 'One row per task run attempt (SUBMIT -> first end event), with wait_s, run_s, censoring flags, observed_run_s (clipped to the observed segments) and spans_gap; open attempts kept';
COMMENT ON COLUMN lifecycle.task_episodes.episode_no IS '1 = first SUBMIT of the task (a new submission), 2.. = resubmissions, 0 = events before any SUBMIT';
COMMENT ON COLUMN lifecycle.task_episodes.wait_s IS 'Scheduling delay SUBMIT -> SCHEDULE in seconds; NULL when not scheduled or censored (a time before or after the window)';
COMMENT ON COLUMN lifecycle.task_episodes.run_s IS 'Execution time SCHEDULE -> end event in seconds; NULL when not ended, not scheduled or censored';
COMMENT ON COLUMN lifecycle.task_episodes.state_at_end IS 'ended | running_at_end (scheduled, no end event in the data) | pending_at_end (never scheduled, no end event)';
COMMENT ON COLUMN lifecycle.task_episodes.ran IS 'The attempt ran: a SCHEDULE, or (episode 0) UPDATE_RUNNING or an end event on a machine (scheduled before the data)';
COMMENT ON COLUMN lifecycle.task_episodes.run_start_censored IS 'Ran, but its SCHEDULE is at time 0 or before the data (left-censored run)';
COMMENT ON COLUMN lifecycle.task_episodes.run_end_censored IS 'Ran, but no end event in the window (right-censored run)';
COMMENT ON COLUMN lifecycle.task_episodes.observed_run_s IS 'Seconds the attempt ran inside the observed time (lifecycle.observed_segments: censored runs count for the part observed, missing parts never); NULL if it never ran';
COMMENT ON COLUMN lifecycle.task_episodes.run_from IS 'Raw time the attempt''s observed run starts (an unknown start: the start of the segment of its first event); NULL if it never ran';
COMMENT ON COLUMN lifecycle.task_episodes.run_to IS 'Raw time the attempt''s observed run ends (an unknown end: the next attempt, else the end of the segment of its last event); NULL if it never ran';
COMMENT ON COLUMN lifecycle.task_episodes.spans_gap IS 'true = a missing source part lies inside the attempt: its events may be incomplete (wait_spans_gap or run_spans_gap)';
COMMENT ON COLUMN lifecycle.task_episodes.wait_spans_gap IS 'true = a missing source part lies inside the wait (SUBMIT -> SCHEDULE, or -> the end of a pending attempt): wait_s is not a measurement';
COMMENT ON COLUMN lifecycle.task_episodes.run_spans_gap IS 'true = the attempt ran and a missing source part lies inside the run (SCHEDULE -> end event, or -> the next attempt / end of the data): run_s is not a measurement';
