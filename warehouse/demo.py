"""The demo: ingest every bundled sample into a fresh home."""

from __future__ import annotations

import shutil

from warehouse import ingest, sqlfiles
from warehouse.errors import TracewhError
from warehouse.home import CATALOG_FILE, Home
from warehouse.traces import TRACE_NAMES


def sample_dir(trace: str):
    return sqlfiles.data_root() / "sample" / trace


def run(home: Home, progress: ingest.Progress | None = None) -> list[ingest.IngestResult]:
    """Start from an empty home (only a tracewh home is ever cleared) and ingest each sample."""
    if home.root.exists() and any(home.root.iterdir()):
        if not (home.root / CATALOG_FILE).exists():
            raise TracewhError(
                f"{home.root} exists and is not a tracewh home; choose another --home for the demo"
            )
        shutil.rmtree(home.root)
    results = []
    for trace in TRACE_NAMES:
        src = sample_dir(trace)
        if src.is_dir():
            results.append(ingest.ingest(home, trace, src, progress=progress))
    return results
