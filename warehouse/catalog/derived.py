"""The derived layer: the life-cycle views the reports read most (task episodes, transitions,
per-task summaries, the observed window and segments) stored as Parquet, one generation per trace,
written by the ingest that changes the trace's task events, in its commit.

Each table is one file of ``sql/derived/``: a query over the life-cycle views with ``$trace``.
The same query makes the stored table (at ingest) and answers for a trace that has none stored
(a catalog written before the layer existed), so the view ``derived.<name>`` always has the rows
``lifecycle.<name>`` has; the ``lifecycle`` views stay for users' own SQL. A file with ``reads:``
is not stored: its view is the life-cycle view of its name over the stored tables it names (the
episodes: the stored per-task attempts clipped to the stored observed segments).

Incremental: the tables of one row per task or task event (``sort:`` starting with the task key)
depend only on the task's own events and on the parts missing before each event. When the parts
the trace had keep their gaps (a part added after the last one, a part replaced), an ingest
recomputes only the tasks with an event in the parts it wrote or replaced and keeps the other
rows; otherwise (a part filling or opening a gap, ``--replace``, no stored tables yet) it rebuilds
the trace's tables from all its events. The small tables (segments, window) are always rebuilt.
A table of two inputs (``input: task_events, task_usage``) follows the rule of the first; an
ingest of the second recomputes it by the usage rule (build_usage).

Those tables of one row per task or task event without ``unit:`` are stored as a folder of files,
one per range of jobs (job_ranges: (cell, job_id) cut as ``batches`` cuts the events, ~2 M a
range): an incremental ingest of task events writes the files of the ranges holding the tasks it
recomputes (the jobs after every stored one in new ranges) and links the other ranges' files into
its generation unchanged, by the unit-file machinery of the usage tables below; a whole rebuild
writes one file per batch. A range's start is its files' first job (read from them, nothing else
to keep in step); a rewritten range that grew past 2 x RANGE_ROWS rows is cut into smaller ones.

A whole rebuild's ranges hold BATCH_EVENTS events each whatever the ingest's memory: a pool too
small for a range's batch builds it in several batches (batch_share), one file still.

The usage tables (and the one of two inputs) are stored as a folder of files, one per 6 hours of
usage-window start (``unit:``): an ingest of usage parts rewrites the files of the units its parts
touch and links the other units' files into its generation unchanged, so its cost follows its
parts, not the home (a unit of 6 hours: a batch of parts rewrites at most a unit's rows beyond
its own at each end; a smaller unit, more files for every reader to open). An ingest of task
events recomputes the touched tasks' rows of such a table (the attempts' usage) from their windows
(read once) and rewrites only the units where those rows differ from the same windows given to the
old generation's stored attempts (the hours where a window changes attempt), linking the others.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tracewh import parquet_settings, signals, sqlfiles
from tracewh.errors import CatalogError
from tracewh.home import Home
from tracewh.quoting import quote_ident, quote_literal
from tracewh.sizes import limit_bytes
from tracewh.traces import SEQ_FILE_SHIFT, adapter_view, expand_sql, get_trace, provides, registry

SCHEMA = "derived"
# The life-cycle input every derived table is computed from (the trace spec maps it to a table).
SOURCE_INPUT = "task_events"
# The life-cycle view of those events, which an incremental build points at the touched tasks' events.
EVENTS_VIEW = "lifecycle.task_events"
# The stored table of the events themselves, sorted by task (an incremental build reads the touched
# tasks' earlier events from it).
STORED_EVENTS = EVENTS_VIEW.split(".", 1)[1]
# A trace's derived generation: parquet/<trace>/.gen/<PREFIX><writer id>/<name>.parquet, or for a
# table with ``unit:`` the folder <name>/ of one file per unit, <unit>.parquet (stored_paths)
PREFIX = "derived."
TASK_KEY = ("cell", "job_id", "task_index")
JOB_KEY = ("cell", "job_id")
MACHINE_KEY = ("cell", "machine_id")
_TRACE_PARAM = re.compile(r"\$trace\b")
_TOUCHED = "temp.main.derived_touched"
_EVENTS = "temp.main.derived_events"
_TASKS = "temp.main.derived_tasks"
# An incremental build of a per-task table of unit files: the touched tasks' usage windows, their
# rows from the new attempts and from the old generation's attempts
_WINDOWS = "temp.main.derived_windows"
# (a column of _TASKS) the first clock hour of a touched task's rows of the usage tables of two
# inputs that the build recomputes (NULL: every hour; _bound_windows)
_FROM_HOUR = "from_hour"
# The stored attempts whose first SUBMIT and SCHEDULE times bound the windows that can change
# attempt (lifecycle.attempt_usage_hourly assigns windows to lifecycle.task_episode_core's attempts),
# and the stored table of every task's windows per hour that says in which hours a task has windows
# (_bound_windows), with those hours of the touched tasks read from it
_ATTEMPTS = "task_episode_core"
_TASK_INDEX = "task_usage_hourly"
_TASK_HOURS = "temp.main.derived_task_hours"
_AGAIN = "temp.main.derived_again"
_BEFORE = "temp.main.derived_before"
# the typed empty rows of a per-task table no stored range of which a touched task is in (+ _name)
_NONE = "derived_none"


def files() -> list[sqlfiles.SqlFile]:
    """The tables computed in SQL from the life-cycle views (the walked ones: walk_files)."""
    return [f for f in sqlfiles.folder(SCHEMA) if not walked(f)]


def stored_files(source: str = SOURCE_INPUT) -> list[sqlfiles.SqlFile]:
    """The stored tables computed from one life-cycle input (default: the task events)."""
    return [f for f in files() if not reads(f) and input_of(f) == source]


def _stored_file(name: str) -> sqlfiles.SqlFile:
    """The file of the stored table ``name`` of the task events (``task_episode_core``, ...)."""
    return next(f for f in stored_files() if short(f) == name)


def input_of(f: sqlfiles.SqlFile) -> str:
    """The life-cycle input a derived table is computed from (the first of ``input:``; default the
    task events): an ingest of it recomputes the table by that input's rule (tasks, hours)."""
    return inputs_of(f)[0]


def inputs_of(f: sqlfiles.SqlFile) -> list[str]:
    """Every life-cycle input of a derived table (``input:``), the one of its rule first."""
    return [n.strip() for n in f.header.get("input", SOURCE_INPUT).split(",") if n.strip()]


def short(f: sqlfiles.SqlFile) -> str:
    """``derived.task_episodes`` -> ``task_episodes`` (also the life-cycle view it stores)."""
    return f.name.split(".", 1)[1]


def reads(f: sqlfiles.SqlFile) -> list[str]:
    return [n.strip() for n in f.header.get("reads", "").split(",") if n.strip()]


def sort_key(f: sqlfiles.SqlFile) -> list[str]:
    return [c.strip() for c in f.header.get("sort", "").split(",") if c.strip()]


def unit_of(f: sqlfiles.SqlFile) -> str | None:
    """The expression of a table's columns whose values are its files (``unit:``; None: one file)."""
    return f.header.get("unit") or None


def stored_paths(root: Path, data_dir: str, name: str) -> list[Path]:
    """The Parquet files of a stored table (``root``: the home's): its folder's unit files in
    their units' order, or its one file. Listed, never globbed in SQL: the home's path may hold
    glob characters."""
    folder = root / data_dir / name
    if folder.is_dir():
        return sorted(folder.glob("*.parquet"), key=lambda x: int(x.stem))
    return [root / data_dir / f"{name}.parquet"]


def job_ranges(f: sqlfiles.SqlFile) -> bool:
    """A table stored as one file per range of jobs (of (cell, job_id), cut as the build's
    ``batches``; the file's name: its range's number, in the jobs' order): a table of rows of tasks
    with no ``unit:`` of its own. An ingest of task events rewrites the files of the ranges holding
    the tasks it touches (and makes new ranges for jobs after the last stored one)."""
    return per_task(f) and not unit_of(f)


def in_units(f: sqlfiles.SqlFile) -> bool:
    """A table stored as a folder of unit files (``unit:`` or job ranges), not one file."""
    return bool(unit_of(f)) or job_ranges(f)


def read_stored(f: sqlfiles.SqlFile, paths: list[Path]) -> str:
    """A relation of a stored table's rows from its files (none: the typed empty relation)."""
    if not paths:
        return f"(SELECT * FROM ({query(f, None)}) WHERE false)"
    return f"read_parquet([{', '.join(quote_literal(x) for x in paths)}])"


def per_task(f: sqlfiles.SqlFile) -> bool:
    """A table whose rows belong to tasks (sorted by the task key first)."""
    return tuple(sort_key(f)[: len(TASK_KEY)]) == TASK_KEY


def source_table(trace: str, source: str = SOURCE_INPUT) -> str | None:
    """The trace's table whose change rebuilds its derived tables of the input ``source``; None:
    the trace has none (no adapter view ``<trace>.lifecycle_<source>``)."""
    spec = get_trace(trace)
    if not provides(spec, f"lifecycle_{source}"):
        return None
    return spec.inputs.get(source)


def source_traces(source: str = SOURCE_INPUT) -> list[str]:
    """The traces that have derived tables of the input ``source``."""
    return [t for t in registry() if source_table(t, source)]


def ingested_traces(f: sqlfiles.SqlFile, live: list[tuple[str, str]]) -> set[str]:
    """The traces whose table behind the file's input is among the ``live`` (trace, table) pairs."""
    return {t for t, table in live if t in registry() and source_table(t, input_of(f)) == table}


def query(f: sqlfiles.SqlFile, trace: str | None) -> str:
    """The file's query for one trace (None: the typed empty relation)."""
    body = "\n".join(ln for ln in f.body.splitlines() if not ln.lstrip().startswith("--")).strip()
    return _TRACE_PARAM.sub(quote_literal(trace) if trace else "NULL::VARCHAR", body.rstrip(";"))


def recomputed(f: sqlfiles.SqlFile, traces: list[str] | None = None) -> str:
    """The file's query for every trace at once (``traces``: for those only; none: the typed empty
    relation), from the life-cycle views (what the stored table must equal): for an engine that
    reads no stored table, and for `tracewh check`."""
    traces = source_traces(input_of(f)) if traces is None else traces
    if not traces:
        return f"SELECT * FROM ({query(f, None)}) WHERE false"
    return " UNION ALL ".join(f"SELECT * FROM ({query(f, t)})" for t in traces)


def checked_traces(f: sqlfiles.SqlFile, live: list[tuple[str, str]]) -> list[str]:
    """The traces `tracewh check` recomputes the file's table for: those with one of its inputs
    among the ``live`` (trace, table) pairs. For another trace every input is the typed empty view
    of a table never ingested, so its recomputation is empty: binding it again for each check
    (the life-cycle stack, ~0.04 CPU s a trace and table) would find nothing, and a stored row of
    such a trace is still found, the stored side being read whole."""
    return [
        t
        for t in source_traces(input_of(f))
        if any((t, source_table(t, source)) in live for source in inputs_of(f))
    ]


