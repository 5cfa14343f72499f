"""The coverage table (sql/reports/COVERAGE.md) and the reports' `-- reproduces:` headers agree, so a
report cannot claim a figure it does not draw (as task-times once claimed Figures 6-7) and a result of
the two seed papers cannot lose its report unnoticed."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from tracewh import reports

TABLE = REPO / "sql" / "reports" / "COVERAGE.md"
SEEDS = REPO.parent / "shared" / "seeds"
# Where a header names its source: every claim after a marker belongs to that paper.
PAPERS = {
    '"10 Observations on Google Cluster Trace"': "10obs",
    "Alibaba co-location paper": "alibaba",
    "Borg 2020 paper": "borg2020",
    "2020 Borg paper": "borg2020",
}
ITEM = re.compile(r"\b(Figure|Table|Observation)s?\s+(\d+(?:\s*(?:-|,|and)\s*\d+)*)")
# The numbered results of the two seed papers (read off the papers; checked against them below).
RESULTS = {
    "10obs": {f"Figure {i}" for i in range(1, 12)} | {f"Observation {i}" for i in range(1, 11)},
    "alibaba": {f"Figure {i}" for i in range(1, 10)} | {f"Table {i}" for i in range(1, 9)},
}


def claims_of(text: str) -> set[tuple[str, str]]:
    """(paper, 'Figure 6') for every figure, table or observation a header line names."""
    marks = sorted((m.start(), paper) for marker, paper in PAPERS.items() for m in re.finditer(marker, text))
    out = set()
    for m in ITEM.finditer(text):
        paper = next((p for pos, p in reversed(marks) if pos < m.start()), None)
        assert paper is not None, f"a claim without its paper: {text!r}"
        numbers: list[int] = []
        for part in re.split(r"\s*(?:,|and)\s*", m.group(2)):
            lo, _, hi = part.partition("-")
            numbers += range(int(lo), int(hi or lo) + 1)
        out |= {(paper, f"{m.group(1)} {n}") for n in numbers}
    return out


def table_rows() -> dict[tuple[str, str], tuple[str | None, str]]:
    rows = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("paper", "---") or set(cells[0]) <= {"-"}:
            continue
        paper, result, _what, report, how = cells
        assert (paper, result) not in rows, f"{paper} {result} is listed twice"
        rows[(paper, result)] = (None if report == "—" else report, how)
    return rows


def header_claims() -> dict[tuple[str, str], set[str]]:
    out: dict[tuple[str, str], set[str]] = {}
    for r in reports.all_reports().values():
        for claim in claims_of(r.reproduces):
            out.setdefault(claim, set()).add(r.name)
    return out


def test_the_claim_parser_reads_ranges_lists_and_papers():
    text = (
        '"10 Observations on Google Cluster Trace", Figures 6-8 and Observation 10; methods 3-2 and 3-3; '
        "Alibaba co-location paper, Tables 2, 4, 5, 6: 4,201,014 jobs"
    )
    assert claims_of(text) == {
        ("10obs", "Figure 6"),
        ("10obs", "Figure 7"),
        ("10obs", "Figure 8"),
        ("10obs", "Observation 10"),
        ("alibaba", "Table 2"),
        ("alibaba", "Table 4"),
        ("alibaba", "Table 5"),
        ("alibaba", "Table 6"),
    }


def test_every_claimed_result_has_exactly_one_report():
    twice = {claim: names for claim, names in header_claims().items() if len(names) > 1}
    assert twice == {}


def test_every_claim_of_a_report_is_in_the_table_with_that_report():
    table = table_rows()
    for claim, names in header_claims().items():
        assert claim in table, f"{claim} claimed by {names} is not in COVERAGE.md"
        assert table[claim][0] in names, f"{claim}: COVERAGE.md says {table[claim][0]}, headers say {names}"


def test_every_figure_and_table_in_the_table_is_claimed_by_its_report():
    claims = header_claims()
    known = set(reports.all_reports())
    for (paper, result), (report, how) in table_rows().items():
        if report is None:
            assert how, f"{paper} {result}: no report and no reason"
            continue
        assert report in known, f"{paper} {result}: no report named {report}"
        if result.startswith(("Figure", "Table")):
            assert report in claims.get((paper, result), set()), f"{report} does not claim {paper} {result}"


def test_every_result_of_both_seed_papers_is_in_the_table():
    table = table_rows()
    for paper, results in RESULTS.items():
        missing = {r for r in results if (paper, r) not in table}
        assert missing == set(), f"{paper}: {sorted(missing)}"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed papers are in ../shared/seeds")
def test_the_result_lists_match_the_seed_papers():
    """Every 'Figure N', 'Table N' and 'Observation N' the papers print (圖N and 表N in the Chinese text:
    Table 8 has no English caption) is in RESULTS, and no more."""
    texts = {
        "10obs": (SEEDS / "paper_10_observations_google2011.txt").read_text(encoding="utf-8"),
        "alibaba": (SEEDS / "paper_alibaba2018_colocation_zh.txt").read_text(encoding="utf-8"),
    }
    for paper, text in texts.items():
        found = {f"{k} {n}" for k, n in re.findall(r"\b(Figure|Table|Observation) (\d+)", text)}
        found |= {f"Figure {n}" for n in re.findall(r"圖(\d+)", text)}
        found |= {f"Table {n}" for n in re.findall(r"表(\d+)", text)}
        assert found == RESULTS[paper]
