"""The SQL and the bundled sample ship inside the wheel and are found from a wheel installed elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import REPO, clean_source


def test_wheel_contains_sql_and_sample_and_finds_them_when_installed_elsewhere(tmp_path):
    source = clean_source(tmp_path / "source")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-v",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    # No warnings from the build (the license form, data folders that are not packages...)
    log = build.stdout + build.stderr
    assert "Warning" not in log, [line for line in log.splitlines() if "Warning" in line]
    (wheel,) = (tmp_path / "dist").glob("tracewh-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # The import names the wheel adds to an environment: exactly one, `tracewh` (no `cli`, no
    # `warehouse`): its top-level entries and the names its metadata declares.
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"tracewh"}
    (top_level,) = (n for n in names if n.endswith(".dist-info/top_level.txt"))
    assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["tracewh"]
    assert "tracewh/api.py" in names and "tracewh/cli/main.py" in names
    assert "tracewh/ingestion/__init__.py" in names and "tracewh/catalog/query.py" in names
    assert "tracewh/traces/google2011.py" in names
    assert "tracewh/sql/google2011/11_task_events.sql" in names
    assert "tracewh/sql/reports/lifecycle_counts.sql" in names
    assert "tracewh/data/sample/google2011/task_events/part-00001-of-00500.csv.gz" in names
    assert "tracewh/data/sample/google2011/SHA256SUM" in names
    # every module and SQL file of every folder (setup.py finds the folders; none is listed by hand)
    shipped = {
        f"tracewh/{prefix}{p.relative_to(REPO / top).as_posix()}"
        for top, prefix, pattern in (
            ("warehouse", "", "*.py"),
            ("cli", "cli/", "*.py"),
            ("sql", "sql/", "*.sql"),
        )
        for p in (REPO / top).rglob(pattern)
    }
    assert shipped <= set(names), sorted(shipped - set(names))
    # and no SQL file but those (a moved one is not shipped at its old place too)
    assert {n for n in names if n.endswith(".sql")} == {n for n in shipped if n.endswith(".sql")}
    (entry_points,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "tracewh = tracewh.cli.main:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    code = (
        "import tracewh; from tracewh import sqlfiles, reports; "
        "print(sqlfiles.sql_root()); print(sorted(reports.all_reports())[:1]); "
        "print(sqlfiles.data_root()); "
        "print(*(callable(getattr(tracewh, f)) for f in ('connect', 'report', 'plot', 'ingest', 'info')))"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert Path(out[0]).is_relative_to(target) and (Path(out[0]) / "meta" / "00_meta.sql").is_file()
    assert out[1] == "['ali-app-zipf']"  # the alphabetically first report
    assert (Path(out[2]) / "sample" / "google2011" / "schema.csv").is_file()
    assert out[3] == "True True True True True"  # the Python API is the package's
    # The command line runs from the installed wheel too (the one import name holds it).
    help_out = subprocess.run(
        [sys.executable, "-m", "tracewh.cli.main", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert help_out.returncode == 0 and "Usage" in help_out.stdout, help_out.stderr


def test_editable_install_reads_sql_from_the_repository():
    from tracewh import sqlfiles

    assert sqlfiles.sql_root().resolve() == (REPO / "sql").resolve()
