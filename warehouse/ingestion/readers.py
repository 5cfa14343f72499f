"""The SQL that reads one raw file (CSV or newline-delimited JSON) into typed rows, and the careful
second path for JSON files the fast reader refuses.

CSV: DuckDB's reader with ``store_rejects`` keeps every malformed line (line
number, reason, raw text) in a reject table. JSON: DuckDB's reader casts ints
given as strings or numbers, absent and null fields, nested structs and lists
in one fast pass; a file it refuses (a line that is not JSON, a value of the
wrong type) is re-read line by line here, the bad lines become rejects, and the
good ones are read by the same DuckDB reader, so both paths type values alike.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import itertools
import json
import os
import re
import tarfile
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from tracewh.quoting import glob_escape, quote_ident, quote_literal
from tracewh.traces import SEQ_FILE_SHIFT, Column, Table, TraceSpec

RAW_TEXT_LIMIT = 2000  # characters of a rejected line kept in meta.rejects
# Every suffix a raw file may carry, longest first: what is left is the part's name, so
# ``x.tar.gz``, ``x.csv.gz`` and ``x.csv`` are one part. ``.tar`` only for the output stems of
# homes written before ``.tar.gz`` was known here (``<table>.tar.<ingest id>.parquet``).
SOURCE_SUFFIXES = (".tar.gz", ".csv.gz", ".csv", ".json.gz", ".json", ".gz", ".tar")


def _struct_literal(columns: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{quote_literal(n)}: {quote_literal(t)}" for n, t in columns) + "}"


def select_list(table: Table, order: int, trace: TraceSpec) -> str:
    """Typed columns as stored (from ``checked``): times clamped to the trace's largest time
    (TraceSpec.max_time), plus seq and the day."""
    top = trace.max_time
    exprs = []
    for c in table.columns:
        q = quote_ident(c.name)
        exprs.append(f"{_clamped(q, top)} AS {q}" if c.is_time else q)
    # One thread per COPY keeps the line numbers in line order.
    exprs.append(f"{order}::BIGINT * {SEQ_FILE_SHIFT} + {LINE} AS seq")
    if table.partition_time:
        exprs.append(f"{_clamped(quote_ident(table.partition_time), top)} // {trace.units_per_day} AS day")
    return ", ".join(exprs)


LINE, PROBLEM, PROBLEM_COLUMN, PROBLEM_KIND = "__line", "__problem", "__column", "__kind"


def int_type(c: Column) -> str | None:
    """The integer type a column is read as (None for other types)."""
    t = (c.read_type or c.type).upper()
    return t if t in _INT_RANGES else None


def unsigned(c: Column, negative_times: bool) -> bool:
    """Whether an integer column of a CSV takes no minus sign: an unsigned type, or a time where
    the trace has no negative times (TraceSpec.negative_times)."""
    return (c.is_time and not negative_times) or (int_type(c) or "").startswith("U")


def digits_pattern(c: Column, negative_times: bool) -> str:
    """What an integer of a CSV column must look like: digits, and a minus sign where negative
    values are allowed."""
    return "[0-9]+" if unsigned(c, negative_times) else "-?[0-9]+"


def checked(table: Table, reader: str, *, text_ints: bool, negative_times: bool = False) -> str:
    """The reader's rows, typed, numbered (``__line``: the row's position among the rows read) and
    checked: ``__problem`` says why a row is refused (NULL = good), ``__column`` where.

    ``text_ints``: a CSV, whose integer columns were read as text, because DuckDB's own cast accepts
    ``1.5`` (rounded), ``1e3``, ``1_000`` and ``0x10``: only digits (and a minus sign where negative
    values are allowed; for a time only where ``negative_times``: TraceSpec.negative_times) are
    an integer here; an empty mandatory field is a reject too (in the 2019 JSON an absent field
    means its default, applied by the views).
    """
    typed, checks = [], []
    for c in table.columns:
        q = quote_ident(c.name)
        names = ", ".join(quote_ident(n) for n in (c.name, *c.aliases))
        raw = f"coalesce({names})" if c.aliases else q
        it = int_type(c)
        value = raw
        if text_ints and it:
            what = "a non-negative integer" if unsigned(c, negative_times) else "an integer"
            # a regular expression: 4x faster than ltrim() with a character set here
            digits = quote_literal(digits_pattern(c, negative_times))
            only_digits = f"regexp_full_match({raw}, {digits})"
            bad = f"{raw} IS NOT NULL AND NOT ({only_digits} AND TRY_CAST({raw} AS {it}) IS NOT NULL)"
            says = quote_literal(f" is not {what} of type {it}")
            checks.append((bad, c.name, "CAST", f"{quote_literal(c.name + ': ')} || {raw} || {says}"))
            value = f"TRY_CAST({raw} AS {it})"
        elif c.is_time and not negative_times:
            says = f"{quote_literal(c.name + ': negative time ')} || {raw}"
            checks.append((f"{raw} < 0", c.name, "NEGATIVE TIME", says))
        if (c.read_type or c.type).upper() in ("DOUBLE", "FLOAT", "REAL"):
            # Decided: NaN and infinities are refused (no trace documents them; one would silently
            # poison every mean and sum of the column).
            says = f"{quote_literal(c.name + ': not a finite number: ')} || {raw}"
            checks.append((f"NOT isfinite({raw})", c.name, "NOT FINITE", says))
        if c.mandatory and text_ints:  # in the 2019 JSON an absent field is its default (zero)
            empty = quote_literal(f"{c.name}: empty, but every row must have it")
            checks.append((f"{raw} IS NULL", c.name, "EMPTY MANDATORY", empty))
        typed.append(f"{value} AS {q}")

    def case(i: int) -> str:
        if not checks:
            return "NULL"
        picked = (ch[i] if i == 3 else quote_literal(ch[i]) for ch in checks)
        return (
            "CASE "
            + " ".join(f"WHEN {ch[0]} THEN {p}" for ch, p in zip(checks, picked, strict=True))
            + " END"
        )

    problem, column, kind = case(3), case(1), case(2)
    return (
        f"(SELECT {', '.join(typed)}, row_number() OVER () AS {LINE}, {problem} AS {PROBLEM}, "
        f"{column} AS {PROBLEM_COLUMN}, {kind} AS {PROBLEM_KIND} FROM {reader})"
    )


def _clamped(column: str, top: int | None) -> str:
    # Not least(): it ignores NULL, and an empty time must stay NULL, not become "after the window".
    if top is None:
        return f"{column}::BIGINT"
    return f"(CASE WHEN {column} >= {top} THEN {top} ELSE {column} END)::BIGINT"


def _literal_path(path: Path) -> str:
    """A file path for DuckDB's readers, which take any path as a glob: a source folder ``a?``
    beside ``ab`` would read both. Glob characters are escaped; a named pipe (the feed of
    ``streamed``) is passed as it is, because DuckDB's glob never matches one (its name, in the
    home's tmp/, is ours)."""
    return quote_literal(path if path.is_fifo() else glob_escape(path))


