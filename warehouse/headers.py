"""The typed header of every shipped SQL file, parsed and validated when the file is loaded.

A SQL file starts with ``-- key: value`` lines (a line ``--`` without a key continues the
previous value). Each key has one meaning, listed in `KEYS`; a key the folder does not allow, a
missing required key, a parameter with a bad type or default, or a plot with an unknown option
is a `HeaderError` when the file is loaded (and so a failing test, never a silent guess).

Report parameters: ``-- params: trace, cell, bucket_s: int > 0 = 3600, mode: str = a in a|b``.
``trace`` and ``cell`` are filled by the runner; every other parameter names its type (int,
float, str), may require ``> 0``, may have a default and a list of allowed values.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from tracewh.errors import TracewhError, UsageError


class HeaderError(TracewhError):
    """A SQL file's header does not follow the rules above."""


# A report with a Python step holds two statements: the rows of the first go to the step
# (``-- python:``), the second reads what the step returns; this line parts them.
STEP_MARKER = "-- then:"

# key -> what it means (one key per meaning)
KEYS = {
    "name": "the view, report or check name",
    "description": "what it shows or checks, one sentence",
    "traces": "the traces a report covers: a comma list, 'any', or 'with X, Y' (those providing X, Y)",
    "grain": "what one row is",
    "params": "parameters (reports: typed, see module doc; macros: free text)",
    "reproduces": "the published figure or number a report reproduces",
    "cites": "BibTeX keys of the papers it reproduces (a trace spec's papers: tracewh cite)",
    "note": "definitions and details",
    "caveat": "what to keep in mind when comparing with the paper",
    "example": "parameter values that fit the bundled sample (job=j_1)",
    "plot": "the report's chart (warehouse/reports/plots.py)",
    "python": "the Python step between a report's two statements, or whose rows a derived table stores",
    "needs": "the life-cycle inputs a report reads, each with the columns computed from it",
    "source": "the documents the semantics come from",
    "sort": "the columns a stored derived table is sorted by (its readers look up tasks)",
    "reads": "a derived table not stored: the life-cycle view of its name over these stored tables",
    "input": "the life-cycle inputs a stored derived table is computed from (default task_events); "
    "an ingest of the first recomputes it by that input's rule, of a later one by the usage rule",
    "unit": "a stored derived table kept as a folder of files, one per value of this expression of "
    "its columns (6 hours of usage): an ingest rewrites the files of the units it changes only",
    "standin": "a stored derived table an ingest that only adds parts computes from the added events "
    "and, standing for the events it had, these rows made from its stored rows (the relation `stored`)",
    "sums": "a stored derived table counting events: an ingest that only adds parts adds the added "
    "events' counts to these columns of the stored row of the same other columns",
}
# folder kind -> (required keys, allowed keys)
RULES = {
    "report": (
        {"name", "traces", "description", "params"},
        {
            "name",
            "traces",
            "description",
            "params",
            "reproduces",
            "cites",
            "note",
            "caveat",
            "example",
            "plot",
            "python",
            "needs",
        },
    ),
    "check": ({"name", "description"}, {"name", "description", "grain", "note", "source"}),
    "view": ({"name", "description"}, {"name", "description", "grain", "params", "note", "source"}),
    # a table of the derived layer (sql/derived): its query, run per trace at ingest
    "derived": (
        {"name", "description", "grain"},
        {
            "name",
            "description",
            "grain",
            "params",
            "note",
            "sort",
            "reads",
            "input",
            "python",
            "unit",
            "standin",
            "sums",
        },
    ),
}
BUILTIN_PARAMS = ("trace", "cell")
TYPES = {"int": int, "float": float, "str": str}
# An int parameter is bound as DuckDB BIGINT.
BIGINT_MIN, BIGINT_MAX = -(2**63), 2**63 - 1
PLOT_KEYS = {
    "x", "y", "kind", "title", "xlabel", "ylabel", "where", "logx", "logy", "panels", "dashed",
    "panel_by", "xtime", "ref", "group", "powerlaw", "xstep", "negative",
}  # fmt: skip
PLOT_KINDS = {"line", "step", "points", "quantiles", "bar", "dag", "area"}

_LINE = re.compile(r"^--\s*([a-z_]+):\s*(.*)$")
_PARAM = re.compile(
    r"^(?P<name>[a-z_][a-z0-9_]*)"
    r"(?:\s*:\s*(?P<type>[a-z]+)(?P<positive>\s*>\s*0)?)?"
    r"(?:\s*=\s*(?P<default>[^ ]+?))?"
    r"(?:\s+in\s+(?P<allowed>\S+))?$"
)


@dataclass(frozen=True)
class Param:
    name: str
    type: str = "str"  # int | float | str
    default: str | None = None
    positive: bool = False  # numbers must be > 0
    allowed: tuple[str, ...] = ()

    def convert(self, report: str, value: str) -> object:
        """The value typed for DuckDB; a bad value is a usage error naming what is allowed."""
        kind = TYPES[self.type]
        what = {"int": "a whole number", "float": "a finite number", "str": "text"}[self.type]
        what += " > 0" if self.positive else ""
        try:
            typed = kind(value)
        except ValueError:
            typed = None
        # nan compares false with everything, so "> 0" alone lets it (and inf) through.
        if isinstance(typed, float) and not math.isfinite(typed):
            typed = None
        # An int is bound as a BIGINT: a larger one would fail inside DuckDB as an SQL error.
        if isinstance(typed, int) and not BIGINT_MIN <= typed <= BIGINT_MAX:
            what += f" up to {BIGINT_MAX}" if typed > 0 else f" from {BIGINT_MIN}"
            typed = None
        if typed is None or (self.positive and typed <= 0):
            default = f" (default {self.default})" if self.default is not None else ""
            raise UsageError(f"report {report}: --param {self.name} must be {what}{default}, not {value!r}")
        if self.allowed and value not in self.allowed:
            allowed = ", ".join(self.allowed)
            raise UsageError(f"report {report}: --param {self.name} must be one of {allowed}, not {value!r}")
        return typed

    def describe(self) -> str:
        """One line for a report's --help."""
        text = f"{self.name} ({self.type}{' > 0' if self.positive else ''})"
        if self.allowed:
            text += f", one of {', '.join(self.allowed)}"
        return text + (f", default {self.default}" if self.default is not None else ", required")


