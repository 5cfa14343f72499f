"""Every trace fact lives in its spec: the time macros, zones, the clamp and the negative-time rule,
published row counts and entity columns are read from it (no shared file repeats them), and a spec
naming a column it does not have is refused when the registry is built."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest

from tracewh import ingestion as ingest
from tracewh.errors import CatalogError, UsageError
from tracewh.home import Home
from tracewh.ingestion import readers
from tracewh.traces import MODULES_ENV, Column, Layout, Table, TraceSpec, prelude_sql, registry, time_zone


def _spec(**kw) -> TraceSpec:
    table = Table("t", (Column("time", "BIGINT", is_time=True), Column("id", "BIGINT")), "a table")
    args = {
        "name": "toy",
        "title": "toy",
        "tables": {"t": table},
        "layout": Layout(re.compile(r"^(?P<table>t)\.csv$"), "t.csv"),
        "reader": "csv",
        "units_per_day": 86_400,
    }
    return TraceSpec(**{**args, **kw})


def _problems(negative_times: bool) -> list[tuple[str, str | None]]:
    """(raw time, why refused) of three CSV fields through the reader's checks, in real DuckDB."""
    table = _spec().tables["t"]
    reader = "(SELECT * FROM (VALUES ('-5', '1'), ('7', '2'), ('-x', '3')) AS v(time, id))"
    sql = readers.checked(table, reader, text_ints=True, negative_times=negative_times)
    rows = duckdb.connect().execute(f"SELECT id, {readers.PROBLEM} FROM {sql} ORDER BY id").fetchall()
    return [(raw, p) for raw, (_, p) in zip(("-5", "7", "-x"), rows, strict=True)]


def test_negative_times_are_refused_unless_the_spec_says_they_are_values():
    refused = _problems(negative_times=False)
    assert refused[0][1] is not None and "non-negative" in refused[0][1]
    assert refused[1][1] is None and refused[2][1] is not None
    allowed = _problems(negative_times=True)
    assert allowed[0][1] is None and allowed[1][1] is None
    assert allowed[2][1] is not None  # still not an integer


def test_times_are_clamped_to_the_specs_after_window_value_only():
    table = _spec().tables["t"]
    con = duckdb.connect()
    src = "(SELECT 18446744073709551615::UBIGINT AS time, 1::BIGINT AS id, 1 AS __line)"
    with_window = _spec(after_window=1000)
    assert con.execute(
        f"SELECT time FROM (SELECT {readers.select_list(table, 0, with_window)} FROM {src})"
    ).fetchone() == (1000,)
    src_small = "(SELECT 5000::BIGINT AS time, 1::BIGINT AS id, 1 AS __line)"
    # no after-window value: a time is stored as read (5000 stays 5000)
    no_window = _spec()
    got = con.execute(
        f"SELECT time FROM (SELECT {readers.select_list(table, 0, no_window)} FROM {src_small})"
    )
    assert got.fetchone() == (5000,)


def test_a_spec_naming_a_column_it_lacks_is_refused():
    table = Table("t", (Column("job_id", "BIGINT"),), "x", entities={"jobs": ("job_idd",)})
    with pytest.raises(UsageError, match=r"toy\.t: no column 'job_idd'"):
        _spec(tables={"t": table})
    with pytest.raises(UsageError, match="'nope'"):
        _spec(inputs={"task_events": "nope"})


def test_the_time_macros_follow_the_spec():
    # seconds since a start 10 units before the disclosed instant, after-window value 100
    spec = _spec(
        trace_start=datetime(2020, 1, 1, tzinfo=timezone.utc),
        start_offset=10,
        after_window=100,
        time_zone="Asia/Tokyo",
    )
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute("CREATE SCHEMA toy")
    con.execute(prelude_sql(spec))
    got = con.execute(
        "SELECT toy.time_class(0), toy.time_class(50), toy.time_class(100), toy.trace_timestamp(70), "
        "toy.trace_seconds(70), toy.trace_timestamp(100), toy.trace_local_time(70)"
    ).fetchone()
    assert got[:3] == ("before_window", "in_window", "after_window")
    assert got[3] == datetime(2020, 1, 1, 0, 1, tzinfo=timezone.utc)  # 70 - 10 = 60 s after the start
    assert got[4] == 60.0 and got[5] is None
    assert got[6] == datetime(2020, 1, 1, 9, 1)  # Tokyo is UTC+9
    # a trace whose start is not disclosed has no instant at all
    con.execute(prelude_sql(_spec()))
    assert con.execute("SELECT toy.trace_timestamp(70)").fetchone() == (None,)


def test_negative_times_are_classed_before_the_window_from_the_spec():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA toy")
    # without a disclosed start: classes only where the spec says what a negative time is
    con.execute(prelude_sql(_spec(negative_times=True)))
    got = con.execute("SELECT list(toy.time_class(t) ORDER BY t) FROM range(-1, 2) AS r(t)").fetchone()
    assert got == (["before_window", "before_window", "in_window"],)
    con.execute("CREATE SCHEMA toy2")
    con.execute(prelude_sql(_spec(name="toy2")))
    assert con.execute("SELECT count(*) FROM duckdb_functions() WHERE schema_name = 'toy2'").fetchone() == (
        1,
    )
    # with a start: -1 is before the window only under negative_times
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    con.execute(prelude_sql(_spec(trace_start=start)))
    assert con.execute("SELECT toy.time_class(-1)").fetchone() == ("in_window",)
    con.execute(prelude_sql(_spec(trace_start=start, negative_times=True)))
    assert con.execute("SELECT toy.time_class(-1)").fetchone() == ("before_window",)


