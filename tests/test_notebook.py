"""Notebook display: figures, report results and ingest summaries show themselves compactly; the
default home is found as the command line finds it, else the error says how to name one."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SAMPLE_ALIBABA, clean_source

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


def test_readme_snippet_shows_its_figure_in_an_executed_notebook(sample_home, tmp_path, monkeypatch):
    """`pip install 'tracewh[plot]'` into a fresh venv, then the README's Python snippet in a notebook
    cell run by a real Jupyter kernel of that venv: the figure is in the cell's output, with no
    `%matplotlib inline`.

    How the fresh venv is honest and still fits the suite's budget (no network, a few seconds):
    tracewh goes in as a user's pip puts it, from a wheel built from this tree (`pip install` of
    the wheel into a venv made with `python -m venv`), so the kernel imports the installed
    package, not this checkout; the dependencies are not downloaded again: a .pth line in the
    fresh venv puts the locked environment's site-packages after its own (a plain path: the
    editable install's hook there is not run), and `pip check` in the fresh venv confirms that
    the wheel's declared requirements are met. Installing them from the index as well would only
    re-test pip."""
    import nbclient  # the dev extra brings nbclient, nbformat and ipykernel
    import nbformat

    locked = Path(next(p for p in sys.path if p.endswith("site-packages")))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(clean_source(tmp_path / "source"))],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("tracewh-*.whl")
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True)
    python = fresh / "bin" / "python"
    (site,) = (fresh / "lib").glob("python*/site-packages")
    (site / "locked-dependencies.pth").write_text(f"{locked}\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run([*pip, "install", "-q", "--no-deps", "--no-index", f"{wheel}[plot]"], check=True)
    subprocess.run([*pip, "check"], check=True, capture_output=True)
    # A kernel of the fresh venv's interpreter, and Jupyter's and IPython's files in tmp_path.
    spec = tmp_path / "jupyter" / "kernels" / "fresh"
    spec.mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "fresh", "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("TRACEWH_HOME", str(sample_home.root))  # the kernel inherits it
    ingest = f"tracewh.ingest('alibaba2018', {str(SAMPLE_ALIBABA)!r}, home={str(tmp_path / 'home')!r})"
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(readme_snippet()),
            nbformat.v4.new_code_cell("import tracewh; print(tracewh.__file__)"),
            nbformat.v4.new_code_cell(ingest),  # the writer's DuckDB connection, in a kernel too
        ]
    )
    nbclient.NotebookClient(nb, timeout=120, kernel_name="fresh").execute(cwd=str(tmp_path))
    figure, where, ingested = (cell.outputs for cell in nb.cells)
    # the figure's own _repr_png_ puts the image in the output, once
    assert [o["output_type"] for o in figure if "image/png" in o.get("data", {})] == ["execute_result"], (
        figure
    )
    assert Path(where[0]["text"].strip()).is_relative_to(site), where  # the wheel's, not the checkout's
    # DuckDB in a kernel refused the progress-bar setting without ipywidgets: every report and
    # ingest failed there. Now the ingest's compact summary is the cell's result.
    assert ingested[0]["data"]["text/plain"].startswith("IngestResult(alibaba2018, "), ingested
