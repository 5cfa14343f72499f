"""The reports that compute the official clusterdata 2019 example notebook's definitions
(clusterdata_analysis_colab.ipynb of github.com/google/cluster-data) against the notebook's own
queries, ported to DuckDB with only the table names and the BigQuery functions adapted
(`google.com:google-cluster-data`.clusterdata_2019_<cell>.X -> google2019.X of that cell; INT64 ->
BIGINT; APPROX_QUANTILES -> exact quantiles at the levels the report prints), and run on the same
hand-built cell (tests/handbuilt.py notebook_google2019), whose answers are also worked out by hand.
"""

from __future__ import annotations

import duckdb
import pytest

from tracewh import reports

CELL = "a"

# the notebook's query_cell_capacity, query_per_instance_usage_priority and
# query_per_tier_utilization_time_series, composed as the notebook composes them
NOTEBOOK_CELL_CAPACITY = """
SELECT SUM(cpu_cap) AS cpu_capacity, SUM(memory_cap) AS memory_capacity
FROM (
  SELECT machine_id, MAX(capacity.cpus) AS cpu_cap, MAX(capacity.memory) AS memory_cap
  FROM (SELECT * FROM google2019.machine_events WHERE cell = 'a')
  GROUP BY 1
)
"""
NOTEBOOK_INSTANCE_USAGE_PRIORITY = """
SELECT u.time AS time, u.collection_id AS collection_id, u.instance_index AS instance_index,
  e.priority AS priority,
  CASE
    WHEN e.priority BETWEEN 0 AND 99 THEN '1_free'
    WHEN e.priority BETWEEN 100 AND 115 THEN '2_beb'
    WHEN e.priority BETWEEN 116 AND 119 THEN '3_mid'
    ELSE '4_prod'
  END AS tier,
  u.cpu_usage AS cpu_usage, u.memory_usage AS memory_usage
FROM (
  SELECT start_time AS time, collection_id, instance_index, machine_id,
    average_usage.cpus AS cpu_usage, average_usage.memory AS memory_usage
  FROM (SELECT * FROM google2019.instance_usage WHERE cell = 'a')
  WHERE (alloc_collection_id IS NULL OR alloc_collection_id = 0)
    AND (end_time - start_time) >= (5 * 60 * 1e6)
) AS u JOIN (
  SELECT collection_id, instance_index, machine_id, MAX(priority) AS priority
  FROM (SELECT * FROM google2019.instance_events WHERE cell = 'a')
  WHERE (alloc_collection_id IS NULL OR alloc_collection_id = 0)
  GROUP BY 1, 2, 3
) AS e ON u.collection_id = e.collection_id
  AND u.instance_index = e.instance_index
  AND u.machine_id = e.machine_id
"""
NOTEBOOK_TIER_SERIES = """
SELECT CAST(FLOOR(time/(1e6 * 60 * 60)) AS BIGINT) AS hour_index, tier,
  SUM(cpu_usage) / (12 * {cpu_capacity}) AS avg_cpu_usage,
  SUM(memory_usage) / (12 * {memory_capacity}) AS avg_memory_usage
FROM ({table})
GROUP BY 1, 2 ORDER BY hour_index
"""
# the notebook's query_machine_capacity, query_top_level_instance_usage, query_machine_usage and
# query_machine_utilization_distribution
NOTEBOOK_MACHINE_CAPACITY = """
SELECT machine_id, MAX(capacity.cpus) AS cpu_cap, MAX(capacity.memory) AS memory_cap
FROM (SELECT * FROM google2019.machine_events WHERE cell = 'a')
GROUP BY 1
"""
NOTEBOOK_TOP_LEVEL_USAGE = """
SELECT CAST(FLOOR(start_time/(1e6 * 300)) * (1000000 * 300) AS BIGINT) AS time,
  collection_id, instance_index, machine_id,
  average_usage.cpus AS cpu_usage, average_usage.memory AS memory_usage
FROM (SELECT * FROM google2019.instance_usage WHERE cell = 'a')
WHERE (alloc_collection_id IS NULL OR alloc_collection_id = 0)
  AND (end_time - start_time) >= (5 * 60 * 1e6)
"""
NOTEBOOK_MACHINE_USAGE = """
SELECT u.time AS time, u.machine_id AS machine_id,
  SUM(u.cpu_usage) AS cpu_usage, SUM(u.memory_usage) AS memory_usage,
  MAX(m.cpu_cap) AS cpu_capacity, MAX(m.memory_cap) AS memory_capacity
FROM ({instance_usage}) AS u JOIN ({machine_capacity}) AS m
ON u.machine_id = m.machine_id
GROUP BY 1, 2
"""
NOTEBOOK_UTILIZATION_DISTRIBUTION = """
SELECT quantile_cont(IF(cpu_usage > cpu_capacity, 1.0, cpu_usage / cpu_capacity), [0.1, 0.5, 0.9, 0.99])
         AS cpu_util_dist,
  quantile_cont(IF(memory_usage > memory_capacity, 1.0, memory_usage / memory_capacity),
                [0.1, 0.5, 0.9, 0.99]) AS memory_util_dist
FROM ({table})
"""
LEVELS = [0.1, 0.5, 0.9, 0.99]


