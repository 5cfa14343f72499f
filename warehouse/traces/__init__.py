"""The trace contract (`TraceSpec`), the registry of traces, and the one generic `discover`.

A trace is one module under ``warehouse/traces/`` that builds a `TraceSpec` (its raw
layout, reader kind, tables and columns, time unit, cells, checksums, download
remote) plus one SQL folder (``sql/<name>/``) with its views and macros. The
ingest engine, the catalog builder, the checks and the CLI read only the spec:
adding a trace adds a module and a folder (the registry finds the module: `BUILTIN`).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Literal

from tracewh import sqlfiles
from tracewh.errors import InputError, UsageError
from tracewh.quoting import quote_ident, quote_literal


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # DuckDB type as stored in Parquet and shown by the raw view
    mandatory: bool = False
    comment: str = ""
    # Type the CSV reader parses with, when it differs from the stored type
    # (time columns are read as UBIGINT so 2^64-1 survives to be clamped).
    read_type: str | None = None
    is_time: bool = False  # special-valued trace time (0 / TraceSpec.after_window)
    # Other source names of the same field (JSON exports disagree); the first present wins.
    aliases: tuple[str, ...] = ()
    # The code set of <trace>.codes that names its values: a view decodes it with {{decoded}}.
    codes: str | None = None
    # The value an absent field holds (an export that omits default values): views read it so.
    default: int | None = None
    # A value other than NULL (or the default) marks a record the trace producers synthesized.
    synthesized: bool = False


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    comment: str
    # Column whose trace day partitions the Parquet; None = one unpartitioned file per source file.
    partition_time: str | None = None
    # Columns counted as distinct entities in meta.tables (label -> column names: one column, or
    # several that together name one entity); checked against the table's columns (_check_entities).
    entities: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Rows the publishers give for the whole table (the `overview` report sets them beside the
    # ingested count); None = not published.
    published_rows: int | None = None
    # In a trace whose one archive holds every table (Layout.holds_every_table): the name of this
    # table's file in it (the archive's other members are the other tables).
    member: str | None = None

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def entity_sql(self, label: str) -> str | None:
        """SQL naming one entity of ``label`` (a column, or a row of several), None if not counted."""
        names = self.entities.get(label)
        if not names:
            return None
        cols = ", ".join(quote_ident(n) for n in names)
        return cols if len(names) == 1 else f"({cols})"


@dataclass(frozen=True)
class SourceFile:
    """One raw file to ingest: which table it feeds, and its name as recorded in the catalog."""

    table: str
    path: Path
    name: str  # stable name, e.g. "part-00001-of-00500.csv.gz"
    cell: str | None = None  # traces with several cells (TraceSpec.cells)


@dataclass(frozen=True)
class Stated:
    """A figure as a publisher's document states it (quoted as written, never converted here) and
    the address of that document."""

    text: str
    source: str


@dataclass(frozen=True)
class Published:
    """What the publisher's own documents state about its files: enough for `tracewh download
    --dry-run --offline` to show a plan without the network. Only stated figures belong here; a
    file missing from ``sizes`` has no published size, and the plan says so.

    ``total``: the whole trace's size. ``sizes``: file (as it lands) -> its size in ``ls -h``
    form ("20G", "125M", "92K": powers of 1024), all from ``sizes_source``; ``size_note`` says
    what the figures measure. ``parts``: table -> number of part files, for traces published in
    numbered parts (part k of n named by ``part_name.format(k, n)``), from ``parts_source``.
    """

    total: Stated
    sizes: dict[str, str] = field(default_factory=dict)
    sizes_source: str = ""
    size_note: str = ""
    parts: dict[str, int] = field(default_factory=dict)
    part_name: str = ""
    parts_source: str = ""


def stated_bytes(text: str) -> int:
    """An ``ls -h`` size ("20G", "2.4M", "92K", "512") in bytes: its unit letters are powers of 1024."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([KMGT]?)", text.strip())
    if not m:
        raise ValueError(f"not an ls -h size: {text!r}")
    return round(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " "))


@dataclass(frozen=True)
class Remote:
    """Where a trace is published and how `tracewh download` lists and verifies its files.

    ``base`` is the scheme and host of the official address (``--mirror`` replaces only it);
    ``root`` is the path under it, with ``{cell}`` for traces with one bucket per cell.
    ``listing`` says where the file list and digests come from:
    ``checksum-file`` (a sha256sum-format file under ``root`` names every file),
    ``storage-json-api`` (the Google Cloud Storage object listing gives names, sizes, md5, crc32c),
    ``fixed`` (one ``<table><suffix>`` per table, digests in ``sha256``),
    ``archive`` (one file, ``archive``, holds every table: Layout.holds_every_table; digest in ``sha256``).
    Files land under the download folder in exactly the layout ``discover`` reads.
    """

    base: str
    root: str
    listing: str
    checksum_file: str | None = None
    extra_files: tuple[str, ...] = ()  # small companions fetched when the checksum file lists them
    suffix: str = ""  # fixed: the file of a table is <table><suffix>
    sha256: dict[str, str] = field(default_factory=dict)  # fixed: file name -> official sha256
    local_root: str = ""  # folder under the download folder (may hold {cell}); "" = the folder itself
    published: Published | None = None  # the publisher's stated sizes (a plan without the network)
    archive: str = ""  # archive: the one file's name


def parse_sha256sum(text: str) -> dict[str, str]:
    """A ``sha256sum``-format listing (``<hex>  <path>``, ``*`` for binary mode) as path -> digest."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out[parts[-1].lstrip("*").removeprefix("./")] = parts[0].lower()
    return out


ReaderKind = Literal["csv", "ndjson"]  # headerless CSV (plain, gzip or tar.gz stream) / JSON lines


@dataclass(frozen=True)
class Layout:
    """Where a trace's raw files are and what their names say.

    ``pattern`` matches a file name; its named group ``table`` (when the name says
    the table) and ``part`` (the part number: file order, gaps) are read from it.
    """

    pattern: re.Pattern[str]
    expected: str  # the layout in words, for the error when a folder holds none of it
    table_folders: bool = False  # files live in <table>/ folders
    # One file (an archive) holds every table, each as the member its Table.member names.
    holds_every_table: bool = False
    cell_folder: re.Pattern[str] | None = None  # folder of one cell (group ``cell``)
    one_file_per_table: bool = False  # two files of one table in a folder are a usage error

    @property
    def part_rule(self) -> tuple[str, int] | None:
        """(regex, group) of the part number, also parsed in SQL (meta.part_number) to find gaps."""
        if "part" not in self.pattern.groupindex:
            return None
        return self.pattern.pattern, self.pattern.groupindex["part"]


@dataclass(frozen=True)
class Paper:
    """A publication about a trace, as BibTeX: ``key`` is its BibTeX key (report headers name it
    in ``cites:``); ``source`` the address the entry was checked against (printed with it, so a
    reader can check it too); ``cite_with_trace``: the trace's publishers ask every user of the
    trace to cite it."""

    key: str
    bibtex: str
    source: str
    cite_with_trace: bool = False


@dataclass(frozen=True)
class TraceSpec:
    """Everything the shared code needs to know about one trace."""

    name: str
    title: str
    tables: dict[str, Table]
    layout: Layout
    reader: ReaderKind
    units_per_day: int  # trace time units in a day (86_400 = seconds, 86_400 x 10^6 = microseconds)
    cells: tuple[str, ...] | None = None
    checksum_file: str | None = None  # sha256sum-format listing at the download's root
    official_sha256: dict[str, str] = field(default_factory=dict)  # file name -> digest
    remote: Remote | None = None
    sql_dir: Path | None = None  # its views, macros and code tables; None = the shipped sql/<name>/
    demo_reports: tuple[str, ...] = ()  # what `tracewh demo` shows of this trace
    # The trace's table behind each life-cycle input a report can declare it needs
    # (tracewh.headers.INPUTS: task_events, task_usage, ...), so an absent one is named.
    inputs: dict[str, str] = field(default_factory=dict)
    # The module writing a synthetic copy in the download layout (tracewh.synth: config, plan,
    # make, finish, summary); None = `tracewh synth` does not cover the trace.
    synth: str | None = None
    # Time: the real instant of the trace start (None = not disclosed), the raw time value at
    # that instant, and the special values: 0 = before the window / unknown, after_window = after it.
    trace_start: datetime | None = None
    start_offset: int = 0
    after_window: int | None = None
    # The zone of the trace's own clock (times print in it), or one zone per cell; None / {} = UTC.
    time_zone: str | None = None
    cell_zones: dict[str, str] = field(default_factory=dict)
    # A negative raw time is a value of the trace ("before the trace"), not a reject.
    negative_times: bool = False
    # The trace's documents and the papers analysing it that reports reproduce (`tracewh cite`).
    papers: tuple[Paper, ...] = ()
    # Whole-trace counts a paper publishes, by the metric names of lifecycle-counts ('events: SUBMIT',
    # 'distinct tasks', ...), which sets them beside its own counts (meta.published_counts).
    published_counts: dict[str, int] = field(default_factory=dict)
    # A built-in trace's place in the registry (1 = first): every listing, compare's columns and
    # each {{each trace}} follow it, so a trace added later takes the next number and the output
    # of the traces before it is unchanged (name order would put a new trace anywhere). A trace
    # kept outside tracewh ($TRACEWH_TRACE_MODULES) needs none: it follows the built-in ones.
    place: int | None = None

    def __post_init__(self) -> None:
        # A wrong name here would surface as a NULL column or an SQL error far from its cause.
        for t in self.tables.values():
            names = set(t.column_names)
            wrong = [n for cols in t.entities.values() for n in cols if n not in names]
            if t.partition_time is not None and t.partition_time not in names:
                wrong.append(t.partition_time)
            if wrong:
                raise UsageError(f"{self.name}.{t.name}: no column {', '.join(map(repr, wrong))} in the spec")
        if self.layout.holds_every_table:
            lacking = [t.name for t in self.tables.values() if not t.member]
            if lacking:
                raise UsageError(
                    f"{self.name}: one archive holds every table, but {', '.join(lacking)} name no member"
                )
        unknown = [t for t in self.inputs.values() if t not in self.tables]
        unknown += [c for c in self.cell_zones if c not in (self.cells or ())]
        if unknown:
            raise UsageError(f"{self.name}: no table or cell {', '.join(map(repr, unknown))} in the spec")

    @property
    def units_per_second(self) -> int:
        return self.units_per_day // 86_400

    @property
    def max_time(self) -> int | None:
        """The largest raw time stored: larger ones (2^64-1 read as UBIGINT) are clamped to the
        after-window value; None = no clamp (a trace without one reads its times as stored)."""
        return self.after_window

    def in_window_sql(self, column: str) -> str:
        """SQL: the raw time in ``column`` is a time in the window, not a special value."""
        return f"{column} > 0" + (f" AND {column} < {self.after_window}" if self.after_window else "")

    def timestamp(self, t: int | None) -> datetime | None:
        """The real instant of a raw in-window time (exact: integer microseconds), else None."""
        if self.trace_start is None or t is None or t <= 0:
            return None
        if self.after_window is not None and t >= self.after_window:
            return None
        per_second = self.units_per_day // 86_400
        return self.trace_start + timedelta(microseconds=(t - self.start_offset) * 1_000_000 // per_second)

    @property
    def sql_folder(self) -> Path:
        return self.sql_dir if self.sql_dir is not None else sqlfiles.sql_root() / self.name

    def file_order(self, name: str) -> int:
        """The position of a file in the trace's time order: its part number (0 without one)."""
        m = self.layout.pattern.match(name)
        return int(m.group("part")) if m and "part" in self.layout.pattern.groupindex else 0

    def part_of(self, relpath: str) -> tuple[str, int] | None:
        """The table and part number of a file in the download layout, else None."""
        folder, _, name = relpath.rpartition("/")
        m = self.layout.pattern.match(name)
        if not m or "part" not in self.layout.pattern.groupindex:
            return None
        table = folder.rpartition("/")[2] if self.layout.table_folders else m.group("table")
        return (table, int(m.group("part"))) if table in self.tables else None

    def expected_sha256(self, source: Path, f: SourceFile) -> str | None:
        """The published digest of a file: from the official list, or the download's checksum file."""
        if f.name in self.official_sha256:
            return self.official_sha256[f.name]
        if self.checksum_file is None:
            return None
        root = source if source.is_dir() else source.parent.parent
        path = root / self.checksum_file
        if not path.is_file():
            return None
        st = path.stat()
        rel = f"{f.table}/{f.name}" if self.layout.table_folders else f.name
        return _sha256sum(path, st.st_mtime_ns, st.st_size).get(rel)

    def discover(
        self, source: Path, tables: list[str] | None, table_for_file: str | None, cell: str | None = None
    ) -> list[SourceFile]:
        return discover(self, source, tables, table_for_file, cell)


@cache
def _sha256sum(path: Path, mtime_ns: int, size: int) -> dict[str, str]:
    """The parsed file, read once per version of it (500 parts would read it 500 times)."""
    return parse_sha256sum(path.read_text(encoding="utf-8", errors="replace"))


def discover(
    spec: TraceSpec, source: Path, tables: list[str] | None, table_for_file: str | None, cell: str | None
) -> list[SourceFile]:
    """The raw files of ``spec`` under ``source`` (or ``source`` itself as one file), sorted by
    table, cell and name. Raises InputError when the folder holds nothing of this trace,
    naming what it holds instead; UsageError for an unknown table or cell."""
    lay, name = spec.layout, spec.name
    for t in tables or []:
        if t not in spec.tables:
            raise UsageError(f"unknown {name} table {t!r} (known: {', '.join(spec.tables)})")
    if cell is not None and spec.cells is None:
        with_cells = [s.name for s in registry().values() if s.cells]
        raise UsageError(f"{name} has no cells; --cell is for {', '.join(with_cells) or 'traces with cells'}")
    if cell is not None and spec.cells is not None and cell not in spec.cells:
        raise UsageError(f"unknown {name} cell {cell!r} (cells: {', '.join(spec.cells)})")
    if source.is_file() and lay.holds_every_table:
        if not lay.pattern.match(source.name):
            raise InputError(f"{source}: not a {name} file (expected {lay.expected})")
        folder_cell = _cell_of(spec, source.parent, cell, source)
        return [SourceFile(t, source, source.name, folder_cell) for t in sorted(tables or spec.tables)]
    if source.is_file():
        m = lay.pattern.match(source.name)
        table = table_for_file
        if table is None and lay.table_folders:
            table = source.parent.name
        elif table is None and m and "table" in lay.pattern.groupindex:
            table = m.group("table")
        if table not in spec.tables:
            if table_for_file is not None:
                raise UsageError(f"unknown {name} table {table_for_file!r}")
            raise UsageError(f"{source}: a single file needs --table (one of {', '.join(spec.tables)})")
        return [SourceFile(table, source, source.name, _cell_of(spec, source.parent, cell, source))]
    if not source.is_dir():
        raise InputError(f"{source}: no such file or folder")
    wanted = list(tables or spec.tables)
    folders = [source]
    if lay.cell_folder is not None:
        if lay.cell_folder.match(source.name):
            folders = [source]
        else:
            cells = sorted(p for p in source.iterdir() if p.is_dir() and lay.cell_folder.match(p.name))
            if cell is not None:
                cells = [f for f in cells if _cell_of(spec, f, None, f) == cell]
            folders = cells or [source]
    found: list[SourceFile] = []
    for folder in folders:
        files = _files_in(spec, folder, wanted)
        if not files:
            continue
        folder_cell = _cell_of(spec, folder, cell, folder)
        for table, path in files:
            found.append(SourceFile(table, path, path.name, folder_cell))
    if lay.one_file_per_table:
        first: dict[tuple[str, str | None], SourceFile] = {}
        for s in found:
            if (s.table, s.cell) in first:
                other = first[(s.table, s.cell)].name
                raise UsageError(f"{source}: {other} and {s.name} hold the same table; keep one")
            first[(s.table, s.cell)] = s
    if not found:
        present = sorted(p.name for p in source.iterdir())[:8]
        raise InputError(
            f"{source}: no {name} files found (expected {lay.expected} "
            f"for tables {', '.join(wanted)}; the folder holds: {', '.join(present) or 'nothing'})"
        )
    return sorted(found, key=lambda s: (s.table, s.cell or "", s.name))


def _files_in(spec: TraceSpec, folder: Path, wanted: Iterable[str]) -> list[tuple[str, Path]]:
    """(table, path) of the trace's files directly in ``folder`` (or its <table>/ folders)."""
    lay = spec.layout
    out = []
    if lay.table_folders:
        for table in wanted:
            sub = folder / table
            if sub.is_dir():
                out += [(table, p) for p in sorted(sub.iterdir()) if lay.pattern.match(p.name)]
        return out
    keep = set(wanted)
    for p in sorted(folder.iterdir()):
        m = lay.pattern.match(p.name)
        if m and lay.holds_every_table:
            out += [(t, p) for t in wanted]
        elif m and m.group("table") in keep:
            out.append((m.group("table"), p))
    return out


def _cell_of(spec: TraceSpec, folder: Path, cell: str | None, where: Path) -> str | None:
    """The cell of the files in ``folder``: its cell-folder name, else ``--cell`` (required)."""
    if spec.cells is None:
        return None
    m = spec.layout.cell_folder.match(folder.name) if spec.layout.cell_folder else None
    if m:
        if cell is not None and cell != m.group("cell"):
            raise UsageError(f"{where} is in the folder of cell {m.group('cell')}, not --cell {cell}")
        return m.group("cell")
    if cell is None:
        raise UsageError(f"{where}: which cell? put the files in a cell folder or pass --cell")
    return cell


def _shipped() -> tuple[str, ...]:
    """The modules of this package, in the order of their specs' ``place``: each is a trace
    (tracewh.traces.<name> with a SPEC). Found, never listed, so a new trace is its module and its
    folder and nothing else; the order is the specs' (the first traces first, then those added
    since), never the modules' names."""
    specs = [
        _spec_of(f"tracewh.traces.{m.name}")
        for m in pkgutil.iter_modules(__path__)
        if not m.name.startswith("_")
    ]
    places: dict[int, str] = {}
    for spec in specs:
        if spec.place is None or spec.place in places:
            said = "names no place" if spec.place is None else f"has the place of {places[spec.place]}"
            raise UsageError(f"built-in trace {spec.name} {said} (TraceSpec.place: one number per trace)")
        places[spec.place] = spec.name
    return tuple(places[p] for p in sorted(places))


def _spec_of(module: str) -> TraceSpec:
    try:
        spec = importlib.import_module(module).SPEC
    except (ImportError, AttributeError) as e:
        raise UsageError(f"{MODULES_ENV}: {module} is no trace module ({e})") from e
    if not isinstance(spec, TraceSpec):
        raise UsageError(f"{MODULES_ENV}: {module}.SPEC is no TraceSpec")
    return spec


# Traces kept outside tracewh: importable module names (each with a SPEC), comma-separated.
MODULES_ENV = "TRACEWH_TRACE_MODULES"
# The traces that ship with tracewh, in registry order (TraceSpec.place).
BUILTIN = _shipped()


def registry() -> dict[str, TraceSpec]:
    """name -> spec of every known trace: the built-in ones, then those of $TRACEWH_TRACE_MODULES."""
    return _registry(os.environ.get(MODULES_ENV, ""))


@cache
def _registry(extra: str) -> dict[str, TraceSpec]:
    modules = [f"tracewh.traces.{n}" for n in BUILTIN]
    modules += [m.strip() for m in extra.split(",") if m.strip()]
    out: dict[str, TraceSpec] = {}
    for name in modules:
        spec = _spec_of(name)
        if spec.name in out:
            raise UsageError(f"{MODULES_ENV}: {name}.SPEC repeats the trace name {spec.name}")
        out[spec.name] = spec
    return out


def listing_key(trace: str) -> tuple[int, str]:
    """Where a trace goes in a listing: registry order (TraceSpec.place, then the traces kept outside
    tracewh), a trace no longer registered after them, by name. meta.trace_place is the same in SQL."""
    order = list(registry())
    return (order.index(trace) + 1 if trace in order else len(order) + 1, trace)


def builtin_titles() -> list[str]:
    """The titles of the traces that ship with tracewh, in registry order (what the CLI's top-level
    help names: a trace added to the package is named there without another edit)."""
    shipped = _registry("")
    return [shipped[name].title for name in BUILTIN]


def papers() -> dict[str, tuple[str, Paper]]:
    """Every trace's papers by BibTeX key: key -> (trace, paper)."""
    return {p.key: (name, p) for name, spec in registry().items() for p in spec.papers}


def trace_names() -> tuple[str, ...]:
    return tuple(registry())


def sql_files(kind: str) -> list[sqlfiles.SqlFile]:
    """Every shipped file of one kind ('reports', 'checks'), in file-name order: the shared ones of
    sql/<kind>/ and each registered trace's own of <its SQL folder>/<kind>/ (a report or check that
    reads one trace's views lives with that trace, and is found there, never listed)."""
    folders = [sqlfiles.sql_root() / kind, *(spec.sql_folder / kind for spec in registry().values())]
    return sorted((f for folder in folders for f in sqlfiles.folder(folder)), key=lambda f: f.path.name)


# The largest BIGINT: "never" for a trace that has no after-window value.
_BIGINT_MAX = 2**63 - 1


def time_macros_sql(only: str | None = None) -> str:
    """The time vocabulary of shared SQL, per trace, from the specs (no unit, offset or special value
    is written in shared SQL):
    ``meta.after_window(trace)`` the raw value meaning "after the window" (a time below it is real);
    ``meta.trace_hour(trace, t)`` whole hours since the trace start;
    ``meta.units_per_second(trace)`` raw time units in a second (BIGINT);
    ``meta.seconds(trace, d)`` a raw time difference in seconds (DOUBLE);
    ``meta.time_units(trace, s)`` ``s`` whole seconds in raw time units (bucket widths, days);
    ``meta.start_s(trace)`` the raw time of the trace start, in seconds (buckets -> hours since it);
    and ``meta.trace_place(trace)`` a trace's place in listings (listing_key: registry order, 1 =
    first; a trace no longer registered after every registered one).

    ``only``: the macros of that one trace, constants whatever their ``trace`` argument, for
    queries that read that trace's rows alone (a derived build): a CASE on the trace column is
    evaluated on every row, a constant is folded once (a quarter of an hourly rollup's CPU). Run
    ``time_macros_sql()`` again after them."""
    # each macro's value per trace, as (quoted trace name, SQL value)
    after: list[tuple[str, str]] = []
    hour: list[tuple[str, str]] = []
    per_second: list[tuple[str, str]] = []
    start: list[tuple[str, str]] = []
    for s in registry().values() if only is None else [get_trace(only)]:
        name = quote_literal(s.name)
        ups = s.units_per_day // 86_400
        after.append((name, str(s.after_window if s.after_window is not None else _BIGINT_MAX)))
        hour.append((name, f"(t - {s.start_offset}) // {s.units_per_day // 24}"))
        per_second.append((name, str(ups)))
        offset_s = s.start_offset // ups if s.start_offset % ups == 0 else s.start_offset / ups
        start.append((name, str(offset_s)))

    names = list(registry())
    places = " ".join(f"WHEN {quote_literal(n)} THEN {i}" for i, n in enumerate(names, start=1))

    def case(values: list[tuple[str, str]]) -> str:
        if only is not None:
            return f"({values[0][1]})"
        return f"CASE trace {' '.join(f'WHEN {name} THEN {value}' for name, value in values)} END"

    return (
        f"CREATE OR REPLACE MACRO meta.after_window(trace) AS {case(after)};\n"
        f"CREATE OR REPLACE MACRO meta.trace_hour(trace, t) AS {case(hour)};\n"
        f"CREATE OR REPLACE MACRO meta.units_per_second(trace) AS {case(per_second)}::BIGINT;\n"
        "CREATE OR REPLACE MACRO meta.seconds(trace, d) AS d / meta.units_per_second(trace)::DOUBLE;\n"
        "CREATE OR REPLACE MACRO meta.time_units(trace, s) AS s::BIGINT * meta.units_per_second(trace);\n"
        f"CREATE OR REPLACE MACRO meta.start_s(trace) AS {case(start)};\n"
        f"CREATE OR REPLACE MACRO meta.trace_place(trace) AS CASE trace {places} ELSE {len(names) + 1} END;"
    )


def prelude_sql(spec: TraceSpec) -> str:
    """The trace's time vocabulary as macros in its schema, from its spec (no SQL file repeats a
    unit, offset, zone or special value): ``trace_timestamp(t)`` the real instant of a raw time
    (NULL for special values, and always for a trace whose start is not disclosed); ``time_class(t)``
    (before_window for 0, and below 0 in a trace with negative_times | in_window | after_window)
    with a disclosed start or negative_times; with a disclosed start also ``trace_start()`` and
    ``trace_seconds(t)`` (seconds since the start, DOUBLE); with one zone ``time_zone()`` and
    ``trace_local_time(t)``; with a zone per cell the table ``cells(cell,
    time_zone)``. Run before the trace's SQL folder (catalog.rebuild, the Spark engine)."""
    n = spec.name
    after = spec.after_window if spec.after_window is not None else _BIGINT_MAX
    # 0 is before the window; so is a negative time where the trace says so (negative_times)
    before = "t <= 0" if spec.negative_times else "t = 0"
    time_class = (
        f"CREATE OR REPLACE MACRO {n}.time_class(t) AS CASE WHEN t IS NULL THEN NULL "
        f"WHEN {before} THEN 'before_window' WHEN t >= {after} THEN 'after_window' ELSE 'in_window' END;"
    )
    if spec.trace_start is None:
        timestamp = f"CREATE OR REPLACE MACRO {n}.trace_timestamp(t) AS NULL::TIMESTAMPTZ;"
        # a trace that says what its negative times mean gets its classes even without a start
        return f"{timestamp}\n{time_class}" if spec.negative_times else timestamp
    utc = spec.trace_start.astimezone(timezone.utc)
    start = utc.strftime("%Y-%m-%d %H:%M:%S" + (".%f" if utc.microsecond else "") + "+00")
    ups = spec.units_per_second
    in_window = spec.in_window_sql("t")
    # integer interval arithmetic: exact to the microsecond when a unit divides a second's micros
    since = f"t - {spec.start_offset}"
    micros = since if ups == 1_000_000 else f"({since}) * {1_000_000 // ups}"
    out = [
        f"CREATE OR REPLACE MACRO {n}.trace_start() AS TIMESTAMPTZ {quote_literal(start)};",
        time_class,
        f"CREATE OR REPLACE MACRO {n}.trace_timestamp(t) AS "
        f"CASE WHEN {in_window} THEN {n}.trace_start() + to_microseconds({micros}) END;",
        f"CREATE OR REPLACE MACRO {n}.trace_seconds(t) AS "
        f"CASE WHEN {in_window} THEN ({since}) / {ups}::DOUBLE END;",
    ]
    if spec.time_zone:
        out += [
            f"CREATE OR REPLACE MACRO {n}.time_zone() AS {quote_literal(spec.time_zone)};",
            f"CREATE OR REPLACE MACRO {n}.trace_local_time(t) AS "
            f"timezone({n}.time_zone(), {n}.trace_timestamp(t));",
        ]
    if spec.cell_zones:
        rows = ", ".join(f"({quote_literal(c)}, {quote_literal(z)})" for c, z in spec.cell_zones.items())
        out += [
            f"CREATE OR REPLACE TABLE {n}.cells AS SELECT * FROM (VALUES {rows}) AS t(cell, time_zone);",
            f"COMMENT ON TABLE {n}.cells IS 'The cells and the local time zone of each (for reports by "
            "local hour)';",
        ]
    return "\n".join(out)


def time_zone(trace: str | None, cell: str | None = None) -> str:
    """The zone times of ``trace`` (or one of its cells) print in: its own when it has exactly one,
    else UTC. One fixed rule, so one query gives one answer whatever else the home holds: without a
    trace UTC; a trace with one zone that zone; a cell its zone; a trace over cells in several
    zones UTC."""
    spec = registry().get(trace) if trace else None
    if spec is None:
        return "UTC"
    if spec.time_zone:
        return spec.time_zone
    zones = {z for c, z in spec.cell_zones.items() if cell is None or c == cell}
    return zones.pop() if len(zones) == 1 else "UTC"


# seq = file order * 2^32 + line order in the file: the source order, which breaks ties between
# events at the same time (a part holds far fewer than 2^32 lines). Written by tracewh.ingestion.readers.
SEQ_FILE_SHIFT = 2**32


def meta_sql() -> str:
    """The registry as SQL in the meta schema, built before the meta views over it:
    ``meta.part_number(trace, file)`` the part number of a recorded file name (NULL if it has none),
    ``meta.seq_part(seq)`` the part a data row came from, the time macros (time_macros_sql),
    ``meta.inputs`` and ``meta.published_rows``."""
    cases = []
    for name, spec in registry().items():
        rule = spec.layout.part_rule
        if rule is not None:
            pattern, group = rule
            cases.append(
                f"WHEN {quote_literal(name)} THEN "
                f"TRY_CAST(regexp_extract(file, {quote_literal(pattern)}, {int(group)}) AS BIGINT)"
            )
    body = f"CASE trace {' '.join(cases)} END" if cases else "NULL::BIGINT"
    return (
        "CREATE SCHEMA IF NOT EXISTS meta;\n"
        f"CREATE OR REPLACE MACRO meta.part_number(trace, file) AS {body};\n"
        f"CREATE OR REPLACE MACRO meta.seq_part(seq) AS seq // {SEQ_FILE_SHIFT};\n"
        f"{time_macros_sql()}\n{views_sql()}"
    )


def views_sql() -> str:
    """``meta.inputs(trace, input, table_name)``: each trace's table behind a life-cycle input
    (TraceSpec.inputs); ``meta.published_rows(trace, table_name, published_rows)``: the row counts
    the publishers give for whole tables (Table.published_rows); ``meta.published_counts(trace,
    metric, published_count)``: the whole-trace counts of a paper (TraceSpec.published_counts)."""
    specs = registry().items()
    inputs = [(name, i, t) for name, spec in specs for i, t in spec.inputs.items()]
    published = [
        (name, t.name, t.published_rows)
        for name, spec in specs
        for t in spec.tables.values()
        if t.published_rows is not None
    ]
    counts = [(name, m, n) for name, spec in specs for m, n in spec.published_counts.items()]
    trace, text, count = ("trace", "VARCHAR"), "VARCHAR", "BIGINT"
    return "\n".join(
        (
            _values_view("meta.inputs", trace, ("input", text), ("table_name", text), rows=inputs),
            _values_view(
                "meta.published_rows", trace, ("table_name", text), ("published_rows", count), rows=published
            ),
            _values_view(
                "meta.published_counts", trace, ("metric", text), ("published_count", count), rows=counts
            ),
        )
    )


def _values_view(name: str, *columns: tuple[str, str], rows: list[tuple]) -> str:
    def lit(v: object) -> str:
        return str(int(v)) if isinstance(v, int) else quote_literal(str(v))

    if rows:
        values = ", ".join("(" + ", ".join(lit(v) for v in r) + ")" for r in rows)
        typed = ", ".join(f"{c}::{t} AS {c}" for c, t in columns)
        body = f"SELECT {typed} FROM (VALUES {values}) AS v({', '.join(c for c, _ in columns)})"
    else:
        body = "SELECT " + ", ".join(f"NULL::{t} AS {c}" for c, t in columns) + " WHERE false"
    return f"CREATE OR REPLACE VIEW {name} AS {body};"


# A trace's SQL folder may hold vocabulary tables of a fixed shape; once a file has created one,
# the macros below are built from its rows (catalog.rebuild, the Spark engine), so views decode a
# code or classify a priority with one call and no join, threshold or name list of their own:
#   <trace>.codes(code_set, code, name, ...)   -> <trace>.decode(code_set, code): the code's name,
#       'UNKNOWN(<code>)' for a code the table lacks, NULL for NULL;
#   <trace>.priority_tiers(tier, min_priority, max_priority, production, ...) (inclusive bounds)
#       -> <trace>.priority_tier(priority): the tier's name, 'UNKNOWN(<priority>)' outside every tier;
#       -> <trace>.is_production(priority): priority >= the lowest bound of the production tiers
#          (which must lie above every other tier: "production and above").
VOCABULARY = {
    "codes": "SELECT code_set, code, name FROM {schema}.codes ORDER BY code_set, code",
    "priority_tiers": "SELECT tier, min_priority, max_priority, production FROM {schema}.priority_tiers "
    "ORDER BY min_priority",
}


def vocabulary_in(body: str) -> list[tuple[str, str, str]]:
    """(schema, table, query of its rows) for each vocabulary table a SQL text creates."""
    return [
        (schema, name, VOCABULARY[name].format(schema=schema))
        for schema, name in _CREATES.findall(body)
        if name in VOCABULARY
    ]


def vocabulary_macros_sql(schema: str, table: str, rows: list[tuple]) -> str:
    """The macros built from the rows of one vocabulary table (see VOCABULARY)."""
    if table == "codes":
        sets: dict[str, list[str]] = {}
        for code_set, code, name in rows:
            sets.setdefault(code_set, []).append(f"WHEN {int(code)} THEN {quote_literal(name)}")
        unknown = "ELSE 'UNKNOWN(' || code || ')' END"
        branches = " ".join(
            f"WHEN code_set = {quote_literal(k)} THEN CASE code {' '.join(v)} {unknown}"
            for k, v in sets.items()
        )
        return (
            f"CREATE OR REPLACE MACRO {schema}.decode(code_set, code) AS "
            f"CASE WHEN code IS NULL THEN NULL {branches} END;"
        )
    tiers = " ".join(
        f"WHEN priority BETWEEN {int(lo)} AND {int(hi)} THEN {quote_literal(t)}" for t, lo, hi, _ in rows
    )
    production = [lo for _, lo, _, prod in rows if prod]
    others = [hi for _, _, hi, prod in rows if not prod]
    if not production or (others and max(others) >= min(production)):
        raise UsageError(
            f"{schema}.priority_tiers: the production tiers must be the highest ones (and at least one)"
        )
    return (
        f"CREATE OR REPLACE MACRO {schema}.priority_tier(priority) AS "
        f"CASE WHEN priority IS NULL THEN NULL {tiers} ELSE 'UNKNOWN(' || priority || ')' END;\n"
        f"CREATE OR REPLACE MACRO {schema}.is_production(priority) AS priority >= {int(min(production))};"
    )


# The contract of each adapter view a shared layer unions ({{union X}}): the typed columns every
# trace's <trace>.X has, no more and no fewer (BY NAME would turn a misspelled column into a NULL
# column and drop one the shared layer does not read); in a PARTIAL one, every column but trace
# may be left out (empty for that trace). Checked when the catalog is built.
_V, _I, _B, _D, _T = "VARCHAR", "BIGINT", "BOOLEAN", "DOUBLE", "TIMESTAMP WITH TIME ZONE"
_TRACE, _CELL = ("trace", _V), ("cell", _V)
ADAPTERS: dict[str, tuple[tuple[str, str], ...]] = {
    "lifecycle_event_types": (_TRACE, ("code", "INTEGER"), ("name", _V)),
    "lifecycle_priority_tiers": (
        _TRACE,
        ("tier", _V),
        ("min_priority", "INTEGER"),
        ("max_priority", "INTEGER"),
        ("production", _B),
    ),
    "lifecycle_task_event_tables": (_TRACE, ("table_name", _V)),
    "lifecycle_task_events": (
        _TRACE,
        _CELL,
        ("job_id", _I),
        ("task_index", _I),
        ("time", _I),
        ("seq", _I),
        ("time_class", _V),
        ("event_time", _T),
        ("event_type_name", _V),
        ("is_synthesized", _B),
        ("missing_info_name", _V),
        ("machine_id", _I),
        ("priority", "INTEGER"),
        ("priority_tier", _V),
        ("is_production", _B),
        ("scheduling_class", "INTEGER"),
        ("cpu_request", _D),
        ("memory_request", _D),
    ),
    "lifecycle_task_usage": (
        _TRACE,
        _CELL,
        ("job_id", _I),
        ("task_index", _I),
        ("machine_id", _I),
        ("start_time", _I),
        ("end_time", _I),
        ("seq", _I),
        ("window_s", _D),
        ("cpu", _D),
        ("memory", _D),
        ("memory_assigned", _D),
    ),
    "lifecycle_job_events": (
        _TRACE,
        _CELL,
        ("job_id", _I),
        ("time", _I),
        ("seq", _I),
        ("time_class", _V),
        ("event_type_name", _V),
        ("is_synthesized", _B),
    ),
    "lifecycle_machine_events": (
        _TRACE,
        _CELL,
        ("machine_id", _I),
        ("time", _I),
        ("seq", _I),
        ("time_class", _V),
        ("event_type_name", _V),
        ("cpus", _D),
        ("memory", _D),
    ),
    "lifecycle_left_out": (_TRACE, _CELL, ("what", _V), ("left_out", _I), ("total", _I)),
    # The batch and machine layers of the co-located traces (Alibaba's): a report that reads
    # them covers every trace providing them (header ``traces: with X, Y``). Ids are text (a trace
    # with integer ids gives them as text; a missing one is NULL); times are seconds of the trace's
    # clock, as the trace gives them (0 and below 0 keep the trace's meaning).
    # One utilisation sample of a machine (percent 0..100, invalid values NULL).
    "machine_utilisation": (
        _TRACE,
        ("machine_id", _V),
        ("time", _I),
        ("cpu_util_percent", _D),
        ("mem_util_percent", _D),
    ),
    # One placement of an online container on a machine (a container placed twice: two rows).
    "container_placement": (_TRACE, ("container_id", _V), ("machine_id", _V)),
    # One batch task: the hierarchy (job, task, its planned instances, its DAG class in the trace's
    # own words) and its timing (start, end, status as the trace gives them).
    "batch_tasks": (
        _TRACE,
        ("job_name", _V),
        ("task_name", _V),
        ("instance_num", _I),
        ("dag_class", _V),
        ("status", _V),
        ("start_time", _I),
        ("end_time", _I),
    ),
    # One batch instance attempt: its task, machine, class and timing.
    "batch_instances": (
        _TRACE,
        ("job_name", _V),
        ("task_name", _V),
        ("machine_id", _V),
        ("dag_class", _V),
        ("status", _V),
        ("start_time", _I),
        ("end_time", _I),
    ),
    # The published figures of the batch hierarchy a report sets beside its own (level: jobs |
    # tasks | instances | tasks by class | instances by class; class NULL for a whole level).
    "batch_published": (
        _TRACE,
        ("level", _V),
        ("class", _V),
        ("published_count", _I),
        ("published_share", _D),
    ),
    # compare: a trace outside the life-cycle layer brings its own row of the headline metrics
    "headline": (
        _TRACE,
        ("machines", _I),
        ("jobs", _I),
        ("tasks", _I),
        ("tasks_per_job", _D),
        ("median_jobs_per_hour", _D),
        ("resubmit_ratio", _D),
        ("finish", _D),
        ("kill", _D),
        ("fail", _D),
        ("evict", _D),
        ("lost", _D),
        ("mean_cpu_utilisation", _D),
        ("mean_memory_utilisation", _D),
    ),
}


# compare's row of a trace outside the life-cycle layer: it brings the metrics it has
PARTIAL = frozenset({"headline"})


def adapter_problems(columns: ColumnsOf) -> list[str]:
    """What breaks an adapter contract (ADAPTERS), one line per view, naming each missing, unknown
    or mistyped column; ``columns`` gives a registered view's (name, type) in order."""
    out = []
    for view, contract in ADAPTERS.items():
        want = dict(contract)
        for spec in registry().values():
            if not provides(spec, view):
                continue
            have = dict(columns(f"{spec.name}.{view}"))
            missing = [c for c in want if c not in have and (view not in PARTIAL or c == "trace")]
            unknown = [c for c in have if c not in want]
            typed = [f"{c} is {have[c]}, not {t}" for c, t in want.items() if c in have and have[c] != t]
            if missing or unknown or typed:
                said = [f"lacks {', '.join(missing)}"] if missing else []
                said += [f"has {', '.join(unknown)}, which the contract does not know"] if unknown else []
                said += typed
                out.append(f"{spec.name}.{view} breaks the adapter contract ({'; '.join(said)})")
    return out


# Shared SQL is written once for every trace; two placeholders are filled from the registry:
#   {{union X}}          the UNION ALL BY NAME of <trace>.X over every trace whose folder creates X
#                        (the trace's adapter view for the shared view); for an engine without
#                        BY NAME (Spark), a positional UNION ALL over one column list (expand_sql);
#   {{each trace: EXPR}} EXPR once per registered trace, comma-separated, @trace replaced by its name;
#   {{each trace with X | Y: EXPR}}  the same over the traces providing the adapter view X or Y;
#   {{columns X}}        the columns of the adapter contract X but trace, comma-separated (ADAPTERS).
# A trace's own SQL has its prelude placeholders, filled from the spec of the trace whose view they
# are in (the schema and name of the CREATE before them; a column's spec is the one of the table the
# view is named after), so every view classifies, dates and decodes with the same columns and the
# same column comments (prelude_comments). ``r.C`` reads the column C, as its Column.default when
# the field is absent; ``E AS C`` the expression E instead:
#   {{event_time r.C}}   C, <trace>.time_class(C) AS time_class, <trace>.trace_timestamp(C) AS event_time;
#   ... | local}}        and the wall clock in the trace's zone AS event_time_local;
#   ... | local Z}}      in the zone the expression Z names (a trace with a zone per cell);
#   {{time_class r.C}}   <trace>.time_class(C) AS C_class (a table with several times);
#   {{window r.S, r.E}}  a measurement window: S, E, their classes S_class and E_class, their
#                        instants window_start and window_end, its length window_seconds;
#   {{decoded r.C}}      C and its name, <trace>.decode('<set>', C) AS C_name (Column.codes), and
#                        for a column marking synthesized records (Column.synthesized) is_synthesized.
_UNION = re.compile(r"\{\{\s*union\s+(\w+)\s*\}\}")
_EACH = re.compile(r"\{\{\s*each trace(?:\s+with\s+([\w\s|]+?))?:\s*(.*?)\s*\}\}", re.S)
_COLUMNS = re.compile(r"\{\{\s*columns\s+(\w+)\s*\}\}")
_PRELUDE = re.compile(
    r"\{\{\s*(?P<kind>event_time|time_class|decoded|window)\s+(?P<expr>.+?)"
    r"(?P<local>\s*\|\s*local(?:\s+(?P<zone>.+?))?)?\s*\}\}"
)
_AS_NAME = re.compile(r"^(?P<value>.+?)\s+AS\s+(?P<name>\w+)$", re.I | re.S)
_CREATES = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:VIEW|TABLE|MACRO)\s+(\w+)\.(\w+)", re.I)


def provides(spec: TraceSpec, view: str) -> bool:
    """Whether the trace's SQL folder creates ``<trace>.<view>`` (an adapter for a shared view)."""
    return view in _created(spec.sql_folder, spec.name)


def providing(views: Iterable[str]) -> tuple[str, ...]:
    """The traces whose SQL folder provides every adapter view of ``views`` (the traces a report
    reading them covers: header ``traces: with X, Y``), in registry order; an unknown view is a
    usage error (a misspelt name would cover no trace, silently)."""
    wanted = list(views)
    unknown = [v for v in wanted if v not in ADAPTERS]
    if unknown or not wanted:
        raise UsageError(
            f"no adapter contract {', '.join(map(repr, unknown))} (known: {', '.join(ADAPTERS)})"
        )
    return tuple(n for n, s in registry().items() if all(provides(s, v) for v in wanted))


@cache
def _created(folder: Path, schema: str) -> frozenset[str]:
    return frozenset(
        name for f in sqlfiles.folder(folder) for s, name in _CREATES.findall(f.body) if s == schema
    )


# The columns of a view, (name, DuckDB type) in order, by its qualified name "<trace>.<view>".
ColumnsOf = Callable[[str], Sequence[tuple[str, str]]]


def adapter_view(trace: str, view: str) -> str:
    """The qualified name of a trace's adapter view ``view`` (what ``{{union view}}`` unions)."""
    return f"{trace}.{view}"


def expand_sql(body: str, columns: ColumnsOf | None = None) -> str:
    """Shared SQL with its registry placeholders filled in (see above).

    ``columns`` None: ``{{union X}}`` is DuckDB's ``UNION ALL BY NAME``. An engine without BY NAME
    (Spark) passes the columns of each adapter view: the union is then a positional ``UNION ALL``
    of one column list in BY NAME's order (the first view's columns, then each new one where it
    first appears), ``CAST(NULL AS type)`` where a view lacks a column, so it has the same columns,
    order and rows.
    """

    def union(m: re.Match[str]) -> str:
        view = m.group(1)
        views = [adapter_view(s.name, view) for s in registry().values() if provides(s, view)]
        if not views:
            raise UsageError(f"no trace provides the adapter view {view!r} a shared view needs")
        if columns is None:
            return "(" + " UNION ALL BY NAME ".join(f"SELECT * FROM {v}" for v in views) + ")"
        has = {v: dict(columns(v)) for v in views}
        order: dict[str, str] = {}
        for v in views:
            for name, type_ in has[v].items():
                order.setdefault(name, type_)
        selects = (
            "SELECT "
            + ", ".join(
                quote_ident(c) if c in has[v] else f"CAST(NULL AS {t}) AS {quote_ident(c)}"
                for c, t in order.items()
            )
            + f" FROM {v}"
            for v in views
        )
        return "(" + " UNION ALL ".join(selects) + ")"

    def each(m: re.Match[str]) -> str:
        names = list(registry())
        if m.group(1):
            views = [v.strip() for v in m.group(1).split("|")]
            names = [n for n in names if any(n in providing([v]) for v in views)]
        return ", ".join(m.group(2).replace("@trace", name) for name in names)

    def contract(m: re.Match[str]) -> str:
        if m.group(1) not in ADAPTERS:
            raise UsageError(f"no adapter contract {m.group(1)!r} (known: {', '.join(ADAPTERS)})")
        return ", ".join(c for c, _ in ADAPTERS[m.group(1)] if c != "trace")

    def prelude(m: re.Match[str]) -> str:
        return ",\n    ".join(c.sql for c in _prelude_columns(body, m))

    body = _PRELUDE.sub(prelude, body)
    return _COLUMNS.sub(contract, _EACH.sub(each, _UNION.sub(union, body)))


@dataclass(frozen=True)
class PreludeColumn:
    """One column a prelude placeholder makes: its SQL (``... AS name``), the view it is in
    (``<trace>.<view>``), and its comment, or the code set whose names make the comment."""

    view: str
    name: str
    sql: str
    comment: str = ""
    code_set: str | None = None


def _prelude_columns(body: str, m: re.Match[str]) -> list[PreludeColumn]:
    """The columns of one prelude placeholder ``m`` of ``body`` (see the placeholders above)."""
    before = _CREATES.findall(body[: m.start()])
    trace, view = before[-1] if before else ("", "")
    spec = registry().get(trace)
    if spec is None:
        raise UsageError(f"{m.group(0)} outside a view of a trace")
    n, kind, qualified = spec.name, m.group("kind"), f"{trace}.{view}"
    table = spec.tables.get(view)

    def spec_column(expr: str) -> tuple[str, str, Column]:
        """(value, name, the spec's column) of ``r.C`` or ``E AS C``."""
        named = _AS_NAME.match(expr)
        value, name = (named["value"], named["name"]) if named else (expr, expr.rpartition(".")[2].strip('"'))
        col = next((c for c in table.columns if c.name == name), None) if table else None
        wanted = "a column with a code set (Column.codes)" if kind == "decoded" else "a time column"
        if col is None or (col.codes is None if kind == "decoded" else not col.is_time):
            raise UsageError(f"{m.group(0)}: {qualified}.{name} is not {wanted} of the {n} spec")
        return value, name, col

    def col(name: str, sql: str, comment: str = "", code_set: str | None = None) -> PreludeColumn:
        return PreludeColumn(qualified, name, f"{sql} AS {name}", comment, code_set)

    def itself(expr: str, value: str, name: str) -> PreludeColumn:
        return PreludeColumn(qualified, name, expr if value == expr else f"{value} AS {name}")

    in_window = "NULL unless in_window"
    if kind == "window":
        (s, s_name, _), (e, e_name, _) = (spec_column(x.strip()) for x in m.group("expr").split(",", 1))
        both = f"{n}.time_class({s}) = 'in_window' AND {n}.time_class({e}) = 'in_window'"
        return [
            itself(s, s, s_name),
            itself(e, e, e_name),
            col(f"{s_name}_class", f"{n}.time_class({s})", time_class_comment(spec)),
            col(f"{e_name}_class", f"{n}.time_class({e})", time_class_comment(spec)),
            col("window_start", f"{n}.trace_timestamp({s})", f"Real instant of {s_name}; {in_window}"),
            col("window_end", f"{n}.trace_timestamp({e})", f"Real instant of {e_name}; {in_window}"),
            col(
                "window_seconds",
                f"CASE WHEN {both} THEN ({e} - {s}) / {spec.units_per_second}::DOUBLE END",
                "Window length in seconds; NULL when either end is a special time",
            ),
        ]
    expr = m.group("expr")
    value, name, column = spec_column(expr)
    if column.default is not None and value == f"r.{name}":
        value = f"coalesce({value}, {column.default})"  # an absent field holds its default
    if kind == "time_class":
        return [col(f"{name}_class", f"{n}.time_class({value})", time_class_comment(spec))]
    if kind == "event_time":
        cols = [
            itself(expr, value, name),
            col("time_class", f"{n}.time_class({value})", time_class_comment(spec)),
            col(
                "event_time",
                f"{n}.trace_timestamp({value})",
                "Real instant (TIMESTAMPTZ); NULL unless time_class = in_window",
            ),
        ]
        if m.group("local"):
            zone = m.group("zone")
            where = (
                f"in the cell's time zone ({n}.cells)" if zone else f"in the trace's zone, {spec.time_zone}"
            )
            cols.append(
                col(
                    "event_time_local",
                    f"timezone({zone or f'{n}.time_zone()'}, {n}.trace_timestamp({value}))",
                    f"Wall-clock time {where}; {in_window}",
                )
            )
        return cols
    out = [
        itself(expr, value, name),
        col(
            f"{name}_name", f"{n}.decode({quote_literal(column.codes or '')}, {value})", code_set=column.codes
        ),
    ]
    if column.synthesized:
        real = f"{value} <> {column.default}" if column.default is not None else f"{value} IS NOT NULL"
        out.append(
            col(
                "is_synthesized",
                real,
                f"true = a record synthesized by the trace producers ({name} not "
                + ("empty)" if column.default is None else f"absent or {column.default})"),
            )
        )
    return out


def time_class_comment(spec: TraceSpec) -> str:
    """What a time class of the trace means, from its spec (the values of ``<trace>.time_class``)."""
    before = "0 or negative: before the trace period" if spec.negative_times else "time 0"
    out = f"before_window ({before}) | in_window"
    if spec.after_window is not None:
        # a value one below a power of two reads as one (the Google traces' largest BIGINT)
        k = (spec.after_window + 1).bit_length() - 1
        after = f"2^{k}-1" if spec.after_window + 1 == 1 << k else str(spec.after_window)
        out += f" | after_window (time >= {after})"
    return out


def prelude_comments(body: str, code_names: Callable[[str], Sequence[str]]) -> list[tuple[str, str, str]]:
    """(view, column, comment) of every column a trace SQL text's prelude placeholders make: the
    time columns' from the spec, a decoded name's the names of its code set in code order
    (``code_names``: code set -> names, read from the trace's code table)."""
    out = []
    for m in _PRELUDE.finditer(body):
        for c in _prelude_columns(body, m):
            if c.code_set is not None:
                names = " | ".join(code_names(c.code_set))
                out.append((c.view, c.name, f"{names}; UNKNOWN(<code>) otherwise (code set {c.code_set})"))
            elif c.comment:
                out.append((c.view, c.name, c.comment))
    return out


def downloadable() -> tuple[str, ...]:
    """The traces `tracewh download` can fetch: those whose spec names a remote."""
    return tuple(s.name for s in registry().values() if s.remote is not None)


def download_options() -> dict[str, tuple[str, ...]]:
    """Each selection option of `tracewh download` and the traces it applies to: ``--parts`` needs
    parts named in a checksum file, ``--shards`` a storage listing of numbered shards, ``--cells``
    cells. The one rule for the checks and the help texts."""
    remote = [registry()[name] for name in downloadable()]
    return {
        "--parts": tuple(s.name for s in remote if s.remote and s.remote.listing == "checksum-file"),
        "--shards": tuple(s.name for s in remote if s.remote and s.remote.listing == "storage-json-api"),
        "--cells": tuple(s.name for s in remote if s.cells),
    }


def get_trace(name: str) -> TraceSpec:
    specs = registry()
    if name not in specs:
        raise UsageError(f"unknown trace {name!r} (known: {', '.join(specs)})")
    return specs[name]
