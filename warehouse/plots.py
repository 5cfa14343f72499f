"""PNG charts for the reports whose header declares one.

The header line ``-- plot: x=hours; y=pending,running; kind=step; title=...; xlabel=...; ylabel=...``
says how to draw the report's own rows:
- kind=line | step | points: one line (or cloud of dots) per y column and per value of the ``group``
  columns (named by the group alone when there is one y column);
- kind=quantiles: each row is a distribution, drawn as a CDF (x = value, y = level), one curve
  per row: from the row's ``_cdf`` chart column (101 quantiles, ``meta.cdf(v)``) when the report
  returns one, else as a step through its p<NN> (or p<NN>_s), min and max columns;
- where=column (rows where it is not NULL) or where=column:value keeps only some rows;
- kind=bar: grouped bars, one per y column, over the x column's values as categories;
- kind=dag: the report's rows are the tasks of one job, drawn as its DAG (warehouse/dagplot.py);
- logx=true / logy=true use a logarithmic x / y axis;
- panels=a_,b_ (line, step): one panel per prefix, holding the y columns that start with it;
- dashed=word (line, step): y columns whose name holds the word are drawn dashed;
- panel_by=column (quantiles): one panel per value of the column, side by side;
- xtime=hours | days: x counts hours (days) since the trace start, drawn as real dates in the
  trace's zone when the trace has a start (the Google traces);
- ref=point@X,Y:label | hline@Y:label | vline@X:label: the published value(s), drawn as
  labelled dashed references (entries separated by ``|``).
Lines break where data is missing (NULL values, skipped buckets, rows with ``in_gap`` true:
inside missing source parts) instead of bridging it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from tracewh.errors import TracewhError, UsageError
from tracewh.query import Rows
from tracewh.reports import get

_QUANTILE = re.compile(r"^p(\d+)(_s)?$")
# What savefig writes without a suffix (matplotlib then adds it to the name).
DEFAULT_FORMAT = "png"


def literal(value: object) -> str:
    """A value from the data (a job or task name, a group) as matplotlib draws it: as written.
    matplotlib reads text between two ``$`` as mathtext, and a name like ``j_$\\x$`` then fails
    the whole drawing (an unknown symbol)."""
    return str(value).replace("$", r"\$")


def target(path: Path) -> Path:
    """The file ``write`` will write for ``path``; a usage error when matplotlib cannot write
    that format (checked before the report runs)."""
    from matplotlib.backend_bases import FigureCanvasBase

    path = Path(path)
    kind = path.suffix[1:].lower()
    if not kind:
        return path.with_name(f"{path.name}.{DEFAULT_FORMAT}")
    known = FigureCanvasBase.get_supported_filetypes()
    if kind not in known:
        raise UsageError(f"--plot {path}: cannot write a .{kind} chart (choose {', '.join(sorted(known))})")
    return path


def spec(report_name: str) -> dict[str, str]:
    """The report's chart options, as parsed and checked from its header (tracewh.headers)."""
    plot = get(report_name).plot
    if not plot:
        raise UsageError(f"report {report_name} has no chart; --plot works on time series and distributions")
    return plot


def _selected(rows: Rows, where: str | None) -> list[int]:
    """Indexes of the rows the chart draws."""
    if not where:
        return list(range(len(rows.rows)))
    col, _, value = where.partition(":")
    i = rows.columns.index(col)
    if value:
        return [n for n, r in enumerate(rows.rows) if str(r[i]) == value]
    return [n for n, r in enumerate(rows.rows) if r[i] is not None]


def _label(row: tuple, idx: list[int]) -> str:
    return " / ".join(literal(row[i]) for i in idx)


def quantile_points(columns: list[str], row: tuple) -> list[tuple[float, float]]:
    """(value, level) points of one distribution row, sorted by level."""
    pts = []
    for i, c in enumerate(columns):
        m = _QUANTILE.match(c)
        level = (
            int(m.group(1)) / 100
            if m
            else 0.0
            if c in ("min", "min_s")
            else 1.0
            if c in ("max", "max_s")
            else None
        )
        if level is not None and row[i] is not None:
            pts.append((float(row[i]), level))
    return sorted(pts, key=lambda p: p[1])


