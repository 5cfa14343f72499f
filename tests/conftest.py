"""Shared fixtures: a temp home for every test, the bundled sample ingested once per worker,
and helpers to write raw files in the trace's original format."""

from __future__ import annotations

import gzip
import shutil
import signal
import subprocess
from collections.abc import Iterable
from pathlib import Path

import duckdb
import pytest

from tracewh import ingestion as ingest
from tracewh.home import Home

REPO = Path(__file__).resolve().parent.parent
# What a wheel is built from: these, copied clean, as a fresh clone has them (a checkout's build/
# keeps the files of earlier builds, moved or deleted ones too, and setuptools ships them again;
# two builds at once in one checkout would also share it).
SOURCES = ("warehouse", "cli", "sql", "data", "setup.py", "pyproject.toml", "README.md")


def clean_source(dest: Path) -> Path:
    """A copy of the sources a wheel is built from (SOURCES), at ``dest``."""
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(REPO / name, dest / name)
    return dest


SAMPLE = REPO / "data" / "sample" / "google2011"
SAMPLE_2019 = REPO / "data" / "sample" / "google2019"
SAMPLE_ALIBABA = REPO / "data" / "sample" / "alibaba2018"
SAMPLE_ALIBABA2017 = REPO / "data" / "sample" / "alibaba2017"
# The traces of the shared sample home and their bundled samples: the reports' goldens and runs
# on the sample are over these (a trace added later tests its own sample in a home of its own).
SAMPLES = {"google2011": SAMPLE, "google2019": SAMPLE_2019, "alibaba2018": SAMPLE_ALIBABA}
MAX_TIME = 2**63 - 1

# A test runner started in the background of a non-interactive shell (`make test &`, nohup, a CI
# step) gets SIGINT ignored (POSIX: `&` without job control sets SIG_IGN), and an ignored or blocked
# SIGINT is inherited through fork and exec: the children of the Ctrl-C tests then ignore the
# test's SIGINT (a download runs to exit 0, a query until the timeout). Tests run as from a
# terminal: SIGINT at Python's default in this process, hence at the default in every child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """No test reads or writes the developer's home."""
    monkeypatch.setenv("TRACEWH_HOME", str(tmp_path / "default-home"))


@pytest.fixture(params=["auto", "exact"])
def ingest_path(request, monkeypatch) -> str:
    """The test runs twice: with the strict fast path first (falling back per file), and with the
    exact path only; a bad input must give the same rows, rejects and errors both ways."""
    from tracewh.ingestion import fastpath

    monkeypatch.setenv(fastpath.MODE_VARIABLE, request.param)
    return request.param


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory) -> Home:
    """The bundled samples, ingested once per test worker; tests must not modify it."""
    home = Home.resolve(tmp_path_factory.mktemp("sample") / "home")
    for trace, sample in SAMPLES.items():
        ingest.ingest(home, trace, sample)
    return home


@pytest.fixture
def sample_con(sample_home):
    con = duckdb.connect(str(sample_home.catalog), read_only=True)
    yield con
    con.close()


def read_catalog(home: Home, sql: str) -> list[tuple]:
    """The rows of ``sql`` on ``home``'s catalog, opened read-only as a user's DuckDB opens it."""
    with duckdb.connect(str(home.catalog), read_only=True) as con:
        return con.execute(sql).fetchall()


def stored_paths(home: Home, trace: str, name: str) -> list[Path]:
    """The Parquet files of a stored derived table of ``trace`` (its one file, or its unit files)."""
    from tracewh.catalog import derived

    with duckdb.connect(str(home.catalog), read_only=True) as con:
        ((data_dir,),) = con.execute(
            "SELECT data_dir FROM meta.derived WHERE trace = $t AND name = $n", {"t": trace, "n": name}
        ).fetchall()
    return derived.stored_paths(home.root, data_dir, name)


def stored_rows(home: Home, trace: str, name: str, columns: str = "*") -> list[tuple]:
    """A stored derived table of ``trace`` read straight from its Parquet (not through the
    catalog's view), its rows sorted."""
    listed = ", ".join(f"'{x}'" for x in stored_paths(home, trace, name))
    if not listed:
        return []
    with duckdb.connect() as con:
        return con.execute(f"SELECT {columns} FROM read_parquet([{listed}]) ORDER BY ALL").fetchall()


def write_gz(path: Path, lines: Iterable[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", newline="") as fh:
        for line in lines:
            fh.write(line + "\n")
    return path


def awk(cmd: str) -> str:
    """An independent computation over raw files with the shell (gzip -dc | awk)."""
    return subprocess.run(["bash", "-c", cmd], check=True, capture_output=True, text=True).stdout


def task_row(
    time,
    job,
    idx,
    event,
    *,
    missing="",
    machine="",
    user="u",
    sched="0",
    prio="0",
    cpu="0.1",
    mem="0.2",
    disk="0.0001",
    diff="0",
) -> str:
    """One task_events line in the raw column order of schema.csv."""
    return ",".join(
        str(v) for v in (time, missing, job, idx, machine, event, user, sched, prio, cpu, mem, disk, diff)
    )


# ---- issue 9: hand-built edge-case homes (tests/handbuilt.py) and the golden files' update switch


def pytest_collection_modifyitems(items):
    """The Spark parity tests over the views and reports that cost Spark most (the
    `spark_sample_heavy` and `spark_synth` fixtures: ~300 CPU s of Spark per home) are marked
    `spark`: `make test-spark` runs them, `make test` leaves them out (as the standalone-cluster
    test, which tests/test_spark_cluster.py marks itself). The other Spark tests (the parity of
    the sample's other views and reports, the override layer, the fanned-out ingest) run in
    `make test`."""
    for item in items:
        if {"spark_sample_heavy", "spark_synth"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.spark)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session):
    """`--dist loadgroup` (make test) sends the tests of one `xdist_group` to one worker by a suffix
    xdist appends to their node ids (`...::test_x@spark`). pytest 9.2 keeps the node id in a
    structured field that xdist 3.8 does not write, so the suffix never appeared and every group
    was spread over both workers (tests/test_spark.py started a JVM on each). Until xdist writes
    it itself, the suffix is set here, before the worker sends its collection to the scheduler;
    with an xdist that does, the ids already end in the group and nothing changes."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    for item in session.items:
        names = {
            str(m.args[0] if m.args else m.kwargs.get("name", "default"))
            for m in item.iter_markers("xdist_group")
        }
        group = "_".join(sorted(names))
        if group and not item.nodeid.endswith(f"@{group}"):
            item._id = type(item._id).parse(f"{item.nodeid}@{group}")


def pytest_addoption(parser):
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="rewrite tests/golden/ from the current reports (review the diff before committing)",
    )


@pytest.fixture(scope="session")
def handbuilt_home(tmp_path_factory):
    """One ingested home per hand-built case of tests/handbuilt.py, built once per worker."""
    from handbuilt import CASES

    homes: dict[str, Home] = {}

    def get(case: str) -> Home:
        if case not in homes:
            trace, build = CASES[case]
            root = tmp_path_factory.mktemp(case)
            home = Home.resolve(root / "home")
            ingest.ingest(home, trace, build(root / "src"))
            homes[case] = home
        return homes[case]

    return get
