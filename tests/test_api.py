"""The Python API (warehouse/api.py, re-exported by the package `tracewh`): what a notebook gets."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
from conftest import SAMPLE, awk

import tracewh
from tracewh import api, sqlfiles
from tracewh.errors import UsageError

# The raw line count, by the shell: every sample job_events line is a valid row.
JOB_EVENT_LINES = int(awk(f"gzip -dc {SAMPLE}/job_events/*.csv.gz | wc -l"))


def test_connect_is_read_only_and_sees_every_trace(sample_home):
    con = tracewh.connect(sample_home.root)
    try:
        ((n,),) = con.execute("SELECT count(*) FROM google2011.job_events").fetchall()
        assert n == JOB_EVENT_LINES
        assert con.sql("SELECT count(*) AS n FROM alibaba2018.machine_meta").pl()["n"][0] > 0
        with pytest.raises(duckdb.Error):
            con.execute("CREATE TABLE main.x AS SELECT 1")
    finally:
        con.close()


def test_report_is_a_dataframe_with_the_reports_metadata(sample_home):
    r = tracewh.report("task-times", trace="google2011", home=sample_home.root)
    header = next(f for f in sqlfiles.folder("reports") if f.name == "task-times").header
    assert r.reproduces == header["reproduces"] and r.reproduces.startswith('"10 Observations')
    assert f"caveat: {header['caveat']}" in r.caveats and r.method == header["note"]
    assert any(line.startswith("data: google2011 is the bundled sample") for line in r.caveats)
    assert r.trace == "google2011" and r.zone == "America/New_York"
    assert isinstance(r.df, pl.DataFrame) and r.df.columns == r.rows.columns
    assert len(r) == r.df.height == len(r.rows.rows)
    # attribute access falls through to the DataFrame
    all_rows = r.filter(pl.col("grouping") == "all")
    assert sorted(all_rows["measure"].to_list()) == ["execution time", "scheduling delay"]
    assert "reproduces" in r._repr_html_()


def test_report_parameters_are_python_keywords(sample_home):
    hourly = tracewh.report("queue", trace="google2011", home=sample_home.root)
    half = tracewh.report("queue", trace="google2011", home=sample_home.root, bucket_s=1800)
    assert half.params == {"bucket_s": 1800}
    # half-hour buckets over the same span: about twice as many rows (+1 for the edge bucket)
    assert abs(half.df.height - 2 * hourly.df.height) <= 2
    with pytest.raises(UsageError, match="no parameter"):
        tracewh.report("queue", trace="google2011", home=sample_home.root, bogus=1)


def test_plot_returns_a_figure_with_real_dates_and_the_published_reference(sample_home):
    import matplotlib.dates as mdates
    from matplotlib.figure import Figure

    fig = tracewh.plot("queue", trace="google2011", home=sample_home.root)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    lo, _ = ax.get_xlim()
    # x is a date axis starting at the trace start, 2011-05-01 (America/New_York)
    assert mdates.num2date(lo).year == 2011 and mdates.num2date(lo).month in (4, 5)
    fig = tracewh.plot("task-times", trace="google2011", home=sample_home.root)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert any(label.startswith("paper: ~80%") for label in labels)


def test_info_and_list_reports(sample_home):
    info = tracewh.info(sample_home.root)
    assert set(info["trace"]) == {"google2011", "google2019", "alibaba2018"}
    names = tracewh.list_reports()["report"].to_list()
    assert names == sorted(names) and "task-times" in names


def test_info_and_overview_list_the_traces_in_the_registrys_order(sample_home):
    # (they listed them by name: alibaba2018 first, and a trace added later anywhere among them):
    # each trace's rows together, the traces in the registry's order, a trace's tables by name
    place = {"google2011": 1, "google2019": 2, "alibaba2018": 3}
    info = tracewh.info(sample_home.root)
    overview = tracewh.report("overview", home=sample_home.root).df
    for listing in (info, overview):
        keys = list(zip(listing["trace"].to_list(), listing["table"].to_list(), strict=True))
        assert {t for t, _ in keys} == set(place)
        assert keys == sorted(keys, key=lambda k: (place[k[0]], k[1]))


def test_ingest_through_the_api(tmp_path):
    # The package's `ingest` is the API function, and stays so once the ingest module is loaded
    # (importing a submodule sets the package attribute of its name: the module is `ingestion`).
    import tracewh.ingestion

    assert tracewh.ingest is api.ingest and tracewh.ingestion.ingest is not api.ingest
    result = tracewh.ingest("google2011", SAMPLE, home=tmp_path / "h", tables=["job_events"])
    assert result.trace == "google2011" and [t.table for t in result.tables] == ["job_events"]
    assert tracewh.info(tmp_path / "h")["rows"].to_list() == [JOB_EVENT_LINES]
