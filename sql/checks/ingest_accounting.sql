-- name: ingest_accounting
-- description: every source file's rows read equal rows written plus rows rejected, and its rejects are all in meta.rejects
-- grain: one row per offending (ingest_id, trace, table_name, file)
SELECT i.ingest_id, i.trace, i.table_name, i.file, i.rows_read, i.rows_written, i.rows_rejected,
       (SELECT count(*) FROM meta.rejects AS r
         WHERE r.ingest_id = i.ingest_id AND r.trace = i.trace
           AND r.table_name = i.table_name AND r.cell IS NOT DISTINCT FROM i.cell AND r.file = i.file) AS rejects_recorded
FROM meta.ingests AS i
WHERE i.rows_read <> i.rows_written + i.rows_rejected
   OR i.rows_rejected <> (SELECT count(*) FROM meta.rejects AS r
                           WHERE r.ingest_id = i.ingest_id AND r.trace = i.trace
                             AND r.table_name = i.table_name AND r.cell IS NOT DISTINCT FROM i.cell AND r.file = i.file);
