-- name: lifecycle.codes
-- description: what each life-cycle event means for a task (its kind) and the documented state machine, shared by the Google traces.
-- grain: event_kinds one row per event name; documented_transitions one row per allowed (from_event, to_event)
-- source: the 2011 format document (pending -> running -> dead, resubmission from dead) and the 2019 format document (QUEUE, ENABLE)
CREATE SCHEMA IF NOT EXISTS lifecycle;

CREATE OR REPLACE TABLE lifecycle.event_kinds AS
SELECT * FROM (VALUES
    ('SUBMIT', 'submit', 'enters the pending state'),
    ('QUEUE', 'pending', 'waits for its turn (2019)'),
    ('ENABLE', 'pending', 'eligible to be scheduled (2019)'),
    ('SCHEDULE', 'schedule', 'starts running on a machine'),
    ('EVICT', 'end', 'descheduled by the system'),
    ('FAIL', 'end', 'failed'),
    ('FINISH', 'end', 'completed normally'),
    ('KILL', 'end', 'cancelled'),
    ('LOST', 'end', 'ended, record missing'),
    ('UPDATE_PENDING', 'update', 'changed while pending'),
    ('UPDATE_RUNNING', 'update', 'changed while running')
) AS t(event, kind, meaning);

-- After collapsing UPDATE_* (as the 10-observations paper does). '(start)' is a task's first event.
-- SUBMIT -> EVICT (evicted while pending) and SUBMIT -> SUBMIT are NOT in the documented machine:
-- the paper found the first in the data and never the second; the transitions report marks them.
CREATE OR REPLACE TABLE lifecycle.documented_transitions AS
SELECT * FROM (VALUES
    ('(start)', 'SUBMIT'),
    ('SUBMIT', 'QUEUE'), ('SUBMIT', 'ENABLE'), ('QUEUE', 'ENABLE'),
    ('SUBMIT', 'SCHEDULE'), ('ENABLE', 'SCHEDULE'),
    ('SUBMIT', 'FAIL'), ('SUBMIT', 'KILL'), ('SUBMIT', 'LOST'),
    ('QUEUE', 'FAIL'), ('QUEUE', 'KILL'), ('QUEUE', 'LOST'),
    ('ENABLE', 'FAIL'), ('ENABLE', 'KILL'), ('ENABLE', 'LOST'),
    ('SCHEDULE', 'EVICT'), ('SCHEDULE', 'FAIL'), ('SCHEDULE', 'FINISH'),
    ('SCHEDULE', 'KILL'), ('SCHEDULE', 'LOST'),
    ('EVICT', 'SUBMIT'), ('FAIL', 'SUBMIT'), ('FINISH', 'SUBMIT'), ('KILL', 'SUBMIT'), ('LOST', 'SUBMIT')
) AS t(from_event, to_event);

-- One sortable key for "(time, seq)" order (time first, the source order on ties): a 128-bit
-- integer compares much faster than a (time, seq) struct in arg_min / arg_max.
CREATE OR REPLACE MACRO lifecycle.event_order(time, seq) AS time::HUGEINT * 9223372036854775808 + seq;

COMMENT ON TABLE lifecycle.event_kinds IS 'Kind of each life-cycle event: submit | pending | schedule | end | update';
COMMENT ON TABLE lifecycle.documented_transitions IS 'The documented task state machine after collapsing UPDATE_*; (start) = first event of a task';
