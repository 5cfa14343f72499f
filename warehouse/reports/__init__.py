"""The ready-made reports: one SQL file each under sql/reports/ (or a trace's own
sql/<trace>/reports/, for a report of that trace's views alone), described by its header.

Header keys: name, traces (comma list, 'any', or ``with X, Y``: the traces providing the adapter
views X and Y), description, params (with
defaults: ``trace, bucket_s = 3600``), reproduces (the published figure),
caveat (what to keep in mind when comparing with the paper), example (values
for the parameters without a default that fit the bundled sample: ``job=j_1``), plot
(``x=...; y=a,b; kind=line|step|quantiles; title=...``), needs (the life-cycle inputs it reads,
each with the columns computed from it: ``task_usage (cpu_used), machine_events``; when the trace
has not ingested the input's table those columns are NULL and the footer names the table to
ingest, instead of the zeros an empty table gives). ``footer`` turns the
header and the state of the data (missing parts, the bundled sample, the
observed window) into the lines printed on stderr after a report.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tracewh import headers, sqlfiles
from tracewh.errors import UsageError
from tracewh.headers import STEP_MARKER, Param
from tracewh.home import Home
from tracewh.quoting import quote_literal
from tracewh.traces import MODULES_ENV, expand_sql, listing_key, providing, registry, sql_files, trace_names

if TYPE_CHECKING:
    from tracewh.catalog.query import Rows

# Parameters the runner fills itself; the others come from --param NAME=VALUE or the defaults.
BUILTIN_PARAMS = headers.BUILTIN_PARAMS


@dataclass(frozen=True)
class Report:
    name: str
    traces: tuple[str, ...]
    description: str
    params: dict[str, str | None]
    reproduces: str
    # The chart spec parsed and checked by tracewh.headers (option -> value); {} = no chart.
    plot: dict[str, str] = field(default_factory=dict)
    note: str = field(default="")
    # A step in Python between two statements (header `-- python: dag_paths`): the first
    # statement's rows go to tracewh.catalog.dag.STEPS[name], which makes the tables the second reads.
    python: str = ""
    caveat: str = ""
    example: str = ""
    # The typed tunable parameters (tracewh.headers.Param), in header order.
    param_specs: tuple[Param, ...] = ()
    # The file's SQL before the registry placeholders are filled (``sql`` is DuckDB's expansion;
    # an engine without UNION BY NAME expands it itself: tracewh.traces.expand_sql).
    template: str = ""
    # BibTeX keys of the papers it reproduces (header `cites:`; the entries: tracewh.traces.papers).
    cites: tuple[str, ...] = ()
    # life-cycle input -> the columns computed from it (() = the whole report): header ``needs``
    needs: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @functools.cached_property
    def sql(self) -> str:
        """DuckDB's SQL: the template with its registry placeholders filled (done on first use, so
        listing the reports or building their commands never expands it)."""
        return expand_sql(self.template)

    @property
    def needs_trace(self) -> bool:
        return "trace" in self.params

    @property
    def example_options(self) -> dict[str, str]:
        """The header's example parameters (``job=j_1``), for runs on the bundled sample."""
        pairs = [item.split("=", 1) for item in self.example.split(",") if "=" in item]
        return {k.strip(): v.strip() for k, v in pairs}

    @property
    def options(self) -> dict[str, str | None]:
        """The tunable parameters and their defaults."""
        return {k: v for k, v in self.params.items() if k not in BUILTIN_PARAMS}


def all_reports() -> dict[str, Report]:
    """Every report of sql/reports/ and the traces' own reports/ folders (name -> Report), its header
    parsed and checked once per process (and set of trace modules: the traces 'any' covers come from
    the registry)."""
    return dict(_parsed(os.environ.get(MODULES_ENV, "")))


@functools.cache
def _parsed(modules: str) -> dict[str, Report]:
    out: dict[str, Report] = {}
    for f in sql_files("reports"):
        if f.name in out:
            raise headers.HeaderError(f"reports/{f.name}: two report files have this name ({f.path})")
        traces = _covered(f.name, f.header.get("traces", "any"))
        out[f.name] = Report(
            name=f.name,
            traces=traces,
            description=f.header.get("description", ""),
            params={**dict.fromkeys(f.meta.builtin_params), **{p.name: p.default for p in f.meta.params}},
            reproduces=f.header.get("reproduces", ""),
            plot=f.meta.plot,
            note=f.header.get("note", ""),
            python=f.header.get("python", ""),
            caveat=f.header.get("caveat", ""),
            example=f.header.get("example", ""),
            param_specs=f.meta.params,
            template=f.body,
            cites=tuple(k.strip() for k in f.header.get("cites", "").split(",") if k.strip()),
            needs=f.meta.needs,
        )
    return out


