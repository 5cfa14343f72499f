"""The strict fast path of a CSV ingest: one file converted by pyarrow in one pass over blocks of
its lines, or refused as a whole, and then converted by the exact path (ingestion's DuckDB COPY with its
checks), which records every reject with its line.

Strict by construction: the file is accepted only when every line is exactly valid in a narrow
spelling of its values, one the exact path reads to the same value:

- integers are digits (a minus sign only where the exact path allows one), cast without rounding
  and refused on overflow; DuckDB's own cast would also take ``1.5``, ``1e3``, ``1_000``,
  ``0x10``, ``+8`` and `` 9`` (duckdb issue #25824), which is why the exact path checks them too;
- floats are what pyarrow's string-to-double cast takes (no blank, no ``_``, no hex; ``+.5``,
  ``1.``, ``1e+5`` are taken: DuckDB's CSV reader reads each of its spellings to the same double,
  pinned by tests/test_fastpath.py) and finite; booleans are ``0``, ``1``, ``true``, ``false``;
  text is valid UTF-8 kept as it is; an empty field is NULL, and refused where the column is
  mandatory;
- a line has exactly the table's columns; a blank line, a carriage return, a NUL byte, a byte
  order mark, a damaged or truncated gzip stream are refused (the exact path handles them).

Anything else raises ``Refused``; the caller deletes what was written and runs the exact path on
the file. The Parquet written is the exact path's: the same columns, types, rows in source order,
``seq`` (part order * 2^32 + line), times clamped to the trace's largest (TraceSpec.max_time), and
for a day-partitioned table
one ``day=<d>/<stem>_0.parquet`` per day the file touches (a part inside one day is one file).

Why pyarrow and not DuckDB: DuckDB's CSV reader has no strict integer option, so the exact path
reads integers as text and checks them in SQL (measured in bench/RESULTS.md, "Ingest: the strict
fast path"); and pyarrow parses text handed to it in blocks, cut here from the file as it is read:
the bytes consumed are reported as they are read, every gzip member's CRC-32 is checked in the
same inflate, and each block is parsed straight to its types where pyarrow's parse is strict
(_Parser: the ``x`` of a hex integer, the one lenient spelling it reads in a block without
blanks, is found by counting every ``x`` of the file against those of its text fields: _Exes),
as text checked and cast where it is not. ``TRACEWH_INGEST_PATH=exact`` turns the fast path off
(tests run both paths).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from isal import isal_zlib

from tracewh import parquet_settings
from tracewh.ingestion import readers
from tracewh.traces import SEQ_FILE_SHIFT, Column, Table, TraceSpec

if TYPE_CHECKING:
    from tracewh.ingestion import FileResult

MODE_VARIABLE = "TRACEWH_INGEST_PATH"
MODES = ("auto", "exact")
# The Parquet writer's settings (codec, level, row group size, encodings) are the exact path's:
# tracewh.parquet_settings. Polars' and DuckDB's writers of the same Arrow table cost 1.3-3.1 CPU s
# where pyarrow's costs 1.2-1.4 (bench/RESULTS.md, "Ingest: the converting phase against the gzip
# floor").
BLOCK = 1 << 22  # text parsed at a time (cut at a line end)
PIECE = 1 << 20  # text inflated at a time: a piece that stays in the cache (_text)
READ_CHUNK = 1 << 18  # gzip bytes read (and reported) at a time: ~0.9 MB of text

_ARROW = {
    "TINYINT": pa.int8(),
    "SMALLINT": pa.int16(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "UBIGINT": pa.uint64(),
    "DOUBLE": pa.float64(),
    "FLOAT": pa.float32(),
    "REAL": pa.float32(),
    "BOOLEAN": pa.bool_(),
    "VARCHAR": pa.string(),
}
_NUMPY = {pa.int64(): np.int64, pa.uint64(): np.uint64, pa.int32(): np.int32, pa.int16(): np.int16}


class Refused(Exception):
    """The file is not exactly valid in the fast path's spellings: the exact path converts it."""


