"""The command-line contract: exit codes 0/1/2, stdout carries data only, one-line errors,
--help everywhere, and the outputs of sql/report/info/check/repair/demo."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys

import duckdb
import pytest
import typer.main
from cli_helpers import run_cli as run
from conftest import SAMPLE, awk

from tracewh.cli.main import app
from tracewh.home import Home
from tracewh.traces import builtin_titles


def walk(command, path=()):
    yield path, command
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from walk(sub, (*path, name))


def test_every_command_has_help(capsys):
    root = typer.main.get_command(app)
    paths = [p for p, _ in walk(root)]
    assert ("report", "lifecycle-counts") in paths and ("ingest",) in paths
    for path, command in walk(root):
        code, out, _ = run(capsys, *path, "--help")
        assert code == 0, path
        assert "Usage" in out and (command.help or "").split("\n")[0][:20] in out, path


def test_the_top_level_help_names_every_shipped_trace(capsys):
    # (it named three of the four: Alibaba cluster-trace-v2017 was added without it)
    code, out, _ = run(capsys, "--help")
    assert code == 0
    flat = "".join(out.split())  # (the help wraps lines, also at a title's hyphen)
    for title in (
        "Google clusterdata-2011-2",
        "Google clusterdata 2019 (v3)",
        "Alibaba cluster-trace-v2018",
        "Alibaba cluster-trace-v2017",
    ):
        assert "".join(title.split()) in flat, title
    # and a trace shipped later too: every built-in title
    assert all("".join(t.split()) in flat for t in builtin_titles())


@pytest.mark.parametrize("args", [["--help"], ["report", "list"], ["report", "--help"]])
def test_help_and_the_report_list_do_not_import_the_engine_or_expand_sql(args):
    # Start-up is what these commands cost: no engine, no dataframe library, no SQL dialect
    # translator, no report's SQL expanded (a report's `sql` is filled in on first use).
    code = (
        "import sys; from tracewh.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "from tracewh import reports\n"
        "heavy = ('duckdb', 'polars', 'pyarrow', 'sqlglot', 'matplotlib', 'numpy', 'pydantic')\n"
        # the help prints nothing on stderr: no console is made
        f"heavy += ('rich',) if {args!r} == ['--help'] else ()\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)\n"
        "print(sorted(n for n, r in reports.all_reports().items() if 'sql' in vars(r)), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.splitlines()[-2:] == ["[]", "[]"]
    assert out.stdout.strip()  # it printed its help or its list


def test_a_command_converts_its_options_without_pydantic(sample_home, tmp_path):
    # typer converts each option through a pydantic TypeAdapter, and the first one imports
    # pydantic (70 ms of a 0.3 s command); tracewh's options are converted directly.
    out_file = tmp_path / "one.csv"
    code = (
        "import sys; from tracewh.cli.main import main\n"
        f"args = ['--home', {str(sample_home.root)!r}, 'sql', 'SELECT 41 + 1 AS x', '--max-rows', ' 7 ', "
        f"'-o', {str(out_file)!r}]\n"
        "try:\n    main(args)\nexcept SystemExit as e:\n    print('exit', e.code)\n"
        "print('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["exit", "0", "False"], out.stderr
    assert out_file.read_text().split() == ["x", "42"]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-rows", "5x", "Input should be a valid integer, unable to parse string as an integer"),
        ("--max-rows", "2.5", "Input should be a valid integer, unable to parse string as an integer"),
        ("--font-size", "big", "Input should be a valid number, unable to parse string as a number"),
    ],
)
def test_a_bad_number_is_a_usage_error_naming_the_option(capsys, sample_home, option, value, message):
    args = ["--home", str(sample_home.root), "report", "queue", "--trace", "google2011", option, value]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert f"Invalid value for '{option}': {message}" in " ".join(err.split())


def test_whole_numbers_and_repeated_options_arrive_typed(capsys, sample_home, monkeypatch):
    # wide enough for the table in one piece whatever terminal runs the suite
    monkeypatch.setenv("COLUMNS", "400")
    # "5.0" is a whole number (as pydantic reads it); --param repeats into a list
    code, out, _ = run(
        capsys, "--home", str(sample_home.root), "report", "queue", "--trace", "google2011",
        "--max-rows", "5.0", "-p", "bucket_s=600", "--param", "dummy_is_refused=1",
    )  # fmt: skip
    assert code == 2 and "no parameter 'dummy_is_refused'" in out + _
    code, out, _ = run(
        capsys, "--home", str(sample_home.root), "report", "queue", "--trace", "google2011",
        "--max-rows", "5.0", "-p", "bucket_s=600", "-f", "table",
    )  # fmt: skip
    assert code == 0
    body = [ln for ln in out.splitlines() if ln.startswith("│")]
    assert len(body) == 5


def test_the_library_never_imports_the_cli_toolkit():
    code = (
        "import sys, tracewh.ingestion, tracewh.reports, tracewh.catalog, tracewh.catalog.checks, "
        "tracewh.demo, tracewh.catalog.holdings, tracewh.catalog.query, tracewh.reports.plots\n"
        "print(sorted(m for m in ('typer', 'rich', 'click', 'tracewh.cli') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("tracewh ")


def test_unknown_report_exits_2_and_prints_nothing_to_stdout(capsys, sample_home):
    code, out, err = run(capsys, "--home", str(sample_home.root), "report", "no-such-report")
    assert code == 2 and out == ""
    assert "no-such-report" in err


def test_unknown_option_is_a_usage_error(capsys):
    code, out, _ = run(capsys, "sql", "--bogus")
    assert code == 2 and out == ""


def test_sql_csv_is_a_header_then_rows_on_stdout(capsys, sample_home):
    code, out, err = run(
        capsys,
        "--home",
        str(sample_home.root),
        "sql",
        "SELECT event_type_name, count(*) AS n FROM google2011.task_events "
        "WHERE event_type_name IN ('SUBMIT', 'LOST') GROUP BY 1 ORDER BY 1",
        "--format",
        "csv",
    )
    assert code == 0, err
    submit = int(awk(f"gzip -dc {SAMPLE}/task_events/*.gz | awk -F, '$6 == 0' | wc -l"))
    lost = int(awk(f"gzip -dc {SAMPLE}/task_events/*.gz | awk -F, '$6 == 6' | wc -l"))
    assert out == f"event_type_name,n\nLOST,{lost}\nSUBMIT,{submit}\n"


def test_sql_json_and_nulls(capsys, sample_home):
    code, out, _ = run(
        capsys,
        "--home",
        str(sample_home.root),
        "sql",
        "SELECT 1 AS a, NULL AS b, google2011.trace_timestamp(600000000) AS t",
        "-f",
        "json",
    )
    assert code == 0
    (row,) = json.loads(out)
    assert row["a"] == 1 and row["b"] is None and row["t"].startswith("2011-05-01")


def test_sql_table_output_and_row_cap_note_on_stderr(capsys, sample_home):
    code, out, err = run(
        capsys, "--home", str(sample_home.root), "sql", "SELECT * FROM range(30) t(i)", "--max-rows", "10"
    )
    assert code == 0
    # the rest is never read, so it is not counted (issue 14: no full scan to count)
    assert "showed the first 10 rows; there are more" in err and "showed" not in out
    assert "│  9 │" in out.replace("│ 9 │", "│  9 │") and "29" not in out


def test_sql_error_is_one_line_on_stderr_exit_1(capsys, sample_home):
    code, out, err = run(capsys, "--home", str(sample_home.root), "sql", "SELEC nonsense")
    assert code == 1 and out == ""
    assert err.startswith("Error: SQL error") and "Traceback" not in err


def test_the_catalog_is_read_only_for_sql(capsys, sample_home):
    code, out, err = run(capsys, "--home", str(sample_home.root), "sql", "DROP VIEW google2011.job_events")
    assert code == 1 and "read-only" in err.lower()


def test_no_catalog_is_a_clear_error(capsys, tmp_path):
    code, out, err = run(capsys, "--home", str(tmp_path / "empty"), "info")
    assert code == 1 and out == "" and "no catalog" in err


def test_ingest_of_a_missing_folder_exits_1_with_one_line(capsys, tmp_path):
    code, out, err = run(
        capsys, "--home", str(tmp_path / "h"), "ingest", "google2011", str(tmp_path / "nope")
    )
    assert code == 1 and out == ""
    assert err.strip().count("\n") == 0 and "no such file or folder" in err


def test_ingest_summary_goes_to_stderr_and_stdout_stays_empty(capsys, tmp_path):
    code, out, err = run(
        capsys,
        "--home",
        str(tmp_path / "h"),
        "ingest",
        "google2011",
        str(SAMPLE),
        "--tables",
        "job_events,machine_events",
    )
    assert code == 0 and out == ""
    assert "job_events" in err and "machine_events" in err and "task_events" not in err


def test_report_list_names_every_report(capsys):
    code, out, _ = run(capsys, "report", "list", "--format", "csv")
    names = [r["report"] for r in csv.DictReader(io.StringIO(out))]
    assert code == 0 and {"overview", "lifecycle-counts"} <= set(names)


def test_lifecycle_counts_csv_matches_an_independent_count(capsys, sample_home):
    code, out, err = run(
        capsys,
        "--home",
        str(sample_home.root),
        "report",
        "lifecycle-counts",
        "--trace",
        "google2011",
        "--format",
        "csv",
    )
    assert code == 0, err
    got = {r["metric"]: r for r in csv.DictReader(io.StringIO(out))}
    tasks = int(awk(f"gzip -dc {SAMPLE}/task_events/*.gz | awk -F, '{{print $3\",\"$4}}' | sort -u | wc -l"))
    first_submits = int(
        awk(f"gzip -dc {SAMPLE}/task_events/*.gz | awk -F, '$6 == 0 {{print $3\",\"$4}}' | sort -u | wc -l")
    )
    submits = int(awk(f"gzip -dc {SAMPLE}/task_events/*.gz | awk -F, '$6 == 0' | wc -l"))
    finished = int(
        awk(f"gzip -dc {SAMPLE}/task_events/*.gz | awk -F, '$6 == 4 {{print $3\",\"$4}}' | sort -u | wc -l")
    )
    # the sample holds parts 0, 1 and 499: a task first seen in part 499 comes after the missing
    # parts 2-498, so whether its first SUBMIT there is new is unknown (its row, apart)
    before = f"gzip -dc {SAMPLE}/task_events/part-0000[01]-*.gz | awk -F, '{{print $3\",\"$4}}' | sort -u"
    after = f"gzip -dc {SAMPLE}/task_events/part-00499-*.gz | awk -F, '$6 == 0 {{print $3\",\"$4}}' | sort -u"
    unknown = int(awk(f"comm -13 <({before}) <({after}) | wc -l"))
    assert unknown > 0  # the sample has such a task, so the split can be seen
    assert int(got["distinct tasks"]["value"]) == tasks
    assert int(got["new submissions (first SUBMIT of a task)"]["value"]) == first_submits - unknown
    unknown_row = "first SUBMIT of a task first seen after a missing part (new or not: unknown)"
    assert int(got[unknown_row]["value"]) == unknown
    assert int(got["resubmissions (later SUBMITs of a task)"]["value"]) == submits - first_submits
    assert int(got["tasks that finished"]["value"]) == finished
    assert got["events: SUBMIT"]["published_whole_trace"] == "48375166"


def test_lifecycle_counts_separates_synthesized_events_as_an_awk_count_does(capsys, sample_home):
    code, out, _ = run(
        capsys, "--home", str(sample_home.root), "report", "lifecycle-counts", "-t", "google2011", "-f", "csv"
    )
    got = {r["metric"]: r for r in csv.DictReader(io.StringIO(out))}
    names = [
        "SUBMIT",
        "SCHEDULE",
        "EVICT",
        "FAIL",
        "FINISH",
        "KILL",
        "LOST",
        "UPDATE_PENDING",
        "UPDATE_RUNNING",
    ]
    counts = awk(
        f"gzip -dc {SAMPLE}/task_events/*.gz | "
        "awk -F, '$2 != \"\" {n[$6]++} END {for (k in n) print k, n[k]}'"
    )
    expected = {names[int(k)]: int(v) for k, v in (line.split() for line in counts.strip().splitlines())}
    assert code == 0
    assert {
        n: int(got[f"events: {n}"]["synthesized"]) for n in names if int(got[f"events: {n}"]["synthesized"])
    } == expected


def test_report_param_unknown_and_typed(capsys, sample_home):
    code, out, err = run(
        capsys, "--home", str(sample_home.root), "report", "queue", "-t", "google2011", "--param", "nope=1"
    )
    assert code == 2 and "no parameter 'nope'" in err
    code, out, _ = run(
        capsys,
        "--home",
        str(sample_home.root),
        "report",
        "queue",
        "-t",
        "google2011",
        "-p",
        "bucket_s=86400",
        "-f",
        "csv",
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    # the sample has events in trace days 0 and 29 only; the days between are there, empty
    assert code == 0 and [r["bucket"] for r in rows] == [str(d) for d in range(30)]
    assert rows[1]["submitted"] == "0" and rows[1]["pending"] == rows[0]["pending"]


def test_report_with_a_trace_it_does_not_cover_is_a_usage_error(capsys, sample_home):
    code, out, err = run(
        capsys, "--home", str(sample_home.root), "report", "lifecycle-counts", "--trace", "alibaba2018"
    )
    assert code == 2 and out == ""


def test_plot_on_a_report_without_a_chart_is_a_usage_error(capsys, sample_home, tmp_path):
    code, out, err = run(
        capsys, "--home", str(sample_home.root), "report", "overview", "--plot", str(tmp_path / "x.png")
    )
    assert code == 2 and "no chart" in err


def test_plot_to_a_format_matplotlib_cannot_write_is_a_usage_error_before_the_report_runs(
    capsys, sample_home, tmp_path
):
    target = tmp_path / "x.txt"
    args = (
        "--home",
        str(sample_home.root),
        "report",
        "queue",
        "--trace",
        "google2011",
        "--plot",
        str(target),
    )
    code, out, err = run(capsys, *args)
    # Old code: the report printed, then "internal error: ValueError: Format 'txt' is not supported".
    assert (code, out) == (2, "") and not target.exists()
    assert (
        err.startswith(f"Error: --plot {target}: cannot write a .txt chart (choose ") and err.count("\n") == 1
    )


def test_a_job_name_holding_mathtext_is_drawn_as_written(capsys, tmp_path):
    from matplotlib.cbook import is_math_text

    import tracewh

    job = "j_$\\x$"  # matplotlib's mathtext: "Unknown symbol: \x" failed the whole drawing
    src = tmp_path / "src"
    src.mkdir()
    (src / "batch_task.csv").write_text(
        f"M1,2,{job},1,Terminated,100,200,100,0.39\nM2_1,1,{job},1,Terminated,210,260,50,0.2\n"
    )
    home = tmp_path / "home"
    assert run(capsys, "--home", str(home), "ingest", "alibaba2018", str(src), "-q")[0] == 0
    chart = tmp_path / "dag"  # no suffix: matplotlib writes dag.png, and that is the name to print
    code, out, err = run(
        capsys, "--home", str(home), "report", "ali-job", "-t", "alibaba2018", "-p", f"job={job}",
        "--plot", str(chart), "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert f"plot written to {chart}.png" in err and (tmp_path / "dag.png").read_bytes()[:4] == b"\x89PNG"
    fig = tracewh.plot("ali-job", trace="alibaba2018", home=home, job=job)
    title = fig.axes[0].get_title()
    assert not is_math_text(title) and title.startswith("DAG of the job j_")


def test_info_and_check_pass_on_the_sample(capsys, sample_home):
    code, out, _ = run(capsys, "--home", str(sample_home.root), "info", "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["trace"] == "google2011"]
    assert code == 0 and {r["table"] for r in rows} == {
        "job_events",
        "task_events",
        "machine_events",
        "machine_attributes",
        "task_constraints",
        "task_usage",
    }
    code, out, err = run(capsys, "--home", str(sample_home.root), "check", "--format", "csv")
    assert code == 0, err
    assert {r["result"] for r in csv.DictReader(io.StringIO(out))} == {"ok"}


def test_check_fails_with_exit_1_when_an_invariant_breaks(capsys, tmp_path):
    import os

    from conftest import write_gz

    src = tmp_path / "src"
    write_gz(src / "job_events" / "part-00000-of-00001.csv.gz", ["5000000,,7,0,u,1,n,l"])
    code, _, err = run(capsys, "--home", str(tmp_path / "h"), "ingest", "google2011", str(src), "-q")
    assert code == 0, err
    # as after a kill -9 between the commit and the link flip: the link names another generation
    link = tmp_path / "h" / "parquet" / "google2011" / "job_events"
    link.unlink()
    os.symlink(".gen/job_events.20990101T000000-dead00", link)
    from tracewh.home import Home

    with Home.resolve(tmp_path / "h").writer_lock():  # a writer at work: check reports, does not mend
        code, out, err = run(capsys, "--home", str(tmp_path / "h"), "check", "--format", "csv")
    assert code == 1
    failed = [r["check"] for r in csv.DictReader(io.StringIO(out)) if r["result"] == "FAIL"]
    assert failed == ["parquet_links"]


def test_moving_the_home_is_detected_and_repaired_by_one_command(capsys, tmp_path):
    first = tmp_path / "first"
    code, _, _ = run(
        capsys, "--home", str(first), "ingest", "google2011", str(SAMPLE), "--tables", "job_events", "-q"
    )
    assert code == 0
    moved = tmp_path / "moved"
    shutil.move(first, moved)
    code, out, err = run(capsys, "--home", str(moved), "sql", "SELECT count(*) FROM google2011.job_events")
    assert code == 1 and "tracewh repair" in err
    code, _, err = run(capsys, "--home", str(moved), "repair")
    assert code == 0, err
    code, out, _ = run(
        capsys, "--home", str(moved), "sql", "SELECT count(*) AS n FROM google2011.job_events", "-f", "csv"
    )
    assert (code, out) == (0, "n\n3172\n")
    assert Home.resolve(moved).table_link("google2011", "job_events").resolve().is_dir()


def test_a_query_failing_on_a_catalog_built_from_other_sql_names_repair(capsys, tmp_path):
    """A catalog another build of the same version wrote (its views from other SQL: a stored table
    may lack a column this build's reports read) answers what binds; a name it lacks is one line
    that says `tracewh repair` rebuilds the views, and repair does."""
    home = tmp_path / "h"
    code, _, err = run(
        capsys, "--home", str(home), "ingest", "google2011", str(SAMPLE), "--tables", "job_events", "-q"
    )
    assert code == 0, err
    query = "SELECT count(DISTINCT tier) AS n FROM lifecycle.priority_tiers WHERE trace = 'google2011'"
    # this build's catalog: a column that does not exist is the user's, no word of repair
    code, _, err = run(capsys, "--home", str(home), "sql", "SELECT no_such FROM lifecycle.priority_tiers")
    assert code == 1 and "no_such" in err and "repair" not in err, err
    with duckdb.connect(str(Home.resolve(home).catalog)) as con:
        con.execute("UPDATE meta.catalog SET value = 'another build' WHERE key = 'views_built_from'")
        con.execute("CREATE OR REPLACE VIEW lifecycle.priority_tiers AS SELECT 'google2011' AS trace, 1 AS x")
    code, out, err = run(
        capsys, "--home", str(home), "sql", "SELECT count(*) AS n FROM google2011.job_events", "-f", "csv"
    )
    assert (code, out) == (0, "n\n3172\n"), err  # what binds is answered
    code, out, err = run(capsys, "--home", str(home), "sql", query)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and '"tier"' in err and "tracewh repair" in err, err
    code, _, err = run(capsys, "--home", str(home), "repair")
    assert code == 0, err
    code, out, err = run(capsys, "--home", str(home), "sql", query, "-f", "csv")
    # the answer of a catalog this build made from the start
    fresh = tmp_path / "fresh"
    run(capsys, "--home", str(fresh), "ingest", "google2011", str(SAMPLE), "--tables", "job_events", "-q")
    assert (code, out) == run(capsys, "--home", str(fresh), "sql", query, "-f", "csv")[:2], err
    assert out.startswith("n\n") and int(out.split()[1]) > 0


def test_demo_ingests_the_sample_into_a_fresh_home_and_prints_reports(capsys, tmp_path):
    home = tmp_path / "demo[/x]"  # rich markup in the path: the old code crashed on the first line
    code, out, err = run(capsys, "--home", str(home), "demo")
    assert code == 0, err
    assert err.startswith(f"tracewh demo: ingesting the bundled sample into {home}\n")
    assert "lifecycle-counts" in out and "task_events" in out
    code, out, err = run(capsys, "--home", str(home), "demo")  # re-runnable
    assert code == 0, err


def test_demo_refuses_to_clear_a_folder_that_is_not_a_tracewh_home(capsys, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    code, out, err = run(capsys, "--home", str(precious), "demo")
    assert code == 2 and (precious / "thesis.tex").exists()


@pytest.mark.parametrize("fmt", ["xml"])
def test_unknown_format_is_a_usage_error(capsys, sample_home, fmt):
    code, out, _ = run(capsys, "--home", str(sample_home.root), "info", "--format", fmt)
    assert code == 2 and out == ""


def test_global_options_do_not_leak_into_the_next_call_in_one_process(capsys, sample_home, tmp_path):
    # Two calls in one process (a notebook, a test run): the first names the sample home with the
    # global --home; the second names none, so its home is $TRACEWH_HOME (an empty folder here, set
    # by conftest) and it must fail with "no catalog". Before the state lived in ctx.obj, the
    # first call's --home stayed in a module global and the second listed the sample's tables.
    code, out, _ = run(capsys, "--home", str(sample_home.root), "sql", "SELECT 1 AS one", "-f", "csv")
    assert (code, out) == (0, "one\n1\n")
    code, out, err = run(capsys, "sql", "SELECT 1 AS one", "-f", "csv")
    assert code == 1 and out == "" and "no catalog at" in err and str(sample_home.root) not in err
    # --debug of one call does not make the next one print tracebacks
    code, _, err = run(capsys, "--debug", "--home", str(tmp_path / "none"), "sql", "SELECT 1")
    assert code != 0
    code, _, err = run(capsys, "sql", "SELECT 1")
    assert code == 1 and "Traceback" not in err and err.startswith("Error: ")


# ---- text from outside holding rich markup prints as written (the old code: MarkupError tracebacks)


def test_repair_prints_a_home_path_holding_markup_as_written(capsys, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "machine_meta.csv").write_text("m_1,0,219,17,96,100,USING\n")
    first, moved = tmp_path / "h[/x]", tmp_path / "m[bold]"
    code, _, err = run(capsys, "--home", str(first), "ingest", "alibaba2018", str(src), "-q")
    assert code == 0, err
    shutil.move(first, moved)
    code, _, err = run(capsys, "--home", str(moved), "repair")
    assert (code, err) == (0, f"views rebuilt for {moved} (was {first})\n")


def test_sql_names_and_values_holding_markup_print_as_written(capsys, sample_home):
    q = """SELECT 1 AS "[/x]", '\\[/x]' AS b, 'tail\\' AS c, '[bold]x' AS d"""
    code, out, err = run(capsys, "--home", str(sample_home.root), "sql", q)
    assert code == 0, err
    head, row = [line for line in out.splitlines() if line.startswith(("┃", "│"))]
    assert head.split() == ["┃", "[/x]", "┃", "b", "┃", "c", "┃", "d", "┃"]
    assert row.split() == ["│", "1", "│", "\\[/x]", "│", "tail\\", "│", "[bold]x", "│"]


def test_the_error_boundary_prints_an_unexpected_error_holding_markup_as_written(
    capsys, monkeypatch, sample_home
):
    from tracewh.catalog import holdings

    def broken(*args, **kwargs):  # an unexpected failure whose text carries markup and lines
        raise RuntimeError("no [/x] here\n  ^\nsee above")

    monkeypatch.setattr(holdings, "tables", broken)
    # a home with a catalog: `info` opens it before it asks what is held
    code, out, err = run(capsys, "--home", str(sample_home.root), "info")
    assert (code, err) == (
        1,
        "Error: internal error: RuntimeError: no [/x] here ^ see above (run with --debug)\n",
    )
