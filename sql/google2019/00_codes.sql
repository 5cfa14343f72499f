-- name: google2019.codes
-- description: every code of the 2019 trace with its name (the one place for them), and the priority tiers (the cells and their zones come from the trace spec).
-- grain: codes one row per (code_set, code); priority_tiers one row per tier
-- note: views decode with google2019.decode(code_set, code) and classify priorities with google2019.priority_tier(p) / google2019.is_production(p): macros built from these two tables when the catalog is built (tracewh.traces.VOCABULARY), so a change here reaches every view.
-- source: the 2019 format document (seeds/google2019_format_v3.md), traces.md section 2, the 2020 Borg paper (tiers)
CREATE OR REPLACE TABLE google2019.codes AS
SELECT * FROM (VALUES
    ('type', 0, 'SUBMIT', 'submitted to the cluster manager'),
    ('type', 1, 'QUEUE', 'queued (deferred) until the scheduler is ready to act on it'),
    ('type', 2, 'ENABLE', 'eligible for scheduling'),
    ('type', 3, 'SCHEDULE', 'scheduled on a machine'),
    ('type', 4, 'EVICT', 'descheduled: higher priority, overcommit, machine unusable, data lost'),
    ('type', 5, 'FAIL', 'descheduled: user program failure'),
    ('type', 6, 'FINISH', 'completed normally'),
    ('type', 7, 'KILL', 'cancelled, parent exited, or a dependency ended; also uncertain terminations'),
    ('type', 8, 'LOST', 'presumably ended; the record of its end is missing'),
    ('type', 9, 'UPDATE_PENDING', 'updated while pending'),
    ('type', 10, 'UPDATE_RUNNING', 'updated while running'),
    ('missing_type', 0, 'NONE', 'a real record'),
    ('missing_type', 1, 'SNAPSHOT_BUT_NO_TRANSITION', 'synthesized: a later snapshot shows the transition'),
    ('missing_type', 2, 'NO_SNAPSHOT_OR_TRANSITION', 'synthesized: vanished from snapshots; time is an upper bound'),
    ('missing_type', 3, 'EXISTS_BUT_NO_CREATION', 'synthesized: creation not recorded; metadata may be missing'),
    ('missing_type', 4, 'TRANSITION_MISSING_STEP', 'synthesized: a step of the transition was missed'),
    ('missing_type', 5, 'TOO_MANY_EVENTS', 'synthesized: too many events to record them all'),
    ('collection_type', 0, 'JOB', 'a job: its instances are tasks'),
    ('collection_type', 1, 'ALLOC_SET', 'an alloc set: its instances are resource reservations'),
    ('scheduling_class', 0, 'MOST_INSENSITIVE', 'best effort, least latency-sensitive'),
    ('scheduling_class', 1, 'INSENSITIVE', 'latency-insensitive'),
    ('scheduling_class', 2, 'SENSITIVE', 'latency-sensitive'),
    ('scheduling_class', 3, 'MOST_SENSITIVE', 'most latency-sensitive'),
    ('vertical_scaling', 0, 'UNKNOWN', 'not known'),
    ('vertical_scaling', 1, 'OFF', 'no automatic vertical scaling'),
    ('vertical_scaling', 2, 'CONSTRAINED', 'automatic vertical scaling within user bounds'),
    ('vertical_scaling', 3, 'FULLY_AUTOMATED', 'fully automatic vertical scaling'),
    ('scheduler', 0, 'DEFAULT', 'the default Borg scheduler'),
    ('scheduler', 1, 'BATCH', 'the batch scheduler'),
    ('machine_event_type', 0, 'UNKNOWN', 'not known'),
    ('machine_event_type', 1, 'ADD', 'machine became available to the cell'),
    ('machine_event_type', 2, 'REMOVE', 'machine removed (failure or maintenance)'),
    ('machine_event_type', 3, 'UPDATE', 'machine capacity changed'),
    ('missing_data_reason', 0, 'NONE', 'no data was missing'),
    ('missing_data_reason', 1, 'SNAPSHOT_BUT_NO_TRANSITION', 'synthesized from a snapshot'),
    ('constraint_relation', 0, 'EQUAL', 'attribute equals the value'),
    ('constraint_relation', 1, 'NOT_EQUAL', 'attribute differs from the value'),
    ('constraint_relation', 2, 'LESS_THAN', 'attribute < value'),
    ('constraint_relation', 3, 'GREATER_THAN', 'attribute > value'),
    ('constraint_relation', 4, 'LESS_THAN_EQUAL', 'attribute <= value'),
    ('constraint_relation', 5, 'GREATER_THAN_EQUAL', 'attribute >= value'),
    ('constraint_relation', 6, 'PRESENT', 'attribute is present'),
    ('constraint_relation', 7, 'NOT_PRESENT', 'attribute is absent')
) AS t(code_set, code, name, description);

-- The tier table of the 2020 Borg paper (the seeds disagree with each other: change the bounds
-- here and every view follows). Inclusive bounds.
-- production = the tier counts as production (production tier and above: priority >= 120).
CREATE OR REPLACE TABLE google2019.priority_tiers AS
SELECT * FROM (VALUES
    ('free', 0, 99, false, 'free tier: no SLO, lowest priorities'),
    ('best-effort batch', 100, 115, false, 'best-effort batch (beb)'),
    ('mid', 116, 119, false, 'mid tier'),
    ('production', 120, 359, true, 'production tier'),
    ('monitoring', 360, 2147483647, true, 'monitoring (highest)')
) AS t(tier, min_priority, max_priority, production, description);

COMMENT ON TABLE google2019.codes IS 'Names of every code of the 2019 trace: type, missing_type, collection_type, scheduling_class, vertical_scaling, scheduler, machine_event_type, missing_data_reason, constraint_relation';
COMMENT ON TABLE google2019.priority_tiers IS 'Priority tiers of the 2020 Borg paper (inclusive bounds): free, best-effort batch, mid, production, monitoring; production = the tier is production';
