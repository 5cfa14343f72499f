-- name: google2011.machine_attributes
-- description: machine attribute values over time, with integer-valued attributes also typed as integers.
-- grain: one row per attribute change (machine_id, attribute_name, time)
CREATE OR REPLACE VIEW google2011.machine_attributes AS
SELECT
    r.time,
    google2011.time_class(r.time) AS time_class,
    google2011.trace_timestamp(r.time) AS event_time,
    r.machine_id,
    r.attribute_name,
    r.attribute_value,
    TRY_CAST(r.attribute_value AS BIGINT) AS attribute_value_int,
    r.attribute_deleted,
    r.seq
FROM google2011_raw.machine_attributes AS r;

COMMENT ON VIEW google2011.machine_attributes IS 'Machine attributes of the 2011 trace (values are hashes or integers)';
COMMENT ON COLUMN google2011.machine_attributes.attribute_value_int IS 'attribute_value as an integer when it is one, else NULL (LESS_THAN/GREATER_THAN constraints compare this, 0 when absent)';
COMMENT ON COLUMN google2011.machine_attributes.time_class IS 'before_window (time 0) | in_window | after_window (time >= 2^63-1)';
COMMENT ON COLUMN google2011.machine_attributes.event_time IS 'Real instant (TIMESTAMPTZ); NULL unless time_class = in_window';
