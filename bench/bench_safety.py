"""What the data-safety work costs: the ingest before and after it, and the gzip CRC check alone.

Usage (from the project root):

    .venv/bin/python -m bench.bench_safety [--baseline 56b7ba5] [--replicas 40] [--runs 3]

1. Inputs: the bundled google2011 sample, and ``--replicas`` copies of the real
   ``part-00001-of-00500.csv.gz`` of task_events and job_events (../shared/realdata)
   named as parts 0..N-1 of the original layout.
2. ``tracewh ingest google2011 <input> -q`` into a fresh home, best of ``--runs``, for the
   baseline commit (``git archive`` of it, run by the same interpreter) and for the working
   tree, alternating, so both see the same machine load.
3. The one pass over each file before conversion, single-threaded over the replicas:
   sha256 only (the baseline), sha256 + the gzip CRC/length check (``readers.GzipCheck``, zlib;
   what the hash pass did before the check moved into the stream to DuckDB),
   and for scale DuckDB's own read of the same gzip files (``count(*)`` of ``read_csv``).
4. Writes its section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import ROOT, write_section
from tracewh import ingestion as ingest
from tracewh.ingestion import readers

REAL = ROOT.parent / "shared" / "realdata" / "google2011"
HEADING = "## Ingest: the cost of the data-safety checks"


def build_inputs(work: Path, replicas: int) -> Path:
    src = work / f"real{replicas}"
    for table in ("task_events", "job_events"):
        (src / table).mkdir(parents=True, exist_ok=True)
        for k in range(replicas):
            dst = src / table / f"part-{k:05d}-of-00500.csv.gz"
            if not dst.exists():
                shutil.copy(REAL / table / "part-00001-of-00500.csv.gz", dst)
    return src


def import_root(code: Path, work: Path) -> tuple[Path, str]:
    """The folder a checkout imports from and the statement that runs its command line. Before
    issue 14 the checkout's own folder held the top-level packages `warehouse` and `cli`; since,
    the one import name `tracewh` is mapped onto warehouse/ (pyproject.toml), so a tree of links
    tracewh/ (warehouse/'s entries + cli, sql, data) stands in for the installed package."""
    if "tracewh.cli.main:main" not in (code / "pyproject.toml").read_text():
        return code, "from cli.main import main; main()"
    tree = work / f"imports-{code.name}" / "tracewh"
    if not tree.exists():
        tree.mkdir(parents=True)
        for entry in [*(code / "warehouse").iterdir(), code / "cli", code / "sql", code / "data"]:
            (tree / entry.name).symlink_to(entry)
    return tree.parent, "from tracewh.cli.main import main; main()"


def time_ingest(code: Path, source: Path, work: Path) -> float:
    home = Path(tempfile.mkdtemp(dir=work))
    path, run_cli = import_root(code, work)
    env = {**os.environ, "PYTHONPATH": str(path)}
    started = time.perf_counter()
    cmd = [
        run_cli,
        "--home",
        str(home),
        "ingest",
        "google2011",
        str(source),
        "-q",
    ]
    subprocess.run([sys.executable, "-c", *cmd], env=env, check=True, cwd=work)
    took = time.perf_counter() - started
    shutil.rmtree(home)
    return took


def pass_costs(files: list[Path]) -> dict[str, float]:
    import duckdb

    def sha_only() -> None:
        for f in files:
            h = hashlib.sha256()
            with open(f, "rb") as fh:
                while chunk := fh.read(ingest.READ_CHUNK):
                    h.update(chunk)

    def sha_and_crc() -> None:
        for f in files:
            h, gz = hashlib.sha256(), readers.GzipCheck()
            with open(f, "rb") as fh:
                while chunk := fh.read(ingest.READ_CHUNK):
                    h.update(chunk)
                    for _ in gz.inflate(chunk):
                        pass
            gz.finish()
            assert gz.damage is None

    def duckdb_read() -> None:
        con = duckdb.connect(config={"threads": 1})
        for f in files:
            con.execute(
                f"SELECT count(*) FROM read_csv('{f}', header = false, all_varchar = true, "
                "delim = ',', quote = '', escape = '', new_line = '\\n', auto_detect = false, "
                "columns = {'a': 'VARCHAR'}, null_padding = true, ignore_errors = true)"
            ).fetchall()
        con.close()

    out = {}
    for name, fn in (
        ("sha256 only", sha_only),
        ("sha256 + gzip CRC check", sha_and_crc),
        ("DuckDB gzip read", duckdb_read),
    ):
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        out[name] = best
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="56b7ba5", help="commit before the safety work")
    ap.add_argument("--replicas", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tracewh-bench-safety-"))
    try:
        base = work / "baseline"
        base.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        real = build_inputs(work, args.replicas)
        sample = ROOT / "data" / "sample" / "google2011"
        inputs = {"bundled sample (google2011)": sample, f"{args.replicas} x real part pair": real}
        walls: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for label, source in inputs.items():
                for code_label, code in (("baseline", base), ("now", ROOT)):
                    walls.setdefault((label, code_label), []).append(time_ingest(code, source, work))
        files = sorted(real.rglob("*.csv.gz"))
        mb = sum(f.stat().st_size for f in files) / 1e6
        costs = pass_costs(files)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [
        HEADING,
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/bench_safety.py`.",
        "",
        f"**Machine**: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}.",
        "The machine is shared with other work: compare the two columns of one row (measured",
        "alternately), not rows of different runs.",
        "",
        f"**Command**: `.venv/bin/python -m bench.bench_safety --baseline {args.baseline} "
        f"--replicas {args.replicas} --runs {args.runs}`",
        "",
        "| input | baseline wall s (best of runs) | now wall s | now / baseline |",
        "|---|--:|--:|--:|",
    ]
    for label in inputs:
        b, n = min(walls[(label, "baseline")]), min(walls[(label, "now")])
        lines.append(
            f"| {label} | {b:.2f} {sorted(round(x, 2) for x in walls[(label, 'baseline')])} | "
            f"{n:.2f} {sorted(round(x, 2) for x in walls[(label, 'now')])} | {n / b:.2f} |"
        )
    lines += [
        "",
        f"One pass over the {len(files)} gzip files ({mb:.1f} MB compressed), one thread, best of 3:",
        "",
        "| pass | s | MB/s (compressed) |",
        "|---|--:|--:|",
    ]
    for name, s in costs.items():
        lines.append(f"| {name} | {s:.3f} | {mb / s:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    write_section(args.results, text, HEADING)


if __name__ == "__main__":
    main()
