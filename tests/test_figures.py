"""Figures for papers: styles, human legends and titles, reference styles, integer ticks,
log-log Zipf with its fit, stacked tier usage, gaps, failing early, re-plotting an export."""

from __future__ import annotations

import math

import pytest
from cli_helpers import run_cli

from tracewh import api
from tracewh.home import Home
from tracewh.reports import plots, provenance


@pytest.fixture(scope="module")
def task_times(sample_home):
    return api.report("task-times", trace="google2011", home=sample_home)


def test_plot_on_a_report_without_a_chart_fails_before_running_it(capsys, tmp_path):
    # an empty home: running the report would fail with exit 1 (no catalog); the chart check comes first
    code, out, err = run_cli(
        capsys, "--home", str(tmp_path / "none"), "report", "overview", "--plot", "x.png"
    )
    assert (code, out) == (2, "") and "has no chart" in err
    code, out, err = run_cli(capsys, "--home", str(tmp_path / "none"), "report", "queue", "--plot", "x.txt")
    assert (code, out) == (2, "") and "suffix" in err


@pytest.mark.parametrize(
    ("size", "pixels"), [("single", (1050, 651)), ("double", (2100, 1302)), ("4x2", (1200, 600))]
)
def test_paper_sizes_set_width_height_and_dpi(tmp_path, task_times, size, pixels):
    from PIL import Image

    target = tmp_path / "tt.png"
    # single: 3.5 in x 300 dpi = 1050 px wide, height 0.62 x width (a golden-ratio panel): 651 px
    plots.write("task-times", task_times.rows, target, style=plots.Style.parse(size))
    with Image.open(target) as img:
        assert img.size == pixels
    assert plots.Style.parse("single", dpi=600, font_size=7) == plots.Style(3.5, None, 600, 7.0)


def test_legends_and_title_read_as_words(task_times):
    fig = api.plot(task_times)
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    # the drawn rows share grouping 'all' and grp 'all': only the measure names a curve
    assert labels[:2] == ["scheduling delay", "execution time"]
    title = ax.get_title()
    assert title.startswith("Scheduling delay and execution time") and "google2011" in title


def test_reference_marks_each_have_their_own_style(task_times):
    fig = api.plot(task_times)
    refs = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("paper:")]
    assert len(refs) == 2 and refs[0].get_marker() != refs[1].get_marker()


def test_counts_get_whole_number_ticks_without_offset(sample_home):
    r = api.report("machines", trace="google2011", home=sample_home)
    ax = api.plot(r).axes[0]
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert ax.yaxis.get_major_formatter().get_offset() == ""


def test_zipf_is_log_log_with_the_least_squares_line(sample_home):
    r = api.report("ali-app-zipf", home=sample_home)
    ax = api.plot(r).axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # the fit, computed here from the drawn points: least squares of log10(count) on log10(rank)
    pts = [(x, y) for ln in ax.get_lines() if ln.get_label() == "containers" for x, y in ln.get_xydata()]
    lx = [math.log10(x) for x, _ in pts]
    ly = [math.log10(y) for _, y in pts]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    slope = sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)
    c = 10 ** (my - slope * mx)
    fit = next(ln for ln in ax.get_lines() if ln.get_label().startswith("fit from rank 1"))
    for x, y in fit.get_xydata():
        assert y == pytest.approx(c * x**slope, rel=2e-3)  # the report rounds alpha and C to 4 decimals


def test_tier_usage_stacks_cpu_and_memory_by_tier(sample_home):
    r = api.report("tier-usage", trace="google2019", home=sample_home)
    fig = api.plot(r)
    cpu, memory = fig.axes[:2]
    assert cpu.get_title(loc="left") == "cpu used" and memory.get_title(loc="left") == "memory used"
    tiers = sorted({row[r.rows.columns.index("tier")] for row in r.rows.rows})
    assert sorted(cpu.get_legend_handles_labels()[1]) == tiers
    assert len(cpu.collections) == len(tiers)  # one stacked layer per tier


def test_a_known_step_breaks_two_far_points():
    # tier-usage is hourly: hours 0 and 743 are two islands, not a line across 30 days
    xs, ys = plots.with_gaps([(0, 1.0), (743, 2.0)], step=1)
    assert xs == [0, 371.5, 743] and ys[0] == 1.0 and math.isnan(ys[1]) and ys[2] == 2.0


@pytest.mark.parametrize("suffix", ["csv", "parquet", "json"])
def test_plot_redraws_an_export_without_running_the_query(tmp_path, sample_home: Home, capsys, suffix):
    export = tmp_path / f"queue.{suffix}"
    code, _, _ = run_cli(
        capsys, "--home", str(sample_home.root), "report", "queue", "--trace", "google2011",
        "-p", "bucket_s=600", "-o", str(export),
    )  # fmt: skip
    assert code == 0
    figure = tmp_path / "queue.svg"
    # no --home: the export and its provenance are all it reads
    code, out, err = run_cli(capsys, "plot", str(export), "-o", str(figure), "--plot-size", "single")
    assert code == 0 and out == "" and "plot written" in err
    assert figure.read_text().lstrip().startswith("<?xml")
    name, rows, record = plots.from_export(export)
    again = api.report("queue", trace="google2011", home=sample_home, bucket_s=600)
    assert name == "queue" and rows.context["params"] == {"bucket_s": 600}
    drawn = {ln.get_label(): list(ln.get_ydata()) for ln in plots.figure(name, rows).axes[0].get_lines()}
    direct = {ln.get_label(): list(ln.get_ydata()) for ln in api.plot(again).axes[0].get_lines()}
    assert drawn.keys() == direct.keys() and all(
        all((a == b) or (a != a and b != b) for a, b in zip(drawn[k], direct[k], strict=True)) for k in drawn
    )
    assert record["report"] == "queue"


def test_figures_show_themselves_in_a_notebook(task_times):
    fig = api.plot(task_times)
    assert fig._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    assert provenance.KEY == "tracewh.provenance"
