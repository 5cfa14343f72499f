-- name: ali-machines
-- traces: alibaba2018
-- description: per machine, DAG and no-DAG batch instance counts (top machines by no-DAG instances) and the correlation of the two per-machine distributions
-- params: top: int > 0 = 20
-- reproduces: Alibaba co-location paper, Table 7: m_1455 runs the most no-DAG instances (133,522), next m_3761 (14,313); correlation of the DAG and no-DAG distributions 0.75
-- cites: wang2020colocation
-- note: instances = batch_instance rows (schedulings) with a machine; DAG = dag_root or dag_dependent. The correlation (Pearson, over machines with any instance) is repeated on every row.
-- caveat: instance counts are of the ingested batch_instance rows
WITH per_machine AS (
    SELECT machine_id,
           count(*) FILTER (dag_class IN ('dag_root', 'dag_dependent')) AS dag_instances,
           count(*) FILTER (dag_class = 'no_dag') AS no_dag_instances
    FROM alibaba2018.batch_instance
    WHERE machine_id IS NOT NULL
    GROUP BY machine_id
),
corr AS (SELECT corr(dag_instances, no_dag_instances) AS r, count(*) AS machines FROM per_machine)
SELECT
    row_number() OVER (ORDER BY p.no_dag_instances DESC, p.dag_instances DESC, p.machine_id) AS rank,
    p.machine_id,
    p.no_dag_instances,
    p.dag_instances,
    c.machines AS machines_with_instances,
    round(c.r, 4) AS correlation,
    CASE p.machine_id WHEN 'm_1455' THEN 133522 WHEN 'm_3761' THEN 14313 END AS published_no_dag_instances
FROM per_machine AS p, corr AS c
ORDER BY rank
LIMIT $top;
