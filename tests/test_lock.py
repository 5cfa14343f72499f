"""The lock file is the environment: it satisfies every range pyproject.toml declares, and it is
exactly what `make install` put into this environment (no package more, less or at another version).

The lock checked is $TRACEWH_LOCK when set (`make upgrade` and `make test-lowest` test a candidate
lock in a venv of its own), else the committed requirements.lock."""

from __future__ import annotations

import os
import re
import sysconfig
from importlib import metadata
from pathlib import Path

import tomllib
from conftest import REPO
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# Installed by `python -m venv` itself, not by the lock (pip-compile leaves pip out of a lock).
NOT_LOCKED = {"pip"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def _lock_path() -> Path:
    return Path(os.environ.get("TRACEWH_LOCK") or REPO / "requirements.lock").resolve()


def _pins(text: str) -> dict[str, str]:
    """name -> version of every pin that applies here (a pin's environment marker is evaluated)."""
    pins: dict[str, str] = {}
    for line in text.splitlines():
        m = PIN.match(line)
        if not m:
            continue
        name, version, marker = m.groups()
        if marker and not Requirement(f"x; {marker}").marker.evaluate():  # type: ignore[union-attr]
            continue
        pins[canonicalize_name(name)] = version
    return pins


def test_the_pin_parser_reads_the_lock_format():
    # by hand: two pins (one behind a marker that is false everywhere), a hash line, a comment
    text = (
        "duckdb==2.0.1 \\\n    --hash=sha256:ab\n    # via tracewh\n"
        "tomli==2.5.0 ; python_full_version < '3.0' \\\n    --hash=sha256:cd\n"
        "Typing_Extensions==4.16.0 \\\n"
    )
    assert _pins(text) == {"duckdb": "2.0.1", "typing-extensions": "4.16.0"}


def test_the_lock_satisfies_every_range_of_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        declared += extra
    pins = _pins(_lock_path().read_text())
    wrong = []
    for text in declared:
        req = Requirement(text)
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue
        version = pins.get(canonicalize_name(req.name))
        if version is None or not req.specifier.contains(version, prereleases=True):
            wrong.append(f"{req} -> {version or 'not in the lock'}")
    assert not wrong, f"pyproject.toml and {_lock_path().name} disagree (run `make lock`): {wrong}"


def test_this_environment_is_exactly_the_lock():
    pins = _pins(_lock_path().read_text())
    # Only what is installed in this environment's own site-packages: a package may put its
    # vendored copies on sys.path (setuptools' _vendor), and those are not installed packages.
    site = list(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]))
    installed = {
        canonicalize_name(d.metadata["Name"]): d.version
        for d in metadata.distributions(path=site)
        if canonicalize_name(d.metadata["Name"]) not in NOT_LOCKED | {"tracewh"}
    }
    assert installed == pins, {
        "installed, not locked": sorted(set(installed) - set(pins)),
        "locked, not installed": sorted(set(pins) - set(installed)),
        "other version": sorted(f"{n} {installed[n]} != {pins[n]}" for n in set(pins) & set(installed)
                                if installed[n] != pins[n]),
    }  # fmt: skip