def csv_reader(table: Table, path: Path, rejects: str, scans: str) -> str:
    columns = _struct_literal(
        [(c.name, "VARCHAR" if int_type(c) else c.read_type or c.type) for c in table.columns]
    )
    return (
        f"read_csv({_literal_path(path)}, columns = {columns}, header = false, "
        f"auto_detect = false, delim = ',', quote = '', escape = '', new_line = '\\n', "
        f"store_rejects = true, rejects_table = {quote_literal(rejects)}, "
        f"rejects_scan = {quote_literal(scans)}, rejects_limit = 0)"
    )


def json_reader(table: Table, path: Path) -> str:
    pairs = []
    for c in table.columns:
        for name in (c.name, *c.aliases):
            pairs.append((name, c.read_type or c.type))
    return (
        f"read_json({_literal_path(path)}, columns = {_struct_literal(pairs)}, "
        f"format = 'newline_delimited', maximum_object_size = 104857600)"
    )


def csv_rejects_sql(rejects: str) -> str:
    """One row per rejected line (a line can carry several errors): line, columns, kinds, reasons, raw."""
    return (
        f"SELECT line, string_agg(DISTINCT column_name, ', ' ORDER BY column_name), "
        f"string_agg(DISTINCT error_type, ', ' ORDER BY error_type), "
        f"string_agg(error_message, '; ' ORDER BY column_idx), any_value(csv_line) "
        f"FROM {quote_ident(rejects)} GROUP BY line ORDER BY line"
    )


