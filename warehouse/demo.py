"""The demo: ingest every bundled sample into a fresh home it created itself.

The demo starts from an empty home, so it deletes the home it is given; it
only ever deletes a home that holds its marker file (written when it created
the home), so a real warehouse given by mistake (``TRACEWH_HOME``) is never
touched.
"""

from __future__ import annotations

import shutil

from tracewh import ingestion as ingest
from tracewh import sqlfiles
from tracewh.errors import UsageError
from tracewh.home import Home
from tracewh.traces import trace_names

MARKER = ".tracewh-demo-home"


def sample_dir(trace: str):
    return sqlfiles.data_root() / "sample" / trace


def run(home: Home, progress: ingest.Progress | None = None) -> list[ingest.IngestResult]:
    """Start from an empty home (only one the demo made is ever cleared) and ingest each sample."""
    marker = home.root / MARKER
    if home.root.exists() and any(home.root.iterdir()):
        if not marker.is_file():
            raise UsageError(
                f"{home.root} is not empty and was not made by `tracewh demo`; the demo only writes "
                "into a new folder: choose another --home (e.g. --home tracewh-demo)"
            )
        with home.writer_lock():  # not while another command writes into it
            pass
        shutil.rmtree(home.root)
    home.ensure_writable()
    marker.write_text("made by `tracewh demo`; the next demo deletes this folder\n", encoding="utf-8")
    results = []
    for trace in trace_names():
        src = sample_dir(trace)
        if src.is_dir():
            results.append(ingest.ingest(home, trace, src, progress=progress))
    return results
