"""The terminal at 80 columns: tables that fit without a block per row, thousands separators,
row caps that say what they left out, a short `report list`, `info` in one time unit."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from test_output import run

GOLDEN = Path(__file__).resolve().parent / "golden" / "terminal"

# (golden name, command): the three that printed one block per row (issue 31)
CASES = {
    "info": ["info"],
    "overview": ["report", "overview"],
    "task-times": ["report", "task-times", "--trace", "google2011"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_80_column_golden_has_no_block_per_row(name, capsys, monkeypatch, sample_home, request):
    monkeypatch.setenv("TZ", "UTC")
    code, out, err = run(capsys, monkeypatch, "--home", str(sample_home.root), *CASES[name], width=80)
    assert code == 0, err
    assert "─[ " not in out  # the record layout's row header
    assert all(len(line) <= 80 for line in out.splitlines())
    # what the table left out is named, with the way to get it
    assert "not shown at width 80" in err and "--columns" in err
    path = GOLDEN / f"{name}.txt"
    if request.config.getoption("--update-goldens"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8")


def test_columns_option_picks_what_the_table_shows(capsys, monkeypatch, sample_home):
    code, out, _ = run(
        capsys, monkeypatch, "--home", str(sample_home.root), "report", "task-times", "--trace", "google2011",
        "--columns", "measure,grp,completed,p50_s", "-f", "csv",
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[0] == "measure,grp,completed,p50_s"
    code, _, err = run(capsys, monkeypatch, "--home", str(sample_home.root), "info", "--columns", "nope")
    assert code == 2 and "nope" in err


def test_report_table_stops_at_40_rows_and_says_how_many_it_left(capsys, monkeypatch, sample_home):
    home = str(sample_home.root)
    _, csv_out, _ = run(
        capsys, monkeypatch, "--home", home, "report", "queue", "--trace", "google2011", "-f", "csv"
    )
    total = len(csv_out.splitlines()) - 1  # every row, counted from the csv (never capped)
    assert total > 40
    code, out, err = run(capsys, monkeypatch, "--home", home, "report", "queue", "--trace", "google2011")
    assert code == 0
    first = out.split("└")[0]  # at 80 columns the table may come in slices of columns: the first
    assert len([line for line in first.splitlines() if line.startswith("│")]) == 40
    assert f"showed the first 40 of {total:,} rows ({total - 40:,} not shown: --max-rows N, 0 for all" in err
    _, out, _ = run(
        capsys,
        monkeypatch,
        "--home",
        home,
        "report",
        "queue",
        "--trace",
        "google2011",
        "--max-rows",
        "0",
        width=400,
    )
    assert len([line for line in out.splitlines() if line.startswith("│")]) == total


def test_report_list_is_one_line_per_report_at_80_columns(capsys, monkeypatch):
    from tracewh import reports

    code, out, err = run(capsys, monkeypatch, "report", "list", width=80)
    assert code == 0
    lines = out.splitlines()
    # title, 3 header lines, one line per report, the bottom border
    assert len(lines) == 1 + 3 + len(reports.all_reports()) + 1
    assert all(len(line) <= 80 for line in lines)
    assert "tracewh report NAME --help" in err


def test_info_gives_every_trace_time_in_seconds(capsys, monkeypatch, sample_home):
    import csv
    import io

    code, out, _ = run(capsys, monkeypatch, "--home", str(sample_home.root), "info", "-f", "csv")
    assert code == 0
    got = {(r["trace"], r["table"]): float(r["clock_from_s"]) for r in csv.DictReader(io.StringIO(out))}
    con = duckdb.connect(str(sample_home.catalog), read_only=True)
    raw = dict(
        ((t, n), v)
        for t, n, v in con.execute("SELECT trace, table_name, min_time FROM meta.tables").fetchall()
    )
    con.close()
    # the raw unit: microseconds for the Google traces (their format documents), seconds for Alibaba
    per_second = {"google2011": 1e6, "google2019": 1e6, "alibaba2018": 1}
    assert got == {k: v / per_second[k[0]] for k, v in raw.items()}
    assert got[("google2011", "task_events")] == 650.0  # the sample's first in-window event: 650,000,000 us