# ---- the careful JSON path -------------------------------------------------------------------

_INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INTEGER": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
    "UBIGINT": (0, 2**64 - 1),
}
_INT_TEXT = re.compile(r"^\s*[-+]?\d+\s*$")


@dataclass(frozen=True)
class _Type:
    kind: str  # int | float | text | bool | struct | list
    name: str = ""
    fields: tuple[tuple[str, _Type], ...] = ()
    item: _Type | None = None


def parse_type(text: str) -> _Type:
    """A DuckDB type string of the shapes the trace modules use (scalars, STRUCT(...), T[])."""
    text = text.strip()
    if text.endswith("[]"):
        return _Type("list", item=parse_type(text[:-2]))
    if text.upper().startswith("STRUCT(") and text.endswith(")"):
        body, fields, depth, start = text[7:-1], [], 0, 0
        for i, ch in enumerate(body + ","):
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                name, _, ftype = body[start:i].strip().partition(" ")
                fields.append((name, parse_type(ftype)))
                start = i + 1
        return _Type("struct", fields=tuple(fields))
    upper = text.upper()
    if upper in _INT_RANGES:
        return _Type("int", upper)
    if upper in ("DOUBLE", "FLOAT", "REAL"):
        return _Type("float", upper)
    if upper == "BOOLEAN":
        return _Type("bool", upper)
    return _Type("text", upper)


def type_problem(value: Any, t: _Type, where: str) -> str | None:
    """Why DuckDB could not read ``value`` as ``t`` (None when it can); absent and null are fine."""
    if value is None:
        return None
    if t.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int | str):
            return f"{where}: {value!r} is not an integer"
        if isinstance(value, str):
            if not _INT_TEXT.match(value):
                return f"{where}: {value!r} is not an integer"
            value = int(value)
        lo, hi = _INT_RANGES[t.name]
        return None if lo <= value <= hi else f"{where}: {value} does not fit {t.name}"
    if t.kind == "float":
        if isinstance(value, bool):
            return f"{where}: {value!r} is not a number"
        if isinstance(value, int | float):
            return None
        if isinstance(value, str):
            try:
                float(value)
                return None
            except ValueError:
                pass
        return f"{where}: {value!r} is not a number"
    if t.kind == "bool":
        ok = isinstance(value, bool) or value in (0, 1, "true", "false", "0", "1")
        return None if ok else f"{where}: {value!r} is not a boolean"
    if t.kind == "text":
        return None if isinstance(value, str | int | float | bool) else f"{where}: {value!r} is not text"
    if t.kind == "struct":
        if not isinstance(value, dict):
            return f"{where}: expected an object, got {type(value).__name__}"
        for name, ft in t.fields:
            problem = type_problem(value.get(name), ft, f"{where}.{name}")
            if problem:
                return problem
        return None
    if not isinstance(value, list):
        return f"{where}: expected a list, got {type(value).__name__}"
    assert t.item is not None
    for i, item in enumerate(value):
        problem = type_problem(item, t.item, f"{where}[{i}]")
        if problem:
            return problem
    return None


def split_json_file(table: Table, path: Path, clean: Path) -> list[tuple]:
    """Write the lines DuckDB can read to ``clean`` (plain NDJSON, same order); return the others
    as reject rows (line, column, error_type, reason, raw). Blank lines are not records."""
    types = [(c, parse_type(c.read_type or c.type)) for c in table.columns]
    rejects: list[tuple] = []
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as src, open(clean, "wb") as out:
        for line_no, raw in enumerate(src, start=1):
            problem: str | None
            try:
                text = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as e:
                # DuckDB's JSON reader fails the whole file on one such line; CSV calls it this.
                problem = f"not UTF-8: {e.reason} at byte {e.start + 1}"
                column, kind = None, "INVALID UNICODE"
            else:
                if not text.strip():
                    continue
                problem, column, kind = _line_problem(text, types)
            if problem:
                rejects.append((line_no, column, kind, problem, raw_text(raw)))
            else:
                out.write(raw if raw.endswith(b"\n") else raw + b"\n")
    return rejects


