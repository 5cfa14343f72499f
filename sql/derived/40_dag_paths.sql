-- name: derived.dag_paths
-- description: per batch job, the walk of its task DAG (warehouse/catalog/dag.py): status ok | cycle | unknown_times, critical path, DAG tasks, the task ids on or behind a cycle; stored at ingest, so the DAG reports read it instead of walking every job.
-- grain: one row per (trace, job_name)
-- python: dag_paths
-- sort: job_name
-- note: the statement below is the walk's input for each trace whose SQL creates the views it reads ({{trace}}: the trace's schema); stored for those traces (the Alibaba batch jobs); the stored table holds the walk's rows (tracewh.catalog.dag.PATHS_SCHEMA) with trace first and input_hash last: bit_xor of the hash of each input row of the job, which with the row count (tasks) tells an ingest which jobs' input changed. An ingest that changes batch_task walks only those jobs (meta.derived.tasks_recomputed counts the jobs walked) and keeps the other rows; nothing is stored for a catalog written before the table existed (the reports then walk every job themselves, and the view is empty).
SELECT job_name, task_id, parent_task_ids, run_s, times_known FROM {{trace}}.dag_tasks
