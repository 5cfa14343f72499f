"""Generation benchmark: ``tracewh synth`` rows/s and MB/s against ``gzip -1`` / ``gzip -6`` of its output.

Usage (from the project root):

    .venv/bin/python -m bench.bench_synth [--g2011 0.01] [--g2019 0.0005] [--ali 0.0005] [--out bench/work]

For each trace, in fresh subprocesses (harness.measure: wall, peak RSS, CPU): ``tracewh synth``
(gzip level 6 as the originals, one worker per core) into a new folder; then the same output,
decompressed once to a single raw file, compressed by ``gzip -1 -c`` and ``gzip -6 -c`` (one
process each, to /dev/null): the bar is "at least as fast as gzip can compress its output".
Memory: google2011 task_events at the scale and at 4x the scale (peak RSS must not grow).
Writes the ``## Synth: generation speed`` section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench import harness as h

SECTION = "## Synth: generation speed"
WORKERS = os.cpu_count() or 1  # tracewh synth's default
HEAD = (
    "| trace | generated | rows | MB | synth wall s | rows/s | MB/s | peak RSS MB | CPU s "
    "| gzip -1 wall / CPU s | gzip -6 wall / CPU s | others |"
)
CASES = {  # trace -> (extra synth arguments, what is generated)
    "google2011": (["--tables", "task_events,job_events"], "task_events + job_events"),
    "google2019": (
        ["--tables", "instance_events,collection_events", "--cells", "a"],
        "cell a: instance_events + collection_events",
    ),
    "alibaba2018": (
        ["--tables", "batch_task,batch_instance", "--form", "csv.gz"],
        "batch_task + batch_instance (csv.gz)",
    ),
}


def synth_run(trace: str, scale: float, out: Path, extra: list[str]) -> tuple[h.Run, dict]:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [str(h.TRACEWH), "synth", trace, str(out), "--scale", str(scale), "--quiet", *extra]
    run, _, err = h.measure(f"tracewh synth {trace}", cmd)
    if not run.ok:
        print(err[-2000:], file=sys.stderr)
        return run, {}
    return run, json.loads((out / "manifest.json").read_text())


def gzip_runs(out: Path, m: dict, work: Path) -> dict[str, h.Run]:
    raw = work / "synth_raw.bin"
    with open(raw, "wb") as fh:
        for rel in m["files"]:
            subprocess.run(["gzip", "-dc", str(out / rel)], stdout=fh, check=True)
    runs = {}
    for level in (1, 6):
        runs[f"gzip -{level}"], _, _ = h.measure(
            f"gzip -{level}", ["gzip", f"-{level}", "-c", str(raw)], stdout_devnull=True
        )
    raw.unlink()
    return runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--g2011", type=float, default=0.01, help="google2011 scale (default 0.01: 5 parts)")
    ap.add_argument("--g2019", type=float, default=0.0005, help="google2019 scale (default 0.0005)")
    ap.add_argument("--ali", type=float, default=0.0005, help="alibaba2018 scale (default 0.0005)")
    ap.add_argument("--out", type=Path, default=h.ROOT / "bench" / "work")
    ap.add_argument("--results", type=Path, default=h.RESULTS)
    args = ap.parse_args(argv)
    started = time.perf_counter()
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    scales = {"google2011": args.g2011, "google2019": args.g2019, "alibaba2018": args.ali}
    rows, verdict = [], []
    for trace, (extra, what) in CASES.items():
        out = work / f"synth_{trace}"
        run, m = synth_run(trace, scales[trace], out, extra)
        if not m:
            rows.append(f"| {trace} | {what} | FAILED: {run.note} |||||||")
            continue
        n = sum(t["rows"] for t in m["tables"].values())
        raw = sum(f["bytes"] for f in m["files"].values())
        gz = sum(f["file_bytes"] for f in m["files"].values())
        g = gzip_runs(out, m, work)
        g1, g6 = g["gzip -1"].wall, g["gzip -6"].wall
        rows.append(
            f"| {trace} | {what}, scale {scales[trace]:g} | {n:,} | {raw / 1e6:,.0f} / {gz / 1e6:,.0f} | "
            f"{run.wall:.1f} | {n / run.wall:,.0f} | {raw / 1e6 / run.wall:.0f} | "
            f"{m['worker_peak_rss_mb']:.0f} | {m['worker_cpu_s']:.1f} | "
            f"{g1:.1f} / {h.fmt(g['gzip -1'].cpu_s, '.1f')} | "
            f"{g6:.1f} / {h.fmt(g['gzip -6'].cpu_s, '.1f')} | "
            f"{run.others:.2f} |"
        )
        ok = run.wall <= g6
        # On a shared machine wall times say little; CPU time does not depend on the others: the
        # synth's CPU spread over its workers against gzip's CPU (one process).
        cpu6 = g["gzip -6"].cpu_s or float("nan")
        share = m["worker_cpu_s"] / WORKERS
        verdict.append(
            f"- {trace}: wall: synth (generate + gzip level 6, {WORKERS} workers) {run.wall:.1f} s vs "
            f"`gzip -6` alone {g6:.1f} s ({'**faster**' if ok else '**slower**'}, x{g6 / run.wall:.2f}); "
            f"CPU: synth {m['worker_cpu_s']:.1f} CPU-s = {share:.1f} s per worker vs `gzip -6` {cpu6:.1f} "
            f"CPU-s ({'**faster**' if share <= cpu6 else '**slower**'} on an idle machine, "
            f"x{cpu6 / share:.2f})"
        )
        shutil.rmtree(out, ignore_errors=True)
    # Memory flat in scale: the same generator at 4x the rows.
    mem = []
    for s in (args.g2011, 4 * args.g2011):
        out = work / "synth_mem"
        run, m = synth_run("google2011", s, out, ["--tables", "task_events"])
        if m:
            mem.append((s, m["tables"]["task_events"]["rows"], m["worker_peak_rss_mb"]))
        shutil.rmtree(out, ignore_errors=True)
    mem_lines = [
        f"- scale {s:g}: {n:,} task_events rows, largest worker peak RSS {r:.0f} MB" for s, n, r in mem
    ]
    mi = h.machine_info()
    text = f"""{SECTION}

Measured {time.strftime("%Y-%m-%d %H:%M %Z")} by `bench/bench_synth.py`
(whole run {time.perf_counter() - started:.0f} s).

{h.machine_text(mi)}

**Command**: `{h.command_line("bench_synth.py", argv)}`

`tracewh synth` writes gzip level 6 (as the originals) with one worker process per core. The
baselines compress the same bytes (the output decompressed to one file) with one `gzip` process.
MB = uncompressed / on disk. Peak RSS and CPU are the workers' (from manifest.json: the workers
are not children of the measured process). "others" = cores used by other processes during the
synth run (the machine was shared: wall times under load are upper bounds).

{HEAD}
|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
{chr(10).join(rows)}

{chr(10).join(verdict)}

Memory does not grow with the scale (pieces are generated and written one at a time per worker):

{chr(10).join(mem_lines)}
"""
    print(text)
    h.write_section(args.results, text, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
