"""The one thing pyproject.toml cannot say: the package list, found from the folders.

One import name, `tracewh`, is mapped onto the repository's folders: warehouse/ is the package
itself, cli/ its command line, sql/ and data/ the shipped SQL and sample (found by
importlib.resources in an editable install and in a wheel alike). Nothing else is added to the
user's environment (tests/test_packaging.py lists the wheel's top-level names). Every folder under
them is a package: setuptools warns about data in a folder that is not one and leaves an unlisted
sub-package out of the wheel, so a new folder (a trace's SQL, its sample) is found, never listed.
"""

from pathlib import Path

from setuptools import setup

PACKAGE_DIR = {"tracewh": "warehouse", "tracewh.cli": "cli", "tracewh.sql": "sql", "tracewh.data": "data"}


def packages(root: Path = Path(__file__).resolve().parent) -> list[str]:
    out = []
    for name, folder in PACKAGE_DIR.items():
        top = root / folder
        for path in [top, *sorted(p for p in top.rglob("*") if p.is_dir())]:
            parts = path.relative_to(top).parts
            if any(p == "__pycache__" or p.startswith(".") or p.endswith(".egg-info") for p in parts):
                continue
            out.append(".".join([name, *parts]))
    return out


setup(packages=packages(), package_dir=PACKAGE_DIR)
