-- name: table_rows_match_ingests
-- description: each table's recorded row count equals the rows written by its current source files
-- grain: one row per offending (trace, table_name)
SELECT t.trace, t.table_name, t.rows AS table_rows, sum(i.rows_written) AS rows_written_by_current_files
FROM meta.tables AS t
JOIN meta.ingests AS i ON i.trace = t.trace AND i.table_name = t.table_name AND i.is_current
GROUP BY ALL
HAVING t.rows <> sum(i.rows_written);