def mode() -> str:
    """``auto`` (the fast path, falling back per file) or ``exact`` (the exact path only)."""
    value = os.environ.get(MODE_VARIABLE, "auto").strip().lower() or "auto"
    if value not in MODES:
        from tracewh.errors import UsageError

        raise UsageError(f"{MODE_VARIABLE}={value!r}: expected one of {', '.join(MODES)}")
    return value


def takes(trace: TraceSpec, table: Table, name: str) -> bool:
    """Whether the fast path tries this file: a plain or gzip'd CSV of a table whose column types
    it knows. Archives (``.tar.gz``) stay with the exact path, which owns their member rules."""
    return (
        trace.reader == "csv"
        and name.endswith((".csv", ".csv.gz"))
        and all((c.read_type or c.type).upper() in _ARROW and c.type.upper() in _ARROW for c in table.columns)
        and mode() == "auto"
    )


def convert(
    trace: TraceSpec,
    table: Table,
    r: FileResult,
    out: Path,
    stem: str,
    order: int,
    on_bytes: Callable[[int], None],
    held: int | None = None,
) -> bool:
    """Convert ``r`` into ``out``; True when done (``r.rows_written`` set, no rejects), False when
    refused (nothing of it left in ``out``). ``held``: the bytes of rows this worker may hold
    (parquet_settings.fast_path_bytes; None: no bound)."""
    written: list[Path] = []
    exes = _Exes()
    try:
        r.rows_written, repeats = _write(
            trace, table, _text(r.path, on_bytes, exes), exes, out, stem, order, written, held
        )
    except (Refused, pa.ArrowException, ValueError, OSError):
        for path in written:
            path.unlink(missing_ok=True)
            if path.parent != out:
                with contextlib.suppress(OSError):
                    path.parent.rmdir()  # a day folder this file alone made
        r.rows_written = 0
        return False
    r.rejects = []
    r.duplicate_lines = repeats
    return True


def release() -> None:
    """Hand the memory Arrow's allocator keeps after the workers' row groups are written back to
    the system (mimalloc keeps the pages a finished thread freed until they are collected)."""
    pa.default_memory_pool().release_unused()


def _write(
    trace: TraceSpec,
    table: Table,
    blocks: Iterator[_Block],
    exes: _Exes,
    out: Path,
    stem: str,
    order: int,
    written: list[Path],
    held: int | None,
) -> tuple[int, int]:
    """The rows written and the duplicate lines among them (readers.LineCount's count)."""
    schema = pa.schema([(c.name, _ARROW[c.type.upper()]) for c in table.columns] + [("seq", pa.int64())])
    # Times and seq rise through a part: delta-coded they take a third of DuckDB's plain pages
    # (the whole Parquet ~0.8x the exact path's on a real task_events part).
    delta = [c.name for c in table.columns if c.is_time] + ["seq"]
    rows = parquet_settings.fast_row_group(held, row_bytes(schema))
    sink = _Sink(out, stem, schema, written, delta, rows, partitioned=table.partition_time is not None)
    try:
        return _rows(trace, table, blocks, exes, sink, order)
    finally:
        sink.close()


def _rows(
    trace: TraceSpec, table: Table, blocks: Iterator[_Block], exes: _Exes, sink: _Sink, order: int
) -> tuple[int, int]:
    names = table.column_names
    schema = sink.schema
    parser, neighbours = _tools(trace.negative_times, table.columns)
    line = repeats = 0
    base = order * SEQ_FILE_SHIFT
    previous: _Block | None = None
    for block in blocks:
        batch = parser.parse(block)
        n = batch.num_rows
        if exes.text < exes.file:
            exes.text += sum(exes.count(_field_bytes(batch.column(i))) for i in parser.text_columns)
        repeats += neighbours.count(batch, block)
        if previous is not None:
            repeats += previous.last_line() == block.first_line()
        previous = block
        arrays = [_typed(trace, c, batch.column(i)) for i, c in enumerate(table.columns)]
        arrays.append(_ints(np.arange(base + line + 1, base + line + n + 1, dtype=np.int64), pa.int64()))
        line += n
        typed = pa.RecordBatch.from_arrays(arrays, schema=schema)
        if table.partition_time is None:
            sink.add(None, typed)
            continue
        days = _days(typed.column(names.index(table.partition_time)), trace.units_per_day)
        if days.null_count:
            raise Refused("an empty partition time")
        lo, hi = pc.min_max(days).values()
        if lo.as_py() == hi.as_py():
            sink.add(lo.as_py(), typed)
        else:  # the part crosses midnight: its rows go to each day's file, still in source order
            for day in pc.unique(days).to_pylist():
                sink.add(day, typed.filter(pc.equal(days, _constant(day, days.type))))
    if not line:
        raise Refused("no lines")  # the exact path says what an empty file is
    if exes.text != exes.file:
        raise Refused("an x outside the text fields (an integer in hex?)")
    sink.flush()
    return line, repeats


