"""PNG charts for the reports whose header declares one.

The header line ``-- plot: x=hours; y=pending,running; kind=step; title=...; xlabel=...; ylabel=...``
says how to draw the report's own rows:
- kind=line | step | points: one line (or cloud of dots) per y column and per value of the ``group``
  columns (named by the group alone when there is one y column);
- kind=quantiles: each row is a distribution given by its p<NN> (or p<NN>_s), min and max
  columns, drawn as a CDF (x = value, y = quantile level), one curve per row;
- where=column (rows where it is not NULL) or where=column:value keeps only some rows;
- kind=bar: grouped bars, one per y column, over the x column's values as categories;
- kind=dag: the report's rows are the tasks of one job, drawn as its DAG (warehouse/dagplot.py);
- logx=true / logy=true use a logarithmic x / y axis;
- panels=a_,b_ (line, step): one panel per prefix, holding the y columns that start with it;
- dashed=word (line, step): y columns whose name holds the word are drawn dashed;
- panel_by=column (quantiles): one panel per value of the column, side by side.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from warehouse.errors import TracewhError, UsageError
from warehouse.query import Rows
from warehouse.reports import get

_QUANTILE = re.compile(r"^p(\d+)(_s)?$")


def spec(report_name: str) -> dict[str, str]:
    raw = get(report_name).plot
    if not raw:
        raise UsageError(f"report {report_name} has no chart; --plot works on time series and distributions")
    out = {}
    for part in raw.split(";"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _selected(rows: Rows, where: str | None) -> list[tuple]:
    if not where:
        return rows.rows
    col, _, value = where.partition(":")
    i = rows.columns.index(col)
    if value:
        return [r for r in rows.rows if str(r[i]) == value]
    return [r for r in rows.rows if r[i] is not None]


def _label(row: tuple, idx: list[int]) -> str:
    return " / ".join(str(row[i]) for i in idx)


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


def write(report_name: str, rows: Rows, path: Path) -> None:
    s = spec(report_name)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise TracewhError("--plot needs matplotlib: pip install 'tracewh[plot]'") from e
    data = _selected(rows, s.get("where"))
    if not data:
        raise TracewhError(f"report {report_name} returned no rows to plot")
    kind = s.get("kind", "line")
    if kind == "dag":
        from warehouse import dagplot

        fig = dagplot.draw(rows.columns, data, s.get("title", report_name))
        _save(plt, fig, path)
        return
    group_idx = [rows.columns.index(g.strip()) for g in s.get("group", "").split(",") if g.strip()]
    prefixes = [p.strip() for p in s.get("panels", "").split(",") if p.strip()] or [""]
    panel_col = rows.columns.index(s["panel_by"]) if "panel_by" in s else -1
    panel_values = list(dict.fromkeys(r[panel_col] for r in data)) if panel_col >= 0 else [None]
    axes: Any
    if len(panel_values) > 1:
        fig, row_axes = plt.subplots(
            1, len(panel_values), figsize=(5.5 * len(panel_values), 5.5), dpi=110, sharey=True, squeeze=False
        )
        axes = [[a] for a in row_axes[0]]
    else:
        fig, axes = plt.subplots(
            len(prefixes), 1, figsize=(10, 3.2 + 2.3 * len(prefixes)), dpi=110, sharex=True, squeeze=False
        )
    ax = axes[0][0]
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
        ax.set_xticks(range(len(data)), [str(r[x]) for r in data], rotation=20, ha="right")
    elif kind == "quantiles":
        for row in data:
            if len(panel_values) > 1:
                ax = axes[panel_values.index(row[panel_col])][0]
                ax.set_title(str(row[panel_col]), fontsize="medium")
            pts = quantile_points(rows.columns, row)
            if s.get("logx") == "true":
                pts = [p for p in pts if p[0] > 0]
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                marker="o",
                markersize=3,
                label=_label(row, group_idx) or None,
            )
    else:
        x = rows.columns.index(s["x"])
        keys: dict[str, list[tuple]] = {}
        for row in data:
            keys.setdefault(_label(row, group_idx), []).append(row)
        series = [c.strip() for c in s["y"].split(",")]
        for key, sel in keys.items():
            for name in series:
                ax = axes[next(i for i, p in enumerate(prefixes) if name.startswith(p))][0]
                y = rows.columns.index(name)
                # a missing value breaks the line (NaN) instead of joining its neighbours across it
                pts = sorted((r[x], float("nan") if r[y] is None else r[y]) for r in sel if r[x] is not None)
                label = key if key and len(series) == 1 else " ".join(p for p in (key, name) if p)
                draw: Any = ax.step if kind == "step" else ax.plot
                kwargs: dict[str, Any] = {"where": "post"} if kind == "step" else {}
                if kind == "points":
                    kwargs.update(linestyle="none", marker=".", markersize=4)
                if kind != "points" and any(p[1] != p[1] for p in pts):  # NaN: isolated points as dots
                    kwargs["marker"] = "."
                if s.get("dashed") and s["dashed"] in name:
                    kwargs["linestyle"] = "--"
                draw([p[0] for p in pts], [p[1] for p in pts], label=label, **kwargs)
    if len(panel_values) > 1:
        fig.suptitle(s.get("title", report_name))
    else:
        axes[0][0].set_title(s.get("title", report_name))
    for (ax,) in axes:
        if len(panel_values) > 1 or ax is axes[-1][0]:
            ax.set_xlabel(s.get("xlabel", s.get("x", "")))
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
    _save(plt, fig, path)


def _save(plt: Any, fig: Any, path: Path) -> None:
    try:
        fig.savefig(path)
    except OSError as e:
        raise TracewhError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        plt.close(fig)