# `tracewh check` compares a sample of tasks (all of a task's rows or none): one task in SAMPLE_EVERY
# (of machines, for a table of machine rows).
SAMPLE_EVERY = 16
SAMPLED = {TASK_KEY: "tasks", JOB_KEY: "jobs", MACHINE_KEY: "machines"}


def keyed_by_task(f: sqlfiles.SqlFile) -> bool:
    """A table whose rows each belong to one task (its sort key holds the task key)."""
    return set(TASK_KEY) <= set(sort_key(f))


def sample_key(f: sqlfiles.SqlFile) -> tuple[str, ...] | None:
    """The key `tracewh check` samples the table's rows by (all of a key's rows or none): the task
    key of a table of task rows, or of one read from such tables whose rows are each a task's (its
    grain names task_index); the job key of one read from them whose rows may stand for several
    tasks of a job, or of a stored table sorted by job whose rows are not each a task's
    (derived.task_groups); the machine key of a table of machine rows; None: the table is compared
    whole."""
    if keyed_by_task(f):
        return TASK_KEY
    if tuple(sort_key(f)[: len(JOB_KEY)]) == JOB_KEY:
        return JOB_KEY
    if any(per_task(g) for g in stored_files() if short(g) in reads(f)):
        return TASK_KEY if "task_index" in f.header.get("grain", "") else JOB_KEY
    if set(MACHINE_KEY) <= set(sort_key(f)):
        return MACHINE_KEY
    return None


def check_sql(f: sqlfiles.SqlFile, live: list[tuple[str, str]] | None = None) -> str:
    """The rows of a derived table that differ from the same rows recomputed from the events, on a
    sample of tasks (tables of one row per task or per task event; the small tables whole);
    ``live``: the catalog's (trace, table) pairs, to recompute only the traces checked_traces
    names (None: every trace)."""
    name = f"{SCHEMA}.{quote_ident(short(f))}"
    key = sample_key(f)
    sample = f"WHERE hash({', '.join(key)}) % {SAMPLE_EVERY} = 0" if key else ""
    again = recomputed(f, None if live is None else checked_traces(f, live))
    return (
        f"WITH stored AS (SELECT * FROM {name} {sample}), "
        f"again AS (SELECT * FROM ({again}) {sample}) "
        "SELECT 'stored, not recomputed' AS side, * "
        "FROM (SELECT * FROM stored EXCEPT ALL SELECT * FROM again) "
        "UNION ALL SELECT 'recomputed, not stored' AS side, * "
        "FROM (SELECT * FROM again EXCEPT ALL SELECT * FROM stored)"
    )


@dataclass
class Plan:
    """What an ingest's derived build recomputes, taken from the staged catalog before the ingest
    records its parts (the views still read the old generations)."""

    trace: str
    full: bool
    parts: list[tuple[str | None, int]] = field(default_factory=list)  # (cell, part) written
    gaps: dict[tuple[str | None, int], tuple[int, int]] = field(default_factory=dict)  # before


def plan(
    con: duckdb.DuckDBPyConnection, trace: str, parts: list[tuple[str | None, int]], replace: bool
) -> Plan:
    """Before the ingest's rows are recorded: the parts' gaps, and the tasks of the parts it
    replaces (their old events are read here, while the views still show them)."""
    have = (
        {n for (n,) in con.execute("SELECT name FROM meta.derived WHERE trace = $t", {"t": trace}).fetchall()}
        if recorded(con)
        else set()
    )
    if replace or any(short(f) not in have for f in stored_files()):
        return Plan(trace, True)
    out = Plan(trace, False, sorted(parts, key=lambda p: (p[0] or "", p[1])), _gaps(con, trace))
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_TOUCHED.split('.')[-1]} AS {_keys_in(out)}")
    return out


def recorded(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the catalog has meta.derived (a catalog written before the layer has not; asked
    first: a query naming a missing table would let DuckDB look for a Python object of its name)."""
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'meta' AND table_name = 'derived'"
    ).fetchone()
    return bool(row and row[0])


def _gaps(con: duckdb.DuckDBPyConnection, trace: str) -> dict[tuple[str | None, int], tuple[int, int]]:
    rows = con.execute(
        "SELECT cell, part, gaps_before, gaps_total FROM lifecycle.task_event_parts WHERE trace = $t",
        {"t": trace},
    ).fetchall()
    return {(c, p): (b, n) for c, p, b, n in rows}


def _keys_in(p: Plan) -> str:
    """The tasks with an event in the plan's parts (of the generation the views read now), each
    with the earliest time of those events (``since``: the task's events before it are the same
    in the old and the new generation)."""
    return f"SELECT e.cell, e.job_id, e.task_index, min(e.time) AS since FROM {_events_in(p)} GROUP BY ALL"


def _events_in(p: Plan, events: str = EVENTS_VIEW) -> str:
    """SQL (a FROM clause): the events ``e`` of the trace in the plan's parts (cell, part). The
    part is seq // SEQ_FILE_SHIFT: the same test on seq's ranges comes first, which the Parquet
    reader prunes files and row groups with, so the other parts' events are not read."""
    return (
        f"{events} AS e SEMI JOIN {_parts_values(p.parts)} "
        "ON w.cell IS NOT DISTINCT FROM e.cell AND w.part = e.part "
        f"WHERE e.trace = {quote_literal(p.trace)} AND ({_seq_ranges('e', [n for _, n in p.parts])})"
    )


def _parts_values(parts: list[tuple[str | None, int]]) -> str:
    """SQL: the parts (cell, part) as a relation ``w(cell, part)``."""
    listed = ", ".join(f"({quote_literal(c) if c else 'NULL'}, {int(n)})" for c, n in parts)
    return f"(VALUES {listed}) AS w(cell, part)"


def _runs(numbers: Iterator[int] | list[int]) -> list[tuple[int, int]]:
    """Sorted distinct integers as runs of consecutive ones, (first, last) each."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return [(a, b) for a, b in runs]


def _seq_ranges(alias: str, parts: list[int]) -> str:
    """SQL: ``alias``.seq within the parts' seq ranges (consecutive parts merged), a filter the
    Parquet reader prunes files and row groups with."""
    return " OR ".join(
        f"({alias}.seq >= {a * SEQ_FILE_SHIFT} AND {alias}.seq < {(b + 1) * SEQ_FILE_SHIFT})"
        for a, b in _runs(parts)
    )


def _on_key(a: str, b: str) -> str:
    return " AND ".join(f"{a}.{c} IS NOT DISTINCT FROM {b}.{c}" for c in TASK_KEY)


def generation(home: Home, trace: str, writer_id: str) -> Path:
    """The ingest's derived generation of ``trace``: one folder for every table its builders write
    (the task-event tables, the usage rollups, the walked tables), made by the first of them."""
    gen = generation_path(home, trace, writer_id)
    gen.mkdir(parents=True, exist_ok=True)
    return gen


def generation_path(home: Home, trace: str, writer_id: str) -> Path:
    """The folder of ``generation``, whether made yet or not."""
    return home.generations(trace) / f"{PREFIX}{writer_id}"


def build(con: duckdb.DuckDBPyConnection, home: Home, p: Plan, writer_id: str) -> list[Path]:
    """Write every stored derived table of the plan's trace into one new generation from the
    views of ``con`` (a staged catalog whose views now read the new raw generations), record them
    in meta.derived (the caller then points the derived views at them: create_views). Returns the
    generation folder (the caller removes it when the commit does not happen).

    The tables of one row per task or task event are computed batch by batch (``batches``): each
    batch holds whole jobs, read once from the view stack (into a scratch file when there are
    several), and the life-cycle views are run over it alone; the batches' rows, each sorted, are
    written in the batches' order."""
    trace = p.trace
    full = p.full or any(
        _gaps(con, trace).get(part, gaps) != gaps for part, gaps in p.gaps.items()
    )  # a part the trace had moved in the run of parts: the gaps of its events changed
    dirs = _stored_dirs(con, trace)
    old = {
        short(f): read_stored(f, stored_paths(home.root, dirs[short(f)], short(f)))
        for f in stored_files()
        if short(f) in dirs
    }
    gen = generation(home, trace, writer_id)
    scratch = home.tmp / writer_id / f"{PREFIX}{trace}"
    # The life-cycle views replaced while the tables are built (views bind at query time), put
    # back before anything else reads them: the events view pointed at one batch's events, and
    # the view of each table written that a later table reads, pointed at its file, so a table
    # computed from another (the observed window and missing spans from the segments) reads the
    # few stored rows instead of the events again.
    swapped: set[str] = set()
    try:
        _wait_for_a_test(con)
        events = f"SELECT * FROM {EVENTS_VIEW} WHERE trace = {quote_literal(trace)}"
        tasks: int | None = None
        files = [f for f in stored_files() if per_task(f)]
        if not full:
            con.execute(f"INSERT INTO {_TOUCHED} {_keys_in(p)}")
            # the touched tasks once (the plan's replaced parts and the parts written share tasks),
            # each with the earliest time of its events there; from_hour: the first hour of its
            # usage rows an ingest recomputes (NULL: every hour; _bound_windows)
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE {_TASKS.split('.')[-1]} AS SELECT {', '.join(TASK_KEY)}, "
                f"min(since) AS since, NULL::BIGINT AS {_FROM_HOUR} FROM {_TOUCHED} GROUP BY ALL"
            )
            stored = _stored_ranges(con, home, files, dirs)
            events = _touched_events(p, stored)
            row = con.execute(f"SELECT count(*) FROM {_TASKS}").fetchone()
            tasks = int(row[0]) if row else 0
        parts = batches(con, events, scratch)
        ranges = _job_units(con, stored) if tasks is not None else None
        if ranges is not None and any(USAGE_INPUT in inputs_of(f) for f in files):
            # the touched tasks' usage windows that can change attempt, read once: every batch's
            # attempts' usage and the comparison of their old and new attempts (_changed_units)
            # read these, not every window
            _bound_windows(con, home, trace, dirs, ranges)
            _swap(con, swapped, USAGE_VIEW, f"SELECT * FROM {_WINDOWS}")
        _per_task_tables(con, home, p, gen, writer_id, swapped, parts, scratch, old, dirs, tasks, ranges)
        # the tables of rows of tasks, now whole in the new generation, are what the tables below
        # read of them (the task groups: a row per job from the stored tasks), not the view stack.
        # Only those read (each swap is bound again at the end: _restore)
        whole = [f for f in stored_files() if not per_task(f)]
        for f in files:
            if short(f) != STORED_EVENTS and _read_by(f"lifecycle.{short(f)}", whole):
                _swap_to_stored(con, swapped, gen, f)
        # only parts added (none replaced, the old parts' gaps kept): the tables with a stand-in
        # for their events or of counts read the added events only (_from_added)
        added = tasks is not None and not any(part in p.gaps for part in p.parts)
        for n, f in enumerate(whole):
            sql = query(f, trace)
            if added and short(f) in dirs and (f.header.get("standin") or f.header.get("sums")):
                sql = _from_added(con, home, p, f, dirs[short(f)], swapped)
            _write(con, home, p, f, gen, writer_id, sql, None)
            _restore(con, swapped, {EVENTS_VIEW})
            if _read_by(f"lifecycle.{short(f)}", whole[n + 1 :]):
                _swap_to_stored(con, swapped, gen, f)
        _restore(con, swapped, set(swapped))  # (not after an error: _restore)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name in (_TOUCHED, _TASKS, _EVENTS, _JOBS, _WINDOWS, _AGAIN, _BEFORE, _TASK_HOURS):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    return [gen]


