-- name: lifecycle.in_gap
-- description: whether a time bucket of a report overlaps a missing span (derived.missing_spans): a file of its own, so a report that calls it needs no view of the observed window (and no task event) registered.
-- grain: a scalar macro, no rows
-- Whether the missing span (t0, t1) of span_trace / span_cell lies, even in part, in time bucket
-- number `bucket` (buckets of bucket_s seconds from raw time 0) of of_trace, in the cell of_cell or
-- (NULL) any: a bucket of a report is in_gap when some span of derived.missing_spans does.
CREATE OR REPLACE MACRO lifecycle.in_gap(
    span_trace VARCHAR, span_cell VARCHAR, t0 BIGINT, t1 BIGINT,
    of_trace VARCHAR, of_cell VARCHAR, bucket BIGINT, bucket_s BIGINT
) AS span_trace = of_trace AND (of_cell IS NULL OR span_cell = of_cell)
    AND bucket * meta.time_units(of_trace, bucket_s) < t1
    AND (bucket + 1) * meta.time_units(of_trace, bucket_s) > t0 + 1;
