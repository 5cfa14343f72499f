"""What every benchmark shares: timing, peak RSS, machine info, and the RESULTS.md section writer.

One place for how a measurement is taken (a fresh subprocess under ``/usr/bin/time`` after waiting
for a quiet machine, best of N, other processes' CPU recorded beside it), for the machine
description every section starts with, and for writing a bench's own section of
``bench/RESULTS.md`` without touching the others. Inputs come from ``tracewh synth``
(:func:`synth_input`), cached by their manifest.

Only the standard library is imported here; the measured tools run in subprocesses.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
TRACEWH = ROOT / ".venv" / "bin" / "tracewh"
RESULTS = ROOT / "bench" / "RESULTS.md"
MAX_TIME = 2**63 - 1
QUIET_BUSY_CORES = 0.5  # wait before a measurement while other processes use more than this
QUIET_WAIT_S = 60.0


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def banner(msg: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n!!! {msg}\n{bar}\n", file=sys.stderr, flush=True)


def catalog_task_events(home: Path) -> int:
    """google2011 task events in a home's catalog (read-only: the home stays as it is)."""
    import duckdb

    from tracewh.home import Home

    con = duckdb.connect(str(Home.resolve(home).catalog), read_only=True)
    try:
        (n,) = con.execute("SELECT count(*) FROM google2011.task_events").fetchall()[0]
        return int(n)
    finally:
        con.close()


def last_json(out: str):
    """The JSON a measured script printed after its marker (DuckDB's progress bar may share stdout)."""
    i = out.rfind("@@JSON ")
    if i < 0:
        return None
    try:
        return json.loads(out[i + len("@@JSON ") :].splitlines()[0])
    except (ValueError, IndexError):
        return None


def command_line(script: str, argv: list[str] | None) -> str:
    """The command as it was run, for the RESULTS.md section."""
    return f".venv/bin/python -m bench.{script.removesuffix('.py')} " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )


def synth_input(
    folder: Path, trace: str, scale: float, *, seed: int = 1, args: tuple[str, ...] = ()
) -> tuple[dict, float | None]:
    """A synthetic input made by ``tracewh synth`` (cached: reused while its manifest says the same
    trace, scale, seed and generator). Returns (manifest, generation wall seconds or None if cached)."""
    manifest = folder / "manifest.json"
    want = [str(a) for a in args]
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        same = (m.get("trace"), m.get("scale"), m.get("seed"), m.get("bench_args")) == (
            trace,
            scale,
            seed,
            want,
        )
        if same and all((folder / rel).is_file() for rel in m["files"]):
            log(f"input {folder}: cached ({trace}, scale {scale})")
            return m, None
    shutil.rmtree(folder, ignore_errors=True)
    cmd = [
        str(TRACEWH),
        "synth",
        trace,
        str(folder),
        "--scale",
        str(scale),
        "--seed",
        str(seed),
        "--quiet",
        *want,
    ]
    log(f"generating: {shlex.join(cmd)}")
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    m = json.loads(manifest.read_text())
    m["bench_args"] = want
    manifest.write_text(json.dumps(m, indent=1))
    return m, wall


@dataclass
class Run:
    tool: str
    wall: float
    rss_mb: float | None
    cpu_s: float | None
    load1: float
    busy_cores: float
    waited_s: float
    out_mb: float | None = None
    others: float = 0.0  # cores used by other processes (and hypervisor steal) during the run
    ok: bool = True
    note: str = ""
    extra: dict = field(default_factory=dict)


def _cpu_times() -> tuple[float, float]:
    """(total, idle) jiffies of all CPUs; steal counts as busy (the VM did not get the core)."""
    with open("/proc/stat") as fh:
        v = [float(x) for x in fh.readline().split()[1:9]]
    idle = v[3] + (v[4] if len(v) > 4 else 0.0)  # idle + iowait
    return sum(v), idle


def _busy_seconds() -> float | None:
    try:
        total, idle = _cpu_times()
    except OSError:
        return None
    return (total - idle) / os.sysconf("SC_CLK_TCK")


def busy_cores(sample_s: float = 1.0) -> float:
    """Cores busy right now (all processes), sampled from /proc/stat over sample_s."""
    try:
        t0, i0 = _cpu_times()
        time.sleep(sample_s)
        t1, i1 = _cpu_times()
    except OSError:
        return 0.0
    if t1 <= t0:
        return 0.0
    return (1 - (i1 - i0) / (t1 - t0)) * (os.cpu_count() or 1)


def wait_quiet() -> tuple[float, float, float]:
    """Wait (up to QUIET_WAIT_S) until other processes use < QUIET_BUSY_CORES cores.

    The decision uses CPU busy time sampled over 1 s, not the 1-minute load
    average: right after one of our own 2-core measurements the load average
    stays above 1 for a minute or more although the machine is idle, and
    waiting for it would only burn the time budget. The load average is still
    recorded next to every measurement.
    """
    t0 = time.monotonic()
    busy = busy_cores()
    while busy > QUIET_BUSY_CORES and time.monotonic() - t0 < QUIET_WAIT_S:
        busy = busy_cores(2.0)
    return os.getloadavg()[0], busy, time.monotonic() - t0


def have_gnu_time() -> bool:
    try:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "true"], capture_output=True, text=True)
        return r.returncode == 0 and r.stderr.strip().isdigit()
    except OSError:
        return False


