-- name: google2011.task_constraints
-- description: task placement constraints with the comparison operator named.
-- grain: one row per constraint record (job_id, task_index, time, attribute_name)
CREATE OR REPLACE VIEW google2011.task_constraints AS
SELECT
    {{event_time r.time}},
    r.job_id,
    r.task_index,
    {{decoded r.comparison_operator}},
    r.attribute_name,
    r.attribute_value,
    TRY_CAST(r.attribute_value AS BIGINT) AS attribute_value_int,
    r.seq,
    r.day
FROM google2011_raw.task_constraints AS r;

COMMENT ON VIEW google2011.task_constraints IS 'Task placement constraints of the 2011 trace';
COMMENT ON COLUMN google2011.task_constraints.comparison_operator_name IS 'EQUAL | NOT_EQUAL (string compare) | LESS_THAN | GREATER_THAN (integer compare)';
COMMENT ON COLUMN google2011.task_constraints.attribute_value_int IS 'attribute_value as an integer when it is one, else NULL';
