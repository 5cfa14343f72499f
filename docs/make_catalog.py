"""Write docs/catalog.md from the catalog of a home holding the samples of the tests' shared
sample home (tests/conftest.py SAMPLES; a trace the home lacks is left out of the reference):

for t in google2011 google2019 alibaba2018; do .venv/bin/tracewh --home /tmp/sample ingest $t data/sample/$t; done
.venv/bin/python docs/make_catalog.py /tmp/sample
"""

from __future__ import annotations

import sys
from pathlib import Path

from tracewh.catalog import reference
from tracewh.home import Home

if __name__ == "__main__":
    target = Path(__file__).resolve().parent / "catalog.md"
    target.write_text(reference.markdown(Home.resolve(sys.argv[1])), encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
