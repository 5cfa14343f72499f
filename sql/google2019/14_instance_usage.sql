-- name: google2019.instance_usage
-- description: instance resource usage per measurement window per cell, the usage structs flattened (average_cpus, maximum_memory, ...) beside the structs.
-- grain: one row per (cell, collection_id, instance_index, machine_id, start_time) window
-- note: random_sample_usage is also read from the field name random_sampled_usage (the format document's name). cpu_usage_distribution keeps whatever length the record has.
CREATE OR REPLACE VIEW google2019.instance_usage AS
SELECT
    {{window r.start_time, r.end_time}},
    r.cell,
    r.collection_id,
    coalesce(r.instance_index, 0) AS instance_index,
    r.machine_id,
    CASE WHEN r.machine_id > 0 THEN r.machine_id END AS placed_machine_id,
    google2019.nonzero(r.alloc_collection_id) AS alloc_collection_id,
    coalesce(r.alloc_instance_index, 0) AS alloc_instance_index,
    {{decoded r.collection_type}},
    r.average_usage,
    r.maximum_usage,
    r.random_sample_usage,
    CASE WHEN r.average_usage IS NOT NULL THEN coalesce(r.average_usage.cpus, 0) END AS average_cpus,
    CASE WHEN r.average_usage IS NOT NULL THEN coalesce(r.average_usage.memory, 0) END AS average_memory,
    CASE WHEN r.maximum_usage IS NOT NULL THEN coalesce(r.maximum_usage.cpus, 0) END AS maximum_cpus,
    CASE WHEN r.maximum_usage IS NOT NULL THEN coalesce(r.maximum_usage.memory, 0) END AS maximum_memory,
    CASE WHEN r.random_sample_usage IS NOT NULL THEN coalesce(r.random_sample_usage.cpus, 0) END AS random_sample_cpus,
    r.assigned_memory,
    r.page_cache_memory,
    r.cycles_per_instruction,
    r.memory_accesses_per_instruction,
    r.sample_rate,
    coalesce(r.cpu_usage_distribution, []) AS cpu_usage_distribution,
    coalesce(r.tail_cpu_usage_distribution, []) AS tail_cpu_usage_distribution,
    r.day,
    r.seq
FROM google2019_raw.instance_usage AS r;

COMMENT ON VIEW google2019.instance_usage IS 'Instance usage of the 2019 trace per window (<= 300 s) per cell; structs flattened to average_cpus, average_memory, maximum_cpus, ...';
COMMENT ON COLUMN google2019.instance_usage.average_cpus IS 'Mean CPU usage over the window, normalised compute units';