def test_zones_come_from_the_specs():
    # traces.md: the 2011 cell runs on America/New_York; the 2019 cells lie in several zones
    assert time_zone("google2011") == "America/New_York"
    assert time_zone("google2019", "e") == "Europe/Helsinki"
    assert time_zone("google2019") == "UTC"
    assert time_zone("alibaba2018") == "UTC" and time_zone(None) == "UTC"


def test_published_row_counts_reach_the_catalog(sample_con):
    # traces.md: 2011 task_events 144,648,288 rows, job_events 2,012,242, machine_events 37,780;
    # Alibaba 2018 batch_task 14,295,731, batch_instance 1,351,255,775
    got = dict(
        ((t, n), r)
        for t, n, r in sample_con.execute(
            "SELECT trace, table_name, published_rows FROM meta.published_rows"
        ).fetchall()
    )
    assert got == {
        ("google2011", "task_events"): 144_648_288,
        ("google2011", "job_events"): 2_012_242,
        ("google2011", "machine_events"): 37_780,
        ("alibaba2018", "batch_task"): 14_295_731,
        ("alibaba2018", "batch_instance"): 1_351_255_775,
    }
    assert set(registry()) >= {t for t, _ in got}


TOY = Path(__file__).resolve().parent / "fixtures" / "toytrace"

# the toy trace's headline (tests/fixtures/toytrace/sql/90_headline.sql) with one column broken
_BROKEN = {
    "misspelled": (
        "count(DISTINCT job_id) AS jobs,",
        "count(DISTINCT job_id) AS jbos,",
        "has jbos, which the contract does not know",
    ),
    "mistyped": (
        "count(DISTINCT job_id) AS jobs,",
        "count(DISTINCT job_id)::VARCHAR AS jobs,",
        "jobs is VARCHAR, not BIGINT",
    ),
}


@pytest.mark.parametrize("case", sorted(_BROKEN))
def test_an_adapter_view_breaking_its_contract_stops_the_catalog(case, tmp_path, monkeypatch):
    old, new, said = _BROKEN[case]
    sql = tmp_path / "sql"
    shutil.copytree(TOY / "sql", sql)
    headline = (sql / "90_headline.sql").read_text(encoding="utf-8")
    assert old in headline
    (sql / "90_headline.sql").write_text(headline.replace(old, new), encoding="utf-8")
    module = f"brokentoy_{case}"  # a name of its own: Python keeps an imported module
    (tmp_path / f"{module}.py").write_text(
        "from dataclasses import replace\nfrom pathlib import Path\nimport toy2024\n"
        "SPEC = replace(toy2024.SPEC, sql_dir=Path(__file__).parent / 'sql')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(MODULES_ENV, module)
    src = tmp_path / "toy-download"
    src.mkdir()
    (src / "jobs.csv").write_text("10,j1,SUBMIT,m1\n")
    (src / "machines.csv").write_text("m1,0.5\n")
    with pytest.raises(
        CatalogError, match=re.escape(f"toy2024.headline breaks the adapter contract ({said})")
    ):
        ingest.ingest(Home.resolve(tmp_path / "home"), "toy2024", src)


def test_an_adapter_view_lacking_a_contract_column_is_named():
    from tracewh.traces import ADAPTERS, adapter_problems

    full = ADAPTERS["lifecycle_job_events"]

    def columns(view: str) -> list[tuple[str, str]]:
        # google2011's view as if it had lost is_synthesized; every other view as contracted
        name = view.split(".")[1]
        cols = list(ADAPTERS[name]) if name in ADAPTERS else []
        return [c for c in cols if view != "google2011.lifecycle_job_events" or c[0] != "is_synthesized"]

    assert ("is_synthesized", "BOOLEAN") in full
    assert adapter_problems(columns) == [
        "google2011.lifecycle_job_events breaks the adapter contract (lacks is_synthesized)"
    ]


def test_a_traces_own_reports_and_checks_are_found_in_its_folder(tmp_path, monkeypatch):
    # A report or check of one trace's views lives in <its SQL folder>/reports/ and checks/: found
    # there from the registry, with no list naming it, and gone when the trace is not registered.
    from tracewh import reports
    from tracewh.catalog import checks

    sql = tmp_path / "sql"
    shutil.copytree(TOY / "sql", sql)
    (sql / "reports").mkdir()
    (sql / "reports" / "toy_jobs.sql").write_text(
        "-- name: toy-jobs\n-- traces: toy2024\n-- description: the toy's jobs\n-- params: trace\n"
        "SELECT count(*) AS jobs FROM toy2024.jobs;\n",
        encoding="utf-8",
    )
    (sql / "checks").mkdir()
    (sql / "checks" / "toy_job_ids.sql").write_text(
        "-- name: toy_job_ids\n-- description: every toy job has an id\n"
        "SELECT * FROM toy2024.jobs WHERE job_id IS NULL;\n",
        encoding="utf-8",
    )
    (tmp_path / "foldertoy.py").write_text(
        "from dataclasses import replace\nfrom pathlib import Path\nimport toy2024\n"
        "SPEC = replace(toy2024.SPEC, sql_dir=Path(__file__).parent / 'sql')\n",
        encoding="utf-8",
    )
    assert "toy-jobs" not in reports.all_reports()
    assert "toy_job_ids" not in [name for name, _, _ in checks.all_checks()]
    monkeypatch.syspath_prepend(str(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(MODULES_ENV, "foldertoy")
    assert reports.get("toy-jobs").traces == ("toy2024",)
    assert "ali-job" in reports.all_reports()  # a built-in trace's own report, beside it
    assert "toy_job_ids" in [name for name, _, _ in checks.all_checks()]
