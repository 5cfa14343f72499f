"""PNG charts for the reports whose header declares one (`-- plot: x=...; y=a,b; kind=line`)."""

from __future__ import annotations

from pathlib import Path

from warehouse.errors import TracewhError, UsageError
from warehouse.query import Rows
from warehouse.reports import get


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


def write(report_name: str, rows: Rows, path: Path) -> None:
    s = spec(report_name)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise TracewhError("--plot needs matplotlib: pip install 'tracewh[plot]'") from e
    x = rows.columns.index(s["x"])
    series = [c.strip() for c in s["y"].split(",")]
    group = rows.columns.index(s["group"]) if "group" in s else None
    fig, ax = plt.subplots(figsize=(10, 5.5), dpi=110)
    keys = sorted({r[group] for r in rows.rows}, key=str) if group is not None else [None]
    for key in keys:
        sel = [r for r in rows.rows if group is None or r[group] == key]
        for name in series:
            y = rows.columns.index(name)
            label = name if key is None else f"{key} {name}" if len(series) > 1 else str(key)
            pts = [(r[x], r[y]) for r in sel if r[x] is not None and r[y] is not None]
            if s.get("kind") == "step":
                ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", label=label)
            else:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label)
    ax.set_title(s.get("title", report_name))
    ax.set_xlabel(s.get("xlabel", s["x"]))
    ax.set_ylabel(s.get("ylabel", ", ".join(series)))
    if s.get("logx") == "true":
        ax.set_xscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise TracewhError(f"cannot write {path}: {e.strerror or e}") from e
    finally:
        plt.close(fig)