@functools.lru_cache(maxsize=64)
def _tools(negative_times: bool, columns: tuple[Column, ...]) -> tuple[_Parser, _Repeats]:
    """A table's parser and duplicate counter, made once per process and shared by its files
    and workers (neither holds a file's state): a part of job_events is ~6.5 ms of work, and
    making them and learning the counter's column order on each part cost ~0.4 ms of it."""
    return _Parser(negative_times, columns), _Repeats()


class _Parser:
    """pyarrow's CSV reader on one block of whole lines, with each column parsed to its type where
    pyarrow's parse of it is strict, as text (checked and cast in _typed) where it is not:

    - pyarrow's number and boolean parses trim blanks and tabs: with a blank or a tab anywhere in
      the block every column is read as text (a memchr search for each, ~0.01 CPU s per 170 MB);
    - its integer parse also reads ``0x10`` and ``0X10`` (hex, and only at a field's start, with no
      sign): integers are parsed to their type anyway, and the file is refused unless every ``x``
      and ``X`` of its text lies in a text column (_Exes: a hex integer holds one); they are parsed
      to their type only where its sign is the exact path's rule (an unsigned type, digits only;
      a signed one, a minus sign allowed: readers.digits_pattern); what else it takes is the exact
      path's ``-?[0-9]+`` (it refuses ``+8``, ``1.5``, ``1e3``, ``1_000``; an overflow is an error);
    - its float parse is the string cast's (tests/test_fastpath.py pins that DuckDB reads each
      spelling it takes to the same double), booleans are exactly ``0``, ``1``, ``true``, ``false``.

    Parsed to their types, task_events' integers cost ~0.1 CPU s less per 170 MB of text than
    read as text, checked and cast; the base64 user names hold an ``x`` in every block, so before
    the count a block-wide rule kept them text (bench/RESULTS.md, "the strict integer parse")."""

    def __init__(self, negative_times: bool, columns: tuple[Column, ...]) -> None:
        self.names = [c.name for c in columns]
        self.parse_options = pacsv.ParseOptions(
            delimiter=",",
            quote_char=False,
            double_quote=False,
            escape_char=False,
            newlines_in_values=False,
            ignore_empty_lines=False,  # a blank line: a 1-column row, refused
        )
        text = {c.name: pa.string() for c in columns}
        typed = dict(text)
        for c in columns:
            read = (c.read_type or c.type).upper()
            if read in ("DOUBLE", "FLOAT", "REAL", "BOOLEAN"):
                typed[c.name] = _ARROW[read]
            it = readers.int_type(c)
            if it and readers.unsigned(c, negative_times) == it.startswith("U"):
                typed[c.name] = _ARROW[it]
        self.options = {
            kind: self._convert_options(types) for kind, types in (("text", text), ("typed", typed))
        }
        # the columns whose fields may hold an x (_Exes)
        self.text_columns = [i for i, c in enumerate(columns) if _ARROW[c.type.upper()] == pa.string()]

    @staticmethod
    def _convert_options(types: dict[str, pa.DataType]) -> pacsv.ConvertOptions:
        return pacsv.ConvertOptions(
            column_types=types,
            null_values=[""],
            strings_can_be_null=True,
            true_values=["1", "true"],
            false_values=["0", "false"],
            check_utf8=True,
        )

    def parse(self, block: _Block) -> pa.RecordBatch:
        data, start, end = block.data, block.start, block.end
        blank = data.find(b" ", start, end) >= 0 or data.find(b"\t", start, end) >= 0
        parsed = pacsv.read_csv(
            pa.BufferReader(block.view()),
            read_options=pacsv.ReadOptions(
                column_names=self.names, block_size=end - start + 1, use_threads=False
            ),
            parse_options=self.parse_options,
            convert_options=self.options["text" if blank else "typed"],
        )
        batches = parsed.combine_chunks().to_batches()
        if len(batches) != 1:
            raise Refused("no lines")
        return batches[0]


