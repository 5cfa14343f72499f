-- name: meta.parts
-- description: which numbered parts (2011 part-NNNNN, 2019 shards) of each table are live, and which are missing inside the run of present parts, derived from the per-file records of meta.ingests.
-- grain: meta.parts one row per live source file with a part number; meta.missing_parts one row per missing part; meta.part_gaps one row per table (and cell) with a gap; meta.part_coverage one row per table (and cell) with numbered parts; meta.table_parts one row per table
-- note: meta.part_number(trace, file) applies the trace module's PART_RULE (warehouse/catalog/parts.py). A part is missing when a smaller and a larger part of the same table (and cell) are present and it is not: parts before the first or after the last present one cannot be told from a shorter download. Data rows carry the same number as seq // 2^32.
CREATE OR REPLACE VIEW meta.parts AS
SELECT trace, table_name, cell, file, meta.part_number(trace, file) AS part
FROM meta.ingests
WHERE is_current AND meta.part_number(trace, file) IS NOT NULL;

CREATE OR REPLACE VIEW meta.missing_parts AS
WITH present AS (SELECT DISTINCT trace, table_name, cell, part FROM meta.parts),
spans AS (
    SELECT trace, table_name, cell, min(part) AS lo, max(part) AS hi FROM present GROUP BY ALL
),
candidates AS (
    SELECT trace, table_name, cell, unnest(range(lo + 1, hi)) AS part FROM spans WHERE hi - lo > 1
)
SELECT c.trace, c.table_name, c.cell, c.part
FROM candidates AS c
ANTI JOIN present AS p
    ON p.trace = c.trace AND p.table_name = c.table_name AND p.cell IS NOT DISTINCT FROM c.cell AND p.part = c.part;

-- Consecutive numbers as ranges "0-1, 499" (islands: part - rank is constant along a run).
CREATE OR REPLACE MACRO meta.part_ranges(parts BIGINT[]) AS (
    SELECT string_agg(CASE WHEN lo = hi THEN lo::VARCHAR ELSE lo || '-' || hi END, ', ' ORDER BY lo)
    FROM (
        SELECT min(p) AS lo, max(p) AS hi
        FROM (SELECT p, p - row_number() OVER (ORDER BY p) AS island FROM unnest(parts) AS u(p))
        GROUP BY island
    )
);

CREATE OR REPLACE VIEW meta.part_gaps AS
SELECT trace, table_name, cell, meta.part_ranges(list(part)) AS missing, count(*) AS missing_parts
FROM meta.missing_parts
GROUP BY ALL;

CREATE OR REPLACE VIEW meta.part_coverage AS
SELECT p.trace, p.table_name, p.cell, meta.part_ranges(list(DISTINCT p.part)) AS present,
       count(DISTINCT p.part) AS present_parts, g.missing, coalesce(g.missing_parts, 0) AS missing_parts
FROM meta.parts AS p
LEFT JOIN meta.part_gaps AS g
    ON g.trace = p.trace AND g.table_name = p.table_name AND g.cell IS NOT DISTINCT FROM p.cell
GROUP BY p.trace, p.table_name, p.cell, g.missing, g.missing_parts;

-- One row per table: the cells of a table listed in one value ("a: 0-1; b: 0"), for info and overview.
CREATE OR REPLACE VIEW meta.table_parts AS
SELECT trace, table_name,
       string_agg(coalesce(cell || ': ', '') || present, '; ' ORDER BY cell) AS parts_present,
       string_agg(coalesce(cell || ': ', '') || missing, '; ' ORDER BY cell) AS parts_missing
FROM meta.part_coverage
GROUP BY ALL;

COMMENT ON VIEW meta.parts IS 'Live source files with their part number (meta.part_number: the trace module part rule)';
COMMENT ON VIEW meta.missing_parts IS 'Parts absent between the smallest and the largest live part of a table (and cell)';
COMMENT ON VIEW meta.part_gaps IS 'Per table (and cell) with a gap: the missing parts as ranges and how many';
COMMENT ON VIEW meta.part_coverage IS 'Per table (and cell) with numbered parts: present parts as ranges, missing parts as ranges';
