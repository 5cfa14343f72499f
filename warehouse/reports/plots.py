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
- kind=area: stacked areas, one layer per value of the ``group`` columns, for each y column (with
  ``panels``: one panel per prefix, e.g. CPU and memory);
- kind=dag: the report's rows are the tasks of one job, drawn as its DAG (warehouse/reports/dagplot.py);
- logx=true / logy=true use a logarithmic x / y axis;
- panels=a_,b_ (line, step): one panel per prefix, holding the y columns that start with it;
- dashed=word (line, step): y columns whose name holds the word are drawn dashed;
- panel_by=column (quantiles): one panel per value of the column, side by side;
- xtime=hours | days: x counts hours (days) since the trace start, drawn as real dates in the
  trace's zone when the trace has a start (the Google traces);
- ref=point@X,Y:label | hline@Y:label | vline@X:label: the published value(s), drawn as
  labelled references, each in a style of its own (entries separated by ``|``);
- powerlaw=c,alpha: for each row with both columns set, the fitted line y = c * x^-alpha over
  the x range drawn, labelled with the row's first text value and the coefficients;
- xstep=N or xstep=PARAM/N: the spacing of x (e.g. ``bucket_s/3600`` hours): a longer jump is a gap
  even where too few points show the grid;
- negative=text: shown under the axes when a drawn value is below 0 (why it can be).
Lines break where data is missing (NULL values, skipped buckets, rows with ``in_gap`` true:
inside missing source parts) instead of bridging it. Legends name the series in words (column
names without underscores, group labels without the parts every drawn row shares); the title
names the trace, cell, parameters and the time window drawn. Counts get integer ticks.

The figure's size, resolution and font come from a `Style` (``--plot-size single|double|WxH``,
``--dpi``, ``--font-size``): ``single`` is one column of a two-column paper (3.5 in wide),
``double`` the full text width (7 in); the suffix of the file picks PNG, PDF or SVG (vector).
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracewh.catalog.query import Rows
from tracewh.errors import TracewhError, UsageError
from tracewh.reports import get
from tracewh.reports.dagplot import literal

