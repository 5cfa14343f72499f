"""Output that reads well (issue 14): value forms, the 80-column layouts, every export format,
NaN and inf everywhere, `sql -` from stdin, streaming without counting, time zones."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from tracewh.cli.main import main
from tracewh.reports import display


def run(capsys, monkeypatch, *args: str, width: int = 80, stdin: str | None = None) -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", str(width))
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        main(list(args))
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


# One row with every kind of value; each expected form below is worked out by hand.
ROW_SQL = (
    "SELECT 6252007148 AS job_id, 'scheduling delay' AS measure, 4034.0::DOUBLE AS tasks, "
    "2505330.0::DOUBLE AS run_s, 0.000013::DOUBLE AS share, 'nan'::DOUBLE AS ratio, "
    "TIMESTAMPTZ '2011-05-01 23:00:00+00' AS event_time"
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (4034.0, "4034"),  # a whole number never shows '.0'
        (0.000013, "0.000013"),  # 4 significant digits, no exponent down to 1e-6
        (1234.5678, "1235"),
        (0.98369, "0.9837"),
        (3.0e-9, "3.000e-09"),  # below 1e-6 the exponent is clearer than 9 zeros
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_numbers_read_as_numbers(value, expected):
    assert display.number(value) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (2505330, "28d 23h"),  # 2505330 - 28*86400 = 86130 s = 23 h 55 m 30 s
        (11520, "3h 12m"),  # 3*3600 + 12*60
        (245, "4m 05s"),
        (12.34, "12.3s"),
        (0.1121, "0.112s"),
        (-90, "-1m 30s"),
    ],
)
def test_durations_are_humanised(seconds, expected):
    assert display.duration(seconds) == expected


def test_counts_get_thousands_separators_ids_and_raw_times_do_not():
    assert display.human(6252007148, "job_id", "BIGINT") == "6252007148"
    assert display.human([6252007148, 17], "parent_task_ids", "BIGINT[]") == "[6252007148, 17]"
    assert display.human(5612000000, "time", "BIGINT") == "5612000000"  # raw trace time: pastes into SQL
    assert display.human(48375166, "submissions", "BIGINT") == "48,375,166"
    assert display.human(-1234567.5, "delta", "DOUBLE") == "-1,234,568"  # whole part kept, grouped
    assert display.human(999, "n", "INTEGER") == "999"
    assert display.human(4034.0, "tasks", "DOUBLE") == "4,034"
    assert display.raw(48375166) == "48375166"  # csv stays raw
    assert display.human(2505330.0, "run_s", "DOUBLE") == "28d 23h"
    assert display.raw(2505330.0) == "2505330.0"  # csv keeps the raw seconds


def test_table_at_200_columns_is_one_table_in_the_traces_zone(capsys, monkeypatch, sample_home):
    code, out, err = run(capsys, monkeypatch, "--home", str(sample_home.root), "sql", ROW_SQL, width=200)
    assert code == 0 and err == ""
    # The sample holds google2011 (America/New_York) and 2019 cells a (New_York) and b
    # (Chicago): no single zone, so an ad-hoc query prints UTC. Widths: 10+16+5+7+8+5+23 = 74,
    # plus 3 per column and 1 = 96 columns.
    expected = (
        "┏━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━┳━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━┓\n"
        "┃     job_id ┃ measure          ┃ tasks ┃   run_s ┃    share ┃ ratio ┃ event_time              ┃\n"
        "┡━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━╇━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━┩\n"
        "│ 6252007148 │ scheduling delay │ 4,034 │ 28d 23h │ 0.000013 │   NaN │ 2011-05-01 23:00:00 UTC │\n"
        "└────────────┴──────────────────┴───────┴─────────┴──────────┴───────┴─────────────────────────┘\n"
    )
    assert out == expected


def test_one_wide_row_at_80_columns_turns_on_its_side_never_folding_a_number(
    capsys, monkeypatch, sample_home
):
    code, out, err = run(
        capsys, monkeypatch, "--home", str(sample_home.root), "sql", ROW_SQL, "--tz", "America/New_York"
    )
    assert code == 0 and err == ""
    # the 200-column table is 97 wide: at 80 its one row becomes a column (names padded to 10,
    # values to the longest, the time: 23), a table still, not a block per row
    expected = (
        "┏━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━┓\n"
        "┃ column     ┃ value                   ┃\n"
        "┡━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━┩\n"
        "│ job_id     │ 6252007148              │\n"
        "│ measure    │ scheduling delay        │\n"
        "│ tasks      │ 4,034                   │\n"
        "│ run_s      │ 28d 23h                 │\n"
        "│ share      │ 0.000013                │\n"
        "│ ratio      │ NaN                     │\n"
        "│ event_time │ 2011-05-01 19:00:00 EDT │\n"
        "└────────────┴─────────────────────────┘\n"
    )
    assert out == expected


def test_many_rows_too_wide_keep_the_leading_columns_and_say_so(capsys, monkeypatch, sample_home):
    sql = (
        "SELECT i AS n, repeat('x', 30) AS a, repeat('y', 30) AS b, repeat('z', 30) AS c FROM range(70) t(i)"
    )
    code, out, err = run(capsys, monkeypatch, "--home", str(sample_home.root), "sql", sql)
    assert code == 0
    # n (2) + a (30) + b (30) + 3*3 + 1 = 72 fits; c would make 105
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "1 column(s) not shown at width 80: c" in err


def test_sql_reads_the_query_from_stdin(capsys, monkeypatch, sample_home):
    code, out, _ = run(
        capsys,
        monkeypatch,
        "--home",
        str(sample_home.root),
        "sql",
        "-",
        "-f",
        "csv",
        stdin="SELECT 41 + 1 AS x;",
    )
    assert code == 0 and out == "x\n42\n"


def test_table_stops_reading_at_max_rows_instead_of_counting(capsys, monkeypatch, sample_home):
    # The query fails only if rows far past the first batches are computed: the old renderer
    # read every row to count them and died here. The failing rows start 50 M rows in: DuckDB's
    # parallel scan works ahead of the consumer by a few morsels (~122 k rows each), so a limit
    # close to the first rows (900 k of 1 M) made this test fail now and then under load.
    sql = (
        "SELECT CASE WHEN i < 50000000 THEN i ELSE error('read too far') END AS i FROM range(100000000) t(i)"
    )
    code, out, err = run(capsys, monkeypatch, "--home", str(sample_home.root), "sql", sql, "--max-rows", "3")
    assert code == 0, err
    assert "showed the first 3 rows" in err and "read too far" not in err


NAN_SQL = "SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, '-inf'::DOUBLE AS c, 1.5::DOUBLE AS d"


def test_nan_and_inf_print_in_every_format(capsys, monkeypatch, sample_home, tmp_path):
    home = str(sample_home.root)
    _, out, _ = run(capsys, monkeypatch, "--home", home, "sql", NAN_SQL, "-f", "csv")
    assert out == "a,b,c,d\nNaN,Infinity,-Infinity,1.5\n"
    _, out, _ = run(capsys, monkeypatch, "--home", home, "sql", NAN_SQL, "-f", "json")
    assert json.loads(out) == [{"a": "NaN", "b": "Infinity", "c": "-Infinity", "d": 1.5}]
    _, out, _ = run(capsys, monkeypatch, "--home", home, "sql", NAN_SQL, "-f", "jsonl")
    assert [json.loads(line) for line in out.splitlines()] == [
        {"a": "NaN", "b": "Infinity", "c": "-Infinity", "d": 1.5}
    ]
    _, out, _ = run(capsys, monkeypatch, "--home", home, "sql", NAN_SQL, "-f", "markdown")
    assert out == "| a | b | c | d |\n|---:|---:|---:|---:|\n| NaN | Infinity | -Infinity | 1.5 |\n"
    _, out, _ = run(capsys, monkeypatch, "--home", home, "sql", NAN_SQL)
    assert "NaN" in out and "-Infinity" in out
    target = tmp_path / "x.parquet"
    code, _, _ = run(capsys, monkeypatch, "--home", home, "sql", NAN_SQL, "-o", str(target))
    row = pq.read_table(target).to_pylist()[0]
    assert code == 0 and math.isnan(row["a"]) and row["b"] == math.inf and row["c"] == -math.inf


@pytest.mark.parametrize("suffix", [".csv", ".json", ".jsonl", ".md", ".parquet"])
def test_output_file_takes_its_format_from_the_suffix(capsys, monkeypatch, sample_home, tmp_path, suffix):
    target = tmp_path / f"events{suffix}"
    sql = "SELECT event_type_name AS e, count(*) AS n FROM google2011.task_events GROUP BY 1 ORDER BY 1"
    code, out, err = run(capsys, monkeypatch, "--home", str(sample_home.root), "sql", sql, "-o", str(target))
    assert code == 0 and out == "" and f"wrote {target}" in err
    # the same counts, computed independently through DuckDB straight from the catalog
    import duckdb

    con = duckdb.connect(str(sample_home.catalog), read_only=True)
    want = {e: n for e, n in con.execute(sql).fetchall()}
    con.close()
    if suffix == ".csv":
        got = {r["e"]: int(r["n"]) for r in csv.DictReader(target.open())}
    elif suffix == ".json":
        got = {r["e"]: r["n"] for r in json.loads(target.read_text())}
    elif suffix == ".jsonl":
        got = {r["e"]: r["n"] for r in map(json.loads, target.read_text().splitlines())}
    elif suffix == ".md":
        lines = target.read_text().splitlines()[2:]
        got = {c[1].strip(): int(c[2].replace(",", "")) for c in (line.split("|") for line in lines)}
    else:
        got = {r["e"]: r["n"] for r in pq.read_table(target).to_pylist()}
    assert got == want and sum(want.values()) > 0
    # no temporary left behind; beside a text export, its provenance
    beside = set() if suffix == ".parquet" else {f"{target.name}.provenance.json"}
    assert {p.name for p in tmp_path.iterdir()} == {target.name} | beside


def test_a_failed_export_leaves_the_earlier_file_untouched(capsys, monkeypatch, sample_home, tmp_path):
    for suffix in (".csv", ".parquet"):
        target = tmp_path / f"keep{suffix}"
        target.write_text("earlier result\n")
        code, out, err = run(
            capsys,
            monkeypatch,
            "--home",
            str(sample_home.root),
            "sql",
            "SELECT error('boom')",
            "-o",
            str(target),
        )
        assert code == 1 and err.startswith("Error: ") and "boom" in err
        assert target.read_text() == "earlier result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.csv", "keep.parquet"]


def test_parquet_needs_a_file_and_unknown_format_is_a_usage_error(capsys, monkeypatch, sample_home):
    code, out, err = run(
        capsys, monkeypatch, "--home", str(sample_home.root), "sql", "SELECT 1", "-f", "parquet"
    )
    assert code == 2 and out == "" and "--output" in err
    code, out, err = run(capsys, monkeypatch, "--home", str(sample_home.root), "sql", "SELECT 1", "-f", "xml")
    assert code == 2 and out == ""


def test_report_times_default_to_the_traces_zone_and_tz_changes_it(capsys, monkeypatch, sample_home):
    home = str(sample_home.root)
    # google2011.time_zone() is America/New_York; the trace starts 2011-05-01 23:00 UTC = 19:00 EDT
    from tracewh.catalog import query

    with query.read_only(sample_home) as con:
        assert query.zone_for(con, "google2011") == "America/New_York"
        assert query.zone_for(con, "google2019", "b") == "America/Chicago"
        assert query.zone_for(con) == "UTC"  # New_York and Chicago: no single zone
    code, out, err = run(capsys, monkeypatch, "--home", home, "sql", "SELECT 1", "--tz", "Mars/Base")
    assert code == 2 and "unknown time zone" in err


def test_a_report_writes_every_format_too(capsys, monkeypatch, sample_home, tmp_path):
    target = tmp_path / "lc.json"
    code, out, err = run(
        capsys, monkeypatch, "--home", str(sample_home.root), "report", "lifecycle-counts",
        "--trace", "google2011", "-o", str(target),
    )  # fmt: skip
    assert code == 0 and out == ""
    assert isinstance(json.loads(target.read_text()), list)


def test_durations_stay_raw_in_csv(capsys, monkeypatch, sample_home):
    code, out, _ = run(
        capsys, monkeypatch, "--home", str(sample_home.root), "sql", "SELECT 2505330.0::DOUBLE AS run_s, "
        "INTERVAL 90 SECOND AS i", "-f", "csv",
    )  # fmt: skip
    assert out == "run_s,i\n2505330.0,90.0\n"
    assert display.human(dt.timedelta(seconds=90)) == "1m 30s"


def test_lines_break_at_missing_data_instead_of_bridging_it():
    from tracewh.reports.plots import with_gaps

    # hourly points 0,1,2 then 6,7: the usual step is 1, the jump 2 -> 6 gets a NaN at 4
    xs, ys = with_gaps([(0, 5), (1, 6), (2, None), (6, 7), (7, 8)])
    assert xs == [0, 1, 2, 4.0, 6, 7]
    assert ys[:2] == [5.0, 6.0] and math.isnan(ys[2]) and math.isnan(ys[3]) and ys[4:] == [7.0, 8.0]


def test_cdf_charts_use_101_quantiles_that_never_reach_the_table(capsys, monkeypatch, sample_home, tmp_path):
    from tracewh import api

    r = api.report("task-times", trace="google2011", home=sample_home)
    assert "_cdf" not in r.rows.columns and "_cdf" not in r.df.columns
    cdf = r.rows.context["chart"]["_cdf"][0]  # type: ignore[index]
    assert len(cdf) == 101 and cdf == sorted(cdf)
    # level 0 is the minimum and level 1 the maximum of the same row (hand rule of quantile_cont)
    row = dict(zip(r.rows.columns, r.rows.rows[0], strict=True))
    assert round(cdf[0], 6) == row["min_s"] and round(cdf[-1], 3) == row["max_s"]
    fig = api.plot(r)
    lines = [ln for ln in fig.axes[0].get_lines() if len(ln.get_xdata()) > 50]
    assert len(lines) == 2  # scheduling delay and execution time, drawn from the quantiles
    target = tmp_path / "tt.png"
    code, out, err = run(
        capsys, monkeypatch, "--home", str(sample_home.root), "report", "task-times", "--trace", "google2011",
        "--plot", str(target), "-f", "csv",
    )  # fmt: skip
    assert code == 0 and f"plot written to {target}" in err and target.read_bytes()[:4] == b"\x89PNG"
    assert "_cdf" not in out.splitlines()[0]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_an_interrupted_export_keeps_the_earlier_file_and_leaves_no_temporary(sample_home, tmp_path, suffix):
    import os
    import signal
    import subprocess
    import sys
    import time

    target = tmp_path / f"big{suffix}"
    target.write_text("earlier result\n")
    # far more rows than can be written before the interrupt
    sql = "SELECT i, i * 2 AS j, md5(i::VARCHAR) AS h FROM range(3000000000) t(i)"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tracewh.cli.main",
            "--home",
            str(sample_home.root),
            "sql",
            sql,
            "-o",
            str(target),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The signal goes once the file beside the target exists, so it lands while the result is being
    # written (the deadline is only a safety net for a process that never gets there).
    deadline = time.monotonic() + 120
    while not any(p.name.endswith(".part") for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr and proc.stderr.read()
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0, err
    assert target.read_text() == "earlier result\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_log_spaced_x_is_not_a_grid_with_gaps():
    from tracewh.reports.plots import with_gaps

    # steps 0.009, 0.09, 0.9: no step size holds half of them, so no NaN is inserted
    assert with_gaps([(0.001, 1), (0.01, 2), (0.1, 3), (1.0, 4)]) == (
        [0.001, 0.01, 0.1, 1.0],
        [1.0, 2.0, 3.0, 4.0],
    )


def test_buckets_inside_missing_parts_are_drawn_as_gaps():
    from tracewh.catalog.query import Rows
    from tracewh.reports.plots import figure

    # queue's chart (x=hours; y=pending,running): hour 1 lies inside missing parts
    rows = Rows(
        ["hours", "pending", "running", "in_gap"],
        ["DOUBLE", "BIGINT", "BIGINT", "BOOLEAN"],
        [(0.0, 1, 10, False), (1.0, 1, 10, True), (2.0, 2, 12, False)],
    )
    pending = next(ln for ln in figure("queue", rows).axes[0].get_lines() if ln.get_label() == "pending")
    y = list(pending.get_ydata())
    assert y[0] == 1 and math.isnan(y[1]) and y[2] == 2


def test_one_query_gives_one_answer_whatever_else_the_home_holds(capsys, monkeypatch, tmp_path):
    """The session zone is UTC in `tracewh sql` and tracewh.connect() (the fixed rule in README),
    with one trace ingested and with two whose zones differ."""
    import shutil

    from conftest import SAMPLE_2019
    from handbuilt import phased_google2011

    import tracewh
    from tracewh import ingestion
    from tracewh.home import Home
    from tracewh.options import IngestOptions

    home = Home.resolve(tmp_path / "home")
    ingestion.ingest(home, "google2011", phased_google2011(tmp_path / "src"))
    query = "SELECT hour(event_time) AS h FROM google2011.task_events WHERE job_id = 1 ORDER BY time"
    # raw times 700, 710 and 3100 s = 100, 110 and 2500 s after the trace start, 2011-05-01 23:00
    # UTC (traces.md): 23:01:40, 23:01:50 and 23:41:40 UTC
    expected = [23, 23, 23]

    def answers() -> tuple[list[int], list[int]]:
        code, out, _ = run(capsys, monkeypatch, "--home", str(home.root), "sql", query, "-f", "csv")
        assert code == 0
        cli = [int(line) for line in out.split()[1:]]
        con = tracewh.connect(home.root)
        try:
            api = [h for (h,) in con.execute(query).fetchall()]
        finally:
            con.close()
        return cli, api

    assert answers() == (expected, expected)
    # a second trace whose cell lies in another zone (google2019 cell b: America/Chicago)
    shutil.copytree(SAMPLE_2019 / "clusterdata_2019_b", tmp_path / "b")
    ingestion.ingest(home, "google2019", tmp_path / "b", IngestOptions(cell="b"))
    assert answers() == (expected, expected)


def test_the_staged_catalog_keeps_duckdbs_progress_bar_off_stdout(tmp_path):
    """An ingest's derived build runs long queries on the staged catalog's connection; DuckDB turns
    its progress bar on in a plain Python process (`python -c`, a script: not under pytest's
    capture, hence a child process) and would draw it on stdout, which carries data only."""
    code = (
        "import sys\n"
        "from tracewh import catalog\n"
        "from tracewh.home import Home\n"
        "home = Home.resolve(sys.argv[1])\n"
        "home.ensure_writable()\n"
        "with catalog.staged(home, 'bar') as stage:\n"
        "    print(stage.con.execute(\"SELECT current_setting('enable_progress_bar')\").fetchone()[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "home")], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
