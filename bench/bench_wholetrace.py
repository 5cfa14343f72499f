"""Whole-trace scale: google2011 ingested in stages of its parts (e.g. 0.1, 0.4 and 1.0 of the 500),
every google2011 report run at each stage, peak RSS against the memory limit.

Inputs come from ``tracewh synth google2011 --scale 1.0`` (made before, they take half an hour
on 2 cores): ``--src`` folders, each with task_events/, job_events/, machine_events/ (or some of
them). Each stage ingests only the parts it adds (``tracewh ingest --parts A-B``, part-scoped:
the parts of the earlier stages stay), so one home grows 0.1 -> 0.4 -> 1.0 and the ingest of
every part is measured once. Next to each stage's ingest, in the same run and on the same
task_events files: the ``gzip -dc`` floor (2 processes, which also counts the uncompressed bytes)
and a bare DuckDB ``COPY (SELECT * FROM read_csv(files)) TO ... (FORMAT parquet)``.

Each measurement is one fresh subprocess under /usr/bin/time (harness.measure); the machine is
shared, so the cores other processes used during each run are recorded beside it. Results
accumulate in ``--state`` (JSON), so a stage can be run when its parts exist; ``--write``
renders the RESULTS.md section from it.

    .venv/bin/python -m bench.bench_wholetrace --src /work/bigdata/g2011 --src /work/bigdata/g2011je \
        --home /work/bigdata/home --stage 0-49
    ... --stage 50-199, --stage 200-499, then --write
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import harness as h

SECTION = "## Whole trace: google2011 synth at scale 1.0, ingest and every report by input size"
GROWS = "task_events"  # the table whose stages make the input sizes (--grows)
INPUT = (
    "`tracewh synth google2011 --scale 1.0 --tables task_events,job_events,machine_events` "
    "(500 parts each; task_events and job_events at the published row counts)."
)


def section_title(grows: str) -> str:
    """The RESULTS.md heading of a series of stages that grow ``grows``."""
    if grows == GROWS:
        return SECTION
    return f"## Whole trace: google2011 {grows} by input size, beside the whole task_events"


PART_FILE = "part-{:05d}-of-00500.csv.gz"
DEFAULT_TABLES = "task_events,job_events,machine_events"


def parse_range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


def files_of(srcs: list[Path], table: str, lo: int, hi: int) -> list[Path]:
    out = []
    for k in range(lo, hi + 1):
        for s in srcs:
            f = s / table / PART_FILE.format(k)
            if f.is_file():
                out.append(f)
    return out


def google_reports() -> list[tuple[str, bool]]:
    p = subprocess.run(h.probe("reports_list"), capture_output=True, text=True, cwd=h.ROOT)
    listed = json.loads(p.stdout.strip().splitlines()[-1])
    return [(name, needs_trace) for name, traces, needs_trace in listed if "google2011" in traces]


def measure_ingest(a: argparse.Namespace) -> dict:
    """The stage's ingest beside the gzip floor and a bare COPY of the same task_events files."""
    lo, hi = parse_range(a.stage)
    base_table = a.tables.split(",")[0]  # the baselines read the first table's files
    events = files_of(a.src, base_table, lo, hi)
    if len(events) != hi - lo + 1:
        sys.exit(f"stage {a.stage}: only {len(events)} {base_table} parts exist")
    stage: dict = {
        "home": str(a.home),
        "parts": a.stage + (f" ({a.label})" if a.label else ""),
        "tables": a.tables,
        "files": len(events),
        "gz_mb": sum(f.stat().st_size for f in events) / 1e6,
    }
    # the gzip floor: 2 processes (decompress | count), which also gives the uncompressed size
    listing = " ".join(str(f) for f in events)
    floor, out, _ = h.measure("gzip floor", ["sh", "-c", f"gzip -dc {listing} | wc -c"])
    stage["csv_mb"] = int(out.strip()) / 1e6
    stage["floor"] = floor.__dict__
    stage["bare"] = None
    with tempfile.TemporaryDirectory(dir=a.home.parent) as tmp:
        bare, out, _ = (
            (None, "", "")
            if a.no_copy
            else h.measure(
                "bare COPY",
                h.probe(
                    "wholetrace_copy",
                    json.dumps([str(f) for f in events]),
                    f"{tmp}/t.parquet",
                    a.ingest_limit,
                ),
            )
        )
        if bare is not None:
            stage["bare"] = bare.__dict__
            stage["bare_rows"] = (h.last_json(out) or {}).get("rows")
    cmd = [
        str(h.TRACEWH),
        "--home",
        str(a.home),
        "ingest",
        "google2011",
        *map(str, a.src),
        "--parts",
        a.stage,
        "-q",
    ]
    cmd += ["--tables", a.tables, "--memory-limit", a.ingest_limit]
    cmd += ["--no-compact"] if a.no_compact else []
    stage["compacted_by_ingest"] = not a.no_compact
    ing, _, err = h.measure("tracewh ingest", cmd)
    if not ing.ok:
        sys.exit(f"ingest failed: {err[-2000:]}")
    stage["ingest"] = ing.__dict__
    stage["catalog"] = catalog_figures(a.home)
    if a.snapshot:
        stage.update(snapshot(a))
    return stage


