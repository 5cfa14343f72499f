-- name: google2011.machine_attributes
-- description: machine attribute values over time, with integer-valued attributes also typed as integers.
-- grain: one row per attribute change (machine_id, attribute_name, time)
CREATE OR REPLACE VIEW google2011.machine_attributes AS
SELECT
    {{event_time r.time}},
    r.machine_id,
    r.attribute_name,
    r.attribute_value,
    TRY_CAST(r.attribute_value AS BIGINT) AS attribute_value_int,
    r.attribute_deleted,
    r.seq
FROM google2011_raw.machine_attributes AS r;

COMMENT ON VIEW google2011.machine_attributes IS 'Machine attributes of the 2011 trace (values are hashes or integers)';
COMMENT ON COLUMN google2011.machine_attributes.attribute_value_int IS 'attribute_value as an integer when it is one, else NULL (LESS_THAN/GREATER_THAN constraints compare this, 0 when absent)';
