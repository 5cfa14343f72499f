"""The Spark engine: the catalog's semantic views, macros and reports in a SparkSession, on the same Parquet.

``register(spark, home)`` creates, in the session catalog of a SparkSession, a database per
registered trace, ``lifecycle``, the traces' ``*_raw`` typed views and
``meta`` (a snapshot of the catalog's small metadata tables), with the same names, columns and
meanings as the DuckDB catalog: it executes the catalog's build plan (catalog.plan, the steps
catalog.rebuild executes in DuckDB), translating each step's SQL: sqlglot parses each statement as
DuckDB SQL and writes it as Spark SQL, after the override
layer below rewrote what sqlglot does not translate (or translates with other semantics). Each
override is one function, named in ``OVERRIDES``, and tested on its own (tests/test_spark.py).

- DuckDB macros become Spark SQL functions (``CREATE FUNCTION db.name(p TYPE) RETURN ...``) under
  the same qualified name; Spark needs a type per parameter: the one the macro declares, else
  ``PARAM_TYPES_BY_NAME``.
- Code tables (``CREATE TABLE ... AS VALUES``) become views over the same VALUES: nothing is written.
- The raw views read the table's stable link ``parquet/<trace>/<table>`` (through a table of
  ``FILES_SCHEMA`` over it, as the derived views read the stored Parquet): Spark's file listing skips
  folders whose names start with ``.`` or ``_``, so the live generation under ``.gen/`` is read
  through the link (or through ``<data_root>/<trace>/<table>`` on object storage, where a copy of
  the home holds the links' targets under the links' names).

The session time zone is UTC (TIMESTAMPTZ columns are Spark TIMESTAMPs, DuckDB TIMESTAMPs are
TIMESTAMP_NTZ) and ANSI mode is on, so arithmetic and casts fail instead of wrapping, as in DuckDB.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import itertools
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracewh import catalog, sqlfiles
from tracewh.catalog import derived
from tracewh.errors import TracewhError, UsageError
from tracewh.headers import STEP_MARKER
from tracewh.home import Home
from tracewh.traces import (
    Table,
    expand_sql,
    get_trace,
    registry,
    trace_names,
    vocabulary_macros_sql,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from sqlglot import exp

    from tracewh.results import Rows

# What the views and reports need of a session; register() sets them on the session it is given.
SESSION_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "true",
    # Spark 4's RemoveRedundantAliases rule turns the plans of some reports (null-safe joins on
    # columns of unioned views, e.g. tier-usage, machines, compare) into unresolved ones
    # (PLAN_VALIDATION_FAILED_RULE_IN_BATCH); without it the same plans run.
    "spark.sql.optimizer.excludedRules": "org.apache.spark.sql.catalyst.optimizer.RemoveRedundantAliases",
}
# Extra settings of the sessions tracewh starts itself (a user's own session keeps its settings).
OWN_SESSION_CONF = {
    # Views and functions live in the session's catalog; no Hive metastore or warehouse folder.
    "spark.sql.catalogImplementation": "in-memory",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # The status store keeps the last 1,000 SQL executions, jobs and stages with their plan graphs
    # for the web UI even when the UI is off; a catalog's plans are large (hundreds of nodes), and
    # a session that ran ~150 of them ran out of the driver's default 1 GB heap. A few suffice.
    "spark.sql.ui.retainedExecutions": "20",
    "spark.ui.retainedJobs": "50",
    "spark.ui.retainedStages": "50",
    "spark.ui.retainedTasks": "2000",
    # Sliding and shrinking window frames (lifecycle.task_episode_core's ``min(...) OVER (... ROWS
    # BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)``, task-times-trend's moving sums) as segment
    # trees: O(log n) per row instead of recomputing the frame, which is O(n^2) over a task's
    # events. Same rows; off by default in Spark, which has it since 4.2 (an older Spark does not
    # read the key).
    "spark.sql.window.segmentTree.enabled": "true",
    # The classes whole-stage code generation compiles, kept by their code for the next query
    # with the same plan: one task-times run on Spark compiles ~130 of them, more than Spark's
    # default of 100 entries, so a second run in the session found none of them (its least
    # recently used evicted in the order they are needed) and compiled and JIT-compiled them all
    # again (bench/RESULTS.md, "Spark: integer codes, hints and the codegen cache"). Static: it
    # applies when tracewh starts the JVM.
    "spark.sql.codegen.cache.maxEntries": "1000",
}
# Local sessions: the sample-sized shuffles of the reports need a few partitions, not 200.
LOCAL_SHUFFLE_PARTITIONS = 8
# Local sessions run the executors inside the driver's JVM, so its heap holds the cached views, the
# broadcast tables and the catalog's large plans: Spark's default of 1 GB ran out ("Java heap space",
# "Not enough memory to build and broadcast") after ~100 reports on the sample. $SPARK_DRIVER_MEMORY
# (Spark's own variable) wins; it only applies when tracewh starts the JVM.
LOCAL_DRIVER_MEMORY = "4g"
# Local sessions' JVM: the executors run in the driver's JVM, whose collector is the throughput
# collector rather than the default G1: at 14.5 M task events G1's threads took 2.5-4.8 CPU s of a
# task-times run on Spark, the parallel collector 0.7-1.5 (its pauses do not matter to a batch
# report; bench/RESULTS.md, "Spark: the parallel collector and priority-share's join keys").
LOCAL_JAVA_OPTIONS = "-XX:+UseParallelGC"
# Local sessions over a small home (session(small=True): the bundled samples, a slice of a trace,
# the test suite), where Spark's own work costs more than the data's: shuffles of a few hundred kB
# need no more partitions than the cores, the home's many small files are packed into a few read
# tasks, and the JVM compiles its hot code with the quick C1 compiler only. On the bundled sample
# the JIT's optimising C2 compiler took ~45% of the suite's Spark JVM CPU, compiling Catalyst's code
# paths and the classes whole-stage code generation makes per query; without it a session starts
# and registers every view in ~0.6x the CPU, though the longest queries run slower (bench/RESULTS.md,
# "The whole sample parity in `make test`").
SMALL_HOME_CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.files.openCostInBytes": str(64 << 20),
    # C1 only shrinks the JVM's code cache to 48 MB by default, and the sample's parity filled it
    # after registering every view ("CodeCache is full. Compiler has been disabled."): every later
    # query ran interpreted, arrivals at 25 CPU s instead of 19 (the heavy items 525 -> 455 CPU s).
    "spark.driver.extraJavaOptions": (
        f"{LOCAL_JAVA_OPTIONS} -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m"
    ),
    # Spark's default here, not OWN_SESSION_CONF's: the classes a larger codegen cache keeps alive
    # fill the code cache sooner; a small home's queries are cheap to compile again.
    "spark.sql.codegen.cache.maxEntries": "100",
}


def sql_folders() -> tuple[str | Path, ...]:
    """The SQL folders register() runs, in the catalog's order: each registered trace's own, then
    the shared ones (catalog.rebuild)."""
    return (*(spec.sql_folder for spec in registry().values()), *catalog.SHARED_SQL_FOLDERS)


# The catalog's metadata tables that Spark sees (a snapshot taken by register); meta.rejects can be
# large and stays in DuckDB.
META_TABLES = ("catalog", "tables", "ingests", "synthetic")

# Spark SQL functions need a type per parameter: the one a macro declares (``f(x DOUBLE)``, written
# where a name below would not say it), else the type of its parameter name in shared SQL. A macro
# parameter with neither fails register().
PARAM_TYPES_BY_NAME = {
    "t": "BIGINT",
    "s": "BIGINT",
    "e": "BIGINT",
    "time": "BIGINT",
    "seq": "BIGINT",
    "name": "STRING",
    "status": "STRING",
    "trace": "STRING",
    "file": "STRING",
    "d": "BIGINT",  # meta.seconds(trace, d): a raw time difference
    "code_set": "STRING",  # <trace>.decode / priority_tier / is_production (tracewh.traces.VOCABULARY)
    "code": "BIGINT",
    "priority": "BIGINT",
}


class SparkError(TracewhError):
    """A statement Spark refused, or a session that cannot be used."""


# ---------------------------------------------------------------------------------------------
# The override layer: DuckDB SQL that sqlglot does not carry over to Spark SQL with its meaning.
# ---------------------------------------------------------------------------------------------

_UNPIVOT = re.compile(
    r"\bUNPIVOT\s+(?P<rel>\w+)\s+ON\s+(?P<cols>[\w\s,]+?)\s+INTO\s+NAME\s+(?P<name>\w+)\s+VALUE\s+(?P<value>\w+)",
    re.IGNORECASE,
)


def rewrite_unpivot(text: str) -> str:
    """DuckDB's statement form ``UNPIVOT rel ON a, b INTO NAME n VALUE v`` (which sqlglot cannot
    parse) as the standard clause ``SELECT * FROM rel UNPIVOT (v FOR n IN (a, b))``. Both leave out
    rows whose value is NULL."""

    def one(m: re.Match[str]) -> str:
        cols = ", ".join(c.strip() for c in m["cols"].split(","))
        return f"SELECT * FROM {m['rel']} UNPIVOT ({m['value']} FOR {m['name']} IN ({cols}))"

    return _UNPIVOT.sub(one, text)


def _fsum(node: exp.Expression) -> exp.Expression:
    """fsum(x), DuckDB's compensated sum (the same value whatever order the rows come in), is
    Spark's sum: the same up to the last bits, which the reports round away."""
    from sqlglot import exp

    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "fsum" and len(node.expressions) == 1:
        return exp.Sum(this=node.expressions[0])
    return node


def _quantile(node: exp.Expression) -> exp.Expression:
    """quantile_cont(x, p) (sqlglot: PERCENTILE_CONT(x, p), not Spark syntax) is Spark's exact,
    interpolating ``percentile(x, p)``; p may be a list, as in DuckDB."""
    from sqlglot import exp

    if isinstance(node, exp.PercentileCont) and node.args.get("expression") is not None:
        return exp.Anonymous(this="percentile", expressions=[node.this, _constant(node.expression)])
    if isinstance(node, exp.PercentileDisc) and node.args.get("expression") is not None:
        # percentile_disc(p) WITHIN GROUP (ORDER BY x): the smallest value with cume_dist >= p.
        return exp.WithinGroup(
            this=exp.Anonymous(this="percentile_disc", expressions=[node.expression]),
            expression=exp.Order(expressions=[exp.Ordered(this=node.this)]),
        )
    return node


