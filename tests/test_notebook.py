"""Notebook display: figures, report results and ingest summaries show themselves compactly; the
default home is found as the command line finds it, else the error says how to name one."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from conftest import REPO, SAMPLE_ALIBABA

from tracewh import api, ingestion
from tracewh.errors import CatalogError
from tracewh.home import Home


def test_ingest_result_prints_as_a_short_summary(tmp_path):
    result = ingestion.ingest(Home.resolve(tmp_path / "home"), "alibaba2018", [SAMPLE_ALIBABA])
    text = repr(result)
    # machine_meta: the lines of the sample file, counted here from the file itself
    with gzip.open(SAMPLE_ALIBABA / "machine_meta.csv.gz", "rt") as fh:
        machine_meta = sum(1 for _ in fh)
    assert f"machine_meta: 1 files, {machine_meta:,} written, 0 rejected" in text
    assert text.startswith("IngestResult(alibaba2018, ") and len(text.splitlines()) == 1 + 6
    assert len(text) < 800  # was a 4,211-character dataclass dump
    assert "<table>" in result._repr_html_() and "FileResult" not in result._repr_html_()


def test_report_result_heads_its_table_with_what_it_is(sample_home):
    r = api.report("queue", trace="google2011", home=sample_home, bucket_s=600)
    assert repr(r).splitlines()[0] == f"report queue (google2011; bucket_s=600): {len(r.rows.rows):,} rows"
    assert r._repr_html_().startswith("<p><b>report queue (google2011; bucket_s=600)")


def test_default_home_is_the_nearest_one_above_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("TRACEWH_HOME")
    project = tmp_path / "project"
    deeper = project / "notebooks" / "2019"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    # none anywhere: the working folder's, and reading it says how to name another
    assert Home.resolve().root == deeper / "tracewh-home"
    with pytest.raises(CatalogError, match=r"--home DIR \(Python: home=\.\.\.\) or \$TRACEWH_HOME"):
        api.info()
    (project / "tracewh-home").mkdir()
    (project / "tracewh-home" / "tracewh.duckdb").write_bytes(b"")
    assert Home.resolve().root == project / "tracewh-home"
    monkeypatch.setenv("TRACEWH_HOME", str(tmp_path / "elsewhere"))
    assert Home.resolve().root == tmp_path / "elsewhere"  # the variable still wins


def readme_snippet() -> str:
    """The README's Python example, as a reader would paste it into a notebook cell."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return readme.split("```python\n", 1)[1].split("```", 1)[0]


def test_readme_snippet_shows_its_figure_in_an_executed_notebook(sample_home, monkeypatch):
    nbformat = pytest.importorskip(
        "nbformat", reason="nbformat is not installed (the notebook test needs it)"
    )
    nbclient = pytest.importorskip(
        "nbclient", reason="nbclient is not installed (pip install nbclient ipykernel)"
    )
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install nbclient ipykernel)")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(readme_snippet())])
    monkeypatch.setenv("TRACEWH_HOME", str(sample_home.root))  # the kernel inherits it
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute(cwd=str(Path.cwd()))
    outputs = nb.cells[0].outputs
    # no %matplotlib inline: the figure's own _repr_png_ puts the image in the output
    assert any("image/png" in o.get("data", {}) for o in outputs), outputs
