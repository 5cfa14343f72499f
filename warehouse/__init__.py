"""tracewh: a local warehouse for public cluster traces.

The library owns all the work (ingest, catalog, queries, reports) and returns
plain data; the command line in ``cli/`` (``tracewh.cli``) only parses arguments
and renders. The Python API (warehouse/api.py) is re-exported here, so a notebook
needs only ``import tracewh``. An API name must never be a submodule's: importing
a submodule sets the package attribute of its name (hence the ingest package is
``tracewh.ingestion``, the holdings module ``tracewh.catalog.holdings``).

The layers, each importing only those listed before it (tests/test_layout.py):
the shared base at the top (errors, home, quoting, signals, results, headers,
sqlfiles); ``traces`` (one module per trace and the registry); ``synth`` and
``download`` (per trace, from the specs); ``catalog`` (the catalog file, the
derived layer, queries, checks and holdings); ``engines`` (Spark, the DuckDB
shell); ``ingestion`` (raw files to Parquet generations) and ``reports`` (the
reports, charts, summary, provenance); then the session, the API and the demo.
"""

__version__ = "0.1.0"

from tracewh.api import (
    ReportResult,
    cite,
    connect,
    info,
    ingest,
    list_reports,
    plot,
    report,
    snapshot,
)
from tracewh.options import IngestOptions, ReportOptions
from tracewh.session import Warehouse
from tracewh.session import open_warehouse as open  # tracewh.open(home)

__all__ = [
    "IngestOptions",
    "ReportOptions",
    "ReportResult",
    "Warehouse",
    "__version__",
    "cite",
    "connect",
    "info",
    "ingest",
    "list_reports",
    "open",
    "plot",
    "report",
    "snapshot",
]
