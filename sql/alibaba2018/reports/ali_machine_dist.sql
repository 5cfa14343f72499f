-- name: ali-machine-dist
-- traces: alibaba2018
-- description: per machine, the DAG and no-DAG batch instance schedulings, each normalised to its own maximum, machines in ascending order of DAG schedulings; the correlation of the two distributions with and without the excluded machine
-- params: exclude: str = m_1455
-- reproduces: Alibaba co-location paper, Figure 4: the DAG and no-DAG instance distributions over machines are alike (correlation 0.75 without m_1455), both with visible bands
-- cites: wang2020colocation
-- note: schedulings = batch_instance rows with a machine; DAG = dag_root or dag_dependent, no-DAG = no_dag (unparsable task names in neither). Machines that ran at least one instance are listed (a machine with DAG instances only has no-DAG 0). As in the paper, the no-DAG maximum is taken without the excluded machine (default m_1455, the special machine of Table 7; --param exclude= for none), whose normalised value may then exceed 1; the DAG maximum is over all machines. rank = position in ascending DAG order (ties by no-DAG, then machine id).
-- caveat: the paper leaves m_1455 out of the no-DAG maximum; on another machine set pass --param exclude=
-- plot: x=rank; y=dag_normalised,no_dag_normalised; kind=points; title=DAG and no-DAG instance schedulings per machine (each normalised to its maximum); xlabel=machines in ascending order of DAG schedulings; ylabel=schedulings / maximum of the type
WITH counts AS (
    SELECT machine_id,
           count(*) FILTER (dag_class IN ('dag_root', 'dag_dependent')) AS dag,
           count(*) FILTER (dag_class = 'no_dag') AS no_dag
    FROM alibaba2018.batch_instance WHERE machine_id IS NOT NULL GROUP BY machine_id
),
machines AS (SELECT * FROM counts),
stats AS (
    SELECT max(dag) AS dag_max,
           max(no_dag) FILTER (machine_id IS DISTINCT FROM nullif($exclude, '')) AS no_dag_max,
           corr(dag, no_dag) AS r_all,
           corr(dag, no_dag) FILTER (machine_id IS DISTINCT FROM nullif($exclude, '')) AS r_without
    FROM machines
)
SELECT
    row_number() OVER (ORDER BY m.dag, m.no_dag, m.machine_id) AS rank,
    m.machine_id,
    m.dag AS dag_instances,
    m.no_dag AS no_dag_instances,
    round(m.dag / nullif(s.dag_max, 0), 6) AS dag_normalised,
    round(m.no_dag / nullif(s.no_dag_max, 0), 6) AS no_dag_normalised,
    coalesce(m.machine_id = nullif($exclude, ''), false) AS excluded_from_max,
    -- corr() is NaN when one side does not vary: no correlation to show
    round(CASE WHEN NOT isnan(s.r_all) THEN s.r_all END, 4) AS correlation_all,
    round(CASE WHEN NOT isnan(s.r_without) THEN s.r_without END, 4) AS correlation_without_excluded
FROM machines AS m, stats AS s
ORDER BY rank;
