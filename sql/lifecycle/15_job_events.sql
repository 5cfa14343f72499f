-- name: lifecycle.job_events
-- description: job (2011) / job-collection (2019) events of every Google trace in one shape.
-- grain: one row per job event (trace, cell, job_id, time, seq)
CREATE OR REPLACE VIEW lifecycle.job_events AS
SELECT trace, cell, job_id, time, seq, time_class, event_type_name, is_synthesized
FROM {{union lifecycle_job_events}};

COMMENT ON VIEW lifecycle.job_events IS 'Job events of every Google trace (2019: collections of type JOB)';