def _constant(levels: exp.Expression) -> exp.Expression:
    """Spark wants the levels of percentile as a literal: a constant DuckDB expression (e.g.
    ``list_transform(range(101), lambda x: x / 100)``) is evaluated here, by DuckDB itself."""
    from sqlglot import exp

    if isinstance(levels, exp.Literal) or (
        isinstance(levels, exp.Array) and all(isinstance(e, exp.Literal) for e in levels.expressions)
    ):
        return levels
    try:
        value = _evaluate(levels)
    except SparkError:
        return levels  # not a constant: Spark will say so
    if isinstance(value, list):
        return exp.Array(expressions=[exp.Literal.number(repr(float(v))) for v in value])
    return exp.Literal.number(repr(float(value)))


def _regexp_full_match(node: exp.Expression) -> exp.Expression:
    """regexp_full_match(s, p): the whole string matches; Spark's RLIKE finds, so anchor p."""
    from sqlglot import exp

    if isinstance(node, exp.RegexpFullMatch):
        pattern = node.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            anchored: Any = exp.Literal.string(f"^(?:{pattern.this})$")
        else:
            anchored = exp.func("concat", exp.Literal.string("^(?:"), pattern, exp.Literal.string(")$"))
        return exp.RegexpLike(this=node.this, expression=anchored)
    return node


def _anonymous(node: exp.Expression, name: str) -> bool:
    from sqlglot import exp

    return isinstance(node, exp.Anonymous) and str(node.this).lower() == name


def _timezone(node: exp.Expression) -> exp.Expression:
    """timezone(zone, instant): the wall-clock time in zone (a DuckDB TIMESTAMP, Spark TIMESTAMP_NTZ)."""
    from sqlglot import exp

    if _anonymous(node, "timezone") and len(node.expressions) == 2:
        zone, instant = node.expressions
        shifted = exp.Anonymous(this="from_utc_timestamp", expressions=[instant, zone])
        # the session time zone is UTC, so the cast keeps the shifted wall clock
        return exp.Cast(this=shifted, to=exp.DataType.build("TIMESTAMP_NTZ", dialect="spark"))
    return node


def _intervals(node: exp.Expression) -> exp.Expression:
    """to_microseconds(n) / to_seconds(n): an exact day-time interval of n units (integer multiple
    of a one-unit interval, no floating point)."""
    from sqlglot import exp

    for name, unit in (("to_microseconds", "0.000001"), ("to_seconds", "1")):
        if _anonymous(node, name) and len(node.expressions) == 1:
            one = exp.Interval(this=exp.Literal.string(unit), unit=exp.var("SECOND"))
            return exp.Mul(this=exp.Paren(this=node.expressions[0]), expression=one)
    return node


def _ordered_list(node: exp.Expression) -> exp.Expression:
    """list(x ORDER BY k) [FILTER (cond)]: sqlglot drops the ORDER BY (collect_list has none).
    Collect (k, x) pairs (of the rows the filter keeps), sort them, keep x; NULL x are kept, as in
    DuckDB. No row collected: NULL, as DuckDB's list (collect_list gives [])."""
    from sqlglot import exp

    original, where = node, None
    if isinstance(node, exp.Filter) and isinstance(node.this, exp.ArrayAgg):
        where, node = node.expression, node.this
    if not (isinstance(node, exp.ArrayAgg) and isinstance(node.this, exp.Order)):
        return original
    order = node.this
    value = order.this
    keys = order.expressions
    fields: list[exp.Expression] = []
    for i, k in enumerate(keys):
        fields += [exp.Literal.string(f"k{i}"), k.this]
    fields += [exp.Literal.string("v"), value]
    collected: exp.Expression = exp.Anonymous(
        this="collect_list", expressions=[exp.func("named_struct", *fields)]
    )
    if where is not None:
        collected = exp.Filter(this=collected, expression=where)
    ordered: exp.Expression = exp.Anonymous(this="array_sort", expressions=[collected])
    if all(k.args.get("desc") for k in keys):
        ordered = exp.Anonymous(this="reverse", expressions=[ordered])
    elif any(k.args.get("desc") for k in keys):
        raise SparkError("list(... ORDER BY ...) with mixed directions has no Spark override")
    lam = exp.Lambda(
        this=exp.Dot(this=exp.to_identifier("e"), expression=exp.to_identifier("v")),
        expressions=[exp.to_identifier("e")],
    )
    values = exp.Anonymous(this="transform", expressions=[ordered, lam])
    some = exp.GT(
        this=exp.Anonymous(this="size", expressions=[collected.copy()]), expression=exp.Literal.number(0)
    )
    return exp.Case(ifs=[exp.If(this=some, true=values)])


def _list_index(node: exp.Expression) -> exp.Expression:
    """``l[i]`` with a computed index: DuckDB counts from 1 and gives NULL out of range; sqlglot
    shifts literal indexes only. Spark's ``try_element_at(l, i)`` counts from 1, NULL out of range;
    it wants an INT index (a computed key of a MAP is not supported: the cast fails or mismatches)."""
    from sqlglot import exp

    if (
        isinstance(node, exp.Bracket)
        and len(node.expressions) == 1
        and not isinstance(node.expressions[0], exp.Literal | exp.Slice)
    ):
        index = exp.Cast(this=node.expressions[0], to=exp.DataType.build("INT"))
        return exp.Anonymous(this="try_element_at", expressions=[node.this, index])
    return node


def _hugeint(node: exp.Expression) -> exp.Expression:
    """HUGEINT (128-bit) has no Spark type: DECIMAL(38, 0) holds every value the SQL files form
    (lifecycle.event_order: time * 2^63 + seq < 2^126 < 10^38). UBIGINT (a stored hash, e.g.
    derived.dag_paths.input_hash) neither: DECIMAL(20, 0), as Spark reads Parquet's UINT64."""
    from sqlglot import exp

    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
        return exp.DataType.build("DECIMAL(38, 0)")
    if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.UBIGINT:
        return exp.DataType.build("DECIMAL(20, 0)")
    return node


def _not_materialized(node: exp.Expression) -> exp.Expression:
    """``WITH t AS MATERIALIZED``: a DuckDB planning hint; Spark plans CTEs itself."""
    from sqlglot import exp

    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None:
        node.set("materialized", None)
    return node


def _table_range(node: exp.Expression) -> exp.Expression:
    """A table function ``range(a, b) AS p(x)`` joined to the rows before it (a lateral series) is
    Spark's ``LATERAL VIEW explode(sequence(a, b - 1)) p AS x``."""
    from sqlglot import exp

    if not isinstance(node, exp.Select):
        return node
    for join in list(node.args.get("joins") or []):
        table = join.this
        if (
            isinstance(table, exp.Table)
            and isinstance(table.this, exp.GenerateSeries)
            and not join.args.get("on")
            and not join.args.get("side")
        ):
            join.pop()
            lateral = exp.Lateral(this=exp.Explode(this=table.this), view=True, alias=table.args.get("alias"))
            node.append("laterals", lateral)
    return node


def _from_range(node: exp.Expression) -> exp.Expression:
    """A FROM-clause series ``range(a, b) AS r(x)`` or list ``unnest(l) AS u(x)`` is a subquery
    exploding Spark's sequence (or the list)."""
    from sqlglot import exp

    if isinstance(node, exp.From) and isinstance(node.this, exp.Unnest) and len(node.this.expressions) == 1:
        alias = node.this.args.get("alias")
        cols = alias.columns if alias is not None else []
        column = cols[0].name if cols else "unnest"
        inner = exp.select(exp.alias_(exp.Explode(this=node.this.expressions[0]), column)).subquery(
            alias.name if alias is not None and alias.name else "unnest"
        )
        return exp.From(this=inner)
    if isinstance(node, exp.From) and isinstance(node.this, exp.Table):
        table = node.this
        if isinstance(table.this, exp.GenerateSeries):
            alias = table.args.get("alias")
            cols = alias.columns if alias is not None else []
            column = cols[0].name if cols else "range"
            inner = exp.select(exp.alias_(exp.Explode(this=table.this), column)).subquery(
                alias.name if alias is not None and alias.name else "range"
            )
            return exp.From(this=inner)
    return node


def _parallel_unnest(node: exp.Expression) -> exp.Expression:
    """Several ``unnest(list) AS x`` in one SELECT run in parallel in DuckDB (the i-th elements
    together, NULL-padded); Spark allows one generator per SELECT: ``inline(arrays_zip(...)) AS (...)``,
    which pads the same way."""
    from sqlglot import exp

    if not isinstance(node, exp.Select):
        return node
    items = node.expressions
    where = [i for i, e in enumerate(items) if isinstance(e, exp.Alias) and isinstance(e.this, exp.Explode)]
    if len(where) < 2:
        return node
    if where != list(range(where[0], where[0] + len(where))):
        raise SparkError("several unnest() in one SELECT must be side by side to have a Spark form")
    zipped = exp.Anonymous(
        this="inline",
        expressions=[exp.Anonymous(this="arrays_zip", expressions=[items[i].this.this for i in where])],
    )
    combined = exp.Aliases(this=zipped, expressions=[exp.to_identifier(items[i].alias) for i in where])
    node.set("expressions", [*items[: where[0]], combined, *items[where[-1] + 1 :]])
    return node


def _regex_named_groups(node: exp.Expression) -> exp.Expression:
    """RE2's named groups ``(?P<name>...)`` are ``(?<name>...)`` in Java's regex syntax."""
    from sqlglot import exp

    if isinstance(node, exp.RegexpExtract | exp.RegexpLike | exp.RegexpReplace | exp.RegexpExtractAll):
        pattern = node.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string and "(?P<" in pattern.this:
            node.set("expression", exp.Literal.string(pattern.this.replace("(?P<", "(?<")))
    return node