def _covered(name: str, raw: str) -> tuple[str, ...]:
    """The traces of a ``traces:`` header: 'any' (every trace), ``with X, Y`` (every trace whose
    folder provides the adapter views X and Y the report reads), or a comma list of names."""
    if raw == "any":
        return trace_names()
    if raw.startswith("with "):
        try:
            return providing(v.strip() for v in raw.removeprefix("with ").split(","))
        except UsageError as e:
            raise headers.HeaderError(f"reports/{name}: traces: {e}") from e
    return tuple(t.strip() for t in raw.split(",") if t.strip())


def get(name: str) -> Report:
    reports = all_reports()
    if name not in reports:
        raise UsageError(f"no report named {name!r}; `tracewh report list` shows them")
    return reports[name]


def bind(report: Report, options: dict[str, str] | None) -> dict[str, object]:
    """The report's tunable parameters typed: its defaults, overridden by ``options`` (name -> text);
    an unknown name, a bad value or a missing required one is a usage error (before any query)."""
    name = report.name
    specs = {p.name: p for p in report.param_specs}
    params: dict[str, object] = {
        k: None if v is None else specs[k].convert(name, v) for k, v in report.options.items()
    }
    for key, value in (options or {}).items():
        if key not in report.options:
            known = ", ".join(report.options) or "none"
            raise UsageError(f"report {name} has no parameter {key!r} (parameters: {known})")
        params[key] = specs[key].convert(name, value)
    missing = [k for k, v in params.items() if v is None]
    if missing:
        raise UsageError(f"report {name} needs --param {missing[0]}=...")
    return params


def run(
    home: Home,
    name: str,
    trace: str | None = None,
    cell: str | None = None,
    options: dict[str, str] | None = None,
    tz: str | None = None,
    spark: Any = None,
    memory_limit: str | None = None,
) -> Rows:
    """Run a report read-only; the library never writes the catalog here.

    Times come back in ``tz``, else in the zone of the report's trace (or cell). DuckDB spills
    what does not fit in ``memory_limit`` (else $TRACEWH_MEMORY_LIMIT, else query.DEFAULT_MEMORY_LIMIT).
    ``spark``: a SparkSession the catalog is registered in (warehouse/engines/spark.py) to run the SQL
    on instead.
    """
    from tracewh.catalog import query

    report = get(name)
    params = bind(report, options)
    with query.read_only(home, memory_limit) as con:
        if report.needs_trace:
            params["trace"] = _choose_trace(con, report, trace)
        elif trace is not None and trace not in report.traces:
            raise UsageError(f"report {name} does not take --trace {trace}")
        if "cell" in report.params:
            if cell is not None:
                _check_cell(con, name, str(params["trace"]), cell)
            params["cell"] = cell
        elif cell is not None:
            raise UsageError(f"report {name} has no --cell")
        only = report.traces[0] if len(report.traces) == 1 else None
        chosen = params.get("trace") if report.needs_trace else (trace or only)
        zone = tz or query.zone_for(con, str(chosen) if chosen else None, cell)
        query.set_zone(con, zone)
        start = _trace_start(str(chosen), zone) if chosen else None
        labels = synthetic(con)
        made_up = [labels[t] for t in ([str(chosen)] if chosen else report.traces) if t in labels]
        stored = _stored_walk(con, report, chosen)
        if spark is not None:
            from tracewh.engines import spark as spark_engine

            walked = (stored, str(chosen)) if stored is not None else None
            rows = spark_engine.run_statements(spark, report, params, zone, walked)
        elif not report.python:
            rows = query.fetch(con, report.sql, params)
        else:
            first, _, second = report.sql.partition(STEP_MARKER)
            if stored is not None:
                # the step's rows as the ingest stored them (tracewh.catalog.derived): no job is walked
                con.execute(
                    f"CREATE OR REPLACE TEMP VIEW {report.python} AS SELECT * EXCLUDE (trace, input_hash) "
                    f"FROM {stored} WHERE trace = {quote_literal(str(chosen))}"
                )
            else:
                from tracewh.catalog import dag  # pyarrow: only a walk needs it

                # Arrow batches, not Python rows: millions of DAG tasks cross into the step a batch at a time.
                with query.stream_arrow(con, first, _used(first, params)) as batches:
                    dag.STEPS[report.python](con, batches)
            rows = query.fetch(con, second, _used(second, params))
        absent = absent_inputs(con, report, str(chosen)) if chosen else []
    _blank_absent(rows, report, absent)
    chart = _split_chart_columns(rows)
    rows.context = {
        "chart": chart,
        "trace": chosen,
        "cell": cell,
        "zone": zone,
        "trace_start": start,
        "params": {k: v for k, v in params.items() if k not in BUILTIN_PARAMS},
        # what a chart or a page built from these rows must say: the data is not a recording
        "synthetic": "; ".join(made_up) or None,
    }
    return rows


