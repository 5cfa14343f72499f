-- name: lifecycle.left_out
-- description: the source rows each trace's life-cycle adapters leave out on purpose (2019: instances of alloc sets), so a report over the life-cycle views can say it counts less, or nothing, and why.
-- grain: one row per (trace, cell, what)
-- note: the UNION of every trace's adapter view <trace>.lifecycle_left_out (a trace that leaves nothing out has none); left_out of total source rows.
CREATE OR REPLACE VIEW lifecycle.left_out AS
SELECT trace, cell, what, left_out, total FROM {{union lifecycle_left_out}};

COMMENT ON VIEW lifecycle.left_out IS 'Per trace and cell: source rows the life-cycle views leave out on purpose (what, left_out of total)';
COMMENT ON COLUMN lifecycle.left_out.left_out IS 'Source rows left out of the life-cycle views (e.g. 2019 instance events of alloc sets)';
COMMENT ON COLUMN lifecycle.left_out.total IS 'Source rows of that table in the cell';
