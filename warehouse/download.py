"""`tracewh download`: plan, transfer, resume and verify the published files of a trace.

This module owns getting the raw files. ``plan`` turns a trace's ``Remote`` (declared in
``warehouse/traces``) and a selection (tables, parts, cells, shards) into the list of files
with their addresses, sizes and published digests; ``download`` transfers them in parallel
over HTTP and lands them in exactly the layout ``tracewh ingest`` reads.

Guarantees: a file is written as ``<name>.part`` and renamed to its final name only after its
size and every published digest match, so a final name always holds a verified file; an
interrupted or dropped transfer keeps its ``.part`` and the next attempt (in this run after a
back-off, or in the next run) continues it with an HTTP Range request; a file that fails
verification is deleted and named in the error. Progress goes to a ``Progress`` callback.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import random
import re
import shutil
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, urlsplit

import google_crc32c
import httpx

from tracewh.errors import DownloadError, UsageError
from tracewh.options import parse_ranges
from tracewh.traces import (
    Published,
    Remote,
    TraceSpec,
    download_options,
    downloadable,
    get_trace,
    parse_sha256sum,
    stated_bytes,
)

DEFAULT_JOBS = 4
CHUNK = 1 << 20
PART_SUFFIX = ".part"
LISTING_PAGE = 1000  # the storage JSON API's largest page
# The most a listing page or checksum file may hold: the real ones are under 1 MiB.
SMALL_LIMIT = 64 << 20
# Timeouts per network operation (not per file): a stalled read is retried like a dropped one.
READ_TIMEOUT_S = 60.0
# Tests set the read timeout: short to see a stall retried, or far past their own patience so
# that a stop which waited for a stalled read to time out fails instead of passing slowly.
READ_TIMEOUT_ENV = "TRACEWH_TEST_READ_TIMEOUT"
# Ask for the bytes as stored: no server-side compression (a mirror's gzip-on-the-fly would
# change the bytes the digests are of), and the body is read raw, never decoded.
IDENTITY = {"Accept-Encoding": "identity"}
# Cloud Storage decompresses objects stored with Content-Encoding: gzip unless the request
# accepts gzip (it then says so in this header); the published md5/crc32c are of the stored
# bytes, so such an object is asked for again with Accept-Encoding: gzip.
GCS_STORED_ENCODING = "x-goog-stored-content-encoding"
# Transient answers: worth another try after a pause.
RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Retry:
    """How hard to try: ``tries`` attempts per request or per file, pauses doubling from ``backoff``."""

    tries: int = 6
    backoff: float = 1.0
    max_wait: float = 30.0

    def wait(self, failures: int) -> float:
        # Jitter keeps parallel transfers that failed together from retrying in lock-step.
        return min(self.max_wait, self.backoff * 2 ** (failures - 1)) * random.uniform(0.8, 1.2)


DEFAULT_RETRY = Retry()


@dataclass(frozen=True)
class Selection:
    """What to fetch; None = everything. ``parts`` and ``shards`` are ranges like ``0-99,120``."""

    tables: list[str] | None = None
    parts: str | None = None  # part numbers (a trace listed by a checksum file: download_options)
    cells: list[str] | None = None  # cells (a trace with cells)
    shards: str | None = None  # shard numbers (a trace listed by a storage listing)


@dataclass(frozen=True)
class RemoteFile:
    """One published file: where it lands (relative to the download folder), its address,
    its size (None when the host does not say) and its published digests (algorithm -> hex)."""

    path: str
    url: str
    size: int | None
    digests: dict[str, str]
    table: str | None = None


@dataclass
class Plan:
    trace: str
    dest: Path
    files: list[RemoteFile]
    # Files fetched while planning and written as they are (a trace's checksum file, which the
    # ingest verifies against later).
    side_files: dict[str, bytes] = field(default_factory=dict)
    # Hosts that answered while planning: the transfer retries a failed connection to them.
    reached: set[str] = field(default_factory=set)

    def state(self, f: RemoteFile) -> tuple[str, int]:
        return _local_state(self.dest, f.path)

    def rows(self) -> list[tuple[str, int | None, int, str, str]]:
        """One row per file: path, size, bytes already here, state, digests checked."""
        out = []
        for f in self.files:
            state, have = self.state(f)
            out.append((f.path, f.size, have, state, ",".join(sorted(f.digests)) or "size only"))
        return out

    @property
    def total_bytes(self) -> int:
        return sum(f.size or 0 for f in self.files)

    def bytes_to_fetch(self) -> int:
        return _still_to_fetch(self.dest, [(f.path, f.size) for f in self.files])

    def free_bytes(self) -> int:
        return _free_bytes(self.dest)

    def check_room(self) -> None:
        """Raise when the files still to fetch do not fit on the download folder's disk."""
        _require_room(self.dest, self.bytes_to_fetch())


