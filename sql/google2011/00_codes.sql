-- name: google2011.codes
-- description: every code of the 2011 trace with its name (the one place for them), and the priority tiers.
-- grain: codes one row per (code_set, code); priority_tiers one row per tier
-- note: views decode with google2011.decode(code_set, code) and classify priorities with google2011.priority_tier(p) / google2011.is_production(p): macros built from these two tables when the catalog is built (tracewh.traces.VOCABULARY), so a change here reaches every view.
-- source: the 2011 format document (seeds/google2011_format_ko.txt) and traces.md section 1
CREATE OR REPLACE TABLE google2011.codes AS
SELECT * FROM (VALUES
    ('event_type', 0, 'SUBMIT', 'became eligible for scheduling'),
    ('event_type', 1, 'SCHEDULE', 'scheduled on a machine (started running)'),
    ('event_type', 2, 'EVICT', 'descheduled: a higher-priority task, overcommit, machine down'),
    ('event_type', 3, 'FAIL', 'descheduled: the task failed'),
    ('event_type', 4, 'FINISH', 'completed normally'),
    ('event_type', 5, 'KILL', 'cancelled by the user or a driver program, or a dependency died'),
    ('event_type', 6, 'LOST', 'presumably terminated; the record of its end is missing'),
    ('event_type', 7, 'UPDATE_PENDING', 'scheduling class, requests or constraints updated while pending'),
    ('event_type', 8, 'UPDATE_RUNNING', 'scheduling class, requests or constraints updated while running'),
    ('missing_info', 0, 'SNAPSHOT_BUT_NO_TRANSITION', 'synthesized: seen in a snapshot, no transition event recorded'),
    ('missing_info', 1, 'NO_SNAPSHOT_OR_TRANSITION', 'synthesized: vanished from the snapshot, no end event; time is an upper bound'),
    ('missing_info', 2, 'EXISTS_BUT_NO_CREATION', 'synthesized: exists but its creation was not recorded; metadata may be missing'),
    ('machine_event_type', 0, 'ADD', 'machine became available to the cluster'),
    ('machine_event_type', 1, 'REMOVE', 'machine removed (failure or maintenance)'),
    ('machine_event_type', 2, 'UPDATE', 'machine capacity updated'),
    ('comparison_operator', 0, 'EQUAL', 'attribute equals the value (string comparison, empty when absent)'),
    ('comparison_operator', 1, 'NOT_EQUAL', 'attribute differs from the value (string comparison)'),
    ('comparison_operator', 2, 'LESS_THAN', 'attribute < value (integer comparison, 0 when absent)'),
    ('comparison_operator', 3, 'GREATER_THAN', 'attribute > value (integer comparison, 0 when absent)'),
    ('scheduling_class', 0, 'MOST_INSENSITIVE', 'non-production, least latency-sensitive'),
    ('scheduling_class', 1, 'INSENSITIVE', 'latency-insensitive'),
    ('scheduling_class', 2, 'SENSITIVE', 'latency-sensitive'),
    ('scheduling_class', 3, 'MOST_SENSITIVE', 'most latency-sensitive (e.g. serving revenue-generating requests)')
) AS t(code_set, code, name, description);

-- Bands used in the literature; change the bounds here and every view follows.
-- production = the tier counts as production. The 2011 document's bands are free 0-1, middle
-- 2-8 and production 9-11 (the 10-observations paper: production = priority >= 9); it names no
-- priority number as "monitoring", so 11 is production, not a tier of its own.
CREATE OR REPLACE TABLE google2011.priority_tiers AS
SELECT * FROM (VALUES
    ('free', 0, 1, false, 'lowest priorities, no SLO'),
    ('middle', 2, 8, false, 'batch and best-effort work'),
    ('production', 9, 11, true, 'production priorities')
) AS t(tier, min_priority, max_priority, production, description);

COMMENT ON TABLE google2011.codes IS 'Names of every code of the 2011 trace: event_type, missing_info, machine_event_type, comparison_operator, scheduling_class';
COMMENT ON TABLE google2011.priority_tiers IS 'Priority bands (inclusive bounds); production = the tier is production (the 10-observations paper: priority >= 9)';