@functools.cache
def _aggregate_macros() -> dict[str, tuple[list[str], Any]]:
    """The DuckDB macros whose body aggregates (e.g. meta.cdf): a Spark SQL function cannot, so
    their calls are expanded in place, as DuckDB itself expands macros."""
    import sqlglot
    from sqlglot import exp

    out = {}
    for folder in ("meta", *sql_folders()):
        for f in sqlfiles.folder(folder):
            text = rewrite_unpivot(expand_sql(f.body))
            # only a file that creates a macro is parsed: parsing every view file of the catalog
            # cost ~0.5 s of each process's first registration (6 files of 49 create one)
            if not sqlfiles.creates(text, "macro"):
                continue
            for stmt in sqlglot.parse(text, read="duckdb"):
                if (
                    isinstance(stmt, exp.Create)
                    and str(stmt.args.get("kind")).upper() == "MACRO"
                    and isinstance(stmt.this, exp.UserDefinedFunction)
                    and stmt.expression is not None
                    # an aggregate of the macro's own arguments (not one inside a query it runs)
                    and any(
                        a.find_ancestor(exp.Select) is None for a in stmt.expression.find_all(exp.AggFunc)
                    )
                    and not isinstance(stmt.expression, exp.Select | exp.Subquery | exp.Union)
                ):
                    name = stmt.this.this.sql(dialect="duckdb")
                    out[name] = ([p.name for p in stmt.this.expressions], stmt.expression)
    return out


def _expand_aggregate_macro(node: exp.Expression) -> exp.Expression:
    """``db.macro(args)`` of an aggregating macro: its body with the arguments in place."""
    from sqlglot import exp

    if not (isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous)):
        return node
    name = f"{node.this.name}.{node.expression.name}"
    macro = _aggregate_macros().get(name)
    if macro is None:
        return node
    params, body = macro
    args = dict(zip(params, node.expression.expressions, strict=True))
    return body.transform(  # (on a copy of the body)
        lambda n: args[n.name].copy() if isinstance(n, exp.Column) and not n.table and n.name in args else n
    )


def _named_parameter(node: exp.Expression) -> exp.Expression:
    """``$name`` parameters become Spark's named parameter markers ``:name``."""
    from sqlglot import exp

    if isinstance(node, exp.Parameter):
        return exp.Placeholder(this=node.name)
    return node


def _cast_unnest(node: exp.Expression) -> exp.Expression:
    """``unnest(l)::T`` (a cast of each element): Spark does not nest a generator in an
    expression, so the list is cast instead, ``explode(CAST(l AS ARRAY<T>))``, the same values."""
    from sqlglot import exp

    if (
        isinstance(node, exp.Cast)
        and isinstance(node.this, exp.Explode)
        and not node.this.args.get("expressions")
    ):
        to = exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[node.to.copy()], nested=True)
        return exp.Explode(this=exp.Cast(this=node.this.this, to=to))
    return node


def _generate_subscripts(node: exp.Expression) -> exp.Expression:
    """``generate_subscripts(l, 1)``: one row per index 1..len(l) (none for an empty or NULL list),
    a set-returning function like unnest: Spark's ``explode`` of the list's indices, which
    _parallel_unnest then zips with an ``unnest(l)`` beside it."""
    from sqlglot import exp

    if not _anonymous(node, "generate_subscripts"):
        return node
    if len(node.expressions) != 2 or node.expressions[1].sql() != "1":
        raise SparkError("generate_subscripts(list, dim) has a Spark form for dimension 1 only")
    # transform(l, (x, i) -> i + 1): the 1-based indices, as long as the list (empty, NULL alike)
    index = exp.Cast(
        this=exp.Add(this=exp.to_identifier("i"), expression=exp.Literal.number(1)),
        to=exp.DataType.build("BIGINT"),
    )
    lam = exp.Lambda(this=index, expressions=[exp.to_identifier("x"), exp.to_identifier("i")])
    return exp.Explode(this=exp.Anonymous(this="transform", expressions=[node.expressions[0], lam]))


def _paren_named_window(node: exp.Expression) -> exp.Expression:
    """``f() OVER w - x`` (a named window as an operand): Spark's parser reads ``w - x`` as one
    (invalid) dashed identifier; ``(f() OVER w) - x`` means the same."""
    from sqlglot import exp

    if (
        isinstance(node, exp.Window)
        and node.args.get("over")
        and isinstance(node.args.get("alias"), exp.Identifier)
        and not node.args.get("partition_by")
        and not node.args.get("order")
        and not node.args.get("spec")
        and isinstance(node.parent, exp.Binary)
    ):
        return exp.Paren(this=node)
    return node


def _join_hint(node: exp.Expression) -> exp.Expression:
    """A join hint ``SELECT /*+ BROADCAST(t) */ ...`` is a comment to DuckDB (which plans its
    joins from what it has computed) and a hint to Spark, whose size estimate of a join's inputs
    can be wrong by orders of magnitude (a join of a few thousand rows estimated at terabytes):
    sqlglot reads it as a plain comment, so it is made Spark's hint again."""
    import sqlglot
    from sqlglot import exp

    if not isinstance(node, exp.Select) or not node.comments:
        return node
    hints = [c for c in node.comments if c.startswith("+")]
    if not hints:
        return node
    expressions = []
    for h in hints:
        parsed = sqlglot.parse_one(f"SELECT /*{h}*/ 1", read="spark").args.get("hint")
        if parsed is None:
            raise SparkError(f"not a Spark hint: /*{h}*/")
        expressions += parsed.expressions
    node.set("hint", exp.Hint(expressions=expressions))
    node.comments = [c for c in node.comments if not c.startswith("+")]
    return node


# Text rewrites (before parsing) and AST rewrites (after), in order.
TEXT_OVERRIDES: tuple[Callable[[str], str], ...] = (rewrite_unpivot,)
OVERRIDES: tuple[Callable[[Any], Any], ...] = (
    _expand_aggregate_macro,
    _named_parameter,
    _not_materialized,
    _table_range,
    _from_range,
    _generate_subscripts,
    _cast_unnest,
    _parallel_unnest,
    _paren_named_window,
    _regex_named_groups,
    _quantile,
    _fsum,
    _regexp_full_match,
    _timezone,
    _intervals,
    _ordered_list,
    _list_index,
    _hugeint,
    _join_hint,
)


# Rewrites that need what a statement alone does not say: the parameters' values, or the columns
# of the relations it reads (asked of the Spark session, which has the views registered).


def _frame_bounds(
    stmt: exp.Expression, spark: SparkSession | None, params: dict[str, object]
) -> exp.Expression:
    """A window frame bound computed from parameters (``ROWS BETWEEN greatest($w // $b, 1) - 1
    PRECEDING``): Spark wants a literal, so the bound is evaluated (by DuckDB, with the values
    given) and written as the number."""
    from sqlglot import exp

    for spec in list(stmt.find_all(exp.WindowSpec)):
        for side in ("start", "end"):
            bound = spec.args.get(side)
            if not isinstance(bound, exp.Expression) or isinstance(bound, exp.Literal):
                continue
            for p in list(bound.find_all(exp.Placeholder)):
                if p.name not in params:
                    raise SparkError(f"a window frame bound uses the parameter ${p.name}, which has no value")
                p.replace(exp.convert(params[p.name]))
            value = _evaluate(bound)
            if not isinstance(value, int) or isinstance(value, bool):
                raise SparkError(f"window frame bound {bound.sql(dialect='duckdb')} is not a whole number")
            spec.set(side, exp.Literal.number(value))
    return stmt


def _evaluate(expression: exp.Expression) -> Any:
    """The value of a constant DuckDB expression, computed by DuckDB."""
    import duckdb

    con = duckdb.connect()
    try:
        return con.execute(f"SELECT {expression.sql(dialect='duckdb')}").fetchall()[0][0]
    except duckdb.Error as e:
        raise SparkError(f"{expression.sql(dialect='duckdb')}: not a constant ({e})") from e
    finally:
        con.close()


def _star_columns(
    stmt: exp.Expression, spark: SparkSession | None, params: dict[str, object]
) -> exp.Expression:
    """DuckDB's star expression ``f(COLUMNS(rel.* EXCLUDE (a)), ...)`` (or ``COLUMNS('regex')``):
    one select item per column the star stands for, ``f(rel.c, ...) AS c`` (the item's own alias
    if it has one), as DuckDB expands it. The columns are those Spark resolves for the star over the
    same FROM clause and the CTEs before it (earlier COLUMNS expanded first)."""
    from sqlglot import exp

    while True:
        pending = list(stmt.find_all(exp.Columns))
        if not pending:
            return stmt
        for node in pending:
            select = node.find_ancestor(exp.Select)
            if select is None:
                raise SparkError("COLUMNS(...) outside a SELECT has no Spark form")
            inner = node.this
            star = inner if not (isinstance(inner, exp.Literal) and inner.is_string) else exp.Star()
            probe = _scope_probe(select, star)
            if probe.find(exp.Columns) is None:
                break
        else:
            raise SparkError("COLUMNS(...) over columns that are themselves a COLUMNS(...) has no Spark form")
        if spark is None:
            raise SparkError("COLUMNS(...) needs the Spark session that resolves its columns")
        names = _probe_columns(spark, probe, params)
        if isinstance(inner, exp.Literal):
            pattern = re.compile(inner.this)
            names = [n for n in names if pattern.search(n)]
        if len(set(n.lower() for n in names)) != len(names):
            raise SparkError(f"COLUMNS({inner.sql(dialect='duckdb')}): the names are ambiguous: {names}")
        table = inner.args.get("table") if isinstance(inner, exp.Column) else None
        items = []
        for item in select.expressions:
            if not any(c.this == inner for c in item.find_all(exp.Columns)):
                items.append(item)
                continue
            for name in names:
                column = exp.column(name, table=table.copy() if table else None, quoted=True)
                value = item.this if isinstance(item, exp.Alias) else item
                value = value.transform(  # (on a copy)
                    lambda n, column=column, inner=inner: (
                        column.copy() if isinstance(n, exp.Columns) and n.this == inner else n
                    )
                )
                alias = (
                    item.args["alias"].copy()
                    if isinstance(item, exp.Alias)
                    else exp.to_identifier(name, quoted=True)
                )
                items.append(exp.Alias(this=value, alias=alias))
        select.set("expressions", items)


def _scope_probe(select: exp.Select, star: exp.Expression) -> exp.Select:
    """``SELECT <star> FROM <select's FROM and joins>`` with the CTEs visible there (those before
    the CTE it is in): the query whose columns a star of ``select`` stands for."""
    from sqlglot import exp

    probe = select.copy()
    probe.set("expressions", [star.copy()])
    for arg in ("where", "group", "having", "qualify", "order", "limit", "offset", "windows", "distinct"):
        probe.set(arg, None)
    own = probe.args.get("with_")
    ctes = _visible_ctes(select) + (list(own.expressions) if own else [])
    if ctes:
        probe.set("with_", exp.With(expressions=ctes))
    return probe


