"""The catalog file: creating it in a storage format the DuckDB 1.5 shell reads, opening it,
(re)building every schema, view, macro and comment in it, and replacing it atomically.

Views are rebuilt as a whole from the shipped SQL files and the live Parquet
generations recorded in ``meta.tables``; they point at the Parquet by
absolute path, and ``repair`` rebuilds them after the home folder moved.

Writers never modify the live catalog file in place. A writer copies it to a
staged file, changes the copy, checkpoints and closes it, and renames it over
the live one (``publish``): the rename is the commit point. Readers (a
notebook, ``tracewh shell``, duckdb-cli) that hold the old file open keep a
whole, consistent old state and never block a writer; the next connection sees
the new state. The old file is kept as a *retired* catalog (a hard link under
``.retired/``) with the list of generations it names, and those generations
are kept until no process holds that catalog open (DuckDB holds a shared
``fcntl`` lock on a file it has open read-only).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb

from tracewh import __version__, signals, sqlfiles
from tracewh.catalog import derived
from tracewh.errors import CatalogError, UsageError
from tracewh.home import NOT_FOUND_HINT, Home
from tracewh.quoting import glob_escape, quote_ident, quote_literal
from tracewh.sizes import limit_bytes
from tracewh.traces import (
    MODULES_ENV,
    Table,
    adapter_problems,
    expand_sql,
    get_trace,
    meta_sql,
    prelude_comments,
    prelude_sql,
    registry,
    trace_names,
    vocabulary_in,
    vocabulary_macros_sql,
)

# The oldest DuckDB storage format the catalog must open in: the duckdb-cli 1.5 shell.
STORAGE_VERSION = "v1.5.0"
# The layout of a home (meta tables, Parquet columns and folders), recorded in meta.catalog as
# 'catalog_format' and raised whenever a layout changes. Catalogs written before it was recorded
# hold none and count as format 1. Of those, the first release wrote Parquet without the ``seq``
# column (no migration: ingest again into a new home); the later ones lack ``cell`` in
# meta.ingests / meta.rejects, meta.ingests.duplicate_lines (format 2) or name
# meta.tables.distinct_tasks, which ``migrate`` mends, and
# their views predate meta.table_parts and the rest, which ``rebuild`` makes.
CATALOG_FORMAT = 2
# Shared by every view and trace: folders of SQL run after the per-trace ones.
SHARED_SQL_FOLDERS = ("lifecycle",)
_LOCK_WAIT_S = 10.0
# A retired catalog younger than this is kept even when no lock is seen: a reader may have opened
# the file just before the rename and not taken its lock yet.
RETIRED_GRACE_S = 5.0


# One rule for every command's DuckDB memory limit: its --memory-limit, else this variable, else
# the command's own default (ingest and reads differ: see their DEFAULT_MEMORY_LIMIT).
MEMORY_LIMIT_ENV = "TRACEWH_MEMORY_LIMIT"


def memory_limit(explicit: str | None, default: str) -> str:
    """The memory limit a command runs under, checked: a value DuckDB refuses is a usage error
    naming where it came from (the option or the variable)."""
    env = os.environ.get(MEMORY_LIMIT_ENV) or None
    if explicit:
        limit, source = explicit, "--memory-limit"
    elif env:
        limit, source = env, MEMORY_LIMIT_ENV
    else:
        return default  # tracewh's own default: DuckDB takes it (the probe opens a database)
    refused = _refused_limit(limit)
    if refused:
        raise UsageError(f"{source} {limit!r}: {refused} (e.g. 4GB, 500MB)")
    return limit


# An ingest's memory limit is the budget of the whole process: DuckDB's buffer pool gets the limit
# less what the process holds beside the pool at an ingest's peak (bench/RESULTS.md "An ingest
# within its memory limit"). Beside the pool: the interpreter and the libraries it loaded (115-130
# MiB resident before any query), and DuckDB's allocations that its pool does not count (Parquet
# pages being read and written, Arrow exports, its allocator's cached pages): 160-340 MiB over 14.5 M
# task events (~520 MiB at the whole trace if DuckDB was at its limit there), alike at 1, 2 and 3
# GB and at 1 or 2 threads.
PROCESS_BASE = 128 * 2**20
OUTSIDE_POOL = 384 * 2**20
# Of a budget too small for the reserve, DuckDB still gets this share (the process then goes over
# its budget rather than the ingest failing for want of memory).
MIN_POOL_SHARE = 0.5


def pool_limit(budget: str) -> str:
    """DuckDB's memory limit in a process whose whole budget is ``budget`` (an ingest's limit): the
    budget less PROCESS_BASE and OUTSIDE_POOL, at least MIN_POOL_SHARE of it. A budget that is not
    a size is DuckDB's own limit as it is."""
    total = limit_bytes(budget)
    if total is None:
        return budget
    return f"{max(total - PROCESS_BASE - OUTSIDE_POOL, int(total * MIN_POOL_SHARE))}B"


@functools.cache
def _refused_limit(limit: str) -> str:
    """DuckDB's reason to refuse a memory limit ('' when it takes it). Asked once per value and
    process: the probe opens a database, which a session's every query would otherwise pay."""
    try:
        duckdb.connect(config={"memory_limit": limit}).close()
    except duckdb.Error as e:
        return (str(e).strip().splitlines() or [type(e).__name__])[0]
    return ""


def no_progress_bar(con: duckdb.DuckDBPyConnection) -> None:
    """Keep DuckDB's progress bar off stdout, which carries data only. Only an 'on' setting is
    changed: in a Jupyter kernel DuckDB starts with the bar off and refuses any change of the
    setting unless ipywidgets is installed, which failed every report and ingest in a notebook."""
    on = con.execute("SELECT current_setting('enable_progress_bar')").fetchone()
    if on and on[0]:
        con.execute("SET enable_progress_bar = false")


