-- name: google2019.macros
-- description: the export's defaults as a macro (the time macros are built from the trace spec: tracewh.traces.prelude_sql).
-- params: x = a 64-bit id or code as exported
-- source: the 2019 format document (seeds/google2019_format_v3.md): an absent field holds its default

-- absent, NULL and 0 mean the same for machine_id, alloc_collection_id, missing_type, parent ids
CREATE OR REPLACE MACRO google2019.nonzero(x BIGINT) AS CASE WHEN x <> 0 THEN x END;
