"""A real HTTP server on 127.0.0.1 that serves files in the layouts of the traces' public hosts.

It answers GET and HEAD with Range support (206 / 416), and the Cloud Storage JSON API object
listing (``/storage/v1/b/<bucket>/o?prefix=...``) with small pages and page tokens, giving each
object's size, base64 md5Hash and base64 big-endian crc32c as Cloud Storage does. It counts the
body bytes it serves per path, and misbehaves on demand: drop the connection after N bytes of a
body, answer an HTTP status (503), serve wrong bytes, ignore Range, or trickle slowly; and it can be
hostile: stream on past a file's end (chunked, or under a Content-Length larger than the file),
redirect in a loop, answer any body (HTML for a listing, a listing of its own making) or reason.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import itertools
import json
import re
import struct
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import google_crc32c


@dataclass
class Fault:
    """What to do instead of a normal answer, for one GET of a path."""

    drop_after: int | None = None  # send the headers and this many body bytes, then hang up
    status: int | None = None  # answer this status with an empty body
    corrupt: bool = False  # serve the right length of wrong bytes
    ignore_range: bool = False  # answer 200 with the whole file even when asked for a range
    stall: float = 0.0  # with drop_after: go silent this long before hanging up
    method: str = "GET"  # the request this fault answers (GET or HEAD)
    overrun: int = 0  # after the body, send this many more bytes (until the client hangs up)
    chunked: bool = False  # Transfer-Encoding: chunked, so no Content-Length at all
    body: bytes | None = None  # answer 200 with this body (and content_type) instead
    content_type: str = "application/json"
    redirect: str | None = None  # answer 302 to this path (the same path: a redirect loop)
    reason: str | None = None  # with status: this reason phrase instead of the standard one


class TraceServer:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}  # URL path without the leading slash -> body
        self.faults: dict[str, list[Fault]] = defaultdict(list)
        self.served: Counter[str] = Counter()  # body bytes sent per path
        self.requests: list[tuple[str, str, str | None]] = []  # (method, path, Range header)
        self.page_size = 2  # objects per listing page: small, so every listing has several
        self.no_md5: set[str] = set()  # objects listed without md5Hash (composite objects)
        # Objects stored with Content-Encoding: gzip, which Cloud Storage serves decompressed
        # (no Range, no Content-Encoding, x-goog-stored-content-encoding: gzip) unless the
        # request accepts gzip.
        self.transcoded: set[str] = set()
        self.trickle: float = 0.0  # seconds to sleep between 16 KiB pieces of a body
        # A body stops after this many bytes until `released` is set: a test can act while a
        # transfer is surely under way, whatever the machine's load.
        self.hold_after: int | None = None
        self.released = threading.Event()
        self.lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> TraceServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def reset_counts(self) -> None:
        with self.lock:
            self.served.clear()
            self.requests.clear()

    def gets(self, path: str) -> list[str | None]:
        """The Range headers of the GETs of ``path``, in order (None = no Range)."""
        return [r for m, p, r in self.requests if m == "GET" and p == path]

    def listing(self, bucket: str, query: dict[str, list[str]]) -> dict:
        prefix = query.get("prefix", [""])[0]
        names = sorted(
            p.removeprefix(f"{bucket}/")
            for p in self.files
            if p.startswith(f"{bucket}/") and p.removeprefix(f"{bucket}/").startswith(prefix)
        )
        start = int(base64.urlsafe_b64decode(query["pageToken"][0])) if "pageToken" in query else 0
        size = min(self.page_size, int(query.get("maxResults", ["1000"])[0]))
        page = names[start : start + size]
        items = []
        for name in page:
            body = self.files[f"{bucket}/{name}"]
            item = {
                "kind": "storage#object",
                "name": name,
                "bucket": bucket,
                "size": str(len(body)),
                "crc32c": base64.b64encode(struct.pack(">I", google_crc32c.value(body))).decode(),
            }
            if f"{bucket}/{name}" not in self.no_md5:
                item["md5Hash"] = base64.b64encode(hashlib.md5(body).digest()).decode()
            items.append(item)
        out: dict = {"kind": "storage#objects", "items": items}
        if start + size < len(names):
            out["nextPageToken"] = base64.urlsafe_b64encode(str(start + size).encode()).decode()
        return out


def _handler(server: TraceServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as separate writes

        def log_message(self, format: str, *args: object) -> None:  # quiet test output
            pass

        def do_HEAD(self) -> None:
            self._answer(head=True)

        def do_GET(self) -> None:
            self._answer(head=False)

        def _answer(self, head: bool) -> None:
            parts = urlsplit(self.path)
            path = unquote(parts.path).lstrip("/")
            rng = self.headers.get("Range")
            with server.lock:
                server.requests.append(("HEAD" if head else "GET", path, rng))
            fault = self._take_fault(path, "HEAD" if head else "GET")
            if fault and fault.redirect is not None:
                return self._status(302, {"Location": f"/{fault.redirect}"})
            if fault and fault.status:
                return self._status(fault.status, reason=fault.reason)
            if fault and fault.body is not None:
                return self._send(200, fault.body, {"Content-Type": fault.content_type}, path)
            m = re.fullmatch(r"storage/v1/b/([^/]+)/o", path)
            if m and not head:
                body = json.dumps(server.listing(m.group(1), parse_qs(parts.query))).encode()
                return self._send(200, body, {"Content-Type": "application/json"}, path)
            if path not in server.files:
                return self._status(404)
            data = server.files[path]
            if fault and fault.corrupt:
                data = bytes(b ^ 0x5A for b in data)
            headers = {"Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"}
            if path in server.transcoded:
                if "gzip" not in self.headers.get("Accept-Encoding", ""):
                    data = gzip.decompress(data)
                    rng = None
                    headers = {"x-goog-stored-content-encoding": "gzip"}
                else:
                    headers["Content-Encoding"] = "gzip"
            start, end, code = 0, len(data) - 1, 200
            rm = re.fullmatch(r"bytes=(\d+)-(\d*)", rng or "")
            if rm and not (fault and fault.ignore_range):
                start = int(rm.group(1))
                end = min(int(rm.group(2)) if rm.group(2) else len(data) - 1, len(data) - 1)
                if start >= len(data):
                    return self._status(416, {"Content-Range": f"bytes */{len(data)}"})
                code = 206
            if code == 206:
                headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
            body = data[start : end + 1]
            if head:
                return self._send(code, b"", {**headers, "Content-Length": str(len(body))}, path, head=True)
            overrun = fault.overrun if fault else 0
            if fault and fault.chunked:
                headers["Transfer-Encoding"] = "chunked"
            elif overrun:
                headers["Content-Length"] = str(len(body) + overrun)  # the lie the body keeps
            self._send(
                code,
                body,
                headers,
                path,
                drop_after=fault.drop_after if fault else None,
                stall=fault.stall if fault else 0.0,
                overrun=overrun,
            )

        def _take_fault(self, path: str, method: str) -> Fault | None:
            with server.lock:
                queue = server.faults.get(path, [])
                for i, fault in enumerate(queue):
                    if fault.method == method:
                        return queue.pop(i)
                return None

        def _status(self, code: int, headers: dict | None = None, reason: str | None = None) -> None:
            self._send(code, b"", headers or {}, None, reason=reason)

        def _send(
            self,
            code: int,
            body: bytes,
            headers: dict,
            path: str | None,
            head: bool = False,
            drop_after: int | None = None,
            stall: float = 0.0,
            overrun: int = 0,
            reason: str | None = None,
        ) -> None:
            self.send_response(code, reason)
            for k, v in headers.items():
                self.send_header(k, v)
            chunked = headers.get("Transfer-Encoding") == "chunked"
            if "Content-Length" not in headers and not chunked:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if head:
                return
            out = body if drop_after is None else body[:drop_after]
            pieces = [out[i : i + 16384] for i in range(0, len(out), 16384)]
            junk = (b"\0" * min(16384, overrun - i) for i in range(0, overrun, 16384))
            try:
                for n, piece in enumerate(itertools.chain(pieces, junk)):
                    if server.hold_after is not None and n * 16384 >= server.hold_after:
                        server.released.wait(timeout=300)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                    self.wfile.flush()
                    if path:
                        with server.lock:
                            server.served[path] += len(piece)
                    if server.trickle:
                        time.sleep(server.trickle)
                if chunked:
                    self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading: fine
                self.close_connection = True
                return
            if drop_after is not None:
                time.sleep(stall)
                self.close_connection = True  # hang up mid-body: the client sees a short read

    return Handler
