"""Provenance travels with every export (csv/json/jsonl sidecar, Parquet metadata, PNG/PDF/SVG
metadata); exports are created with the user's umask; `tracewh cite` prints BibTeX."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import pytest
from cli_helpers import run_cli
from conftest import REPO

from tracewh.reports import provenance


def _digests_on_disk(trace_dir: Path) -> dict[str, str]:
    """sha256 of every file of a bundled sample, computed here from the bytes (not from the catalog)."""
    return {
        str(p.relative_to(trace_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in trace_dir.rglob("*")
        if p.is_file() and p.name not in ("SHA256SUM", "schema.csv", "README.md")
    }


def _check(record: dict, *, report: str | None = None, params: dict | None = None) -> None:
    from tracewh import __version__

    assert record["tracewh_version"] == __version__
    on_disk = _digests_on_disk(REPO / "data" / "sample" / "google2011")
    got = {f"{f['table']}/{f['file']}": f["sha256"] for f in record["sources"]}
    assert got == on_disk  # the report read google2011 only: exactly its files, with their digests
    assert {f["trace"] for f in record["sources"]} == {"google2011"}
    assert record["sources_sha256"] == provenance.sources_digest(record["sources"])
    assert set(record["catalog"]) == {f"google2011.{t}" for t in {k.split("/")[0] for k in on_disk}}
    assert all(".gen/" in v["generation"] for v in record["catalog"].values())
    if report is not None:
        assert record["report"] == report
        assert record["params"].items() >= (params or {}).items()
        assert any(c.startswith("data: google2011 is the bundled sample") for c in record["caveats"])


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.parametrize("suffix", ["csv", "json", "jsonl", "parquet"])
def test_report_export_carries_its_provenance_and_follows_the_umask(
    tmp_path, sample_home, capsys, umask_022, suffix
):
    target = tmp_path / f"queue.{suffix}"
    code, out, _ = run_cli(
        capsys, "--home", str(sample_home.root), "report", "queue", "--trace", "google2011",
        "-p", "bucket_s=600", "-o", str(target),
    )  # fmt: skip
    assert code == 0 and out == ""
    record = provenance.read(target)
    _check(record, report="queue", params={"trace": "google2011", "bucket_s": 600})
    # 0666 minus the umask 022, as `touch` makes it (was 0600 whatever the umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    if suffix == "parquet":
        assert not provenance.sidecar(target).exists()  # inside the file, no sidecar
    else:
        assert stat.S_IMODE(provenance.sidecar(target).stat().st_mode) == 0o644
        if suffix == "csv":  # the csv itself stays plain csv: header line first, no comment
            assert target.read_text().startswith("bucket,hours,")


def test_sql_export_to_parquet_records_the_query(tmp_path, sample_home, capsys):
    target = tmp_path / "events.parquet"
    query = "SELECT count(*) AS n FROM google2011.task_events"
    code, _, _ = run_cli(capsys, "--home", str(sample_home.root), "sql", query, "-o", str(target))
    assert code == 0
    record = provenance.read(target)
    assert record["sql"] == query
    # no trace named: every ingested trace's sources
    assert {f["trace"] for f in record["sources"]} == {"google2011", "google2019", "alibaba2018"}


def _pdf_subject(data: bytes) -> str:
    """The /Subject literal string of a PDF's info dictionary, unescaped (PDF 1.7, 7.3.4.2)."""
    start = data.index(b"/Subject (") + len(b"/Subject (")
    out, depth, i = bytearray(), 0, start
    while True:
        c = data[i : i + 1]
        if c == b"\\":
            nxt = data[i + 1 : i + 2]
            out += {b"n": b"\n", b"r": b"\r", b"t": b"\t"}.get(nxt, nxt)
            i += 2
            continue
        if c == b"(":
            depth += 1
        elif c == b")":
            if depth == 0:
                return out.decode("latin-1")
            depth -= 1
        out += c
        i += 1