def _touched_events(p: Plan, stored: StoredRanges) -> str:
    """SQL: the events of the touched tasks (_TASKS) as the new generation has them, without a
    read of every stored event: their earlier events from the stored copy of the events sorted by
    task (derived.task_events: the files of the job ranges holding them, the events of the parts
    the plan replaces left out) and the events of the plan's parts from the raw tables (every one
    of them a touched task's), whose seq ranges the Parquet reader prunes the other parts by. The
    plan's old parts keep their gaps (else the build is whole), so the stored events' part and
    gap columns are the new generation's."""
    held = read_stored(_stored_file(STORED_EVENTS), stored.touched_paths(STORED_EVENTS))
    earlier = (
        f"SELECT o.* FROM {held} AS o SEMI JOIN {_TASKS} AS k ON {_on_key('k', 'o')} "
        f"ANTI JOIN {_parts_values(p.parts)} ON w.cell IS NOT DISTINCT FROM o.cell AND w.part = o.part"
    )
    return f"{earlier} UNION ALL BY NAME SELECT e.* FROM {_events_in(p)}"


def _window_hour(u: str, trace: str) -> str:
    """SQL: the clock hour (USAGE_HOUR) of the usage window ``u`` of ``trace``, as the usage tables
    have it."""
    return f"{u}.start_time // meta.time_units({quote_literal(trace)}, 3600)"


def _bound_windows(
    con: duckdb.DuckDBPyConnection, home: Home, trace: str, dirs: dict[str, str], ranges: JobUnits
) -> None:
    """The touched tasks' usage windows whose attempt an incremental build may change, into
    _WINDOWS, and each task's first hour of them in _TASKS (_FROM_HOUR; NULL: every hour).

    The rule, from lifecycle.attempt_usage_hourly: a window belongs to the attempt that ran with
    run_start = coalesce(schedule_time, 0) <= start < run_end = the least of its end event and the
    next attempt's first event. Let ``since`` be the earliest time of the task's events the ingest
    adds or removes: its events before ``since`` are the same before and after. When those include
    a SUBMIT or a SCHEDULE, every attempt before the one open at ``since`` keeps its events, its
    end and the next attempt's start (all before ``since``); the open one keeps ran and run_start
    (its SCHEDULE before ``since``, or none then: not run before ``since``, episode >= 1) and its
    run_end moves only between times >= ``since``; later attempts start at or after ``since``. So
    no window starting before ``since`` changes attempt: the task's rows from the hour of
    ``since`` on are recomputed. Otherwise (no SUBMIT nor SCHEDULE before ``since``: a task new to
    the trace, or an attempt 0 with no SCHEDULE yet, which runs from time 0 once an UPDATE_RUNNING
    or an end event on a machine says it ran) any window of the task may change: all its rows are
    recomputed, from its windows of the hours the stored task_usage_hourly holds for it (every
    stored window; a window of this ingest's usage parts lies in an hour build_usage recomputes
    whole after this build). Whether a SUBMIT or SCHEDULE came before ``since`` is read from the
    old generation's stored attempts of the touched tasks (their first SUBMIT and SCHEDULE times;
    the same before ``since``). Only the hours read are replaced in the stored table (_write_per_task)."""
    t = quote_literal(trace)
    core = _stored_file(_ATTEMPTS)
    attempts = read_stored(core, ranges.rewritten[_ATTEMPTS] if job_ranges(core) else [])
    con.execute(
        f"UPDATE {_TASKS} AS k SET {_FROM_HOUR} = k.since // meta.time_units({t}, 3600) "
        f"FROM (SELECT DISTINCT o.cell, o.job_id, o.task_index FROM {attempts} AS o "
        f"JOIN {_TASKS} AS s ON {_on_key('s', 'o')} "
        "WHERE o.submit_time < s.since OR o.schedule_time < s.since) AS a "
        f"WHERE {_on_key('a', 'k')}"
    )
    (first,) = con.execute(f"SELECT min({_FROM_HOUR}) FROM {_TASKS}").fetchone() or (None,)
    # a bound the Parquet reader prunes files and row groups with (raw times are >= 0)
    after = f" AND u.start_time >= {int(first)} * meta.time_units({t}, 3600)" if first else ""
    bounded = (
        f"SELECT u.* FROM {USAGE_VIEW} AS u SEMI JOIN {_TASKS} AS k ON {_on_key('k', 'u')} "
        f"AND k.{_FROM_HOUR} IS NOT NULL AND {_window_hour('u', trace)} >= k.{_FROM_HOUR} "
        f"WHERE u.trace = {t}{after}"
    )
    if _TASK_INDEX in dirs:
        index = next(f for f in usage_files() if short(f) == _TASK_INDEX)
        stored = read_stored(index, stored_paths(home.root, dirs[_TASK_INDEX], _TASK_INDEX))
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {_TASK_HOURS.split('.')[-1]} AS "
            f"SELECT DISTINCT h.cell, h.job_id, h.task_index, h.{USAGE_HOUR} FROM {stored} AS h "
            f"SEMI JOIN {_TASKS} AS k ON {_on_key('k', 'h')} AND k.{_FROM_HOUR} IS NULL"
        )
        whole = (
            f"SELECT u.* FROM {USAGE_VIEW} AS u SEMI JOIN {_TASK_HOURS} AS h ON {_on_key('h', 'u')} "
            f"AND h.{USAGE_HOUR} = {_window_hour('u', trace)} "
            f"WHERE u.trace = {t} AND ({_hour_ranges(con, trace, _TASK_HOURS)})"
        )
    else:  # no stored hours (a catalog from before the table): every window of those tasks
        whole = (
            f"SELECT u.* FROM {USAGE_VIEW} AS u SEMI JOIN {_TASKS} AS k ON {_on_key('k', 'u')} "
            f"AND k.{_FROM_HOUR} IS NULL WHERE u.trace = {t}"
        )
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_WINDOWS.split('.')[-1]} AS {bounded} UNION ALL {whole}")


def _from_added(
    con: duckdb.DuckDBPyConnection, home: Home, p: Plan, f: sqlfiles.SqlFile, data_dir: str, swapped: set[str]
) -> str:
    """The query of a table with ``standin:`` or ``sums:`` when an ingest only adds parts: the
    events view pointed at the added parts' events (the view's own query, filtered) and, with a
    stand-in, the rows standing for the events the stored table was made from; with sums, the
    added events' counts added to the stored rows' by the other columns."""
    stored = read_stored(f, stored_paths(home.root, data_dir, short(f)))
    view = f"({_lifecycle_body(con, EVENTS_VIEW.split('.', 1)[1])})"
    added = f"SELECT e.* FROM {_events_in(p, view)}"
    standin = f.header.get("standin")
    if standin:
        _swap(
            con,
            swapped,
            EVENTS_VIEW,
            f"{added} UNION ALL BY NAME (WITH stored AS (SELECT * FROM {stored}) {standin})",
        )
        return query(f, p.trace)
    _swap(con, swapped, EVENTS_VIEW, added)
    sums = {c.strip() for c in f.header["sums"].split(",")}
    columns = con.execute(f"DESCRIBE SELECT * FROM {stored}").fetchall()
    listed = ", ".join(
        f"CAST(sum({quote_ident(c)}) AS {t}) AS {quote_ident(c)}" if c in sums else quote_ident(c)
        for c, t, *_ in columns
    )
    return (
        f"SELECT {listed} FROM (SELECT * FROM {stored} "
        f"UNION ALL BY NAME SELECT * FROM ({query(f, p.trace)})) GROUP BY ALL"
    )


# The crash tests' signal inside a query of the build: when it names a file, the build first runs
# a query that never ends on its connection and writes the file once this thread is inside it (the
# test signals the process then, whatever the machine's load).
WAIT_ENV = "TRACEWH_TEST_DERIVED_WAIT"
# Where the build waits (default its start): "ranges", once a table stored by job ranges is written
# (its untouched ranges' files linked into the new generation).
WAIT_AT_ENV = "TRACEWH_TEST_DERIVED_WAIT_AT"


def _wait_for_a_test(con: duckdb.DuckDBPyConnection, at: str = "start") -> None:
    flag = os.environ.get(WAIT_ENV)
    if flag and os.environ.get(WAIT_AT_ENV, "start") == at:
        signals.endless_query(con, lambda: Path(flag).write_text("inside the build's query\n"))


# Task events per job range of the tables stored by ranges (job_ranges), and the most a build batch
# holds (whole jobs each, so a batch or a range may hold more): the stored layout, the same
# whatever memory the ingest that wrote it had, so that a home's ranges are cut alike by every
# ingest. Below it, a trace (or an incremental build's tasks) is one batch and reads the view
# stack once, with no scratch files.
BATCH_EVENTS = 2_000_000
# DuckDB memory a build batch holds per task event at its peak: the transitions' COPY (the window
# over each task's events and the sort of its rows) held 589 MiB for a batch of 2.01 M events, 307
# bytes an event, the attempts' aggregate 548 MiB, the rest less (duckdb_memory() sampled every 50
# ms through a whole build of the synthetic whole-trace parts 0-19, 6.2 M events, in a 2,349 MiB pool:
# bench/probes/derived_batch_memory.py); rounded up. In a 477 MiB pool (a 1GB ingest) a range then
# goes in two batches, which peaked at 362 MiB and spilled nothing.
BATCH_BYTES_PER_EVENT = 320
_JOBS = "temp.main.derived_jobs"
_BATCH = "derived_batch"