@pytest.fixture
def home(handbuilt_home):
    return handbuilt_home("notebook")


def _notebook(home, sql: str) -> list[tuple]:
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _rows(home, name: str) -> list[dict]:
    r = reports.run(home, name, trace="google2019", cell=CELL)
    return [dict(zip(r.columns, row, strict=True)) for row in r.rows]


def test_tier_usage_notebook_gives_the_notebooks_hourly_series(home):
    ((cpu_cap, mem_cap),) = _notebook(home, NOTEBOOK_CELL_CAPACITY)
    oracle = _notebook(
        home,
        NOTEBOOK_TIER_SERIES.format(
            table=NOTEBOOK_INSTANCE_USAGE_PRIORITY, cpu_capacity=cpu_cap, memory_capacity=mem_cap
        ),
    )
    # the notebook's tier labels, named as google2019.priority_tiers names them
    names = {"1_free": "free", "2_beb": "best-effort batch", "3_mid": "mid", "4_prod": "production"}
    want = sorted((h, names[t], pytest.approx(c), pytest.approx(m)) for h, t, c, m in oracle)
    got = [
        (r["hour_index"], r["tier"], r["avg_cpu_usage"], r["avg_memory_usage"])
        for r in _rows(home, "tier-usage-notebook")
    ]
    assert got == want
    # by hand (handbuilt.notebook_google2019): capacity 1.5; hour 0: production 100/0 (0.4 + 0.3)
    # and the alloc set's own 900/0 (0.6), free 101/0 (0.3; its 100 s window left out); hour 1
    # (3700 s): best-effort batch 102/0 (0.2); 103/0 (in an alloc set) and 104/0 (no events) out
    assert got == [
        (0, "free", pytest.approx(0.3 / 18), pytest.approx(0.2 / 18)),
        (0, "production", pytest.approx(1.3 / 18), pytest.approx(0.8 / 18)),
        (1, "best-effort batch", pytest.approx(0.2 / 18), pytest.approx(0.3 / 18)),
    ]


def test_machine_util_notebook_gives_the_notebooks_capped_distribution(home):
    ((cpu_q, mem_q),) = _notebook(
        home,
        NOTEBOOK_UTILIZATION_DISTRIBUTION.format(
            table=NOTEBOOK_MACHINE_USAGE.format(
                instance_usage=NOTEBOOK_TOP_LEVEL_USAGE, machine_capacity=NOTEBOOK_MACHINE_CAPACITY
            )
        ),
    )
    got = {(r["metric"], r["level"]): r["utilisation"] for r in _rows(home, "machine-util-notebook")}
    want = {("cpu", p): round(v, 6) for p, v in zip(LEVELS, cpu_q, strict=True)}
    want |= {("memory", p): round(v, 6) for p, v in zip(LEVELS, mem_q, strict=True)}
    assert got == pytest.approx(want)
    # by hand: machine x 5-minute windows: m1 at 600 s 0.7 / 0.5 -> capped at 1, m1 at 900 s
    # 0.3 / 0.5 = 0.6, m2 at 600 s (0.6 + 0.1) / 1 = 0.7, m2 at 3600 s 0.2: the median of
    # 0.2, 0.6, 0.7, 1 is 0.65
    assert got[("cpu", 0.5)] == pytest.approx(0.65)
    assert got[("cpu", 0.99)] == pytest.approx(0.7 + 0.97 * 0.3)