def figure(report_name: str, rows: Rows) -> Any:
    """The report's chart as a matplotlib Figure (no pyplot state: safe in a library and a notebook)."""
    s = spec(report_name)
    try:
        import matplotlib

        if not _interactive():
            matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError as e:
        raise TracewhError("plots need matplotlib: pip install 'tracewh[plot]'") from e
    picked = _selected(rows, s.get("where"))
    data = [rows.rows[n] for n in picked]
    if not data:
        raise TracewhError(f"report {report_name} returned no rows to plot")
    kind = s.get("kind", "line")
    if kind == "dag":
        import matplotlib.pyplot as plt

        from tracewh import dagplot

        dag_fig = dagplot.draw(rows.columns, data, s.get("title", report_name))
        plt.close(dag_fig)  # the caller owns it, not pyplot's list of open figures
        return dag_fig
    group_idx = [rows.columns.index(g.strip()) for g in s.get("group", "").split(",") if g.strip()]
    prefixes = [p.strip() for p in s.get("panels", "").split(",") if p.strip()] or [""]
    panel_col = rows.columns.index(s["panel_by"]) if "panel_by" in s else -1
    panel_values = list(dict.fromkeys(r[panel_col] for r in data)) if panel_col >= 0 else [None]
    axes: Any
    if len(panel_values) > 1:
        fig = Figure(figsize=(5.5 * len(panel_values), 5.5), dpi=110)
        row_axes = fig.subplots(1, len(panel_values), sharey=True, squeeze=False)
        axes = [[a] for a in row_axes[0]]
    else:
        fig = Figure(figsize=(10, 3.2 + 2.3 * len(prefixes)), dpi=110)
        axes = fig.subplots(len(prefixes), 1, sharex=True, squeeze=False)
    ax = axes[0][0]
    start = _time_axis(s, rows)
    if kind == "bar":
        x = rows.columns.index(s["x"])
        series = [c.strip() for c in s["y"].split(",")]
        width = 0.8 / len(series)
        for k, name in enumerate(series):
            y = rows.columns.index(name)
            ax.bar(
                [i + (k - (len(series) - 1) / 2) * width for i in range(len(data))],
                [r[y] or 0 for r in data],
                width=width,
                label=name,
            )
        ax.set_xticks(range(len(data)), [literal(r[x]) for r in data], rotation=20, ha="right")
    elif kind == "quantiles":
        chart = rows.context.get("chart")
        cdfs = chart.get("_cdf") if isinstance(chart, dict) else None
        for n, row in zip(picked, data, strict=True):
            if len(panel_values) > 1:
                ax = axes[panel_values.index(row[panel_col])][0]
                ax.set_title(literal(row[panel_col]), fontsize="medium")
            label = _label(row, group_idx) or None
            cdf = cdfs[n] if cdfs else None
            if cdf:
                # 101 quantiles (levels 0, 0.01, ..., 1): the CDF drawn from the data itself
                pts = [(float(v), k / (len(cdf) - 1)) for k, v in enumerate(cdf) if v is not None]
                if s.get("logx") == "true":
                    pts = [p for p in pts if p[0] > 0]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label)
                continue
            pts = quantile_points(rows.columns, row)
            if s.get("logx") == "true":
                pts = [p for p in pts if p[0] > 0]
            # Only a few levels are known: a step through them, the points themselves marked.
            ax.step(
                [p[0] for p in pts], [p[1] for p in pts], where="post", marker="o", markersize=3, label=label
            )
    else:
        x = rows.columns.index(s["x"])
        keys: dict[str, list[tuple]] = {}
        for row in data:
            keys.setdefault(_label(row, group_idx), []).append(row)
        series = [c.strip() for c in s["y"].split(",")]
        # a bucket inside missing source parts (issue 9's in_gap column) is not data: no line there
        gap = rows.columns.index("in_gap") if "in_gap" in rows.columns else -1
        for key, sel in keys.items():
            for name in series:
                ax = axes[next(i for i, p in enumerate(prefixes) if name.startswith(p))][0]
                y = rows.columns.index(name)
                # a missing value or a skipped bucket breaks the line instead of bridging it
                xs, ys = with_gaps(
                    sorted(
                        ((r[x], None if gap >= 0 and r[gap] else r[y]) for r in sel if r[x] is not None),
                        key=lambda p: p[0],
                    )
                )
                label = key if key and len(series) == 1 else " ".join(p for p in (key, name) if p)
                xs_drawn: list[Any] = xs if start is None else [_at(start, s, v) for v in xs]
                draw: Any = ax.step if kind == "step" else ax.plot
                kwargs: dict[str, Any] = {"where": "post"} if kind == "step" else {}
                if kind == "points":
                    kwargs.update(linestyle="none", marker=".", markersize=4)
                if kind != "points" and any(v != v for v in ys):  # NaN: isolated points as dots
                    kwargs["marker"] = "."
                if s.get("dashed") and s["dashed"] in name:
                    kwargs["linestyle"] = "--"
                draw(xs_drawn, ys, label=label, **kwargs)
    _references(axes[0][0], s.get("ref", ""))
    if len(panel_values) > 1:
        fig.suptitle(s.get("title", report_name))
    else:
        axes[0][0].set_title(s.get("title", report_name))
    xlabel = s.get("xlabel", s.get("x", ""))
    if start is not None:
        xlabel = f"time in {start.tzinfo} (trace start {start:%Y-%m-%d %H:%M %Z})"
        fig.autofmt_xdate()
    for (ax,) in axes:
        if len(panel_values) > 1 or ax is axes[-1][0]:
            ax.set_xlabel(xlabel)
        if len(panel_values) == 1 or ax is axes[0][0]:
            ax.set_ylabel(s.get("ylabel", s.get("y", "")))
        if s.get("logx") == "true":
            ax.set_xscale("log")
        if s.get("logy") == "true":
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    return fig