def _local_state(dest: Path, path: str) -> tuple[str, int]:
    """("present", bytes) for a final file, ("partial", bytes) for a .part, else ("missing", 0)."""
    final = dest / path
    if final.is_file():
        return "present", final.stat().st_size
    part = _part_path(final)
    if part.is_file():
        return "partial", part.stat().st_size
    return "missing", 0


def _still_to_fetch(dest: Path, files: list[tuple[str, int | None]]) -> int:
    """The bytes (path, size) files still need: none for a present one, the rest of a .part."""
    need = 0
    for path, size in files:
        state, have = _local_state(dest, path)
        if state != "present":
            need += max(0, (size or 0) - have)
    return need


def _free_bytes(dest: Path) -> int:
    return shutil.disk_usage(_existing_ancestor(dest)).free


def _require_room(dest: Path, need: int, qualifier: str = "") -> None:
    free = _free_bytes(dest)
    if need > free:
        raise DownloadError(
            f"not enough room in {dest}: {human_bytes(need)} still to fetch{qualifier}, "
            f"{human_bytes(free)} free"
        )


class Progress:
    """Callbacks of a download; the default does nothing. ``download`` calls them one at a
    time (under a lock) from its worker threads."""

    def begin(self, files: int, total_bytes: int, present_bytes: int) -> None: ...

    def advance(self, nbytes: int) -> None:
        """Bytes received; negative when a restart throws received bytes away."""

    def file_done(self, path: str, outcome: str) -> None:
        """``outcome`` is downloaded, present (already here, verified earlier) or failed."""

    def retry(self, path: str, failures: int, reason: str, wait: float) -> None: ...

    def end(self) -> None: ...


@dataclass
class Result:
    plan: Plan
    downloaded: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    bytes_received: int = 0
    seconds: float = 0.0


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _in_ranges(n: int, ranges: list[tuple[int, int]] | None) -> bool:
    return ranges is None or any(lo <= n <= hi for lo, hi in ranges)


def _part_path(final: Path) -> Path:
    return final.with_name(final.name + PART_SUFFIX)


