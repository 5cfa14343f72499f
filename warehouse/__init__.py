"""tracewh: a local warehouse for public cluster traces.

The library owns all the work (ingest, catalog, queries, reports) and returns
plain data; the command line in ``cli/`` (``tracewh.cli``) only parses arguments
and renders. The Python API (warehouse/api.py) is re-exported here, so a notebook
needs only ``import tracewh``. An API name must never be a submodule's: importing
a submodule sets the package attribute of its name (hence the ingest module is
``tracewh.ingestion``, the holdings module ``tracewh.holdings``).
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
from tracewh.session import IngestOptions, ReportOptions, Warehouse
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