GNU_TIME = have_gnu_time()


def probe(name: str, *args: str) -> list[str]:
    """The command that runs one of bench/probes/ in the project's venv. The benches run from the
    project root (`python -m bench.<name>`), and so do the probes they start."""
    return [str(VENV_PY), "-m", f"bench.probes.{name}", *args]


def measure(tool: str, cmd: list[str], *, stdout_devnull: bool = False) -> tuple[Run, str, str]:
    load1, busy, waited = wait_quiet()
    shown = shlex.join(cmd if len(cmd) < 8 and len(" ".join(cmd)) < 300 else cmd[:1])
    log(
        f"{tool}: load1={load1:.2f} busy={busy:.2f} cores (waited {waited:.0f} s); running {shown}"
        + ("" if shown == shlex.join(cmd) else " ...")
    )
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        if GNU_TIME:
            full = ["/usr/bin/time", "-f", "@@RUSAGE %M %U %S", "-o", tf.name, *cmd]
        else:
            # a fresh wrapper process whose RUSAGE_CHILDREN covers only the measured command
            full = [sys.executable, "-m", "bench.probes.rusage", "1" if stdout_devnull else "0", *cmd]
        b0 = _busy_seconds()
        t0 = time.perf_counter()
        p = subprocess.run(
            full,
            stdout=subprocess.DEVNULL if stdout_devnull else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.perf_counter() - t0
        b1 = _busy_seconds()
        rss = cpu = None
        text = tf.read() if GNU_TIME else p.stderr
        for line in text.splitlines():
            if line.startswith("@@RUSAGE "):
                if GNU_TIME:
                    kb, u, s = line.split()[1:]
                    rss, cpu = int(kb) / 1024, float(u) + float(s)
                else:
                    kb, c = json.loads(line.split(" ", 1)[1])
                    rss, cpu = kb / 1024, c
    run = Run(tool, wall, rss, cpu, load1, busy, waited, ok=p.returncode == 0)
    if b0 is not None and b1 is not None and cpu is not None:
        run.others = max(0.0, (b1 - b0 - cpu) / wall)
    if not run.ok:
        run.note = f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}"
        log(f"{tool} FAILED: {run.note}")
    else:
        log(
            f"{tool}: {wall:.2f} s, peak RSS {rss or 0:.0f} MB, CPU {cpu or 0:.1f} s, "
            f"other processes {run.others:.2f} cores"
        )
    return run, p.stdout or "", p.stderr


def dir_mb(d: Path) -> float:
    return sum(f.stat().st_size for f in d.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


NOISY_CORES = 0.3  # a run during which other processes used more than this is "noisy"


def best_of(fn, repeat: int) -> Run:
    """Run fn() repeat times (one more if every run was noisy); keep the fastest successful run.

    Its peak RSS is replaced by the largest peak over all runs (a peak is a peak).
    """
    runs = [fn() for _ in range(repeat)]
    if repeat > 1 and all(r.others > NOISY_CORES for r in runs):
        log("every run was noisy (other processes busy): one more run")
        runs.append(fn())
    good = [r for r in runs if r.ok] or runs
    b = min(good, key=lambda r: r.wall)
    rss = [r.rss_mb for r in runs if r.rss_mb is not None]
    if len(runs) > 1:
        b.extra = dict(b.extra, all_walls=[round(r.wall, 2) for r in runs], all_rss=[round(x) for x in rss])
        if rss:
            b.rss_mb = max(rss)
    return b


def machine_info() -> dict[str, str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
    except OSError:
        pass
    code = (
        "import duckdb, polars, pandas, pyarrow, sys; print(sys.version.split()[0], "
        "duckdb.__version__, polars.__version__, pandas.__version__, pyarrow.__version__)"
    )
    v = subprocess.run([str(VENV_PY), "-c", code], capture_output=True, text=True).stdout.split()
    v += ["?"] * (5 - len(v))
    gz = subprocess.run(["gzip", "--version"], capture_output=True, text=True).stdout.splitlines()
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "ram": ram,
        "kernel": platform.release(),
        "python": v[0],
        "duckdb": v[1],
        "polars": v[2],
        "pandas": v[3],
        "pyarrow": v[4],
        "gzip": gz[0] if gz else "?",
    }


def machine_text(mi: dict[str, str]) -> str:
    """The **Machine** line every RESULTS.md section starts with."""
    return (
        f"**Machine**: {mi['nproc']} cores ({mi['cpu']}), {mi['ram']} RAM, Linux {mi['kernel']}; "
        f"Python {mi['python']}, duckdb {mi['duckdb']}, polars {mi['polars']}, pandas {mi['pandas']}, "
        f"pyarrow {mi['pyarrow']}, {mi['gzip']}."
    )


def fmt(x: float | None, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


def write_section(path: Path, text: str, heading: str) -> None:
    """Replace the section of RESULTS.md that starts with ``heading`` (or append it); every other
    bench's section stays as it is."""
    section = re.compile(rf"^{re.escape(heading)}.*?(?=^## |\Z)", re.S | re.M)
    old = path.read_text() if path.is_file() else "# Benchmarks\n"
    text = text.rstrip() + "\n"
    if section.search(old):
        new = section.sub(lambda _m: text + "\n", old, count=1).rstrip() + "\n"
    else:
        new = old.rstrip() + "\n\n" + text
    path.write_text(new)
