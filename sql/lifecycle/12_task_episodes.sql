-- name: lifecycle.task_episodes
-- purpose: one row per run attempt of a task: from a SUBMIT to the first end event (EVICT, FAIL, FINISH, KILL, LOST) after it, with wait and run time and whether the trace window censors them.
-- grain: one row per (trace, cell, job_id, task_index, episode_no)
-- note: episode_no counts SUBMITs in (time, seq) order; episode 0 holds the events of a task before its first SUBMIT (a task whose first event is not SUBMIT). Episodes with no end event are kept (state pending_at_end / running_at_end), not dropped.
CREATE OR REPLACE VIEW lifecycle.task_episodes AS
WITH numbered AS (
    SELECT
        -- only what the episodes need travels through the sort
        e.trace, e.cell, e.job_id, e.task_index, e.time, e.seq, e.event_kind, e.event_type_name,
        e.machine_id, e.priority, e.priority_tier, e.is_production, e.cpu_request, e.memory_request,
        e.is_synthesized,
        sum(CASE WHEN e.event_kind = 'submit' THEN 1 ELSE 0 END) OVER w AS episode_no,
        -- the event's position in its task (same window, one sort): a cheap key for arg_min
        row_number() OVER w AS k
    FROM lifecycle.task_events AS e
    WINDOW w AS (PARTITION BY e.trace, e.cell, e.job_id, e.task_index ORDER BY e.time, e.seq
                 ROWS UNBOUNDED PRECEDING)
),
episodes AS (
    SELECT
        trace, cell, job_id, task_index, episode_no,
        min(time) FILTER (event_kind = 'submit') AS submit_time,
        min(time) FILTER (event_kind = 'schedule') AS schedule_time,
        arg_min(machine_id, k) FILTER (event_kind = 'schedule') AS machine_id,
        arg_min(time, k) FILTER (event_kind = 'end') AS end_time,
        arg_min(event_type_name, k) FILTER (event_kind = 'end') AS end_reason,
        arg_min(priority, k) AS priority,
        arg_min(priority_tier, k) AS priority_tier,
        arg_min(is_production, k) AS is_production,
        arg_max(cpu_request, k) FILTER (cpu_request IS NOT NULL) AS cpu_request,
        arg_max(memory_request, k) FILTER (memory_request IS NOT NULL) AS memory_request,
        count(*) AS events,
        bool_or(is_synthesized) AS has_synthesized
    FROM numbered
    GROUP BY ALL
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
    end_time IS NULL OR end_time >= 9223372036854775807 AS end_censored,
    CASE WHEN submit_time > 0 AND schedule_time > 0 AND schedule_time < 9223372036854775807
              AND schedule_time >= submit_time
         THEN (schedule_time - submit_time) / 1e6 END AS wait_s,
    CASE WHEN schedule_time > 0 AND end_time < 9223372036854775807 AND end_time >= schedule_time
         THEN (end_time - schedule_time) / 1e6 END AS run_s
FROM episodes;

COMMENT ON VIEW lifecycle.task_episodes IS 'One row per task run attempt (SUBMIT -> first end event), with wait_s, run_s and censoring flags; open attempts kept';
COMMENT ON COLUMN lifecycle.task_episodes.episode_no IS '1 = first SUBMIT of the task (a new submission), 2.. = resubmissions, 0 = events before any SUBMIT';
COMMENT ON COLUMN lifecycle.task_episodes.wait_s IS 'Scheduling delay SUBMIT -> SCHEDULE in seconds; NULL when not scheduled or censored (time 0 / 2^63-1)';
COMMENT ON COLUMN lifecycle.task_episodes.run_s IS 'Execution time SCHEDULE -> end event in seconds; NULL when not ended, not scheduled or censored';
COMMENT ON COLUMN lifecycle.task_episodes.state_at_end IS 'ended | running_at_end (scheduled, no end event in the data) | pending_at_end (never scheduled, no end event)';