class _Repeats:
    """Lines of a block identical to the line before them, as readers.LineCount counts them (the
    exact path's count). The lines whose fields all equal the line before's, as parsed (NULL
    beside NULL equal), are the candidates: one vectorised pass per column over the lines still
    equal so far, the columns whose neighbours agree least first (learnt on the file's first
    block: in task_events the task index and time, not the CPU request), so that the later passes
    see few lines. Parsed values may be equal where the text is not (``0.5`` and ``0.50``, ``1``
    and ``true``), so each candidate is then compared as bytes; candidates are rare (the traces'
    duplicates are a few per million lines), and the line ends are found only then. One counter
    serves a table's files (_tools): the order is learnt once, on the first block of the first
    (any order gives the same count; two workers may both learn it, alike)."""

    def __init__(self) -> None:
        self.order: list[int] | None = None

    def count(self, batch: pa.RecordBatch, block: _Block) -> int:
        n = batch.num_rows
        if n < 2:
            return 0
        if self.order is None:
            agree = [
                pc.sum(pc.equal(col.slice(0, n - 1), col.slice(1))).as_py() or 0 for col in batch.columns
            ]
            self.order = sorted(range(len(agree)), key=agree.__getitem__)
        at: pa.Array | None = None  # positions i where line i + 1 equals line i in the columns so far
        for i in self.order:
            col = batch.column(i)
            a, b = col.slice(0, n - 1), col.slice(1)
            if at is not None:
                a, b = a.take(at), b.take(at)
            same = pc.equal(a, b)
            if a.null_count or b.null_count:
                # NULL = NULL (two empty fields) is a match; a NULL beside a value stays NULL: no match
                same = pc.or_kleene(same, pc.and_(pc.is_null(a), pc.is_null(b)))
            at = pc.indices_nonzero(same) if at is None else at.filter(same)
            if not len(at):
                return 0
        return _same_lines(block, n, at)


def _same_lines(block: _Block, n: int, at: pa.Array | None) -> int:
    """How many of the lines ``at`` of the block are, as bytes, the line after them."""
    if at is None:
        return 0
    data, start = block.data, block.start
    text = block.array()
    ends = (np.flatnonzero(text == 0x0A) + start).tolist()
    if len(ends) < n:
        ends.append(block.end)  # the file's last line, with no line end
    starts = [start] + [e + 1 for e in ends]
    return sum(data[starts[i] : ends[i]] == data[starts[i + 1] : ends[i + 1]] for i in at.to_pylist())


def _days(times: pa.Array, units_per_day: int) -> pa.Array:
    """The day of each time as DuckDB's integer ``//`` gives it (readers.select_list): both round
    towards zero, also for a negative time (TraceSpec.negative_times: -1 is day 0)."""
    return pc.divide(times, _constant(units_per_day, times.type))


def _ints(values: np.ndarray, type_: pa.DataType) -> pa.Array:
    """An Arrow array of a NumPy array's integers, made from its buffer: pa.array() and pa.scalar()
    (also a Python number given to a pyarrow.compute function) import pandas to check for its
    types, ~0.5 CPU s that the exact path does not pay (bench/RESULTS.md)."""
    return pa.Array.from_buffers(type_, len(values), [None, pa.py_buffer(values)])


def _constant(value: int, type_: pa.DataType) -> pa.Scalar:
    """An integer scalar of ``type_``, made as _ints makes arrays (no pandas)."""
    return _ints(np.array([value], dtype=_NUMPY[type_]), type_)[0]


