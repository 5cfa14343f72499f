"""The home folder: where the catalog, the Parquet and the spill space live, and the path rules for them."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tracewh.errors import CatalogError, UsageError

CATALOG_FILE = "tracewh.duckdb"
_TIDYING = " (tidying)"  # how a tidying reader names itself in the writer lock file
_TIDY_WAIT_S = 10.0  # a writer waits this long for a tidying reader (it takes milliseconds)
DEFAULT_HOME = "tracewh-home"
# tmp/<kind>-<pid>: a process's own scratch, kept by clean_tmp while the process lives (a reader's
# DuckDB spill; the Spark session's warehouse and scratch folders).
PROCESS_TMP_KINDS = ("query", "spark")


@dataclass(frozen=True)
class Home:
    root: Path

    @classmethod
    def resolve(cls, home: str | Path | None = None) -> Home:
        """--home (``home=``), else $TRACEWH_HOME, else the nearest ``tracewh-home`` holding a
        catalog in the current folder or one above it (a notebook in a subfolder of the project
        finds the project's home, as git finds its repository), else ./tracewh-home; always
        absolute. The command line and the Python API both resolve it here."""
        chosen = home or os.environ.get("TRACEWH_HOME")
        root = Path(chosen).expanduser().resolve() if chosen else _nearest_default(Path.cwd().resolve())
        for ch, why in (
            ("\\", "DuckDB's file globs cannot match it"),
            ("?", "DuckDB reads it as URL options"),
        ):
            if ch in str(root):
                raise UsageError(
                    f"home {root}: a path with {ch!r} cannot hold a warehouse ({why}); choose another"
                )
        return cls(root)

    @property
    def catalog(self) -> Path:
        return self.root / CATALOG_FILE

    @property
    def parquet(self) -> Path:
        return self.root / "parquet"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    def process_tmp(self, kind: str) -> Path:
        """This process's own folder of ``kind`` (PROCESS_TMP_KINDS) under tmp/."""
        assert kind in PROCESS_TMP_KINDS, kind
        return self.tmp / f"{kind}-{os.getpid()}"

    @property
    def retired(self) -> Path:
        """Replaced catalogs kept while a reader may still hold them open (see catalog.publish)."""
        return self.root / ".retired"

    def table_link(self, trace: str, table: str) -> Path:
        """The stable path of a table's live data (a symlink to its current generation)."""
        return self.parquet / trace / table

    def generations(self, trace: str) -> Path:
        """Where immutable generations of each table's Parquet live; the catalog names the live one."""
        return self.parquet / trace / ".gen"

    def ensure_writable(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            probe = self.root / ".write-probe"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as e:
            raise CatalogError(f"home {self.root} is not writable: {e.strerror or e}") from e

    def clean_tmp(self) -> None:
        """Remove leftover spill folders: of ingests (only one runs at a time, under the writer lock)
        and of query or Spark processes that are gone; a running report keeps its own."""
        if not self.tmp.is_dir():
            return
        for folder in self.tmp.iterdir():
            kind, _, pid = folder.name.partition("-")
            if kind in PROCESS_TMP_KINDS and _alive(pid):
                continue
            shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.tmp.rmdir()  # only when empty: a report may be spilling there

    @contextlib.contextmanager
    def writer_lock(self) -> Iterator[None]:
        """Held for a whole ingest, so two writers never interleave; readers are not blocked.
        A reader tidying the home (``tidy_lock``) holds it for milliseconds: a writer waits it out."""
        with self._lock(tidying=False) as got:
            assert got
            yield

    @contextlib.contextmanager
    def tidy_lock(self) -> Iterator[bool]:
        """The writer lock for a command that only tidies up (mends links, deletes superseded
        generations) on its way to reading: True when taken, False when a writer holds it (the
        writer tidies itself) or the home cannot be written."""
        try:
            self.ensure_writable()
        except CatalogError:
            yield False
            return
        with self._lock(tidying=True) as got:
            yield got

    @contextlib.contextmanager
    def _lock(self, *, tidying: bool) -> Iterator[bool]:
        self.ensure_writable()
        path = self.root / ".writer.lock"
        deadline = time.monotonic() + _TIDY_WAIT_S
        with open(path, "a+") as fh:
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if tidying:
                        yield False
                        return
                    fh.seek(0)
                    holder = fh.read().strip()
                    # empty: a holder that has not written its name yet (or a tidier)
                    if (not holder or holder.endswith(_TIDYING)) and time.monotonic() < deadline:
                        time.sleep(0.01)
                        continue
                    who = holder or "another process"
                    raise CatalogError(
                        f"{self.root} is being written by {who}; wait for it to finish"
                    ) from None
            fh.seek(0)
            fh.truncate()
            fh.write(f"tracewh pid {os.getpid()}{_TIDYING if tidying else ''}")
            fh.flush()
            try:
                yield True
            finally:
                fh.truncate(0)
                fcntl.flock(fh, fcntl.LOCK_UN)


def _nearest_default(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / DEFAULT_HOME / CATALOG_FILE).is_file():
            return folder / DEFAULT_HOME
    return start / DEFAULT_HOME


# Said wherever a catalog is missing: how a home is found, and how to point at another one.
NOT_FOUND_HINT = (
    "run `tracewh ingest` or `tracewh demo` first, or point at a home: --home DIR (Python: home=...) or "
    "$TRACEWH_HOME (else the nearest tracewh-home in this folder or above is used)"
)


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
