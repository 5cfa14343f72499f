"""The drawing of one Alibaba batch job's DAG from the rows of the ``ali-job`` report.

As the paper's Figure 3 draws job j_2041: a start and an end node, one node per task, an edge x -> y
for every dependency labelled with the run time of x (and, as in its Figure 7, the interval in
brackets), the critical path highlighted. Columns are the Kahn levels of warehouse/catalog/dag.py. What the
trace gets wrong is drawn as such, never dropped: tasks on or behind a cycle sit in a red column of
their own with their edges in red, parents that no task of the job has are dashed ghost nodes, and a
self-dependency is marked on its node (\u21bb). Tasks outside the DAG (task_<base64>, MergeTask) run in
parallel between start and end.
"""

from __future__ import annotations

from typing import Any


def literal(value: object) -> str:
    """A value from the data (a job or task name, a group) as matplotlib draws it: as written.
    matplotlib reads text between two ``$`` as mathtext, and a name like ``j_$\\x$`` then fails
    the whole drawing (an unknown symbol)."""
    return str(value).replace("$", r"\$")


PATH = "#e8871e"
CYCLE = "#d62728"
GHOST = "#7f7f7f"


def _seconds(v: Any) -> str:
    if v is None:
        return "?"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _short(name: str) -> str:
    return name if len(name) <= 14 else name[:11] + "..."