def batch_share(con: duckdb.DuckDBPyConnection) -> int:
    """Into how many batches the build cuts a range of BATCH_EVENTS events: the fewest whose
    batches fit DuckDB's memory limit on ``con`` (the ingest's pool) at BATCH_BYTES_PER_EVENT, so
    a small pool does not spill and a large one keeps batches of a whole range."""
    row = con.execute("SELECT current_setting('memory_limit')").fetchone()
    pool = limit_bytes(str(row[0])) if row else None
    if not pool:
        return 1
    return max(1, -(-BATCH_EVENTS * BATCH_BYTES_PER_EVENT // pool))


def batches(con: duckdb.DuckDBPyConnection, events: str, scratch: Path) -> list[tuple[int, str]]:
    """The relation ``events`` (task events of one trace) cut into batches of whole jobs, each
    batch a stretch of (cell, job_id) in the stored tables' order: the batches' queries in that
    order, each with its job range (numbered from 0; BATCH_EVENTS a range, each range cut into
    batch_share batches). More than one: the events are read once and written to ``scratch``,
    one folder a batch."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {_JOBS.split('.')[-1]} AS "
        f"SELECT cell, job_id, count(*) AS events FROM ({events}) GROUP BY ALL"
    )
    row = con.execute(f"SELECT sum(events) FROM {_JOBS}").fetchone()
    share = batch_share(con)
    if not row or row[0] is None or int(row[0]) <= BATCH_EVENTS // share:
        return [(0, events)]
    # the batch of a job: its range (the events of the jobs before it, in the tables' order, //
    # the range's size) and its share of the range, so the ranges do not depend on the share
    size = int(BATCH_EVENTS)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {_JOBS.split('.')[-1]} AS SELECT cell, job_id, events, "
        f"before // {size} * {int(share)} + before % {size} * {int(share)} // {size} AS {_BATCH} "
        "FROM (SELECT *, sum(events) OVER (ORDER BY cell, job_id ROWS UNBOUNDED PRECEDING) - events "
        f"AS before FROM {_JOBS})"
    )
    scratch.mkdir(parents=True, exist_ok=True)
    out = scratch / "events"
    options = parquet_settings.copy_options(parquet_settings.SCRATCH)
    con.execute(
        f"COPY (SELECT e.*, j.{_BATCH} FROM ({events}) AS e JOIN {_JOBS} AS j "
        f"ON j.cell IS NOT DISTINCT FROM e.cell AND j.job_id = e.job_id) TO {quote_literal(out)} "
        f"({options}, PARTITION_BY ({_BATCH}), OVERWRITE_OR_IGNORE)"
    )
    numbers = [n for (n,) in con.execute(f"SELECT DISTINCT {_BATCH} FROM {_JOBS} ORDER BY 1").fetchall()]
    ranges = sorted({n // share for n in numbers})
    return [
        (
            ranges.index(n // share),
            f"SELECT * FROM read_parquet({quote_literal(out / f'{_BATCH}={n}' / '*.parquet')}, "
            "hive_partitioning = false)",
        )
        for n in numbers
    ]


def _range_file(
    con: duckdb.DuckDBPyConnection,
    p: Plan,
    f: sqlfiles.SqlFile,
    ordered: str,
    folder: Path,
    r: int,
    parts: list[tuple[int, str]],
    i: int,
    scratch: Path,
) -> int:
    """Batch ``i``'s rows (``ordered``) into the file of its range ``r`` in ``folder``: a range of
    one batch straight, of several (a pool too small for a range) each batch's rows to ``scratch``
    and, after its last batch, the range's file from them in the batches' order. The rows written
    to the range's file (0 until its last batch; a range of no rows has no file)."""
    folder.mkdir(exist_ok=True)
    out = folder / f"{r}.parquet"
    mine = [j for j, (q, _) in enumerate(parts) if q == r]
    if len(mine) == 1:
        got = _copy(con, p, f, ordered, out, parquet_settings.DERIVED)
    else:
        piece = scratch / f"{short(f)}.{r}.{i}.parquet"
        _copy(con, p, f, ordered, piece, parquet_settings.SCRATCH)
        if i != mine[-1]:
            return 0
        listed = ", ".join(quote_literal(scratch / f"{short(f)}.{r}.{j}.parquet") for j in mine)
        got = _copy(con, p, f, f"SELECT * FROM read_parquet([{listed}])", out, parquet_settings.DERIVED)
        for j in mine:
            (scratch / f"{short(f)}.{r}.{j}.parquet").unlink()
    if not got:
        out.unlink()
    return got


def _per_task_tables(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    p: Plan,
    gen: Path,
    writer_id: str,
    swapped: set[str],
    parts: list[tuple[int, str]],
    scratch: Path,
    old: dict[str, str],
    dirs: dict[str, str],
    tasks: int | None,
    ranges: JobUnits | None,
) -> None:
    """The tables of one row per task or task event from the batches ``parts`` (each the events
    of whole jobs, with its job range; ``tasks`` None: every task of the trace, else the rows of
    the other tasks are kept from the old tables, ``old`` name -> relation, ``dirs`` name ->
    generation folder): the events view reads one batch at a time. A table stored by job ranges
    (job_ranges) rebuilt whole has one file per range (its batches' rows in order); built
    incrementally, the files of the ranges holding the touched tasks are written again and the
    others carried over (_job_units)."""
    files = [f for f in stored_files() if per_task(f)]
    pieces: dict[str, list[Path]] = {short(f): [] for f in files}
    rows = dict.fromkeys(pieces, 0)
    for i, (r, batch) in enumerate(parts):
        if len(parts) > 1:
            # the batch's scratch file, read by each table's query: a table of the batch's events
            # would stay in memory (or spilled) to the ingest's commit, every batch's, since the
            # transaction keeps what it drops or replaces
            _swap(con, swapped, EVENTS_VIEW, batch)
        else:  # one batch, read once from the view stack
            con.execute(f"CREATE OR REPLACE TEMP TABLE {_EVENTS.split('.')[-1]} AS {batch}")
            _swap(con, swapped, EVENTS_VIEW, f"SELECT * FROM {_EVENTS}")
        for f in files:
            name = short(f)
            if tasks is None and job_ranges(f):
                # a whole rebuild: each range's rows sorted are its file (_range_file)
                ordered = f"SELECT * FROM ({query(f, p.trace)}) ORDER BY {', '.join(sort_key(f))}"
                rows[name] += _range_file(con, p, f, ordered, gen / name, r, parts, i, scratch)
                continue
            if len(parts) == 1:  # the batch's rows are the query itself (no scratch file)
                continue
            ordered = f"SELECT * FROM ({query(f, p.trace)}) ORDER BY {', '.join(sort_key(f))}"
            pieces[name].append(scratch / f"{name}.{i}.parquet")
            _copy(con, p, f, ordered, pieces[name][-1], parquet_settings.SCRATCH)
        if len(parts) == 1:
            _write_per_task(con, home, p, files, gen, writer_id, old, dirs, ranges, tasks, None, rows)
    _restore(con, swapped, {EVENTS_VIEW})
    if len(parts) > 1:
        _write_per_task(con, home, p, files, gen, writer_id, old, dirs, ranges, tasks, pieces, rows)


def _write_per_task(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    p: Plan,
    files: list[sqlfiles.SqlFile],
    gen: Path,
    writer_id: str,
    old: dict[str, str],
    dirs: dict[str, str],
    ranges: JobUnits | None,
    tasks: int | None,
    pieces: dict[str, list[Path]] | None,
    rows: dict[str, int],
) -> None:
    """Each per-task table written from its new rows (``pieces``: the batches' sorted scratch
    files; None: the one batch's query, the events view pointed at it) and the kept rows of the
    other tasks (an incremental build)."""
    for f in files:
        name = short(f)
        if tasks is None and job_ranges(f):
            _record(con, home, p, name, gen, writer_id, rows[name], tasks)
            continue
        new = (
            query(f, p.trace)
            if pieces is None
            else f"SELECT * FROM read_parquet([{', '.join(quote_literal(x) for x in pieces[name])}])"
        )
        if tasks is None:
            _write(con, home, p, f, gen, writer_id, new, tasks)
            continue
        carried: dict[int, Path] = {}
        unit = None
        stored = old[name]
        if ranges is not None and job_ranges(f):
            # only the ranges holding a touched task are read and written; the others are carried
            carried, unit = ranges.carried[name], ranges.unit
            stored = read_stored(f, ranges.rewritten[name])
        elif unit_of(f):
            # only the units where the touched tasks' rows change are read and written
            rewritten, carried, new = _changed_units(con, home, p, f, files, new, old, dirs, ranges)
            stored = read_stored(f, rewritten)
        # the touched tasks' rows recomputed (of a usage table, those of the hours recomputed)
        # leave; the others are kept
        hours = f" AND (k.{_FROM_HOUR} IS NULL OR o.{USAGE_HOUR} >= k.{_FROM_HOUR})" if unit_of(f) else ""
        kept = f"SELECT * FROM {stored} AS o ANTI JOIN {_TASKS} AS k ON {_on_key('k', 'o')}{hours}"
        sql = f"{kept} UNION ALL BY NAME SELECT * FROM ({new})"
        _write(con, home, p, f, gen, writer_id, sql, tasks, carried, unit)
        if carried:  # (a test stops the build here: untouched ranges' files linked, other tables not written)
            _wait_for_a_test(con, "ranges")


def _changed_units(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    p: Plan,
    f: sqlfiles.SqlFile,
    files: list[sqlfiles.SqlFile],
    new: str,
    old: dict[str, str],
    dirs: dict[str, str],
    ranges: JobUnits | None,
) -> tuple[list[Path], dict[int, Path], str]:
    """An incremental build of a per-task table of unit files (``unit:``; the attempts' usage):
    the old generation's files of the units where a touched task's rows change, the other units'
    files (unit -> file, carried over), and the new rows of those units. A touched task's rows
    change only where its windows change attempt: its rows are computed twice from the same
    windows (the usage view reads the touched tasks' windows, build), with the new attempts
    (``new``) and with the old generation's stored ones; the units of the rows that differ are
    the ones written again. Where the same ingest also writes usage parts, the hours they hold
    are recomputed whole after this (build_usage), so a window they add or drop needs nothing here."""
    name, unit = short(f), unit_of(f)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_AGAIN.split('.')[-1]} AS {new}")
    swapped: set[str] = set()
    # the per-task tables of the events (the attempts) as the old generation stores them
    stored: dict[str, str] = {}
    for g in files:
        # (the stored events are not swapped in: the attempts read from the events stand in for them,
        # and the build's events view, pointed at the batch, must stay so)
        if g is not f and USAGE_INPUT not in inputs_of(g) and short(g) != STORED_EVENTS:
            if ranges is not None and job_ranges(g):
                paths = ranges.rewritten[short(g)]
                stored[short(g)] = read_stored(g, paths)
                if not paths:
                    # no stored range holds a touched task (new jobs only): the typed empty relation
                    # is made now, from the views as their files make them; made after a swap it
                    # would read the swapped view itself
                    none = f"{_NONE}_{short(g)}"
                    con.execute(f"CREATE OR REPLACE TEMP TABLE {none} AS {stored[short(g)]}")
                    stored[short(g)] = f"temp.main.{none}"
            else:
                stored[short(g)] = old[short(g)]
    for name_g, rows in stored.items():
        _swap(
            con,
            swapped,
            f"lifecycle.{name_g}",
            f"SELECT o.* FROM {rows} AS o SEMI JOIN {_TASKS} AS k ON {_on_key('k', 'o')}",
        )
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_BEFORE.split('.')[-1]} AS {query(f, p.trace)}")
    _restore(con, swapped, set(swapped))  # (not after an error: _restore)
    for name_g in stored:
        con.execute(f"DROP TABLE IF EXISTS temp.main.{_NONE}_{name_g}")
    changed = (
        f"(SELECT * FROM {_AGAIN} EXCEPT ALL SELECT * FROM {_BEFORE}) "
        f"UNION ALL (SELECT * FROM {_BEFORE} EXCEPT ALL SELECT * FROM {_AGAIN})"
    )
    units = {int(u) for (u,) in con.execute(f"SELECT DISTINCT {unit} FROM ({changed})").fetchall()}
    paths = stored_paths(home.root, dirs[name], name)
    listed = ", ".join(str(u) for u in sorted(units)) or "NULL"
    return (
        [x for x in paths if int(x.stem) in units],
        {int(x.stem): x for x in paths if int(x.stem) not in units},
        f"SELECT * FROM {_AGAIN} WHERE {unit} IN ({listed})",
    )