def _stored_walk(con: Any, report: Report, chosen: object) -> str | None:
    """The view holding the rows of the report's Python step for its trace when an ingest stored
    them (tracewh.catalog.derived.stored_walk); None: the step walks the jobs."""
    from tracewh.catalog import derived, query

    if not report.python or not chosen or not derived.recorded(con):
        return None
    done = set(query.fact(con, "SELECT trace, name FROM meta.derived"))
    return derived.stored_walk(report.python, str(chosen), done)


def synthetic(con) -> dict[str, str]:
    """Per trace whose live data tracewh synth generated (meta.synthetic_traces), the line every
    report, plot and page on it carries."""
    import duckdb

    from tracewh.catalog import query

    try:
        found = query.fact(
            con, "SELECT trace, seed, max_seed, scale, max_scale FROM meta.synthetic_traces ORDER BY trace"
        )
    except duckdb.Error:  # a catalog from before meta.synthetic (tracewh repair adds it)
        return {}
    out = {}
    for trace, seed, max_seed, scale, max_scale in sorted(found, key=lambda r: listing_key(r[0])):
        seeds = f"seed {seed}" if seed == max_seed else f"seeds {seed}-{max_seed}"
        scales = f"scale {scale:g}" if scale == max_scale else f"scales {scale:g}-{max_scale:g}"
        out[trace] = (
            f"SYNTHETIC: {trace} here was generated by tracewh synth ({seeds}, {scales}), not recorded "
            "on a cluster; the generator is built to follow the published figures, so agreement "
            "with a paper says nothing about the real trace"
        )
    return out


def absent_inputs(con, report: Report, trace: str) -> list[tuple[str, str]]:
    """(input, table) for each input the report needs that the trace maps to a table it has not
    ingested: what the report computes from it is unknown, not zero."""
    from tracewh.catalog import query

    spec = registry().get(trace)
    if spec is None or not report.needs:
        return []
    have = {
        t for (t,) in query.fact(con, "SELECT table_name FROM meta.tables WHERE trace = $t", {"t": trace})
    }
    return [(i, spec.inputs[i]) for i in report.needs if i in spec.inputs and spec.inputs[i] not in have]


def _blank_absent(rows: Rows, report: Report, absent: list[tuple[str, str]]) -> None:
    """The columns computed from an absent input become NULL (the SQL sees an empty table: 0)."""
    blank = {i for i, c in enumerate(rows.columns) for inp, _ in absent if c in report.needs[inp]}
    if blank:
        rows.rows = [tuple(None if i in blank else v for i, v in enumerate(r)) for r in rows.rows]


def _used(sql: str, params: dict[str, object]) -> dict[str, object]:
    """The parameters a statement names (DuckDB refuses unused named parameters)."""
    return {k: v for k, v in params.items() if f"${k}" in sql}


def _split_chart_columns(rows: Rows) -> dict[str, list]:
    """Columns named ``_...`` (e.g. ``_cdf``: 101 quantiles) feed the chart only: they leave the
    rows (no table, export or DataFrame shows them) and come back per row, in row order."""
    hidden = [i for i, c in enumerate(rows.columns) if c.startswith("_")]
    if not hidden:
        return {}
    chart = {rows.columns[i]: [r[i] for r in rows.rows] for i in hidden}
    keep = [i for i in range(len(rows.columns)) if i not in hidden]
    rows.columns = [rows.columns[i] for i in keep]
    rows.types = [rows.types[i] for i in keep]
    rows.rows = [tuple(r[i] for i in keep) for r in rows.rows]
    return chart


def _trace_start(trace: str, zone: str) -> object:
    """The trace's start instant in ``zone`` (TraceSpec.trace_start), if it discloses one."""
    import zoneinfo

    spec = registry().get(trace)
    if spec is None or spec.trace_start is None:
        return None
    return spec.trace_start.astimezone(zoneinfo.ZoneInfo(zone))


