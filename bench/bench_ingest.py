"""Ingest benchmark: tracewh vs naive polars vs pandas vs the gzip decompression floor.

Usage (from the project root):

    .venv/bin/python bench/bench_ingest.py [--sizes 300,600] [--out bench/work]

What it does, in one run:

1. Builds inputs in the original google2011 layout
   (``<out>/in_<size>/{task_events,job_events}/part-NNNNN-of-00500.csv.gz``) from the
   real part-00001 files. Replica k shifts every time by ``k * part_duration`` and
   every job_id by ``k * 10**10``, so no two parts are byte-identical (gzip and the
   Parquet encoders see realistic, distinct data). Parts are generated once into
   ``<out>/parts/`` and hard-linked into each ``in_<size>``; both are cached
   between runs (keyed by size and a generator version).
2. For each size, measures in fresh subprocesses, under ``/usr/bin/time`` (peak
   RSS of that process alone): the gzip floor (``gzip -dc`` of all files, two
   processes in parallel), ``tracewh ingest`` (the CLI, ``--quiet``), a naive
   polars conversion (read_csv + write_parquet per file) and a naive pandas one
   (read_csv + to_parquet per file). After every tracewh run the catalog's row
   counts are checked against the line counts taken while generating.
3. Prints a markdown table and writes ``bench/RESULTS.md``.

Only the standard library is needed in this process; polars / pandas / duckdb are
imported by the measured subprocesses (and duckdb read-only for the row check).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
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
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
TRACEWH = ROOT / ".venv" / "bin" / "tracewh"
GEN_VERSION = 1  # bump when the generated inputs change, to invalidate the cache

TABLES = ("task_events", "job_events")
SOURCE_NAME = "part-00001-of-00500.csv.gz"
SOURCE_DIRS = (
    Path("/work/shared/realdata/google2011"),
    ROOT / "data" / "sample" / "google2011",
)
# Column names as in warehouse/traces/google2011.py (duplicated so the naive
# scripts do not import tracewh code; checked against it at start-up).
COLUMNS = {
    "job_events": [
        "time",
        "missing_info",
        "job_id",
        "event_type",
        "user",
        "scheduling_class",
        "job_name",
        "logical_job_name",
    ],
    "task_events": [
        "time",
        "missing_info",
        "job_id",
        "task_index",
        "machine_id",
        "event_type",
        "user",
        "scheduling_class",
        "priority",
        "cpu_request",
        "memory_request",
        "disk_space_request",
        "different_machines_restriction",
    ],
}
MAX_TIME = 2**63 - 1
JOB_SHIFT = 10**10

# Targets from the brief.
TARGET_FLOOR_RATIO = 1.5  # tracewh wall <= 1.5 x gzip floor
TARGET_PANDAS_RATIO = 3.0  # pandas wall >= 3 x tracewh wall
# "Does not grow": peak RSS at the larger input <= 1.25 x the smaller one (inputs differ 2-8x).
# Repeated runs of the same input differ by up to ~50 MB (~20%) here, hence not tighter.
RSS_FLAT_TOLERANCE = 1.25

QUIET_BUSY_CORES = 0.5  # wait before a measurement while other processes use more than this
QUIET_WAIT_S = 60.0


# --------------------------------------------------------------------------- inputs


def find_sources() -> dict[str, Path]:
    for base in SOURCE_DIRS:
        paths = {t: base / t / SOURCE_NAME for t in TABLES}
        if all(p.is_file() for p in paths.values()):
            return paths
    raise SystemExit(f"source files not found under any of {[str(d) for d in SOURCE_DIRS]}")


def _read_lines(path: Path) -> list[bytes]:
    with gzip.open(path, "rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def part_duration(task_source: Path) -> int:
    """Span of the real part's in-window times, rounded up to a whole second (microseconds)."""
    times = [int(line.split(b",", 1)[0]) for line in _read_lines(task_source)]
    real = [t for t in times if 0 < t < MAX_TIME]
    span = max(real) - min(real) + 1
    return -(-span // 1_000_000) * 1_000_000


def _shift_time(raw: bytes, shift: int) -> bytes:
    t = int(raw)
    if t == 0 or t >= MAX_TIME:  # special values (before / after the window) stay special
        return raw
    return str(t + shift).encode()


def make_part(args: tuple[str, str, str, int, int]) -> dict:
    """Write replica k of one table's source file; return its line count and uncompressed size."""
    table, src, dst, k, duration = args
    lines = _read_lines(Path(src))
    tshift, jshift = k * duration, k * JOB_SHIFT
    out = []
    for line in lines:
        f = line.split(b",", 3)  # time, missing_info, job_id, rest
        f[0] = _shift_time(f[0], tshift)
        f[2] = str(int(f[2]) + jshift).encode()
        out.append(b",".join(f))
    data = b"\n".join(out) + b"\n"
    tmp = Path(dst + ".tmp")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    with (
        open(tmp, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as gz,
    ):
        gz.write(data)
    os.replace(tmp, dst)
    return {
        "table": table,
        "k": k,
        "lines": len(out),
        "bytes": len(data),
        "gz_bytes": Path(dst).stat().st_size,
    }


@dataclass
class Inputs:
    size_mb: int
    folder: Path
    parts: int
    files: list[Path]
    lines: dict[str, int]  # per table
    csv_bytes: int  # uncompressed, all files
    gz_bytes: int

    @property
    def rows(self) -> int:
        return sum(self.lines.values())


def build_inputs(work: Path, size_mb: int, sources: dict[str, Path]) -> Inputs:
    """in_<size>/ with enough distinct replicas to reach ~size_mb MB of uncompressed CSV (cached)."""
    folder = work / f"in_{size_mb}"
    manifest = folder / "manifest.json"
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        files = [folder / f for f in m["files"]]
        if m.get("version") == GEN_VERSION and all(f.is_file() for f in files):
            log(f"inputs {folder}: cached ({m['parts']} parts per table)")
            return Inputs(
                size_mb,
                folder,
                m["parts"],
                files,
                m["lines"],
                m["csv_bytes"],
                sum(f.stat().st_size for f in files),
            )
    parts_dir = work / "parts"
    parts_manifest = parts_dir / "manifest.json"
    cache: dict = {}
    if parts_manifest.is_file():
        pm = json.loads(parts_manifest.read_text())
        if pm.get("version") == GEN_VERSION:
            cache = pm["parts"]
    raw_per_part = sum(len(b"\n".join(_read_lines(p))) + 1 for p in sources.values())
    n = max(1, round(size_mb * 1e6 / raw_per_part))
    duration = part_duration(sources["task_events"])
    todo = []
    for k in range(n):
        for t in TABLES:
            rel = f"{t}/part-{k:05d}-of-00500.csv.gz"
            if rel not in cache or not (parts_dir / rel).is_file():
                todo.append((t, str(sources[t]), str(parts_dir / rel), k, duration))
    if todo:
        log(
            f"generating {len(todo)} distinct part files into {parts_dir} "
            f"(time shift {duration} us per part, job_id shift {JOB_SHIFT:.0e})"
        )
        t0 = time.perf_counter()
        with ProcessPoolExecutor(os.cpu_count() or 1) as ex:
            for r in ex.map(make_part, todo):
                cache[f"{r['table']}/part-{r['k']:05d}-of-00500.csv.gz"] = r
        parts_manifest.write_text(json.dumps({"version": GEN_VERSION, "parts": cache}, indent=0))
        log(f"generated in {time.perf_counter() - t0:.1f} s")
    shutil.rmtree(folder, ignore_errors=True)
    files, lines, csv_bytes = [], dict.fromkeys(TABLES, 0), 0
    for t in TABLES:
        (folder / t).mkdir(parents=True)
        for k in range(n):
            rel = f"{t}/part-{k:05d}-of-00500.csv.gz"
            dst = folder / rel
            try:
                os.link(parts_dir / rel, dst)
            except OSError:
                shutil.copy2(parts_dir / rel, dst)
            files.append(dst)
            lines[t] += cache[rel]["lines"]
            csv_bytes += cache[rel]["bytes"]
    manifest.write_text(
        json.dumps(
            {
                "version": GEN_VERSION,
                "parts": n,
                "files": [str(f.relative_to(folder)) for f in files],
                "lines": lines,
                "csv_bytes": csv_bytes,
            },
            indent=1,
        )
    )
    return Inputs(size_mb, folder, n, files, lines, csv_bytes, sum(f.stat().st_size for f in files))


# --------------------------------------------------------------------------- measuring


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


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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

# Fallback when /usr/bin/time is missing: a fresh wrapper process whose
# RUSAGE_CHILDREN covers only the measured command.
WRAPPER = r"""
import json, resource, subprocess, sys
r = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL if sys.argv[1] == "1" else None)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write("\n@@RUSAGE " + json.dumps([u.ru_maxrss, u.ru_utime + u.ru_stime]) + "\n")
sys.exit(r.returncode)
"""


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
            full = [sys.executable, "-c", WRAPPER, "1" if stdout_devnull else "0", *cmd]
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


def run_gzip_floor(inp: Inputs) -> Run:
    # Two halves balanced by compressed size (largest first into the lighter half).
    halves: list[list[str]] = [[], []]
    weight = [0, 0]
    for f in sorted(inp.files, key=lambda p: p.stat().st_size, reverse=True):
        i = 0 if weight[0] <= weight[1] else 1
        halves[i].append(str(f))
        weight[i] += f.stat().st_size
    script = 'for f; do gzip -dc "$f"; done > /dev/null'
    # One shell launching both halves, so both run under one timer; peak RSS is irrelevant here.
    cmd = [
        "sh",
        "-c",
        f"sh -c '{script}' sh \"$@\" & P=$!; "
        f"sh -c '{script}' sh {' '.join(shlex.quote(f) for f in halves[1])}; "
        "wait $P",
        "sh",
        *halves[0],
    ]
    run, _, _ = measure("gzip -dc floor (2 procs)", cmd)
    run.rss_mb = None
    return run


def check_catalog(home: Path, inp: Inputs) -> tuple[bool, str, dict]:
    """Compare meta.tables / meta.ingests with the generated line counts."""
    code = r"""
import duckdb, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
tables = dict(con.execute("SELECT table_name, rows FROM meta.tables WHERE trace = 'google2011'").fetchall())
ing = con.execute(
    "SELECT table_name, count(*), sum(rows_read), sum(rows_written), sum(rows_rejected), "
    "epoch(max(finished) - min(started)), sum(epoch(finished - started)) "
    "FROM meta.ingests WHERE trace = 'google2011' AND is_current GROUP BY ALL").fetchall()
files = con.execute("SELECT table_name, files, partitions, bytes FROM meta.tables "
                    "WHERE trace = 'google2011'").fetchall()
span = con.execute("SELECT epoch(max(finished) - min(started)) FROM meta.ingests "
                   "WHERE trace = 'google2011' AND is_current").fetchone()[0]
print(json.dumps({"tables": tables, "ingests": ing, "files": files, "span": span}))
"""
    p = subprocess.run(
        [str(VENV_PY), "-c", code, str(home / "tracewh.duckdb")], capture_output=True, text=True
    )
    if p.returncode != 0:
        return False, f"could not read the catalog: {p.stderr.strip().splitlines()[-1:]}", {}
    info = json.loads(p.stdout)
    problems = []
    for t in TABLES:
        got = info["tables"].get(t)
        if got != inp.lines[t]:
            problems.append(f"{t}: catalog rows {got} != input lines {inp.lines[t]}")
    for t, _nfiles, read, written, rejected, _, _ in info["ingests"]:
        if read != inp.lines.get(t) or rejected:
            problems.append(
                f"{t}: rows_read {read}, written {written}, rejected {rejected} "
                f"(input lines {inp.lines.get(t)})"
            )
    return not problems, "; ".join(problems), info


def run_tracewh(inp: Inputs, work: Path) -> Run:
    home = work / f"home_{inp.size_mb}"
    shutil.rmtree(home, ignore_errors=True)
    cmd = [str(TRACEWH), "--home", str(home), "ingest", "google2011", str(inp.folder), "--quiet"]
    run, _, err = measure("tracewh ingest", cmd)
    if run.ok:
        ok, why, info = check_catalog(home, inp)
        run.extra = info
        if ok:
            log(f"row check OK: catalog rows {info['tables']} == input lines {inp.lines}")
        else:
            run.ok = False
            run.note = "ROW COUNT MISMATCH: " + why
            bar = "!" * 78
            print(
                f"\n{bar}\n!!! ROW COUNT MISMATCH after tracewh ingest ({inp.size_mb} MB): {why}\n{bar}\n",
                file=sys.stderr,
                flush=True,
            )
        run.out_mb = dir_mb(home / "parquet")
    else:
        print(err, file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    return run


NAIVE = {
    "polars": r"""
import json, sys
from pathlib import Path
import polars as pl
job = json.loads(Path(sys.argv[1]).read_text())
rows = 0
for table, f in job["files"]:
    df = pl.read_csv(f, has_header=False, new_columns=job["columns"][table])
    out = Path(job["out"]) / table
    out.mkdir(parents=True, exist_ok=True)
    df.write_parquet(out / (Path(f).name.split(".")[0] + ".parquet"))
    rows += df.height
print(rows)
""",
    "pandas": r"""
import json, sys
from pathlib import Path
import pandas as pd
job = json.loads(Path(sys.argv[1]).read_text())
rows = 0
for table, f in job["files"]:
    df = pd.read_csv(f, header=None, names=job["columns"][table])
    out = Path(job["out"]) / table
    out.mkdir(parents=True, exist_ok=True)
    df.to_parquet(out / (Path(f).name.split(".")[0] + ".parquet"), engine="pyarrow")
    rows += len(df)
print(rows)
""",
}


def run_naive(kind: str, inp: Inputs, work: Path) -> Run:
    out = work / f"out_{kind}_{inp.size_mb}"
    shutil.rmtree(out, ignore_errors=True)
    job = work / f"job_{kind}_{inp.size_mb}.json"
    files = [[f.parent.name, str(f)] for f in inp.files]
    job.write_text(json.dumps({"out": str(out), "files": files, "columns": COLUMNS}))
    label = {"polars": "naive polars", "pandas": "pandas"}[kind]
    run, stdout, err = measure(label, [str(VENV_PY), "-c", NAIVE[kind], str(job)])
    if run.ok:
        rows = int(stdout.strip().splitlines()[-1])
        if rows != inp.rows:
            run.note = f"read {rows} rows, input has {inp.rows}"
            log(f"{label}: {run.note}")
        run.out_mb = dir_mb(out)
    else:
        print(err[-2000:], file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)
    job.unlink(missing_ok=True)
    return run


NOISY_CORES = 0.3  # a run during which other processes used more than this is "noisy"


# Instrumented in-process ingest: the same library call the CLI makes, with
# timing wrappers around the engine's phases (looked up at run time; a phase
# whose function was renamed is simply not reported). Peak RSS is read before
# and after the table-stats query to show what that query adds.
PHASES = r"""
import json, resource, sys, time
t_start = time.perf_counter()
sys.path.insert(0, sys.argv[3])
from pathlib import Path
import warehouse.ingest as ing
from warehouse.home import Home
out = {"import_s": time.perf_counter() - t_start, "stats": {}}
marks = {}
def maxrss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
class P(ing.Progress):
    def begin(self, files, total_bytes):
        marks["begin"] = time.perf_counter()
    def file_done(self, r):
        marks["last_file"] = time.perf_counter()
def wrap(name, key):
    fn = getattr(ing, name, None)
    if fn is None:
        return
    def w(*a, **k):
        r0, t = maxrss(), time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            if key == "stats":
                out["stats"][a[1].name] = time.perf_counter() - t
                out.setdefault("rss_before_stats", r0)
                out["rss_after_stats"] = maxrss()
            else:
                out[key] = time.perf_counter() - t
    setattr(ing, name, w)
wrap("_hash_all", "hash_s")
wrap("_table_stats", "stats")
wrap("_commit", "commit_s")
t0 = time.perf_counter()
ing.ingest(Home.resolve(sys.argv[1]), "google2011", Path(sys.argv[2]), progress=P())
out["ingest_s"] = time.perf_counter() - t0
if "begin" in marks and "last_file" in marks:
    out["convert_s"] = marks["last_file"] - marks["begin"]
out["rss_peak"] = maxrss()
print(json.dumps(out))
"""


def run_phases(inp: Inputs, work: Path) -> Run:
    home = work / f"home_{inp.size_mb}_phases"
    shutil.rmtree(home, ignore_errors=True)
    run, stdout, err = measure(
        "tracewh phases (instrumented library call)",
        [str(VENV_PY), "-c", PHASES, str(home), str(inp.folder), str(ROOT)],
    )
    if run.ok:
        try:
            run.extra = json.loads(stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            run.note = "no phase data"
    else:
        print(err[-2000:], file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    return run


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


# --------------------------------------------------------------------------- reporting


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


def fmt(x: float | None, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


def results_table(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> str:
    head = (
        "| input | tool | wall s | rows/s | MB/s (uncompr.) | peak RSS MB | x gzip floor "
        "| x tracewh | Parquet MB | load1 / busy before / others during |"
    )
    lines = [head, "|---|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    for inp in sizes:
        rs = results[inp.size_mb]
        floor, tw = rs.get("gzip"), rs.get("tracewh")
        for key in ("gzip", "tracewh", "polars", "pandas"):
            r = rs.get(key)
            label = f"{inp.csv_bytes / 1e6:.0f} MB, {inp.rows / 1e6:.2f} M rows, {len(inp.files)} files"
            if r is None:
                continue
            walls = r.extra.get("all_walls")
            wall = f"{r.wall:.2f}" + (f" (best of {walls})" if walls else "")
            flag = "" if r.ok else " **FAILED**"
            lines.append(
                f"| {label} | {r.tool}{flag} | {wall} | {inp.rows / r.wall:,.0f} | "
                f"{inp.csv_bytes / 1e6 / r.wall:.0f} | {fmt(r.rss_mb, '.0f')} | "
                f"{fmt(r.wall / floor.wall if floor else None, '.2f')} | "
                f"{fmt(r.wall / tw.wall if tw else None, '.2f')} | {fmt(r.out_mb, '.1f')} | "
                f"{r.load1:.2f} / {r.busy_cores:.2f} / {r.others:.2f} |"
            )
    return "\n".join(lines)


def verdict(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    out = []

    def mark(ok: bool) -> str:
        return "**met**" if ok else "**NOT met**"

    for inp in sizes:
        rs = results[inp.size_mb]
        tw, fl, pl_, pd_ = (rs.get(k) for k in ("tracewh", "gzip", "polars", "pandas"))
        tag = f"{inp.csv_bytes / 1e6:.0f} MB"
        if tw and fl:
            ratio = tw.wall / fl.wall
            out.append(
                f"- {tag}: tracewh at most {TARGET_FLOOR_RATIO}x the decompression floor: "
                f"{mark(ratio <= TARGET_FLOOR_RATIO)} (tracewh {tw.wall:.2f} s, floor "
                f"{fl.wall:.2f} s: {ratio:.2f}x)"
            )
        if tw and pl_:
            out.append(
                f"- {tag}: tracewh faster than naive polars: {mark(tw.wall < pl_.wall)} "
                f"(tracewh {tw.wall:.2f} s, polars {pl_.wall:.2f} s: polars takes "
                f"{pl_.wall / tw.wall:.2f}x tracewh's time)"
            )
        if tw and pd_:
            out.append(
                f"- {tag}: tracewh at least {TARGET_PANDAS_RATIO:.0f}x faster than pandas: "
                f"{mark(pd_.wall / tw.wall >= TARGET_PANDAS_RATIO)} (pandas {pd_.wall:.2f} s, "
                f"tracewh {tw.wall:.2f} s: pandas takes {pd_.wall / tw.wall:.2f}x tracewh's time)"
            )
    tws: list[tuple[Inputs, Run, float]] = []
    for inp in sizes:
        r = results[inp.size_mb].get("tracewh")
        if r is not None and r.rss_mb:
            tws.append((inp, r, r.rss_mb))
    for (i0, r0, m0), (i1, r1, m1) in itertools.pairwise(tws):
        g = m1 / m0
        out.append(
            f"- peak RSS of tracewh does not grow with the input "
            f"({i0.csv_bytes / 1e6:.0f} -> {i1.csv_bytes / 1e6:.0f} MB): "
            f"{mark(g <= RSS_FLAT_TOLERANCE)} ({m0:.0f} MB -> {m1:.0f} MB, "
            f"x{g:.2f} for x{i1.csv_bytes / i0.csv_bytes:.2f} input; runs: "
            f"{r0.extra.get('all_rss', [round(m0)])} -> "
            f"{r1.extra.get('all_rss', [round(m1)])}; 'flat' = at most "
            f"x{RSS_FLAT_TOLERANCE})"
        )
    bad = [(i.size_mb, r.note) for i in sizes for r in results[i.size_mb].values() if not r.ok]
    if bad:
        out.append(f"- FAILURES: {bad}")
    else:
        out.append(
            "- row counts: the catalog of every tracewh run holds exactly the input's lines "
            "(per table; 0 rejects)"
        )
    return out


def cpu_efficiency(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    """MB of CSV per CPU-second: how much work each tool spends, independent of parallelism."""
    out = []
    for inp in sizes:
        parts = []
        for key in ("gzip", "tracewh", "polars", "pandas"):
            r = results[inp.size_mb].get(key)
            if r and r.cpu_s:
                parts.append(
                    f"{r.tool} {inp.csv_bytes / 1e6 / r.cpu_s:.0f} MB/CPU-s "
                    f"({r.cpu_s:.1f} CPU-s, {r.cpu_s / r.wall:.2f} cores)"
                )
        if parts:
            out.append(f"- {inp.csv_bytes / 1e6:.0f} MB: " + "; ".join(parts))
    return out


def phases_table(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    rows = []
    for inp in sizes:
        r = results[inp.size_mb].get("phases")
        if not r or not r.ok or "ingest_s" not in r.extra:
            continue
        x = r.extra
        stats = sum(x["stats"].values())
        known = x.get("hash_s", 0) + x.get("convert_s", 0) + stats + x.get("commit_s", 0)
        te = x["stats"].get("task_events")
        rows.append(
            f"| {inp.csv_bytes / 1e6:.0f} MB | {r.wall:.2f} | {x['import_s']:.2f} | "
            f"{fmt(x.get('hash_s'), '.2f')} | {fmt(x.get('convert_s'), '.2f')} | {stats:.2f}"
            f"{f' ({te:.2f} task_events)' if te is not None else ''} | "
            f"{fmt(x.get('commit_s'), '.2f')} | {x['ingest_s'] - known:.2f} | "
            f"{fmt(x.get('rss_before_stats'), '.0f')} -> {fmt(x.get('rss_after_stats'), '.0f')} | "
            f"{r.others:.2f} |"
        )
    if not rows:
        return []
    return [
        "",
        "Instrumented run (a separate `warehouse.ingest.ingest` call in a fresh process, "
        "timing wrappers around the engine's phases; seconds):",
        "",
        "| input | wall | python + imports | sha256 | convert (all COPYs) | table stats "
        "| catalog commit | rest | peak RSS MB before -> after stats | other procs (cores) |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        *rows,
    ]


def tracewh_breakdown(sizes: list[Inputs], results: dict[int, dict[str, Run]]) -> list[str]:
    """Where tracewh's wall time goes, from meta.ingests (per-file started/finished)."""
    out = []
    for inp in sizes:
        tw = results[inp.size_mb].get("tracewh")
        if not tw or not tw.extra.get("ingests"):
            continue
        ing = tw.extra["ingests"]
        busy = sum(row[6] for row in ing)  # summed per-file COPY time
        conv_span = tw.extra["span"]  # first file started .. last file finished
        nfiles = sum(row[1] for row in ing)
        files = {t: (f, p, b) for t, f, p, b in tw.extra.get("files", [])}
        te = files.get("task_events")
        out.append(
            f"- {inp.csv_bytes / 1e6:.0f} MB: wall {tw.wall:.2f} s, CPU {fmt(tw.cpu_s, '.1f')} s "
            f"({fmt((tw.cpu_s or 0) / tw.wall, '.2f')} cores busy on average). File conversions "
            f"(COPY) span {conv_span:.2f} s in meta.ingests, {busy:.2f} s summed over {nfiles} "
            f"files ({busy / nfiles * 1000:.0f} ms per file, {inp.csv_bytes / 1e6 / busy:.0f} MB/s "
            f"per worker); the remaining {tw.wall - conv_span:.2f} s is start-up, hashing, "
            f"table stats and the catalog commit."
            + (
                f" task_events Parquet: {te[0]} files in {te[1]} day partitions, "
                f"{te[2] / 1e6:.1f} MB ({te[2] / te[0] / 1e6:.2f} MB per file)."
                if te
                else ""
            )
        )
    return out


def sources_ratio() -> float:
    src = find_sources()
    raw = sum(len(b"\n".join(_read_lines(p))) + 1 for p in src.values())
    return raw / sum(p.stat().st_size for p in src.values())


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


def write_results(
    path: Path,
    command: str,
    mi: dict,
    sizes: list[Inputs],
    results: dict[int, dict[str, Run]],
    table: str,
    started: float,
    notes: list[str],
) -> None:
    reps = (
        "best of 2"
        if any("all_walls" in r.extra for rs in results.values() for r in rs.values())
        else "one run"
    )
    orig = sources_ratio()
    ratio_txt = ", ".join(f"{i.csv_bytes / i.gz_bytes:.1f}x at {i.csv_bytes / 1e6:.0f} MB" for i in sizes)
    ratio_txt = f"CSV/gz ratio {ratio_txt}; the original pair compresses {orig:.1f}x"
    text = f"""## Ingest: google2011 task_events + job_events

Measured {time.strftime("%Y-%m-%d %H:%M %Z")} by `bench/bench_ingest.py` (whole run
{time.perf_counter() - started:.0f} s).

**Machine**: {mi["nproc"]} cores ({mi["cpu"]}), {mi["ram"]} RAM, Linux {mi["kernel"]};
Python {mi["python"]}, duckdb {mi["duckdb"]}, polars {mi["polars"]}, pandas {mi["pandas"]},
pyarrow {mi["pyarrow"]}, {mi["gzip"]}.

**Command**: `{command}`

**Inputs**: the real `part-00001-of-00500.csv.gz` of google2011 `task_events` (77,776 rows,
8.65 MB of CSV) and `job_events` (3,099 rows), replicated into the original layout
(`in_<size>/<table>/part-NNNNN-of-00500.csv.gz`). Replica k adds k x (one part's time span)
to `time` and k x 10^10 to `job_id`, so every part is distinct (recompressed with gzip
level 6: {ratio_txt}). Inputs sit in the page cache (they were just written or read), so
every tool reads from memory, not disk.

**What runs** (each in a fresh subprocess; wall time by the parent, peak RSS and CPU
time from {"`/usr/bin/time`" if GNU_TIME else "`getrusage(RUSAGE_CHILDREN)` in a wrapper"}):
- *gzip -dc floor*: `gzip -dc` of every file to /dev/null, files split into two halves
  (balanced by size), one `sh -c 'for f; do gzip -dc "$f"; done > /dev/null'` per half,
  both in parallel. No parsing, no writing: the floor for any 2-core reader of these files.
- *tracewh ingest*: `.venv/bin/tracewh --home <tmp> ingest google2011 <in_dir> --quiet`
  (fresh home each time: sha256 of every file, one DuckDB COPY per file on 2 worker
  threads, task_events partitioned by day, table stats, catalog commit). After each
  run the catalog's rows per table are compared with the line counts of the inputs.
- *naive polars*: per file, sequentially, `pl.read_csv(f, has_header=False,
  new_columns=...)` then `df.write_parquet(...)` (zstd, polars' default); polars uses
  all cores inside each call. One Parquet per file, no partitioning, inferred types.
- *pandas*: per file `pd.read_csv(f, header=None, names=...)` then
  `df.to_parquet(..., engine="pyarrow")` (snappy, pandas' default).
- Timings: {reps} for gzip, tracewh and polars (all walls shown), one run for pandas.
  Before each measurement the bench waits (up to {QUIET_WAIT_S:.0f} s) until the machine is
  quiet (< {QUIET_BUSY_CORES} cores busy over a 1 s sample). The last column shows the
  1-minute load average and the busy cores (1 s sample) before the run, and the cores
  used by other processes (incl. hypervisor steal) during it: /proc/stat busy time minus
  the measured process tree's CPU time. The load average includes the tail of the
  bench's own previous measurement, so ~1-2 with ~0 busy cores is not contention.
- The instrumented tracewh run (phase table at the end) is an extra, separate run.

{table}

"x gzip floor" = wall / gzip floor wall of the same input; "x tracewh" = wall / tracewh
wall. rows/s and MB/s count all rows and uncompressed CSV bytes of the input.

### Verdict against the targets

{chr(10).join(verdict(sizes, results))}

### CPU spent per MB of CSV (fastest run; CPU time = user + system of the process tree)

{chr(10).join(cpu_efficiency(sizes, results))}

### Where tracewh's time goes

From the catalog of the timed CLI run (meta.ingests started/finished per file):

{chr(10).join(tracewh_breakdown(sizes, results))}
{chr(10).join(phases_table(sizes, results))}
{chr(10).join(notes)}
"""
    write_section(path, text, "## Ingest: google2011")


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        default="300,600",
        help="input sizes in MB of uncompressed CSV, comma-separated (default 300,600)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench" / "work",
        help="work folder: generated inputs (cached), temporary homes and outputs",
    )
    ap.add_argument(
        "--results",
        type=Path,
        default=ROOT / "bench" / "RESULTS.md",
        help="markdown file to write (default bench/RESULTS.md)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="runs of gzip, tracewh and polars per size, best kept (default 2)",
    )
    ap.add_argument(
        "--pandas-max-mb",
        type=int,
        default=10**9,
        help="run pandas only for sizes up to this many MB (default: all)",
    )
    ap.add_argument(
        "--no-phases", action="store_true", help="skip the extra instrumented tracewh run (phase breakdown)"
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()
    command = ".venv/bin/python bench/bench_ingest.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    sizes_mb = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    _check_columns()

    sources = find_sources()
    log(f"sources: {sources['task_events'].parent.parent}")
    inputs = [build_inputs(work, s, sources) for s in sizes_mb]
    for inp in inputs:
        log(
            f"in_{inp.size_mb}: {len(inp.files)} files, {inp.rows:,} rows "
            f"({inp.lines}), {inp.csv_bytes / 1e6:.1f} MB CSV, {inp.gz_bytes / 1e6:.1f} MB gz"
        )
    # Warm the page cache so the first tool does not pay for disk reads the others skip.
    for inp in inputs:
        for f in inp.files:
            f.read_bytes()

    mi = machine_info()
    results: dict[int, dict[str, Run]] = {}
    for inp in inputs:
        rs: dict[str, Run] = {}
        rs["gzip"] = best_of(partial(run_gzip_floor, inp), args.repeat)
        rs["tracewh"] = best_of(partial(run_tracewh, inp, work), args.repeat)
        rs["polars"] = best_of(partial(run_naive, "polars", inp, work), args.repeat)
        if inp.size_mb <= args.pandas_max_mb:
            rs["pandas"] = run_naive("pandas", inp, work)
        if not args.no_phases:
            rs["phases"] = run_phases(inp, work)
        results[inp.size_mb] = rs

    table = results_table(inputs, results)
    print("\n" + table + "\n")
    for line in verdict(inputs, results):
        print(line)
    for line in tracewh_breakdown(inputs, results) + phases_table(inputs, results):
        print(line)
    notes = []
    if any(inp.size_mb > args.pandas_max_mb for inp in inputs):
        notes.append(f"\npandas was run only on inputs up to {args.pandas_max_mb} MB.")
    write_results(args.results, command, mi, inputs, results, table, started, notes)
    raw = {
        str(i.size_mb): {
            "csv_bytes": i.csv_bytes,
            "gz_bytes": i.gz_bytes,
            "rows": i.rows,
            "runs": {k: asdict(r) for k, r in results[i.size_mb].items()},
        }
        for i in inputs
    }
    (work / "results.json").write_text(json.dumps(raw, indent=1, default=str))
    log(f"wrote {args.results} (whole run {time.perf_counter() - started:.0f} s)")
    failed = any(not r.ok for rs in results.values() for r in rs.values())
    return 1 if failed else 0


def _check_columns() -> None:
    """The duplicated column lists must match the trace module (read-only import)."""
    try:
        sys.path.insert(0, str(ROOT))
        from warehouse.traces import google2011
    except Exception as e:  # the bench still runs if the package is broken mid-edit
        log(f"warning: cannot import warehouse.traces.google2011 to check columns: {e}")
        return
    finally:
        sys.path.pop(0)
    for t in TABLES:
        if google2011.TABLES[t].column_names != COLUMNS[t]:
            raise SystemExit(f"bench COLUMNS[{t!r}] differ from warehouse/traces/google2011.py")


if __name__ == "__main__":
    sys.exit(main())