def _line_problem(text: str, types: list[tuple[Column, _Type]]) -> tuple[str | None, str | None, str]:
    try:
        record = json.loads(text)
    except ValueError as e:
        return f"not JSON: {e}", None, "NOT JSON"
    if not isinstance(record, dict):
        return f"not a JSON object: {type(record).__name__}", None, "NOT JSON"
    for column, t in types:
        for name in (column.name, *column.aliases):
            problem = type_problem(record.get(name), t, name)
            if problem:
                return problem, name, "CAST"
    return None, None, ""


# ---- raw lines: carriage returns, and the bytes of rejected lines ---------------------------


def raw_lines(path: Path, member: str | None = None) -> Iterator[bytes]:
    """The file's lines as bytes (each with its line end): plain, gzip or the CSV member of a .tar.gz."""
    if path.name.endswith(".tar.gz"):
        for src in archive_csv(path, member):
            yield from src
        return
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        yield from fh


def raw_text(raw: bytes) -> str:
    """A rejected line as text that keeps its bytes: invalid UTF-8 shows as \\xNN escapes."""
    return raw.rstrip(b"\r\n").decode("utf-8", errors="backslashreplace")[:RAW_TEXT_LIMIT]


def locate(
    path: Path, rows: set[int], lines: set[int], skipped: set[int], member: str | None = None
) -> tuple[dict, dict]:
    """One pass over the file (``member`` of an archive holding several tables): for each row number
    in ``rows`` (the n-th line that is neither blank nor in ``skipped``) its line number and raw
    text; for each line number in ``lines`` its raw text."""
    by_row: dict[int, tuple[int, str]] = {}
    by_line: dict[int, str] = {}
    k = 0
    for n, raw in enumerate(raw_lines(path, member), start=1):
        if n in lines:
            by_line[n] = raw_text(raw)
        if raw.strip(b"\r\n") and n not in skipped:
            k += 1
            if k in rows:
                by_row[k] = (n, raw_text(raw))
        if len(by_row) == len(rows) and len(by_line) == len(lines):
            break
    return by_row, by_line


# ---- archives, streamed ---------------------------------------------------------------------


class ArchiveRefused(ValueError):
    """A ``.tar.gz`` that is whole but not one table's file: no CSV member, or several."""


def archive_csv(
    path: Path, member: str | None = None, on_bytes: Callable[[int], None] | None = None
) -> Iterator[IO[bytes]]:
    """The one CSV member of a ``.tar.gz``, streamed (never extracted); then the rest of the
    archive is read to make sure there is no second one. Several CSV members are refused, not
    concatenated: a table's archive holds exactly one, and reading a second as more lines of
    the first would put its line numbers, its missing last newline or its header into the table.
    ``member``: the archive holds several tables; the file of that name (in any folder of the
    archive) is the table's, and only it is read; two of that name are refused the same way.
    ``on_bytes`` is told the archive's (compressed) bytes as they are read."""
    found: str | None = None
    with (
        open(path, "rb") as raw,
        # read 1 MB at a time (the default is 10 KB): fewer calls, to on_bytes too
        tarfile.open(
            fileobj=raw if on_bytes is None else _Counted(raw, on_bytes), mode="r|gz", bufsize=1 << 20
        ) as archive,
    ):
        for entry in archive:
            if not entry.isfile():
                continue
            wanted = entry.name.rpartition("/")[2] == member if member else entry.name.endswith(".csv")
            if not wanted:
                continue
            if found is not None:
                what = f"two files named {member}" if member else "several .csv files"
                raise ArchiveRefused(
                    f"the archive holds {what} ({found}, {entry.name}); "
                    "a table is exactly one file, so it is refused"
                )
            found = entry.name
            src = archive.extractfile(entry)
            assert src is not None
            yield src
    if found is None:
        raise ArchiveRefused(f"the archive holds no {member or '.csv file'}")