def _check_cell(con, report: str, trace: str, cell: str) -> None:
    rows = con.execute(
        "SELECT DISTINCT cell FROM meta.ingests "
        "WHERE trace = $t AND is_current AND cell IS NOT NULL ORDER BY 1",
        {"t": trace},
    ).fetchall()
    cells = [c for (c,) in rows]
    if cell not in cells:
        known = ", ".join(cells) or "none"
        raise UsageError(f"report {report}: cell {cell!r} of {trace} is not ingested (ingested: {known})")


def _choose_trace(con, report: Report, trace: str | None) -> str:
    if trace is not None:
        if trace not in report.traces:
            raise UsageError(f"report {report.name} covers {', '.join(report.traces)}, not {trace!r}")
        return trace
    from tracewh.catalog import query

    ingested = {t for (t,) in query.fact(con, "SELECT DISTINCT trace FROM meta.tables")}
    candidates = [t for t in report.traces if t in ingested]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(f"report {report.name} needs one of {', '.join(report.traces)} ingested; none is")
    raise UsageError(f"report {report.name}: choose --trace ({', '.join(candidates)})")


# The reports that time or integrate run attempts (the stored attempts, clipped to the observed
# segments or not): their footer says the observed window.
_TIMES_ATTEMPTS = re.compile(r"\bderived\.task_episode(s|_core)\b")


def footer(home: Home, name: str, trace: str | None = None) -> list[str]:
    """What the printed report reproduces and the caveats that apply to this data, one line each:
    the header's reproduces and caveat, parts missing in the traces it read, the bundled sample,
    and for the reports over run attempts the observed window that censors long attempts."""
    from tracewh.catalog import parts, query

    report = get(name)
    lines = [f"{name} reproduces: {report.reproduces}"] if report.reproduces else []
    if report.caveat:
        lines.append(f"caveat: {report.caveat}")
    with query.read_only(home) as con:
        ingested = {t for (t,) in query.fact(con, "SELECT DISTINCT trace FROM meta.tables")}
        if report.needs_trace:
            try:
                traces = [_choose_trace(con, report, trace)]
            except UsageError:
                traces = []
        else:
            traces = [t for t in report.traces if t in ingested and (trace is None or t == trace)]
        sample = str(sqlfiles.data_root() / "sample")
        on_sample = {
            t
            for (t,) in query.fact(
                con,
                "SELECT DISTINCT trace FROM meta.ingests WHERE is_current AND starts_with(source_path, $p)",
                {"p": sample},
            )
        }
        labels = synthetic(con)
        # the stored window (tracewh.catalog.derived): no scan of the task events
        windows = (
            dict(query.fact(con, "SELECT trace, window_s FROM derived.observed_window"))
            if _TIMES_ATTEMPTS.search(report.sql)
            else {}
        )
        # Only the report's traces, named as literals: DuckDB then drops the other traces' branches
        # of the view (each counts a trace's raw events) before reading anything.
        left_out = (
            query.fact(
                con,
                "SELECT trace, what, sum(left_out), sum(total) FROM lifecycle.left_out "
                f"WHERE trace IN ({', '.join(quote_literal(t) for t in traces)}) "
                "GROUP BY ALL HAVING sum(left_out) > 0 ORDER BY ALL",
            )
            if traces and ("lifecycle." in report.sql or "derived." in report.sql)
            else []
        )
        absent = {t: absent_inputs(con, report, t) for t in traces}
    for t in traces:
        if t in labels:
            lines.append(f"data: {labels[t]}")
        if t in on_sample:
            lines.append(
                f"data: {t} is the bundled sample (a few rows): the method is the paper's, "
                "the numbers are not the published figure"
            )
        # the window matters where run attempts are timed or integrated (it costs a scan)
        if t in windows:
            lines.append(
                f"window: the ingested {t} task events cover {windows[t] / 3600:,.2f} h; attempts crossing "
                "its edges are censored (time integrals count the part observed)"
            )
        for lt, what, n, total in left_out:
            if lt != t:
                continue
            if n == total:
                lines.append(
                    f"data: every one of the {total:,} {t} {what} is left out of the life-cycle views, "
                    "so this report counts nothing (all 0): there is no instance of a job to count"
                )
            else:
                lines.append(f"data: {n:,} of the {total:,} {t} {what} are left out of the life-cycle views")
    for t in traces:
        for inp, table in absent[t]:
            cols = report.needs[inp]
            what = f"{', '.join(cols)} are NULL" if cols else f"what {name} computes from it is left out"
            lines.append(
                f"absent: {t}.{table} is not ingested: {what} (unknown, not 0); "
                f"ingest it: tracewh ingest {t} DIR --tables {table}"
            )
    lines += [f"gap: {w}" for t in traces for w in parts.warnings(home, t)]
    return lines