def link_copy(src: Path, dst: Path) -> None:
    """``dst``: a hard-linked copy of the home ``src`` (its catalog files copied, the views
    repointed by ``tracewh repair``): the Parquet files are shared, never rewritten in place."""
    if dst.exists():
        shutil.rmtree(dst)
    subprocess.run(["cp", "-al", str(src), str(dst)], check=True)
    for f in dst.rglob("*.duckdb*"):  # DuckDB may write its file in place: no shared inode
        if f.is_file() and not f.is_symlink():
            data = f.read_bytes()
            f.unlink()
            f.write_bytes(data)
    subprocess.run([str(h.TRACEWH), "--home", str(dst), "repair"], check=True, capture_output=True)


def snapshot(a: argparse.Namespace) -> dict:
    """A hard-linked copy of the home, compacted there by ``tracewh compact`` (measured): the home
    itself stays uncompacted and grows on."""
    snap = a.snapshot
    link_copy(a.home, snap)
    cmd = [str(h.TRACEWH), "--home", str(snap), "compact", "google2011", "--memory-limit", a.ingest_limit]
    run, _, err = h.measure("tracewh compact", cmd)
    if not run.ok:
        sys.exit(f"compact failed: {err[-2000:]}")
    return {"snapshot": str(snap), "compact": run.__dict__, "catalog_compacted": catalog_figures(snap)}


def run_stage(a: argparse.Namespace, state: dict) -> None:
    stage = state.get("stages", {}).get(a.key) if a.reports_only else None
    if stage is None and a.from_home and not a.home.exists():
        link_copy(a.from_home, a.home)
    if stage is None:
        stage = measure_ingest(a)
        stage["reports"] = {}
    for name, needs_trace in [] if a.no_reports else google_reports():
        if a.only and name not in a.only:
            continue
        rcmd = [str(h.TRACEWH), "--home", str(a.home), "report", name, "--format", "csv"]
        rcmd += (["--trace", "google2011"] if needs_trace else []) + ["--memory-limit", a.limit]
        run, out, err = h.measure(name, rcmd, stdout_devnull=a.save is None)
        if a.save is not None:  # the answer, for the checks (a report's csv is small)
            a.save.mkdir(parents=True, exist_ok=True)
            (a.save / f"{a.key}.{name}.csv").write_text(out)
        if not run.ok:
            run.note = err.strip().splitlines()[-1] if err.strip() else run.note
        stage.setdefault(a.into, {})[name] = run.__dict__
        state.setdefault("stages", {})[a.key] = stage
        save(a.state, state)
    state.setdefault("stages", {})[a.key] = stage
    save(a.state, state)