class _Counted(io.RawIOBase):
    """A file read through, telling ``on_bytes`` how many bytes each read returned."""

    def __init__(self, fh: io.BufferedIOBase, on_bytes: Callable[[int], None]) -> None:
        super().__init__()
        self.fh, self.on_bytes = fh, on_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.fh.readinto(b)
        self.on_bytes(n)
        return n


def _open_writer(fifo: Path, stop: threading.Event) -> int | None:
    """Open the pipe's write end once a reader has opened it (polling: a blocking open could wait
    forever for a reader that never comes); None when ``stop`` is set first."""
    while not stop.is_set():
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            stop.wait(0.002)
            continue
        os.set_blocking(fd, True)
        return fd
    return None


@dataclass
class LineCount:
    """Lines of a text stream, counted while it passes by (the last one may lack its line end),
    and its duplicate lines: lines identical to the line just before them (blank lines aside).

    Only neighbours are compared: the exact duplicates the traces hold (a 2011 task event written
    twice) sit next to each other in files in time order, and one comparison per line costs about
    as much as the split (a few % of the ingest; a hash of every whole row would cost a pass of
    its own and memory that grows with the file). A duplicate further away is not counted."""

    lines: int = 0
    last: int = 0x0A
    cr: bool = False
    repeated: int = 0
    previous: bytes | None = None  # the last whole line passed
    pending: bytes = b""  # the start of the line in progress

    def feed(self, data: bytes) -> None:
        if data:
            self.lines += data.count(b"\n")
            self.cr = self.cr or b"\r" in data
            self.last = data[-1]
            whole = self.pending + data if self.pending else data
            lines = whole.split(b"\n")
            self.pending = lines.pop()
            if not lines:
                return
            if self.previous is not None:
                lines.insert(0, self.previous)
            self.repeated += sum(map(bytes.__eq__, lines, itertools.islice(lines, 1, None)))
            if b"\n\n" in whole or (self.previous == b"" and lines[1:2] == [b""]):
                self.repeated -= sum(1 for a, b in itertools.pairwise(lines) if a == b == b"")  # blank
            self.previous = lines[-1]

    @property
    def total(self) -> int:
        return self.lines + (self.last != 0x0A)

    @property
    def duplicates(self) -> int:
        unfinished = self.pending != b"" and self.pending == self.previous
        return self.repeated + unfinished


class LineFixer:
    """Carriage returns on the way to DuckDB (whose strict reader fails a whole file on one): a CRLF
    line end becomes LF; a line with any other CR becomes an empty line (DuckDB skips it but still
    counts it, so line numbers stay) and a reject row (line, column, error_type, reason, raw)."""

    def __init__(self) -> None:
        self.carry = b""
        self.line = 0  # lines passed on so far
        self.rejects: list[tuple] = []

    def feed(self, data: bytes) -> bytes:
        buf = self.carry + data if self.carry else data
        end = buf.rfind(b"\n") + 1
        whole, self.carry = buf[:end], buf[end:]
        if b"\r" not in whole:  # the usual case: passed on as it is
            self.line += whole.count(b"\n")
            return whole
        return b"".join(self._fix(raw + b"\n") for raw in whole.split(b"\n")[:-1])

    def finish(self) -> bytes:
        rest, self.carry = self.carry, b""
        return self._fix(rest) if rest else b""

    def _fix(self, raw: bytes) -> bytes:
        self.line += 1
        body = raw[:-2] if raw.endswith(b"\r\n") else raw.rstrip(b"\n")
        if b"\r" in body:
            self.rejects.append(
                (self.line, None, "CARRIAGE RETURN", "a carriage return inside the line", raw_text(raw))
            )
            return b"\n"
        return body + b"\n" if raw.endswith(b"\n") else body


