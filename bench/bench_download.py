"""Download throughput on loopback: `tracewh download` (transfer + sha256 + rename) vs curl + sha256sum.

A local `python -m http.server` (a separate process) serves N random files in the google2011
bucket layout with their SHA256SUM. Each tool fetches the same files into a fresh folder:

- baseline: `curl` per file (4 at a time with xargs -P, or 1), then `sha256sum -c` of all of
  them: the same work (fetch + verify) with C tools;
- tracewh: `tracewh download google2011 OUT --mirror URL --tables task_usage --jobs J --quiet`.

Wall time is best of 2. Random bytes: nothing compresses, nothing is cached by the server.
Run: .venv/bin/python -m bench.bench_download [--files 8] [--mib 32]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def best_of(n: int, fn) -> list[float]:
    walls = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
    return walls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--mib", type=int, default=32)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-download-"))
    root = work / "srv"
    bucket = root / "clusterdata-2011-2"
    names = [f"task_usage/part-{i:05d}-of-00500.csv.gz" for i in range(args.files)]
    for name in names:
        (bucket / name).parent.mkdir(parents=True, exist_ok=True)
        (bucket / name).write_bytes(os.urandom(args.mib << 20))
    sums = subprocess.run(["sha256sum", *names], cwd=bucket, capture_output=True, text=True, check=True)
    (bucket / "SHA256SUM").write_text(sums.stdout)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    time.sleep(1.0)
    total_mib = args.files * args.mib
    rows = []
    try:
        for jobs in (1, 4):

            def curl(jobs: int = jobs) -> None:
                out = work / "curl"
                shutil.rmtree(out, ignore_errors=True)
                (out / "task_usage").mkdir(parents=True)
                listing = "\n".join(f"{url}/clusterdata-2011-2/{n} {n}" for n in names)
                subprocess.run(
                    ["xargs", "-P", str(jobs), "-n", "2", "sh", "-c", 'curl -sf -o "$2" "$1"', "sh"],
                    input=listing, text=True, cwd=out, check=True,
                )  # fmt: skip
                subprocess.run(["sha256sum", "--quiet", "-c", str(bucket / "SHA256SUM")], cwd=out, check=True)

            def tracewh(jobs: int = jobs) -> None:
                out = work / "tracewh"
                shutil.rmtree(out, ignore_errors=True)
                subprocess.run(
                    [str(BIN / "tracewh"), "download", "google2011", str(out), "--mirror", url,
                     "--tables", "task_usage", "--jobs", str(jobs), "--quiet"],
                    check=True,
                )  # fmt: skip

            for label, fn in (("curl + sha256sum", curl), ("tracewh download", tracewh)):
                walls = best_of(2, fn)
                rows.append((label, jobs, min(walls), walls))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}")
    print(f"inputs: {args.files} files x {args.mib} MiB = {total_mib} MiB random bytes, loopback")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| tool | jobs | best wall s | MiB/s | walls |")
    print("|---|---|---|---|---|")
    for label, jobs, best, walls in rows:
        shown = ", ".join(f"{w:.2f}" for w in walls)
        print(f"| {label} | {jobs} | {best:.2f} | {total_mib / best:.0f} | {shown} |")


if __name__ == "__main__":
    main()
