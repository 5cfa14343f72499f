-- name: meta
-- description: the metadata tables every ingest writes: what was read from where, what was rejected, what each table holds.
-- grain: meta.ingests one row per source file per ingest; meta.derived one row per (trace, derived table); meta.synthetic one row per ingested file tracewh synth generated; meta.rejects one row per rejected line; meta.tables one row per ingested trace table
CREATE SCHEMA IF NOT EXISTS meta;

CREATE TABLE IF NOT EXISTS meta.catalog (
    key VARCHAR PRIMARY KEY,
    value VARCHAR
);

CREATE TABLE IF NOT EXISTS meta.ingests (
    ingest_id VARCHAR NOT NULL,
    trace VARCHAR NOT NULL,
    table_name VARCHAR NOT NULL,
    cell VARCHAR,
    file VARCHAR NOT NULL,
    source_path VARCHAR NOT NULL,
    size_bytes BIGINT NOT NULL,
    sha256 VARCHAR,
    sha256_verified BOOLEAN NOT NULL,
    rows_read BIGINT NOT NULL,
    rows_written BIGINT NOT NULL,
    rows_rejected BIGINT NOT NULL,
    duplicate_lines BIGINT,
    started TIMESTAMPTZ NOT NULL,
    finished TIMESTAMPTZ NOT NULL,
    mode VARCHAR NOT NULL,
    is_current BOOLEAN NOT NULL,
    tracewh_version VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS meta.rejects (
    ingest_id VARCHAR NOT NULL,
    trace VARCHAR NOT NULL,
    table_name VARCHAR NOT NULL,
    cell VARCHAR,
    file VARCHAR NOT NULL,
    line BIGINT,
    column_name VARCHAR,
    error_type VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    raw VARCHAR
);

CREATE TABLE IF NOT EXISTS meta.tables (
    trace VARCHAR NOT NULL,
    table_name VARCHAR NOT NULL,
    data_dir VARCHAR NOT NULL,
    files BIGINT NOT NULL,
    partitions BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    rows BIGINT NOT NULL,
    rows_rejected BIGINT NOT NULL,
    min_time BIGINT,
    max_time BIGINT,
    first_time TIMESTAMPTZ,
    last_time TIMESTAMPTZ,
    distinct_jobs BIGINT,
    approx_distinct_tasks BIGINT,
    distinct_machines BIGINT,
    updated TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (trace, table_name)
);

CREATE TABLE IF NOT EXISTS meta.synthetic (
    ingest_id VARCHAR NOT NULL,
    trace VARCHAR NOT NULL,
    table_name VARCHAR NOT NULL,
    cell VARCHAR,
    file VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    scale DOUBLE NOT NULL,
    generator_version INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS meta.derived (
    trace VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    data_dir VARCHAR NOT NULL,
    rows BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    writer_id VARCHAR NOT NULL,
    tasks_recomputed BIGINT,
    updated TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (trace, name)
);

COMMENT ON TABLE meta.derived IS 'Per trace and derived table (sql/derived: task_episodes, task_transitions, tasks, observed_segments, task_usage_hourly, ...): its live Parquet generation, written by the ingest that last changed the trace''s task events (task_usage_hourly: its task usage), in the same commit';
COMMENT ON COLUMN meta.derived.data_dir IS 'Live Parquet generation of the derived table, relative to the home folder';
COMMENT ON COLUMN meta.derived.writer_id IS 'The ingest that wrote it';
COMMENT ON COLUMN meta.derived.tasks_recomputed IS 'Tasks the ingest recomputed (those with events in the parts it wrote or replaced; task_usage_hourly and attempt_usage_hourly after an ingest of usage: those with a usage window in the hours its parts hold), the other rows kept; NULL = rebuilt whole from the events (or windows); the usage tables (task_usage_hourly, attempt_usage_hourly) keep the files of the days an ingest of usage does not touch';
COMMENT ON TABLE meta.ingests IS 'One row per source file per ingest: rows_read = rows_written + rows_rejected; is_current = its rows are in the live data';
COMMENT ON TABLE meta.rejects IS 'Every rejected source line: file, line number (1-based), reason and the raw text';
COMMENT ON TABLE meta.synthetic IS 'Every ingested file that tracewh synth generated (its folder held the synth manifest listing it), with the generator settings: reports on such data are labelled synthetic';
COMMENT ON TABLE meta.tables IS 'Per ingested trace table: rows, time range (raw and as real instants), partitions, bytes, distinct entities';
COMMENT ON COLUMN meta.ingests.duplicate_lines IS 'Lines identical to the line just before them (blank lines aside), kept as rows: the traces hold real exact duplicates; NULL = not counted (an older ingest)';
COMMENT ON COLUMN meta.tables.data_dir IS 'Live Parquet generation, relative to the home folder';
COMMENT ON COLUMN meta.tables.min_time IS 'Smallest in-window raw time (special values excluded)';
COMMENT ON COLUMN meta.tables.max_time IS 'Largest in-window raw time (special values excluded)';
COMMENT ON COLUMN meta.tables.approx_distinct_tasks IS 'Distinct tasks ((job_id, task_index); Alibaba (job_name, task_name)), exact for tables ingested by this version (earlier ones: a HyperLogLog estimate, a few % off); the name is kept so existing catalogs stay readable';
