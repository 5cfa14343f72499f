"""Start-up and per-command cost on the demo home (the bundled samples), beside a baseline.

Usage (from the project root):

    .venv/bin/python -m bench.bench_session [--home DIR] [--baseline OTHER/.venv/bin/tracewh]
        [--runs 5] [--summary-runs 3] [--only help,list,sql,reports,summary] [--write]

What it measures, each command a fresh process (start-up included), stdout to /dev/null:
- ``tracewh --help``, ``tracewh report list``: start-up (no engine, no SQL expanded);
- ``tracewh sql "select 1"``, beside the DuckDB shell (the duckdb-cli package beside this
  Python, as `tracewh shell` finds it) opening the same catalog read-only: ``duckdb -readonly
  CATALOG -c "select 1"``;
- every report once per ingested trace it covers (``tracewh report NAME [--trace T] -f csv``,
  the header's example parameters), the way `tracewh summary` picks them;
- ``tracewh summary --html FILE``.
With ``--baseline``, each command also runs under that tracewh (another checkout's venv, e.g. the
main branch) on the same home, the two in turn (A B A B ...), so a drift of the machine's speed
moves both: the ratio A/B is taken per pair and its median reported. Wall and CPU (user + system
of the process and its children, from wait4) are medians of --runs. ``--write`` replaces the
"## Session and start-up" section of bench/RESULTS.md.

Only the standard library and tracewh (for the report list and the demo home) are imported; the
measured commands run in subprocesses.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import harness as h

HEADING = "## Session and start-up: the demo home"
# What the issue asks of the demo home (seconds, wall).
TARGETS = {"help": 0.3, "list": 0.3, "sql": 0.5, "report": 1.0, "summary": 15.0}


@dataclass
class Timing:
    label: str
    kind: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    base_walls: list[float] = field(default_factory=list)
    base_cpus: list[float] = field(default_factory=list)
    failed: str = ""

    def median(self, what: str) -> float | None:
        """The median of one list: walls, cpus, base_walls, base_cpus."""
        xs = getattr(self, what)
        return statistics.median(xs) if xs else None

    def ratio(self, a: str, b: str) -> float | None:
        """The median of the per-pair ratios A/B (each A run beside the B run after it)."""
        pairs = [x / y for x, y in zip(getattr(self, a), getattr(self, b), strict=False) if y]
        return statistics.median(pairs) if pairs else None


def timed(cmd: list[str]) -> tuple[float, float, int, str]:
    """(wall s, CPU s of the process and its children, exit code, last stderr line)."""
    with tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().strip().splitlines()
    return wall, usage.ru_utime + usage.ru_stime, p.returncode, lines[-1] if lines else ""


def measure(t: Timing, a: list[str], b: list[str] | None, runs: int) -> Timing:
    """A and B in turn, after one warm-up run each (the page cache, .pyc files)."""
    sides = [("", a, t.walls, t.cpus)] + ([("baseline ", b, t.base_walls, t.base_cpus)] if b else [])
    for _, cmd, _, _ in sides:
        timed(cmd)
    for _ in range(runs):
        for tag, cmd, walls, cpus in sides:
            wall, cpu, code, last = timed(cmd)
            if code != 0:
                t.failed = f"{tag}exit {code}: {last}"
                break
            walls.append(wall)
            cpus.append(cpu)
        if t.failed:
            break
    h.log(
        f"{t.label}: wall {h.fmt(t.median('walls'), '.3f')} s cpu {h.fmt(t.median('cpus'), '.3f')} s"
        + (
            f"; baseline wall {h.fmt(t.median('base_walls'), '.3f')} s, "
            f"A/B {h.fmt(t.ratio('walls', 'base_walls'), '.2f')}"
            if b
            else ""
        )
        + (f" FAILED {t.failed}" if t.failed else "")
    )
    return t


def report_runs(home: Path) -> list[tuple[str, str | None, list[str]]]:
    """(report, trace, extra args) per report and ingested trace it covers (as the summary picks)."""
    from tracewh.home import Home
    from tracewh.reports import summary

    out = []
    for report, trace in summary.applicable(Home.resolve(home)):
        args = [f"--param={k}={v}" for k, v in report.example_options.items()]
        out.append((report.name, trace, (["--trace", trace] if trace else []) + args))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, default=h.ROOT / "bench" / "work" / "demo-home")
    ap.add_argument("--baseline", help="another tracewh executable to run beside this one (B)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--summary-runs", type=int, default=3)
    ap.add_argument("--only", default="help,list,sql,reports,summary")
    ap.add_argument("--write", action="store_true", help="write the section of bench/RESULTS.md")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    tracewh = [str(h.TRACEWH)]
    base = shlex.split(args.baseline) if args.baseline else None
    home = args.home.resolve()
    if not (home / "tracewh.duckdb").exists():
        h.log(f"building the demo home {home}")
        subprocess.run([*tracewh, "--home", str(home), "demo"], check=True, capture_output=True)
    catalog = str(home / "tracewh.duckdb")
    shell = str(Path(sys.executable).parent / "duckdb")
    at = ["--home", str(home)]
    t0 = time.time()
    rows: list[Timing] = []

    def pair(label: str, kind: str, cmd: list[str], runs: int, vs: list[str] | None = None) -> None:
        b = vs if vs is not None else (base + cmd if base else None)
        rows.append(measure(Timing(label, kind), tracewh + cmd, b, runs))

    if "help" in only:
        pair("tracewh --help", "help", ["--help"], args.runs)
    if "list" in only:
        pair("tracewh report list", "list", ["report", "list"], args.runs)
    if "sql" in only:
        pair('tracewh sql "select 1"', "sql", [*at, "sql", "select 1"], args.runs)
        pair(
            'tracewh sql "select 1" beside duckdb -readonly CATALOG -c "select 1"',
            "sql",
            [*at, "sql", "select 1"],
            args.runs,
            vs=[shell, "-readonly", catalog, "-c", "select 1"],
        )
    if "reports" in only:
        for name, trace, extra in report_runs(home):
            label = f"report {name}" + (f" --trace {trace}" if trace else "")
            pair(label, "report", [*at, "report", name, *extra, "-f", "csv"], args.runs)
    if "summary" in only:
        with tempfile.TemporaryDirectory() as d:
            page = str(Path(d) / "summary.html")
            pair("tracewh summary --html", "summary", [*at, "summary", "--html", page], args.summary_runs)
    text = section(rows, args, time.time() - t0)
    print(text)
    if args.write:
        h.write_section(h.RESULTS, text, HEADING)


def section(rows: list[Timing], args: argparse.Namespace, seconds: float) -> str:
    mi = h.machine_info()
    load = os.getloadavg()
    lines = [
        HEADING,
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/bench_session.py` "
        f"(whole run {seconds:.0f} s); load average at the end {load[0]:.1f} / {load[1]:.1f} / "
        f"{load[2]:.1f} on {mi['nproc']} cores (a loaded machine: wall times carry the others' load, "
        "the CPU column and the A/B ratios less so).",
        "",
        h.machine_text(mi),
        "",
        f"**Command**: `.venv/bin/python -m bench.bench_session {' '.join(sys.argv[1:])}`",
        "",
        "A = this checkout; B = "
        + (f"`{args.baseline}`, run in turn with A" if args.baseline else "none")
        + f". Medians of {args.runs} runs ({args.summary_runs} for the summary), each a fresh process.",
        "",
        "| command | A wall s | A CPU s | B wall s | B CPU s | A/B wall | A/B CPU | target (wall) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t in rows:
        target = "" if " beside " in t.label else f"< {TARGETS[t.kind]:g} s"
        cells = [
            t.label + (f" (FAILED: {t.failed})" if t.failed else ""),
            h.fmt(t.median("walls"), ".3f"),
            h.fmt(t.median("cpus"), ".3f"),
            h.fmt(t.median("base_walls"), ".3f"),
            h.fmt(t.median("base_cpus"), ".3f"),
            h.fmt(t.ratio("walls", "base_walls"), ".2f"),
            h.fmt(t.ratio("cpus", "base_cpus"), ".2f"),
            target,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    walls = {t.label: t.median("walls") or 0.0 for t in rows if t.kind == "report" and t.walls}
    if walls:
        slow = max(walls, key=lambda k: walls[k])
        lines += [
            "",
            f"Reports: {len(walls)} runs; the slowest {slow} {walls[slow]:.2f} s wall, "
            f"median {statistics.median(walls.values()):.2f} s; "
            f"{sum(1 for w in walls.values() if w < TARGETS['report'])} under {TARGETS['report']:g} s.",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
