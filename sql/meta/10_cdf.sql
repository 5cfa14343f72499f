-- name: meta.cdf
-- description: the distribution of v at 101 levels (0, 0.01, ..., 1) for the CDF charts of reports; a report returns it in a `_cdf` column, which only its chart reads.
-- params: v = the values of one group (an aggregate: use it where quantile_cont could stand)
CREATE OR REPLACE MACRO meta.cdf(v) AS quantile_cont(v, list_transform(range(101), lambda x: x / 100));
