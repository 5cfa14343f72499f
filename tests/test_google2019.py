"""Google 2019: every JSON encoding variant of the bundled shards decodes to the values worked out by
hand here (see data/sample/google2019/README.md for the story of each row); two cells live side by
side; bad lines are counted rejects; the life-cycle reports answer per cell."""

from __future__ import annotations

import gzip
import json
import shutil
from datetime import datetime, timezone

import duckdb
import pytest
from conftest import SAMPLE_2019

from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.errors import UsageError
from tracewh.home import Home
from tracewh.options import IngestOptions

# One worker runs this module (`--dist loadgroup`): its module-scoped homes are built once, not on
# each worker that gets one of its tests.
pytestmark = [pytest.mark.xdist_group("google2019")]

MAX = 2**63 - 1


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    h = Home.resolve(tmp_path_factory.mktemp("g19") / "home")
    ingest.ingest(h, "google2019", SAMPLE_2019)
    return h


@pytest.fixture(scope="module")
def con(home):
    c = duckdb.connect(str(home.catalog), read_only=True)
    c.execute("SET TimeZone = 'UTC'")
    yield c
    c.close()


def rows(con, sql):
    return con.execute(sql).fetchall()


def test_row_counts_per_cell_equal_the_lines_of_the_shards(con):
    def lines(cell, table):
        n = 0
        for f in (SAMPLE_2019 / f"clusterdata_2019_{cell}").glob(f"{table}-*.json*"):
            opener = gzip.open if f.name.endswith(".gz") else open
            with opener(f, "rt") as fh:
                n += sum(1 for line in fh if line.strip())
        return n

    for table in ("machine_events", "collection_events", "instance_events", "instance_usage"):
        got = dict(rows(con, f"SELECT cell, count(*) FROM google2019.{table} GROUP BY 1"))
        assert got == {"a": lines("a", table), "b": lines("b", table)}, table


def test_int64_as_string_or_number_decode_alike(con):
    # 1001/0: the SUBMIT line uses JSON numbers, the SCHEDULE line JSON strings
    got = rows(
        con,
        "SELECT type_name, collection_id, instance_index, priority, scheduling_class, time "
        "FROM google2019.instance_events WHERE cell = 'a' AND collection_id = 1001 "
        "AND instance_index = 0 AND time = 0 ORDER BY seq",
    )
    assert got == [("SUBMIT", 1001, 0, 200, 3, 0), ("SCHEDULE", 1001, 0, 200, 3, 0)]


def test_absent_fields_take_their_default_zero(con):
    # 1002/0's first line has no type, no instance_index, no priority: SUBMIT of instance 0, free tier
    got = rows(
        con,
        "SELECT type_name, instance_index, priority, priority_tier, request_cpus, request_memory "
        "FROM google2019.instance_events WHERE collection_id = 1002 AND seq % 4294967296 = 7",
    )
    assert got == [("SUBMIT", 0, 0, "free", 0.02, 0.0)]


def test_machine_id_zero_null_absent_and_minus_one(con):
    got = rows(
        con,
        "SELECT collection_id, instance_index, type_name, machine_id, placed_machine_id, "
        "on_dedicated_machine FROM google2019.instance_events WHERE cell = 'a' "
        "AND ((collection_id = 1002 AND instance_index = 1) OR (collection_id = 1001 AND "
        "instance_index = 1 AND type_name IN ('SCHEDULE', 'EVICT'))) ORDER BY collection_id, seq",
    )
    assert got == [
        (1001, 1, "SCHEDULE", -1, None, True),  # "-1": some dedicated machine
        (1001, 1, "EVICT", -1, None, True),
        (1001, 1, "SCHEDULE", 6, 6, False),
        (1002, 1, "SUBMIT", 0, None, False),  # "0": not on a machine
        (1002, 1, "QUEUE", None, None, False),  # null
        (1002, 1, "ENABLE", None, None, False),  # absent
    ]


