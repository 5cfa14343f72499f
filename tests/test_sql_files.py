"""Every shipped SQL file runs: views and macros are built by the catalog, every report and every
check executes on the sample, and every file carries the header the conventions ask for."""

from __future__ import annotations

import pytest
from conftest import SAMPLES

from tracewh import reports, sqlfiles
from tracewh.catalog import checks

ALL_FILES = [
    f
    for folder in sorted(p for p in sqlfiles.sql_root().rglob("*") if p.is_dir())
    for f in sqlfiles.folder(folder)
]


@pytest.mark.parametrize("f", ALL_FILES, ids=lambda f: f"{f.path.parent.name}/{f.path.name}")
def test_every_sql_file_has_a_header(f):
    assert "name" in f.header and "description" in f.header, f.path
    if f.path.parent.name == "reports":
        assert {"traces", "description", "params"} <= set(f.header), f.path
    if f.path.parent.name not in ("reports", "checks", "meta"):
        assert "grain" in f.header or "params" in f.header, f.path


@pytest.mark.parametrize("name", sorted(reports.all_reports()))
def test_every_report_runs_on_the_sample(sample_home, name):
    report = reports.get(name)
    sampled = [t for t in report.traces if t in SAMPLES]
    trace = (sampled[0] if "google2011" not in sampled else "google2011") if report.needs_trace else None
    rows = reports.run(sample_home, name, trace=trace, options=report.example_options)
    assert rows.columns and rows.rows, name


@pytest.fixture(scope="module")
def sample_checks(sample_home) -> list[checks.CheckResult]:
    """Every check run once on the (unchanging) sample: each parameter below reads its own result
    (running them all for each one cost about 1.7 s a parameter)."""
    return checks.run_all(sample_home)


# One worker runs these (`--dist loadgroup`): the checks run on the sample once, not on each worker.
@pytest.mark.xdist_group("sample_checks")
@pytest.mark.parametrize("name", [c[0] for c in checks.all_checks()])
def test_every_check_passes_on_the_sample(sample_checks, name):
    (result,) = [r for r in sample_checks if r.name == name]
    assert not result.failed, (name, result.sample)


def test_every_view_and_macro_a_sql_file_creates_exists_in_the_catalog(sample_con):
    import re

    views = {
        f"{s}.{v}"
        for s, v in sample_con.execute(
            "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal"
        ).fetchall()
    }
    macros = {
        f"{s}.{m}"
        for s, m in sample_con.execute(
            "SELECT schema_name, function_name FROM duckdb_functions() WHERE function_type = 'macro' "
            "AND NOT internal"
        ).fetchall()
    }
    declared = 0
    for f in ALL_FILES:
        for kind, name in re.findall(r"CREATE OR REPLACE (VIEW|MACRO) ([\w.]+)", f.body):
            declared += 1
            assert name in (views if kind == "VIEW" else macros), (f.path, name)
    assert declared >= 13