@dataclass
class JobUnits:
    """The job ranges an incremental build writes: ``unit`` the range of a row of them (an
    expression of cell and job_id), per table the files of those ranges in the old generation
    (``rewritten``) and the files of the other ranges (``carried``, range -> file)."""

    unit: str
    rewritten: dict[str, list[Path]]
    carried: dict[str, dict[int, Path]]


def _order(cell: str | None, job_id: int) -> tuple[bool, str, int]:
    """A job's place in the tables' order (ORDER BY cell, job_id: a NULL cell last)."""
    return (cell is None, cell or "", job_id)


def _at_least(cell: str | None, job_id: int) -> str:
    """SQL: the row's (cell, job_id) is not before the given job in the tables' order."""
    if cell is None:
        return f"(cell IS NULL AND job_id >= {int(job_id)})"
    c = quote_literal(cell)
    return f"(cell IS NULL OR cell > {c} OR (cell = {c} AND job_id >= {int(job_id)}))"


# A stored range rewritten by an ingest while holding more than twice this many rows (in its
# largest table) is cut into ranges of about this many (whole jobs). The jobs a batch touches among
# the stored ones cluster (the long-running jobs of low id, the previous batch's jobs still
# running): once cut, a later batch rewrites the small ranges holding them, not a whole batch's
# range that grows with every batch, so an ingest's cost follows the jobs it touches. Smaller
# ranges, more files for every reader to open: only a range an ingest rewrites is cut (into ~1/8
# of a batch's range); twice the size before a range is cut again, so a piece that grows a little
# is not cut at every ingest.
RANGE_ROWS = 250_000


@dataclass
class StoredRanges:
    """The job ranges of the stored tables an incremental build reads: per table its files
    (``paths``), each range's first job (``start_jobs``), the last stored job's place in the
    tables' order (``last``), the highest range number (``top``), and the ranges holding a job
    asked for (``touched``)."""

    paths: dict[str, list[Path]]
    start_jobs: dict[int, tuple[str | None, int]]
    last: tuple[bool, str, int] | None
    top: int
    touched: set[int]

    def touched_paths(self, name: str) -> list[Path]:
        """The files of table ``name`` of the ranges holding a job asked for."""
        return [x for x in self.paths[name] if int(x.stem) in self.touched]


def _stored_ranges(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    files: list[sqlfiles.SqlFile],
    dirs: dict[str, str],
    jobs: str = _TASKS,
) -> StoredRanges:
    """The stored job ranges of ``files`` and those of them holding a job (cell, job_id) of the
    relation ``jobs`` (default the touched tasks). A stored range starts at the first job of its
    files (what its file holds; no separate record to keep in step) and runs to the next range's
    start; a job falls in the last range starting at or before it (the first range for a job
    before every start); a job after every stored one is in none."""
    import bisect

    ranged = [f for f in files if job_ranges(f)]
    paths = {short(f): stored_paths(home.root, dirs[short(f)], short(f)) for f in ranged}
    starts: dict[int, tuple[bool, str, int]] = {}
    start_jobs: dict[int, tuple[str | None, int]] = {}
    last: tuple[bool, str, int] | None = None
    top = max((int(x.stem) for xs in paths.values() for x in xs), default=-1)
    for xs in paths.values():
        for x in xs:
            src = f"read_parquet({quote_literal(x)})"
            row = con.execute(f"SELECT cell, job_id FROM {src} LIMIT 1").fetchone()
            if row is None:
                continue
            u = int(x.stem)
            if u not in starts or _order(*row) < starts[u]:
                starts[u], start_jobs[u] = _order(*row), (row[0], int(row[1]))
            if u == top:
                end = con.execute(
                    f"SELECT cell, job_id FROM {src} ORDER BY cell DESC NULLS FIRST, job_id DESC LIMIT 1"
                ).fetchone()
                if end is not None and (last is None or _order(*end) > last):
                    last = _order(*end)
    units = sorted(starts, key=lambda u: starts[u])
    keys = [starts[u] for u in units]
    touched: set[int] = set()
    for cell, job in con.execute(f"SELECT DISTINCT cell, job_id FROM {jobs}").fetchall():
        k = _order(cell, job)
        if units and last is not None and k <= last:
            touched.add(units[max(bisect.bisect_right(keys, k) - 1, 0)])
    return StoredRanges(paths, start_jobs, last, top, touched)


def _job_units(con: duckdb.DuckDBPyConnection, stored: StoredRanges) -> JobUnits:
    """The ranges of jobs an incremental build rewrites: the stored ranges holding a touched task
    (_stored_ranges), and the touched jobs after every stored job in new ranges after the stored
    ones, cut as ``batches`` cuts (events per range). A rewritten range of more than 2 x RANGE_ROWS
    rows is cut at jobs into ranges of about RANGE_ROWS. The ranges are numbered in the jobs'
    order: a cut range's pieces take the numbers after its own, the later ranges' numbers move up
    by as many (their files carried under the new numbers)."""
    import pyarrow.parquet as pq

    paths, start_jobs, last, top = stored.paths, dict(stored.start_jobs), stored.last, stored.top
    touched = set(stored.touched)
    # the stored ranges rewritten, cut where they hold more than RANGE_ROWS rows: the first job of
    # each later piece (by the jobs' rows in the range's largest file)
    cuts: dict[int, list[tuple[str | None, int]]] = {}
    for u in sorted(touched):
        mine = [x for xs in paths.values() for x in xs if int(x.stem) == u]
        rows = {x: pq.read_metadata(x).num_rows for x in mine}
        biggest = max(mine, key=rows.__getitem__)
        if rows[biggest] <= 2 * RANGE_ROWS:
            continue
        jobs = con.execute(
            f"SELECT cell, job_id, count(*) FROM read_parquet({quote_literal(biggest)}) GROUP BY ALL"
        ).fetchall()
        seen = 0
        for cell, job, n in sorted(jobs, key=lambda r: _order(r[0], r[1])):
            if seen >= RANGE_ROWS:
                cuts.setdefault(u, []).append((cell, int(job)))
                seen = 0
            seen += int(n)
    # the new jobs after the last stored one, in order, with their events (of ``batches``)
    new = sorted(
        (_order(c, j), c, int(j), int(n))
        for c, j, n in con.execute(f"SELECT cell, job_id, events FROM {_JOBS}").fetchall()
        if last is None or _order(c, j) > last
    )
    seen = 0
    for _, cell, job, n in new:
        u = top + 1 + seen // BATCH_EVENTS
        if u not in touched:  # the range's first job is its start
            start_jobs[u] = (cell, job)
            touched.add(u)
        seen += n
    # the numbers in the jobs' order (a stored range's number is already in it): each range's
    # after the pieces cut before it
    number: dict[int, int] = {}
    firsts: dict[int, tuple[str | None, int]] = {}  # a written range's number -> its first job
    moved = 0
    for u in sorted({int(x.stem) for xs in paths.values() for x in xs} | touched):
        number[u] = u + moved
        if u in touched:
            firsts[number[u]] = start_jobs[u]
        for job in cuts.get(u, []):
            moved += 1
            firsts[u + moved] = job
    written = sorted(firsts, key=lambda n: _order(*firsts[n]))
    # the last range starting at or before the row's job (the first range: before every start)
    later = " ".join(f"WHEN {_at_least(*firsts[n])} THEN {n}" for n in reversed(written[1:]))
    unit = f"CASE {later} ELSE {written[0]} END" if later else str(written[0] if written else 0)
    return JobUnits(
        unit,
        {n: [x for x in xs if int(x.stem) in touched] for n, xs in paths.items()},
        {n: {number[int(x.stem)]: x for x in xs if int(x.stem) not in touched} for n, xs in paths.items()},
    )


def _swap(con: duckdb.DuckDBPyConnection, swapped: set[str], view: str, sql: str) -> None:
    """Point a life-cycle view at ``sql`` for the rest of the build (the build's queries read one
    trace, the only one whose rows ``sql`` must have)."""
    if any(_makes(f, view) for f in sqlfiles.folder("lifecycle")):
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {sql}")
        swapped.add(view)


def _restore(con: duckdb.DuckDBPyConnection, swapped: set[str], views: set[str]) -> None:
    """The life-cycle views as their files make them (with their comments), each file run once.
    A build puts back what it swapped when it ends well, never on an error: the failed statement
    aborted the caller's transaction, which never commits (the ingest drops its staged catalog
    whole), and a statement run on it would fail and hide the error with its own ("Current
    transaction is aborted")."""
    for f in sqlfiles.folder("lifecycle"):
        if any(_makes(f, v) for v in views & swapped):
            con.execute(expand_sql(f.body))
    swapped -= views


def _swap_to_stored(
    con: duckdb.DuckDBPyConnection, swapped: set[str], gen: Path, f: sqlfiles.SqlFile
) -> None:
    """Point the life-cycle view of the stored table ``f`` at its files in the new generation
    ``gen``; a table with no file (a trace without task events) stays its view (read_stored's
    empty relation is a query of that very view, which would then read itself)."""
    if paths := stored_paths(gen, ".", short(f)):
        _swap(con, swapped, f"lifecycle.{short(f)}", f"SELECT * FROM {read_stored(f, paths)}")


def _read_by(view: str, tables: list[sqlfiles.SqlFile]) -> bool:
    """Whether the life-cycle files making ``tables`` read ``view``, directly or through the
    life-cycle views they name (a mention in a comment counts too: a superset), i.e. whether
    pointing ``view`` at its stored rows saves them a computation. Each swap costs its bind again
    at the build's end (_restore: ~30-50 ms a view on a small home), paid by every ingest, so a
    view no later table reads is left as it is."""
    lifecycle = sqlfiles.folder("lifecycle")
    seen: set[str] = set()
    todo = {f"lifecycle.{short(f)}" for f in tables}
    while todo:
        seen |= todo
        text = "\n".join(g.body for g in lifecycle if any(_makes(g, v) for v in todo))
        todo = {f"lifecycle.{n}" for n in re.findall(r"\blifecycle\.(\w+)", text)} - seen
    return view in seen


def _makes(f: sqlfiles.SqlFile, view: str) -> bool:
    return view.lower() in sqlfiles.creates(f.body, "view")