def write(report_name: str, rows: Rows, path: Path) -> Path:
    """Draw the chart into a PNG (or another format matplotlib writes, by the suffix); returns the
    path written."""
    path = target(path)
    fig = figure(report_name, rows)
    try:
        fig.savefig(path)
    except OSError as e:
        raise TracewhError(f"cannot write {path}: {e.strerror or e}") from e
    return path


def with_gaps(points: list[tuple[Any, Any]]) -> tuple[list[Any], list[float]]:
    """x and y for a line that breaks where data is missing instead of bridging it.

    A NULL y becomes NaN (matplotlib leaves a gap); on a regular grid of x (one step size for
    at least half the steps), a jump larger than 1.5 times that step gets a NaN point
    inserted, so empty buckets stay empty.
    """
    xs = [p[0] for p in points]
    ys = [math.nan if p[1] is None else float(p[1]) for p in points]
    if len(xs) < 3 or not all(isinstance(v, int | float) for v in xs):
        return xs, ys
    steps = [b - a for a, b in itertools.pairwise(xs) if b > a]
    if not steps:
        return xs, ys
    usual, count = Counter(steps).most_common(1)[0]
    if count * 2 < len(steps):
        return xs, ys  # no regular grid (e.g. log-spaced x): nothing to call a gap
    out_x: list[Any] = [xs[0]]
    out_y = [ys[0]]
    for i in range(1, len(xs)):
        if xs[i] - xs[i - 1] > 1.5 * usual:
            out_x.append((xs[i - 1] + xs[i]) / 2)
            out_y.append(math.nan)
        out_x.append(xs[i])
        out_y.append(ys[i])
    return out_x, out_y


def _time_axis(s: dict[str, str], rows: Rows) -> Any:
    """The trace's start (an aware datetime) when x counts hours/days since it and it is known."""
    if s.get("xtime") not in ("hours", "days"):
        return None
    start = rows.context.get("trace_start")
    return start if isinstance(start, dt.datetime) else None


def _at(start: dt.datetime, s: dict[str, str], value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    unit = 3600 if s.get("xtime") == "hours" else 86400
    return start + dt.timedelta(seconds=float(value) * unit)


def _references(ax: Any, raw: str) -> None:
    """Published values from the header's ``ref=``: entries ``hline@Y:label``, ``vline@X:label``,
    ``point@X,Y:label``, separated by ``|``; drawn dashed grey and labelled."""
    for entry in filter(None, (e.strip() for e in raw.split("|"))):
        where, _, label = entry.partition(":")
        kind, _, values = where.partition("@")
        nums = [float(v) for v in values.split(",")]
        style = {"color": "0.35", "linestyle": "--", "linewidth": 1}
        if kind == "hline":
            ax.axhline(nums[0], label=label, **style)
        elif kind == "vline":
            ax.axvline(nums[0], label=label, **style)
        elif kind == "point":
            ax.plot([nums[0]], [nums[1]], marker="D", color="black", linestyle="none", label=label)
            ax.annotate(label, (nums[0], nums[1]), textcoords="offset points", xytext=(6, -12), fontsize=8)
        else:
            raise TracewhError(f"plot reference {entry!r}: kind must be hline, vline or point")


def _interactive() -> bool:
    """A notebook (or another GUI backend already chosen) keeps its backend."""
    import sys

    return "matplotlib.pyplot" in sys.modules or "ipykernel" in sys.modules