def _visible_ctes(node: exp.Expression) -> list[exp.Expression]:
    """Copies of the CTEs a node can read: those of the WITH clauses it is in, before the CTE it
    is part of (its own WITH, if it has one, left out)."""
    from sqlglot import exp

    ctes: list[exp.Expression] = []
    path = {id(node)}  # the node and the nodes it is in
    parent = node.parent
    while parent is not None:
        with_ = parent.args.get("with_")
        if isinstance(with_, exp.With):
            visible = []
            for cte in with_.expressions:
                if id(cte) in path:
                    break
                visible.append(cte.copy())
            ctes = visible + ctes
        path.add(id(parent))
        parent = parent.parent
    return ctes


def _union_by_name(
    stmt: exp.Expression, spark: SparkSession | None, params: dict[str, object]
) -> exp.Expression:
    """``a UNION [ALL] BY NAME b``: Spark SQL has no BY NAME. Each side becomes a SELECT of the
    union's columns by name (the left side's, then those only the right side has, as DuckDB
    orders them), NULL where the side has no such column, and the sides are unioned by position.
    The sides' columns are those Spark resolves for them (with the CTEs visible there)."""
    from sqlglot import exp

    while True:
        unions = [
            u
            for u in stmt.find_all(exp.Union)
            if u.args.get("by_name")
            and not any(x.args.get("by_name") for x in u.find_all(exp.Union) if x is not u)
        ]
        if not unions:
            return stmt
        if spark is None:
            raise SparkError("UNION BY NAME needs the Spark session that resolves the columns of its sides")
        union = unions[0]
        own = union.args.get("with_")
        ctes = _visible_ctes(union) + (list(own.expressions) if own else [])
        sides = [union.this, union.expression]
        names = []
        for side in sides:
            probe = exp.select("*").from_(side.copy().subquery("s"))
            if ctes:
                probe.set("with_", exp.With(expressions=[c.copy() for c in ctes]))
            names.append(_probe_columns(spark, probe, params))
        left = {n.lower() for n in names[0]}
        columns = names[0] + [n for n in names[1] if n.lower() not in left]
        selects = []
        for side, have in zip(sides, names, strict=True):
            by_lower = {n.lower(): n for n in have}
            items = [
                exp.alias_(
                    exp.column(by_lower[c.lower()], quoted=True) if c.lower() in by_lower else exp.Null(),
                    c,
                    quoted=True,
                )
                for c in columns
            ]
            selects.append(exp.select(*items).from_(side.copy().subquery("s")))
        union.set("this", selects[0])
        union.set("expression", selects[1])
        union.set("by_name", None)


def _probe_columns(spark: SparkSession, probe: exp.Select, params: dict[str, object]) -> list[str]:
    """The column names Spark resolves for a probe query (analysed, not run); a parameter without
    a value is NULL there (the names do not depend on it)."""
    from sqlglot import exp

    unbound = probe.transform(
        lambda n: exp.Null() if isinstance(n, exp.Placeholder) and n.name not in params else n
    )
    text = unbound.sql(dialect="spark")
    args = {k: v for k, v in params.items() if f":{k}" in text}
    return list(_run(spark, text, "resolving the columns of a star or a UNION BY NAME side", args).columns)


def _information_schema(
    stmt: exp.Expression, spark: SparkSession | None, params: dict[str, object]
) -> exp.Expression:
    """``information_schema.columns`` (table_schema, table_name, column_name, ordinal_position,
    data_type as DuckDB names the type): Spark has no such view; the rows are read from the
    session's catalog (of the databases a ``table_schema = '...'`` / ``IN (...)`` condition names,
    else all) and put in the query as VALUES."""
    from sqlglot import exp

    for table in list(stmt.find_all(exp.Table)):
        if table.args.get("db") is None or table.db.lower() != "information_schema":
            continue
        if table.name.lower() != "columns":
            raise SparkError(f"information_schema.{table.name} has no Spark form (only columns)")
        if spark is None:
            raise SparkError("information_schema.columns needs the Spark session whose catalog it lists")
        select = table.find_ancestor(exp.Select)
        named: set[str] = set()
        for cond in select.find_all(exp.EQ, exp.In) if select is not None else []:
            if isinstance(cond.this, exp.Column) and cond.this.name.lower() == "table_schema":
                values = [cond.expression] if isinstance(cond, exp.EQ) else cond.expressions
                named |= {v.this for v in values if isinstance(v, exp.Literal) and v.is_string}
        dbs = sorted(named) if named else sorted(d.name for d in spark.catalog.listDatabases())
        rows = []
        for db in dbs:
            if not spark.catalog.databaseExists(db):
                continue
            # the catalog's views and tables (a report step's temporary views are no database's)
            tables = [t for t in spark.catalog.listTables(db) if not t.isTemporary]
            for t in sorted(tables, key=lambda t: t.name):
                for i, c in enumerate(spark.catalog.listColumns(f"{db}.{t.name}"), start=1):
                    rows.append((db, t.name, c.name, i, c.dataType))
        names = _duckdb_type_names({r[4] for r in rows})
        rows = [(*r[:4], names[r[4]]) for r in rows]
        columns = ["table_schema", "table_name", "column_name", "ordinal_position", "data_type"]
        alias = table.alias or "columns"
        if rows:
            relation: exp.Expression = exp.values(rows, alias=alias, columns=columns)
        else:
            empty = exp.select(
                *(
                    exp.alias_(exp.cast(exp.Null(), "BIGINT" if c == "ordinal_position" else "STRING"), c)
                    for c in columns
                )
            ).where(exp.false())
            relation = empty.subquery(alias)
        table.replace(relation)
    return stmt


def _duckdb_type_names(spark_types: set[str]) -> dict[str, str]:
    """Spark type strings -> the names DuckDB gives the same types (INTEGER, VARCHAR, ...), by DuckDB."""
    import duckdb
    from sqlglot import exp

    con = duckdb.connect()
    try:
        out = {}
        for t in spark_types:
            duck = exp.DataType.build(t, dialect="spark").sql(dialect="duckdb")
            out[t] = con.execute(f"SELECT typeof(CAST(NULL AS {duck}))").fetchall()[0][0]
        return out
    finally:
        con.close()


SESSION_OVERRIDES: tuple[Callable[[Any, Any, dict[str, object]], Any], ...] = (
    _frame_bounds,
    _information_schema,
    _star_columns,
    _union_by_name,
)


def transpile(
    text: str, spark: SparkSession | None = None, params: dict[str, object] | None = None
) -> list[str]:
    """The Spark SQL statements for one DuckDB SQL file (or query); comments are left out.

    The registry placeholders of shared SQL (``{{union X}}``, ``{{each trace: ...}}``) are filled
    with the columns of the adapter views registered in ``spark`` (Spark has no UNION BY NAME);
    SESSION_OVERRIDES ask ``spark`` for columns and use the values of ``params``.
    """
    out = []
    for stmt in _parsed(text, spark):
        spark_sql = _statement(stmt, spark, params or {})
        if spark_sql is not None:
            out.append(spark_sql)
    return out


def _parsed(text: str, spark: SparkSession | None) -> list[Any]:
    """The DuckDB statements of ``text`` (placeholders filled, text overrides applied), comments
    left out."""
    import sqlglot
    from sqlglot import exp

    text = expand_sql(text, view_columns(spark) if spark is not None else _no_session)
    for rewrite in TEXT_OVERRIDES:
        text = rewrite(text)
    try:
        statements = sqlglot.parse(text, read="duckdb")
    except sqlglot.errors.ParseError as e:
        raise SparkError(f"cannot translate to Spark SQL: {str(e).splitlines()[0]}") from e
    return [s for s in statements if s is not None and not isinstance(s, exp.Comment)]


def _no_session(view: str) -> list[tuple[str, str]]:
    raise SparkError(f"shared SQL over {view} needs the Spark session its adapter views are registered in")


def view_columns(spark: SparkSession) -> Callable[[str], list[tuple[str, str]]]:
    """The columns of a view registered in ``spark``, (name, DuckDB type) as expand_sql wants
    them (Spark type -> DuckDB type -> the same Spark type again, through sqlglot)."""
    from sqlglot import exp

    def columns(view: str) -> list[tuple[str, str]]:
        try:
            schema = spark.table(view).schema
        except Exception as e:
            raise SparkError(f"{view}: not registered in this session ({_one_line(e)})") from e
        return [
            (f.name, exp.DataType.build(f.dataType.simpleString(), dialect="spark").sql(dialect="duckdb"))
            for f in schema.fields
        ]

    return columns


def _statement(
    stmt: Any, spark: SparkSession | None = None, params: dict[str, object] | None = None
) -> str | None:
    from sqlglot import exp

    stmt = _overridden(stmt, spark, params or {})
    if isinstance(stmt, exp.Create):
        kind = str(stmt.args.get("kind") or "").upper()
        if kind == "SCHEMA":
            return f"CREATE DATABASE IF NOT EXISTS {stmt.this.sql(dialect='spark')}"
        if kind == "MACRO":
            return _function(stmt)
        if kind == "TABLE" and stmt.expression is None:
            return None  # storage DuckDB owns (meta.*): Spark sees the snapshot views of register()
        if kind == "TABLE":
            # a code table: a view over its VALUES (nothing to write, same rows)
            stmt.set("kind", "VIEW")
    return stmt.sql(dialect="spark")


def _overridden(stmt: Any, spark: SparkSession | None, params: dict[str, object]) -> Any:
    """A parsed DuckDB statement with OVERRIDES and SESSION_OVERRIDES applied (to a copy)."""
    # One copy, then each override in place: a transform copies the whole tree by default, and
    # copying it once per override was 6 of the ~12 driver CPU s of registering the sample.
    stmt = stmt.copy()
    for override in OVERRIDES:
        stmt = stmt.transform(override, copy=False)
    for session_override in SESSION_OVERRIDES:
        stmt = session_override(stmt, spark, params)
    return stmt