def _write(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    p: Plan,
    f: sqlfiles.SqlFile,
    gen: Path,
    writer_id: str,
    sql: str,
    tasks: int | None,
    carried: dict[int, Path] | None = None,
    unit: str | None = None,
) -> None:
    """One stored table, sorted for its readers, and its row of meta.derived (``tasks``: how many
    tasks an incremental build recomputed; None: the table was rebuilt whole). A table stored in
    units (in_units): its folder of unit files, each row in the file of ``unit`` (an expression of
    its columns; default the table's ``unit:``), with the ``carried`` ones (unit -> file of the old
    generation) linked in unchanged."""
    name = short(f)
    order = f" ORDER BY {', '.join(sort_key(f))}" if sort_key(f) else ""
    if in_units(f):
        import pyarrow.parquet as pq

        expr = unit or unit_of(f)
        if expr is None:
            raise CatalogError(f"{p.trace}: building {f.name} failed: no unit for its rows")
        _write_units(con, p, f, f"SELECT * FROM ({sql})", gen / name, carried or {}, expr)
        rows = sum(pq.read_metadata(x).num_rows for x in stored_paths(gen, ".", name))
    else:
        rows = _copy(
            con, p, f, f"SELECT * FROM ({sql}){order}", gen / f"{name}.parquet", parquet_settings.DERIVED
        )
    _record(con, home, p, name, gen, writer_id, int(rows), tasks)


# The unit of a row while a table of unit files is written (a column of the scratch file only).
_UNIT = "derived_unit"