_QUANTILE = re.compile(r"^p(\d+)(_s)?$")
# The formats matplotlib writes that carry our metadata, and the ones without a metadata field.
FORMATS = ("png", "pdf", "svg", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")
# Each reference of a header's ``ref=`` in a style of its own: (line style, marker).
REF_STYLES = (("--", "D"), (":", "s"), ("-.", "^"), ((0, (5, 1, 1, 1, 1, 1)), "v"))


@dataclass(frozen=True)
class Style:
    """How big a figure is and how it reads. Presets: ``screen`` (the default: 10 in wide at
    110 dpi), ``single`` (one column of a two-column paper: 3.5 in, 8 pt, 300 dpi) and ``double``
    (the full text width: 7 in, 9 pt, 300 dpi); ``WxH`` in inches."""

    width_in: float = 10.0
    height_in: float | None = None  # None: from the width and the number of panels
    dpi: int = 110
    font_size: float = 10.0

    @classmethod
    def parse(cls, size: str | None = None, dpi: int | None = None, font_size: float | None = None) -> Style:
        presets = {
            "screen": cls(),
            "single": cls(3.5, None, 300, 8.0),
            "double": cls(7.0, None, 300, 9.0),
        }
        name = (size or "screen").strip().lower()
        if name in presets:
            base = presets[name]
        else:
            m = re.fullmatch(r"(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)", name)
            if not m or float(m.group(1)) <= 0 or float(m.group(2)) <= 0:
                raise UsageError(
                    f"--plot-size {size!r}: single, double, screen or WIDTHxHEIGHT in inches (7x3)"
                )
            base = cls(float(m.group(1)), float(m.group(2)), 300, 9.0)
        if dpi is not None and not 20 <= dpi <= 2400:
            raise UsageError(f"--dpi {dpi}: between 20 and 2400")
        if font_size is not None and not 4 <= font_size <= 40:
            raise UsageError(f"--font-size {font_size}: between 4 and 40 points")
        return cls(base.width_in, base.height_in, dpi or base.dpi, font_size or base.font_size)

    def size(self, panels: int = 1, side_by_side: int = 1) -> tuple[float, float]:
        if self.height_in is not None:
            return self.width_in, self.height_in
        if side_by_side > 1:
            return self.width_in, self.width_in / side_by_side * 1.1
        if self.width_in >= 10:  # the screen figure, as before
            return self.width_in, 3.2 + 2.3 * panels
        # paper: a golden-ratio panel, a little shorter for each further one
        return self.width_in, self.width_in * (0.62 if panels == 1 else 0.42 * panels)


def check_target(report_name: str, path: Path) -> Path:
    """The file the chart goes to, checked before any work: a usage error when the report has no
    chart or the suffix names no format written here; no suffix means PNG (``NAME.png``, the name
    matplotlib would give it)."""
    spec(report_name)
    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if not kind:
        return path.with_name(f"{path.name}.{FORMATS[0]}")
    if kind not in FORMATS:
        raise UsageError(
            f"--plot {path}: cannot write a .{kind} chart "
            f"(choose {', '.join(FORMATS)}: the suffix names the format)"
        )
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


def _varying(data: list[tuple], idx: list[int]) -> list[int]:
    """The group columns whose value differs between the drawn rows (the others name nothing)."""
    return [i for i in idx if len({r[i] for r in data}) > 1] or idx[:1]


def human(name: str, prefix: str = "") -> str:
    """A column name for a legend: without its panel prefix, underscores as spaces."""
    return name.removeprefix(prefix).replace("_", " ").strip()


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


def figure(report_name: str, rows: Rows, style: Style | None = None) -> Any:
    """The report's chart as a matplotlib Figure (no pyplot state: safe in a library and a notebook).
    In a notebook it shows itself (it has ``_repr_png_``), with or without ``%matplotlib inline``."""
    s = spec(report_name)
    style = style or Style()
    try:
        import matplotlib

        if not _interactive():
            matplotlib.use("Agg")
    except ImportError as e:
        raise TracewhError("plots need matplotlib: pip install 'tracewh[plot]'") from e
    picked = _selected(rows, s.get("where"))
    data = [rows.rows[n] for n in picked]
    if not data:
        raise TracewhError(f"report {report_name} returned no rows to plot")
    # rcParams are read when each artist is made: the whole drawing happens inside the style
    with matplotlib.rc_context({"font.size": style.font_size, "savefig.dpi": style.dpi}):
        fig = _draw(report_name, s, rows, picked, data, style)
    return _Shown.adopt(fig)


def _draw(
    report_name: str, s: dict[str, str], rows: Rows, picked: list[int], data: list[tuple], style: Style
) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    kind = s.get("kind", "line")
    if kind == "dag":
        import matplotlib.pyplot as plt

        from tracewh.reports import dagplot

        dag_fig = dagplot.draw(rows.columns, data, _title(style, s, report_name, rows))
        plt.close(dag_fig)  # the caller owns it, not pyplot's list of open figures
        return dag_fig
    group_idx = [rows.columns.index(g.strip()) for g in s.get("group", "").split(",") if g.strip()]
    shown_idx = _varying(data, group_idx) if group_idx else []
    prefixes = [p.strip() for p in s.get("panels", "").split(",") if p.strip()] or [""]
    panel_col = rows.columns.index(s["panel_by"]) if "panel_by" in s else -1
    panel_values = list(dict.fromkeys(r[panel_col] for r in data)) if panel_col >= 0 else [None]
    axes: Any
    if len(panel_values) > 1:
        fig = Figure(figsize=style.size(1, len(panel_values)), dpi=style.dpi)
        row_axes = fig.subplots(1, len(panel_values), sharey=True, squeeze=False)
        axes = [[a] for a in row_axes[0]]
    else:
        fig = Figure(figsize=style.size(len(prefixes)), dpi=style.dpi)
        axes = fig.subplots(len(prefixes), 1, sharex=True, squeeze=False)
    # An Agg canvas of its own: the layout below measures the texts on the canvas's renderer, and
    # a PNG saved at the figure's dpi draws on that same renderer, reusing every measure (without
    # it the layout measures on a throwaway renderer and the save measures everything again).
    FigureCanvasAgg(fig)
    ax = axes[0][0]
    start = _time_axis(s, rows)
    drawn_x: list[Any] = []
    drawn_y: list[Any] = []
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
                label=human(name),
            )
            drawn_y += [r[y] for r in data]
        ax.set_xticks(
            range(len(data)), [literal(r[x]) for r in data], rotation=30, ha="right", fontsize="small"
        )
    elif kind == "quantiles":
        chart = rows.context.get("chart")
        cdfs = chart.get("_cdf") if isinstance(chart, dict) else None
        for n, row in zip(picked, data, strict=True):
            if len(panel_values) > 1:
                ax = axes[panel_values.index(row[panel_col])][0]
                ax.set_title(literal(row[panel_col]), fontsize="medium")
            label = _label(row, shown_idx) or None
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
            keys.setdefault(_label(row, shown_idx), []).append(row)
        series = [c.strip() for c in s["y"].split(",")]
        # a bucket inside missing source parts (issue 9's in_gap column) is not data: no line there
        gap = rows.columns.index("in_gap") if "in_gap" in rows.columns else -1
        step = _xstep(s, rows)
        stacks: dict[tuple[int, str], list[tuple[str, list[Any], list[float]]]] = {}
        for key, sel in keys.items():
            for name in series:
                panel = next(i for i, p in enumerate(prefixes) if name.startswith(p))
                ax = axes[panel][0]
                y = rows.columns.index(name)
                # a missing value or a skipped bucket breaks the line instead of bridging it
                xs, ys = with_gaps(
                    sorted(
                        ((r[x], None if gap >= 0 and r[gap] else r[y]) for r in sel if r[x] is not None),
                        key=lambda p: p[0],
                    ),
                    step,
                    grid=s.get("logx") != "true",
                )
                drawn_x += [v for v, w in zip(xs, ys, strict=True) if v is not None and w == w]
                drawn_y += [w for w in ys if w == w]
                what = human(name, prefixes[panel])
                label = (
                    key
                    if key and (len(series) == 1 or kind == "area")
                    else " ".join(p for p in (key, what) if p)
                )
                if kind == "area":
                    stacks.setdefault((panel, name), []).append((label, xs, ys))
                    continue
                xs_drawn: list[Any] = xs if start is None else [_at(start, s, v) for v in xs]
                draw: Any = ax.step if kind == "step" else ax.plot
                kwargs: dict[str, Any] = {"where": "post"} if kind == "step" else {}
                if kind == "points":
                    kwargs.update(linestyle="none", marker=".", markersize=4)
                if kind != "points" and any(v != v for v in ys):  # NaN: isolated points as dots
                    kwargs.update(marker=".", markersize=3)
                if s.get("dashed") and s["dashed"] in name:
                    kwargs["linestyle"] = "--"
                draw(xs_drawn, ys, label=label, **kwargs)
        for (panel, name), layers in stacks.items():
            _stack(axes[panel][0], layers, start, s, human(name))
        if len(prefixes) > 1 and not stacks:
            for (panel_ax,), prefix in zip(axes, prefixes, strict=True):
                panel_ax.set_title(human(prefix), fontsize="small", loc="left")
        _powerlaw(axes[0][0], s, rows, data, drawn_x)
    _references(axes[0][0], s.get("ref", ""))
    title = _title(style, s, report_name, rows)
    subtitle = _wrap(style, _subtitle(rows, s, start, drawn_x))
    if len(panel_values) > 1:
        fig.suptitle(title + (f"\n{subtitle}" if subtitle else ""), fontsize="medium")
    else:
        axes[0][0].set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize="medium")
    xlabel = s.get("xlabel", s.get("x", ""))
    if start is not None:
        import matplotlib.dates as mdates

        xlabel = ""  # the dates say it, their zone is in the subtitle's window
        for (ax,) in axes:
            locator = mdates.AutoDateLocator(tz=start.tzinfo)
            ax.xaxis.set_major_locator(locator)
            ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=start.tzinfo))
    counts = kind not in ("quantiles", "area") and bool(drawn_y) and all(_whole(v) for v in drawn_y)
    for (ax,) in axes:
        if len(panel_values) > 1 or ax is axes[-1][0]:
            ax.set_xlabel(xlabel)
        if len(panel_values) == 1 or ax is axes[0][0]:
            ax.set_ylabel(s.get("ylabel", s.get("y", "")))
        if s.get("logx") == "true":
            ax.set_xscale("log")
            _plain_log_ticks(ax.xaxis)
        if s.get("logy") == "true":
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
        elif counts:
            # counts: whole-number ticks, never an offset ("+7.5e1") or a range squeezed to one value
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.ticklabel_format(axis="y", style="plain", useOffset=False)
            low, high = ax.get_ylim()
            if high - low < 2:
                mid = round((low + high) / 2)
                ax.set_ylim(mid - 1.5, mid + 1.5)
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize="small")
    note = ""
    if s.get("negative") and any(isinstance(v, int | float) and v < 0 for v in drawn_y):
        note = _wrap(style, f"below 0: {s['negative']}", smaller=True)
        fig.text(0.01, 0.005, note, fontsize="x-small", color="0.3", va="bottom")
    # room under the axes for the note: its lines at x-small (0.7 of the font) plus leading, in inches
    lines = note.count("\n") + 1 if note else 0
    # Without a note no rect: a rect makes matplotlib lay the figure out twice (measuring every
    # tick and text again), and the whole figure's rect gives the same margins as none.
    room = min(lines * style.font_size * 0.7 * 1.4 / 72 / fig.get_figheight(), 0.3)
    fig.tight_layout(rect=(0, room, 1, 1) if lines else None)
    return fig


