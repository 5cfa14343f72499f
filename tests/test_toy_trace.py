"""A fourth trace added with one module and one SQL folder (tests/fixtures/toytrace) and nothing
else: ingest, info, overview, compare, check and the CLI's trace choices pick it up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.catalog import checks
from tracewh.catalog.holdings import tables as info_tables
from tracewh.home import Home
from tracewh.traces import BUILTIN, MODULES_ENV, registry

TOY = Path(__file__).resolve().parent / "fixtures" / "toytrace"
REPO = Path(__file__).resolve().parent.parent

# jobs.csv: 3 events of 2 jobs on 2 machines, times 10..70 s; machines.csv: 2 machines.
JOBS = "10,j1,SUBMIT,m1\n70,j1,FINISH,m1\n20,j2,SUBMIT,m2\n"
MACHINES = "m1,0.5\nm2,1.0\n"


@pytest.fixture
def toy(monkeypatch, tmp_path) -> Path:
    monkeypatch.syspath_prepend(str(TOY))
    monkeypatch.setenv(MODULES_ENV, "toy2024")
    src = tmp_path / "toy-download"
    src.mkdir()
    (src / "jobs.csv").write_text(JOBS)
    (src / "machines.csv").write_text(MACHINES)
    return src


def test_the_toy_trace_is_ingested_listed_compared_and_checked(toy, tmp_path):
    assert list(registry())[-1] == "toy2024"
    home = Home.resolve(tmp_path / "home")
    result = ingest.ingest(home, "toy2024", toy)
    assert {r.table: r.rows_written for r in result.files} == {"jobs": 3, "machines": 2}

    listed = info_tables(home)
    by_table = {row[listed.columns.index("table")]: row for row in listed.rows if "toy2024" in row}
    assert set(by_table) == {"jobs", "machines"}

    ov = reports.run(home, "overview")
    rows = {r[ov.columns.index("table")]: dict(zip(ov.columns, r, strict=True)) for r in ov.rows}
    # 3 and 2 rows; jobs from t = 10 s to 70 s after 2024-01-01 00:00 UTC; machines has no time
    assert (rows["jobs"]["rows"], rows["jobs"]["first_utc"], rows["jobs"]["last_utc"]) == (
        3,
        "2024-01-01 00:00",
        "2024-01-01 00:01",
    )
    assert (rows["machines"]["rows"], rows["machines"]["first_utc"]) == (2, None)

    cmp = reports.run(home, "compare")
    assert cmp.columns[-2:] == ["toy2024", "published_2011_2019"]
    metric = {r[0]: r[cmp.columns.index("toy2024")] for r in cmp.rows}
    # 2 distinct machines (m1, m2), 2 distinct jobs (j1, j2), the one ended job finished
    assert (metric["machines"], metric["jobs"], metric["finish"]) == (2, 2, 1)

    results = {r.name: r for r in checks.run_all(home)}
    assert "toy2024.jobs.mandatory_fields" in results
    assert "toy2024.machines.mandatory_fields" in results
    assert not any(r.failed for r in results.values()), [r.name for r in results.values() if r.failed]


def test_the_cli_offers_the_toy_trace():
    env = {**os.environ, MODULES_ENV: "toy2024", "PYTHONPATH": str(TOY)}
    out = subprocess.run(
        [sys.executable, "-c", "from tracewh.cli.main import main; main()", "ingest", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=True,
    ).stdout
    assert "toy2024" in out


def test_synth_and_download_name_their_traces_from_the_registry(toy, tmp_path):
    from tracewh import download, synth
    from tracewh.errors import UsageError

    # the toy names no generator and no remote: both commands say so and list who they cover,
    # read from the specs (every shipped trace names both), not from a list in shared code
    assert "toy2024" in registry() and synth.synthetic_traces() == BUILTIN
    with pytest.raises(
        UsageError, match=rf"toy2024 has no synthetic generator \(synth writes {', '.join(BUILTIN)}\)"
    ):
        synth.synth("toy2024", tmp_path / "out")
    with pytest.raises(UsageError, match=rf"toy2024 publishes no .* covers {', '.join(BUILTIN)}"):
        download.plan("toy2024", tmp_path / "dl")
    # an option's traces come from the specs too: --cells is for the traces with cells
    with pytest.raises(UsageError, match=r"alibaba2018 has no cells; --cells is for google2019$"):
        synth.synth("alibaba2018", tmp_path / "out", cells=["a"])
    with pytest.raises(UsageError, match=r"google2011 has no shards; --shards is for google2019$"):
        download.plan("google2011", tmp_path / "dl", download.Selection(shards="1"))