def _write_units(
    con: duckdb.DuckDBPyConnection,
    p: Plan,
    f: sqlfiles.SqlFile,
    sql: str,
    folder: Path,
    carried: dict[int, Path],
    unit: str,
) -> None:
    """``sql``'s rows as one file per ``unit``, each sorted, in a new ``folder`` (replacing one of the
    same name, which ``sql`` may read: made aside, then moved in), the ``carried`` files linked."""
    building = folder.with_name(f".{folder.name}.building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    # every row once, sorted by unit: each unit's file then reads its stretch of it
    whole = building / "rows.scratch"
    order = ", ".join(sort_key(f))
    _copy(
        con,
        p,
        f,
        f"SELECT *, {unit} AS {_UNIT} FROM ({sql}) ORDER BY {_UNIT}, {order}",
        whole,
        parquet_settings.SCRATCH,
    )
    rows = f"read_parquet({quote_literal(whole)})"
    units = [u for (u,) in con.execute(f"SELECT DISTINCT {_UNIT} FROM {rows} ORDER BY 1").fetchall()]
    if None in units or set(units) & set(carried):
        raise CatalogError(f"{p.trace}: building {f.name} failed: a row of no unit or of a carried unit")
    for u in units:
        _copy(
            con,
            p,
            f,
            f"SELECT * EXCLUDE ({_UNIT}) FROM {rows} WHERE {_UNIT} = {int(u)} ORDER BY {order}",
            building / f"{int(u)}.parquet",
            parquet_settings.DERIVED,
        )
    whole.unlink()
    for u, path in carried.items():
        _carry(path, building / f"{u}.parquet")
    shutil.rmtree(folder, ignore_errors=True)
    building.rename(folder)


def _carry(src: Path, dst: Path) -> None:
    """An old generation's unit file into the new one as it is: a hard link (the same file; the
    old generation's removal leaves it), a copy where the file system has none."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _record(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    p: Plan,
    name: str,
    gen: Path,
    writer_id: str,
    rows: int,
    tasks: int | None,
) -> None:
    """The row of meta.derived of a table written to ``gen``."""
    con.execute(
        "INSERT OR REPLACE INTO meta.derived BY NAME SELECT $t AS trace, $n AS name, $dir AS data_dir, "
        "$rows AS rows, $bytes AS bytes, $w AS writer_id, $tasks AS tasks_recomputed, now() AS updated",
        {
            "t": p.trace,
            "n": name,
            "dir": str(gen.relative_to(home.root)),
            "rows": rows,
            "bytes": sum(x.stat().st_size for x in stored_paths(gen, ".", name)),
            "w": writer_id,
            "tasks": tasks,
        },
    )


def _copy(
    con: duckdb.DuckDBPyConnection,
    p: Plan,
    f: sqlfiles.SqlFile,
    sql: str,
    out: Path,
    writer: parquet_settings.Writer,
) -> int:
    """``sql``'s rows to the Parquet file ``out`` written with ``writer`` (DERIVED: a stored table's
    file; SCRATCH: a scratch file), in the order it gives them; the rows written."""
    options = parquet_settings.copy_options(writer)
    try:
        row = con.execute(f"COPY ({sql}) TO {quote_literal(out)} ({options})").fetchone()
    except duckdb.Error as e:
        raise CatalogError(f"{p.trace}: building {f.name} failed: {str(e).splitlines()[0]}") from e
    return int(row[0]) if row else 0


# meta.catalog's key for the digest of each derived view as it was last made (a JSON object, view
# name -> digest of its definition).
VIEWS_MADE = "derived_views"


def create_views(con: duckdb.DuckDBPyConnection, home: Home, check_outdated: bool = True) -> None:
    """``derived.<name>`` for every file (view_definition), after the ingest's builders recorded
    their tables. Inside the caller's transaction, after the life-cycle views.

    ``check_outdated`` False (catalog.refresh, an ingest after its builders: the catalog's views
    are this code's): the stored tables are known to have been written by this code, their footers
    are not read; and a view made exactly as it was last made (its stored tables and its trace's
    input unchanged: an ingest of events leaves the usage tables' views as they are) is not made
    again (binding a view over the life-cycle ones costs 3-60 ms, ~0.2 s a small ingest)."""
    now = state(con, home, check_outdated)
    views = [view_definition(con, home, f, now) for f in sqlfiles.folder(SCHEMA)]
    made = {} if check_outdated else _views_made(con)
    digests = {view[0]: _digest(view) for view in views}
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    for view in views:
        if made.get(view[0]) != digests[view[0]]:
            _make_view(con, view)
    _record_views_made(con, digests)


def create_view(con: duckdb.DuckDBPyConnection, home: Home, f: sqlfiles.SqlFile, now: State) -> None:
    """``derived.<name>`` of one file: the build plan's step (tracewh.catalog.plan). Its digest is
    recorded, so a later create_views knows what this made."""
    view = view_definition(con, home, f, now)
    _make_view(con, view)
    _record_views_made(con, {**_views_made(con), view[0]: _digest(view)})


def _digest(view: ViewDefinition) -> str:
    return hashlib.sha256(repr(view).encode()).hexdigest()


def _views_made(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The digests create_views / create_view recorded ({} where none is: a catalog of an older
    tracewh held one digest of every view, and its views are all made again)."""
    row = con.execute("SELECT value FROM meta.catalog WHERE key = $k", {"k": VIEWS_MADE}).fetchone()
    try:
        made = json.loads(row[0]) if row else {}
    except ValueError:
        return {}
    return made if isinstance(made, dict) else {}


def _record_views_made(con: duckdb.DuckDBPyConnection, made: dict[str, str]) -> None:
    con.execute(
        "INSERT OR REPLACE INTO meta.catalog VALUES ($k, $v)",
        {"k": VIEWS_MADE, "v": json.dumps(made, sort_keys=True)},
    )


@dataclass
class State:
    """What the derived views read of a catalog: the stored tables ((trace, name) -> generation
    folder, of meta.derived) and the live (trace, table) pairs (of meta.tables)."""

    stored: dict[tuple[str, str], str]
    live: list[tuple[str, str]]


def state(con: duckdb.DuckDBPyConnection, home: Home, check_outdated: bool = True) -> State:
    """The catalog's stored derived tables and live tables, outdated stored tables forgotten first
    (unless the caller knows this code wrote them: ``check_outdated`` False)."""
    if check_outdated:
        _forget_outdated(con, home)
    stored = {
        (t, n): d for t, n, d in con.execute("SELECT trace, name, data_dir FROM meta.derived").fetchall()
    }
    return State(
        stored, [(t, n) for t, n in con.execute("SELECT trace, table_name FROM meta.tables").fetchall()]
    )


# A derived view as it is made: name, query, description, whether it copies the life-cycle view's
# column comments.
ViewDefinition = tuple[str, str, str, bool]


def view_definition(
    con: duckdb.DuckDBPyConnection, home: Home, f: sqlfiles.SqlFile, now: State
) -> ViewDefinition:
    """``derived.<name>`` of one file: the stored Parquet of each trace that has it, the file's
    query over the life-cycle views for a trace whose input is ingested without it; a file with
    ``reads:``, the life-cycle view of its name over the stored tables; a walked table, the stored
    Parquet (empty where none is stored)."""
    if walked(f):
        return _walk_view(con, home, f, now.stored)
    name = short(f)
    if reads(f):
        body = _over_stored(con, name, reads(f))
    else:
        branches = []
        paths = [
            x
            for (t, n), d in sorted(now.stored.items())
            if n == name
            for x in stored_paths(home.root, d, name)
        ]
        if paths:
            listed = ", ".join(quote_literal(p) for p in paths)
            branches.append(f"SELECT * FROM read_parquet([{listed}])")
        branches += [
            f"SELECT * FROM ({query(f, t)})"
            for t in sorted(ingested_traces(f, now.live))
            if (t, name) not in now.stored
        ]
        if not branches:
            branches.append(f"SELECT * FROM ({query(f, None)}) WHERE false")
        body = " UNION ALL BY NAME ".join(branches)
    return (name, body, f.header["description"], True)


def _make_view(con: duckdb.DuckDBPyConnection, definition: ViewDefinition) -> None:
    name, body, description, comments = definition
    view = f"{SCHEMA}.{quote_ident(name)}"
    con.execute(f"CREATE OR REPLACE VIEW {view} AS {body}")
    con.execute(f"COMMENT ON VIEW {view} IS {quote_literal(description)}")
    if comments:
        _copy_column_comments(con, name)


def _forget_outdated(con: duckdb.DuckDBPyConnection, home: Home) -> None:
    """A stored table written before its file gained a column (a home ingested by an older
    tracewh) is not the table its readers expect: it leaves meta.derived, so its view answers from
    the life-cycle views (as for a trace without the layer) and the next ingest rebuilds it whole.
    Only the Parquet footers are read."""
    by_name = {short(f): f for f in files() if not reads(f)}
    walked_names = {short(f) for f in walk_files()}
    for trace, name, data_dir in con.execute("SELECT trace, name, data_dir FROM meta.derived").fetchall():
        f = by_name.get(name)
        if f is None:
            if name not in walked_names:  # a table no longer stored (now a view over stored ones)
                con.execute(
                    "DELETE FROM meta.derived WHERE trace = $t AND name = $n", {"t": trace, "n": name}
                )
            continue
        if in_units(f) != (home.root / data_dir / name).is_dir():
            # stored in the other layout (one file, or a folder of unit files) by an older tracewh
            con.execute("DELETE FROM meta.derived WHERE trace = $t AND name = $n", {"t": trace, "n": name})
            continue
        paths = stored_paths(home.root, data_dir, name)
        if not paths or not paths[0].is_file():
            continue
        have = {
            r[0]
            for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet({quote_literal(paths[0])})").fetchall()
        }
        want = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM ({query(f, trace)})").fetchall()}
        if not want <= have:
            con.execute("DELETE FROM meta.derived WHERE trace = $t AND name = $n", {"t": trace, "n": name})


def _over_stored(con: duckdb.DuckDBPyConnection, name: str, inputs: list[str]) -> str:
    """The query of the life-cycle view ``name`` (as the catalog holds it) with its inputs
    ``lifecycle.<x>`` read from ``derived.<x>``."""
    body = _lifecycle_body(con, name)
    pattern = re.compile(rf"\blifecycle\.({'|'.join(map(re.escape, inputs))})\b")
    return pattern.sub(rf"{SCHEMA}.\1", body)


def _lifecycle_body(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The query of the life-cycle view ``name`` as the catalog holds it."""
    row = con.execute(
        "SELECT sql FROM duckdb_views() WHERE database_name = current_database() "
        "AND schema_name = 'lifecycle' AND view_name = $n",
        {"n": name},
    ).fetchone()
    if row is None:
        raise CatalogError(f"derived.{name} reads lifecycle.{name}, which no SQL file makes")
    body = re.sub(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+\S+\s+AS\s+", "", row[0], flags=re.IGNORECASE)
    return body.rstrip().rstrip(";")


def _copy_column_comments(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """The stored table's columns mean what the life-cycle view's columns of the same name mean."""
    rows = con.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'lifecycle' AND table_name = $n AND comment IS NOT NULL",
        {"n": name},
    ).fetchall()
    for column, comment in rows:
        target = f"{SCHEMA}.{quote_ident(name)}.{quote_ident(column)}"
        con.execute(f"COMMENT ON COLUMN {target} IS {quote_literal(comment)}")


# The derived tables of the task usage: stored one file per 6 hours of usage-window start, so an ingest
# of usage parts (each a stretch of time) recomputes the hours its parts hold, rewrites
# the files of the units holding them and carries the other units' files over unchanged.
USAGE_INPUT = "task_usage"
USAGE_VIEW = "lifecycle.task_usage"
# The traces' adapter views USAGE_VIEW unions (with their seq, which USAGE_VIEW turns into part).
USAGE_ADAPTER = "lifecycle_task_usage"
# The hour of a usage row, the unit an incremental build recomputes (a column of every usage table).
USAGE_HOUR = "clock_hour"
_USAGE_TOUCHED = "temp.main.derived_usage_touched"
_USAGE_AGAIN = "temp.main.derived_usage_again"
_USAGE_ROWS = "temp.main.derived_usage_rows"
_USAGE_ATTEMPTS = "temp.main.derived_usage_attempts"


def usage_files() -> list[sqlfiles.SqlFile]:
    """The stored tables an ingest of task usage changes: those of the usage's rule (first input)
    and those with the usage as a later input (the attempts' usage, after the attempts)."""
    return [f for f in files() if not reads(f) and USAGE_INPUT in inputs_of(f)]


@dataclass
class UsagePlan:
    """What an ingest of usage parts recomputes: every hour (per cell) with a window of a part it
    writes, before (a replaced part's old rows, read in ``plan_usage``) or after the ingest."""

    trace: str
    full: bool
    parts: list[tuple[str | None, int]] = field(default_factory=list)
    # tables the home does not hold (new to this tracewh, or forgotten as outdated): built whole
    # while the others are recomputed by their hours
    missing: list[str] = field(default_factory=list)


def plan_usage(
    con: duckdb.DuckDBPyConnection, trace: str, parts: list[tuple[str | None, int]], replace: bool
) -> UsagePlan:
    """Before the ingest's rows are recorded: the hours of the old rows of the parts it writes
    (a part replaced: its hours must be recomputed even where the new file has no row)."""
    have = (
        {n for (n,) in con.execute("SELECT name FROM meta.derived WHERE trace = $t", {"t": trace}).fetchall()}
        if recorded(con)
        else set()
    )
    missing = [short(f) for f in usage_files() if short(f) not in have]
    if replace or len(missing) == len(usage_files()):
        return UsagePlan(trace, True)
    out = UsagePlan(trace, False, sorted(parts, key=lambda p: (p[0] or "", p[1])), missing)
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_USAGE_TOUCHED.split('.')[-1]} AS {_usage_hours_in(out)}")
    return out


def _usage_hours_in(p: UsagePlan) -> str:
    """The (cell, hour) of every usage window of the plan's parts (of the generation the views read
    now). Read from the trace's adapter view, whose seq the Parquet reader prunes by (the shared
    view has the part, computed from seq, which it cannot): only the parts' rows are read."""
    usage = adapter_view(p.trace, USAGE_ADAPTER)
    return (
        f"SELECT DISTINCT u.cell, {_window_hour('u', p.trace)} AS {USAGE_HOUR} "
        f"FROM {usage} AS u SEMI JOIN {_parts_values(p.parts)} "
        "ON w.cell IS NOT DISTINCT FROM u.cell AND w.part = meta.seq_part(u.seq) "
        f"WHERE u.window_s IS NOT NULL AND ({_seq_ranges('u', [n for _, n in p.parts])})"
    )


def _hour_ranges(con: duckdb.DuckDBPyConnection, trace: str, hours: str = _USAGE_TOUCHED) -> str:
    """The hours of the table ``hours`` (cell, USAGE_HOUR) as ranges of start_time per cell
    (consecutive hours merged): a filter the Parquet reader prunes row groups with, so only those
    stretches of the usage are read."""
    rows = con.execute(f"SELECT DISTINCT cell, {USAGE_HOUR} FROM {hours}").fetchall()
    cells: dict[str | None, list[int]] = {}
    for cell, hour in rows:
        cells.setdefault(cell, []).append(int(hour))
    t = quote_literal(trace)
    return (
        " OR ".join(
            f"(u.cell IS NOT DISTINCT FROM {quote_literal(c) if c is not None else 'NULL'} "
            f"AND u.start_time >= {a} * meta.time_units({t}, 3600) "
            f"AND u.start_time < {b + 1} * meta.time_units({t}, 3600))"
            for c in sorted(cells, key=lambda c: (c is not None, c or ""))
            for a, b in _runs(cells[c])
        )
        or "false"
    )


def build_usage(con: duckdb.DuckDBPyConnection, home: Home, p: UsagePlan, writer_id: str) -> list[Path]:
    """Write the stored tables of the plan's trace an ingest of task usage changes (usage_files)
    into the ingest's derived generation (the one ``build`` writes when the same ingest changes the
    task events: called after it, so the attempts are read as they will be committed), from the
    views of the staged catalog, and record them in meta.derived (the caller then runs
    create_views). Incremental: the rows of the touched hours are recomputed from the usage
    windows starting in them (all of them, whichever part holds them); the files of the units
    holding them are written again with the unit's other rows kept, and every other unit's file is
    carried into the new generation as it is (a hard link). Returns the generation folder."""
    trace = p.trace
    gen = generation(home, trace, writer_id)
    old = _stored_dirs(con, trace)
    swapped: set[str] = set()
    # the first input's stored tables read as stored (the attempts), not computed again from
    # the events (not the usage tables themselves: their views compute them; nor the events)
    for f in usage_files():
        for g in stored_files(input_of(f)):
            if (
                short(g) in old
                and input_of(g) != USAGE_INPUT
                and USAGE_INPUT not in inputs_of(g)
                and short(g) != STORED_EVENTS
            ):
                paths = stored_paths(home.root, old[short(g)], short(g))
                _swap(con, swapped, f"lifecycle.{short(g)}", f"SELECT * FROM {read_stored(g, paths)}")
    for f in usage_files():
        if p.full or short(f) in p.missing:
            _write(con, home, Plan(trace, True), f, gen, writer_id, query(f, trace), None)
    if not p.full:
        _usage_units(con, home, p, gen, writer_id, old, swapped)
    _restore(con, swapped, set(swapped))  # (not after an error: _restore)
    for name in (_USAGE_TOUCHED, _USAGE_ROWS, _USAGE_AGAIN, _USAGE_ATTEMPTS):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    return [gen]


def _usage_units(
    con: duckdb.DuckDBPyConnection,
    home: Home,
    p: UsagePlan,
    gen: Path,
    writer_id: str,
    old: dict[str, str],
    swapped: set[str],
) -> None:
    """The incremental usage build of ``build_usage``: each table's rows of the touched hours
    recomputed, the files of the units holding them written again, the others carried over."""
    trace = p.trace
    con.execute(f"INSERT INTO {_USAGE_TOUCHED} {_usage_hours_in(p)}")
    # the touched hours' windows, read once for every table
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {_USAGE_ROWS.split('.')[-1]} AS SELECT u.* FROM {USAGE_VIEW} AS u "
        f"WHERE u.trace = {quote_literal(trace)} AND ({_hour_ranges(con, trace)})"
    )
    touched = f"(SELECT DISTINCT * FROM {_USAGE_TOUCHED})"
    # Only the attempts of the tasks with a window in those hours: a window's attempt is found
    # among its own task's attempts (lifecycle.attempt_usage_hourly's lead() runs per task), so the
    # other tasks' attempts give no row, and sorting every stored attempt for that lead() grew with
    # the home at every ingest of usage. A table, read once: as a view, the query's two reads of
    # the attempts each joined every stored attempt to the hours' tasks (out of memory at 120 parts
    # of the whole trace in a 3GB budget). Only the attempts' columns the usage tables' views name,
    # and of the stored attempts only the files of the job ranges holding those tasks' jobs (the
    # jobs running in a few hours: on the whole 2011 trace 6 of 224 ranges, 1.4 M of 47 M attempts).
    named = " ".join(_lifecycle_body(con, short(f)) for f in usage_files())
    columns = [
        quote_ident(c)
        for (c,) in con.execute(f"SELECT column_name FROM (DESCRIBE lifecycle.{_ATTEMPTS})").fetchall()
        if re.search(rf"\b{re.escape(c)}\b", named)
    ]
    core = _stored_file(_ATTEMPTS)
    attempts = f"lifecycle.{_ATTEMPTS}"
    if _ATTEMPTS in old and job_ranges(core):
        jobs = f"(SELECT DISTINCT cell, job_id FROM {_USAGE_ROWS})"
        attempts = read_stored(core, _stored_ranges(con, home, [core], old, jobs).touched_paths(_ATTEMPTS))
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {_USAGE_ATTEMPTS.split('.')[-1]} AS "
        f"SELECT {', '.join(f'a.{c}' for c in columns)} FROM {attempts} AS a "
        f"SEMI JOIN (SELECT DISTINCT {', '.join(TASK_KEY)} FROM {_USAGE_ROWS}) AS k ON {_on_key('k', 'a')} "
        f"WHERE a.trace = {quote_literal(trace)}"
    )
    _swap(con, swapped, f"lifecycle.{_ATTEMPTS}", f"SELECT * FROM {_USAGE_ATTEMPTS}")
    # the usage view reads them while the tables are built (views bind at query time)
    _swap(con, swapped, USAGE_VIEW, f"SELECT * FROM {_USAGE_ROWS}")
    for f in (f for f in usage_files() if short(f) not in p.missing):
        name, unit = short(f), unit_of(f)
        con.execute(f"CREATE OR REPLACE TEMP TABLE {_USAGE_AGAIN.split('.')[-1]} AS {query(f, trace)}")
        # the tasks recomputed: of the table's rows, or for a table of machine rows the tasks of
        # the windows it summed again
        of = _USAGE_AGAIN if keyed_by_task(f) else f"{_USAGE_ROWS} WHERE window_s IS NOT NULL"
        row = con.execute(
            f"SELECT count(*) FROM (SELECT DISTINCT {', '.join(TASK_KEY)} FROM {of})"
        ).fetchone()
        # the units holding a touched hour: their files are written again
        units = {u for (u,) in con.execute(f"SELECT DISTINCT {unit} FROM {touched}").fetchall()}
        files_now = stored_paths(home.root, old[name], name)
        kept = (
            f"SELECT o.* FROM {read_stored(f, [x for x in files_now if int(x.stem) in units])} AS o "
            f"ANTI JOIN {touched} AS k "
            f"ON k.cell IS NOT DISTINCT FROM o.cell AND k.{USAGE_HOUR} = o.{USAGE_HOUR}"
        )
        carried = {int(x.stem): x for x in files_now if int(x.stem) not in units}
        sql = f"{kept} UNION ALL BY NAME SELECT * FROM {_USAGE_AGAIN}"
        _write(con, home, Plan(trace, False), f, gen, writer_id, sql, int(row[0]) if row else 0, carried)
        _wait_for_a_test(con)  # (a test stops the build here: a table written, the others not)
    _restore(con, swapped, {USAGE_VIEW})


def _stored_dirs(con: duckdb.DuckDBPyConnection, trace: str) -> dict[str, str]:
    """name -> generation folder of the trace's stored derived tables (of meta.derived)."""
    if not recorded(con):
        return {}
    return dict(
        con.execute("SELECT name, data_dir FROM meta.derived WHERE trace = $t", {"t": trace}).fetchall()
    )


# -- Walked tables: what a Python step computes per job (tracewh.catalog.dag.STEPS), stored at ingest ----
#
# A file with ``python:`` is the input statement of that step for the traces it names
# (``traces:``); the stored table is the step's rows per job, trace first, and ``input_hash`` last:
# the bit_xor of the hashes of the job's input rows, which with their count (the step's ``tasks``)
# tells which jobs an ingest changed. Only those jobs are walked again; a job's walk reads its own
# input rows only, so the other rows are kept as they are and the table equals a full rebuild.

_WALK_INPUT = "derived_walk_input"
# A job's fingerprint over its input rows ``i``: what an ingest and `tracewh check` compare.
_FINGERPRINT = "count(*) AS tasks, bit_xor(hash(i)) AS input_hash"
_WALK_JOBS = "derived_walk_jobs"
# Jobs fetched into Python at a time (whole jobs; ~3 DAG tasks each on average in Alibaba 2018).
WALK_JOBS_PER_FETCH = 30_000


def walked(f: sqlfiles.SqlFile) -> bool:
    """A table a Python step computes (``python:``), not a query over the life-cycle views."""
    return bool(f.header.get("python"))


def walk_files() -> list[sqlfiles.SqlFile]:
    return [f for f in sqlfiles.folder(SCHEMA) if walked(f)]


_TRACE_SCHEMA = "{{trace}}"


def walk_traces(f: sqlfiles.SqlFile) -> list[str]:
    """The traces whose SQL creates every ``{{trace}}.<view>`` the file's input reads."""
    views = set(re.findall(rf"{re.escape(_TRACE_SCHEMA)}\.(\w+)", f.body))
    return [t for t in registry() if views and all(provides(get_trace(t), v) for v in views)]


def walk_query(f: sqlfiles.SqlFile, trace: str) -> str:
    """The walk's input statement for one trace (its views in the trace's schema)."""
    return query(f, trace).replace(_TRACE_SCHEMA, quote_ident(trace))


def walks(trace: str, tables: set[str] | list[str]) -> list[sqlfiles.SqlFile]:
    """The walked tables of ``trace`` an ingest writing ``tables`` changes: their input is the
    trace's task table (the trace spec's task_events input: Alibaba's batch_task)."""
    source = get_trace(trace).inputs.get(SOURCE_INPUT)
    return [f for f in walk_files() if trace in walk_traces(f) and source in tables]


def stored_walk(step: str, trace: str, stored: set[tuple[str, str]]) -> str | None:
    """The view ``derived.<name>`` holding the rows of ``step`` for ``trace`` when an ingest stored
    them (``stored``: the (trace, name) rows of meta.derived); None: the caller walks (a catalog
    from before the table, a trace it is not stored for)."""
    for f in walk_files():
        if f.header["python"] == step and (trace, short(f)) in stored:
            return f"{SCHEMA}.{quote_ident(short(f))}"
    return None


def walk_check_sql(f: sqlfiles.SqlFile) -> str:
    """The jobs whose stored row was not made from their input rows as they are now (by the count
    and hash an ingest compares), for the traces the table is stored for: rows = a stale table."""
    job, name = sort_key(f)[0], short(f)
    mine = f"(SELECT trace FROM meta.derived WHERE name = {quote_literal(name)})"
    again = " UNION ALL ".join(
        f"SELECT * FROM (SELECT {quote_literal(t)} AS trace, {job}, {_FINGERPRINT} "
        f"FROM ({walk_query(f, t)}) AS i GROUP BY {job}) WHERE trace IN {mine}"
        for t in walk_traces(f)
    )
    stored = f"SELECT trace, {job}, tasks, input_hash FROM {SCHEMA}.{quote_ident(name)}"
    return (
        f"SELECT 'stored, not the input now' AS side, * FROM ({stored} EXCEPT ALL {again}) "
        f"UNION ALL SELECT 'input now, not stored' AS side, * FROM ({again} EXCEPT ALL {stored})"
    )


def build_walks(
    con: duckdb.DuckDBPyConnection, home: Home, trace: str, tables: set[str], writer_id: str
) -> list[Path]:
    """Write the walked tables of ``trace`` that an ingest writing ``tables`` changes into the
    derived generation of ``writer_id`` (inside the ingest's staged catalog, after its rows are
    recorded: the views read the new generations), record them in meta.derived (the caller then
    runs create_views). Returns the generation folder (the caller removes it when no commit happens)."""
    todo = walks(trace, tables)
    if not todo:
        return []
    gen = generation(home, trace, writer_id)
    for f in todo:
        _build_walk(con, home, trace, f, gen, writer_id)
    for name in (_WALK_INPUT, _WALK_JOBS):
        con.execute(f"DROP TABLE IF EXISTS temp.main.{name}")
    return [gen]


def _build_walk(
    con: duckdb.DuckDBPyConnection, home: Home, trace: str, f: sqlfiles.SqlFile, gen: Path, writer_id: str
) -> None:
    import pyarrow as pa

    from tracewh.catalog import dag

    name, step = short(f), f.header["python"]
    job = sort_key(f)[0]  # the job key: the step's rows are one per job
    old = (
        con.execute(
            "SELECT data_dir FROM meta.derived WHERE trace = $t AND name = $n", {"t": trace, "n": name}
        ).fetchall()
        if recorded(con)
        else []
    )
    # Every job's fingerprint, numbered in job order (the walk fetches whole jobs by number).
    con.execute(f"CREATE OR REPLACE TEMP TABLE {_WALK_INPUT} AS {walk_query(f, trace)}")
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {_WALK_JOBS} AS SELECT {job}, {_FINGERPRINT} "
        f"FROM {_WALK_INPUT} AS i GROUP BY {job}"
    )
    kept = ""
    changed = f"SELECT {job} FROM {_WALK_JOBS}"
    if old:
        stored = f"read_parquet({quote_literal(home.root / old[0][0] / f'{name}.parquet')})"
        same = f"j.{job} = o.{job} AND j.tasks = o.tasks AND j.input_hash = o.input_hash"
        kept = f" UNION ALL BY NAME SELECT o.* FROM {stored} AS o SEMI JOIN {_WALK_JOBS} AS j ON {same}"
        changed = f"SELECT j.{job} FROM {_WALK_JOBS} AS j ANTI JOIN {stored} AS o ON {same}"
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE walk_todo AS "
        f"SELECT {job}, row_number() OVER (ORDER BY {job}) AS job_no FROM ({changed})"
    )
    (walked_jobs,) = con.execute("SELECT count(*) FROM walk_todo").fetchone() or (0,)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE walk_rows AS SELECT t.job_no, i.* FROM {_WALK_INPUT} AS i "
        f"JOIN walk_todo AS t USING ({job}) ORDER BY t.job_no"
    )
    # the step's input columns (job_no only numbers the fetches); a job's rows in any order
    rows = "SELECT * EXCLUDE (job_no) FROM walk_rows"
    schema = con.sql(f"{rows} LIMIT 0").to_arrow_table().schema

    def chunks() -> Iterator[pa.RecordBatch]:
        # Each piece is fetched whole before the step runs statements of its own on the
        # connection (a cursor would not see the staged transaction's views and tables).
        for lo in range(1, int(walked_jobs) + 1, WALK_JOBS_PER_FETCH):
            yield from (
                con.sql(
                    f"{rows} WHERE job_no >= $lo AND job_no < $hi ORDER BY job_no",
                    params={"lo": lo, "hi": lo + WALK_JOBS_PER_FETCH},
                )
                .to_arrow_table()
                .to_batches()
            )

    dag.STEPS[step](con, pa.RecordBatchReader.from_batches(schema, chunks()))
    walked_rows = (
        f"SELECT {quote_literal(trace)} AS trace, w.*, j.input_hash FROM temp.{quote_ident(step)} AS w "
        f"JOIN {_WALK_JOBS} AS j USING ({job})"
    )
    _write(
        con,
        home,
        Plan(trace, True),
        f,
        gen,
        writer_id,
        f"{walked_rows}{kept}",
        int(walked_jobs) if old else None,
    )
    for t in ("walk_todo", "walk_rows", step):
        con.execute(f"DROP TABLE IF EXISTS temp.main.{quote_ident(t)}")