def test_alloc_sets_and_missing_types(con):
    got = dict(rows(con, "SELECT missing_type_name, count(*) FROM google2019.instance_events GROUP BY 1"))
    assert got == {
        "NONE": 24,
        "TRANSITION_MISSING_STEP": 1,
        "TOO_MANY_EVENTS": 1,
        "NO_SNAPSHOT_OR_TRANSITION": 1,
    }
    assert rows(con, "SELECT count(*) FROM google2019.instance_events WHERE is_synthesized") == [(3,)]
    got = rows(
        con,
        "SELECT DISTINCT collection_id, in_alloc_set, alloc_collection_id, collection_type_name "
        "FROM google2019.instance_events WHERE cell = 'a' ORDER BY 1",
    )
    assert got == [
        (1001, False, None, "JOB"),
        (1002, False, None, "JOB"),
        (1003, True, 2001, "JOB"),
        (2001, False, None, "ALLOC_SET"),
    ]


def test_every_enum_is_named_and_unknown_codes_are_kept(con):
    assert {t for (t,) in rows(con, "SELECT DISTINCT type_name FROM google2019.instance_events")} == {
        "SUBMIT",
        "QUEUE",
        "ENABLE",
        "SCHEDULE",
        "EVICT",
        "FINISH",
        "KILL",
        "UPDATE_RUNNING",
        "UNKNOWN(11)",
    }
    got = rows(
        con,
        "SELECT DISTINCT collection_id, scheduler_name, vertical_scaling_name, scheduling_class_name "
        "FROM google2019.collection_events WHERE cell = 'a' AND type_name = 'SUBMIT' ORDER BY 1",
    )
    assert got == [
        (1001, "DEFAULT", "OFF", "MOST_SENSITIVE"),
        (1002, "BATCH", "FULLY_AUTOMATED", "INSENSITIVE"),
        (1003, "DEFAULT", "UNKNOWN", "MOST_INSENSITIVE"),
        (2001, "DEFAULT", "UNKNOWN", "MOST_INSENSITIVE"),
    ]
    tiers = dict(
        rows(
            con,
            "SELECT DISTINCT collection_id, priority_tier FROM google2019.collection_events WHERE cell = 'a'",
        )
    )
    assert tiers == {1001: "production", 1002: "free", 1003: "best-effort batch", 2001: "monitoring"}


def test_constraints_of_any_length_with_relations_named(con):
    assert rows(
        con, "SELECT constraints, count(*) FROM google2019.instance_events GROUP BY 1 ORDER BY 1"
    ) == [(0, 25), (1, 1), (2, 1)]
    got = rows(
        con,
        "SELECT collection_id, attribute_name, attribute_value, attribute_value_int, relation_name "
        "FROM google2019.instance_constraints ORDER BY collection_id, relation",
    )
    assert got == [
        (1002, "attr+Cores/=", "2", 2, "LESS_THAN"),
        (1002, "attr+Kernel/=", None, None, "PRESENT"),
        (1003, "attr+Cores/=", "4", 4, "GREATER_THAN_EQUAL"),
    ]


def test_special_times_and_local_time_per_cell(con):
    got = rows(
        con,
        "SELECT time, time_class, event_time FROM google2019.instance_events "
        "WHERE type_name = 'FINISH' AND collection_id = 1003",
    )
    assert got == [(MAX, "after_window", None)]
    # machine 7's ADD has no time at all: absent = 0 = before the window
    assert rows(con, "SELECT time, time_class FROM google2019.machine_events WHERE machine_id = 7") == [
        (0, "before_window")
    ]
    a = rows(
        con,
        "SELECT event_time, event_time_local FROM google2019.instance_events WHERE cell = 'a' "
        "AND time = 610000000",
    )
    b = rows(
        con,
        "SELECT event_time, event_time_local FROM google2019.instance_events WHERE cell = 'b' "
        "AND time = 610000000",
    )
    start = datetime(2019, 5, 1, 7, 0, 10, tzinfo=timezone.utc)  # 00:00:10 in Los Angeles
    assert a == [(start, datetime(2019, 5, 1, 3, 0, 10))]  # cell a: New York (EDT)
    assert b == [(start, datetime(2019, 5, 1, 2, 0, 10))]  # cell b: Chicago (CDT)