class Feed:
    """What ``streamed`` gives the reader: the path to read, and afterwards what the feeder found."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.failure: BaseException | None = None
        self.count = LineCount()
        self.fixer = LineFixer()

    @property
    def damage(self) -> str | None:
        return None if self.failure is None else str(self.failure)


@contextlib.contextmanager
def streamed(
    path: Path,
    fifo: Path,
    *,
    cr: bool = False,
    member: str | None = None,
    on_bytes: Callable[[int], None] | None = None,
) -> Iterator[Feed]:
    """What DuckDB reads a CSV from: the file itself when it needs nothing, else a named pipe fed
    by a thread that streams it: a ``.tar.gz`` archive's CSV member (nothing is extracted to disk),
    a ``.csv.gz`` inflated here, with every member's CRC-32 and length checked on the way (DuckDB's
    own gzip reader checks neither; this costs no second inflate), and a file with carriage
    returns (``cr``) through a LineFixer. Lines are counted on the way (``Feed.count``);
    ``on_bytes`` is told the bytes of a (plain or gzip) file as they are read from it.

    The caller checks ``Feed.failure`` (a damaged gzip or archive) after the read, whether or not
    the read failed, so the ingest never commits a part of a damaged file.
    """
    feed = Feed(path)
    if not (path.name.endswith(".gz") or cr):
        yield feed
        return
    os.mkfifo(fifo)
    feed.path = fifo
    stop = threading.Event()

    def chunks() -> Iterator[bytes]:
        if path.name.endswith(".tar.gz"):
            for src in archive_csv(path, member, on_bytes):
                while chunk := src.read(1 << 20):
                    yield chunk
            return
        with open(path, "rb") as fh:
            if not path.name.endswith(".gz"):
                while chunk := fh.read(1 << 20):
                    if on_bytes is not None:
                        on_bytes(len(chunk))
                    yield chunk
                return
            check = GzipCheck()
            while chunk := fh.read(1 << 20):
                if on_bytes is not None:
                    on_bytes(len(chunk))
                yield from check.inflate(chunk)
                if check.damage:
                    raise ValueError(check.damage)
            check.finish()
            if check.damage:
                raise ValueError(check.damage)

    def pump() -> None:
        # The write end is opened once, before anything can fail, and closed on every path: the
        # reader then always sees end of file (no second open that could wait forever).
        fd = _open_writer(fifo, stop)
        if fd is None:
            return  # the reader never came
        try:
            with open(fd, "wb") as out:
                for chunk in chunks():
                    feed.count.feed(chunk)
                    out.write(feed.fixer.feed(chunk))
                out.write(feed.fixer.finish())
        except BrokenPipeError:
            pass  # the reader stopped early (its own error is reported)
        except BaseException as e:
            feed.failure = e

    feeder = threading.Thread(target=pump, daemon=True)
    feeder.start()
    try:
        yield feed
    finally:
        stop.set()
        feeder.join()
        fifo.unlink(missing_ok=True)


class GzipCheck:
    """Inflates a gzip stream; zlib checks each member's CRC-32 and length trailer. Bytes after a
    member must be another member (DuckDB's reader refuses padding too).

    ``inflater``: a module with zlib's decompressobj and error (the fast path gives isal's
    isal_zlib, which checks the same trailers 2.5x faster; its error texts are its own)."""

    def __init__(self, inflater: Any = zlib, piece: int = 8 << 20) -> None:
        self.zlib = inflater
        self.piece = piece  # the most text one inflate step gives (memory, not speed)
        self.member = 1
        self.inflater = inflater.decompressobj(wbits=31)
        self.damage: str | None = None

    def inflate(self, data: bytes) -> Iterator[bytes]:
        """The uncompressed bytes of ``data``, in bounded pieces; sets ``damage`` on an error."""
        while data and self.damage is None:
            if self.inflater.eof:
                self.member += 1
                self.inflater = self.zlib.decompressobj(wbits=31)
            try:
                yield self.inflater.decompress(data, self.piece)
            except self.zlib.error as e:
                self.damage = f"gzip member {self.member} is corrupt ({e})"
                return
            data = self.inflater.unused_data if self.inflater.eof else self.inflater.unconsumed_tail

    def finish(self) -> None:
        if self.damage is None and not self.inflater.eof:
            self.damage = f"the gzip stream ends inside member {self.member} (truncated)"
