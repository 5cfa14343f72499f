"""The Spark engine against DuckDB on the bundled sample and a small synthetic home: every view and
every report gives the same rows in Spark local[2] as in DuckDB; the override layer, each rewrite
on its own; a Spark ingest equals a local one.

One Spark session for the whole run (the group runs on one xdist worker): starting a JVM and
registering the catalog cost tens of seconds, a query a second or two.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import gzip
import math
import os
import re
import shutil
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlparse

import duckdb
import pytest
from conftest import SAMPLE, SAMPLE_2019, SAMPLE_ALIBABA, SAMPLE_ALIBABA2017, SAMPLES, stored_paths, write_gz
from test_cli import run
from test_synth import SCALE_2011, SCALE_2019, SCALE_ALI

from tracewh import catalog, reports, sqlfiles
from tracewh import ingestion as ingest
from tracewh.catalog import derived, query
from tracewh.engines import spark as ws
from tracewh.home import Home
from tracewh.ingestion import fastpath
from tracewh.options import IngestOptions
from tracewh.traces import expand_sql, trace_names

# `make install` installs the spark extra (a missing pyspark fails here, it is not skipped). One
# xdist group: the run's one Spark session lives on one worker (`--dist loadgroup`). The tests that
# use `spark_sample_heavy` or `spark_synth` (the parity of the views and reports heaviest on Spark,
# and of the synthetic home) are marked `spark` by conftest.py and run by `make test-spark`; the
# rest, the parity of the sample's other views and reports included, run in `make test`.
pytestmark = [pytest.mark.xdist_group("spark")]

# Stated tolerance for floats: the engines sum and divide in other orders, so values agree to
# 1e-9 relative; a value the SQL rounds (round(x, d)) may land on either side of a rounding
# boundary, so two values with the same d <= 10 decimals may differ by one unit in the last one.
REL_TOL = 1e-9
ABS_TOL = 1e-9
# Schemas whose views the parity covers (meta is a snapshot of the catalog, not a computation).
VIEW_SCHEMAS = (
    "meta",
    *trace_names(),
    *catalog.SHARED_SQL_FOLDERS,
    *(catalog.raw_schema(t) for t in trace_names()),
    derived.SCHEMA,
)


def _views_in_sql_files() -> list[str]:
    """Every view and code table the SQL files create, plus the raw view of every trace table:
    discovered, so a new one is covered (and must run on Spark) without editing this test."""
    import sqlglot
    from sqlglot import exp

    from tracewh.traces import get_trace, prelude_sql, views_sql

    names = [f"{catalog.raw_schema(t)}.{tab}" for t in trace_names() for tab in get_trace(t).tables]
    # the derived layer: one view per file (over the stored Parquet)
    names += [f"{derived.SCHEMA}.{derived.short(f)}" for f in sqlfiles.folder(derived.SCHEMA)]
    # the SQL files, and the views and tables generated from the trace specs (meta.inputs,
    # meta.published_rows, a trace's cells)
    bodies = [views_sql(), *(prelude_sql(get_trace(t)) for t in trace_names())]
    for folder in ("meta", *ws.sql_folders()):
        bodies += [ws.rewrite_unpivot(expand_sql(f.body)) for f in sqlfiles.folder(folder)]
    for body in bodies:
        for stmt in sqlglot.parse(body, read="duckdb"):
            # views, and tables made from a query (code tables); not meta's storage tables
            kind = str(stmt.args.get("kind")).upper() if isinstance(stmt, exp.Create) else ""
            if kind == "VIEW" or (kind == "TABLE" and stmt.expression is not None):
                names.append(stmt.this.sql(dialect="duckdb"))
    return sorted(set(names))


def _report_runs(traces: Collection[str] = tuple(SAMPLES)) -> list[tuple[str, str | None]]:
    """The runs of every report covering one of ``traces``: one per such trace where the report
    takes a trace, else one over all."""
    return [
        (name, trace)
        for name, r in sorted(reports.all_reports().items())
        if set(r.traces) & set(traces)
        for trace in ([t for t in r.traces if t in traces] if r.needs_trace else (None,))
    ]


VIEWS = _views_in_sql_files()
REPORT_RUNS = _report_runs()

# The views and report runs whose Spark run on the sample costs more than ~1.5 CPU s each (the
# JVM's and the driver's, pyspark 4.3 local[2], measured one at a time after registering every
# view: bench/bench_spark_parity.py, bench/RESULTS.md, last in "Spark on a small home: the code
# cache and every CTE read twice computed once"): the life-cycle stack computed from the events,
# the views and reports over it, and the reports of the widest plans.
# Together ~230 CPU s of the sample parity's ~300; their parity runs in `make test-spark` (marker
# `spark`), with the light views' (spark_sample_views); the light report runs in `make test`. A
# new report is in `make test` until it is measured here.
HEAVY_VIEWS = frozenset(
    {
        "alibaba2018.dag_tasks",
        "alibaba2018.headline",
        "derived.task_episodes",
        "google2019.collection_relations",
        "lifecycle.event_counts",
        "lifecycle.hourly_job_arrivals",
        "lifecycle.job_observed_segments",
        "lifecycle.missing_spans",
        "lifecycle.observed_segments",
        "lifecycle.observed_window",
        "lifecycle.task_episode_core",
        "lifecycle.task_episodes",
        "lifecycle.task_event_parts",
        "lifecycle.task_events",
        "lifecycle.task_transitions",
        "lifecycle.tasks",
        "meta.part_coverage",
    }
)
HEAVY_REPORTS = frozenset(
    {
        ("ali-app-zipf", None),
        ("ali-dag-anomalies", None),
        ("ali-dag-timing", None),
        ("ali-hierarchy", "alibaba2018"),
        ("ali-interval", None),
        ("ali-job", None),
        ("ali-job-cdf", None),
        ("ali-utilization", "alibaba2018"),
        ("alloc-usage", "google2011"),
        ("alloc-usage", "google2019"),
        ("arrivals", "google2011"),
        ("arrivals", "google2019"),
        ("compare", None),
        ("cpu-by-runtime", "google2011"),
        ("cpu-by-runtime", "google2019"),
        ("event-cdf", "google2011"),
        ("event-cdf", "google2019"),
        ("job-size", "google2011"),
        ("job-size", "google2019"),
        ("lifecycle-counts", "google2011"),
        ("machine-util-notebook", "google2019"),
        ("machines", "google2011"),
        ("machines", "google2019"),
        ("overview", None),
        ("priority-share", "google2011"),
        ("priority-share", "google2019"),
        ("queue", "google2011"),
        ("resubmissions", "google2011"),
        ("resubmissions", "google2019"),
        ("task-times", "google2011"),
        ("task-times", "google2019"),
        ("task-times-trend", "google2011"),
        ("tier-usage-notebook", "google2019"),
    }
)
LIGHT_VIEWS = [v for v in VIEWS if v not in HEAVY_VIEWS]
LIGHT_REPORT_RUNS = [r for r in REPORT_RUNS if r not in HEAVY_REPORTS]


# The whole parity (`make test-spark`) runs every view and report of the sample in the one local
# JVM, two at a time: with the users' default 4 GB heap the JVM died (out of memory) in the middle
# of a run that cached every view; at 8 GB one report (task-times) failed with "Could not allocate
# memory to grow BytesToBytesMap".
TEST_DRIVER_MEMORY = "12g"

# The parity's synthetic home: the scales of tests/test_synth.py (thousands of events per trace).
SYNTH_PARITY = {
    "google2011": {"scale": SCALE_2011, "parts": 2},
    "google2019": {"scale": SCALE_2019, "cells": ["a"]},
    "alibaba2018": {"scale": SCALE_ALI, "form": "csv"},
}


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("SPARK_DRIVER_MEMORY", TEST_DRIVER_MEMORY)
    # sized for the sample (ws.SMALL_HOME_CONF)
    session = ws.session("local[2]", app_name="tracewh-tests", small=True)
    yield session
    session.stop()


def _parity_runs(spark, home, views, report_runs) -> dict:
    """``home`` registered in Spark (every view; registering again is free), then the given views
    and reports read there, two at a time (planning on the driver overlaps the tasks): job -> its
    rows, or the exception it raised.

    Broadcast joins are off for these sessions: with every view cached and two reports at a time,
    building and broadcasting a join side ran the 12 GB heap out at task-times (on either trace,
    run to run). Sort-merge joins give the same rows; the reports' ties are broken by name so the
    join strategy cannot change an answer (tests/test_alibaba2018.py, total order)."""
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    ws.register(spark, home)

    def one(job):
        kind, name, trace = job
        try:
            if kind == "view":
                return job, ws.fetch(spark, f"SELECT * FROM {name}")
            options = reports.get(name).example_options
            return job, reports.run(home, name, trace=trace, options=options, spark=spark)
        except Exception as e:
            return job, e

    jobs = [("view", v, None) for v in views] + [("report", n, t) for n, t in report_runs]
    with ThreadPoolExecutor(2) as ex:
        return dict(ex.map(one, jobs))


@pytest.fixture(scope="session")
def spark_sample(spark, sample_home):
    """The bundled sample registered in Spark (every view: Spark's analyser accepts each one) and
    its light report runs read there (`_parity_runs`)."""
    return _parity_runs(spark, sample_home, [], LIGHT_REPORT_RUNS)


@pytest.fixture(scope="session")
def spark_sample_views(spark, sample_home):
    """The light views of the bundled sample read in Spark (`make test-spark`: with them the
    suite's Spark worker took 99-107 s of a 271-325 s run, at the edge of the 5-minute budget)."""
    return _parity_runs(spark, sample_home, LIGHT_VIEWS, [])


@pytest.fixture(scope="session")
def spark_sample_heavy(spark, sample_home):
    """The heavy views and reports of the bundled sample, read in Spark (`make test-spark`)."""
    return _parity_runs(spark, sample_home, sorted(HEAVY_VIEWS), sorted(HEAVY_REPORTS, key=str))


@pytest.fixture(scope="session")
def synth_home(tmp_path_factory) -> Home:
    """A small synthetic home of all three traces (`tracewh synth`: the generator plants the traces'
    oddities at rates the sample cannot: censored tasks, special times, odd DAG names, ...)."""
    from tracewh.synth import synth

    root = tmp_path_factory.mktemp("synth_parity")
    home = Home.resolve(root / "home")
    for trace, options in SYNTH_PARITY.items():
        synth(trace, root / trace, workers=1, seed=11, **options)
        ingest.ingest(home, trace, root / trace)
    return home


@pytest.fixture(scope="session")
def spark_synth(spark, synth_home, sample_home):
    """Every view and report of the synthetic home, read in Spark; then the sample is registered
    again, as the tests that read the session's views expect it."""
    try:
        return _parity_runs(spark, synth_home, VIEWS, REPORT_RUNS)
    finally:
        ws.register(spark, sample_home)


# Alibaba cluster-trace-v2017 has no sample in the shared sample home (SAMPLES): its views and the
# report runs over it are compared on a home of its own bundled sample.
ALIBABA2017 = "alibaba2017"
ALIBABA2017_VIEWS = [v for v in VIEWS if v.split(".")[0] in (ALIBABA2017, catalog.raw_schema(ALIBABA2017))]
ALIBABA2017_REPORT_RUNS = _report_runs([ALIBABA2017])


@pytest.fixture(scope="session")
def alibaba2017_home(tmp_path_factory) -> Home:
    home = Home.resolve(tmp_path_factory.mktemp("alibaba2017_parity") / "home")
    ingest.ingest(home, ALIBABA2017, SAMPLE_ALIBABA2017)
    return home


@pytest.fixture(scope="session")
def spark_alibaba2017(spark, alibaba2017_home, sample_home):
    """The views of alibaba2017 and the report runs over it, read in Spark on its own sample; then
    the shared sample is registered again, as the tests that read the session's views expect it."""
    try:
        return _parity_runs(spark, alibaba2017_home, ALIBABA2017_VIEWS, ALIBABA2017_REPORT_RUNS)
    finally:
        ws.register(spark, sample_home)


# --- comparing result sets ----------------------------------------------------------------------


def _norm(v):
    """A value as both engines' Python values compare: integers exact, other numbers as float,
    instants in UTC, structs and lists as tuples."""
    if isinstance(v, bool) or v is None or isinstance(v, str | int):
        return v
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, float):
        return v
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if isinstance(v, dict):
        return tuple((k, _norm(x)) for k, x in v.items())
    if isinstance(v, list | tuple):
        return tuple(_norm(x) for x in v)
    return v


def _sort_key(v):
    if v is None:
        return (0,)
    if isinstance(v, bool):
        return (1, v)
    if isinstance(v, int):
        return (2, v)
    if isinstance(v, float):
        # rounded so that values equal within the tolerance sort alike; exact integers stay exact
        return (2, v if math.isnan(v) or v.is_integer() else float(f"{v:.6g}"))
    if isinstance(v, tuple):
        return (4, tuple(_sort_key(x) for x in v))
    return (3, str(type(v)), v)


def _decimals(x: float) -> int | None:
    text = repr(x)
    return None if "e" in text or "." not in text else len(text.split(".")[1])


def _same(a, b) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return True
        # Values rounded to d decimals by both engines, whose sums (in another order) fell on
        # either side of a rounding tie: one unit of the last decimal apart, no more, no less. A
        # rounded value's trailing zero is not printed (0.24783 beside 0.247829), and of two values
        # one unit apart at most one ends in 0: the longer of the two has the d decimals.
        da, db = _decimals(a), _decimals(b)
        if da is None or db is None:
            return False
        d = max(da, db)
        return d <= 10 and abs(abs(a - b) - 10**-d) <= 10**-d * 1e-6
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def assert_same_rows(duck: query.Rows, spark_rows: query.Rows, what: str) -> None:
    assert spark_rows.columns == duck.columns, what
    d = [tuple(_norm(v) for v in r) for r in duck.rows]
    s = [tuple(_norm(v) for v in r) for r in spark_rows.rows]
    assert len(s) == len(d), f"{what}: {len(s)} rows on Spark, {len(d)} in DuckDB"
    if Counter(d) == Counter(s):
        return  # the same rows exactly; else sorted and compared value by value, within the tolerance
    d.sort(key=lambda r: tuple(map(_sort_key, r)))
    s.sort(key=lambda r: tuple(map(_sort_key, r)))
    for i, (x, y) in enumerate(zip(d, s, strict=True)):
        for col, a, b in zip(duck.columns, x, y, strict=True):
            assert _same(a, b), f"{what}: row {i} column {col}: DuckDB {a!r}, Spark {b!r}"


def _catalog_names(home, sql: str) -> set[str]:
    """`schema.name` of each (schema, name) row of a query over DuckDB's catalog functions, for the
    schemas the parity covers."""
    with query.read_only(home) as con:
        return {f"{s}.{n}" for s, n in con.execute(sql).fetchall() if s in VIEW_SCHEMAS}


def test_the_parity_covers_every_view_of_the_catalog(sample_home):
    """The views found in the SQL files are exactly the catalog's views and tables (no view is
    left out of the parity because it was made some other way)."""
    in_catalog = _catalog_names(
        sample_home,
        "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal "
        "UNION SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name <> 'meta'",
    )
    assert in_catalog == set(VIEWS)
    assert len(VIEWS) > 40 and len(REPORT_RUNS) > 20


def _view_parity(runs: dict, home: Home, view: str) -> query.Rows:
    """DuckDB's rows of ``view`` in ``home``, after checking Spark's (from ``runs``) are the same."""
    got = runs[("view", view, None)]
    if isinstance(got, Exception):
        raise got
    with query.read_only(home) as con:
        duck = query.fetch(con, f"SELECT * FROM {view}")
    assert_same_rows(duck, got, view)
    return duck


def _report_parity(runs: dict, home: Home, report: str, trace: str | None) -> None:
    got = runs[("report", report, trace)]
    if isinstance(got, Exception):
        raise got
    duck = reports.run(home, report, trace=trace, options=reports.get(report).example_options)
    assert_same_rows(duck, got, f"{report} {trace or ''}")


# Views with no row on the sample home by design: the traces a synthetic ingest marked (none there).
EMPTY_ON_SAMPLE = frozenset({"meta.synthetic_traces"})


def _sampled(view: str) -> bool:
    """Whether the sample home has rows for the view: not one of EMPTY_ON_SAMPLE nor a view of a
    trace without a bundled sample there (a trace added later tests its own sample in a home of its
    own)."""
    schema = view.split(".")[0]
    unsampled = any(schema in (t, catalog.raw_schema(t)) for t in trace_names() if t not in SAMPLES)
    return view not in EMPTY_ON_SAMPLE and not unsampled


@pytest.mark.spark
@pytest.mark.parametrize("view", LIGHT_VIEWS)
def test_view_parity(view, spark_sample_views, sample_home):
    duck = _view_parity(spark_sample_views, sample_home, view)
    assert duck.rows or not _sampled(view), f"{view}: the sample has rows (else the parity proves nothing)"


@pytest.mark.parametrize(("report", "trace"), LIGHT_REPORT_RUNS)
def test_report_parity(report, trace, spark_sample, sample_home):
    _report_parity(spark_sample, sample_home, report, trace)


@pytest.mark.parametrize("view", sorted(HEAVY_VIEWS))
def test_heavy_view_parity(view, spark_sample_heavy, sample_home):
    duck = _view_parity(spark_sample_heavy, sample_home, view)
    assert duck.rows or not _sampled(view), f"{view}: the sample has rows (else the parity proves nothing)"


@pytest.mark.parametrize(("report", "trace"), sorted(HEAVY_REPORTS, key=str))
def test_heavy_report_parity(report, trace, spark_sample_heavy, sample_home):
    _report_parity(spark_sample_heavy, sample_home, report, trace)


def test_the_heavy_lists_name_views_and_reports_of_the_catalog():
    """Each heavy view and report run exists (a renamed one would leave the parity silently)."""
    assert set(VIEWS) >= HEAVY_VIEWS
    assert set(REPORT_RUNS) >= HEAVY_REPORTS
    assert len(LIGHT_VIEWS) + len(HEAVY_VIEWS) == len(VIEWS)


def test_reports_keep_their_order(spark_sample_heavy, sample_home):
    """A report's ORDER BY holds on Spark: the rows come in DuckDB's order where the key is total
    (overview lists the traces and tables in a fixed order)."""
    duck = reports.run(sample_home, "overview")
    got = spark_sample_heavy[("report", "overview", None)]
    assert [r[:2] for r in got.rows] == [r[:2] for r in duck.rows]


# --- the override layer, each rewrite on its own (expected values computed by hand) -------------


def test_overrides_translate_duckdb_forms(spark):
    """One query exercising every override; each expected value is worked out in the comment."""
    sql = """
    SELECT
        regexp_full_match('J5_3_Stg2', '[A-Za-z]+[0-9]+(_[0-9]+)*') AS full_no,   -- _Stg2 is not (_digits)*
        regexp_full_match('M5_3_4', '[A-Za-z]+[0-9]+(_[0-9]+)*') AS full_yes,
        timezone('America/New_York', TIMESTAMPTZ '2011-05-01 23:00:00+00') AS ny,  -- EDT = UTC-4: 19:00
        TIMESTAMPTZ '2011-05-01 23:00:00+00' + to_microseconds(1500001) AS plus,  -- +1.500001 s
        to_seconds(90) AS secs,                                                    -- 1 min 30 s
        array_length([3, 1, 2]) AS n,                                              -- 3 elements
        (SELECT quantile_cont(x, 0.25) FROM (VALUES (1), (2), (3), (5)) t(x)) AS q,  -- 1 + 0.75*(2-1)
        (SELECT list(x ORDER BY x DESC) FROM (VALUES (1), (3), (2)) t(x)) AS l,  -- [3, 2, 1]
        (SELECT list(y ORDER BY x) FROM (VALUES (2, 'b'), (1, 'a'), (3, 'c')) t(x, y)) AS l2,
        (SELECT count(*) FROM range(2, 5) AS r(i)) AS r,                           -- 2, 3, 4
        (SELECT max(x::HUGEINT * 9223372036854775808 + 1) FROM (VALUES (3)) t(x)) AS huge,
        (SELECT fsum(x) FROM (VALUES (0.5), (0.25), (2.0)) t(x)) AS fs             -- 2.75
    """
    (row,) = ws.fetch(spark, sql).rows
    assert row[0] is False and row[1] is True
    assert row[2] == dt.datetime(2011, 5, 1, 19, 0, 0)
    assert row[3] == dt.datetime(2011, 5, 1, 23, 0, 1, 500001, tzinfo=dt.timezone.utc)
    assert row[4] == dt.timedelta(seconds=90)
    assert row[5] == 3
    assert row[6] == pytest.approx(1.75)
    assert row[7] == [3, 2, 1]
    assert row[8] == ["a", "b", "c"]
    assert row[9] == 3
    assert row[10] == 3 * 2**63 + 1  # exact: 27670116110564327425
    assert row[11] == pytest.approx(2.75)


def test_unpivot_and_parallel_unnest(spark):
    """DuckDB's UNPIVOT statement (NULL values left out) and two unnest side by side (zipped)."""
    sql = """
    WITH w AS (SELECT 'a' AS k, 1 AS x, NULL::INTEGER AS y UNION ALL SELECT 'b', 2, 3),
    long AS (UNPIVOT w ON x, y INTO NAME metric VALUE value)
    SELECT k, metric, value FROM long ORDER BY k, metric
    """
    assert ws.fetch(spark, sql).rows == [("a", "x", 1), ("b", "x", 2), ("b", "y", 3)]
    zipped = "SELECT unnest([1, 2, 3]) AS a, unnest(['x', 'y']) AS b"
    assert ws.fetch(spark, zipped).rows == [(1, "x"), (2, "y"), (3, None)]


def _both(spark, sql, params=None):
    """The rows of one DuckDB query in DuckDB itself and on Spark through the override layer."""
    con = duckdb.connect()
    try:
        duck = con.execute(sql, params or {}).fetchall()
    finally:
        con.close()
    return duck, ws.fetch(spark, sql, params).rows


def test_generate_subscripts_beside_unnest(spark):
    """generate_subscripts(l, 1) numbers the elements 1..n beside unnest(l) (cast per element);
    an empty list has no row; the lateral form of ali-job."""
    sql = "SELECT generate_subscripts(l, 1) AS i, unnest(l)::DOUBLE AS x FROM (SELECT [10, 20, 30] AS l)"
    assert all(rows == [(1, 10.0), (2, 20.0), (3, 30.0)] for rows in _both(spark, sql))
    empty = "SELECT generate_subscripts([]::INTEGER[], 1) AS i"
    assert _both(spark, empty) == ([], [])
    lateral = """
    SELECT t.name, p.parent, p.k
    FROM (VALUES ('a', [7, 5]), ('b', [])) AS t(name, ps)
    CROSS JOIN LATERAL (SELECT unnest(t.ps) AS parent, generate_subscripts(t.ps, 1) AS k) AS p
    """
    assert all(sorted(rows) == [("a", 5, 2), ("a", 7, 1)] for rows in _both(spark, lateral))


def test_a_lateral_range_and_a_list_in_from(spark):
    """range(a, b) AS r(x) after a comma reads the rows before it (a lateral series: g=1 gives
    1, 2; g=2 gives 2); unnest(l) AS u(p) in FROM is a table of the list's elements (4+5+6)."""
    lateral = "SELECT g, x FROM (VALUES (1), (2)) AS t(g), range(g, 3) AS r(x)"
    assert all(sorted(rows) == [(1, 1), (1, 2), (2, 2)] for rows in _both(spark, lateral))
    listed = "SELECT sum(p) AS s, count(*) AS n FROM unnest([4, 5, 6]) AS u(p)"
    assert all(rows == [(15, 3)] for rows in _both(spark, listed))


def test_a_materialized_cte_is_a_plain_one(spark):
    """AS MATERIALIZED (a DuckDB planning hint) is left out; the CTE's rows are the same (1 + 2)."""
    sql = "WITH t AS MATERIALIZED (SELECT 1 AS x UNION ALL SELECT 2) SELECT sum(x) AS s FROM t"
    assert "MATERIALIZED" not in ws.transpile(sql)[0].upper()
    assert all(rows == [(3,)] for rows in _both(spark, sql))


def test_a_cte_read_twice_is_computed_once(spark):
    """A CTE read more than once is computed once into a temporary view (Spark would inline it at
    each read), however small, unless NOT MATERIALIZED or read once; the rows are the same as
    DuckDB's, and the view is gone once the rows are fetched."""
    sql = """
        WITH a AS (SELECT x % 3 AS k, count(*) AS n FROM range(10) AS r(x) GROUP BY ALL),
        b AS NOT MATERIALIZED (SELECT k * 2 AS k2 FROM a),
        c AS (SELECT k FROM a WHERE n > 3)
        SELECT a.k, a.n, (SELECT count(*) FROM b) AS nb, (SELECT count(*) FROM c) AS nc
        FROM a JOIN b ON b.k2 = a.k * 2 ORDER BY a.k"""
    once: list = []
    rows = ws._query(spark, sql, {}, once).collect()
    # b: NOT MATERIALIZED, c: read once
    assert [v.startswith("tracewh_once_") and v.endswith("_a") for v, _ in once] == [True]
    # 0..9 mod 3: 0 four times (0, 3, 6, 9), 1 and 2 three times; b has 3 rows; c only k = 0
    assert [tuple(r) for r in rows] == [(0, 4, 3, 1), (1, 3, 3, 1), (2, 3, 3, 1)]
    ws._release(spark, once)
    assert not spark.catalog.tableExists(once[0][0])
    assert all(r == [(0, 4, 3, 1), (1, 3, 3, 1), (2, 3, 3, 1)] for r in _both(spark, sql))


def test_queries_at_once_in_one_session_compute_their_ctes_apart(spark):
    """Two queries of one session at a time (the parity's threads, a user's) each computing a CTE
    of the same name once: each reads its own rows, and the one that ends first does not drop the
    other's. Before, both named the view tracewh_once_0_t: the second replaced the first's, and
    its release left the first query reading a view that was gone (TABLE_OR_VIEW_NOT_FOUND)."""

    def sql(k: int) -> str:
        return (
            f"WITH t AS (SELECT x + {k} AS y FROM range(5) AS r(x)) "
            "SELECT (SELECT sum(y) FROM t), (SELECT max(y) FROM t)"
        )

    # the first query as _query runs it, stopped after its CTE is computed once
    first = ws._overridden(ws._parsed(sql(0), spark)[-1], spark, {})
    first_once: list = []
    ws._compute_once(spark, first, {}, set(), first_once)
    assert len(first_once) == 1
    # the second runs whole meanwhile (its own t computed once, then released)
    assert ws.fetch(spark, sql(100)).rows == [(510, 104)]  # 100..104: sum 510, max 104
    try:
        assert [tuple(r) for r in spark.sql(first.sql(dialect="spark")).collect()] == [(10, 4)]
    finally:
        ws._release(spark, first_once)


def test_a_join_hint_is_a_spark_hint(spark):
    """``/*+ BROADCAST(h) */`` is a comment to DuckDB and a hint to Spark: with broadcasts off by
    size (Spark's estimate of a join's side can be far too large), the hinted side is broadcast
    all the same; the rows are DuckDB's (1 and 2 of 0..2 have a match)."""
    sql = (
        "SELECT /*+ BROADCAST(h) */ d.x, h.y FROM range(3) AS d(x) "
        "JOIN (VALUES (1, 'a'), (2, 'b')) AS h(x, y) ON h.x = d.x ORDER BY d.x"
    )
    assert "/*+ BROADCAST(h) */" in ws.transpile(sql)[0]
    before = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        plan = ws.query_df(spark, sql)._jdf.queryExecution().executedPlan().toString()
        assert "BroadcastHashJoin" in plan and "SortMergeJoin" not in plan
        assert all(rows == [(1, "a"), (2, "b")] for rows in _both(spark, sql))
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", before)


def test_priority_share_sums_its_rows_into_tiers_with_one_shuffle(spark_sample, spark, sample_home):
    """priority-share's sums per tier (its CTEs up to sums): with broadcasts off, the whole jobs of
    derived.task_groups are still broadcast (the report's hint: a row per job) and the union of the
    run attempts and the usage hours is shuffled once, by the task key, for its join to the other
    jobs' tasks; no per-task aggregate (two of them joined to the tasks ran out of memory at
    whole-trace size in DuckDB and cost Spark three shuffles); the same rows as DuckDB's on the
    trace without cells (google2011: cell NULL, where the null-safe key matters; `make test-spark`'s
    parity runs the whole report on both Google traces)."""
    template = reports.get("priority-share").template
    head = template.split("by_tier AS (")[0].rstrip().rstrip(",")
    sql = (
        f"{head} SELECT sum(run_attempts) AS run_attempts, sum(censored_attempts) AS censored, "
        "count(cpu_req) AS tiers_with_runs, count(cpu_used) AS tiers_with_usage FROM sums"
    )
    before = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        params = {"trace": "google2011", "cell": None}
        plan = ws.query_df(spark, sql, params)._jdf.queryExecution().executedPlan().toString()
        # (the groups' own aggregate by job and derived.task_episodes' joins to the observed
        # segments shuffle the tasks on other keys)
        by_task = [x for x in plan.splitlines() if "Exchange hashpartitioning(" in x and "task_index" in x]
        assert len(by_task) == 1, plan
        assert "BroadcastExchange" in plan, plan
        with query.read_only(sample_home) as con:
            expected = query.fetch(con, sql, params)
        assert expected.rows[0][0] > 0 and expected.rows[0][2] > 0 and expected.rows[0][3] > 0
        assert_same_rows(expected, ws.fetch(spark, sql, params), "priority-share sums")
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", before)


def test_quantiles_discrete_and_over_computed_levels(spark):
    """Over 1, 2, 3, 5: quantile_disc(x, 0.5) is 2 (the smallest value with cume_dist >= 0.5), at
    0.6 it is 3; quantile_cont at levels computed by a constant expression (0, 0.5, 1) is 1,
    2 + 0.5 * (3 - 2), 5; meta.cdf (an aggregating macro, expanded in place) over 0..100 is each
    level's value itself."""
    sql = (
        "SELECT quantile_disc(x, 0.5) AS d5, quantile_disc(x, 0.6) AS d6, "
        "quantile_cont(x, list_transform(range(3), lambda i: i / 2)) AS c "
        "FROM (VALUES (1), (2), (3), (5)) AS t(x)"
    )
    assert all(rows == [(2, 3, [1.0, 2.5, 5.0])] for rows in _both(spark, sql))
    (row,) = ws.fetch(spark, "SELECT meta.cdf(x) AS c FROM range(101) AS r(x)").rows
    assert row[0] == pytest.approx([float(k) for k in range(101)], rel=REL_TOL)


def test_regex_named_groups_and_a_computed_full_match(spark):
    """RE2's (?P<name>...) works in Spark's Java regexes ('job-42' -> 42; 'ab12' matches); a full
    match against a pattern from a column is anchored around the whole alternation: 'xab' does not
    fully match a|ab (an anchor on each side alone, ^a|ab$, would find ab at its end)."""
    named = (
        "SELECT regexp_extract('job-42', '(?P<n>[0-9]+)', 1) AS n, "
        "regexp_matches('ab12', '^ab(?P<d>[0-9]+)$') AS m"
    )
    assert all(rows == [("42", True)] for rows in _both(spark, named))
    full = (
        "SELECT s, regexp_full_match(s, p) AS f "
        "FROM (VALUES ('xab', 'a|ab'), ('ab', 'a|ab'), ('a', 'a|ab'), ('b', 'a|ab')) AS t(s, p)"
    )
    expected = [("a", True), ("ab", True), ("b", False), ("xab", False)]
    assert all(sorted(rows) == expected for rows in _both(spark, full))


def test_a_computed_list_index_counts_from_one(spark):
    """l[i]: element i counting from 1; out of range NULL (a literal index sqlglot shifts itself)."""
    sql = "SELECT i, l[i] AS v, l[2] AS second FROM (SELECT [7, 8, 9] AS l), (VALUES (1), (3), (4)) AS t(i)"
    expected = [(1, 7, 8), (3, 9, 8), (4, None, 8)]
    assert all(sorted(rows) == expected for rows in _both(spark, sql))


def test_a_named_window_as_an_operand(spark):
    """lead(x) OVER w - x: the next x minus this one (1 -> 4: 3, 4 -> 9: 5, last: NULL)."""
    sql = "SELECT x, lead(x) OVER w - x AS d FROM (VALUES (1), (4), (9)) AS t(x) WINDOW w AS (ORDER BY x)"
    assert all(sorted(rows, key=str) == [(1, 3), (4, 5), (9, None)] for rows in _both(spark, sql))


def test_an_ordered_list_with_a_filter(spark):
    """list(v ORDER BY v DESC) FILTER (v > 1) per k: k=1 keeps 3, 2 in that order; k=2 keeps no
    row: NULL (not []); list(v ORDER BY o) keeps a NULL element in its place."""
    sql = """
    SELECT k, list(v ORDER BY v DESC) FILTER (v > 1) AS l, list(w ORDER BY v) AS m
    FROM (VALUES (1, 1, 'x'), (1, 3, NULL), (1, 2, 'z'), (2, 1, 'y')) AS t(k, v, w) GROUP BY k
    """
    expected = [(1, [3, 2], ["x", "z", None]), (2, None, ["y"])]
    assert all(sorted(rows) == expected for rows in _both(spark, sql))


def test_a_window_frame_bound_from_parameters(spark):
    """ROWS BETWEEN greatest($w // $b, 1) - 1 PRECEDING: w=7, b=3 -> 1 row before (sums 1, 1+2,
    2+4, 4+8); w=1, b=3 -> the row alone."""
    sql = """
    SELECT x, sum(x) OVER (ORDER BY x ROWS BETWEEN greatest($w // $b, 1) - 1 PRECEDING AND CURRENT ROW) AS s
    FROM (VALUES (1), (2), (4), (8)) AS t(x)
    """
    for rows in _both(spark, sql, {"w": 7, "b": 3}):
        assert sorted(rows) == [(1, 1), (2, 3), (4, 6), (8, 12)]
    for rows in _both(spark, sql, {"w": 1, "b": 3}):
        assert sorted(rows) == [(1, 1), (2, 2), (4, 4), (8, 8)]


def test_columns_star_expressions(spark):
    """COLUMNS(p.* EXCLUDE (bucket)) inside a function: one column per column of p but bucket,
    named as it; over a CTE that is itself expanded; a regex form; a parameter in a CTE before."""
    ctes = """
    WITH p AS (SELECT * FROM (VALUES (1, 2, NULL::INTEGER), (3, 5, 7)) AS t(bucket, a, b) WHERE bucket < $n),
    q AS (
        SELECT k.bucket, coalesce(COLUMNS(p.* EXCLUDE (bucket)), 0)
        FROM (VALUES (1), (2)) AS k(bucket) LEFT JOIN p USING (bucket)
    )
    """
    params = {"n": 3}
    filled = ctes + "SELECT * FROM q"
    # bucket 1: a 2, b NULL -> 0; bucket 2: no row of p -> 0, 0; bucket 3 is left out by $n
    for rows in _both(spark, filled, params):
        assert sorted(rows) == [(1, 2, 0), (2, 0, 0)]
    assert ws.fetch(spark, filled, params).columns == ["bucket", "a", "b"]
    total = ctes + "SELECT 'total' AS what, sum(COLUMNS(* EXCLUDE (bucket))) FROM q"
    for rows in _both(spark, total, params):
        assert rows == [("total", 2, 0)]
    assert ws.fetch(spark, total, params).columns == ["what", "a", "b"]
    regex = ctes + "SELECT max(COLUMNS('^(a|b)$')) AS top FROM q"
    for rows in _both(spark, regex, params):
        assert rows == [(2, 0)]


def test_union_by_name(spark):
    """UNION ALL BY NAME: the left side's columns, then the right side's new ones; NULL where a
    side lacks a column; a side reading a CTE."""
    sql = "SELECT 1 AS a, 'x' AS b UNION ALL BY NAME SELECT 'y' AS b, 2.5::DOUBLE AS c"
    for rows in _both(spark, sql):
        assert sorted(rows, key=str) == [(1, "x", None), (None, "y", 2.5)]
    assert ws.fetch(spark, sql).columns == ["a", "b", "c"]
    cte = (
        "WITH t AS (SELECT 1 AS a) "
        "SELECT * FROM (SELECT a FROM t UNION ALL BY NAME SELECT 3 AS c, a + 1 AS a FROM t)"
    )
    for rows in _both(spark, cte):
        assert sorted(rows, key=str) == [(1, None), (2, 3)]


def test_information_schema_columns(spark):
    """information_schema.columns of a database: its views' columns in order, with the type names
    DuckDB's information_schema gives (INTEGER, VARCHAR, DOUBLE)."""
    spark.sql("CREATE DATABASE IF NOT EXISTS tracewh_test_schema")
    try:
        spark.sql("CREATE OR REPLACE VIEW tracewh_test_schema.v AS SELECT 1 AS x, 'a' AS y, 2.5D AS z")
        rows = ws.fetch(
            spark,
            "SELECT table_name, column_name, ordinal_position, data_type FROM information_schema.columns "
            "WHERE table_schema = 'tracewh_test_schema' ORDER BY ordinal_position",
        ).rows
        assert rows == [("v", "x", 1, "INTEGER"), ("v", "y", 2, "VARCHAR"), ("v", "z", 3, "DOUBLE")]
    finally:
        spark.sql("DROP DATABASE tracewh_test_schema CASCADE")


def test_the_job_dag_step_on_spark(spark):
    """ali-job's Python step: job 1 -> 2 (run 10 then 5) and 1 -> 3 (run 20): levels 0, 1, 1; the
    critical path 1, 3 (30 s against 15 s); no cycle."""
    tasks = spark.createDataFrame(
        [(1, [], 10.0), (2, [1], 5.0), (3, [1], 20.0)],
        "task_id BIGINT, parent_task_ids ARRAY<BIGINT>, run_s DOUBLE",
    )
    ws.register_job_dag(spark, tasks)
    rows = sorted(tuple(r) for r in spark.sql("SELECT * FROM job_dag").collect())
    assert rows == [(1, 0, True, False), (2, 1, False, False), (3, 1, True, False)]


def test_macros_become_functions_users_can_call(spark_sample, spark):
    """The DuckDB macros are Spark SQL functions of the same name (hand values: time 600 s is the
    trace start 2011-05-01 23:00 UTC; 0 is before the window)."""
    rows = ws.fetch(
        spark,
        "SELECT google2011.time_class(0), google2011.trace_timestamp(600000000 + 1000000), "
        "alibaba2018.dag_class('M5_3_4'), alibaba2018.parse_task_name('J10_7_9_Stg4').parent_task_ids",
    ).rows
    assert rows == [
        ("before_window", dt.datetime(2011, 5, 1, 23, 0, 1, tzinfo=dt.timezone.utc), "dag_dependent", [7, 9])
    ]


def test_every_macro_is_a_spark_function(spark_sample, spark, sample_home):
    """Each DuckDB macro of the catalog is a Spark function of the same name (an aggregating one
    is expanded where it is called instead); the vocabulary macros come from the trace folders
    only (none in lifecycle) and answer as in DuckDB for every code and tier of each trace, an
    unknown one and NULL."""
    duck = _catalog_names(
        sample_home,
        "SELECT schema_name, function_name FROM duckdb_functions() "
        "WHERE function_type = 'macro' AND NOT internal",
    )
    on_spark = {
        f"{db}.{r[0].split('.')[-1]}"
        for db in VIEW_SCHEMAS
        if spark.catalog.databaseExists(db)
        for r in spark.sql(f"SHOW USER FUNCTIONS IN {db}").collect()
    }
    assert on_spark | set(ws._aggregate_macros()) == duck
    assert not any(m.startswith("lifecycle.") and m.endswith(("decode", "priority_tier")) for m in on_spark)
    for trace in trace_names():
        codes = f"{trace}.codes"
        decoded = (
            f"SELECT code_set, code, {trace}.decode(code_set, code) AS name FROM (SELECT code_set, code "
            f"FROM {codes} UNION ALL SELECT DISTINCT code_set, 999 FROM {codes} "
            f"UNION ALL SELECT DISTINCT code_set, NULL FROM {codes}) AS c"
        )
        bounds = f"{trace}.priority_tiers"
        tiers = (  # each tier's bounds and the priorities just outside them (2019's top bound is 2^31 - 1)
            f"SELECT p, {trace}.priority_tier(p) AS tier, {trace}.is_production(p) AS production FROM "
            f"(SELECT min_priority::BIGINT - 1 AS p FROM {bounds} UNION SELECT min_priority FROM {bounds} "
            f"UNION SELECT max_priority FROM {bounds} UNION SELECT max_priority::BIGINT + 1 FROM {bounds} "
            "UNION ALL SELECT NULL) AS t"
        )
        checks = [(f"{trace}.decode", decoded), (f"{trace}.priority_tier", tiers)]
        for sql in (sql for macro, sql in checks if macro in duck):
            with query.read_only(sample_home) as con:
                expected = query.fetch(con, sql)
            assert len(expected.rows) > 3
            assert_same_rows(expected, ws.fetch(spark, sql), sql)


def test_the_aggregating_macros_are_found_in_the_files_that_create_a_macro():
    """The macros expanded in place (their body aggregates) are those of a parse of every SQL file
    of the catalog, though only the files that create a macro are parsed; meta.cdf is one, by hand."""
    import sqlglot
    from sqlglot import exp

    every = set()
    for folder in ("meta", *ws.sql_folders()):
        for f in sqlfiles.folder(folder):
            for stmt in sqlglot.parse(ws.rewrite_unpivot(expand_sql(f.body)), read="duckdb"):
                body = stmt.expression if isinstance(stmt, exp.Create) else None
                macro = str(stmt.args.get("kind")).upper() == "MACRO" and body is not None
                own = macro and [a for a in body.find_all(exp.AggFunc) if a.find_ancestor(exp.Select) is None]
                if own and not isinstance(body, exp.Select | exp.Subquery | exp.Union):
                    every.add(stmt.this.this.sql(dialect="duckdb"))
    assert "meta.cdf" in every
    assert set(ws._aggregate_macros()) == every


def test_a_macro_without_a_parameter_type_is_refused():
    with pytest.raises(ws.SparkError, match=r"macro x\.f: no Spark type for its parameter 'q'"):
        ws.transpile("CREATE OR REPLACE MACRO x.f(q) AS q + 1")


def test_sql_errors_are_one_line(spark_sample, spark):
    with pytest.raises(ws.SparkError) as e:
        ws.fetch(spark, "SELECT no_such_column FROM google2011.task_events")
    assert "\n" not in str(e.value) and "no_such_column" in str(e.value)


def _registered_for(home: Home, report: str, snap=None) -> set[str]:
    """The labels of the build plan's steps register(only=report) executes on ``home``."""
    snap = snap or ws._catalog_snapshot(home)
    names = ws._report_names(reports.get(report))
    return catalog.needed(catalog.plan(), names, functools.partial(ws._reads, snap))


def test_reports_over_the_derived_layer_read_no_task_event_on_spark(sample_home):
    """task-times, transitions and queue on Spark register the derived views over the Parquet the
    ingest stored, and neither the raw task events nor a life-cycle view computed from them; the
    same catalog with nothing stored (an older home) would compute them from the events."""
    events = {f"raw:{t}.{derived.source_table(t)}" for t in derived.source_traces()}
    assert len(events) == 2
    snap = ws._catalog_snapshot(sample_home)
    for report in ("task-times", "transitions", "queue"):
        wanted = _registered_for(sample_home, report, snap)
        assert any(w.startswith("derived:") for w in wanted), report
        assert not events & wanted, report
        # the life-cycle files of macros only (code tables, in_gap) define no view over the events
        macros_only = {"file:lifecycle/00_codes.sql", "file:lifecycle/03_in_gap.sql"}
        assert not {w for w in wanted if w.startswith("file:lifecycle/")} - macros_only
        bare = dataclasses.replace(snap, stored={})
        assert events <= _registered_for(sample_home, report, bare), report


def test_registering_again_reads_neither_the_catalog_nor_sparks_listing(
    spark_sample, spark, sample_home, monkeypatch
):
    """A report run on Spark registers what it reads first; once that is registered from the same
    catalog, registering again (the next report, the same report again) returns the names kept at
    the registration: no snapshot of the DuckDB catalog, no walk of the plan, no listing of Spark's
    databases (~1 CPU s a report on a 14.5 M-event home, where queue costs ~7). A report not
    registered yet whose units were registered for others reads the catalog to know it, but lists
    nothing (~0.4 s)."""
    every = ws.register(spark, sample_home)
    units = spark.conf.get("spark.tracewh.registered.units")
    reports_done = spark.conf.get("spark.tracewh.registered.reports", "")
    stamp = spark.conf.get("spark.tracewh.registered")

    def refused(*args, **kwargs):
        raise AssertionError("registering again read the catalog or Spark's listing")

    with monkeypatch.context() as m:
        m.setattr(ws, "_catalog_snapshot", refused)
        m.setattr(ws, "_tables_in", refused)
        assert ws.register(spark, sample_home) == every
        assert ws.register(spark, sample_home, only=reports.get("transitions")) == every
    # as after registering only what queue reads (its units are among those the session has),
    # for no report by name
    spark.conf.set("spark.tracewh.registered.units", "\n".join(sorted(_registered_for(sample_home, "queue"))))
    spark.conf.set("spark.tracewh.registered.reports", "")
    try:
        snapshots = []
        real_snapshot = ws._catalog_snapshot
        with monkeypatch.context() as m:
            m.setattr(ws, "_catalog_snapshot", lambda home: snapshots.append(home) or real_snapshot(home))
            m.setattr(ws, "_tables_in", refused)
            # reads the catalog, finds queue's units registered: the names kept, no listing
            assert ws.register(spark, sample_home, only=reports.get("queue")) == every
        assert len(snapshots) == 1
        with monkeypatch.context() as m:
            m.setattr(ws, "_catalog_snapshot", refused)
            m.setattr(ws, "_tables_in", refused)
            assert ws.register(spark, sample_home, only=reports.get("queue")) == every
            with pytest.raises(AssertionError, match="registering again"):
                ws.register(spark, sample_home, only=reports.get("transitions"))  # not registered for it
        # a registration that fails part way leaves the session's views no catalog's: the next
        # call, even for a report registered before, registers again
        with monkeypatch.context() as m:

            def broken(ctx, step):
                raise RuntimeError("stopped part way")

            m.setattr(ws, "_execute", broken)
            with pytest.raises(RuntimeError, match="part way"):  # it reads more than queue
                ws.register(spark, sample_home, only=reports.get("priority-share"))
            m.setattr(ws, "_catalog_snapshot", refused)
            with pytest.raises(AssertionError, match="registering again"):
                ws.register(spark, sample_home, only=reports.get("queue"))
    finally:
        spark.conf.set("spark.tracewh.registered.units", units)
        spark.conf.set("spark.tracewh.registered.reports", reports_done)
        spark.conf.set("spark.tracewh.registered", stamp)


def test_registering_another_catalog_uncaches_only_the_views_register_cached(
    spark_sample, spark, sample_home, monkeypatch
):
    """A registration from another catalog (after an ingest, or after one stopped part way)
    uncaches the views an earlier register(cache=True) cached, whose rows are stale, and no other:
    an UNCACHE makes Spark analyse the view, and every view of the sample took ~48 s."""
    stamp = spark.conf.get("spark.tracewh.registered")
    ran: list[str] = []
    real_run = ws._run

    def recorded(spark_, stmt, what):
        ran.append(stmt)
        return real_run(spark_, stmt, what)

    def stop(*args, **kwargs):
        raise RuntimeError("stopped after the uncaching")

    spark.sql("CREATE DATABASE IF NOT EXISTS tracewh_cache_test")
    try:
        ws._run_view(spark, "CREATE OR REPLACE VIEW tracewh_cache_test.v AS SELECT 1 AS x", "v", cache=True)
        assert spark.catalog.isCached("tracewh_cache_test.v")
        spark.conf.set("spark.tracewh.registered", "another catalog")
        with monkeypatch.context() as m:
            m.setattr(ws, "_run", recorded)
            m.setattr(ws, "_catalog_snapshot", stop)
            with pytest.raises(RuntimeError, match="stopped after"):
                ws.register(spark, sample_home, only=reports.get("queue"))
        assert [s for s in ran if s.startswith("UNCACHE")] == ["UNCACHE TABLE IF EXISTS tracewh_cache_test.v"]
        assert not spark.catalog.isCached("tracewh_cache_test.v")
        # nothing cached since: registering from another catalog again uncaches nothing
        ran.clear()
        with monkeypatch.context() as m:
            m.setattr(ws, "_run", recorded)
            m.setattr(ws, "_catalog_snapshot", stop)
            with pytest.raises(RuntimeError, match="stopped after"):
                ws.register(spark, sample_home, only=reports.get("queue"))
        assert not [s for s in ran if s.startswith("UNCACHE")]
    finally:
        spark.sql("DROP DATABASE IF EXISTS tracewh_cache_test CASCADE")
        spark.conf.set("spark.tracewh.registered", stamp)


def test_a_registration_waits_for_another_threads_to_end(spark_sample, spark, sample_home, monkeypatch):
    """register reads and writes the session's registration keys as one state, so a second
    thread's call waits for the first one's to end. Both calls here stop at the catalog's
    snapshot; the first waits there (up to a second) for the second to arrive, which it only can
    if nothing holds it back."""
    stamp = spark.conf.get("spark.tracewh.registered")
    events: list[str] = []
    first_inside = threading.Event()
    second_inside = threading.Event()

    def snapshot(home):
        if not first_inside.is_set():
            events.append("first in")
            first_inside.set()
            second_inside.wait(timeout=1)
            events.append("first out")
        else:
            events.append("second in")
            second_inside.set()
        raise RuntimeError("stopped at the snapshot")

    def registering():
        with pytest.raises(RuntimeError, match="stopped at the snapshot"):
            ws.register(spark, sample_home, only=reports.get("queue"))

    monkeypatch.setattr(ws, "_catalog_snapshot", snapshot)
    monkeypatch.setattr(ws, "_refresh_file_tables", lambda spark_: None)
    spark.conf.set("spark.tracewh.registered", "another catalog")
    try:
        with ThreadPoolExecutor(2) as ex:
            first = ex.submit(registering)
            assert first_inside.wait(timeout=600)
            second = ex.submit(registering)
            first.result()
            second.result()
        assert events == ["first in", "first out", "second in"]
    finally:
        spark.conf.set("spark.tracewh.registered", stamp)


def _files_read(spark, sql: str) -> set[str]:
    """The folders (under the home's parquet/) of the files a Spark query's optimised plan reads,
    from its relations' own paths (the plan's text shortens long paths)."""
    leaves = ws.query_df(spark, sql)._jdf.queryExecution().optimizedPlan().collectLeaves()
    folders = set()
    for i in range(leaves.length()):
        leaf = leaves.apply(i)
        if leaf.getClass().getSimpleName() != "LogicalRelation":
            continue
        paths = leaf.relation().location().rootPaths()
        for j in range(paths.length()):
            folders.add(paths.apply(j).toString().split("/parquet/", 1)[1].split("/")[0])
    return folders


@pytest.mark.parametrize("view", ["lifecycle.job_observed_segments", "lifecycle.hourly_job_arrivals"])
def test_a_query_of_one_trace_reads_only_that_traces_files_on_spark(view, spark_sample, spark, sample_home):
    """A filter on trace reaches the scans: the job segments of one Google trace read its job
    events only. Before, a correlated count of the missing parts kept Spark from pushing the filter
    down, and arrivals of 2011 read the 2019 collection events as well (DuckDB pushed it)."""
    for trace in ("google2011", "google2019"):
        assert _files_read(spark, f"SELECT * FROM {view} WHERE trace = '{trace}'") == {trace}, (view, trace)


def test_derived_views_read_the_stored_generation(spark_sample, spark, sample_home):
    """derived.task_transitions on Spark reads the Parquet files of the generations meta.derived
    names (one per Google trace), not a query over the life-cycle views."""
    with query.read_only(sample_home) as con:
        dirs = [
            d
            for (d,) in con.execute(
                "SELECT data_dir FROM meta.derived WHERE name = 'task_transitions'"
            ).fetchall()
        ]
    assert len(dirs) == 2
    text = " ".join(r[0] for r in spark.sql("SHOW CREATE TABLE derived.task_transitions").collect())
    # (a folder of files, one per range of jobs)
    assert _locations_read(spark, text) == {f"{sample_home.root / d}/task_transitions" for d in dirs}
    assert "lifecycle." not in text


def _locations_read(spark, view_text: str) -> set[str]:
    """The folders (or files) of the tables over Parquet that a view's text reads, from the
    tables' LOCATION as Spark's catalog has it."""
    tables = set(re.findall(rf"\b{ws.FILES_SCHEMA}\.`[^`]+`", view_text))
    assert tables, view_text
    return {
        urlparse(row.data_type).path
        for t in tables
        for row in spark.sql(f"DESCRIBE TABLE EXTENDED {t}").collect()
        if row.col_name == "Location"
    }


def test_a_stored_derived_file_is_read_for_its_trace_only(spark_sample, spark, sample_home):
    """Each trace's stored file holds that trace's rows: a filter on one trace reads that trace's
    file alone, without its trace column (the literal stands for it), and counts what DuckDB
    counts in the same file."""
    for trace in ("google2011", "google2019"):
        stored = stored_paths(sample_home, trace, "task_transitions")
        listed = ", ".join(f"'{x}'" for x in stored)
        with duckdb.connect() as con:
            (n,) = con.execute(f"SELECT count(*) FROM read_parquet([{listed}])").fetchone()
        df = spark.sql(f"SELECT trace, time FROM derived.task_transitions WHERE trace = '{trace}'")
        assert sorted(urlparse(f).path for f in df.inputFiles()) == sorted(map(str, stored))
        plan = df._jdf.queryExecution().executedPlan().toString()
        (scan,) = [line for line in plan.splitlines() if "FileScan parquet" in line]
        assert scan.split("ReadSchema: ")[1] == "struct<time:bigint>", plan
        assert "PushedFilters: []" in scan and "Filter (" not in plan, plan
        assert df.count() == n > 0


def test_raw_views_read_the_live_generation_through_the_link(spark_sample, spark, sample_home):
    """The Parquet lives under .gen/ (a folder Spark's listing skips); the view reads the link,
    which register checked names the catalog's generation."""
    link = sample_home.table_link("google2011", "task_events")
    assert link.is_symlink() and "/.gen/" in str(link.resolve())
    text = " ".join(r[0] for r in spark.sql("SHOW CREATE TABLE google2011_raw.task_events").collect())
    assert _locations_read(spark, text) == {str(link)}


def test_a_table_over_parquet_in_a_folder_with_glob_characters_reads_its_own_files(spark, tmp_path):
    """The tables the views read the Parquet through: Spark takes a table's location as a Hadoop
    glob pattern, so a folder named ``g[1]*{a,b}`` was not found (PATH_NOT_FOUND) or named others;
    its partition folders are found by listing; dropping the table (register does before it makes
    it again) leaves the files."""
    folder = tmp_path / "g[1]*{a,b}" / "t"
    decoy = tmp_path / "g1a" / "t"  # what the pattern g[1]*{a,b} matches
    with duckdb.connect() as con:
        for where, lo, hi in ((folder, 0, 1000), (decoy, 0, 7)):
            where.mkdir(parents=True)
            con.execute(
                f"COPY (SELECT i AS x, i % 3 AS day FROM range({lo}, {hi}) AS r(i)) TO '{where}' "
                "(FORMAT parquet, PARTITION_BY (day))"
            )
    files = sorted(folder.rglob("*.parquet"))
    assert len(files) == 3
    name = ws._file_table(spark, "test__glob_characters", str(folder))
    got = spark.sql(f"SELECT count(*), sum(x), sum(day) FROM {name}").collect()[0]
    assert tuple(got) == (1000, sum(range(1000)), sum(i % 3 for i in range(1000)))
    spark.sql(f"DROP TABLE {name}")
    assert sorted(folder.rglob("*.parquet")) == files


def test_same_rows_compares_the_rows_as_multisets():
    """Any order; a row twice is not the same as two other rows; floats within the tolerance
    (0.1 + 0.2 against 0.3) fall through to the value-by-value comparison."""

    def rows(*values):
        return query.Rows(["x"], ["DOUBLE"], [(v,) for v in values])

    assert_same_rows(rows(1, 1, 2), rows(2, 1, 1), "order")
    with pytest.raises(AssertionError):
        assert_same_rows(rows(1, 1, 2), rows(1, 2, 2), "duplicates")
    assert_same_rows(rows(0.1 + 0.2, 5), rows(5, 0.3), "tolerance")
    with pytest.raises(AssertionError):
        assert_same_rows(rows(0.5, 5), rows(5, 0.8), "values")


def test_the_tolerance_allows_a_rounding_flip_only():
    assert _same(0.044362, 0.044363)  # round(x, 6) on either side of ...625
    assert not _same(0.044362, 0.044365)
    # a rounded value's trailing zero is not printed: 0.247830 is written 0.24783
    assert _same(0.24783, 0.247829) and _same(0.247829, 0.24783)
    assert not _same(0.24783, 0.247826)
    assert not _same(0.2478, 0.24785)  # half a unit of the longer: no rounding flip gives it
    assert not _same(515042969, 515042954)
    assert _same(1 / 3, (1 - 2e-16) / 3)


# --- ingest fanned out -----------------------------------------------------------------------------


def _ingest_rows(home: Home) -> dict[str, list]:
    """Every raw table's rows and the accounting of each file, from the catalog (times and ids,
    which differ between any two ingests, left out)."""
    out = {}
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        for schema, table in con.execute(
            "SELECT schema_name, view_name FROM duckdb_views() WHERE schema_name LIKE '%\\_raw' ESCAPE '\\'"
        ).fetchall():
            out[f"{schema}.{table}"] = con.execute(f"SELECT * FROM {schema}.{table} ORDER BY ALL").fetchall()
        out["ingests"] = con.execute(
            "SELECT trace, table_name, cell, file, size_bytes, sha256, sha256_verified, rows_read, "
            "rows_written, rows_rejected, mode, is_current FROM meta.ingests ORDER BY ALL"
        ).fetchall()
        out["rejects"] = con.execute("SELECT * EXCLUDE (ingest_id) FROM meta.rejects ORDER BY ALL").fetchall()
        out["tables"] = con.execute(
            "SELECT * EXCLUDE (data_dir, updated) FROM meta.tables ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    return out


def test_spark_ingest_equals_the_local_ingest(spark, sample_home, tmp_path, monkeypatch):
    """Same rows, rejects and accounting (sha256 included) as the local ingest of the sample; the
    files are hashed in Spark tasks, not on the driver (the driver's hashing is made to fail)."""

    def driver_hashing(*args, **kwargs):
        raise AssertionError("the driver hashed the files itself")

    monkeypatch.setattr(ingest, "_hash_all", driver_hashing)
    home = Home.resolve(tmp_path / "spark-home")
    for trace, src in (("google2011", SAMPLE), ("google2019", SAMPLE_2019), ("alibaba2018", SAMPLE_ALIBABA)):
        ingest.ingest(home, trace, src, spark=spark)
    local, fanned = _ingest_rows(sample_home), _ingest_rows(home)
    assert fanned.keys() == local.keys()
    for key in local:
        assert fanned[key] == local[key], key
    assert len(local["ingests"]) >= 20 and len(local["google2011_raw.task_events"]) > 1000
    # no attempt folder or spill left behind
    assert not (home.tmp.exists() and list(home.tmp.rglob("*.parquet")))


def test_a_failing_spark_ingest_leaves_nothing_behind(spark, tmp_path):
    """A file whose every line is refused on its executor: one clear error naming it, no catalog,
    no generation file, no attempt folder."""
    src = tmp_path / "src" / "machine_events"
    write_gz(src / "part-00000-of-00001.csv.gz", ["not,a,machine,event", "x,y"])
    home = Home.resolve(tmp_path / "home")
    with pytest.raises(Exception, match="part-00000-of-00001"):
        ingest.ingest(home, "google2011", src.parent, IngestOptions(verify=False), spark=spark)
    gens = home.generations("google2011")
    assert not (gens.exists() and list(gens.rglob("*.parquet")))
    assert not (home.tmp.exists() and list(home.tmp.rglob("attempts")))


def test_a_task_attempt_renames_its_files_only_on_success(tmp_path, monkeypatch):
    """The task body outside Spark: an attempt whose conversion fails renames nothing into the
    generation; the retry publishes the whole file."""
    src = write_gz(tmp_path / "machine_events" / "part-00000-of-00001.csv.gz", ["0,5,0,a,0.5,0.5"])
    gen = tmp_path / "gen"
    gen.mkdir()
    r = ingest.FileResult("machine_events", src.name, src, src.stat().st_size)
    task = ws._ConvertTask(
        "google2011",
        {"machine_events": str(gen)},
        str(tmp_path / "tmp"),
        "500MB",
        "20260101T000000-abcdef",
        ingest._convert_file,
    )
    real_copy, real_fast = ingest._copy, fastpath.convert

    def dying(real):
        def broken(*args, **kwargs):
            real(*args, **kwargs)  # the file is written in the attempt folder, then the task dies
            raise RuntimeError("executor lost")

        return broken

    # both converters: the fast path's and the exact path's COPY (the fast path takes this file)
    monkeypatch.setattr(ingest, "_copy", dying(real_copy))
    monkeypatch.setattr(fastpath, "convert", dying(real_fast))
    with pytest.raises(RuntimeError):
        task((0, r))
    assert not list(gen.rglob("*.parquet"))
    monkeypatch.setattr(ingest, "_copy", real_copy)
    monkeypatch.setattr(fastpath, "convert", real_fast)
    _, done = task((0, r))
    assert [p.name for p in gen.rglob("*.parquet")] == ["part-00000-of-00001.20260101T000000-abcdef.parquet"]
    assert done.rows_written == 1 and done.rows_rejected == 0
    shutil.rmtree(tmp_path / "tmp")


def test_cli_report_and_sql_on_spark(spark_sample, sample_home, capsys):
    """The command line with --engine spark, in process: main() gets the running session (a
    subprocess would start a second JVM) and the registration already made for this catalog."""
    home = str(sample_home.root)
    code, out, err = run(capsys, "--home", home, "report", "overview", "--engine", "spark", "--format", "csv")
    assert code == 0, err
    duck_code, duck_out, _ = run(capsys, "--home", home, "report", "overview", "--format", "csv")
    assert duck_code == 0 and out == duck_out
    query_text = "SELECT count(*) AS n FROM google2011.task_events WHERE event_type_name = 'SUBMIT'"
    code, out, err = run(capsys, "--home", home, "sql", query_text, "--engine", "spark", "--format", "csv")
    assert code == 0, err
    code, duck_out, _ = run(capsys, "--home", home, "sql", query_text, "--format", "csv")
    assert out == duck_out and out.splitlines()[0] == "n"


# A second JVM (the CLI in a subprocess): ~20 s, so it runs in make test-spark with the heavy parity.
@pytest.mark.spark
def test_a_spark_report_writes_nothing_outside_the_home(sample_home, tmp_path, capsys):
    """`tracewh report --engine spark` as a user runs it (its own process and JVM), from an empty
    working directory: Spark's warehouse folder and scratch go under the home's tmp/ (removed at
    exit), the Python side's temporary files under $TMPDIR; both folders are still empty after,
    and the rows are DuckDB's."""
    cwd, tmpdir = tmp_path / "cwd", tmp_path / "tmpdir"
    cwd.mkdir()
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir), "SPARK_DRIVER_MEMORY": "1g"}
    cli = [str(Path(sys.executable).with_name("tracewh")), "--home", str(sample_home.root)]
    args = ["report", "overview", "--format", "csv"]
    with subprocess.Popen(
        [*cli, *args, "--engine", "spark", "--master", "local[1]"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as done:
        out, err = done.communicate(timeout=600)
    assert done.returncode == 0, err[-2000:]
    assert sorted(p.name for p in cwd.iterdir()) == []
    assert sorted(p.name for p in tmpdir.iterdir()) == []
    # its own folder (this test process may hold one of its own there: the in-process CLI test)
    assert not (sample_home.tmp / f"spark-{done.pid}").exists()
    code, duck_out, err = run(capsys, "--home", str(sample_home.root), *args)
    assert code == 0, err
    assert out == duck_out


def test_engine_options_are_checked(sample_home, capsys):
    home = str(sample_home.root)
    code, out, err = run(capsys, "--home", home, "report", "overview", "--engine", "flink")
    assert code == 2 and "--engine 'flink'" in err
    code, out, err = run(capsys, "--home", home, "report", "overview", "--master", "local[2]")
    assert code == 2 and "--master goes with --engine spark" in err


def test_the_spark_tests_share_one_worker(request):
    """Under `make test` (`--dist loadgroup`) this group runs on one worker, so one JVM serves it:
    the group is named at the end of the node id, which is what the scheduler groups by."""
    if getattr(request.config.option, "loadgroup", False):
        assert request.node.nodeid.endswith("@spark"), request.node.nodeid


def test_a_local_session_has_room_for_the_catalog(spark):
    """The local session's heap and status store are sized for the catalog (a 1 GB heap and 1,000
    retained executions ran out of memory after ~100 reports on the sample)."""
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.driver.memory") == os.environ.get("SPARK_DRIVER_MEMORY", ws.LOCAL_DRIVER_MEMORY)
    assert int(conf.get("spark.sql.ui.retainedExecutions")) <= 50


def test_the_session_is_sized_for_a_small_home(spark):
    """session(small=True), the suite's: the JVM runs with the quick JIT compiler only (its own
    arguments say so, not only the setting), two shuffle partitions, small files packed."""
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    assert "-XX:TieredStopAtLevel=1" in list(runtime.getInputArguments())
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.sql.shuffle.partitions") == "2"
    assert int(conf.get("spark.sql.files.openCostInBytes")) == 64 << 20


def test_the_small_session_has_room_for_its_compiled_code(spark):
    """The C1-only JVM's code cache holds what the sample's parity compiles: at the JVM's default
    for C1 only (48 MB) it was full after registering every view, and the JIT then stopped for
    good (every later query interpreted). Read from the JVM's own memory pools."""
    jvm = spark.sparkContext._jvm
    pools = jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
    code = [p for p in pools if "Code" in p.getName()]
    assert code, [p.getName() for p in pools]
    assert sum(p.getUsage().getMax() for p in code) >= 200 << 20


def test_a_running_session_keeps_its_settings(spark):
    """session() in a process where a session runs (the suite's, sized small; or a user's own)
    returns it as it is: before, the builder set tracewh's usual sizes on it again (8 shuffle
    partitions, where the suite's session has 2), so every later query ran with them."""
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "false")
    try:
        again = ws.session()
        assert again is spark
        assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
        assert spark.conf.get("spark.sql.execution.arrow.pyspark.enabled") == "false"
    finally:
        spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")


def _window_nodes(plan) -> list:
    """The Window operators of an executed Spark plan (a Java object, walked through Py4J)."""
    found = [plan] if plan.nodeName() == "Window" else []
    children = plan.children()
    for i in range(children.size()):
        found += _window_nodes(children.apply(i))
    return found


def test_window_frames_are_segment_trees(spark):
    """The session computes sliding and shrinking frames with Spark's segment tree (the Window
    operator's own metric counts the frames it built as trees), with the rows worked out here: over
    x = 0..2999 in one partition, min(x) over the rows after x is x + 1 (NULL for the last), the sum
    over x and the two rows before it is 3x - 3 (x, x-1, x-2), 0 and 1 for the first two."""
    key = "spark.sql.window.segmentTree.enabled"
    assert spark.conf.get(key) == "true"
    assert any(r.key == key for r in spark.sql("SET -v").collect()), "a setting this Spark knows"
    n = 3000
    df = spark.sql(
        "SELECT x, "
        "min(x) OVER (PARTITION BY k ORDER BY x ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS m, "
        "sum(x) OVER (PARTITION BY k ORDER BY x ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s "
        f"FROM range(0, {n}) AS t(x) CROSS JOIN (SELECT 1 AS k)"
    )
    adaptive = spark.conf.get("spark.sql.adaptive.enabled")
    spark.conf.set("spark.sql.adaptive.enabled", "false")  # the plan as run, without query stages
    try:
        rows = sorted(tuple(r) for r in df.collect())
        windows = _window_nodes(df._jdf.queryExecution().executedPlan())
    finally:
        spark.conf.set("spark.sql.adaptive.enabled", adaptive)
    assert rows == [
        (x, x + 1 if x < n - 1 else None, 3 * x - 3 if x >= 2 else x * (x + 1) // 2) for x in range(n)
    ]
    assert windows and sum(w.metrics().apply("numSegmentTreeFrames").value() for w in windows) >= 2


# --- the parity on a synthetic home (last: it registers another catalog in the session) --------


@pytest.mark.parametrize("view", VIEWS)
def test_view_parity_on_synth(view, spark_synth, synth_home):
    _view_parity(spark_synth, synth_home, view)


@pytest.mark.parametrize(("report", "trace"), REPORT_RUNS)
def test_report_parity_on_synth(report, trace, spark_synth, synth_home):
    _report_parity(spark_synth, synth_home, report, trace)


@pytest.mark.spark
@pytest.mark.parametrize("view", ALIBABA2017_VIEWS)
def test_alibaba2017_view_parity(view, spark_alibaba2017, alibaba2017_home):
    duck = _view_parity(spark_alibaba2017, alibaba2017_home, view)
    assert duck.rows, f"{view}: the alibaba2017 sample has rows (else the parity proves nothing)"


@pytest.mark.spark
@pytest.mark.parametrize(("report", "trace"), ALIBABA2017_REPORT_RUNS)
def test_alibaba2017_report_parity(report, trace, spark_alibaba2017, alibaba2017_home):
    _report_parity(spark_alibaba2017, alibaba2017_home, report, trace)


def test_the_alibaba2017_parity_covers_its_views_and_reports():
    """Its views (raw and semantic) and the reports that name it are all in the lists above."""
    assert len(ALIBABA2017_VIEWS) >= 12
    assert {r for r, _ in ALIBABA2017_REPORT_RUNS} >= {"overview", "compare", "ali-hierarchy"}


@pytest.mark.spark
def test_a_raw_view_registered_before_an_ingest_reads_the_new_generation_after_a_partial_register(
    spark, sample_home, tmp_path
):
    """A view's table keeps the files Spark listed; after an ingest (a new generation behind the
    table's link) a register of one report's units refreshes the other tables too, so a raw view
    that report does not need reads the files the link names now (it failed with FILE_NOT_EXIST:
    the old generation's files)."""
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", SAMPLE)
    try:
        ws.register(spark, home)
        before = ws.fetch(spark, "SELECT count(*) AS n FROM google2011_raw.task_events").rows[0][0]
        # part 0 again with its first 100 events only: a new generation of task_events
        part = "task_events/part-00000-of-00500.csv.gz"
        with gzip.open(SAMPLE / part, "rt") as fh:
            lines = fh.read().splitlines()[:100]
        smaller = tmp_path / "smaller"
        write_gz(smaller / part, lines)
        ingest.ingest(home, "google2011", smaller)
        ws.register(spark, home, only=reports.get("transitions"))
        after = ws.fetch(spark, "SELECT count(*) AS n FROM google2011_raw.task_events").rows[0][0]
    finally:
        ws.register(spark, sample_home)  # the session's views as the other tests expect them
    with query.read_only(home) as con:
        (expected,) = con.execute("SELECT count(*) FROM google2011_raw.task_events").fetchone()
    assert after == expected < before


@pytest.mark.spark
def test_a_second_home_registers_in_the_same_session(spark, sample_home, tmp_path):
    """A second home, in a folder whose name has glob characters, registers in the session of the
    first and its views read its files. DuckDB keeps a view's statement as written (CREATE VIEW):
    the derived views read from the catalog were refused when another home's were already
    registered; and Spark reads a table's location as a glob pattern (Hadoop's), so the files of
    a home under ``g[1]`` were not found."""
    ws.register(spark, sample_home)
    second = Home.resolve(tmp_path / "g[1]*{a,b}" / "second")  # (a home refuses "?": DuckDB)
    ingest.ingest(second, "google2011", SAMPLE)
    try:
        ws.register(spark, second)
        counted = {
            name: ws.fetch(spark, f"SELECT count(*) AS n FROM {name}").rows[0][0]
            for name in ("google2011_raw.task_events", "derived.task_transitions", "derived.task_episodes")
        }
    finally:
        ws.register(spark, sample_home)  # the session's views as the other tests expect them
    with query.read_only(second) as con:
        expected = {name: con.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in counted}
    assert counted == expected
    assert min(counted.values()) > 0