def _existing_ancestor(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


# ----------------------------------------------------------------------------- HTTP


class _Retryable(Exception):
    """A transient failure (dropped connection, timeout, 5xx): try again after a pause."""


class _Stopped(Exception):
    """The run was interrupted: leave the .part as it is."""


class _Http:
    """httpx clients (one per thread: the pool is shared only within a thread) and the retry loop."""

    def __init__(
        self, retry: Retry, stop: threading.Event | None = None, reached: set[str] | None = None
    ) -> None:
        self.retry = retry
        self.stop = stop or threading.Event()
        # Hosts that have answered in this run (shared with the plan's): only a connection to one
        # of them is worth retrying.
        self.reached: set[str] = set() if reached is None else reached
        self._local = threading.local()
        self._clients: list[httpx.Client] = []
        self._reading: set[socket.socket] = set()  # connections whose body a worker is reading
        self._lock = threading.Lock()
        self.on_retry: Callable[[str, int, str, float], None] = lambda *a: None

    def client(self) -> httpx.Client:
        c = getattr(self._local, "client", None)
        if c is None:
            timeout = httpx.Timeout(float(os.environ.get(READ_TIMEOUT_ENV) or READ_TIMEOUT_S), connect=15.0)
            c = httpx.Client(timeout=timeout, follow_redirects=True, headers=IDENTITY, verify=_ssl_context())
            self._local.client = c
            with self._lock:
                self._clients.append(c)
        return c

    def close(self) -> None:
        with self._lock:
            for c in self._clients:
                c.close()
            self._clients.clear()

    @contextlib.contextmanager
    def reading(self, r: httpx.Response) -> Iterator[None]:
        """While ``r``'s body is read, ``interrupt`` can cut its connection."""
        stream = r.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            yield
            return
        with self._lock:
            self._reading.add(sock)
        try:
            # After the registration: an interrupt either saw this socket or had already set stop.
            if self.stop.is_set():
                raise _Stopped
            yield
        finally:
            with self._lock:
                self._reading.discard(sock)

    def interrupt(self) -> None:
        """Stop every request: set the flag and cut the connections being read. A worker blocked on
        a silent host would otherwise keep the command alive until the read timeout (60 s); a
        shutdown wakes its read at once (closing the socket from another thread would not)."""
        self.stop.set()
        with self._lock:
            for sock in self._reading:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def attempts(
        self, what: str, url: str, step: Callable[[], Any], done: Callable[[], int] = lambda: 0
    ) -> Any:
        """Run ``step`` until it succeeds, retrying transient failures with back-off.

        ``done`` measures progress (bytes kept): a failure after progress starts the count of
        failures again, so a long transfer over a flaky line is not given up for drops that
        each moved it forward.

        A host that has never answered in this run and cannot be connected to (no such name, no
        route, refused, connect timeout) fails at once, in one line: retrying an absent network
        only delays the same answer by a minute. Once a host has answered, a failed connection
        to it is a drop like any other and is retried.
        """
        failures = 0
        host = urlsplit(url).netloc
        while True:
            if self.stop.is_set():
                raise _Stopped
            mark = done()
            try:
                answer = step()
                self.reached.add(host)
                return answer
            except (_Retryable, httpx.TransportError) as e:
                if self.stop.is_set():  # the failure is the interrupt cutting the connection
                    raise _Stopped from e
                failures = 1 if done() > mark else failures + 1
                reason = _reason(e)
                unreachable = isinstance(e, httpx.ConnectError | httpx.ConnectTimeout)
                if unreachable and host not in self.reached:
                    raise DownloadError(
                        f"cannot reach {host} ({reason}): check the network or proxy, or use "
                        f"--mirror; `--dry-run --offline` shows the plan without the network"
                    ) from e
                self.reached.add(host)  # it answered, or connected before failing
                if failures >= self.retry.tries:
                    if unreachable:
                        raise DownloadError(
                            f"cannot reach {host} ({reason}; {failures} tries): check the network "
                            f"or proxy, or use --mirror"
                        ) from e
                    raise DownloadError(f"{what}: {reason} ({failures} tries, {url})") from e
                pause = self.retry.wait(failures)
                self.on_retry(what, failures, reason, pause)
                if self.stop.wait(pause):
                    raise _Stopped from e
            except httpx.TooManyRedirects as e:
                raise DownloadError(f"{what}: the host redirects in a loop ({url})") from e
            except (httpx.RequestError, httpx.InvalidURL) as e:  # not transient: another try fails alike
                raise DownloadError(f"{what}: {_reason(e)} ({url})") from e

    def get(self, url: str, **params: Any) -> tuple[bytes, str]:
        """A small GET (a listing, a checksum file), read whole, with retries: its body and
        Content-Type. A body past SMALL_LIMIT is refused as it arrives (a host streaming on would
        fill the memory)."""

        def step() -> tuple[bytes, str]:
            with self.client().stream("GET", url, params=params or None) as r:
                _check_status(r, url)
                body = bytearray()
                for chunk in r.iter_bytes():
                    body += chunk
                    if len(body) > SMALL_LIMIT:
                        too_much = f"more than {human_bytes(SMALL_LIMIT)}, far more than a listing"
                        raise DownloadError(f"{url}: {too_much}; refusing it")
                return bytes(body), r.headers.get("content-type", "no content type")

        return self.attempts(urlsplit(url).path.rpartition("/")[2] or url, url, step)

    def size(self, url: str) -> int | None:
        """The length of a file: HEAD, else the total of a one-byte Range GET, else unknown."""

        def step() -> int | None:
            r = self.client().head(url)
            if r.status_code not in (403, 405, 501):  # some hosts refuse HEAD but serve GET
                _check_status(r, url)
                length = _length(r.headers.get("content-length"))
                if length is not None:
                    return length
            with self.client().stream("GET", url, headers={"Range": "bytes=0-0"}) as g:
                _check_status(g, url)
                m = re.fullmatch(r"bytes \d+-\d+/(\d+)", g.headers.get("content-range", ""))
                if m:
                    return int(m.group(1))
                # A 200 is the whole file: its length, when the host says it (chunked: it does not).
                return _length(g.headers.get("content-length")) if g.status_code == 200 else None

        return self.attempts(url.rpartition("/")[2], url, step)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """httpx's default TLS settings, built once: loading the CA bundle takes ~0.1 s per client."""
    return httpx.create_ssl_context()


def _length(header: str | None) -> int | None:
    """A Content-Length header's value; None when absent or not a number."""
    return int(header) if header is not None and re.fullmatch(r"[0-9]+", header.strip()) else None


def _check_status(r: httpx.Response, url: str) -> None:
    if r.status_code < 300:
        return
    if r.status_code in RETRY_STATUS:
        raise _Retryable(f"HTTP {r.status_code} {r.reason_phrase}")
    if r.status_code == 404:
        raise DownloadError(f"{url}: not found (HTTP 404)")
    if r.status_code in (401, 403):
        raise DownloadError(f"{url}: access denied (HTTP {r.status_code}); the host refuses this address")
    raise DownloadError(f"{url}: HTTP {r.status_code} {r.reason_phrase}")


def _reason(e: Exception) -> str:
    text = str(e) or type(e).__name__
    return text if isinstance(e, _Retryable) else f"{type(e).__name__}: {text}"


# ----------------------------------------------------------------------------- planning


def base_url(remote: Remote, mirror: str | None) -> str:
    """The scheme and host to use: the official one, or the mirror (which keeps the paths)."""
    if mirror is None:
        return remote.base
    parts = urlsplit(mirror)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"--mirror {mirror!r}: expected an http:// or https:// address")
    return mirror.rstrip("/")