def _function(stmt: exp.Create) -> str | None:
    """A DuckDB scalar macro as a Spark SQL function of the same qualified name."""
    from sqlglot import exp

    udf = stmt.this
    if isinstance(udf, exp.UserDefinedFunction) and udf.this.sql(dialect="duckdb") in _aggregate_macros():
        return None  # expanded where it is called (see _expand_aggregate_macro)
    if not isinstance(udf, exp.UserDefinedFunction) or str(stmt.args.get("kind")).upper() != "MACRO":
        raise SparkError(f"{stmt.sql(dialect='duckdb')[:60]}...: only scalar macros have a Spark form")
    name = udf.this.sql(dialect="duckdb")
    params = []
    for p in udf.expressions:
        pname = p.name
        kind = p.args.get("kind") if isinstance(p, exp.ColumnDef) else None
        ptype = kind.transform(_hugeint).sql(dialect="spark") if kind else PARAM_TYPES_BY_NAME.get(pname)
        if ptype is None:
            raise SparkError(
                f"macro {name}: no Spark type for its parameter {pname!r}; declare it in the macro "
                f"({pname} DOUBLE, ...)"
            )
        params.append(f"{pname} {ptype}")
    body = stmt.expression.sql(dialect="spark")
    if isinstance(stmt.expression, exp.Select | exp.Union):
        body = f"({body})"  # a macro over a query (one value): a scalar subquery
    return f"CREATE OR REPLACE FUNCTION {udf.this.sql(dialect='spark')}({', '.join(params)}) RETURN {body}"


def spark_type(duckdb_type: str) -> str:
    """A DuckDB column type as Spark SQL DDL (e.g. ``STRUCT(cpus DOUBLE)[]`` -> ``ARRAY<STRUCT<...>>``)."""
    from sqlglot import exp

    return exp.DataType.build(duckdb_type, dialect="duckdb").transform(_hugeint).sql(dialect="spark")


# ---------------------------------------------------------------------------------------------
# Sessions and registration
# ---------------------------------------------------------------------------------------------


