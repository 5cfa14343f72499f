-- name: alibaba2017.tables
-- description: the six tables of the 2017 trace as views over the raw ones, each time with its class: before_window (0 and negative: before the trace period, as trace_201708.md says) or in_window (alibaba2017.time_class, made from the spec).
-- grain: one row per raw row; the time class columns are <time column>_class
-- source: https://github.com/alibaba/clusterdata/blob/master/cluster-trace-v2017/trace_201708.md and schema.csv of the same folder
CREATE OR REPLACE VIEW alibaba2017.server_event AS
SELECT r.*, {{time_class r."timestamp"}}
FROM alibaba2017_raw.server_event AS r;
COMMENT ON VIEW alibaba2017.server_event IS 'Machine events of the 2017 trace (add at 0, softerror, harderror) with capacities';

CREATE OR REPLACE VIEW alibaba2017.server_usage AS
SELECT r.*, {{time_class r."timestamp"}}
FROM alibaba2017_raw.server_usage AS r;
COMMENT ON VIEW alibaba2017.server_usage IS 'Machine utilisation samples (percent) and load averages';

CREATE OR REPLACE VIEW alibaba2017.batch_task AS
SELECT r.*, {{time_class r.create_timestamp}},
       {{time_class r.modify_timestamp}}
FROM alibaba2017_raw.batch_task AS r;
COMMENT ON VIEW alibaba2017.batch_task IS 'Batch tasks: create and latest-change times, instances, status, requests';

-- An instance that has not started (Ready, Waiting) has 0 for both times, one that has not ended
-- (Running, Failed) 0 for its end: 0 there is "no such time", classed before_window like every 0.
CREATE OR REPLACE VIEW alibaba2017.batch_instance AS
SELECT r.*, {{time_class r.start_timestamp}},
       {{time_class r.end_timestamp}}
FROM alibaba2017_raw.batch_instance AS r;
COMMENT ON VIEW alibaba2017.batch_instance IS 'Batch instance tries: times, machine, status, usage; job and task ids empty in some rows';
COMMENT ON COLUMN alibaba2017.batch_instance.start_timestamp_class IS 'before_window (0: not started, or negative: before the trace period) | in_window';
COMMENT ON COLUMN alibaba2017.batch_instance.end_timestamp_class IS 'before_window (0: not ended, or negative: before the trace period) | in_window';

CREATE OR REPLACE VIEW alibaba2017.container_event AS
SELECT r.*, {{time_class r.ts}}
FROM alibaba2017_raw.container_event AS r;
COMMENT ON VIEW alibaba2017.container_event IS 'Online instance (container) creations and removals with requests and cpusets';
COMMENT ON COLUMN alibaba2017.container_event.ts_class IS 'before_window (0: created before the trace, or negative) | in_window';

CREATE OR REPLACE VIEW alibaba2017.container_usage AS
SELECT r.*, {{time_class r.ts}}
FROM alibaba2017_raw.container_usage AS r;
COMMENT ON VIEW alibaba2017.container_usage IS 'Online instance utilisation samples';
