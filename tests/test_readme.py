"""The README's command table names exactly the commands the code has (it cannot drift)."""

from __future__ import annotations

import contextlib
import re

import typer.main
from conftest import REPO

from tracewh.cli.main import app, main


def test_readme_command_table_matches_the_code():
    readme = (REPO / "README.md").read_text()
    table = readme.split("## Commands", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `tracewh ([a-z0-9-]+)` \|", table, flags=re.M)
    commands = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert sorted(documented) == commands


def test_every_command_help_has_an_example(capsys):
    group = typer.main.get_command(app)
    paths = [(name,) for name in group.commands] + [("report", "list"), ("report", "queue")]
    for path in paths:
        with contextlib.suppress(SystemExit):
            main([*path, "--help"])
        out = capsys.readouterr().out
        assert "Examples:" in out, path
        # the example lines are kept as written (not re-wrapped by Click)
        assert f"  tracewh {path[0]}" in out or "  tracewh --home" in out, path


def test_shell_completion_is_available(capsys):
    with contextlib.suppress(SystemExit):
        main(["--help"])
    assert "--install-completion" in capsys.readouterr().out


def test_ingest_has_cell_and_no_stale_trace_list(capsys):
    with contextlib.suppress(SystemExit):
        main(["ingest", "--help"])
    out = capsys.readouterr().out
    assert "--cell" in out and "to come" not in out


def test_ingest_cell_takes_a_flat_folder_of_one_cell(tmp_path, capsys):
    import shutil

    from conftest import SAMPLE_2019

    flat = tmp_path / "shards"
    shutil.copytree(SAMPLE_2019 / "clusterdata_2019_a", flat)
    home = tmp_path / "home"
    try:
        main(["--home", str(home), "ingest", "google2019", str(flat), "--cell", "a", "-q"])
    except SystemExit as e:
        assert not e.code, capsys.readouterr().err
    import duckdb

    con = duckdb.connect(str(home / "tracewh.duckdb"), read_only=True)
    cells = con.execute("SELECT DISTINCT cell FROM meta.ingests WHERE is_current").fetchall()
    con.close()
    assert cells == [("a",)]