def session(
    master: str | None = None, app_name: str = "tracewh", home: Home | None = None, small: bool = False
) -> SparkSession:
    """A SparkSession with tracewh's settings (``master`` None: what spark-submit or the
    environment says, else local[*]); its folders under ``home``'s tmp/ (scratch_dir). ``small``:
    a local session sized for a small home (SMALL_HOME_CONF); it applies when this call starts
    the JVM."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:
        raise UsageError("the Spark engine needs the spark extra: pip install 'tracewh[spark]'") from e
    running = SparkSession.getActiveSession()
    if running is not None:
        # A session already running in this process (the user's own, or one tracewh started with
        # other sizes) keeps its settings: the builder would set ours on it again (its shuffle
        # partitions, Arrow, ...). What results depend on, SESSION_CONF, register sets on any session.
        return running
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    for key, value in {**SESSION_CONF, **OWN_SESSION_CONF}.items():
        builder = builder.config(key, value)
    scratch = scratch_dir(home)
    # Spark's defaults are the working directory (spark-warehouse/, made by CREATE DATABASE even
    # with the in-memory catalog, which keeps the metastore in memory: no metastore_db/, derby.log)
    # and the system temp folder (block manager and shuffle files).
    builder = builder.config("spark.sql.warehouse.dir", (scratch / "warehouse").as_uri())
    if (master or "local").startswith("local"):
        # local executors are this machine's; a cluster's executors use their own scratch folders
        builder = builder.config("spark.local.dir", str(scratch / "local"))
        builder = builder.config("spark.sql.shuffle.partitions", str(LOCAL_SHUFFLE_PARTITIONS))
        builder = builder.config("spark.ui.enabled", "false")
        builder = builder.config(
            "spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", LOCAL_DRIVER_MEMORY)
        )
        builder = builder.config("spark.driver.extraJavaOptions", LOCAL_JAVA_OPTIONS)
        for key, value in (SMALL_HOME_CONF if small else {}).items():
            builder = builder.config(key, value)
        # Python workers (the DAG walk, the ingest tasks) run with this interpreter, which has
        # tracewh installed, unless the user chose one (pyspark reads only the environment).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    try:
        spark = builder.getOrCreate()
    except Exception as e:  # a JVM that does not start: no Java, a bad master URL
        raise SparkError(f"cannot start Spark ({master or 'default master'}): {_one_line(e)}") from e
    # Failed statements become one-line errors here; Spark's own ERROR log would repeat them at length.
    spark.sparkContext.setLogLevel("FATAL")
    return spark


def scratch_dir(home: Home | None) -> Path:
    """The folder of a session's warehouse dir and local scratch: this process's ``spark-<pid>``
    under the home's tmp/ (tidied by Home.clean_tmp once the process is gone); without a home, or
    when the home cannot hold it (read-only), a private temporary folder. Removed at exit."""
    folder: Path | None = None
    if home is not None:
        folder = home.process_tmp("spark")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            folder = None
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="tracewh-spark-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def register(
    spark: SparkSession,
    home: Home | str | Path,
    data_root: str | None = None,
    cache: bool = False,
    only: Any = None,
) -> list[str]:
    """Create the databases, functions and views of the catalog in ``spark``; returns the view names.

    ``data_root``: where Spark reads the Parquet (default: the home's ``parquet/`` folder, which
    must be at the same path on every executor); e.g. ``s3a://bucket/tracewh-home/parquet`` for a
    copy of the home on object storage.
    ``cache``: also compute every view once, in dependency order, and keep it in the executors'
    memory (Spark's ``CACHE TABLE``), so a query over a view reads its rows instead of planning
    and running the chain of views under it again. For homes that fit in memory (the bundled
    sample, a slice); the views' results are the same either way.
    ``only``: a report (tracewh.reports.Report): register what its SQL reads, transitively (the
    meta views and the time macros always), instead of every view: Spark analyses each view as it
    is created, and the whole catalog costs a minute of driver CPU. Registering again (for another
    report) adds what is missing. One registration runs at a time (threads calling it wait).

    The derived layer reads the Parquet the ingest stored (the same files DuckDB reads); a trace
    whose task events were ingested without it (an older catalog) is computed from the life-cycle
    views, as in DuckDB.
    """
    with _REGISTERING:
        return _register(spark, home, data_root, cache, only)


# register() reads and writes the session's registration keys (the catalog's stamp, the units,
# reports and views registered, the views cached) as one state: two threads registering at once
# could each leave a part of theirs (a report marked registered whose views the list lacks).
_REGISTERING = threading.RLock()


def _register(
    spark: SparkSession, home: Home | str | Path, data_root: str | None, cache: bool, only: Any
) -> list[str]:
    home = home if isinstance(home, Home) else Home.resolve(home)
    for key, value in SESSION_CONF.items():
        spark.conf.set(key, value)
    # The same catalog file (path, size, modification time) registered again: what it registered
    # then is there (views cached by an earlier call stay cached).
    stat = home.catalog.stat() if home.catalog.exists() else None
    stamp = f"{home.root}|{stat.st_size}|{stat.st_mtime_ns}" if stat else ""
    previous = spark.conf.get(_REGISTERED, "")
    same = bool(stamp) and previous == stamp
    done = _conf_set(spark, _UNITS) if same else set()
    # Nothing to add (every unit, or this report's, registered from this catalog): the names kept
    # at the last registration, without the snapshot of the catalog, the plan's walk or a listing
    # of Spark's catalog (~1 CPU s of driver and JVM together at each report otherwise).
    if same and (_ALL in done or (only is not None and only.name in _conf_set(spark, _REPORTS))):
        return sorted(_conf_set(spark, _VIEWS))
    if previous and previous != stamp:
        _uncache(spark)  # another catalog's (or an older) views: their cached rows are stale
        _refresh_file_tables(spark)
    snap = _catalog_snapshot(home)
    steps = catalog.plan()
    wanted = (
        {s.label for s in steps}
        if only is None
        else catalog.needed(steps, _report_names(only), functools.partial(_reads, snap))
    )
    adding = not wanted <= done
    if adding:
        # until the keys below are written whole, this session's registration is no catalog's: a
        # call stopped in between leaves the next one to register again (and uncache) from scratch
        spark.conf.set(_REGISTERED, f"{stamp}|partial")
        root = data_root.rstrip("/") if data_root else str(home.parquet)
        ctx = _Context(spark, home, snap, root, cache)
        for step in steps:
            if step.label in wanted and step.label not in done:
                _execute(ctx, step)
                done.add(step.label)
    # nothing added (the report's units were registered for others from this catalog: another
    # catalog has nothing done, so it always adds): the names kept, not a listing of Spark's
    # databases (~0.4 s)
    views = _registered_views(spark) if adding else sorted(_conf_set(spark, _VIEWS))
    reports_done = _conf_set(spark, _REPORTS) if same else set()
    spark.conf.set(_UNITS, _ALL if only is None else "\n".join(sorted(done)))
    spark.conf.set(_REPORTS, "\n".join(sorted(reports_done | ({only.name} if only is not None else set()))))
    spark.conf.set(_VIEWS, "\n".join(views))
    spark.conf.set(_REGISTERED, stamp)  # last: the keys above are this catalog's
    return views


_REGISTERED = "spark.tracewh.registered"  # which catalog file this session's views come from
_UNITS = "spark.tracewh.registered.units"  # which units of it (register's ``only``), or _ALL
_ALL = "*"
_REPORTS = "spark.tracewh.registered.reports"  # the reports whose units are among them
_VIEWS = "spark.tracewh.registered.views"  # the names of the views and tables registered
_CACHED = "spark.tracewh.registered.cached"  # the views register cached (``cache``)


def _conf_set(spark: SparkSession, key: str) -> set[str]:
    """A set kept in the session's configuration as lines (empty when unset)."""
    return set((spark.conf.get(key, "") or "").split("\n")) - {""}


@dataclasses.dataclass
class _Snapshot:
    """What register reads of the DuckDB catalog: the live generations, the small meta tables,
    the stored derived tables, their column types, and the derived views over stored tables."""

    live: dict[tuple[str, str], str]
    meta: dict[str, tuple[list, list]]
    stored: dict[tuple[str, str], str]  # (trace, name) -> data_dir
    ingested: dict[str, set[str]]  # per derived table: the traces whose table behind its input is ingested
    derived_columns: dict[str, list[tuple[str, str]]]  # name -> [(column, DuckDB type)]
    derived_sql: dict[str, str]  # name -> the DuckDB view of a ``reads:`` file


@dataclasses.dataclass
class _Context:
    spark: SparkSession
    home: Home
    snap: _Snapshot
    root: str
    cache: bool


def _report_names(report: Any) -> set[str]:
    """What a report reads: the names of its SQL, and the stored rows of its Python step."""
    names = catalog.names_read(expand_sql(report.template))
    if report.python:
        names |= {
            f"{derived.SCHEMA}.{derived.short(f)}"
            for f in derived.walk_files()
            if f.header["python"] == report.python
        }
    return names


def _reads(snap: _Snapshot, step: catalog.Step) -> str:
    """The SQL whose names say what a step reads on Spark: a derived table reads the life-cycle
    views only for a trace whose table is not stored (none on a home ingested by this tracewh)."""
    if not isinstance(step, catalog.DerivedTable) or derived.walked(step.file):
        return step.text
    f = step.file
    name = derived.short(f)
    if derived.reads(f):
        return snap.derived_sql.get(name) or derived.recomputed(f)
    return " ".join(derived.query(f, t) for t in sorted(snap.ingested[name]) if (t, name) not in snap.stored)


# Storage tables of the meta schema (``CREATE TABLE meta.x (...)``, no query): Spark has the
# snapshot of those in META_TABLES instead.
_STORAGE_TABLE = re.compile(r"\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?meta\.(\w+)\s*\(", re.IGNORECASE)


def _execute(ctx: _Context, step: catalog.Step) -> None:
    """Spark's executor of one step of the catalog's build plan (catalog.plan)."""
    if isinstance(step, catalog.Schemas):
        for name in step.names:
            _run(ctx.spark, f"CREATE DATABASE IF NOT EXISTS {name}", name)
    elif isinstance(step, catalog.Sql):
        what = step.label.split("/")[-1]
        for name in _STORAGE_TABLE.findall(step.text):
            if name in META_TABLES:
                _run_view(ctx.spark, _meta_view(name, *ctx.snap.meta[name]), f"meta.{name}", ctx.cache)
        # the shared unions are filled with the adapter views' columns as registered (transpile)
        for stmt in transpile(step.body, ctx.spark):
            _run_view(ctx.spark, stmt, what, ctx.cache)
        for schema, vocab, rows_sql in step.vocabulary:
            rows = [tuple(r) for r in ctx.spark.sql(rows_sql).collect()]
            for stmt in transpile(vocabulary_macros_sql(schema, vocab, rows), ctx.spark):
                _run(ctx.spark, stmt, f"{schema}.{vocab} macros")
    elif isinstance(step, catalog.RawView):
        _register_raw(step.trace, step.table, ctx)
    elif isinstance(step, catalog.DerivedTable):
        _register_derived(step.file, ctx)
    elif not isinstance(step, catalog.Comments | catalog.AdapterCheck | catalog.Record):
        # comments, the adapter check and the catalog's record are the DuckDB catalog's own
        raise SparkError(f"no Spark executor for the catalog step {type(step).__name__}")


def _register_raw(trace_name: str, table: Table, ctx: _Context) -> None:
    location = None
    data_dir = ctx.snap.live.get((trace_name, table.name))
    if data_dir is not None:
        location = _table_location(ctx.home, trace_name, table.name, data_dir, ctx.root)
    source = None if location is None else _file_table(ctx.spark, f"{trace_name}__{table.name}", location)
    raw = raw_view_sql(trace_name, table, source)
    _run_view(ctx.spark, raw, f"{catalog.raw_schema(trace_name)}.{table.name}", ctx.cache)


def _register_derived(f: sqlfiles.SqlFile, ctx: _Context) -> None:
    """``derived.<name>``: each trace's stored Parquet, typed as the DuckDB catalog types the
    view; a trace ingested without it, the file's query over the life-cycle views (a walked table:
    nothing). A file with ``reads:``: the DuckDB catalog's view (the life-cycle view over the
    stored tables), translated."""
    name = derived.short(f)
    view = f"{derived.SCHEMA}.{name}"
    if derived.reads(f):
        sql = ctx.snap.derived_sql.get(name) or f"CREATE OR REPLACE VIEW {view} AS {derived.recomputed(f)}"
        # DuckDB keeps the statement as written, CREATE VIEW: a second home registered in the same
        # session would find the first one's view there
        if m := _CREATE_VIEW.match(sql):
            sql = f"CREATE OR REPLACE VIEW {m.group(1)}{sql[m.end() :]}"
        for stmt in transpile(sql, ctx.spark):
            _run_view(ctx.spark, stmt, f.path.name, ctx.cache)
        return
    cols = ctx.snap.derived_columns.get(name)
    if cols is None:  # a catalog from before the table (a walked one: nothing stored to read)
        if derived.walked(f):
            return
        raise SparkError(f"{view}: not in the catalog {ctx.home.catalog}; run `tracewh repair` once")
    names = ", ".join(_ident(c) for c, _ in cols)
    prefix = f"{derived.SCHEMA}__{name}"  # its tables in FILES_SCHEMA, one per trace
    branches = [
        f"SELECT {_stored_columns(cols, t)} FROM {_file_table(ctx.spark, f'{prefix}__{t}', where)}"
        for (t, n), data_dir in sorted(ctx.snap.stored.items())
        if n == name and (where := _derived_location(ctx, data_dir, name))
    ]
    branches += [
        f"SELECT {names} FROM ({derived.query(f, t)})"
        for t in sorted(ctx.snap.ingested.get(name, ()))  # a walked table: stored or nothing
        if (t, name) not in ctx.snap.stored
    ]
    if not branches:
        branches.append(
            "SELECT "
            + ", ".join(f"CAST(NULL AS {spark_type(t)}) AS {_ident(c)}" for c, t in cols)
            + " WHERE false"
        )
    _run_view(
        ctx.spark, f"CREATE OR REPLACE VIEW {view} AS {' UNION ALL '.join(branches)}", f.path.name, ctx.cache
    )


# The database of the tables over the home's Parquet that the raw and derived views read (Spark only).
FILES_SCHEMA = "tracewh_files"
# Spark's own setting: a partitioned table tracks its partitions in the catalog (filled by
# `MSCK REPAIR TABLE`) when it is on as the table is created; off, Spark lists the folders.
_CATALOG_PARTITIONS = "spark.sql.hive.manageFilesourcePartitions"


def _file_table(spark: SparkSession, key: str, location: str) -> str:
    """A table of the session catalog over the Parquet at ``location`` (its partition folders
    found by listing it), made afresh; its name. The views read the files through such tables, not
    as ``parquet.`<path>```: Spark resolves a path each time a query names it, and a view each
    time a query reads it, so every view over a raw table listed the table's files and read a
    footer again at each view created and each query over it (~0.15 s a reference on the sample,
    most of a view's analysis). A table's files are listed when it is made and when a view over it
    is made, then kept (register refreshes every such table when the catalog changed, so a raw
    table reads the generation its link names then). Dropping the table leaves its files: a table
    with a LOCATION is external.

    Spark reads a location as a Hadoop glob pattern (a home under ``runs[1]`` or ``a*b`` named
    other folders, or none), and a pattern escaped to match itself would be a folder of another
    name to a Hive metastore (which makes a table's missing folder): its data source option that
    says the path is no pattern is given instead."""
    name = f"{FILES_SCHEMA}.{_ident(key)}"
    _run(spark, f"CREATE DATABASE IF NOT EXISTS {FILES_SCHEMA}", FILES_SCHEMA)
    _run(spark, f"DROP TABLE IF EXISTS {name}", name)
    previous = spark.conf.get(_CATALOG_PARTITIONS, None)
    spark.conf.set(_CATALOG_PARTITIONS, "false")
    try:
        _run(
            spark,
            f"CREATE TABLE {name} USING parquet OPTIONS ('{_NO_GLOB}' 'false') LOCATION {_literal(location)}",
            name,
        )
    finally:
        if previous is None:
            spark.conf.unset(_CATALOG_PARTITIONS)
        else:
            spark.conf.set(_CATALOG_PARTITIONS, previous)
    return name


# Spark's data source option (DataSource.GLOB_PATHS_KEY) that takes a path as it is, not as a pattern.
_NO_GLOB = "__globPaths__"


def _refresh_file_tables(spark: SparkSession) -> None:
    """Every table of FILES_SCHEMA lists its files again when next read: a register of some units
    only (``only``) after an ingest leaves the others' tables, whose raw tables' links now name
    another generation."""
    for name in _tables_in(spark, FILES_SCHEMA):
        _run(spark, f"REFRESH TABLE {FILES_SCHEMA}.{_ident(name)}", name)


def _stored_columns(cols: list[tuple[str, str]], trace: str) -> str:
    """The select list of one trace's stored derived file, typed as the DuckDB catalog types it.
    The file holds that trace's rows only (its query selects ``trace = $trace``), so its trace
    column is written as the literal: Spark then folds a report's ``trace = $trace`` to true for
    this file and false for every other trace's, instead of decoding and comparing the string on
    every row (millions per report over the task transitions or attempts)."""
    return ", ".join(
        f"CAST({_literal(trace) if c == 'trace' else _ident(c)} AS {spark_type(t)}) AS {_ident(c)}"
        for c, t in cols
    )


def _derived_location(ctx: _Context, data_dir: str, name: str) -> str | None:
    """A stored derived table's file (or folder of unit files) as Spark reads it: under the data
    root, at its path below the home's parquet/ folder (where meta.derived says the live
    generation is); None: a folder of no unit file (no row)."""
    paths = derived.stored_paths(ctx.home.root, data_dir, name)
    if not paths:
        return None
    if not all(x.is_file() for x in paths):
        raise SparkError(f"{paths[0]}: the catalog's derived table is missing (run `tracewh check`)")
    folder = ctx.home.root / data_dir / name
    path = folder if folder.is_dir() else paths[0]
    return f"{ctx.root}/{path.relative_to(ctx.home.parquet).as_posix()}"


_CREATE_VIEW = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(\S+)", re.IGNORECASE)


def _run_view(spark: SparkSession, stmt: str, what: str, cache: bool) -> None:
    """One statement of register(); a view it creates is cached at once when ``cache`` (and kept
    in the session's list of cached views, which _uncache reads)."""
    _run(spark, stmt, what)
    m = _CREATE_VIEW.match(stmt)
    if cache and m:
        spark.conf.set(_CACHED, "\n".join(sorted(_conf_set(spark, _CACHED) | {m.group(1)})))
        _run(spark, f"CACHE TABLE {m.group(1)}", what)


def _uncache(spark: SparkSession) -> None:
    """The views register cached (``cache``) uncached. Only those: an UNCACHE makes Spark analyse
    the view, and every view of the catalog took ~48 s of the driver on the sample at each
    registration after an ingest, with nothing cached."""
    for name in sorted(_conf_set(spark, _CACHED)):
        _run(spark, f"UNCACHE TABLE IF EXISTS {name}", name)
    spark.conf.unset(_CACHED)


def _registered_views(spark: SparkSession) -> list[str]:
    # SHOW TABLES lists names only (the catalog's listTables looks up each view's metadata: seconds)
    return sorted(
        f"{db}.{name}"
        for db in ("meta", *trace_names(), *catalog.SHARED_SQL_FOLDERS, derived.SCHEMA)
        for name in _tables_in(spark, db)
    )


def _tables_in(spark: SparkSession, db: str) -> list[str]:
    """The names of the views and tables of database ``db`` (none when it does not exist)."""
    if not spark.catalog.databaseExists(db):
        return []
    return [r.tableName for r in spark.sql(f"SHOW TABLES IN {db}").collect() if not r.isTemporary]


def _catalog_snapshot(home: Home) -> _Snapshot:
    """What register reads of the DuckDB catalog (one read-only connection)."""
    from tracewh.catalog import query

    with query.read_only(home) as con:
        live = {
            (t, n): d
            for t, n, d in con.execute("SELECT trace, table_name, data_dir FROM meta.tables").fetchall()
        }
        meta = {}
        for name in META_TABLES:
            cur = con.execute(f"SELECT * FROM meta.{name}")
            cols = [(d[0], str(d[1])) for d in cur.description or []]
            meta[name] = (cols, cur.fetchall())
        stored = {
            (t, n): d for t, n, d in con.execute("SELECT trace, name, data_dir FROM meta.derived").fetchall()
        }
        columns: dict[str, list[tuple[str, str]]] = {}
        for table, column, type_ in con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name = $s ORDER BY table_name, column_index",
            {"s": derived.SCHEMA},
        ).fetchall():
            columns.setdefault(table, []).append((column, type_))
        views = dict(
            con.execute(
                "SELECT view_name, sql FROM duckdb_views() WHERE database_name = current_database() "
                "AND schema_name = $s",
                {"s": derived.SCHEMA},
            ).fetchall()
        )
    ingested = {derived.short(f): derived.ingested_traces(f, list(live)) for f in derived.files()}
    reads = {derived.short(f) for f in derived.files() if derived.reads(f)}
    return _Snapshot(live, meta, stored, ingested, columns, {n: views[n] for n in reads if n in views})


