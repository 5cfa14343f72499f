"""The catalog opens in the real DuckDB shell of the duckdb-cli package (1.5.x), from any
working directory, and every view answers there."""

from __future__ import annotations

import json
import subprocess

import duckdb
import pytest

from tracewh import catalog
from tracewh.engines import shell


def run_shell(catalog_path, sql: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [shell.binary(), "-readonly", "-json", str(catalog_path), "-c", sql],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_shell_is_the_duckdb_cli_1_5_package():
    out = subprocess.run([shell.binary(), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("v1.5."), out.stdout


def all_views(sample_home):
    con = duckdb.connect(str(sample_home.catalog), read_only=True)
    try:
        return con.execute(
            "SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1"
        ).fetchall()
    finally:
        con.close()


def test_every_view_answers_in_the_shell_from_another_directory(sample_home, tmp_path):
    views = [v for (v,) in all_views(sample_home)]
    assert len(views) >= 13  # 6 semantic + 6 raw + tiers + lifecycle
    sql = " UNION ALL ".join(f"SELECT '{v}' AS v, count(*) AS n FROM {v}" for v in views)
    out = run_shell(sample_home.catalog, sql + " ORDER BY v;", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from_shell = {r["v"]: r["n"] for r in json.loads(out.stdout)}
    con = duckdb.connect(str(sample_home.catalog), read_only=True)
    from_python = {v: n for v, n in con.execute(sql).fetchall()}
    con.close()
    assert from_shell == from_python
    assert from_shell["google2011.task_events"] == 77915


def test_special_times_and_names_decode_the_same_in_the_shell(sample_home, tmp_path):
    sql = (
        "SELECT time_class, event_type_name, count(*) AS n, count(event_time) AS dated "
        "FROM google2011.task_events GROUP BY ALL ORDER BY ALL;"
    )
    out = run_shell(sample_home.catalog, sql, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    for r in rows:
        assert r["dated"] == (r["n"] if r["time_class"] == "in_window" else 0)
    macro = run_shell(
        sample_home.catalog,
        "SELECT CAST(google2011.trace_timestamp(600000000) AT TIME ZONE 'UTC' AS VARCHAR) AS t;",
        cwd=tmp_path,
    )
    assert json.loads(macro.stdout) == [{"t": "2011-05-01 23:00:00"}]


def test_the_shell_still_opens_the_catalog_after_the_python_client_rewrote_it(tmp_path):
    """Later writes by a newer duckdb must keep the file in the format the 1.5 shell reads."""
    from conftest import SAMPLE

    from tracewh import ingestion as ingest
    from tracewh.home import Home
    from tracewh.options import IngestOptions

    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["machine_events"]))
    catalog.repair(home)
    out = run_shell(home.catalog, "SELECT count(*) AS n FROM google2011.job_events;", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"n": 3172}]


def test_comments_are_visible_in_the_shell(sample_home, tmp_path):
    out = run_shell(
        sample_home.catalog,
        "SELECT comment FROM duckdb_columns() WHERE schema_name = "
        "'google2011' AND table_name = 'task_events' AND column_name = 'time_class';",
        cwd=tmp_path,
    )
    assert "before_window" in json.loads(out.stdout)[0]["comment"]


@pytest.mark.parametrize("query", ["SELECT count(*) FROM google2011.job_events"])
def test_python_can_attach_the_catalog_read_only_while_another_reader_is_open(sample_home, query):
    a = duckdb.connect(str(sample_home.catalog), read_only=True)
    b = subprocess.run(
        [shell.binary(), "-readonly", str(sample_home.catalog), "-c", query],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert b.returncode == 0, b.stderr
    assert a.execute(query).fetchone() == (3172,)
    a.close()