@pytest.mark.parametrize("suffix", ["png", "pdf", "svg"])
def test_figure_carries_its_provenance(tmp_path, sample_home, capsys, umask_022, suffix):
    target = tmp_path / f"queue.{suffix}"
    code, _, err = run_cli(
        capsys, "--home", str(sample_home.root), "report", "queue", "--trace", "google2011",
        "--plot", str(target), "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    data = target.read_bytes()
    if suffix == "png":
        record = provenance.read(target)
    elif suffix == "pdf":
        record = json.loads(_pdf_subject(data))
    else:
        import html

        text = re.search(r"<dc:description>(.*?)</dc:description>", data.decode(), re.S)
        assert text is not None
        record = json.loads(html.unescape(text.group(1)))
    _check(record, report="queue", params={"trace": "google2011", "bucket_s": 3600})
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_cite_prints_the_trace_bibtex_and_the_reproduced_paper(capsys):
    code, out, _ = run_cli(capsys, "cite", "ali-app-zipf")
    assert code == 0
    keys = re.findall(r"^@\w+\{([^,]+),", out, re.M)
    # the Alibaba trace's own entries, then the co-location paper Figure 5 comes from
    assert keys == ["guo2019limits", "alibaba:clusterdata2018", "wang2020colocation"]
    assert out.count("{") == out.count("}")  # balanced braces: the .bib parses
    code, out, _ = run_cli(capsys, "cite", "google2011")
    assert re.findall(r"^@\w+\{([^,]+),", out, re.M) == ["clusterdata:Reiss2011", "clusterdata:Wilkes2011"]
    assert "Reiss and John Wilkes and Joseph L. Hellerstein" in out


def test_cite_gives_the_entries_the_official_bibliographies_give(capsys):
    """Checked against the publishers' own text (copied here by hand, 2026-11-25): the
    google/cluster-data bibliography.bib asks users of the 2019 traces to cite
    clusterdata:Wilkes2020, clusterdata:Wilkes2020a and clusterdata:Tirmazi2020, whose author
    list and DOI are as below; the alibaba/clusterdata README links the Guo et al. paper at
    dl.acm.org doid=3326285.3329074; arXiv lists Zhu et al. as 1508.02111 (cs.DC)."""
    code, out, _ = run_cli(capsys, "cite", "google2019")
    assert code == 0
    assert re.findall(r"^@\w+\{([^,]+),", out, re.M) == [
        "clusterdata:Wilkes2020",
        "clusterdata:Wilkes2020a",
        "clusterdata:Tirmazi2020",
    ]
    authors = re.search(r"author = \{(Tirmazi.*?)\},", out, re.S)
    assert authors is not None and " ".join(authors.group(1).split()) == (
        "Tirmazi, Muhammad and Barker, Adam and Deng, Nan and Haque, Md E. and Qin, Zhijing Gene and "
        "Hand, Steven and Harchol-Balter, Mor and Wilkes, John"
    )
    assert "doi = {10.1145/3342195.3387517}" in out
    code, out, _ = run_cli(capsys, "cite", "ali-app-zipf")
    assert "doi = {10.1145/3326285.3329074}" in out
    code, out, _ = run_cli(capsys, "cite", "task-times")
    assert "eprint = {1508.02111}" in out and "archivePrefix = {arXiv}" in out
    assert "Institute of Computing Technology" not in out  # an affiliation, not where it appeared


def test_every_cited_entry_says_where_it_comes_from(capsys):
    code, out, _ = run_cli(capsys, "cite")
    entries = re.split(r"\n\n(?=%)", out.strip())
    assert len(entries) == len(re.findall(r"^@", out, re.M)) >= 7
    for entry in entries:
        lines = entry.splitlines()
        assert lines[1].startswith("% source: ") and lines[2].startswith("@"), entry
    sources = {line for line in out.splitlines() if line.startswith("% source: ")}
    assert "% source: https://github.com/google/cluster-data/blob/master/bibliography.bib" in sources


def test_cite_of_an_unknown_name_is_a_usage_error(capsys):
    code, out, err = run_cli(capsys, "cite", "google2012")
    assert code == 2 and out == "" and "google2012" in err


def test_every_report_cites_only_papers_a_trace_spec_defines():
    from tracewh import reports
    from tracewh.traces import papers

    known = papers()
    for report in reports.all_reports().values():
        assert set(report.cites) <= set(known), report.name