def draw(columns: list[str], rows: list[tuple], title: str) -> Any:
    """A matplotlib figure of the job whose task rows (the ali-job columns) are given."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    tasks = [dict(zip(columns, r, strict=True)) for r in rows]
    by_id = {t["task_id"]: t for t in tasks if t["task_id"] is not None}
    placed = [t for t in tasks if t["level"] is not None]
    loose = [t for t in tasks if t["task_id"] is None]  # not in the DAG: parallel, between start and end
    cyclic = [t for t in tasks if t["on_or_behind_cycle"]]
    # x: start 0, levels 1.., end, then the cycle column; ghosts just before their child
    col: dict[str, float] = {}
    members: dict[float, list[str]] = {}

    def put(key: str, x: float) -> None:
        col[key] = x
        members.setdefault(x, []).append(key)

    def key(t: dict) -> str:
        return str(t["task_id"]) if t["task_id"] is not None else t["task_name"]

    for t in sorted(placed, key=lambda t: (t["level"], t["task_id"])):
        put(key(t), t["level"] + 1.0)
    for t in loose:
        put(key(t), 1.0)
    end_x = max(col.values(), default=0.0) + 1.0
    # the cycle column stands right of the end node: no edge of the acyclic part crosses it
    cycle_x = end_x + 1.2
    for t in cyclic:
        put(key(t), cycle_x)
    ghosts = sorted({p for t in tasks for p in t["missing_parents"] or []})
    put("start", 0.0)
    put("end", end_x)
    right = cycle_x if cyclic else end_x
    parents_of = {
        key(t): [str(p) for p in t["parent_task_ids"] or [] if p in by_id and p != t["task_id"]]
        for t in tasks
    }
    pos: dict[str, tuple[float, float]] = {}
    for x in sorted(members):
        keys = members[x]
        # one barycentre pass, level by level: a task sits near the mean height of its parents,
        # which removes most edge crossings of a layered drawing
        keys.sort(
            key=lambda k: (
                -sum(pos[p][1] for p in parents_of.get(k, []) if p in pos)
                / max(1, sum(p in pos for p in parents_of.get(k, [])))
            )
        )
        for i, k in enumerate(keys):
            pos[k] = (x, (len(keys) - 1) / 2 - i)
    for g in ghosts:
        # a missing parent sits just before and above its first child, off the other edges
        child = next(t for t in tasks if g in (t["missing_parents"] or []))
        x, y = pos[key(child)]
        pos[f"?{g}"] = (x - 0.3, y + 0.35)

    height = max(len(v) for v in members.values())
    fig, ax = plt.subplots(figsize=(max(7.0, 1.9 * (right + 1)), max(3.5, 1.0 * height + 1.5)), dpi=110)
    small = len(tasks) > 40
    fs = 6 if small else 9
    known = tasks and all(t["on_critical_path"] is not None for t in tasks)
    on_path = {key(t) for t in tasks if t["on_critical_path"]}

    def edge(a: str, b: str, label: str, color: str = "black", width: float = 1.0, bend: float = 0.0) -> None:
        ax.annotate(
            "",
            xy=pos[b],
            xytext=pos[a],
            arrowprops={
                "arrowstyle": "-|>",
                "color": color,
                "lw": width,
                "shrinkA": 16,
                "shrinkB": 16,
                "linestyle": "--" if color == GHOST else "-",
                "connectionstyle": f"arc3,rad={bend}",
            },
            zorder=1,
        )
        if label and not small:
            (x0, y0), (x1, y1) = pos[a], pos[b]
            # the middle of matplotlib's arc3 curve: half way to its control point
            ax.text(
                x0 + (x1 - x0) * 0.45 + bend / 2 * (y1 - y0),
                y0 + (y1 - y0) * 0.45 - bend / 2 * (x1 - x0) + 0.08,
                label,
                fontsize=fs - 1,
                color=color if color != "black" else "#333333",
                ha="center",
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
                zorder=3,
            )

    has_child: set[str] = set()
    for t in tasks:
        intervals = t["interval_s"] or []
        for n, p in enumerate(t["parent_task_ids"] or []):
            if p == t["task_id"]:
                continue
            interval = intervals[n] if n < len(intervals) else None
            if p in by_id:
                parent = by_id[p]
                label = _seconds(parent["run_s"])
                if interval is not None:
                    label += f" ({_seconds(interval)})"
                red = parent["on_or_behind_cycle"] and t["on_or_behind_cycle"]
                hot = key(parent) in on_path and key(t) in on_path
                edge(
                    key(parent),
                    key(t),
                    label,
                    color=CYCLE if red else PATH if hot else "black",
                    width=2.5 if hot else 1.0,
                    bend=0.25 if red else 0.0,
                )
                has_child.add(key(parent))
            else:
                edge(f"?{p}", key(t), "", color=GHOST)
    for t in placed + loose:
        k = key(t)
        if t["level"] in (0, None) and not t["on_or_behind_cycle"]:
            hot = k in on_path
            edge("start", k, "", color=PATH if hot else "black", width=2.5 if hot else 1.0)
        if k not in has_child:
            hot = k in on_path
            edge(k, "end", _seconds(t["run_s"]), color=PATH if hot else "black", width=2.5 if hot else 1.0)

    def node(k: str, text: str, fc: str, ec: str, dashed: bool = False) -> None:
        ax.text(
            *pos[k],
            literal(text),
            ha="center",
            va="center",
            fontsize=fs,
            zorder=4,
            bbox={
                "boxstyle": "round,pad=0.35",
                "fc": fc,
                "ec": ec,
                "lw": 1.5,
                "linestyle": "--" if dashed else "-",
            },
        )

    node("start", "start", "#f0f0f0", "black")
    node("end", "end", "#f0f0f0", "black")
    for g in ghosts:
        node(f"?{g}", f"{g}?", "white", GHOST, dashed=True)
    for t in tasks:
        k = key(t)
        fc = "#fde0c5" if k in on_path else "#fbd5d5" if t["on_or_behind_cycle"] else "white"
        ec = PATH if k in on_path else CYCLE if t["on_or_behind_cycle"] else "black"
        node(k, _short(t["task_name"]) + (" \u21bb" if t["self_dependent"] else ""), fc, ec)
    if cyclic:
        ax.text(
            cycle_x,
            max(y for _, y in (pos[key(t)] for t in cyclic)) + 0.45,
            "cycle",
            color=CYCLE,
            ha="center",
            fontsize=fs,
        )

    job = next((t.get("job_name") for t in tasks), None)
    if known and on_path:
        total = sum(t["run_s"] for t in tasks if t["on_critical_path"])
        plural = "s" if len(on_path) > 1 else ""
        sub = f"critical path {_seconds(total)} s over {len(on_path)} task{plural}"
    elif cyclic:
        sub = "no critical path: the DAG has a cycle"
    else:
        sub = "no critical path: some run times are unknown" if by_id else "no DAG: the tasks run in parallel"
    ax.set_title(
        f"{title} {literal(job or '')}\n{sub}; edge label = parent's run time s (interval s)", fontsize=10
    )
    ax.set_xlim(-0.5, right + 0.5)
    ax.set_ylim(-(height / 2) - 0.2, height / 2 + 0.4)
    ax.axis("off")
    handles = [Patch(fc="#fde0c5", ec=PATH, label="critical path")] if on_path else []
    if cyclic:
        handles.append(Patch(fc="#fbd5d5", ec=CYCLE, label="on or behind a cycle"))
    if ghosts:
        handles.append(Patch(fc="white", ec=GHOST, ls="--", label="missing parent"))
    if any(t["self_dependent"] for t in tasks):
        handles.append(Patch(fc="white", ec="black", label="\u21bb depends on itself"))
    if handles:
        ax.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncol=4,
            fontsize="small",
            frameon=False,
        )
    fig.tight_layout()
    return fig
