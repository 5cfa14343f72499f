"""tracewh: a local warehouse for public cluster traces.

The library owns all the work (ingest, catalog, queries, reports) and returns
plain data; the command line in ``cli/`` only parses arguments and renders.
The Python API (warehouse/api.py) is re-exported here. ``ingest`` is not: the
name is the module warehouse/ingest.py until the package rename moves it (use
``warehouse.api.ingest`` meanwhile); an API name must never be a submodule's.
"""

__version__ = "0.1.0"

from warehouse.api import (
    ReportResult,
    connect,
    info,
    list_reports,
    plot,
    report,
)

__all__ = ["ReportResult", "__version__", "connect", "info", "list_reports", "plot", "report"]