def _table_location(home: Home, trace: str, table: str, data_dir: str, root: str) -> str:
    """The path Spark lists for a table: its stable link, checked to name the catalog's generation."""
    link = home.table_link(trace, table)
    if not link.exists() or link.resolve() != (home.root / data_dir).resolve():
        raise SparkError(
            f"{link} does not point at the live generation {data_dir} (an ingest is committing, or "
            "the home was copied without its links); retry, or run `tracewh repair`"
        )
    return f"{root}/{trace}/{table}"


def raw_view_sql(trace: str, table: Table, source: str | None) -> str:
    """The typed raw view over a table's Parquet, read as the table ``source`` (_file_table;
    None: no rows, same columns)."""
    cols = [(c.name, c.type) for c in table.columns] + [("seq", "BIGINT")]
    cols += catalog.partition_columns(trace, table)
    if source is None:
        select = ", ".join(f"CAST(NULL AS {spark_type(t)}) AS {_ident(n)}" for n, t in cols)
        body = f"SELECT {select} WHERE false"
    else:
        select = ", ".join(f"CAST({_ident(n)} AS {spark_type(t)}) AS {_ident(n)}" for n, t in cols)
        body = f"SELECT {select} FROM {source}"
    return f"CREATE OR REPLACE VIEW {catalog.raw_schema(trace)}.{table.name} AS {body}"


def _meta_view(name: str, cols: list, rows: list) -> str:
    """meta.<table> as a view over literal rows (a snapshot: register again after an ingest)."""
    names = ", ".join(_ident(c) for c, _ in cols)
    casts = ", ".join(f"CAST({_ident(c)} AS {spark_type(t)}) AS {_ident(c)}" for c, t in cols)
    if rows:
        values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows)
        body = f"SELECT {casts} FROM VALUES {values} AS t({names})"
    else:
        nulls = ", ".join(f"CAST(NULL AS {spark_type(t)}) AS {_ident(c)}" for c, t in cols)
        body = f"SELECT {nulls} WHERE false"
    return f"CREATE OR REPLACE VIEW meta.{name} AS {body}"


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        # TIMESTAMPTZ values come back aware; the session is UTC
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _run(spark: SparkSession, stmt: str, what: str, args: dict | None = None) -> DataFrame:
    try:
        return spark.sql(stmt, args=args or None)
    except Exception as e:
        raise SparkError(f"{what}: Spark refused the statement: {_one_line(e)}") from e


_WRAPPER_LINES = ("An error occurred while calling", "An exception was thrown from the Python worker")
_JAVA_CLASS = re.compile(r"^(?:[a-z0-9_]+\.)+[A-Za-z0-9_$]+(?:Exception|Error): ")
_PY_ERROR = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception)\b")


def _one_line(e: BaseException) -> str:
    """The message that says what went wrong, out of Py4J / Python-worker wrappers."""
    text = str(e)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if "Traceback (most recent call last)" in text:
        for ln in reversed(lines):
            if _PY_ERROR.match(ln):
                return ln
    for ln in lines:
        if ln.startswith(_WRAPPER_LINES) or ln.startswith("at "):
            continue
        return _JAVA_CLASS.sub("", ln.lstrip(": "))
    return type(e).__name__


# ---------------------------------------------------------------------------------------------
# Queries and reports
# ---------------------------------------------------------------------------------------------


def query_df(spark: SparkSession, text: str, params: dict[str, object] | None = None) -> DataFrame:
    """One DuckDB SQL query (the last statement of ``text``) as a Spark DataFrame (its CTEs
    inlined, as Spark plans them; fetch and to_arrow compute a large CTE read twice once)."""
    return _query(spark, text, params or {}, None)


def _query(
    spark: SparkSession, text: str, params: dict[str, object], once: list[tuple[str, DataFrame]] | None
) -> DataFrame:
    """query_df; with ``once`` (a list), the query's large CTEs read more than once are computed
    once, cached, and appended to it as (temporary view, DataFrame) for _release."""
    from sqlglot import exp

    statements = _parsed(text, spark)
    if not statements:
        raise UsageError("no SQL statement to run")
    *before, last = statements
    for stmt in before:
        if (spark_sql := _statement(stmt, spark, params)) is not None:
            _run(spark, spark_sql, "SQL")
    with_ = last.args.get("with_")
    # NOT MATERIALIZED: the query's author wants the CTE recomputed where it is read (too large to hold)
    inline = {c.alias for c in with_.expressions if c.args.get("materialized") is False} if with_ else set()
    stmt = _overridden(last, spark, params)
    if once is not None and isinstance(stmt, exp.Query):
        _compute_once(spark, stmt, params, inline, once)
    spark_sql = stmt.sql(dialect="spark")
    return _run(spark, spark_sql, "SQL", {k: v for k, v in params.items() if f":{k}" in spark_sql})


_ONCE_NUMBERS = itertools.count()


def _compute_once(
    spark: SparkSession,
    stmt: exp.Query,
    params: dict[str, object],
    inline: set[str],
    once: list[tuple[str, DataFrame]],
) -> None:
    """Spark inlines every deterministic CTE at each place it is read (InlineCTE), where DuckDB
    computes a CTE read twice once: a report's aggregate over millions of rows read by two later
    CTEs ran two or three times, each a full scan. Each CTE of ``stmt``'s WITH read at least twice
    (not NOT MATERIALIZED, in ``inline``) is computed once (a local checkpoint: its rows, kept by
    the executors) into a temporary view, which the statement then reads under the CTE's name.

    Small inputs too: a CTE over a few kB of the catalog's views is a plan of dozens of scans and
    exchanges (a view stack over every trace), each a stage of its own, and Spark's fixed cost per
    stage is what it costs on a small home. Inlined where read, task-times planned 117 exchanges on
    the bundled sample and took 20.8 CPU s; computed once, 8 exchanges and 7.8 CPU s; the sample's
    whole parity went from 455 to 236 CPU s for its heavy items (bench/RESULTS.md, "Spark on a small
    home: the code cache and every CTE read twice computed once")."""
    from sqlglot import exp

    with_ = stmt.args.get("with_")
    if with_ is None:
        return
    ctes = list(with_.expressions)
    names = {c.alias.lower() for c in ctes}
    if any(
        w is not with_ and any(c.alias.lower() in names for c in w.expressions)
        for w in stmt.find_all(exp.With)
    ):
        return  # a nested WITH reuses a name: leave the scoping to Spark

    def reads(name: str) -> list[exp.Table]:
        return [
            t for t in stmt.find_all(exp.Table) if not t.args.get("db") and t.name.lower() == name.lower()
        ]

    for cte in ctes:
        name = cte.alias
        if name in inline or cte.args["alias"].columns or len(reads(name)) < 2:
            continue
        query = cte.this.copy()
        before = [c.copy() for c in with_.expressions[: with_.expressions.index(cte)]]
        if before:
            own = query.args.get("with_")
            query.set("with_", exp.With(expressions=before + (list(own.expressions) if own else [])))
        text = query.sql(dialect="spark")
        df = _run(spark, text, f"CTE {name}", {k: v for k, v in params.items() if f":{k}" in text})
        # a name no other query of the session holds: temporary views are the session's, and two
        # reports run at once (threads of one session) each computed a CTE ``t`` once
        view = f"tracewh_once_{next(_ONCE_NUMBERS)}_{name}"
        try:
            # computed now, and read as its rows: a cached view is not matched with the plan that
            # reads it once a parameter is bound in it (it was recomputed all the same)
            df = df.localCheckpoint(eager=True)
        except Exception as e:
            raise SparkError(f"SQL error on Spark (CTE {name}): {_one_line(e)}") from e
        df.createOrReplaceTempView(view)
        once.append((view, df))
        for t in reads(name):
            t.set("this", exp.to_identifier(view))
            if not t.alias:
                t.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
        cte.pop()
    if not with_.expressions:
        stmt.set("with_", None)