def plan(
    trace: str,
    dest: Path,
    selection: Selection | None = None,
    *,
    mirror: str | None = None,
    jobs: int = DEFAULT_JOBS,
    retry: Retry | None = None,
) -> Plan:
    """The files of ``trace`` the selection asks for, with sizes and digests, checked for conflicts.

    Reads the host's listing (checksum file or storage JSON API) and asks for the sizes it does
    not give; files already complete in ``dest`` are not asked about.
    """
    mod, remote, wanted = _checked(trace, dest, selection)  # before any network
    http = _Http(retry or DEFAULT_RETRY)
    try:
        base = base_url(remote, mirror)
        planner = _PLANNERS[remote.listing]
        files, side = planner(http, mod, remote, base, wanted, jobs)
        _refuse_outside(base, Path(dest), [f.path for f in files] + list(side))
        p = Plan(trace, Path(dest), files, side, http.reached)
        _fill_sizes(http, p, jobs)
    except _Stopped:
        raise KeyboardInterrupt from None
    finally:
        http.close()
    if not p.files:
        raise DownloadError(f"no {trace} files match the selection at {base}")
    return p


def _checked(trace: str, dest: Path, selection: Selection | None) -> tuple[TraceSpec, Remote, _Wanted]:
    """The trace, its remote and the selection with its ranges parsed; usage errors before any work."""
    mod = get_trace(trace)
    if mod.remote is None:
        raise UsageError(
            f"{mod.name} publishes no files tracewh knows how to download "
            f"(download covers {', '.join(downloadable())})"
        )
    sel = selection or Selection()
    if Path(dest).exists() and not Path(dest).is_dir():
        raise UsageError(f"{dest} is a file; give a folder to download into")
    _check_selection(mod, mod.remote, sel)
    parts = parse_ranges(sel.parts, "parts") if sel.parts else None
    shards = parse_ranges(sel.shards, "shards") if sel.shards else None
    return mod, mod.remote, _Wanted(sel.tables, parts, sel.cells, shards)


def _refuse_outside(base: str, dest: Path, paths: list[str]) -> None:
    """Every path a host's listing names must land inside ``dest``: a ``../`` or an absolute
    name (or one the file system cannot hold) would have the download write wherever the host
    says. Checked on the names themselves, before anything is written, so a link the user put
    inside ``dest`` still works."""
    for rel in paths:
        pure = PurePosixPath(rel)
        if not rel or "\0" in rel or pure.is_absolute() or ".." in pure.parts:
            raise DownloadError(
                f"the listing at {base} names {rel!r}, which is not a path inside {dest}; "
                f"refusing it (nothing was written)"
            )


def _check_selection(mod: TraceSpec, remote: Remote, sel: Selection) -> None:
    for t in sel.tables or []:
        if t not in mod.tables:
            raise UsageError(f"unknown {mod.name} table {t!r} (known: {', '.join(mod.tables)})")
    applies = download_options()
    for option, given, what in (
        ("--parts", sel.parts is not None, "numbered parts"),
        ("--shards", sel.shards is not None, "shards"),
        ("--cells", bool(sel.cells), "cells"),
    ):
        if given and mod.name not in applies[option]:
            raise UsageError(
                f"{mod.name} has no {what}; {option} is for {', '.join(applies[option]) or 'no trace'}"
            )
    if mod.cells is not None:
        if not sel.cells:
            raise UsageError(
                f"{mod.name}: choose cells with --cells (of {','.join(mod.cells)}); each is ~350 GB"
            )
        for c in sel.cells:
            if c not in mod.cells:
                raise UsageError(f"unknown {mod.name} cell {c!r} (cells: {', '.join(mod.cells)})")


Planned = tuple[list[RemoteFile], dict[str, bytes]]


@dataclass(frozen=True)
class _Wanted:
    """A checked selection: ranges parsed."""

    tables: list[str] | None
    parts: list[tuple[int, int]] | None
    cells: list[str] | None
    shards: list[tuple[int, int]] | None


def _plan_checksum_file(
    http: _Http, mod: TraceSpec, remote: Remote, base: str, sel: _Wanted, jobs: int
) -> Planned:
    """The checksum file first: it names every file and gives its sha256; then select from it."""
    assert remote.checksum_file is not None
    root = f"{base}/{remote.root}"
    body, _ = http.get(f"{root}/{remote.checksum_file}")
    listed = parse_sha256sum(body.decode("utf-8", errors="replace"))
    if not listed:
        raise DownloadError(f"{root}/{remote.checksum_file}: lists no files")
    wanted = set(sel.tables or mod.tables)
    files = []
    for path, sha in sorted(listed.items()):
        hit = mod.part_of(path)
        if (hit and hit[0] in wanted and _in_ranges(hit[1], sel.parts)) or path in remote.extra_files:
            table = hit[0] if hit else None
            files.append(RemoteFile(path, f"{root}/{quote(path)}", None, {"sha256": sha}, table))
    if not any(f.table for f in files):
        raise DownloadError(f"{root}/{remote.checksum_file} lists no {mod.name} parts matching the selection")
    return files, {remote.checksum_file: body}


