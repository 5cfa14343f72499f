-- name: alibaba2018.container_meta
-- description: online containers with requests in cores beside the 100-per-core values.
-- grain: one row per (container_id, time_stamp) record
CREATE OR REPLACE VIEW alibaba2018.container_meta AS
SELECT
    r.container_id,
    r.machine_id,
    r.time_stamp,
    alibaba2018.time_stamp_class(r.time_stamp) AS time_class,
    alibaba2018.trace_offset(r.time_stamp) AS time_offset,
    r.app_du,
    r.status,
    r.cpu_request,
    r.cpu_limit,
    alibaba2018.cores(r.cpu_request) AS cpu_request_cores,
    alibaba2018.cores(r.cpu_limit) AS cpu_limit_cores,
    r.mem_size,
    r.seq
FROM alibaba2018_raw.container_meta AS r;

-- name: alibaba2018.container_usage
-- description: container utilisation samples, invalid percents NULL with raw values kept.
-- grain: one row per (container_id, time_stamp) sample
CREATE OR REPLACE VIEW alibaba2018.container_usage AS
SELECT
    r.container_id,
    r.machine_id,
    r.time_stamp,
    alibaba2018.time_stamp_class(r.time_stamp) AS time_class,
    alibaba2018.trace_offset(r.time_stamp) AS time_offset,
    alibaba2018.valid_percent(r.cpu_util_percent) AS cpu_util_percent,
    alibaba2018.valid_percent(r.mem_util_percent) AS mem_util_percent,
    r.cpi,
    r.mem_gps,
    r.mpki,
    alibaba2018.valid_percent(r.net_in) AS net_in,
    alibaba2018.valid_percent(r.net_out) AS net_out,
    alibaba2018.valid_percent(r.disk_io_percent) AS disk_io_percent,
    r.cpu_util_percent AS cpu_util_percent_raw,
    r.mem_util_percent AS mem_util_percent_raw,
    r.net_in AS net_in_raw,
    r.net_out AS net_out_raw,
    r.disk_io_percent AS disk_io_percent_raw,
    r.day,
    r.seq
FROM alibaba2018_raw.container_usage AS r;

COMMENT ON VIEW alibaba2018.container_meta IS 'Online containers: machine, app_du, status, cpu request/limit (100 per core and in cores), memory';
COMMENT ON VIEW alibaba2018.container_usage IS 'Container utilisation samples; percents outside 0..100 are NULL, raw values in *_raw';
COMMENT ON COLUMN alibaba2018.container_meta.cpu_request_cores IS 'cpu_request in cores (cpu_request / 100)';
COMMENT ON COLUMN alibaba2018.container_meta.time_class IS 'at_trace_start (time_stamp 0: the container existed when the trace began) | in_trace';
COMMENT ON COLUMN alibaba2018.container_usage.time_class IS 'at_trace_start (time_stamp 0: sampled when the trace began) | in_trace';