def _typed(trace: TraceSpec, c: Column, raw: pa.Array) -> pa.Array:
    """The column as the exact path stores it, or Refused where it would reject or might differ;
    ``raw`` is text or already of its type (_Parser)."""
    if c.mandatory and raw.null_count:
        raise Refused(f"{c.name}: empty")
    read = (c.read_type or c.type).upper()
    text = pa.types.is_string(raw.type)
    if readers.int_type(c):
        if text:
            # ASCII digits only, on the column's bytes at once; the regular expression is asked
            # only where a minus sign may be (readers.digits_pattern)
            if not _digits(raw):
                digits = readers.digits_pattern(c, trace.negative_times)
                if not _all(pc.match_substring_regex(raw, f"^{digits}$")):
                    raise Refused(f"{c.name}: not an integer")
            value = pc.cast(raw, _ARROW[read])  # safe: an overflow raises
        else:
            value = raw
        if c.is_time and trace.max_time is not None:
            # as readers.select_list: a time past the trace's largest is the largest
            top = _constant(trace.max_time, value.type)
            hi = pc.max(value)
            if hi.is_valid and hi.as_py() >= trace.max_time:
                value = pc.if_else(pc.greater_equal(value, top), top, value)
        return value if value.type == _ARROW[c.type.upper()] else pc.cast(value, _ARROW[c.type.upper()])
    if read in ("DOUBLE", "FLOAT", "REAL"):
        # the cast refuses a blank, ``_``, hex, ``1e``; what it takes DuckDB reads to the same
        # double (tests/test_fastpath.py pins each spelling), so no regular expression is needed
        value = pc.cast(raw, _ARROW[read]) if text else raw
        if not _all(pc.is_finite(value)):
            raise Refused(f"{c.name}: not finite")
        return value
    if read == "BOOLEAN":
        if not text:
            return raw  # parsed from exactly the four spellings (_Parser)
        spelled = pc.is_in(raw, value_set=_BOOLEANS)
        if raw.null_count:
            spelled = pc.or_(spelled, pc.is_null(raw))  # an empty field stays NULL
        if not _all(spelled):
            raise Refused(f"{c.name}: not a boolean")
        return pc.cast(raw, pa.bool_())  # on these four spellings arrow's cast is exact
    return raw


def _digits(raw: pa.Array) -> bool:
    """Whether every field of a text column is ASCII digits (an empty one is NULL): the bytes of
    its fields lie back to back in its data buffer, so one min and max over them answer (5x
    cheaper than pyarrow's ascii_is_decimal, a loop per field)."""
    body = _field_bytes(raw)
    return not len(body) or (int(body.min()) >= 0x30 and int(body.max()) <= 0x39)


def _field_bytes(raw: pa.Array) -> np.ndarray:
    """The bytes of a text column's fields, back to back as they lie in its data buffer."""
    _, offsets, data = raw.buffers()
    if data is None:
        return np.zeros(0, np.uint8)
    edges = np.frombuffer(offsets, np.int32, count=len(raw) + 1, offset=raw.offset * 4)
    return np.frombuffer(data, np.uint8)[edges[0] : edges[-1]]


class _Exes:
    """The ``x`` and ``X`` bytes of a file's text (``file``, counted as it is inflated, while each
    piece is in the cache) and of its text columns' fields (``text``, counted on each parsed
    block while fewer): equal in a file the fast path takes. A hex integer (``0x10``), which
    pyarrow's integer parse reads, makes them differ, and so does any other x outside a text
    field (every such file is one the exact path rejects: no number or boolean spelling the
    exact path takes holds an x).

    Two compares per byte into one scratch array, a slice at a time (a fresh array for each
    compare would be fresh pages from the allocator, which the two workers' page faults and
    unmappings make dearer than the compares)."""

    SLICE = 1 << 18

    def __init__(self) -> None:
        self.file = 0
        self.text = 0
        self.scratch = np.empty(self.SLICE, np.bool_)

    def count(self, text: np.ndarray) -> int:
        n = 0
        for at in range(0, len(text), self.SLICE):
            part = text[at : at + self.SLICE]
            out = self.scratch[: len(part)]
            n += int(np.count_nonzero(np.equal(part, 0x78, out=out)))
            n += int(np.count_nonzero(np.equal(part, 0x58, out=out)))
        return n