def _plan_storage_listing(
    http: _Http, mod: TraceSpec, remote: Remote, base: str, sel: _Wanted, jobs: int
) -> Planned:
    """One storage JSON API listing per (cell, table), following page tokens."""
    pairs = [(c, t) for c in sel.cells or [] for t in (sel.tables or list(mod.tables))]

    def one(pair: tuple[str, str]) -> list[RemoteFile]:
        cell, table = pair
        bucket = remote.root.format(cell=cell)
        folder = remote.local_root.format(cell=cell)
        out = []
        for name, size, digests in _list_objects(http, base, bucket, f"{table}-"):
            hit = mod.part_of(name)
            if not hit or hit[0] != table or not _in_ranges(hit[1], sel.shards):
                continue
            out.append(
                RemoteFile(
                    f"{folder}/{name}" if folder else name,
                    f"{base}/{bucket}/{quote(name)}",
                    size,
                    digests,
                    table,
                )
            )
        return out

    with ThreadPoolExecutor(max(1, jobs)) as ex:
        files = [f for chunk in ex.map(one, pairs) for f in chunk]
    return files, {}


def _list_objects(
    http: _Http, base: str, bucket: str, prefix: str
) -> Iterator[tuple[str, int | None, dict[str, str]]]:
    """Each listed object's name, size and digests; a page that is not a storage listing (an
    HTML error page, a size that is not a number) is a DownloadError naming it."""
    url = f"{base}/storage/v1/b/{quote(bucket)}/o"
    params: dict[str, Any] = {
        "prefix": prefix,
        "maxResults": LISTING_PAGE,
        "fields": "items(name,size,md5Hash,crc32c),nextPageToken",
    }
    seen: set[str] = set()
    where = f"{url}?prefix={prefix}"
    while True:
        body, kind = http.get(url, **params)
        try:
            page = json.loads(body)
        except ValueError:  # not JSON, or not UTF-8
            page = None
        if not isinstance(page, dict) or not isinstance(page.get("items", []), list):
            raise DownloadError(f"{where}: not a storage listing (the host sent {kind}); check --mirror")
        for item in page.get("items", []):
            yield _listed_object(where, item)
        token = page.get("nextPageToken")
        if not token:
            return
        if not isinstance(token, str):
            raise DownloadError(f"{where}: not a storage listing (page token {token!r})")
        if token in seen:  # a host that hands out the same page again would loop forever
            raise DownloadError(f"{where}: the listing repeats page token {token!r}")
        seen.add(token)
        params["pageToken"] = token


def _listed_object(where: str, item: Any) -> tuple[str, int | None, dict[str, str]]:
    """One item of a listing page as name, size and digests, or a DownloadError showing it."""
    try:
        name, size = item["name"], item.get("size")
        if not isinstance(name, str) or not (size is None or re.fullmatch(r"[0-9]+", str(size))):
            raise ValueError(name)
        return name, None if size is None else int(size), _listing_digests(item)
    except (KeyError, TypeError, AttributeError, ValueError, binascii.Error):
        shown = json.dumps(item, ensure_ascii=True)
        raise DownloadError(
            f"{where}: the listing holds an object without a usable name, size or digest: "
            f"{shown[:200]}{'...' if len(shown) > 200 else ''}"
        ) from None


def _listing_digests(item: dict) -> dict[str, str]:
    """The listing's base64 md5 and crc32c (big-endian) as hex; composite objects have no md5.
    A value that is not base64 of a digest's length raises ValueError."""
    out = {}
    for key, algo, size in (("md5Hash", "md5", 16), ("crc32c", "crc32c", 4)):
        if item.get(key):
            raw = base64.b64decode(item[key], validate=True)
            if len(raw) != size:
                raise ValueError(f"{key} of {len(raw)} bytes")
            out[algo] = raw.hex()
    return out


def _plan_fixed(http: _Http, mod: TraceSpec, remote: Remote, base: str, sel: _Wanted, jobs: int) -> Planned:
    """One archive per table at a fixed address, digests from the trace module."""
    return _fixed_files(mod, remote, base, sel), {}


def _fixed_files(mod: TraceSpec, remote: Remote, base: str, sel: _Wanted) -> list[RemoteFile]:
    files = []
    for table in sel.tables or list(mod.tables):
        name = f"{table}{remote.suffix}"
        sha = remote.sha256.get(name)
        files.append(
            RemoteFile(
                name, f"{base}/{remote.root}/{quote(name)}", None, {"sha256": sha} if sha else {}, table
            )
        )
    return files


def _plan_archive(http: _Http, mod: TraceSpec, remote: Remote, base: str, sel: _Wanted, jobs: int) -> Planned:
    """One archive holding every table: fetched whole whatever --tables says (the ingest then
    reads the tables it is asked for from it)."""
    sha = remote.sha256.get(remote.archive)
    url = f"{base}/{remote.root}/{quote(remote.archive)}"
    return [RemoteFile(remote.archive, url, None, {"sha256": sha} if sha else {})], {}


