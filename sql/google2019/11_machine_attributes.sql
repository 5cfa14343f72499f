-- name: google2019.machine_attributes
-- description: machine attribute values per cell, integer values also typed as integers.
-- grain: one row per attribute change (cell, machine_id, name, time)
CREATE OR REPLACE VIEW google2019.machine_attributes AS
SELECT
    {{event_time r.time}},
    r.cell,
    r.machine_id,
    r.name,
    r.value,
    TRY_CAST(r.value AS BIGINT) AS value_int,
    coalesce(r.deleted, false) AS deleted,
    r.seq
FROM google2019_raw.machine_attributes AS r;

COMMENT ON VIEW google2019.machine_attributes IS 'Machine attributes of the 2019 trace per cell (values are hashes or small integers)';
COMMENT ON COLUMN google2019.machine_attributes.value_int IS 'value as an integer when it is one, else NULL';