def catalog_figures(home: Path) -> dict:
    code = (
        "import duckdb, json, sys; c = duckdb.connect(sys.argv[1], read_only=True); "
        'print(json.dumps(c.execute("SELECT table_name, rows, files, bytes FROM meta.tables '
        "WHERE trace = 'google2011'\").fetchall()))"
    )
    p = subprocess.run(
        [str(h.VENV_PY), "-c", code, str(home / "tracewh.duckdb")], capture_output=True, text=True
    )
    try:
        return {t: {"rows": r, "files": f, "bytes": b} for t, r, f, b in json.loads(p.stdout)}
    except ValueError:
        return {}


def save(path: Path, state: dict) -> None:
    path.write_text(json.dumps(state, indent=1))


def load_range(stages: list[dict]) -> str:
    """The smallest and largest 1-minute load average seen before any measured run."""
    runs = [s.get(k) for s in stages for k in ("floor", "bare", "ingest", "compact")]
    runs += [r for s in stages for k in ("reports", "reports_uncompacted") for r in s.get(k, {}).values()]
    loads = [r["load1"] for r in runs if r and r.get("load1") is not None]
    return f"{min(loads):.0f}-{max(loads):.0f}" if loads else "?"


def write(a: argparse.Namespace, state: dict) -> None:
    stages = list(state.get("stages", {}).values())
    grows = state.get("grows", GROWS)
    for s in stages:
        if not s.get("catalog") and s.get("home"):
            s["catalog"] = catalog_figures(Path(s["home"]))
    mi = h.machine_info()
    lines = [
        section_title(grows),
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/bench_wholetrace.py`.",
        "",
        h.machine_text(mi) + " Shared with other engineers' work (1-minute load average "
        f"{load_range(stages)} before the runs); the last column of each table gives the cores other "
        "processes used during each run: read CPU s and peak RSS, walls are inflated.",
        "",
        "**Command**: " + "; ".join(f"`{c}`" for c in state.get("commands", [])),
        "",
        "**Input**: " + state.get("input", INPUT),
        "",
        "### Ingest per stage (only the parts the stage adds), baselines on the same "
        f"{stages[0].get('tables', DEFAULT_TABLES).split(',')[0] if stages else GROWS} files",
        "",
        "| parts | tables (baselines read the first) | baseline files | gz MB | CSV MB | "
        "gzip floor s / CPU s | bare COPY s / CPU s | tracewh ingest s / CPU s | "
        "ingest / bare COPY (wall; CPU) | ingest / floor (wall; CPU) | ingest peak RSS MB | MB/s (CSV) | "
        "compact s / CPU s / peak RSS MB | others during (floor / COPY / ingest) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in stages:
        f, b, i, c = s["floor"], s.get("bare"), s["ingest"], s.get("compact")
        bare = f"{b['wall']:.1f} / {h.fmt(b['cpu_s'], '.1f')}" if b else "not run"
        vs_bare = f"{i['wall'] / b['wall']:.2f}; {i['cpu_s'] / b['cpu_s']:.2f}" if b else "-"
        comp = "in the ingest" if s.get("compacted_by_ingest", True) else "-"
        if c:
            comp = f"{c['wall']:.1f} / {h.fmt(c['cpu_s'], '.1f')} / {h.fmt(c['rss_mb'], '.0f')}"
        lines.append(
            f"| {s['parts']} | {s.get('tables', DEFAULT_TABLES)} | {s['files']} | "
            f"{s['gz_mb']:,.0f} | {s['csv_mb']:,.0f} | {f['wall']:.1f} / {h.fmt(f['cpu_s'], '.1f')} | "
            f"{bare} | {i['wall']:.1f} / {h.fmt(i['cpu_s'], '.1f')} | {vs_bare} | "
            f"{i['wall'] / f['wall']:.2f}; {i['cpu_s'] / f['cpu_s']:.2f} | "
            f"{h.fmt(i['rss_mb'], '.0f')} | {s['csv_mb'] / i['wall']:.0f} | {comp} | "
            f"{f['others']:.2f} / {b['others'] if b else 0:.2f} / {i['others']:.2f} |"
        )
    if any("job_events" in s.get("tables", DEFAULT_TABLES).split(",")[1:] for s in stages):
        lines += [
            "",
            "Note: the tracewh ingest also converts the stage's job_events parts (about 2% of the bytes).",
        ]
    rstages = [s for s in stages if s["reports"]]  # an ingest-only step (e.g. task_usage) has none
    if rstages:
        lines += [
            "",
            f"### {'Every google2011 report' if grows == GROWS else 'Reports'} at each size "
            f"(memory limit {state.get('limit', '4GB')}; one run each)",
            "",
        ]
    names = list(dict.fromkeys(n for s in rstages for n in s["reports"]))
    sizes = [s["catalog"].get(grows, {}).get("rows", 0) for s in rstages]
    head = "| report | " + " | ".join(f"wall s @ {n / 1e6:.1f} M" for n in sizes)
    head += " | " + " | ".join(f"CPU s @ {n / 1e6:.1f} M" for n in sizes)
    head += (
        " | "
        + " | ".join(f"peak RSS MB @ {n / 1e6:.1f} M" for n in sizes)
        + " | wall s per 10 M (largest) | CPU s per 10 M (largest) | others (largest) |"
    )
    lines += [head, "|---" * (3 * len(rstages) + 4) + "|"] if rstages else []
    for name in names:
        runs = [s["reports"].get(name) for s in rstages]
        walls = [("FAIL" if not r["ok"] else f"{r['wall']:.1f}") if r else "-" for r in runs]
        rss = [h.fmt(r["rss_mb"], ".0f") if r else "-" for r in runs]
        last = next(
            ((r, n) for r, n in zip(reversed(runs), reversed(sizes), strict=True) if r and r["ok"]), None
        )
        cpus = [h.fmt(r["cpu_s"], ".1f") if r else "-" for r in runs]
        per = f"{last[0]['wall'] / (last[1] / 1e7):.1f}" if last and last[1] else "-"
        per_cpu = f"{last[0]['cpu_s'] / (last[1] / 1e7):.1f}" if last and last[1] else "-"
        oth = f"{last[0]['others']:.2f}" if last else "-"
        cells = " | ".join(walls + cpus + rss)
        lines.append(f"| {name} | {cells} | {per} | {per_cpu} | {oth} |")
    cmp = [s for s in stages if s.get("reports_uncompacted")]
    for s in cmp:
        n = s["catalog"].get("task_events", {}).get("rows", 0)
        nc, cc = s["catalog"].get("task_events", {}), s.get("catalog_compacted", {}).get("task_events", {})
        lines += [
            "",
            f"### Compacted vs uncompacted, same reports at {n / 1e6:.1f} M task events "
            f"(task_events {nc.get('files', '?')} -> {cc.get('files', '?')} Parquet files)",
            "",
            "| report | uncompacted wall s / CPU s / peak RSS MB | compacted wall s / CPU s / peak RSS MB | "
            "CPU compacted / uncompacted | others (uncompacted / compacted) |",
            "|---|---|---|---|---|",
        ]
        for name, u in s["reports_uncompacted"].items():
            c = s["reports"].get(name)
            if not c:
                continue
            lines.append(
                f"| {name} | {u['wall']:.1f} / {h.fmt(u['cpu_s'], '.1f')} / {h.fmt(u['rss_mb'], '.0f')} | "
                f"{c['wall']:.1f} / {h.fmt(c['cpu_s'], '.1f')} / {h.fmt(c['rss_mb'], '.0f')} | "
                f"{c['cpu_s'] / u['cpu_s']:.2f} | {u['others']:.2f} / {c['others']:.2f} |"
            )
    failures = [(s["parts"], n, r["note"]) for s in stages for n, r in s["reports"].items() if not r["ok"]]
    if failures:
        lines += ["", "Failures:"] + [f"- parts {p}, {n}: {note}" for p, n, note in failures]
    lines += ["", "Catalog after each stage (rows / Parquet files / MB):", ""]
    for s in stages:
        for label, key in (("", "catalog"), (", compacted", "catalog_compacted")):
            cat = s.get(key)
            if not cat:
                continue
            lines.append(
                f"- parts {s['parts']}{label}: "
                + "; ".join(
                    f"{t} {c['rows']:,} / {c['files']} / {c['bytes'] / 1e6:,.0f}"
                    for t, c in sorted(cat.items())
                )
            )
    h.write_section(h.RESULTS, "\n".join(lines) + "\n" + state.get("reading", ""), section_title(grows))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--src", type=Path, action="append", default=[])
    p.add_argument("--home", type=Path, default=Path("/work/bigdata/home"))
    p.add_argument("--stage", help="part range this stage adds, e.g. 0-49")
    p.add_argument(
        "--state",
        type=Path,
        action="append",
        help="JSON the stage adds to (default /work/bigdata/wholetrace.json); --write merges all given",
    )
    p.add_argument("--limit", default="4GB", help="reports' --memory-limit (the default limit)")
    p.add_argument("--ingest-limit", default="2GB")
    p.add_argument("--only", nargs="*", help="only these reports")
    p.add_argument(
        "--tables",
        default=DEFAULT_TABLES,
        help="tables the stage ingests; the gzip floor and bare COPY read the first one's files",
    )
    p.add_argument("--no-reports", action="store_true", help="measure the stage's ingest only")
    p.add_argument("--key", help="name of the stage in --state (default: --stage)")
    p.add_argument("--quiet-wait", type=float, default=5.0, help="max seconds to wait for a quiet machine")
    p.add_argument(
        "--reports-only", action="store_true", help="rerun --only reports of a stage already measured"
    )
    p.add_argument("--write", action="store_true", help="write the RESULTS.md section from --state")
    p.add_argument("--no-compact", action="store_true", help="ingest with --no-compact")
    p.add_argument(
        "--from-home",
        type=Path,
        help="start --home (if new) as a hard-linked copy of this home, e.g. the compacted whole "
        "task_events home for task_usage stages",
    )
    p.add_argument("--save", type=Path, help="write each report's csv here (<key>.<report>.csv)")
    p.add_argument("--input", help="the section's Input text (default: the task_events synth)")
    p.add_argument(
        "--grows",
        default=GROWS,
        help="the table whose rows are the stages' input sizes (its own RESULTS.md section unless "
        "task_events)",
    )
    p.add_argument("--label", help="shown beside the stage's parts (e.g. real parts)")
    p.add_argument(
        "--snapshot",
        type=Path,
        help="after the ingest: hard-linked copy of the home here, compacted by `tracewh compact` (measured)",
    )
    p.add_argument(
        "--no-copy", action="store_true", help="skip the bare COPY baseline (the gzip floor stays)"
    )
    p.add_argument(
        "--into",
        default="reports",
        help="key of the stage's report results (e.g. reports_uncompacted, for the same reports on "
        "the uncompacted home)",
    )
    a = p.parse_args(argv)
    h.QUIET_WAIT_S = a.quiet_wait
    a.states = a.state or [Path("/work/bigdata/wholetrace.json")]
    a.state = a.states[0]
    a.key = a.key or a.stage
    state = json.loads(a.state.read_text()) if a.state.is_file() else {}
    if a.stage:
        state["limit"] = a.limit
        state["grows"] = a.grows
        if a.input:
            state["input"] = a.input
        state.setdefault("commands", []).append(h.command_line("bench_wholetrace.py", argv))
        a.home.parent.mkdir(parents=True, exist_ok=True)
        run_stage(a, state)
    if a.write:
        for more in a.states[1:]:
            other = json.loads(more.read_text())
            state.setdefault("stages", {}).update(other.get("stages", {}))
            state.setdefault("commands", []).extend(other.get("commands", []))
        write(a, state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