def test_usage_structs_alias_and_percentile_arrays(con):
    got = rows(
        con,
        "SELECT start_time, average_cpus, average_memory, maximum_memory, random_sample_cpus, "
        "len(cpu_usage_distribution), len(tail_cpu_usage_distribution), window_seconds, day "
        "FROM google2019.instance_usage WHERE cell = 'a' AND collection_id = 1001 ORDER BY start_time",
    )
    assert got == [
        (599000000, 0.01, 0.005, 0.006, 0.011, 11, 9, 300.0, 0),  # straddles the trace start
        (900000000, 0.012, 0.005, 0.0, 0.013, 10, 0, 300.0, 0),  # random_sampled_usage, 10 values
        (1660000000, 0.008, 0.004, 0.005, None, 0, 0, 300.0, 0),
    ]
    assert rows(
        con, "SELECT day, window_seconds FROM google2019.instance_usage WHERE start_time = 2678900000000"
    ) == [(2678900000000 // 86400000000, 400.0)]


def test_machine_capacity_absent_partial_and_missing_data_reason(con):
    got = rows(
        con,
        "SELECT machine_id, type_name, capacity_cpus, capacity_memory, missing_data_reason_name "
        "FROM google2019.machine_events WHERE cell = 'a' AND machine_id IN (6, 8, 9) "
        "ORDER BY machine_id, seq",
    )
    assert got == [
        (6, "ADD", 1.0, 1.0, "NONE"),
        (6, "REMOVE", None, None, "SNAPSHOT_BUT_NO_TRANSITION"),
        (8, "ADD", None, None, "NONE"),
        (9, "ADD", 0.5, 0.0, "NONE"),
    ]


def test_machine_attribute_values_and_deleted_default(con):
    got = rows(
        con,
        "SELECT machine_id, name, value, value_int, deleted FROM google2019.machine_attributes "
        "ORDER BY time, machine_id, name",
    )
    assert got == [
        (5, "attr+Cores/=", "4", 4, False),
        (5, "attr+Kernel/=", "hash+V1/=", None, False),
        (6, "attr+Cores/=", "2", 2, False),
        (5, "attr+Kernel/=", None, None, True),
    ]


def test_parent_and_start_after_relations(con):
    got = rows(
        con,
        "SELECT collection_id, related_collection_id, relation FROM google2019.collection_relations "
        "ORDER BY ALL",
    )
    assert got == [
        (1002, 1001, "parent"),
        (1002, 1001, "start_after"),
        (1003, 1001, "start_after"),
        (1003, 1002, "start_after"),
    ]


def test_queue_per_cell_and_for_all_cells(home):
    def queue(cell):
        r = reports.run(home, "queue", trace="google2019", cell=cell)
        i = {
            c: r.columns.index(c) for c in ("bucket", "pending", "running", "submitted", "scheduled", "ended")
        }
        return [tuple(row[i[c]] for c in i) for row in r.rows]

    # worked out in data/sample/google2019/README.md
    assert queue("a") == [(0, 1, 4, 6, 5, 1), (1, 1, 1, 0, 0, 3)]
    assert queue("b") == [(0, 0, 1, 1, 1, 0), (1, 0, 0, 0, 0, 1)]
    assert queue(None) == [(0, 1, 5, 7, 6, 1), (1, 1, 1, 0, 0, 4)]


def test_lifecycle_leaves_alloc_instances_out(home):
    r = reports.run(home, "lifecycle-counts", trace="google2019", cell="a")
    got = {row[0]: row[1] for row in r.rows}
    # tasks of cell a: 1001/0, 1001/1, 1002/0, 1002/1, 1003/0, 1003/1; the alloc instance 2001/0 is out
    assert got["distinct tasks"] == 6
    assert got["events: QUEUE"] == 2 and got["events: ENABLE"] == 2 and got["events: UNKNOWN(11)"] == 1
    assert got["events: SUBMIT"] == 6  # 1001/0, 1001/1 twice, 1002/0, 1002/1, 1003/0


def test_transitions_count_a_task_id_in_two_cells_as_two_tasks(home, con):
    # A task is (cell, collection_id, instance_index): instance 1001/0 is in cell a and in cell b
    # (data/sample/google2019). For every cell at once, the tasks whose first state event is
    # SUBMIT, by a plain query over the raw instance events (jobs only; UPDATE_* are not state
    # events), against the report's (start) -> SUBMIT row.
    (by_task, by_ids) = rows(
        con,
        "WITH firsts AS (SELECT cell, collection_id, instance_index, "
        "arg_min(type_name, (time, seq)) AS first FROM google2019.instance_events "
        "WHERE collection_type = 0 AND type_name NOT LIKE 'UPDATE_%' "
        "GROUP BY ALL) "
        "SELECT count(*), count(DISTINCT (collection_id, instance_index)) FROM firsts WHERE first = 'SUBMIT'",
    )[0]
    assert by_ids < by_task  # the sample holds an id in two cells
    r = reports.run(home, "transitions", trace="google2019")
    i = {c: r.columns.index(c) for c in ("from_event", "to_event", "across_gap", "tasks")}
    got = {
        (row[i["from_event"]], row[i["to_event"]], row[i["across_gap"]]): row[i["tasks"]] for row in r.rows
    }
    assert got[("(start)", "SUBMIT", False)] == by_task
    # and each pair's tasks against transitions (a task may repeat a pair: 1001/1 is submitted and
    # scheduled twice), from the raw events' consecutive state events by a plain window
    pairs = rows(
        con,
        "SELECT from_event, to_event, count(*), count(DISTINCT (cell, collection_id, instance_index)) FROM ("
        "SELECT cell, collection_id, instance_index, type_name AS to_event, coalesce(lag(type_name) OVER ("
        "PARTITION BY cell, collection_id, instance_index ORDER BY time, seq), '(start)') AS from_event "
        "FROM google2019.instance_events WHERE collection_type = 0 AND type_name NOT LIKE 'UPDATE_%') "
        "GROUP BY ALL",
    )
    n = {c: r.columns.index(c) for c in ("transitions", "tasks")}
    reported = {
        (row[i["from_event"]], row[i["to_event"]]): (row[n["transitions"]], row[n["tasks"]]) for row in r.rows
    }
    assert reported == {(a, b): (t, k) for a, b, t, k in pairs}
    assert any(t > k for t, k in reported.values())
    per_cell = [reports.run(home, "transitions", trace="google2019", cell=c) for c in ("a", "b")]
    assert by_task == sum(
        row[i["tasks"]]
        for p in per_cell
        for row in p.rows
        if row[i["from_event"]] == "(start)" and row[i["to_event"]] == "SUBMIT"
    )


def test_tier_usage_for_cell_b(home):
    r = reports.run(home, "tier-usage", trace="google2019", cell="b")
    assert [dict(zip(r.columns, row, strict=True)) for row in r.rows] == [
        {
            "hour": 0,
            "tier": "best-effort batch",
            "cpu_used": round(0.1 * 300 / 3600, 6),
            "memory_used": round(0.05 * 300 / 3600, 6),
            "cpu_allocated": round(0.1 * 300 / 3600, 6),
            "memory_allocated": round(0.1 * 300 / 3600, 6),
            "windows": 1,
        }
    ]


def test_unknown_cell_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="unknown google2019 cell"):
        ingest.ingest(Home.resolve(tmp_path / "h"), "google2019", SAMPLE_2019, IngestOptions(cell="z"))


def test_a_second_cell_does_not_touch_the_first(tmp_path):
    home = Home.resolve(tmp_path / "home")
    src = tmp_path / "src"
    shutil.copytree(SAMPLE_2019 / "clusterdata_2019_a", src / "clusterdata_2019_a")
    ingest.ingest(home, "google2019", src)
    live = (home.root / "parquet/google2019/instance_events").resolve()
    before = {p.relative_to(live).as_posix(): p.stat().st_ino for p in live.rglob("*.parquet")}
    flat = tmp_path / "flat_b"
    shutil.copytree(SAMPLE_2019 / "clusterdata_2019_b", flat)
    ingest.ingest(home, "google2019", flat, IngestOptions(cell="b"))
    live = (home.root / "parquet/google2019/instance_events").resolve()
    after = {p.relative_to(live).as_posix(): p.stat().st_ino for p in live.rglob("*.parquet")}
    # cell a's files are the same files (hard links, same inodes); cell b's are new
    assert {k: v for k, v in after.items() if k.startswith("cell=a/")} == before
    assert any(k.startswith("cell=b/") for k in after)
    c = duckdb.connect(str(home.catalog), read_only=True)
    assert dict(c.execute("SELECT cell, count(*) FROM google2019.instance_events GROUP BY 1").fetchall()) == {
        "a": 24,
        "b": 3,
    }
    c.close()
    ingest.ingest(home, "google2019", flat, IngestOptions(cell="b"))  # re-ingesting b replaces b only
    c = duckdb.connect(str(home.catalog), read_only=True)
    assert dict(c.execute("SELECT cell, count(*) FROM google2019.instance_events GROUP BY 1").fetchall()) == {
        "a": 24,
        "b": 3,
    }
    assert c.execute(
        "SELECT cell, count(*) FILTER (is_current) FROM meta.ingests WHERE table_name = "
        "'instance_events' GROUP BY 1 ORDER BY 1"
    ).fetchall() == [("a", 2), ("b", 1)]
    c.close()


def test_bad_json_lines_are_counted_rejects_with_line_numbers(tmp_path):
    good = {"time": "700000000", "type": "0", "collection_id": "1", "instance_index": 0}
    lines = [
        json.dumps(good),
        "this is not json",
        json.dumps({**good, "time": "abc"}),
        "",
        json.dumps({**good, "collection_id": "9223372036854775808"}),
        "[1, 2, 3]",
        json.dumps({**good, "resource_request": {"cpus": "lots"}}),
        json.dumps({**good, "collection_id": 2, "constraint": [{"name": "x", "relation": "6"}]}),
    ]
    src = tmp_path / "clusterdata_2019_c"
    src.mkdir()
    with gzip.open(src / "instance_events-000000000000.json.gz", "wt") as fh:
        fh.write("\n".join(lines) + "\n")
    home = Home.resolve(tmp_path / "home")
    (f,) = ingest.ingest(home, "google2019", src).files
    assert (f.rows_read, f.rows_written, f.rows_rejected) == (7, 2, 5)  # the blank line is not a record
    c = duckdb.connect(str(home.catalog), read_only=True)
    got = c.execute("SELECT line, error_type, column_name FROM meta.rejects ORDER BY line").fetchall()
    assert got == [
        (2, "NOT JSON", None),
        (3, "CAST", "time"),
        (5, "CAST", "collection_id"),
        (6, "NOT JSON", None),
        (7, "CAST", "resource_request"),
    ]
    assert c.execute(
        "SELECT collection_id, constraints FROM google2019.instance_events ORDER BY 1"
    ).fetchall() == [(1, 0), (2, 1)]
    assert c.execute("SELECT raw FROM meta.rejects WHERE line = 2").fetchall() == [("this is not json",)]
    c.close()


@pytest.mark.parametrize(
    "name", sorted(n for n, r in reports.all_reports().items() if "google2019" in r.traces)
)
@pytest.mark.parametrize("cell", ["a", "b"])
def test_every_google2019_report_answers_for_each_cell(home, name, cell):
    report = reports.get(name)
    if "cell" not in report.params:
        pytest.skip(f"{name} covers all traces at once")
    rows = reports.run(home, name, trace="google2019", cell=cell)
    assert rows.rows, (name, cell)


def test_a_cell_of_alloc_instances_only_says_why_its_life_cycle_reports_show_0(tmp_path):
    # two instance events, both of an alloc set (collection_type 1): the life-cycle views hold none
    flat = tmp_path / "flat"
    flat.mkdir()
    lines = [
        {"time": "700000000", "type": "0", "collection_id": "9", "instance_index": 0, "collection_type": 1},
        {"time": "800000000", "type": "3", "collection_id": "9", "instance_index": 0, "collection_type": 1},
    ]
    (flat / "instance_events-000000000000.json").write_text("".join(json.dumps(x) + "\n" for x in lines))
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2019", flat, IngestOptions(cell="c"))
    r = reports.run(home, "lifecycle-counts", trace="google2019")
    assert {row[0]: row[1] for row in r.rows}["distinct tasks"] == 0
    said = [line for line in reports.footer(home, "lifecycle-counts", trace="google2019") if "alloc" in line]
    assert said == [
        "data: every one of the 2 google2019 instance events of alloc sets (reservations, not work) is left "
        "out of the life-cycle views, so this report counts nothing (all 0): there is no instance of a job "
        "to count"
    ]