_PLANNERS: dict[str, Callable[..., Planned]] = {
    "checksum-file": _plan_checksum_file,
    "storage-json-api": _plan_storage_listing,
    "fixed": _plan_fixed,
    "archive": _plan_archive,
}


# ----------------------------------------------------------------------------- offline plan

NOT_PUBLISHED = "not published"
NOT_LISTED = "not listed offline"  # the state of a file the publisher names only by its host's listing


@dataclass(frozen=True)
class OfflineFile:
    """A file of a plan made without the network: where it lands (a ``*`` pattern when only the
    host's listing names the files), its size as published ("20G") and read in bytes, or None
    for both, and what the download will verify it with."""

    path: str
    stated: str | None
    size: int | None
    verified_by: str


@dataclass
class OfflinePlan:
    """The files of a selection and their sizes as the publisher's documents state them
    (``published``), made without the network; a download re-plans from the host's listing."""

    trace: str
    dest: Path
    files: list[OfflineFile]
    published: Published

    def rows(self) -> list[tuple[str, int | None, str, int, str, str]]:
        """path, published size in bytes, as stated, bytes already here, state, digests checked."""
        out = []
        for f in self.files:
            state, have = (NOT_LISTED, 0) if "*" in f.path else _local_state(self.dest, f.path)
            out.append((f.path, f.size, f.stated or NOT_PUBLISHED, have, state, f.verified_by))
        return out

    def sized(self) -> list[OfflineFile]:
        return [f for f in self.files if f.size is not None]

    def unsized(self) -> list[OfflineFile]:
        return [f for f in self.files if f.size is None]

    def bytes_to_fetch(self) -> int:
        """What the files of published size still need, by those sizes (the others are unknown)."""
        return _still_to_fetch(self.dest, [(f.path, f.size) for f in self.sized()])

    def free_bytes(self) -> int:
        return _free_bytes(self.dest)

    def check_room(self) -> None:
        _require_room(self.dest, self.bytes_to_fetch(), " by the published sizes")


def offline_plan(trace: str, dest: Path, selection: Selection | None = None) -> OfflinePlan:
    """The plan of ``trace`` from what its publisher states (``Remote.published``), with no network:
    the files the selection names (those of a numbered layout from the published part counts;
    a ``*`` pattern per table where only the host's listing names them) and each one's published
    size, or none when no document states it."""
    mod, remote, sel = _checked(trace, dest, selection)
    pub = remote.published
    if pub is None:
        raise UsageError(f"{mod.name}: no published sizes are known, so --offline cannot plan it")
    base = remote.base
    files: list[OfflineFile] = []
    if remote.listing == "fixed":
        for f in _fixed_files(mod, remote, base, sel):
            stated = pub.sizes.get(f.path)
            size = stated_bytes(stated) if stated else None
            files.append(OfflineFile(f.path, stated, size, ",".join(sorted(f.digests)) or "size only"))
    elif remote.listing == "archive":  # one file, whatever the selection (the ingest picks the tables)
        stated = pub.sizes.get(remote.archive)
        size = stated_bytes(stated) if stated else None
        files.append(
            OfflineFile(
                remote.archive, stated, size, "sha256" if remote.sha256.get(remote.archive) else "size only"
            )
        )
    elif remote.listing == "checksum-file":
        checked = f"sha256 (from {remote.checksum_file})"
        for table in sel.tables or list(mod.tables):
            n = pub.parts.get(table)
            if n is None:  # the parts are not published: the checksum file names them
                files.append(OfflineFile(f"{table}/*", None, None, checked))
                continue
            for k in range(n):
                if _in_ranges(k, sel.parts):
                    files.append(OfflineFile(f"{table}/{pub.part_name.format(k, n)}", None, None, checked))
        files += [OfflineFile(name, pub.sizes.get(name), None, checked) for name in remote.extra_files]
    else:  # a storage listing names the shards: a pattern per cell and table
        for cell in sel.cells or []:
            folder = remote.local_root.format(cell=cell)
            for table in sel.tables or list(mod.tables):
                pattern = f"{folder}/{table}-*" if folder else f"{table}-*"
                files.append(OfflineFile(pattern, None, None, "crc32c,md5 (from the listing)"))
    if not files:
        raise UsageError(f"no {trace} files match the selection")
    return OfflinePlan(trace, Path(dest), files, pub)


