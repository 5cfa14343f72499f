"""The decoded columns of the google2011 views, on hand-built rows whose answers are worked out here,
and on the real rows of the bundled sample checked against gzip -dc | awk."""

from __future__ import annotations

from datetime import datetime, timezone

import duckdb
import pytest
from conftest import MAX_TIME, SAMPLE, awk, task_row, write_gz

from tracewh import ingestion as ingest
from tracewh.home import Home

# One worker runs this module (`--dist loadgroup`): its module-scoped hand-built home is built once,
# not on each worker that gets one of its tests.
pytestmark = [pytest.mark.xdist_group("semantics_google2011")]

START = 600_000_000  # trace start: 2011-05-01 19:00 EDT = 23:00 UTC
DAY = 86_400_000_000


@pytest.fixture(scope="module")
def hand_con(tmp_path_factory):
    src = tmp_path_factory.mktemp("hand") / "src"
    write_gz(
        src / "task_events" / "part-00000-of-00001.csv.gz",
        [
            task_row(0, 1, 0, 0),  # before the window
            task_row(START, 1, 0, 1, machine=5, prio=11),  # the first instant of the trace
            task_row(START + DAY + 1, 1, 0, 4, machine=5, prio=9),  # one day and 1 us later
            task_row(MAX_TIME, 1, 1, 4, prio=8),  # after the window
            task_row(2**64 - 1, 1, 2, 5, prio=0),  # 2^64-1: clamped, after the window
            task_row(START + 5, 2, 0, 9, prio=12),  # unknown event type and priority
            task_row(START + 6, 2, 1, 1, missing=2, machine=7, cpu="", mem="", disk="", diff=""),
            task_row(START + 7, 2, 2, 7, missing=0, cpu="3.815e-05", sched=3, prio=1),
            task_row(START + 8, 2, 3, 8, missing=1, sched=""),
            task_row(START + 9, 2, 4, 2, missing=7, prio=2),  # unknown missing_info code
        ],
    )
    write_gz(
        src / "machine_events" / "part-00000-of-00001.csv.gz",
        [
            "0,5,0,HASH+/=,0.5,0.2493",
            f"{START + 1},5,2,HASH+/=,,",
            f"{START + 2},5,1,,,",
            f"{START + 3},6,3,,1,1",
        ],
    )
    write_gz(
        src / "task_constraints" / "part-00000-of-00500.csv.gz",
        [
            f"{START},1,0,0,NAME,v",
            f"{START},1,0,1,NAME,",
            f"{START},1,0,2,NAME,5",
            f"{START},1,0,3,NAME,-2",
            f"{START},1,0,4,NAME,x",
        ],
    )
    write_gz(
        src / "machine_attributes" / "part-00000-of-00001.csv.gz",
        [
            "0,5,NAME,12,0",
            f"{START},5,NAME,,1",
            f"{START},5,OTHER,abc+/=,0",
        ],
    )
    home = Home.resolve(src.parent / "home")
    ingest.ingest(home, "google2011", src)
    con = duckdb.connect(str(home.catalog), read_only=True)
    con.execute("SET TimeZone = 'UTC'")
    yield con
    con.close()


def one(con, sql):
    rows = con.execute(sql).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def test_time_zero_is_before_the_window_and_never_a_date(hand_con):
    assert one(
        hand_con, "SELECT time_class, event_time, event_time_local FROM google2011.task_events WHERE time = 0"
    ) == ("before_window", None, None)


def test_trace_start_is_2011_05_01_23_00_utc_and_19_00_in_new_york(hand_con):
    got = one(
        hand_con,
        f"SELECT time_class, event_time, event_time_local FROM google2011.task_events WHERE time = {START}",
    )
    assert got[0] == "in_window"
    assert got[1] == datetime(2011, 5, 1, 23, 0, tzinfo=timezone.utc)
    assert got[2] == datetime(2011, 5, 1, 19, 0)


