"""Golden outputs: every report's csv, for each trace it covers, on the bundled sample (and on the
hand-built edge cases of tests/handbuilt.py), compared byte for byte with tests/golden/.

The cases are discovered from sql/reports: a NEW report has no golden file yet, and its case fails
until one is written and reviewed. To create or refresh them:

    .venv/bin/pytest tests/test_golden.py --update-goldens   # writes tests/golden/
    git diff tests/golden/                                    # review every changed number

The goldens pin what the reports answer; whether an answer is right is checked by the semantic
tests (test_report_truth.py and the others), whose expected values are worked out by hand.
"""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path

import pytest
from conftest import SAMPLES

from tracewh import reports
from tracewh.cli.render import render

GOLDEN = Path(__file__).resolve().parent / "golden"

# (case, report, trace): the sample for every report and trace it covers; the hand-built homes
# for the reports whose edge cases the sample does not have.
EDGE_CASES = {
    "censored": ("priority-share", "task-times", "transitions", "queue"),
    "gapped": ("transitions", "queue", "task-times", "overview", "resubmissions", "alloc-usage"),
    "odd_alibaba": ("ali-dag-timing", "ali-dag-anomalies", "ali-app-zipf", "ali-utilization"),
    "paper_alibaba": ("ali-interval", "ali-job-cdf", "ali-machine-dist", "ali-tables", "ali-dag-timing"),
}


def _cases() -> list[tuple[str, str, str | None]]:
    out: list[tuple[str, str, str | None]] = []
    for report in reports.all_reports().values():
        if report.needs_trace:
            out += [("sample", report.name, t) for t in report.traces if t in SAMPLES]
        else:
            out.append(("sample", report.name, None))
    for case, names in EDGE_CASES.items():
        out += [(case, n, None) for n in names]
    return out


def golden_path(case: str, name: str, trace: str | None) -> Path:
    return GOLDEN / case / (f"{name}.{trace}.csv" if trace else f"{name}.csv")


@pytest.fixture(autouse=True)
def _pinned_time_zone(monkeypatch):
    """The same text whatever the machine's zone and terminal: TZ and the width are pinned."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("COLUMNS", "200")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(("case", "name", "trace"), _cases(), ids=lambda v: str(v))
def test_report_output_matches_its_golden_file(request, sample_home, handbuilt_home, case, name, trace):
    home = sample_home if case == "sample" else handbuilt_home(case)
    # a parameter without a default takes the header's example (ali-job: job=j_1)
    rows = reports.run(home, name, trace=trace, options=reports.get(name).example_options)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        render(rows, "csv")
    path = golden_path(case, name, trace)
    if request.config.getoption("--update-goldens"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out.getvalue(), encoding="utf-8")
        return
    assert path.exists(), (
        f"no golden file {path.relative_to(GOLDEN.parent.parent)} for report {name}: write it with "
        "`.venv/bin/pytest tests/test_golden.py --update-goldens` and review it (README, Development)"
    )
    assert out.getvalue() == path.read_text(encoding="utf-8"), (
        f"{name} ({case}{', ' + trace if trace else ''}) changed; if intended, rerun with --update-goldens "
        "and review the diff of tests/golden/"
    )


def test_every_golden_file_belongs_to_a_report():
    """A golden left behind by a renamed or removed report is stale: remove it."""
    expected = {golden_path(*c) for c in _cases()}
    stale = sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.rglob("*.csv") if p not in expected)
    assert not stale, f"golden files of no report: {stale}"
