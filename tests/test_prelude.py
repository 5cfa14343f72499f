"""The per-view prelude ({{event_time}}, {{decoded}}, {{time_class}}: tracewh.traces.expand_sql) is
made from the spec: the columns a view gets for a real-shaped row, and the comments the catalog
gives them, against values worked out by hand."""

from __future__ import annotations

from datetime import datetime, timezone

import duckdb
import pytest

from tracewh import sqlfiles
from tracewh.errors import UsageError
from tracewh.traces import (
    expand_sql,
    get_trace,
    prelude_comments,
    prelude_sql,
    vocabulary_in,
    vocabulary_macros_sql,
)

# A real task_events row of part-00001-of-00500 (/work/shared/realdata), then the same row moved to
# time 0 and to 2^63-1 with other codes.
USER = "fJYeclskJqPWsAT6TX/r9X5OiIZpSEb2PBGliYAOMxM="
ROWS = [
    f"5611824441,,6251812952,1761,1306108,4,{USER},0,2,0.02499,0.07959,0.0003862,1",
    f"0,2,6251812952,1761,,0,{USER},0,2,0.02499,0.07959,0.0003862,1",
    f"9223372036854775807,1,6251812952,1761,1306108,5,{USER},3,9,,,,0",
]


def _task_events(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    spec = get_trace("google2011")
    con.execute("CREATE SCHEMA google2011; CREATE SCHEMA google2011_raw")
    con.execute(prelude_sql(spec))
    folder = {f.path.name: f for f in sqlfiles.folder(spec.sql_folder)}
    codes = folder["00_codes.sql"].body
    con.execute(codes)
    for schema, table, rows_sql in vocabulary_in(codes):
        con.execute(vocabulary_macros_sql(schema, table, con.execute(rows_sql).fetchall()))
    columns = spec.tables["task_events"].columns
    typed = ", ".join(f"NULLIF(c{i}, '')::{c.type} AS {c.name}" for i, c in enumerate(columns))
    values = ", ".join(
        "(" + ", ".join(f"'{v}'" for v in row.split(",")) + f", {n}, 0)" for n, row in enumerate(ROWS)
    )
    names = ", ".join(f"c{i}" for i in range(len(columns)))
    con.execute(
        f"CREATE TABLE google2011_raw.task_events AS SELECT {typed}, seq, day "
        f"FROM (VALUES {values}) AS v({names}, seq, day)"
    )
    con.execute(expand_sql(folder["11_task_events.sql"].body))
    return con.execute(
        "SELECT time_class, event_time, event_time_local, missing_info_name, is_synthesized, "
        "event_type_name, scheduling_class_name, priority_tier, is_production "
        "FROM google2011.task_events ORDER BY seq"
    ).fetchall()


def test_the_prelude_of_task_events_for_a_real_row_at_zero_in_the_window_and_after():
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    got = _task_events(con)
    # 5611824441 us - 600 s offset = 5011.824441 s after the start 2011-05-01 23:00 UTC
    # = 2011-05-02 00:23:31.824441 UTC = 20:23:31.824441 in New York (EDT, UTC-4)
    instant = datetime(2011, 5, 2, 0, 23, 31, 824441, tzinfo=timezone.utc)
    real = ("in_window", instant, datetime(2011, 5, 1, 20, 23, 31, 824441), None, False, "FINISH")
    at_zero = ("before_window", None, None, "EXISTS_BUT_NO_CREATION", True, "SUBMIT")
    after = ("after_window", None, None, "NO_SNAPSHOT_OR_TRANSITION", True, "KILL")
    assert got == [
        (*real, "MOST_INSENSITIVE", "middle", False),
        (*at_zero, "MOST_INSENSITIVE", "middle", False),
        (*after, "MOST_SENSITIVE", "production", True),
    ]


def test_the_prelude_comments_come_from_the_spec_and_the_code_table():
    body = next(
        f.body
        for f in sqlfiles.folder(get_trace("google2011").sql_folder)
        if f.path.name == "12_machine_events.sql"
    )
    names = {"machine_event_type": ["ADD", "REMOVE", "UPDATE"]}
    view = "google2011.machine_events"
    assert prelude_comments(body, names.__getitem__) == [
        (view, "time_class", "before_window (time 0) | in_window | after_window (time >= 2^63-1)"),
        (view, "event_time", "Real instant (TIMESTAMPTZ); NULL unless time_class = in_window"),
        (
            view,
            "event_time_local",
            "Wall-clock time in the trace's zone, America/New_York; NULL unless in_window",
        ),
        (
            view,
            "event_type_name",
            "ADD | REMOVE | UPDATE; UNKNOWN(<code>) otherwise (code set machine_event_type)",
        ),
    ]


def test_the_catalog_holds_the_prelude_comments(sample_con):
    rows = dict(
        sample_con.execute(
            "SELECT table_name || '.' || column_name, comment FROM duckdb_columns() WHERE schema_name IN "
            "('google2011', 'google2019', 'alibaba2017') AND column_name IN ('event_type_name', 'type_name', "
            "'event_time_local', 'missing_info_name', 'timestamp_class')"
        ).fetchall()
    )
    assert rows["task_events.event_type_name"] == (
        "SUBMIT | SCHEDULE | EVICT | FAIL | FINISH | KILL | LOST | UPDATE_PENDING | UPDATE_RUNNING; "
        "UNKNOWN(<code>) otherwise (code set event_type)"
    )
    assert rows["machine_events.type_name"] == (
        "UNKNOWN | ADD | REMOVE | UPDATE; UNKNOWN(<code>) otherwise (code set machine_event_type)"
    )
    assert rows["job_events.missing_info_name"].startswith(
        "SNAPSHOT_BUT_NO_TRANSITION | NO_SNAPSHOT_OR_TRANSITION"
    )
    assert rows["collection_events.event_time_local"] == (
        "Wall-clock time in the cell's time zone (google2019.cells); NULL unless in_window"
    )


def test_a_decoded_column_without_a_code_set_is_refused():
    with pytest.raises(UsageError, match=r"google2011.task_events.priority is not a column with a code set"):
        expand_sql("CREATE VIEW google2011.task_events AS SELECT {{decoded r.priority}} FROM x AS r")