def _title(style: Style, s: dict[str, str], report_name: str, rows: Rows) -> str:
    """The header's title; on data tracewh synth generated, saying so (a chart travels alone)."""
    title = _wrap(style, s.get("title", report_name))
    if rows.context.get("synthetic"):
        title += "\n" + _wrap(style, "SYNTHETIC DATA (tracewh synth), not a recorded trace")
    return title


def _plain_log_ticks(axis: Any) -> None:
    """Log-axis ticks as plain numbers (2, 30, 1e+06), not 2 x 10^0; the 2s and 5s between the
    powers of ten are labelled only on a short axis (two decades or less), where they do not collide."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    axis.set_major_formatter(plain)
    axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
    low, high = axis.get_view_interval()
    short = low > 0 and math.log10(high / low) <= 2
    axis.set_minor_formatter(plain if short else NullFormatter())


def _wrap(style: Style, text: str, smaller: bool = False) -> str:
    """Text in lines that fit the figure's width (a title never runs off a one-column figure)."""
    import textwrap

    # an average character is about 0.6 of the font size wide; keep a tenth of the width spare
    points = style.font_size * (0.7 if smaller else 1.0)
    chars = max(int(style.width_in * 72 * 0.9 / (points * 0.6)), 20)
    return "\n".join(textwrap.wrap(text, chars)) if text else ""