def _release(spark: SparkSession, once: list[tuple[str, DataFrame]]) -> None:
    """Drop what _compute_once cached."""
    for view, df in once:
        spark.catalog.dropTempView(view)
        df.unpersist()


def to_arrow(spark: SparkSession, text: str, params: dict[str, object] | None = None) -> Any:
    """Run DuckDB SQL on Spark: its rows as a pyarrow Table (instants as UTC TIMESTAMPs)."""
    once: list[tuple[str, DataFrame]] = []
    try:
        return _arrow(_query(spark, text, params or {}, once))
    finally:
        _release(spark, once)


def _arrow(df: DataFrame) -> Any:
    try:
        return df.toArrow()
    except Exception as e:
        raise SparkError(f"SQL error on Spark: {_one_line(e)}") from e


def fetch(
    spark: SparkSession, text: str, params: dict[str, object] | None = None, zone: str | None = None
) -> Rows:
    """Run DuckDB SQL on Spark: its rows, in the query's order, as query.Rows; instants in
    ``zone`` (as DuckDB gives them under ``SET TimeZone``), else in UTC."""
    from tracewh.results import Rows

    # Arrow: faster than Row objects, and the Python values DuckDB gives (TIMESTAMP as an aware
    # UTC datetime, TIMESTAMP_NTZ naive, structs as dicts, intervals as timedeltas).
    once: list[tuple[str, DataFrame]] = []
    try:
        df = _query(spark, text, params or {}, once)
        table = _arrow(df)
    finally:
        _release(spark, once)
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
    if zone is not None:
        tz = _zone(zone)
        columns = [[_in_zone(v, tz) for v in col] for col in columns]
    rows = list(zip(*columns, strict=True)) if columns else []
    return Rows(list(df.columns), [t.upper() for _, t in df.dtypes], rows)


def _zone(name: str) -> Any:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise UsageError(f"unknown time zone {name!r} (an IANA name such as UTC or Europe/Paris)") from e


def _in_zone(value: Any, tz: Any) -> Any:
    """An aware instant (also inside lists and structs) shown in ``tz``; other values as they are."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(tz)
    if isinstance(value, list):
        return [_in_zone(v, tz) for v in value]
    if isinstance(value, dict):
        return {k: _in_zone(v, tz) for k, v in value.items()}
    return value


def run_statements(
    spark: SparkSession,
    report: Any,
    params: dict[str, object],
    zone: str | None = None,
    stored: tuple[str, str] | None = None,
) -> Rows:
    """A resolved report's SQL (and its Python step) on Spark; instants in ``zone``. ``stored``:
    the derived view holding the step's rows as an ingest stored them, and the trace (reports.run
    asks the catalog): read instead of walking the jobs."""
    if not report.python:
        return fetch(spark, report.template, params, zone)
    first, _, second = report.template.partition(STEP_MARKER)
    if stored is not None:
        from tracewh.catalog import dag

        cols = ", ".join(_ident(c) for c in dag.SCHEMAS[report.python].names)
        view, trace = stored
        # the step's temporary view, as in DuckDB (reports.run): the stored rows of the trace
        rows = f"SELECT {cols} FROM {view.replace(chr(34), '`')} WHERE trace = {_literal(trace)}"
        _run(spark, f"CREATE OR REPLACE TEMPORARY VIEW {report.python} AS {rows}", report.name)
        return fetch(spark, second, params, zone)
    step = SPARK_STEPS.get(report.python)
    if step is None:
        raise SparkError(f"report {report.name}: its Python step {report.python!r} has no Spark form")
    step(spark, query_df(spark, first, params))
    return fetch(spark, second, params, zone)


DAG_PATHS_SCHEMA = (
    "job_name STRING, status STRING, critical_path_s DOUBLE, tasks BIGINT, cycle_task_ids ARRAY<BIGINT>"
)


def walk_jobs_pandas(tasks: Any) -> Any:
    """One job's rows of <trace>.dag_tasks (a pandas DataFrame) -> its one dag_paths row; runs
    on the executors as a grouped pandas UDF, with the walk of warehouse/catalog/dag.py."""
    import pandas as pd

    from tracewh.catalog import dag

    job = [
        (int(t), [int(p) for p in (ps if ps is not None else [])], None if pd.isna(r) else float(r), bool(k))
        for t, ps, r, k in zip(
            tasks["task_id"], tasks["parent_task_ids"], tasks["run_s"], tasks["times_known"], strict=True
        )
    ]
    status, path, stuck = dag.walk_job(job)
    return pd.DataFrame(
        {
            "job_name": [tasks["job_name"].iloc[0]],
            "status": [status],
            "critical_path_s": [path],
            "tasks": [len(job)],
            "cycle_task_ids": [stuck],
        }
    )


def register_dag_paths(spark: SparkSession, tasks: DataFrame) -> None:
    """The temporary view ``dag_paths`` (in DuckDB a temporary table, tracewh.catalog.dag.register_dag_paths),
    one walk per job, jobs spread over the executors."""
    paths = tasks.groupBy("job_name").applyInPandas(walk_jobs_pandas, DAG_PATHS_SCHEMA)
    paths.createOrReplaceTempView("dag_paths")


def register_job_dag(spark: SparkSession, tasks: DataFrame) -> None:
    """The temporary view ``job_dag`` of one job (tracewh.catalog.dag.job_dag_table, as in DuckDB): its
    tasks are few, so they are laid out on the driver."""
    from tracewh.catalog import dag

    table = dag.job_dag_table(_arrow(tasks))
    try:
        spark.createDataFrame(table).createOrReplaceTempView("job_dag")
    except Exception as e:
        raise SparkError(f"job_dag: {_one_line(e)}") from e


SPARK_STEPS: dict[str, Callable[[SparkSession, DataFrame], None]] = {
    "dag_paths": register_dag_paths,
    "job_dag": register_job_dag,
}


# ---------------------------------------------------------------------------------------------
# Ingest fanned out: one Spark task per source file
# ---------------------------------------------------------------------------------------------


def convert_files(
    spark: SparkSession,
    trace_name: str,
    todo: list,
    gens: dict[str, Path],
    tmp: Path,
    memory_limit: str,
    ingest_id: str,
    convert: Callable[..., None],
) -> list:
    """Convert each source file in its own Spark task with the local ingest's per-file code,
    ``convert`` (tracewh.ingestion._convert_file: the same reader SQL, rejects, seq and
    partitioning; passed in, so this engine does not import the ingest that calls it); returns
    the files' accounting records (ingest.FileResult) in the order given.

    Every executor must see the source files and the home at the same paths (a shared file
    system). A task writes under its own attempt folder in ``tmp`` and renames its files into the
    generation only when the conversion succeeded, so a failed or retried attempt never leaves a
    half-written file where the catalog will look.
    """
    if not todo:
        return []
    task = _ConvertTask(
        trace_name, {t: str(g) for t, g in gens.items()}, str(tmp), memory_limit, ingest_id, convert
    )
    done = _one_task_per_file(spark, todo, task, "the Spark ingest")
    return [done[n] for n in range(len(todo))]


def hash_files(spark: SparkSession, results: list, check: Callable[[Any], None]) -> None:
    """The sha256 of each source file (and the gzip check and line count of the same read), one
    Spark task per file with the local ingest's code, ``check`` (tracewh.ingestion._hash_and_check), so the
    driver does not read every byte serially before the conversion starts. Updates the records."""
    if not results:
        return
    done = _one_task_per_file(
        spark, results, functools.partial(_hash_task, check), "hashing the source files on Spark"
    )
    for n, r in enumerate(results):
        r.sha256, r.damage, r.text = done[n].sha256, done[n].damage, done[n].text


def _one_task_per_file(
    spark: SparkSession, records: list, task: Callable[[tuple[int, Any]], tuple[int, Any]], what: str
) -> dict[int, Any]:
    """Run ``task`` on each (index, record) in a Spark task of its own: index -> the record it
    returns. A failure is one SparkError saying ``what`` failed."""
    rdd = spark.sparkContext.parallelize(list(enumerate(records)), len(records))
    try:
        return dict(rdd.map(task).collect())
    except Exception as e:
        raise SparkError(f"{what} failed: {_one_line(e)}") from e


def _hash_task(check: Callable[[Any], None], item: tuple[int, Any]) -> tuple[int, Any]:
    n, r = item
    check(r)
    return n, r


@dataclasses.dataclass(frozen=True)
class _ConvertTask:
    """The function a Spark task runs for one (index, FileResult): picklable, imported on
    executors; what convert_files was given (the generations and tmp as strings)."""

    trace_name: str
    gens: dict[str, str]
    tmp: str
    memory_limit: str
    ingest_id: str
    convert: Callable[..., None]

    def __call__(self, item: tuple[int, Any]) -> tuple[int, Any]:
        import os
        import shutil

        import duckdb
        from pyspark import TaskContext

        n, r = item
        ctx = TaskContext.get()
        attempt = f"{n}-{ctx.attemptNumber() if ctx else 0}-{os.getpid()}"
        # on the shared file system, next to the generation: a rename moves the files in
        stage = Path(self.tmp) / "attempts" / attempt
        shutil.rmtree(stage, ignore_errors=True)
        (stage / "spill").mkdir(parents=True)
        out = stage / "out"  # stands for the generation folder, which exists before any task runs
        out.mkdir()
        trace = get_trace(self.trace_name)
        db = duckdb.connect(
            config={
                "threads": 1,
                "memory_limit": self.memory_limit,
                "temp_directory": str(stage / "spill"),
                "preserve_insertion_order": True,
            }
        )
        try:
            self.convert(db.cursor(), trace, trace.tables[r.table], r, out, n, stage, self.ingest_id)
        finally:
            db.close()
        gen = Path(self.gens[r.table])
        for f in sorted(out.rglob("*.parquet")):
            target = gen / f.relative_to(out)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f, target)
        shutil.rmtree(stage, ignore_errors=True)
        return n, r