def schemas_text() -> str:
    """The walked tables' row types as text: what their empty views are typed from (a part of
    catalog.views_key)."""
    from tracewh.catalog import dag

    return repr(sorted((name, str(schema)) for name, schema in dag.SCHEMAS.items()))


def _walk_view(
    con: duckdb.DuckDBPyConnection, home: Home, f: sqlfiles.SqlFile, stored: dict[tuple[str, str], str]
) -> ViewDefinition:
    """``derived.<name>`` of a walked table: the stored Parquet of the traces that have it; empty
    (typed as the step's rows) where none is stored."""
    import pyarrow as pa

    from tracewh.catalog import dag

    name = short(f)
    paths = [home.root / d / f"{name}.parquet" for (t, n), d in sorted(stored.items()) if n == name]
    if paths:
        body = f"SELECT * FROM read_parquet([{', '.join(quote_literal(p) for p in paths)}])"
    else:
        # a reader of no batches: Schema.empty_table() imports pandas (~0.5 CPU s an ingest)
        schema = dag.SCHEMAS[f.header["python"]]
        rel = con.from_arrow(pa.RecordBatchReader.from_batches(schema, []))
        cols = ", ".join(
            f"NULL::{t} AS {quote_ident(c)}" for c, t in zip(rel.columns, rel.types, strict=True)
        )
        body = f"SELECT NULL::VARCHAR AS trace, {cols}, NULL::UBIGINT AS input_hash WHERE false"
    return (name, body, f.header["description"], False)
