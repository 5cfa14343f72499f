"""The warehouse session (warehouse/session.py, `tracewh.open`): one connection for everything a
report reads, one state of the warehouse until the session moves on, typed options."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import SAMPLE, awk

import tracewh
from tracewh import catalog
from tracewh.errors import CatalogError, UsageError
from tracewh.session import IngestOptions, ReportOptions

JOB_EVENT_LINES = int(awk(f"gzip -dc {SAMPLE}/job_events/*.csv.gz | wc -l"))
TASK_EVENT_LINES = int(awk(f"gzip -dc {SAMPLE}/task_events/*.csv.gz | wc -l"))


def _count_opens(monkeypatch) -> dict[str, int]:
    """Count the real catalog opens (the functions still run): a connection to the catalog, and the
    catalog file attached for a lookup (tidying the links and generations)."""
    calls = {"connect": 0, "open_file": 0}
    for name in calls:
        real = getattr(catalog, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(catalog, name, counted)
    return calls


def test_a_report_opens_the_catalog_once(sample_home, monkeypatch):
    # its rows, footer (gaps, sample, window), provenance: all from one connection
    (sample_home.root / catalog.TIDIED_FILE).unlink(missing_ok=True)  # so the home is tidied here
    calls = _count_opens(monkeypatch)
    r = tracewh.report("queue", trace="google2011", home=sample_home.root)
    assert any(line.startswith("gap: google2011.") for line in r.footer)  # the footer read the gaps
    assert r.provenance["sources"]  # and the provenance its sources
    assert calls == {"connect": 1, "open_file": 1}


def test_a_tidy_that_would_change_nothing_is_skipped_and_one_that_would_runs(tmp_path, monkeypatch):
    home = tmp_path / "h"
    tracewh.ingest("google2011", SAMPLE, home=home, tables=["job_events"])
    calls = _count_opens(monkeypatch)
    tables = "SELECT count(*) FROM meta.tables"
    for _ in range(2):
        with tracewh.open(home) as wh:
            assert wh.sql(tables).rows == [(1,)]
    assert calls == {"connect": 2, "open_file": 1}  # the second found what the first left: nothing to do
    # what a writer killed before its commit leaves (a generation no catalog names), and a stale link
    gens = tmp_path / "h" / "parquet" / "google2011" / ".gen"
    (gens / "task_events.20000101T000000-dead00").mkdir()
    link = tmp_path / "h" / "parquet" / "google2011" / "job_events"
    target = link.readlink()
    link.unlink()
    link.symlink_to(".gen/task_events.20000101T000000-dead00")
    with tracewh.open(home) as wh:
        assert wh.sql(tables).rows == [(1,)]
    assert calls == {"connect": 3, "open_file": 2}
    assert not (gens / "task_events.20000101T000000-dead00").exists() and link.readlink() == target
    with tracewh.open(home) as wh:
        assert wh.sql(tables).rows == [(1,)]
    assert calls == {"connect": 4, "open_file": 2}


def test_a_session_runs_reports_and_sql_on_one_connection(sample_home, monkeypatch):
    calls = _count_opens(monkeypatch)
    with tracewh.open(sample_home.root) as wh:
        a = wh.report("queue", ReportOptions(trace="google2011", params={"bucket_s": 1800}))
        b = wh.report("task-times", ReportOptions(trace="google2011"))
        ((n,),) = wh.sql("SELECT count(*) FROM google2011.job_events").rows
        held = wh.info()
    assert calls["connect"] == 1
    assert a.params == {"bucket_s": 1800} and a.zone == "America/New_York" and b.name == "task-times"
    assert n == JOB_EVENT_LINES
    assert {r[0] for r in held.rows} == {"google2011", "google2019", "alibaba2018"}
    # the same report as the module-level function (its own session) gives the same rows
    alone = tracewh.report("queue", "google2011", home=sample_home.root, bucket_s=1800)
    assert a.rows.rows == alone.rows.rows


def test_a_session_keeps_its_state_until_it_moves_on(tmp_path):
    home = tmp_path / "h"
    tables = "SELECT table_name, rows FROM meta.tables ORDER BY 1"
    with tracewh.open(home, read_only=False) as wh:
        wh.ingest("google2011", SAMPLE, IngestOptions(tables=["job_events"]))
        assert wh.sql(tables).rows == [("job_events", JOB_EVENT_LINES)]  # it reads what it committed
        gaps = wh.gaps()  # remembered by the session's connection (query.fact) until it moves on
        assert [g.split(":")[0] for g in gaps] == ["google2011.job_events"]
        # another process commits meanwhile: the session keeps the state it read, until refresh()
        subprocess.run(
            [sys.executable, "-c", "import sys, tracewh; tracewh.ingest('google2011', sys.argv[1], "
             "home=sys.argv[2], tables=['task_events'])", str(SAMPLE), str(home)],
            check=True,
            capture_output=True,
        )  # fmt: skip
        assert wh.sql(tables).rows == [("job_events", JOB_EVENT_LINES)]
        assert wh.gaps() == gaps
        wh.refresh()
        assert wh.sql(tables).rows == [("job_events", JOB_EVENT_LINES), ("task_events", TASK_EVENT_LINES)]
        assert [g.split(":")[0] for g in wh.gaps()] == ["google2011.job_events", "google2011.task_events"]
    with pytest.raises(UsageError, match="read-only"), tracewh.open(home) as reader:
        reader.ingest("google2011", SAMPLE)


def test_options_are_checked_before_the_catalog_is_opened(tmp_path):
    wh = tracewh.Warehouse(tracewh.home.Home.resolve(tmp_path / "nothing-here"))
    with pytest.raises(UsageError, match="bucket_s"):
        wh.report("queue", ReportOptions(trace="google2011", params={"bucket_s": "soon"}))
    with pytest.raises(CatalogError, match="no catalog"):
        tracewh.open(tmp_path / "nothing-here")
    with pytest.raises(UsageError, match="--memory-limit 'lots'"):
        tracewh.open(tmp_path / "nothing-here", memory_limit="lots")