def _whole(v: Any) -> bool:
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


def _subtitle(rows: Rows, s: dict[str, str], start: Any, drawn_x: list[Any]) -> str:
    """Trace, cell, parameters and the window drawn, for the title: a figure read alone says what it shows."""
    ctx = rows.context
    parts = []
    if ctx.get("trace"):
        parts.append(str(ctx["trace"]) + (f" cell {ctx['cell']}" if ctx.get("cell") else ""))
    params = ctx.get("params")
    if isinstance(params, dict) and params:
        parts.append(", ".join(f"{k}={v}" for k, v in params.items()))
    numeric = [v for v in drawn_x if isinstance(v, int | float) and v == v]
    if start is not None and numeric:
        first, last = _at(start, s, min(numeric)), _at(start, s, max(numeric))
        parts.append(f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M %Z}")
    return " · ".join(parts)


def _stack(
    ax: Any, layers: list[tuple[str, list[Any], list[float]]], start: Any, s: dict[str, str], what: str
) -> None:
    """Stacked areas over the union of the layers' x: a layer absent at an x adds 0 there; a gap
    (NaN in any layer) leaves the whole stack empty there instead of drawing across it."""
    at = [dict(zip(lx, ly, strict=True)) for _, lx, ly in layers]
    xs = sorted({x for layer in at for x in layer if x is not None})
    gaps = {x for layer in at for x, v in layer.items() if v != v}
    values = [[math.nan if x in gaps else layer.get(x, 0.0) for x in xs] for layer in at]
    drawn = xs if start is None else [_at(start, s, v) for v in xs]
    ax.stackplot(drawn, values, labels=[label for label, _, _ in layers], alpha=0.85)
    ax.set_title(what, fontsize="small", loc="left")