def test_event_time_is_exact_to_the_microsecond(hand_con):
    (t,) = one(hand_con, f"SELECT event_time FROM google2011.task_events WHERE time = {START + DAY + 1}")
    assert t == datetime(2011, 5, 2, 23, 0, 0, 1, tzinfo=timezone.utc)


def test_max_time_and_2_pow_64_minus_1_are_after_the_window_and_stored_as_2_pow_63_minus_1(hand_con):
    rows = hand_con.execute(
        "SELECT task_index, time, time_class, event_time, day FROM google2011.task_events "
        "WHERE job_id = 1 AND task_index IN (1, 2) ORDER BY task_index"
    ).fetchall()
    assert rows == [
        (1, MAX_TIME, "after_window", None, MAX_TIME // DAY),
        (2, MAX_TIME, "after_window", None, MAX_TIME // DAY),
    ]


def test_every_documented_event_type_has_its_name_and_unknown_codes_are_kept_and_named(hand_con):
    got = dict(hand_con.execute("SELECT event_type, event_type_name FROM google2011.task_events").fetchall())
    assert got == {
        0: "SUBMIT",
        1: "SCHEDULE",
        2: "EVICT",
        4: "FINISH",
        5: "KILL",
        7: "UPDATE_PENDING",
        8: "UPDATE_RUNNING",
        9: "UNKNOWN(9)",
    }
    codes = dict(
        hand_con.execute("SELECT code, name FROM google2011.codes WHERE code_set = 'event_type'").fetchall()
    )
    assert codes == {
        0: "SUBMIT",
        1: "SCHEDULE",
        2: "EVICT",
        3: "FAIL",
        4: "FINISH",
        5: "KILL",
        6: "LOST",
        7: "UPDATE_PENDING",
        8: "UPDATE_RUNNING",
    }


def test_missing_info_empty_is_a_real_record_and_codes_are_named(hand_con):
    got = hand_con.execute(
        "SELECT task_index, missing_info, missing_info_name, is_synthesized FROM google2011.task_events "
        "WHERE job_id = 2 ORDER BY task_index"
    ).fetchall()
    assert got == [
        (0, None, None, False),
        (1, 2, "EXISTS_BUT_NO_CREATION", True),
        (2, 0, "SNAPSHOT_BUT_NO_TRANSITION", True),
        (3, 1, "NO_SNAPSHOT_OR_TRANSITION", True),
        (4, 7, "UNKNOWN(7)", True),
    ]


def test_empty_fields_are_null_not_zero(hand_con):
    got = one(
        hand_con,
        "SELECT machine_id, cpu_request, memory_request, disk_space_request, "
        "different_machines_restriction FROM google2011.task_events "
        "WHERE job_id = 2 AND task_index = 1",
    )
    assert got == (7, None, None, None, None)
    assert one(
        hand_con,
        "SELECT machine_id, scheduling_class, scheduling_class_name "
        "FROM google2011.task_events WHERE job_id = 2 AND task_index = 3",
    ) == (None, None, None)


def test_scientific_notation_is_read_as_a_float(hand_con):
    assert one(
        hand_con, "SELECT cpu_request FROM google2011.task_events WHERE job_id = 2 AND task_index = 2"
    ) == (3.815e-05,)


@pytest.mark.parametrize(
    "priority,tier,production",
    [
        (0, "free", False),
        (1, "free", False),
        (2, "middle", False),
        (8, "middle", False),
        (9, "production", True),
        # the 2011 document's production band is 9-11: 11 is no tier of its own
        (11, "production", True),
        (12, "UNKNOWN(12)", True),
    ],
)
def test_priority_tiers_and_the_papers_production_flag(hand_con, priority, tier, production):
    rows = set(
        hand_con.execute(
            f"SELECT priority_tier, is_production FROM google2011.task_events WHERE priority = {priority}"
        ).fetchall()
    )
    assert rows == {(tier, production)}


def test_scheduling_class_names(hand_con):
    assert one(
        hand_con,
        "SELECT scheduling_class_name FROM google2011.task_events WHERE job_id = 2 AND task_index = 2",
    ) == ("MOST_SENSITIVE",)


def test_machine_events_are_named_and_empty_capacity_is_null(hand_con):
    got = hand_con.execute(
        "SELECT event_type_name, platform_id, cpus, memory, time_class "
        "FROM google2011.machine_events ORDER BY time"
    ).fetchall()
    assert got == [
        ("ADD", "HASH+/=", 0.5, 0.2493, "before_window"),
        ("UPDATE", "HASH+/=", None, None, "in_window"),
        ("REMOVE", None, None, None, "in_window"),
        ("UNKNOWN(3)", None, 1.0, 1.0, "in_window"),
    ]


def test_constraint_operators_are_named_and_integer_values_typed(hand_con):
    got = hand_con.execute(
        "SELECT comparison_operator_name, attribute_value, attribute_value_int "
        "FROM google2011.task_constraints ORDER BY comparison_operator"
    ).fetchall()
    assert got == [
        ("EQUAL", "v", None),
        ("NOT_EQUAL", None, None),
        ("LESS_THAN", "5", 5),
        ("GREATER_THAN", "-2", -2),
        ("UNKNOWN(4)", "x", None),
    ]


def test_machine_attribute_values_keep_text_and_integers(hand_con):
    got = hand_con.execute(
        "SELECT attribute_value, attribute_value_int, attribute_deleted "
        "FROM google2011.machine_attributes ORDER BY time, attribute_name"
    ).fetchall()
    assert got == [("12", 12, False), (None, None, True), ("abc+/=", None, False)]


def test_trace_time_macros_are_usable_in_user_sql(hand_con):
    assert one(
        hand_con,
        "SELECT google2011.time_class(0), google2011.time_class(9223372036854775807), "
        f"google2011.trace_seconds({START + 1_500_000}), google2011.trace_timestamp(0)",
    ) == ("before_window", "after_window", 1.5, None)


def test_an_empty_time_is_a_reject_with_its_line_not_a_row(tmp_path):
    # (Before issue 10 an empty time was stored as NULL and only `check` flagged it.)
    src = tmp_path / "src"
    write_gz(
        src / "task_events" / "part-00000-of-00001.csv.gz", [task_row("", 1, 0, 0), task_row(7, 1, 1, 0)]
    )
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    con = duckdb.connect(str(home.catalog), read_only=True)
    assert con.execute("SELECT time, task_index FROM google2011.task_events").fetchall() == [(7, 1)]
    assert con.execute("SELECT line, column_name, error_type FROM meta.rejects").fetchall() == [
        (1, "time", "EMPTY MANDATORY")
    ]
    con.close()
    from tracewh.catalog import checks

    assert not {r.name for r in checks.run_all(home) if r.failed}


def test_seq_keeps_the_source_order_of_events_that_share_a_time(tmp_path):
    src = tmp_path / "src"
    # part 3 holds a KILL then a re-SUBMIT at the same microsecond; part 2 holds earlier lines.
    write_gz(
        src / "task_events" / "part-00003-of-00500.csv.gz",
        [task_row(START + 10, 9, 0, 5), task_row(START + 10, 9, 0, 0), task_row(START + 11, 9, 0, 1)],
    )
    write_gz(src / "task_events" / "part-00002-of-00500.csv.gz", [task_row(START + 10, 9, 0, 1)])
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    con = duckdb.connect(str(home.catalog), read_only=True)
    got = con.execute("SELECT event_type_name, seq FROM google2011.task_events ORDER BY time, seq").fetchall()
    con.close()
    assert got == [
        ("SCHEDULE", 2 * 2**32 + 1),
        ("KILL", 3 * 2**32 + 1),
        ("SUBMIT", 3 * 2**32 + 2),
        ("SCHEDULE", 3 * 2**32 + 3),
    ]


# ---- the real rows of the bundled sample, against an independent count of the raw files ----


def test_real_task_event_counts_by_type_match_an_awk_count_of_the_raw_files(sample_con):
    out = awk(
        f"gzip -dc {SAMPLE}/task_events/*.csv.gz | awk -F, '{{n[$6]++}} END {{for (k in n) print k, n[k]}}'"
    )
    expected = {int(k): int(v) for k, v in (line.split() for line in out.strip().splitlines())}
    got = dict(
        sample_con.execute("SELECT event_type, count(*) FROM google2011.task_events GROUP BY 1").fetchall()
    )
    assert got == expected


def test_real_job_event_counts_by_type_and_missing_info_match_awk(sample_con):
    out = awk(
        f"gzip -dc {SAMPLE}/job_events/*.csv.gz | "
        'awk -F, \'{n[$4 " " ($2 == "" ? "real" : $2)]++} END {for (k in n) print k, n[k]}\''
    )
    expected = {}
    for line in out.strip().splitlines():
        et, mi, n = line.split()
        expected[(int(et), None if mi == "real" else int(mi))] = int(n)
    got = {
        (et, mi): n
        for et, mi, n in sample_con.execute(
            "SELECT event_type, missing_info, count(*) FROM google2011.job_events GROUP BY ALL"
        ).fetchall()
    }
    assert got == expected


def test_special_times_in_the_sample_match_awk_and_never_become_dates(sample_con):
    out = awk(
        f"gzip -dc {SAMPLE}/task_events/*.csv.gz | awk -F, "
        '\'$1 == "0" {z++} $1 == "9223372036854775807" {m++} END {print z+0, m+0}\''
    )
    zeros, maxes = map(int, out.split())
    got = dict(
        sample_con.execute(
            "SELECT time_class, count(*) FROM google2011.task_events "
            "WHERE time_class <> 'in_window' GROUP BY 1"
        ).fetchall()
    )
    assert got == {"before_window": zeros, "after_window": maxes}
    assert sample_con.execute(
        "SELECT count(*) FROM google2011.task_events "
        "WHERE time_class <> 'in_window' AND event_time IS NOT NULL"
    ).fetchone() == (0,)


def test_synthesized_exists_but_no_creation_rows_have_null_requests_as_in_the_real_trace(sample_con):
    out = awk(f"gzip -dc {SAMPLE}/task_events/*.csv.gz | awk -F, '$2 == \"2\"' | wc -l")
    rows = sample_con.execute(
        "SELECT cpu_request, memory_request, disk_space_request, different_machines_restriction "
        "FROM google2011.task_events WHERE missing_info_name = 'EXISTS_BUT_NO_CREATION'"
    ).fetchall()
    assert len(rows) == int(out) > 0
    assert set(rows) == {(None, None, None, None)}


def test_empty_machine_id_count_matches_awk(sample_con):
    out = awk(f"gzip -dc {SAMPLE}/task_events/*.csv.gz | awk -F, '$5 == \"\"' | wc -l")
    assert sample_con.execute(
        "SELECT count(*) FROM google2011.task_events WHERE machine_id IS NULL"
    ).fetchone() == (int(out),)


def test_every_view_has_comments_on_coded_columns(sample_con):
    missing = sample_con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'google2011' "
        "AND (column_name LIKE '%_name' OR column_name IN ('time_class', 'event_time', 'priority_tier')) "
        "AND column_name NOT IN ('job_name', 'logical_job_name', 'attribute_name') AND comment IS NULL"
    ).fetchall()
    assert missing == []
    assert sample_con.execute(
        "SELECT count(*) FROM duckdb_views() WHERE schema_name = 'google2011' AND comment IS NULL"
    ).fetchone() == (0,)