def connect(
    home: Home, *, read_only: bool, memory_limit: str | None = None, threads: int | None = None
) -> duckdb.DuckDBPyConnection:
    """Open the catalog; read-write opens create it when missing. Lock conflicts become CatalogError."""
    if not home.catalog.exists():
        if read_only:
            raise CatalogError(f"no catalog at {home.catalog}; {NOT_FOUND_HINT}")
        home.ensure_writable()
        with staged(home, "create") as stage:
            pass
        publish(home, stage)
    deadline = time.monotonic() + (0 if read_only else _LOCK_WAIT_S)
    while True:
        try:
            # Settings go in after the open: a process may hold the file open already (the same
            # database instance), and DuckDB refuses a second open with another configuration.
            con = duckdb.connect(str(home.catalog), read_only=read_only)
            break
        except duckdb.IOException as e:
            msg = str(e)
            if "lock" not in msg.lower():
                raise CatalogError(f"cannot open {home.catalog}: {msg.splitlines()[0]}") from e
            if time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            raise CatalogError(
                f"the catalog {home.catalog} is locked by another process (a writer, or a shell "
                "opened read-write); close it and retry"
            ) from e
    if memory_limit:
        con.execute(f"SET memory_limit = {quote_literal(memory_limit)}")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    # Spill space under tmp/: a writer's own folder per ingest; a reader's per process, so readers
    # never share (or delete) each other's spill files.
    # DuckDB creates the last folder when it first spills and removes it on close; its parent
    # tmp/ must exist (a read-only home has none: such a reader cannot spill).
    with contextlib.suppress(OSError):
        home.tmp.mkdir(exist_ok=True)
    spill = home.tmp if not read_only else home.process_tmp("query")
    con.execute(f"SET temp_directory = {quote_literal(spill)}")
    return con


# An empty catalog (every view, macro and code table, no data) made by this process, by the
# views_key it was built from: a new home's catalog is a copy of it, its home set, instead of
# building every view again (~1 CPU s a home; the test suite makes hundreds). Nothing in an empty
# catalog names a path: its raw views are typed empty relations, its derived views name no file.
_EMPTY: dict[str, bytes] = {}


def _create(home: Home, path: Path) -> None:
    """A new catalog file, written in STORAGE_VERSION so older DuckDB shells open it. Its home is
    set by the caller (``staged``), in the transaction it opens next."""
    key = views_key()
    if key in _EMPTY:
        path.write_bytes(_EMPTY[key])
        return
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {quote_literal(path)} AS cat (STORAGE_VERSION {quote_literal(STORAGE_VERSION)})")
        con.execute("USE cat")
        con.execute("BEGIN")
        rebuild(con, home)
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
        con.execute("USE memory")
        con.execute("DETACH cat")
    finally:
        con.close()
    _EMPTY.clear()  # one template: the key changes only when a test swaps the SQL or a trace
    _EMPTY[key] = path.read_bytes()


class Stage:
    """A staged catalog: a private copy of the live one that a writer changes, then publishes."""

    def __init__(self, path: Path, tag: str) -> None:
        self.path = path
        self.tag = tag
        self.con: duckdb.DuckDBPyConnection | None = None


@contextlib.contextmanager
def staged(home: Home, tag: str) -> Iterator[Stage]:
    """A copy of the live catalog (a new one when there is none), open read-write in one transaction.

    On a clean exit the transaction is committed and the file checkpointed, closed and synced:
    ready for ``publish``. On an error it is deleted; the live catalog was never touched.
    The caller holds the home's writer lock.
    """
    stage = Stage(home.root / f".{home.catalog.name}.{tag}.staged", tag)
    _remove_db(stage.path)
    try:
        try:
            new = not home.catalog.exists()
            if not new:
                _settle(home)
                shutil.copyfile(home.catalog, stage.path)
            else:
                _create(home, stage.path)
            con = duckdb.connect(str(stage.path))
        except (OSError, duckdb.Error) as e:  # a full disk, a quota, a file size limit
            raise CatalogError(f"staging the catalog in {home.root} failed: {_reason(e)}") from e
        stage.con = con
        try:
            # the ingest's derived build runs long queries here: no bar on the caller's stdout
            no_progress_bar(con)
            con.execute("BEGIN")
            if new:
                _record_build(con, home, views_key())
            signals.pause_point("staged catalog")
            yield stage
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        except duckdb.Error as e:
            raise CatalogError(f"writing the catalog failed: {_reason(e)}") from e
        finally:
            stage.con = None
            con.close()
        try:
            _fsync(stage.path)
        except OSError as e:
            raise CatalogError(f"staging the catalog in {home.root} failed: {_reason(e)}") from e
    except BaseException:
        _remove_db(stage.path)
        raise


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError):
        return str(e.strerror or e)
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def _settle(home: Home) -> None:
    """Refuse to copy a catalog someone writes in place (`tracewh shell --write`, a notebook opened
    read-write), and fold a write-ahead log left by such a writer into the file first."""
    fd = os.open(home.catalog, os.O_RDONLY)
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as e:
        raise CatalogError(
            f"the catalog {home.catalog} is open read-write in another process (a shell or notebook "
            "opened with write access); close it and retry (read-only sessions never block an ingest)"
        ) from e
    finally:
        os.close(fd)
    if Path(f"{home.catalog}.wal").exists():
        connect(home, read_only=False).close()  # replays and checkpoints the log