def _powerlaw(ax: Any, s: dict[str, str], rows: Rows, data: list[tuple], drawn_x: list[Any]) -> None:
    if not s.get("powerlaw") or not drawn_x:
        return
    c_col, alpha_col = (rows.columns.index(n.strip()) for n in s["powerlaw"].split(","))
    text_col = next((i for i, t in enumerate(rows.types) if t.upper() == "VARCHAR"), None)
    xs = [v for v in drawn_x if isinstance(v, int | float) and v > 0]
    if not xs:
        return
    lo, hi = min(xs), max(xs)
    grid = [lo * (hi / lo) ** (k / 50) for k in range(51)] if hi > lo else [lo]
    for (style, _), row in zip(
        itertools.cycle(REF_STYLES),
        (r for r in rows.rows if r[c_col] is not None and r[alpha_col] is not None),
        strict=False,
    ):
        c, alpha = float(row[c_col]), float(row[alpha_col])
        name = f"{row[text_col]}: " if text_col is not None else ""
        ax.plot(
            grid,
            [c * x**-alpha for x in grid],
            linestyle=style,
            color="0.25",
            linewidth=1.2,
            label=f"{name}{c:.3g} x rank^-{alpha:.3g}",
        )


def _xstep(s: dict[str, str], rows: Rows) -> float | None:
    """The header's x spacing: a number, or PARAM/N with the report's parameter (bucket_s/3600)."""
    raw = s.get("xstep")
    if not raw:
        return None
    name, _, divisor = raw.partition("/")
    params = rows.context.get("params")
    try:
        base = float(name) if not name.isidentifier() else float(params[name])  # type: ignore[index]
        return base / float(divisor or 1)
    except (KeyError, TypeError, ValueError):
        return None


class _Shown:
    """Mixed into a returned Figure: Jupyter shows it as a PNG without ``%matplotlib inline``
    (IPython calls ``_repr_png_``; a Figure made without pyplot has no display of its own)."""

    def _repr_png_(self) -> bytes:
        import io

        buf = io.BytesIO()
        self.savefig(buf, format="png", bbox_inches="tight")  # type: ignore[attr-defined]
        return buf.getvalue()

    @classmethod
    def adopt(cls, fig: Any) -> Any:
        if not isinstance(fig, cls):
            fig.__class__ = type(f"Shown{type(fig).__name__}", (type(fig), cls), {})
        return fig


def write(
    report_name: str, rows: Rows, path: Path, record: dict[str, Any] | None = None, style: Style | None = None
) -> Path:
    """Draw the chart into a file (PNG, PDF, SVG: the suffix says which); ``record``
    (tracewh.reports.provenance.collect) goes into the file's metadata. Returns the path written."""
    from tracewh.reports import provenance

    path = check_target(report_name, path)
    fig = figure(report_name, rows, style)
    meta = provenance.figure_metadata(record, path.suffix) if record else {}
    try:
        fig.savefig(path, metadata=meta or None)
    except OSError as e:
        raise TracewhError(f"cannot write {path}: {e.strerror or e}") from e
    return path


