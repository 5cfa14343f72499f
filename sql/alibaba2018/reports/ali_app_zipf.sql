-- name: ali-app-zipf
-- traces: alibaba2018
-- description: containers per application (app_du) by rank, and the Zipf fit log10(containers) = log10(C) - alpha log10(rank) by least squares from rank 1 and from rank 10
-- params: none
-- reproduces: Alibaba co-location paper, Figure 5: containers per app_du follow Zipf with alpha 0.579 (C 949, R^2 0.858) from rank 1, alpha 0.729 (C 2270, R^2 0.941) from rank 10
-- cites: wang2020colocation
-- note: containers = distinct container_id per app_du in container_meta; ranks 1..n by descending count (ties in name order). Fit rows first, then the ranked apps. r2 is NULL when every fitted app has the same count (zero variance: no fit to judge).
-- caveat: the fit is over the ingested container_meta; a few apps cannot judge a Zipf law
-- plot: x=rank; y=containers; kind=points; where=rank; title=Containers per application (rank-frequency); xlabel=rank (log scale); ylabel=containers (log scale); logx=true; logy=true; powerlaw=c,alpha
WITH apps AS (
    SELECT app_du, count(DISTINCT container_id) AS containers
    FROM alibaba2018.container_meta WHERE app_du IS NOT NULL GROUP BY app_du
),
ranked AS (
    SELECT app_du, containers, row_number() OVER (ORDER BY containers DESC, app_du) AS rank FROM apps
),
fits AS (
    SELECT 'fit from rank 1' AS what, 1 AS from_rank, count(*) AS points,
           -regr_slope(log10(containers), log10(rank)) AS alpha,
           10 ^ regr_intercept(log10(containers), log10(rank)) AS c,
           -- R^2 is undefined when the counts do not vary (regr_r2 would say 1.0): NULL then
           CASE WHEN var_pop(log10(containers)) > 0 THEN regr_r2(log10(containers), log10(rank)) END AS r2,
           0.579 AS published_alpha, 949 AS published_c, 0.858 AS published_r2
    FROM ranked
    UNION ALL
    SELECT 'fit from rank 10', 10, count(*), -regr_slope(log10(containers), log10(rank)),
           10 ^ regr_intercept(log10(containers), log10(rank)),
           CASE WHEN var_pop(log10(containers)) > 0 THEN regr_r2(log10(containers), log10(rank)) END,
           0.729, 2270, 0.941
    FROM ranked WHERE rank >= 10
)
SELECT what, NULL::BIGINT AS rank, NULL AS app_du, points AS containers, round(alpha, 4) AS alpha, round(c, 2) AS c,
       round(r2, 4) AS r2, published_alpha, published_c, published_r2
FROM fits
UNION ALL
SELECT 'app', rank, app_du, containers, NULL, NULL, NULL, NULL, NULL, NULL FROM ranked
ORDER BY rank NULLS FIRST, what;