def _strings(values: list[str]) -> pa.Array:
    """A string array made from buffers, as _ints makes integers (no pandas)."""
    encoded = [v.encode() for v in values]
    offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int32)
    return pa.Array.from_buffers(
        pa.string(), len(values), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


_BOOLEANS = _strings(["0", "1", "true", "false"])


def _all(mask: pa.Array) -> bool:
    return bool(pc.all(mask, skip_nulls=True).as_py() is not False)


def row_bytes(schema: pa.Schema) -> float:
    """The Arrow bytes of a row of ``schema`` as the fast path holds it: each value's width and
    its validity bit; a text field TEXT_BYTES of text and its 4-byte offset."""
    return sum(
        1 / 8 + (4 + TEXT_BYTES if pa.types.is_string(f.type) else f.type.bit_width / 8) for f in schema
    )


# The text of a field assumed in a row's width (the traces' text fields are names and base64 ids
# of at most ~50 bytes; task_usage, the one table whose parts fill row groups, has none).
TEXT_BYTES = 48


class _Sink:
    """Parquet files of one source file: one per day (or one in all), rows buffered into row
    groups of ``size`` rows (parquet_settings.fast_row_group), as the exact path's COPY writes
    them. The rows held, every day's together, stay under ``size``: when a part crosses midnight
    the day it left is written at once as a shorter group (its rows are in time order: that day
    gets no more), so the memory the budget grants a worker bounds the whole sink."""

    def __init__(
        self,
        out: Path,
        stem: str,
        schema: pa.Schema,
        written: list[Path],
        delta: list[str],
        size: int,
        *,
        partitioned: bool,
    ):
        self.out, self.stem, self.schema, self.written, self.delta = out, stem, schema, written, delta
        self.size, self.partitioned = size, partitioned
        self.writers: dict[int | None, pq.ParquetWriter] = {}
        self.pending: dict[int | None, list[pa.RecordBatch]] = {}
        self.rows: dict[int | None, int] = {}

    def add(self, day: int | None, batch: pa.RecordBatch) -> None:
        self.pending.setdefault(day, []).append(batch)
        self.rows[day] = self.rows.get(day, 0) + batch.num_rows
        if self.rows[day] >= self.size:
            whole = pa.Table.from_batches(self.pending[day], self.schema)
            full = whole.num_rows - whole.num_rows % self.size
            self._writer(day).write_table(whole.slice(0, full), row_group_size=self.size)
            rest = whole.slice(full).combine_chunks()
            self.pending[day] = rest.to_batches() if rest.num_rows else []
            self.rows[day] = rest.num_rows
        if sum(self.rows.values()) > self.size:
            for other in [d for d, n in self.rows.items() if n and d != day]:
                self._write_pending(other)

    def flush(self) -> None:
        for day in list(self.pending):
            self._write_pending(day)

    def _write_pending(self, day: int | None) -> None:
        if self.rows.get(day):
            table = pa.Table.from_batches(self.pending[day], self.schema)
            self._writer(day).write_table(table, row_group_size=self.size)
        self.pending[day], self.rows[day] = [], 0

    def close(self) -> None:
        for w in self.writers.values():
            w.close()

    def _writer(self, day: int | None) -> pq.ParquetWriter:
        if day not in self.writers:
            if self.partitioned:
                folder = self.out / f"day={day}"
                path = folder / f"{self.stem}_0.parquet"
            else:
                folder, path = self.out, self.out / f"{self.stem}.parquet"
            folder.mkdir(parents=True, exist_ok=True)
            self.written.append(path)
            self.writers[day] = pq.ParquetWriter(
                path,
                self.schema,
                **parquet_settings.arrow_options(parquet_settings.RAW, self.schema.names, self.delta),
            )
        return self.writers[day]


@dataclass
class _Block:
    """Whole lines of a file's text: ``data[start:end]`` (the file's last line may lack its end)."""

    data: bytes
    start: int
    end: int

    def view(self) -> pa.Buffer:
        return pa.py_buffer(self.data).slice(self.start, self.end - self.start)

    def array(self) -> np.ndarray:
        return np.frombuffer(self.data, np.uint8, count=self.end - self.start, offset=self.start)

    def first_line(self) -> bytes:
        cut = self.data.find(b"\n", self.start, self.end)
        return self.data[self.start : self.end if cut < 0 else cut]

    def last_line(self) -> bytes:
        stop = self.end - 1 if self.data[self.end - 1] == 0x0A else self.end
        return self.data[max(self.data.rfind(b"\n", self.start, stop) + 1, self.start) : stop]


def _text(path: Path, on_bytes: Callable[[int], None], exes: _Exes) -> Iterator[_Block]:
    """The file's text in blocks of about BLOCK bytes of whole lines: a ``.csv.gz`` inflated here
    by ISA-L with every member's CRC-32 and length checked (readers.GzipCheck); each chunk of the
    file reported as it is read; Refused on a carriage return, a NUL byte, a byte order mark or a
    damaged stream. The blocks are cut here, not by pyarrow's streaming reader: each is parsed
    where it is read (no reader thread pulling a Python stream), with the types it allows
    (_Parser), and its lines stay at hand for the duplicate count (_Repeats).

    The inflate gives small pieces (PIECE) that are joined into blocks: inflating into a piece
    that stays in the cache, plus the join, cost 0.45 CPU s per 415 MB of task_usage text where
    inflating into 8 MB pieces parsed where they lay cost 0.67 (fresh pages for every piece);
    parsing the small pieces themselves costs more than the join saves (a pyarrow call each)."""
    gz = readers.GzipCheck(isal_zlib, PIECE) if path.name.endswith(".gz") else None
    pending: list[bytes] = []  # text not yet cut into blocks: a line's start, then whole pieces
    size = 0
    want = BLOCK  # the pending size at which blocks are cut
    head = b""  # the text's first bytes, until there are three (a byte order mark)
    with open(path, "rb") as fh:
        while chunk := fh.read(READ_CHUNK if gz is not None else BLOCK):
            on_bytes(len(chunk))
            for data in gz.inflate(chunk) if gz is not None else (chunk,):
                if b"\r" in data or b"\x00" in data:
                    raise Refused("a carriage return or a NUL byte")
                if b"x" in data or b"X" in data:
                    exes.file += exes.count(np.frombuffer(data, np.uint8))
                if len(head) < 3:
                    head = (head + data[:3])[:3]
                    if head == b"\xef\xbb\xbf":
                        raise Refused("a byte order mark")
                pending.append(data)
                size += len(data)
                if size >= want:
                    text = pending[0] if len(pending) == 1 else b"".join(pending)
                    start = yield from _cut(text, final=False)
                    pending = [text[start:]] if start < len(text) else []
                    size = len(text) - start
                    # a line longer than a block, not ended yet: joined again only at twice the size
                    want = BLOCK if start else 2 * size
            if gz is not None and gz.damage:
                raise Refused(gz.damage)
    if gz is not None:
        gz.finish()
        if gz.damage:
            raise Refused(gz.damage)
    yield from _cut(b"".join(pending), final=True)


def _cut(text: bytes, *, final: bool) -> Generator[_Block, None, int]:
    """Blocks of at most BLOCK bytes of whole lines of ``text`` (more where one line is longer);
    returns where the rest starts: less than a block waits for the next pieces, unless the text
    is the file's last (then its last line may lack its end)."""
    start = 0
    while len(text) - start >= BLOCK:
        cut = text.rfind(b"\n", start, start + BLOCK) + 1
        if cut <= start:  # a line longer than a block: up to its end
            cut = text.find(b"\n", start + BLOCK) + 1
            if not cut:
                break
        yield _Block(text, start, cut)
        start = cut
    if final and start < len(text):
        yield _Block(text, start, len(text))
        return len(text)
    return start
