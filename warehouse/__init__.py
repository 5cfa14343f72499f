"""tracewh: a local warehouse for public cluster traces.

The library owns all the work (ingest, catalog, queries, reports) and returns
plain data; the command line in ``cli/`` only parses arguments and renders.
"""

__version__ = "0.1.0"
