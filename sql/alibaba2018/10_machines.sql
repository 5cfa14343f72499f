-- name: alibaba2018.machine_meta
-- description: machines and their status over time, failure domain 2 typed, time as seconds and as an offset from the trace start.
-- grain: one row per (machine_id, time_stamp) status record
CREATE OR REPLACE VIEW alibaba2018.machine_meta AS
SELECT
    r.machine_id,
    r.time_stamp,
    alibaba2018.trace_offset(r.time_stamp) AS time_offset,
    r.failure_domain_1,
    r.failure_domain_2,
    TRY_CAST(r.failure_domain_2 AS BIGINT) AS failure_domain_2_int,
    r.cpu_num,
    r.mem_size,
    r.status,
    r.seq
FROM alibaba2018_raw.machine_meta AS r;

-- name: alibaba2018.machine_usage
-- description: machine utilisation samples with invalid percents (-1, 101) as NULL and the raw values kept.
-- grain: one row per (machine_id, time_stamp) sample
CREATE OR REPLACE VIEW alibaba2018.machine_usage AS
SELECT
    r.machine_id,
    r.time_stamp,
    alibaba2018.trace_offset(r.time_stamp) AS time_offset,
    alibaba2018.valid_percent(r.cpu_util_percent) AS cpu_util_percent,
    alibaba2018.valid_percent(r.mem_util_percent) AS mem_util_percent,
    r.mem_gps,
    r.mkpi,
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
FROM alibaba2018_raw.machine_usage AS r;

COMMENT ON VIEW alibaba2018.machine_meta IS 'Machines of the Alibaba 2018 trace: failure domains, cores (cpu_num), memory, status over time';
COMMENT ON VIEW alibaba2018.machine_usage IS 'Machine utilisation samples; percents outside 0..100 (-1, 101) are NULL, raw values in *_raw';
COMMENT ON COLUMN alibaba2018.machine_meta.failure_domain_2_int IS 'failure_domain_2 as an integer (documented as text, holds integers or empty)';
COMMENT ON COLUMN alibaba2018.machine_meta.time_offset IS 'time_stamp as an INTERVAL since the trace start';