def with_gaps(
    points: list[tuple[Any, Any]], step: float | None = None, grid: bool = True
) -> tuple[list[Any], list[float]]:
    """x and y for a line that breaks where data is missing instead of bridging it.

    A NULL y becomes NaN (matplotlib leaves a gap); on a regular grid of x (``step``, else one
    step size for at least half the steps, unless ``grid`` is false: values on a log axis or a
    distribution's x are no grid), a jump larger than 1.5 times that step gets a NaN point
    inserted, so empty buckets stay empty.
    """
    xs = [p[0] for p in points]
    ys = [math.nan if p[1] is None else float(p[1]) for p in points]
    if len(xs) < 2 or not all(isinstance(v, int | float) for v in xs):
        return xs, ys
    steps = [b - a for a, b in itertools.pairwise(xs) if b > a]
    if not steps:
        return xs, ys
    if step:
        usual = step
    elif not grid:
        return xs, ys
    else:
        usual, count = Counter(steps).most_common(1)[0]
        if len(xs) < 3 or count * 2 < len(steps):
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
    ``point@X,Y:label``, separated by ``|``; each in a style of its own (REF_STYLES), labelled in
    the legend as the paper's."""
    entries = [e.strip() for e in raw.split("|") if e.strip()]
    for entry, (line, marker) in zip(entries, itertools.cycle(REF_STYLES), strict=False):
        where, _, label = entry.partition(":")
        kind, _, values = where.partition("@")
        nums = [float(v) for v in values.split(",")]
        style = {"color": "0.2", "linestyle": line, "linewidth": 1.2}
        if kind == "hline":
            ax.axhline(nums[0], label=label, **style)
        elif kind == "vline":
            ax.axvline(nums[0], label=label, **style)
        elif kind == "point":
            ax.plot([nums[0]], [nums[1]], marker=marker, color="black", linestyle="none", label=label)
        else:
            raise TracewhError(f"plot reference {entry!r}: kind must be hline, vline or point")


def _interactive() -> bool:
    """A notebook (or another GUI backend already chosen) keeps its backend."""
    import sys

    return "matplotlib.pyplot" in sys.modules or "ipykernel" in sys.modules


def from_export(path: Path) -> tuple[str, Rows, dict[str, Any]]:
    """A report result read back from its export (csv, json, jsonl, parquet) and its provenance
    (tracewh.reports.provenance): the report's name, its rows with the context a chart needs (trace,
    cell, zone, parameters, trace start), and the provenance record. Re-styling a chart this
    way never runs the query again."""
    import zoneinfo

    import polars as pl

    from tracewh.reports import provenance
    from tracewh.traces import registry

    path = Path(path)
    try:
        record = provenance.read(path)
    except (KeyError, OSError, ValueError) as e:
        raise UsageError(
            f"{path}: no tracewh provenance beside or inside it (export it with tracewh report ... -o FILE)"
        ) from e
    name = record.get("report")
    if not name:
        raise UsageError(f"{path}: exported by `tracewh sql`, not by a report: it has no chart")
    spec(str(name))
    readers: dict[str, Any] = {
        ".csv": pl.read_csv,
        ".json": pl.read_json,
        ".jsonl": pl.read_ndjson,
        ".parquet": pl.read_parquet,
    }
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise UsageError(f"{path}: tracewh plot reads csv, json, jsonl or parquet exports")
    frame = reader(path)
    params = dict(record.get("params") or {})
    trace, cell, zone = params.pop("trace", None), params.pop("cell", None), params.pop("tz", None) or "UTC"
    spec_of = registry().get(str(trace)) if trace else None
    start = (
        spec_of.trace_start.astimezone(zoneinfo.ZoneInfo(zone)) if spec_of and spec_of.trace_start else None
    )
    rows = Rows(
        list(frame.columns),
        [_duck_type(t) for t in frame.dtypes],
        frame.rows(),
        {"trace": trace, "cell": cell, "zone": zone, "trace_start": start, "params": params, "chart": {}},
    )
    return str(name), rows, record


def _duck_type(dtype: Any) -> str:
    """The DuckDB type name of a polars column type, as far as the chart and the display care."""
    if dtype.is_integer():
        return "BIGINT"
    if dtype.is_float():
        return "DOUBLE"
    text = str(dtype)
    if text == "Boolean":
        return "BOOLEAN"
    if text.startswith("Datetime"):
        return "TIMESTAMP WITH TIME ZONE"
    return "VARCHAR"
