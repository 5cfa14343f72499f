-- name: alibaba2018.macros
-- description: the semantics of the 2018 trace as macros users can call: invalid percent values, cores, trace time, and the DAG task-name parser.
-- params: see each macro
-- source: traces.md section 3 and the Alibaba co-location paper (seeds); task-name forms: task_<base64>==, MergeTask, <letters><id>(_<dep>)*, _Stg<n> suffix, trailing underscore

-- Percent and normalised fields are 0..100; -1 and 101 (and anything outside) mark invalid values.
CREATE OR REPLACE MACRO alibaba2018.valid_percent(x DOUBLE) AS CASE WHEN x >= 0 AND x <= 100 THEN x END;

-- cpu fields count 100 per core.
CREATE OR REPLACE MACRO alibaba2018.cores(x DOUBLE) AS x / 100.0;

-- Times are seconds since the trace start (t = 0 is a midnight; the place is not disclosed), so
-- there is no real instant (trace_timestamp, built from the spec, is NULL); trace_offset an INTERVAL.
CREATE OR REPLACE MACRO alibaba2018.trace_offset(t) AS to_seconds(t);

-- time_stamp classes of the container (and machine) tables: 0 is not "unknown" there but "existed
-- at the trace start" (the snapshot taken when the trace began); anything else is a time in the trace.
CREATE OR REPLACE MACRO alibaba2018.time_stamp_class(t) AS
    CASE WHEN t IS NULL THEN NULL WHEN t = 0 THEN 'at_trace_start' ELSE 'in_trace' END;

-- start/end time classes of batch tasks and instances (0 = unknown; end before start happens).
CREATE OR REPLACE MACRO alibaba2018.start_time_class(s) AS
    CASE WHEN s IS NULL THEN NULL WHEN s = 0 THEN 'unknown' ELSE 'known' END;
-- A task or instance whose status is Running, Waiting or Ready has not ended when the trace was
-- cut: its end_time (often equal to its start, or 0) is no end. Never time it, never count it ok.
CREATE OR REPLACE MACRO alibaba2018.is_open_status(status) AS status IN ('Running', 'Waiting', 'Ready');
CREATE OR REPLACE MACRO alibaba2018.end_time_class(s, e, status) AS
    CASE WHEN alibaba2018.is_open_status(status) THEN 'open' WHEN e IS NULL THEN NULL WHEN e = 0 THEN 'unknown'
         WHEN s > 0 AND e < s THEN 'before_start' ELSE 'known' END;
-- Seconds from start to end when both are known (start > 0, the end class 'known'), else NULL.
CREATE OR REPLACE MACRO alibaba2018.duration_s(s, e, status) AS
    CASE WHEN s > 0 AND alibaba2018.end_time_class(s, e, status) = 'known' THEN e - s END;

-- The DAG name of a batch task, e.g. 'M5_3_4' (task 5 of kind M depends on tasks 3 and 4),
-- 'J10_7_9_Stg4' (_Stg<n> is not a dependency), 'J30_4_5_25_' (trailing underscore),
-- 'task_<base64>==' and 'MergeTask' (no DAG). form: independent | merge_task | dag | unparsed.
-- Numbers have at most 18 digits (every one fits BIGINT): a longer one makes the name unparsed,
-- never half-parsed.
CREATE OR REPLACE MACRO alibaba2018._dag_core(name) AS
    regexp_replace(rtrim(name, '_'), '_Stg[0-9]+$', '');
CREATE OR REPLACE MACRO alibaba2018.parse_task_name(name) AS struct_pack(
    form := CASE
        WHEN name IS NULL THEN NULL
        WHEN starts_with(name, 'task_') THEN 'independent'
        WHEN name = 'MergeTask' THEN 'merge_task'
        WHEN regexp_full_match(alibaba2018._dag_core(name), '[A-Za-z]+[0-9]{1,18}(_[0-9]{1,18})*') THEN 'dag'
        ELSE 'unparsed' END,
    task_kind := CASE WHEN regexp_full_match(alibaba2018._dag_core(name), '[A-Za-z]+[0-9]{1,18}(_[0-9]{1,18})*')
                      AND NOT starts_with(name, 'task_')
                      THEN regexp_extract(name, '^[A-Za-z]+') END,
    task_id := CASE WHEN regexp_full_match(alibaba2018._dag_core(name), '[A-Za-z]+[0-9]{1,18}(_[0-9]{1,18})*')
                    AND NOT starts_with(name, 'task_')
                    THEN TRY_CAST(regexp_extract(name, '^[A-Za-z]+([0-9]+)', 1) AS BIGINT) END,
    parent_task_ids := CASE WHEN regexp_full_match(alibaba2018._dag_core(name), '[A-Za-z]+[0-9]{1,18}(_[0-9]{1,18})*')
                            AND NOT starts_with(name, 'task_')
                            THEN TRY_CAST(regexp_extract_all(alibaba2018._dag_core(name), '_([0-9]+)', 1) AS BIGINT[])
                            ELSE []::BIGINT[] END,
    stage := TRY_CAST(regexp_extract(rtrim(name, '_'), '_Stg([0-9]+)$', 1) AS INTEGER),
    trailing_underscore := ends_with(name, '_') AND NOT starts_with(name, 'task_')
);

-- The DAG class of a task name without the full parse (cheap enough for 1.35e9 instance rows):
-- no_dag | dag_root | dag_dependent; NULL when the name does not parse.
CREATE OR REPLACE MACRO alibaba2018.dag_class(name) AS
    CASE
        WHEN name IS NULL THEN NULL
        WHEN starts_with(name, 'task_') OR name = 'MergeTask' THEN 'no_dag'
        WHEN regexp_full_match(alibaba2018._dag_core(name), '[A-Za-z]+[0-9]{1,18}') THEN 'dag_root'
        WHEN regexp_full_match(alibaba2018._dag_core(name), '[A-Za-z]+[0-9]{1,18}(_[0-9]{1,18})+') THEN 'dag_dependent'
    END;