def _fill_sizes(http: _Http, p: Plan, jobs: int) -> None:
    """Ask the host for the sizes the listing did not give; a file already here keeps its own."""
    unknown = [i for i, f in enumerate(p.files) if f.size is None and p.state(f)[0] != "present"]

    def one(i: int) -> tuple[int, int | None]:
        return i, http.size(p.files[i].url)

    with ThreadPoolExecutor(max(1, jobs * 2)) as ex:
        for i, size in ex.map(one, unknown):
            f = p.files[i]
            p.files[i] = replace(p.files[i], size=size)
    for i, f in enumerate(p.files):
        state, have = p.state(f)
        if state == "present" and f.size is None:
            p.files[i] = replace(f, size=have)  # verified when it landed
        elif state == "present" and f.size is not None and have != f.size:
            raise DownloadError(
                f"{p.dest / f.path}: holds {have:,} bytes but the published file has {f.size:,}; "
                f"move it away and run again"
            )


# ----------------------------------------------------------------------------- transfer


class _Digests:
    """The published digests of a file, computed while its bytes arrive."""

    def __init__(self, expected: dict[str, str]) -> None:
        self.expected = expected
        self.reset()

    def reset(self) -> None:
        self.hashes = {algo: _hasher(algo) for algo in self.expected}

    def update(self, data: bytes) -> None:
        for h in self.hashes.values():
            h.update(data)

    def feed_file(self, path: Path) -> int:
        n = 0
        with open(path, "rb") as fh:
            while chunk := fh.read(CHUNK):
                self.update(chunk)
                n += len(chunk)
        return n

    def mismatch(self) -> str | None:
        for algo, want in self.expected.items():
            got = self.hashes[algo].digest().hex()
            if got != want.lower():
                return f"{algo} mismatch (published {want}, received {got})"
        return None


def _hasher(algo: str) -> Any:
    if algo == "crc32c":
        return google_crc32c.Checksum()
    if algo == "md5":
        return hashlib.md5(usedforsecurity=False)
    return hashlib.new(algo)


class _Locked(Progress):
    def __init__(self, inner: Progress) -> None:
        self.inner = inner
        self.lock = threading.Lock()

    def begin(self, files: int, total_bytes: int, present_bytes: int) -> None:
        with self.lock:
            self.inner.begin(files, total_bytes, present_bytes)

    def advance(self, nbytes: int) -> None:
        with self.lock:
            self.inner.advance(nbytes)

    def file_done(self, path: str, outcome: str) -> None:
        with self.lock:
            self.inner.file_done(path, outcome)

    def retry(self, path: str, failures: int, reason: str, wait: float) -> None:
        with self.lock:
            self.inner.retry(path, failures, reason, wait)

    def end(self) -> None:
        with self.lock:
            self.inner.end()


@dataclass
class _Partial:
    """A .part being written: its length so far and the digests of those bytes."""

    path: Path
    have: int
    digests: _Digests
    accept_gzip: bool = False  # the host transcodes this object unless gzip is accepted


class _Transfer:
    def __init__(self, p: Plan, progress: Progress, retry: Retry) -> None:
        self.plan = p
        self.progress = progress
        self.http = _Http(retry, reached=p.reached)
        self.http.on_retry = progress.retry
        self.received = 0
        self.lock = threading.Lock()

    def one(self, f: RemoteFile) -> str:
        final = self.plan.dest / f.path
        if final.is_file():
            return "present"
        final.parent.mkdir(parents=True, exist_ok=True)
        part = _Partial(_part_path(final), 0, _Digests(f.digests))
        if part.path.is_file():
            part.have = part.path.stat().st_size
            if f.size is not None and part.have > f.size:
                self._discard(part)  # longer than the file: not a prefix of it
            else:
                part.digests.feed_file(part.path)
        resumed = part.have > 0
        while True:
            self.http.attempts(f.path, f.url, lambda: self._stream(f, part), lambda: part.have)
            problem = part.digests.mismatch()
            if f.size is not None and part.have != f.size:
                problem = f"received {part.have:,} bytes, the host lists {f.size:,}"
            if problem is None:
                with open(part.path, "rb+") as fh:
                    os.fsync(fh.fileno())
                os.replace(part.path, final)
                return "downloaded"
            self._discard(part)
            if resumed:
                # The kept prefix may be what was wrong (a file changed upstream, a bad
                # earlier run): one clean transfer from the first byte decides.
                resumed = False
                self.progress.retry(f.path, 1, f"{problem}; fetching it again from the start", 0.0)
                continue
            raise DownloadError(f"{f.path}: {problem}; the download was deleted")

    def _discard(self, part: _Partial) -> None:
        part.path.unlink(missing_ok=True)
        self.progress.advance(-part.have)
        part.have = 0
        part.digests.reset()

    def _stream(self, f: RemoteFile, part: _Partial) -> None:
        """One GET continuing ``part``; raises _Retryable/TransportError to be tried again."""
        if f.size is not None and part.have == f.size:
            return  # a complete .part from an earlier run: only verification is left
        headers = {"Range": f"bytes={part.have}-"} if part.have else {}
        if part.accept_gzip:
            headers["Accept-Encoding"] = "gzip"
        with self.http.client().stream("GET", f.url, headers=headers) as r:
            stored = r.headers.get(GCS_STORED_ENCODING, "identity")
            if stored != "identity" and not part.accept_gzip and "content-encoding" not in r.headers:
                part.accept_gzip = True  # we were sent decoded bytes: ask for the stored ones
                raise _Retryable(f"the host decodes this {stored} object; asking for the stored bytes")
            if r.status_code == 416:  # the .part is not a prefix the host recognises
                self._discard(part)
                raise _Retryable("HTTP 416: range not satisfiable, starting the file over")
            _check_status(r, f.url)
            if part.have and r.status_code == 206 and not _range_starts_at(r, part.have):
                self._discard(part)
                raise _Retryable("the host answered another range than asked, starting the file over")
            if part.have and r.status_code != 206:
                self._discard(part)  # the host ignored the Range: it sends the whole file
            with open(part.path, "ab") as fh, self.http.reading(r):
                # No chunk size: bytes are kept as they arrive, so a drop loses only what is in flight.
                for chunk in r.iter_raw():
                    if self.http.stop.is_set():
                        raise _Stopped
                    if f.size is not None and part.have + len(chunk) > f.size:
                        # A host that streams on (chunked, or a length larger than it lists) would
                        # fill the disk; bytes past the listed size cannot belong to the file.
                        self._discard(part)
                        raise DownloadError(
                            f"{f.path}: the host sent more than the {f.size:,} bytes it lists; "
                            f"the download was deleted"
                        )
                    fh.write(chunk)
                    part.have += len(chunk)
                    part.digests.update(chunk)
                    with self.lock:
                        self.received += len(chunk)
                    self.progress.advance(len(chunk))
        if f.size is not None and part.have < f.size:
            raise _Retryable(f"the host ended the file early at {part.have:,} of {f.size:,} bytes")


