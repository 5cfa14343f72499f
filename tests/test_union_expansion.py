"""The two forms of ``{{union X}}`` (tracewh.traces.expand_sql): DuckDB's UNION ALL BY NAME, and the
positional UNION ALL over one column list that engines without BY NAME (Spark) get. Both run here
in DuckDB, so the positional form is checked against BY NAME by DuckDB itself, on every placeholder
of the shipped SQL over the bundled sample, and on a hand-built pair of views where one lacks a
column."""

from __future__ import annotations

import re

import duckdb
import pytest

from tracewh import catalog, sqlfiles
from tracewh.traces import expand_sql, registry

_PLACEHOLDER = re.compile(r"\{\{\s*union\s+(\w+)\s*\}\}")


def _placeholders() -> list[str]:
    """Every adapter view a shared SQL file unions (found in the files: a new one is covered)."""
    folders = (*catalog.SHARED_SQL_FOLDERS, "reports")
    return sorted(
        {v for folder in folders for f in sqlfiles.folder(folder) for v in _PLACEHOLDER.findall(f.body)}
    )


def _columns_of(con: duckdb.DuckDBPyConnection):
    def columns(view: str) -> list[tuple[str, str]]:
        schema, name = view.split(".")
        return con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? "
            "ORDER BY column_index",
            [schema, name],
        ).fetchall()

    return columns


def _difference(con, a: str, b: str) -> int:
    """Rows in one result and not the other, counting duplicates (DuckDB's EXCEPT ALL both ways)."""
    return con.execute(
        f"SELECT count(*) FROM ((FROM {a} EXCEPT ALL FROM {b}) UNION ALL (FROM {b} EXCEPT ALL FROM {a}))"
    ).fetchone()[0]


def test_every_shared_union_has_the_same_columns_and_rows_in_both_forms(sample_con):
    views = _placeholders()
    assert {"lifecycle_task_events", "lifecycle_event_types", "headline"} <= set(views)
    for view in views:
        by_name = expand_sql(f"SELECT * FROM {{{{union {view}}}}}")
        positional = expand_sql(f"SELECT * FROM {{{{union {view}}}}}", _columns_of(sample_con))
        assert "BY NAME" not in positional, view
        cols_by_name = [d[0] for d in sample_con.execute(by_name).description]
        cols_positional = [d[0] for d in sample_con.execute(positional).description]
        assert cols_positional == cols_by_name, view
        n = sample_con.execute(f"SELECT count(*) FROM ({by_name})").fetchone()[0]
        assert n > 0, f"{view}: the sample has rows (else the comparison proves nothing)"
        assert _difference(sample_con, f"({by_name})", f"({positional})") == 0, view


def test_a_column_one_adapter_lacks_is_null_of_its_type_in_bys_name_order():
    """Hand-built: google2011's adapter has (trace, code, name), google2019's (code, trace, extra)
    in another order and without `name`. BY NAME gives columns trace, code, name, extra (the first
    view's, then the new one); the google2011 row has extra NULL, the google2019 row name NULL."""
    con = duckdb.connect()
    con.execute("CREATE SCHEMA google2011; CREATE SCHEMA google2019; CREATE SCHEMA alibaba2018")
    con.execute(
        "CREATE VIEW google2011.lifecycle_event_types AS SELECT 'g11' AS trace, 1 AS code, 'SUBMIT' AS name"
    )
    con.execute(
        "CREATE VIEW google2019.lifecycle_event_types AS "
        "SELECT 2::BIGINT AS code, 'g19' AS trace, [7] AS extra"
    )
    providers = [t for t in registry() if t.startswith("google")]
    assert providers == ["google2011", "google2019"]
    text = expand_sql("SELECT * FROM {{union lifecycle_event_types}}", _columns_of(con))
    assert 'CAST(NULL AS INTEGER[]) AS "extra"' in text and 'CAST(NULL AS VARCHAR) AS "name"' in text
    cur = con.execute(text + " ORDER BY code")
    assert [d[0] for d in cur.description] == ["trace", "code", "name", "extra"]
    assert cur.fetchall() == [("g11", 1, "SUBMIT", None), ("g19", 2, None, [7])]


def test_an_adapter_nobody_provides_is_an_error():
    with pytest.raises(Exception, match="no trace provides the adapter view 'nothing_here'"):
        expand_sql("SELECT * FROM {{union nothing_here}}", lambda v: [])


def test_a_report_over_adapters_covers_the_traces_providing_them(monkeypatch):
    from tracewh import headers, reports
    from tracewh.traces import providing

    # by hand from the folders: only alibaba2018 creates its batch views, every Google trace and
    # no Alibaba one the life-cycle task events
    assert "alibaba2018" in providing(["batch_tasks", "batch_instances"])
    assert not {"google2011", "google2019"} & set(providing(["batch_tasks"]))
    assert providing(["lifecycle_task_events"])[:2] == ("google2011", "google2019")
    assert reports.get("ali-hierarchy").traces == providing(["batch_tasks", "batch_instances"])
    with pytest.raises(headers.HeaderError, match="no adapter contract 'batch_taks'"):
        reports._covered("x", "with batch_taks")


def test_each_trace_with_an_adapter_lists_only_those_traces():
    got = expand_sql("SELECT {{each trace with lifecycle_task_event_tables | headline: '@trace'}}")
    assert got == "SELECT 'google2011', 'google2019', 'alibaba2018'"
    assert expand_sql("SELECT {{each trace with headline: 1 AS @trace}}") == "SELECT 1 AS alibaba2018"
