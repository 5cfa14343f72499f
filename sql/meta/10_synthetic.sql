-- name: meta.synthetic_traces
-- description: the traces whose live data tracewh synth generated (their source folder held its manifest), with the generator settings, so every report, plot and summary on them says the data is synthetic.
-- grain: one row per trace with at least one live synthetic file
CREATE OR REPLACE VIEW meta.synthetic_traces AS
SELECT i.trace, count(*) AS files, min(s.seed) AS seed, max(s.seed) AS max_seed, min(s.scale) AS scale,
       max(s.scale) AS max_scale
FROM meta.ingests AS i
JOIN meta.synthetic AS s
    ON s.ingest_id = i.ingest_id AND s.trace = i.trace AND s.table_name = i.table_name
   AND s.cell IS NOT DISTINCT FROM i.cell AND s.file = i.file
WHERE i.is_current
GROUP BY i.trace;

COMMENT ON VIEW meta.synthetic_traces IS 'Traces whose live data is (at least partly) synthetic: files, and the seeds and scales tracewh synth used';