def publish(home: Home, stage: Stage, named: dict[tuple[str, str], str] | None = None) -> None:
    """The commit point: rename the staged catalog over the live one, keeping the old one retired.
    Call with interrupts deferred (``signals.deferred``). ``named``: the live catalog's kept_dirs
    when the writer read them under its lock (the live catalog cannot change while it holds it)."""
    old = named if named is not None else kept_dirs(home.catalog) if home.catalog.exists() else {}
    if home.catalog.exists():
        retired = home.retired / f"{time.time_ns()}-{stage.tag}"
        home.retired.mkdir(exist_ok=True)
        Path(f"{retired}.dirs").write_text("".join(f"{d}\n" for d in old.values()), encoding="utf-8")
        os.link(home.catalog, f"{retired}.duckdb")
        signals.pause_point("retiring the old catalog")
    os.replace(stage.path, home.catalog)
    signals.pause_point("catalog replaced")
    _fsync(home.root)


def open_file(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to what the catalog file holds *now*: for the writer's own lookups.

    Attached to a fresh in-memory database, not ``duckdb.connect(path)``: that returns the
    process's cached instance when a connection to the path is open in this process, which
    after a rename still shows the replaced catalog.
    """
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {quote_literal(path)} AS cat (READ_ONLY)")
        con.execute("USE cat")
        return con
    except duckdb.Error as e:
        con.close()
        if "lock" in str(e).lower():
            raise CatalogError(
                f"the catalog {path} is locked by another process (a writer, or a shell or notebook "
                "opened read-write); close it and retry (read-only sessions never block an ingest)"
            ) from e
        raise CatalogError(f"cannot open {path}: {str(e).splitlines()[0]}") from e


def live_dirs(path: Path) -> dict[tuple[str, str], str]:
    """(trace, table) -> live generation folder (relative to the home) named by a catalog file."""
    return _named_dirs(path, derived_too=False)


def kept_dirs(path: Path) -> dict[tuple[str, str], str]:
    """Every generation folder a catalog file names: the tables' and the derived layer's
    (tracewh.catalog.derived; keyed (trace, 'derived.<name>'))."""
    return _named_dirs(path, derived_too=True)


def table_dirs(named: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """The tables' entries of ``kept_dirs`` (what ``live_dirs`` reads): the derived layer's
    folders have no ``parquet/<trace>/<table>`` link."""
    return {key: d for key, d in named.items() if not key[1].startswith(derived.PREFIX)}


def _named_dirs(path: Path, derived_too: bool) -> dict[tuple[str, str], str]:
    con = open_file(path)
    try:
        return named_dirs(con, derived_too)
    finally:
        con.close()


def named_dirs(con: duckdb.DuckDBPyConnection, derived_too: bool = True) -> dict[tuple[str, str], str]:
    """``kept_dirs`` (``live_dirs`` without ``derived_too``) of a catalog already open: the live
    one a writer has just opened, or its staged catalog before the commit."""
    try:
        rows = con.execute("SELECT trace, table_name, data_dir FROM meta.tables").fetchall()
        if derived_too and derived.recorded(con):  # not in a catalog from before the layer
            rows += con.execute(
                "SELECT trace, $p || name, data_dir FROM meta.derived", {"p": derived.PREFIX}
            ).fetchall()
    except duckdb.CatalogException:
        rows = []
    return {(t, n): d for t, n, d in rows}


def retained_dirs(home: Home) -> set[str]:
    """Generation folders still named by a retired catalog some process holds open; retired
    catalogs nobody holds (and past the grace time) are deleted here. Under the writer lock."""
    keep: set[str] = set()
    if not home.retired.is_dir():
        return keep
    for db in sorted(home.retired.glob("*.duckdb")):
        dirs = db.with_suffix(".dirs")
        # the .dirs file is written at the retirement (the catalog's own mtime is older)
        young = dirs.exists() and time.time() - dirs.stat().st_mtime < RETIRED_GRACE_S
        if young or _held(db):
            if dirs.exists():
                keep.update(line for line in dirs.read_text(encoding="utf-8").splitlines() if line)
            continue
        db.unlink(missing_ok=True)
        dirs.unlink(missing_ok=True)
    for dirs in home.retired.glob("*.dirs"):
        if not dirs.with_suffix(".duckdb").exists():
            dirs.unlink(missing_ok=True)  # a writer died between the two files
    return keep


def _held(db: Path) -> bool:
    """Does any process hold this catalog file open (DuckDB's shared or exclusive fcntl lock)?
    This process is asked first, by its open files: fcntl locks never conflict within a process,
    and closing the probe below would drop the lock of this process's own reader."""
    if _open_here(db):
        return True
    try:
        fd = os.open(db, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _open_here(path: Path) -> bool:
    """Is the file open in this process (a DuckDB connection a notebook keeps)? Linux's /proc."""
    try:
        want = path.stat()
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            st = os.stat(f"/proc/self/fd/{fd}")
            if (st.st_dev, st.st_ino) == (want.st_dev, want.st_ino):
                return True
    return False


def clean_staged(home: Home) -> None:
    """Remove staged catalogs of writers that died before publishing. Under the writer lock."""
    for path in home.root.glob(f".{home.catalog.name}.*.staged"):
        _remove_db(path)


def _remove_db(path: Path) -> None:
    path.unlink(missing_ok=True)
    Path(f"{path}.wal").unlink(missing_ok=True)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_links(home: Home, live: dict[tuple[str, str], str] | None = None) -> list[str]:
    """Point every ``parquet/<trace>/<table>`` link at the generation the catalog names (the
    catalog is the truth: a kill between the commit and the flip leaves a stale link) and remove
    links of tables the catalog does not hold. Returns what it changed. Under the writer lock.
    ``live``: the catalog's live_dirs when the caller has just read them."""
    want = live if live is not None else live_dirs(home.catalog) if home.catalog.exists() else {}
    changed = []
    for (trace, table), data_dir in want.items():
        link = home.table_link(trace, table)
        target = os.path.relpath(home.root / data_dir, link.parent)
        if link.is_symlink() and os.readlink(link) == target:
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        tmp_link = link.with_name(f".{table}.link")
        tmp_link.unlink(missing_ok=True)
        os.symlink(target, tmp_link)
        os.replace(tmp_link, link)
        changed.append(f"{trace}.{table}")
    for trace in trace_names():
        folder = home.parquet / trace
        if folder.is_dir():
            for link in folder.iterdir():
                if link.is_symlink() and (trace, link.name) not in want:
                    link.unlink()
                    changed.append(f"{trace}.{link.name}")
    return changed


def link_problems(home: Home) -> list[tuple[str, str, str]]:
    """(table, link target, catalog's generation) for each link that disagrees with the catalog,
    and each generation the catalog names that is missing on disk."""
    out = []
    for (trace, table), data_dir in (live_dirs(home.catalog) if home.catalog.exists() else {}).items():
        link = home.table_link(trace, table)
        got = os.readlink(link) if link.is_symlink() else "(no link)"
        want = os.path.relpath(home.root / data_dir, link.parent)
        if not (home.root / data_dir).is_dir():
            out.append((f"{trace}.{table}", got, f"{data_dir} (missing on disk)"))
        elif got != want:
            out.append((f"{trace}.{table}", got, want))
    return out


# ---------------------------------------------------------------------------------------------
# The build plan: one ordered list of typed steps, from the registry, that every engine executes
# (``rebuild`` here in DuckDB; tracewh.engines.spark.register in a SparkSession, translating each step's
# SQL). The steps' SQL is DuckDB SQL; what a step creates and reads (qualified names) lets an engine
# run only the steps a query needs (``needed``).
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Step:
    """One step of the build plan. ``text``: the DuckDB SQL it runs (or, for a step whose SQL an
    engine makes itself, the SQL whose qualified names say what it reads); ``creates``: the
    qualified names (lower case) of what it makes; ``always``: every query needs it (a schema, the
    time macros)."""

    label: str
    text: str = ""
    creates: frozenset[str] = frozenset()
    always: bool = False


@dataclasses.dataclass(frozen=True, kw_only=True)
class Schemas(Step):
    """The schemas (Spark: databases) of a trace, the meta or the derived layer."""

    names: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Sql(Step):
    """SQL of the project: the registry's meta SQL, a trace's time macros, an SQL file (code
    tables, macros, views). ``body``: as written, with the registry's placeholders, which each
    engine fills (traces.expand_sql; ``text`` is DuckDB's form). ``vocabulary``: after it, the
    decode / tier macros built from the rows of the vocabulary tables it made (a trace's own
    folder only: lifecycle.priority_tiers mixes every trace's tiers)."""

    body: str
    vocabulary: tuple[tuple[str, str, str], ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class RawView(Step):
    """The typed view over a table's live Parquet (``<trace>_raw.<table>``)."""

    trace: str
    table: Table


@dataclasses.dataclass(frozen=True, kw_only=True)
class Comments(Step):
    """The column comments of a trace's raw and semantic views (DuckDB's catalog holds comments)."""

    trace: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class AdapterCheck(Step):
    """The adapter views every shared view unions hold their contract (traces.ADAPTERS)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class DerivedTable(Step):
    """``derived.<name>``: the stored Parquet of the derived layer (tracewh.catalog.derived) where an
    ingest wrote it, else the file's query over the life-cycle views."""

    file: sqlfiles.SqlFile


@dataclasses.dataclass(frozen=True, kw_only=True)
class Record(Step):
    """The catalog's own record (meta.catalog: home, versions, format)."""


# One row of each vocabulary table: enough for vocabulary_macros_sql to name the macros it makes.
_VOCABULARY_PROBE: dict[str, list[tuple]] = {"codes": [("s", 0, "n")], "priority_tiers": [("t", 0, 1, True)]}
_CREATES_SCHEMA = re.compile(r"\bCREATE\s+SCHEMA\b", re.IGNORECASE)
_QUALIFIED = re.compile(r"(?=\b(\w+\.\w+)\b)")  # overlapping: a.b.c gives a.b and b.c
_STRING_OR_COMMENT = re.compile(r"'(?:[^']|'')*'|--[^\n]*")


def names_read(text: str) -> set[str]:
    """Every ``a.b`` of a SQL text (comments, string literals and identifier quotes left out; also
    the last two parts of ``a.b.c``): a superset of the views and functions it reads (a column of
    an alias is a name no step creates)."""
    # one pass: a '--' inside a string is no comment, a quote inside a comment opens no string
    code = _STRING_OR_COMMENT.sub(lambda m: "''" if m.group(0).startswith("'") else "", text)
    return {n.lower() for n in _QUALIFIED.findall(code.replace('"', ""))}


def _sql_step(label: str, body: str, vocabulary: bool = False) -> Sql:
    text = expand_sql(body)
    vocab = tuple(vocabulary_in(body)) if vocabulary else ()
    creates = set(sqlfiles.creates(text))
    for schema, table, _ in vocab:
        creates |= sqlfiles.creates(vocabulary_macros_sql(schema, table, _VOCABULARY_PROBE[table]))
    return Sql(
        label=label,
        text=text,
        body=body,
        creates=frozenset(creates),
        always=bool(_CREATES_SCHEMA.search(sqlfiles.COMMENT.sub("", text))),
        vocabulary=vocab,
    )


def plan() -> tuple[Step, ...]:
    """The catalog's build plan, in order (each step after those it reads), from the registry:
    the meta schema (the registry's SQL, then sql/meta), each trace's schemas, raw views, time
    macros and SQL folder (code tables, macros, semantic and adapter views), the shared folders,
    the derived layer, the catalog's record. The same for every home: what a step reads of the
    home (the live generations, the stored derived tables) is looked up when it runs."""
    return _plan(os.environ.get(MODULES_ENV, ""))


@functools.cache
def _plan(modules: str) -> tuple[Step, ...]:
    """plan() for one value of $TRACEWH_TRACE_MODULES (the registry it reads)."""
    steps: list[Step] = [_sql_step("meta:registry", meta_sql())]
    steps += [_sql_step(f"file:meta/{f.path.name}", f.body) for f in sqlfiles.folder("meta")]
    for trace_name, trace in registry().items():
        steps.append(
            Schemas(label=f"schemas:{trace_name}", names=(trace_name, raw_schema(trace_name)), always=True)
        )
        steps += [
            RawView(
                label=f"raw:{trace_name}.{table.name}",
                creates=frozenset({f"{raw_schema(trace_name)}.{table.name}".lower()}),
                trace=trace_name,
                table=table,
            )
            for table in trace.tables.values()
        ]
        prelude = prelude_sql(trace)
        steps.append(dataclasses.replace(_sql_step(f"prelude:{trace_name}", prelude), always=True))
        steps += [
            _sql_step(f"file:{trace_name}/{f.path.name}", f.body, vocabulary=True)
            for f in sqlfiles.folder(trace.sql_folder)
        ]
        steps.append(Comments(label=f"comments:{trace_name}", trace=trace_name))
    steps.append(AdapterCheck(label="adapters"))
    for folder in SHARED_SQL_FOLDERS:
        steps += [_sql_step(f"file:{folder}/{f.path.name}", f.body) for f in sqlfiles.folder(folder)]
    steps.append(Schemas(label=f"schemas:{derived.SCHEMA}", names=(derived.SCHEMA,), always=True))
    for f in sqlfiles.folder(derived.SCHEMA):
        steps.append(
            DerivedTable(
                label=f"derived:{derived.short(f)}",
                # a table read from stored ones reads them (what else a view reads depends on
                # the home: see needed's ``reads``)
                text=" ".join(f"{derived.SCHEMA}.{n}" for n in derived.reads(f)),
                creates=frozenset({f"{derived.SCHEMA}.{derived.short(f)}"}),
                file=f,
            )
        )
    steps.append(Record(label="record"))
    return tuple(steps)


def needed(steps: tuple[Step, ...], names: set[str], reads: Callable[[Step], str] | None = None) -> set[str]:
    """The labels of the steps that create what ``names`` reads, of the steps those read, and so
    on; and of the steps every query needs (``always``). ``reads``: the SQL whose names say what a
    step reads (default its ``text``), for an engine whose step reads what the home holds."""
    creator: dict[str, str] = {}
    for step in steps:
        for n in step.creates:
            creator.setdefault(n, step.label)
    by_label = {s.label: s for s in steps}
    wanted: set[str] = set()
    todo = [s.label for s in steps if s.always] + [creator[n] for n in names if n in creator]
    while todo:
        label = todo.pop()
        if label in wanted:
            continue
        wanted.add(label)
        step = by_label[label]
        todo += [creator[n] for n in names_read(reads(step) if reads else step.text) if n in creator]
    return wanted


def rebuild(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """Create or replace every schema, code table, macro and view: the build plan, executed in
    DuckDB. Runs inside the caller's transaction."""
    run = _DuckRun(con, home)
    for step in plan():
        run.step(step)


class _DuckRun:
    """DuckDB's executor of the build plan, with what the steps read of the catalog (read once)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, home: Home) -> None:
        self.con = con
        self.home = home
        self._live: dict[tuple[str, str], str] | None = None
        self._derived: derived.State | None = None

    def live(self) -> dict[tuple[str, str], str]:
        if self._live is None:  # after the meta steps: meta.tables exists
            self._live = named_dirs(self.con, derived_too=False)
        return self._live

    def step(self, step: Step) -> None:
        con, home = self.con, self.home
        if isinstance(step, Schemas):
            for name in step.names:
                con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(name)}")
        elif isinstance(step, Sql):
            try:
                con.execute(step.text)
            except duckdb.Error as e:
                raise CatalogError(f"{step.label.split('/')[-1]}: {str(e).splitlines()[0]}") from e
            for schema, vocab, rows_sql in step.vocabulary:
                con.execute(vocabulary_macros_sql(schema, vocab, con.execute(rows_sql).fetchall()))
        elif isinstance(step, RawView):
            _raw_view(con, home, step.trace, step.table, self.live().get((step.trace, step.table.name)))
        elif isinstance(step, Comments):
            _comment_columns(con, step.trace, get_trace(step.trace).tables.values())
        elif isinstance(step, AdapterCheck):
            broken = adapter_problems(lambda view: view_columns(con, view))
            if broken:
                raise CatalogError("; ".join(broken))
        elif isinstance(step, DerivedTable):
            if self._derived is None:
                self._derived = derived.state(con, home)
            derived.create_view(con, home, step.file, self._derived)
        elif isinstance(step, Record):
            _record_build(con, home, views_key())
        else:
            raise TypeError(f"no DuckDB executor for {type(step).__name__}")


# meta.catalog's key for what the views were built from (views_key); with 'home', what refresh checks.
BUILT_FROM = "views_built_from"


def _record_build(con: duckdb.DuckDBPyConnection, home: Home, key: str) -> None:
    con.execute(
        "INSERT OR REPLACE INTO meta.catalog VALUES ('home', $home), ('tracewh_version', $v), "
        "('storage_version', $sv), ('catalog_format', $f), ($b, $key)",
        {
            "home": str(home.root),
            "v": __version__,
            "sv": STORAGE_VERSION,
            "f": str(CATALOG_FORMAT),
            "b": BUILT_FROM,
            "key": key,
        },
    )


def views_key() -> str:
    """A digest of everything rebuild makes the views, macros and code tables from, but for what
    the meta tables record (the live generations): the shipped SQL, the trace specs, the code
    version and formats. Computed afresh each time (a few ms): a test may swap a folder or a trace."""
    h = hashlib.sha256()

    def add(text: str) -> None:
        h.update(text.encode())
        h.update(b"\0")

    for text in (__version__, STORAGE_VERSION, str(CATALOG_FORMAT), SEQ_COMMENT, meta_sql()):
        add(text)
    folders: list[str | Path] = ["meta"]
    for trace_name, trace in registry().items():
        add(trace_name)
        add(prelude_sql(trace))
        add(repr(tuple(trace.tables.values())))
        folders.append(trace.sql_folder)
    folders += [*SHARED_SQL_FOLDERS, derived.SCHEMA]
    for folder in folders:
        for f in sqlfiles.folder(folder):
            add(f"{f.path.name}\n{f.body}")
    add(derived.schemas_text())
    return h.hexdigest()


def refresh(
    con: duckdb.DuckDBPyConnection, home: Home, tables: set[tuple[str, str]], derived_views: bool = True
) -> None:
    """The views after a writer recorded new generations in meta.tables (``tables``: the (trace,
    table) pairs it changed) and meta.derived. Inside the caller's transaction. ``derived_views``
    False: the caller builds derived tables next and makes the derived views after them
    (derived.create_views); no builder reads a derived view.

    Only the raw views of those tables and the derived layer's views are made again: every other
    view reads them by name, and DuckDB binds a view's query when it is read, so it reads the new
    files as it is. That holds for a catalog whose views this very code built for this home
    (views_key and the home recorded by rebuild); any other (built by another version, or a home
    that moved) is rebuilt whole."""
    if recorded_home(con) != str(home.root) or recorded_views_key(con) != views_key():
        rebuild(con, home)
        return
    live = named_dirs(con, derived_too=False)
    for trace_name, table_name in sorted(tables):
        table = get_trace(trace_name).tables[table_name]
        _raw_view(con, home, trace_name, table, live.get((trace_name, table_name)))
        for column, comment in _spec_comments(table):
            con.execute(
                f"COMMENT ON COLUMN {quote_ident(raw_schema(trace_name))}.{quote_ident(table_name)}."
                f"{quote_ident(column)} IS {quote_literal(comment)}"
            )
    # the stored tables' columns were checked when the views were built (same key)
    if derived_views:
        derived.create_views(con, home, check_outdated=False)


def _raw_view(
    con: duckdb.DuckDBPyConnection, home: Home, trace_name: str, table: Table, data_dir: str | None
) -> None:
    try:
        con.execute(raw_view_sql(trace_name, table, home.root / data_dir if data_dir else None))
    except duckdb.Error as e:
        raise CatalogError(
            f"{trace_name}.{table.name}: its Parquet was written in a layout this tracewh "
            f"cannot read ({str(e).splitlines()[0]}); ingest its raw files again into a new "
            "home (tracewh ingest TRACE SOURCE --home NEW)"
        ) from e


def view_columns(con: duckdb.DuckDBPyConnection, view: str) -> list[tuple[str, str]]:
    """(name, type) of the columns of a view "<schema>.<name>", in order."""
    schema, _, name = view.partition(".")
    return con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = $s AND table_name = $n ORDER BY column_index",
        {"s": schema, "n": name},
    ).fetchall()


def raw_schema(trace: str) -> str:
    return f"{trace}_raw"


def partition_columns(trace: str, table: Table) -> list[tuple[str, str]]:
    """Hive partition columns of a table's Parquet, outermost first (the one path rule)."""
    cols = [("cell", "VARCHAR")] if get_trace(trace).cells else []
    if table.partition_time:
        cols.append(("day", "BIGINT"))
    return cols


def parquet_glob(data_dir: Path, trace: str, table: Table) -> str:
    parts = [f"{name}=*" for name, _ in partition_columns(trace, table)]
    return "/".join([glob_escape(data_dir), *parts, "*.parquet"])


def raw_view_sql(trace: str, table: Table, data_dir: Path | None) -> str:
    """The typed view over a table's live Parquet, or an empty typed relation when none is ingested."""
    name = f"{quote_ident(raw_schema(trace))}.{quote_ident(table.name)}"
    parts = partition_columns(trace, table)
    cols = [quote_ident(c.name) for c in table.columns] + ["seq"] + [p for p, _ in parts]
    has_files = data_dir is not None and any(data_dir.rglob("*.parquet"))
    if has_files:
        assert data_dir is not None
        hive = ""
        if parts:
            types = ", ".join(f"{quote_literal(p)}: {t}" for p, t in parts)
            hive = f", hive_partitioning = true, hive_types = {{{types}}}"
        source = f"read_parquet({quote_literal(parquet_glob(data_dir, trace, table))}{hive})"
        body = f"SELECT {', '.join(cols)} FROM {source}"
    else:
        typed = [f"CAST(NULL AS {c.type}) AS {quote_ident(c.name)}" for c in table.columns]
        typed.append("CAST(NULL AS BIGINT) AS seq")
        typed += [f"CAST(NULL AS {t}) AS {p}" for p, t in parts]
        body = f"SELECT {', '.join(typed)} WHERE false"
    comment = f"{table.comment} (typed Parquet as stored; use {trace}.{table.name} for the decoded view)"
    return f"CREATE OR REPLACE VIEW {name} AS {body};\nCOMMENT ON VIEW {name} IS {quote_literal(comment)};"


SEQ_COMMENT = (
    "Source order: file order (part number) * 2^32 + line order within the file; "
    "orders events that share a time as the trace does"
)


def _comment_columns(con: duckdb.DuckDBPyConnection, trace: str, tables: Any) -> None:
    """Column comments from the trace module's column list, on the raw and the semantic views.

    A column has one source for its comment: a column of the spec is documented by its
    ``Column.comment`` (on the raw view and on the semantic view of the same name), any other
    column by the SQL ``COMMENT ON COLUMN`` of the view that makes it. SQL commenting a column
    the spec documents is refused here (it used to be overwritten silently)."""
    existing = {
        (s, t, c): comment
        for s, t, c, comment in con.execute(
            "SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name IN ($a, $b)",
            {"a": trace, "b": raw_schema(trace)},
        ).fetchall()
    }
    for table in tables:
        for name, comment in _spec_comments(table):
            for schema in (trace, raw_schema(trace)):
                if existing.get((schema, table.name, name)):
                    raise CatalogError(
                        f"{schema}.{table.name}.{name} is commented twice: by COMMENT ON COLUMN in "
                        f"{trace}'s SQL and by the trace module's Column.comment; keep one"
                    )
                if (schema, table.name, name) in existing:
                    con.execute(
                        f"COMMENT ON COLUMN {quote_ident(schema)}.{quote_ident(table.name)}."
                        f"{quote_ident(name)} IS {quote_literal(comment)}"
                    )
    _prelude_comments(con, trace, existing)
    _inherit_comments(con, trace)


def _prelude_comments(con: duckdb.DuckDBPyConnection, trace: str, existing: dict) -> None:
    """The comments of the columns the prelude placeholders of the trace's SQL make (time class,
    real instant, local time, decoded names: traces.prelude_comments), where the view's SQL
    says nothing more particular of its own."""
    spec = get_trace(trace)

    def code_names(code_set: str) -> list[str]:
        rows = con.execute(
            f"SELECT name FROM {quote_ident(trace)}.codes WHERE code_set = $s ORDER BY code", {"s": code_set}
        ).fetchall()
        return [r[0] for r in rows]

    for f in sqlfiles.folder(spec.sql_folder):
        for view, column, comment in prelude_comments(f.body, code_names):
            schema, _, name = view.partition(".")
            if (schema, name, column) in existing and not existing[(schema, name, column)]:
                con.execute(
                    f"COMMENT ON COLUMN {quote_ident(schema)}.{quote_ident(name)}.{quote_ident(column)} "
                    f"IS {quote_literal(comment)}"
                )


def _spec_comments(table: Table) -> list[tuple[str, str]]:
    """(column, comment) the trace module documents for a table's columns, and seq's."""
    return [(c.name, c.comment) for c in table.columns if c.comment] + [("seq", SEQ_COMMENT)]


def _inherit_comments(con: duckdb.DuckDBPyConnection, trace: str) -> None:
    """A view column without a comment takes the one its name has elsewhere in the trace's schema
    (an adapter view repeats a semantic view's columns; their meaning is written once)."""
    rows = con.execute(
        "SELECT table_name, column_name, comment FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = $s ORDER BY table_name",
        {"s": trace},
    ).fetchall()
    known: dict[str, str] = {}
    for _, column, comment in rows:
        if comment:
            known.setdefault(column, comment)
    for table, column, comment in rows:
        if not comment and column in known:
            con.execute(
                f"COMMENT ON COLUMN {quote_ident(trace)}.{quote_ident(table)}.{quote_ident(column)} "
                f"IS {quote_literal(known[column])}"
            )


def recorded_home(con: duckdb.DuckDBPyConnection) -> str | None:
    rows = con.execute("SELECT value FROM meta.catalog WHERE key = 'home'").fetchall()
    return rows[0][0] if rows else None


def recorded_views_key(con: duckdb.DuckDBPyConnection) -> str | None:
    """The views_key the catalog's views were built from (None: not recorded)."""
    rows = con.execute("SELECT value FROM meta.catalog WHERE key = $k", {"k": BUILT_FROM}).fetchall()
    return rows[0][0] if rows else None


def catalog_format(con: duckdb.DuckDBPyConnection, home: Home) -> int:
    """The layout format a catalog records (1: written before formats were recorded)."""
    try:
        rows = con.execute("SELECT value FROM meta.catalog WHERE key = 'catalog_format'").fetchall()
    except duckdb.CatalogException as e:
        raise CatalogError(f"{home.catalog} is not a tracewh catalog (it has no meta.catalog table)") from e
    try:
        return int(rows[0][0]) if rows else 1
    except ValueError as e:
        raise CatalogError(f"{home.catalog}: unreadable catalog format {rows[0][0]!r}") from e


def check_format(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """Refuse a catalog of another layout with the one line that says what to do."""
    found = catalog_format(con, home)
    if found > CATALOG_FORMAT:
        raise CatalogError(
            f"{home.catalog} has catalog format {found}, from a newer tracewh (this one reads format "
            f"{CATALOG_FORMAT}); upgrade tracewh"
        )
    if found < CATALOG_FORMAT:
        raise CatalogError(
            f"{home.catalog} has catalog format {found}, from an older tracewh (this one reads format "
            f"{CATALOG_FORMAT}); run `tracewh repair` once to migrate it"
        )


def require_format(home: Home) -> None:
    """check_format for a writer, before it reads the live catalog."""
    if not home.catalog.exists():
        return
    con = open_file(home.catalog)
    try:
        check_format(con, home)
    finally:
        con.close()


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    """Bring the meta tables of an older catalog to this format (see CATALOG_FORMAT); the views
    are rebuilt after it. Inside the caller's transaction."""
    have = set(
        con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name = 'meta'"
        ).fetchall()
    )
    for table in ("ingests", "rejects"):
        if (table, "table_name") in have and (table, "cell") not in have:
            con.execute(f"ALTER TABLE meta.{table} ADD COLUMN cell VARCHAR")
    if ("ingests", "duplicate_lines") not in have:
        con.execute("ALTER TABLE meta.ingests ADD COLUMN duplicate_lines BIGINT")
    if ("tables", "distinct_tasks") in have:
        con.execute("ALTER TABLE meta.tables RENAME COLUMN distinct_tasks TO approx_distinct_tasks")


def check_location(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """Views hold absolute paths and come from this version's SQL: refuse to answer from a moved home
    or an older catalog instead of failing on missing files or views."""
    check_format(con, home)
    # fetchall, not fetchone: DuckDB wants a result finished before other work on the connection
    rows = con.execute("SELECT value FROM meta.catalog WHERE key = 'tracewh_version'").fetchall()
    if rows and rows[0][0] != __version__:
        raise CatalogError(
            f"the catalog was built by tracewh {rows[0][0]}, this is {__version__}; run `tracewh repair` once"
        )
    recorded = recorded_home(con)
    if recorded is not None and Path(recorded) != home.root:
        raise CatalogError(
            f"the home moved from {recorded} to {home.root}; run `tracewh repair` once to repoint the views"
        )


def repair(home: Home) -> str | None:
    """Rebuild every view for the home's current location; returns the previous location."""
    from tracewh import signals

    if not home.catalog.exists():
        raise CatalogError(f"no catalog at {home.catalog}; nothing to repair")
    with home.writer_lock():
        with staged(home, "repair") as stage:
            assert stage.con is not None
            before = recorded_home(stage.con)
            migrate(stage.con)
            rebuild(stage.con, home)
        with signals.deferred():
            publish(home, stage)
            sync_links(home)
        collect_garbage(home)
        return before


def tidy(home: Home) -> None:
    """What every command that opens the home does first, when no writer is at work: bring the
    table links in line with the catalog (a writer killed after its commit leaves them stale) and
    delete generations nobody can read any more (an ingest's own clean-up runs before the grace of
    the catalog it retired has passed). A home this process cannot write is left as it is:
    `check` reports its links."""
    if not home.catalog.exists():
        return
    state = _tidy_state(home)
    if state is not None and _read_text(home.root / TIDIED_FILE) == state:
        return  # the very state the last tidy left: it would change nothing (and attach the catalog)
    with home.tidy_lock() as got:
        if got:
            named = kept_dirs(home.catalog)  # read once for both (each read opens the catalog)
            sync_links(home, table_dirs(named))
            collect_garbage(home, named)
            after = _tidy_state(home)
            if after is not None:
                tmp = home.root / f"{TIDIED_FILE}.{os.getpid()}"
                with contextlib.suppress(OSError):
                    tmp.write_text(after, encoding="utf-8")
                    os.replace(tmp, home.root / TIDIED_FILE)


# What the last tidy left (home/.tidied): the next command whose look at the home finds the same
# skips the tidy, which would change nothing.
TIDIED_FILE = ".tidied"


def _tidy_state(home: Home) -> str | None:
    """Everything a tidy reads, as text: the catalog file (a commit replaces it: a new inode), the
    table links and the generation folders. None (a tidy runs) while anything time- or
    process-dependent is there: a retired catalog (its grace, its readers), a staged catalog, a
    folder under tmp/."""
    try:
        if any(home.retired.glob("*")) or any(home.root.glob(f".{home.catalog.name}.*.staged")):
            return None
        if home.tmp.is_dir() and any(home.tmp.iterdir()):
            return None
        st = home.catalog.stat()
        lines = [f"catalog {st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns}"]
        for trace in trace_names():
            folder = home.parquet / trace
            if folder.is_dir():
                for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                    if entry.is_symlink():
                        lines.append(f"link {trace}/{entry.name} -> {os.readlink(entry.path)}")
                gens = home.generations(trace)
                if gens.is_dir():
                    lines += [f"generation {trace}/{n}" for n in sorted(os.listdir(gens))]
        return "\n".join(lines) + "\n"
    except OSError:
        return None


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def collect_garbage(home: Home, named: dict[tuple[str, str], str] | None = None) -> None:
    """Delete what no catalog names any more: generations of dead or superseded ingests (unless a
    retired catalog still held open names them), staged catalogs of dead writers, spill leftovers.
    Under the writer lock. ``named``: the catalog's kept_dirs when the caller has just read them."""
    clean_staged(home)
    if named is None:
        named = kept_dirs(home.catalog) if home.catalog.exists() else {}
    keep = {(home.root / d).resolve() for d in named.values()}
    keep |= {(home.root / d).resolve() for d in retained_dirs(home)}
    for trace in trace_names():
        gens = home.generations(trace)
        if gens.is_dir():
            for d in gens.iterdir():
                if d.resolve() not in keep:
                    shutil.rmtree(d, ignore_errors=True)
    home.clean_tmp()