def _range_starts_at(r: httpx.Response, offset: int) -> bool:
    m = re.fullmatch(r"bytes (\d+)-\d+/(?:\d+|\*)", r.headers.get("content-range", ""))
    return m is not None and int(m.group(1)) == offset


def download(
    p: Plan,
    *,
    jobs: int = DEFAULT_JOBS,
    progress: Progress | None = None,
    retry: Retry | None = None,
) -> Result:
    """Fetch every file of the plan not yet here; raise DownloadError naming the files that failed.

    Files are independent: one failing does not stop the others, so a re-run has less to do.
    On KeyboardInterrupt the transfers stop at the next chunk, keep their .part, and it re-raises.
    """
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    p.check_room()
    p.dest.mkdir(parents=True, exist_ok=True)
    with _folder_lock(p.dest):
        return _download(p, jobs, _Locked(progress or Progress()), retry or DEFAULT_RETRY)


@contextlib.contextmanager
def _folder_lock(dest: Path) -> Iterator[None]:
    """One download per folder at a time: two would append to the same .part files.

    The lock is on the folder itself (flock on its descriptor), so no lock file is left behind
    and the kernel releases it when the process dies.
    """
    fd = os.open(dest, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DownloadError(f"another tracewh download is writing to {dest}; wait for it") from None
        yield
    finally:
        os.close(fd)


def _download(p: Plan, jobs: int, prog: Progress, retry: Retry) -> Result:
    result = Result(p)
    started = time.perf_counter()
    for rel, data in p.side_files.items():
        _write_if_changed(p.dest / rel, data)
    present = sum(p.state(f)[1] for f in p.files)
    prog.begin(len(p.files), max(p.total_bytes, present), present)
    t = _Transfer(p, prog, retry)
    ex = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="tracewh-download")
    try:
        futures = {ex.submit(t.one, f): f for f in p.files}
        pending = set(futures)
        while pending:
            # A short timeout keeps the main thread responsive to Ctrl-C.
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
            for fut in done:
                f = futures[fut]
                try:
                    outcome = fut.result()
                except DownloadError as e:
                    result.failed[f.path] = str(e)
                    outcome = "failed"
                except OSError as e:  # e.g. disk full, permission: this file failed, say which
                    result.failed[f.path] = f"{f.path}: {e}"
                    outcome = "failed"
                if outcome == "downloaded":
                    result.downloaded.append(f.path)
                elif outcome == "present":
                    result.present.append(f.path)
                prog.file_done(f.path, outcome)
    except BaseException:
        t.http.interrupt()
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        ex.shutdown(wait=True)
        t.http.close()
        prog.end()
    result.bytes_received = t.received
    result.seconds = time.perf_counter() - started
    if result.failed:
        names = sorted(result.failed)
        first = result.failed[names[0]]
        more = f" (and {len(names) - 1} more: {', '.join(names[1:4])}{'...' if len(names) > 4 else ''})"
        raise DownloadError(f"{len(names)} file(s) failed: {first}" + (more if len(names) > 1 else ""))
    return result


def _write_if_changed(path: Path, data: bytes) -> None:
    """Write a small file atomically, leaving it untouched when it already holds ``data``."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _part_path(path)
    tmp.write_bytes(data)
    os.replace(tmp, path)