@dataclass(frozen=True)
class Header:
    kind: str  # report | check | view | derived
    values: dict[str, str]
    params: tuple[Param, ...] = ()
    builtin_params: tuple[str, ...] = ()  # trace / cell, filled by the runner
    plot: dict[str, str] = field(default_factory=dict)
    # input -> the columns computed from it (() = the whole report), from ``-- needs:``
    needs: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def get(self, key: str, default: str = "") -> str:
        return self.values.get(key, default)


def read(text: str) -> dict[str, str]:
    """The raw ``-- key: value`` lines at the top of a SQL file."""
    header: dict[str, str] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            if line.startswith("--"):
                if header:  # continuation of the previous key
                    last = next(reversed(header))
                    header[last] += " " + line.lstrip("- ").strip()
                continue
            break
        header[m.group(1)] = m.group(2).strip()
    return header


def parse(where: str, kind: str, values: dict[str, str]) -> Header:
    """The validated header of one file; ``where`` names it in errors."""
    required, allowed = RULES[kind]
    unknown = set(values) - allowed
    if unknown:
        raise HeaderError(f"{where}: header key(s) {', '.join(sorted(unknown))} not allowed in a {kind}")
    missing = required - set(values)
    if missing:
        raise HeaderError(f"{where}: header lacks {', '.join(sorted(missing))}")
    params: tuple[Param, ...] = ()
    builtin: tuple[str, ...] = ()
    plot: dict[str, str] = {}
    needs: dict[str, tuple[str, ...]] = {}
    if kind == "report":
        builtin, params = _params(where, values["params"])
        plot = _plot(where, values.get("plot", ""))
        needs = _needs(where, values.get("needs", ""))
    return Header(kind, dict(values), params, builtin, plot, needs)


def _params(where: str, raw: str) -> tuple[tuple[str, ...], tuple[Param, ...]]:
    if raw.strip() in ("", "none"):
        return (), ()
    builtin, out = [], []
    for item in (i.strip() for i in raw.split(",")):
        if item in BUILTIN_PARAMS:
            builtin.append(item)
            continue
        m = _PARAM.match(item)
        if not m or m.group("type") is None:
            raise HeaderError(
                f"{where}: parameter {item!r} needs a type: name: int|float|str [> 0] [= default]"
            )
        p = Param(
            m.group("name"),
            m.group("type"),
            m.group("default"),
            bool(m.group("positive")),
            tuple(m.group("allowed").split("|")) if m.group("allowed") else (),
        )
        if p.type not in TYPES:
            raise HeaderError(f"{where}: parameter {p.name}: unknown type {p.type!r} (int, float, str)")
        if p.positive and p.type == "str":
            raise HeaderError(f"{where}: parameter {p.name}: '> 0' is for numbers")
        if p.default is not None:
            try:
                p.convert(where, p.default)
            except UsageError as e:
                raise HeaderError(
                    f"{where}: parameter {p.name}: its default {p.default!r} is invalid ({e})"
                ) from e
        out.append(p)
    return tuple(builtin), tuple(out)


# The inputs a report may declare: the life-cycle tables each trace maps to one of its own
# (TraceSpec.inputs), so the runner can tell which table to ingest.
INPUTS = ("task_events", "task_usage", "job_events", "machine_events")
_NEED = re.compile(r"^(?P<input>[a-z_]+)\s*(?:\((?P<cols>[a-z0-9_,\s]*)\))?$")


def _needs(where: str, raw: str) -> dict[str, tuple[str, ...]]:
    """``task_usage (cpu_used, memory_used), machine_events``: input -> the columns computed from it
    (none listed: the report as a whole)."""
    out: dict[str, tuple[str, ...]] = {}
    for item in re.split(r",\s*(?![^()]*\))", raw.strip()) if raw.strip() else []:
        m = _NEED.match(item.strip())
        if not m or m.group("input") not in INPUTS:
            raise HeaderError(
                f"{where}: needs {item.strip()!r}: one of {', '.join(INPUTS)}, optionally (columns)"
            )
        out[m.group("input")] = tuple(c.strip() for c in (m.group("cols") or "").split(",") if c.strip())
    return out


def _plot(where: str, raw: str) -> dict[str, str]:
    if not raw:
        return {}
    out: dict[str, str] = {}
    for part in raw.split(";"):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in PLOT_KEYS:
            raise HeaderError(
                f"{where}: plot option {part.strip()!r} unknown (known: {', '.join(sorted(PLOT_KEYS))})"
            )
        out[key] = value.strip()
    if out.get("kind", "line") not in PLOT_KINDS:
        raise HeaderError(f"{where}: plot kind {out['kind']!r} unknown ({', '.join(sorted(PLOT_KINDS))})")
    return out
