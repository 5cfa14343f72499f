"""`tracewh summary --html`: one self-contained page with every report that applies."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
from html.parser import HTMLParser

from conftest import REPO

from tracewh.cli.main import main


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[tuple[str, str | None]] = []
        self.images: list[str] = []
        self.external: list[str] = []
        self.tags: set[str] = set()
        self.provenance = ""
        self._in_provenance = False

    def handle_data(self, data):
        if self._in_provenance:
            self.provenance += data

    def handle_endtag(self, tag):
        self._in_provenance = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        self._in_provenance = a.get("id") == "tracewh-provenance"
        if tag == "section" and "data-report" in a:
            self.sections.append((a["data-report"], a.get("data-trace")))
        if tag == "img":
            self.images.append(a["src"])
        for key in ("src", "href"):
            if a.get(key) and not (a[key].startswith("data:") or a[key].startswith("#")):
                self.external.append(a[key])


def _creates(trace: str, view: str) -> bool:
    pattern = re.compile(rf"CREATE\s+(OR\s+REPLACE\s+)?VIEW\s+{trace}\.{view}\b", re.I)
    return any(pattern.search(p.read_text()) for p in (REPO / "sql" / trace).glob("*.sql"))


def expected_sections() -> set[tuple[str, str | None]]:
    """From the report files' headers, read here independently: all three sample traces are
    ingested, so a report taking --trace appears once per trace it lists, others once."""
    everything = ("google2011", "google2019", "alibaba2018")
    out: set[tuple[str, str | None]] = set()
    for path in sorted((REPO / "sql").glob("**/reports/*.sql")):  # shared, and a trace's own
        header = {}
        for line in path.read_text().splitlines():
            if not line.startswith("-- ") or ":" not in line:
                break
            key, _, value = line[3:].partition(":")
            header[key.strip()] = value.strip()
        raw = header.get("traces", "any")
        if raw == "any":
            traces = everything
        elif raw.startswith("with "):  # the sample traces whose own folder creates every adapter named
            views = [v.strip() for v in raw.removeprefix("with ").split(",")]
            traces = tuple(t for t in everything if all(_creates(t, v) for v in views))
        else:
            traces = tuple(raw.split(","))
        takes_trace = "trace" in [p.split("=")[0].strip() for p in header.get("params", "").split(",")]
        if takes_trace:
            out |= {(header["name"], t.strip()) for t in traces}
        else:
            out.add((header["name"], None))
    return out


def test_summary_page_has_every_report_with_embedded_charts(tmp_path, sample_home, capsys):
    target = tmp_path / "summary.html"
    old_umask = os.umask(0o022)
    try:
        main(["--home", str(sample_home.root), "summary", "--html", str(target)])
    except SystemExit as e:
        assert not e.code
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # the umask's mode, not mkstemp's 0600
    err = capsys.readouterr().err
    page = Page()
    page.feed(target.read_text(encoding="utf-8"))
    skipped = {
        line.split(":")[0].removeprefix("skipped ")
        for line in err.splitlines()
        if line.startswith("skipped ")
    }
    shown = {f"{r}" + (f" --trace {t}" if t else "") for r, t in page.sections}
    want = {f"{r}" + (f" --trace {t}" if t else "") for r, t in expected_sections()}
    # every applicable report is on the page, or named on stderr (and on the page) with the reason
    assert shown | skipped == want and not (shown & skipped)
    assert len(shown) >= 20
    # charts: PNG data URIs that decode to PNG files; nothing fetched from the network
    assert len(page.images) >= 5
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert page.external == [] and "script" not in page.tags and "link" not in page.tags
    html = target.read_text(encoding="utf-8")
    # the traces named in the registry's order (they were sorted by name: alibaba2018 first)
    assert "<title>tracewh summary: google2011, google2019, alibaba2018</title>" in html
    # the published figure beside tracewh's table, and the caveats
    assert html.count('class="pub"') == len(page.sections)
    assert (
        "Table 8: critical path mean 134.97 s" in html
        and "Caveat.</b> caveat: " in html
        and "Method.</b>" in html
    )

    # the footer's provenance: version and the digest of every source file, read back as JSON
    from tracewh import __version__

    record = json.loads(page.provenance)
    assert record["tracewh_version"] == __version__ and f"tracewh {__version__}" in html
    sample = REPO / "data" / "sample" / "alibaba2018"
    ali = {f["file"]: f["sha256"] for f in record["sources"] if f["trace"] == "alibaba2018"}
    assert ali == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sample.iterdir()}
    assert record["sources_sha256"] in html and "Parameters.</b> bucket_s=" in html
