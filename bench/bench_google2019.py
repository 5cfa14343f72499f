"""Ingest benchmark for google2019 JSON shards: tracewh vs naive polars vs pandas vs the gzip floor.

Usage (from the project root):

    .venv/bin/python -m bench.bench_google2019 [--scales 0.00025,0.0005] [--repeat 2]

What it does, in one run:

1. Generates the inputs with ``tracewh synth google2019 --cells a,b`` at each ``--scales`` value
   (``<out>/g2019_<scale>/clusterdata_2019_{a,b}/<table>-NNNNNNNNNNNN.json.gz``, every encoding
   variant of the export; the model is described in warehouse/synth/google2019.py), cached by
   their manifest.
2. For each input, in fresh subprocesses (harness.measure: wall, peak RSS, CPU): the gzip floor,
   ``tracewh ingest google2019`` (catalog rows, rejects and value checksums over the Parquet
   checked against the synth manifest), a naive polars conversion (``pl.read_ndjson`` +
   ``write_parquet`` per shard) and a naive pandas one (``pd.read_json(lines=True)`` +
   ``to_parquet`` per shard).
3. Writes the ``## Ingest: google2019 JSON shards`` section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench import bench_ingest as bi
from bench import harness as h

ROOT = h.ROOT
VENV_PY = h.VENV_PY
TRACEWH = h.TRACEWH
log = h.log
Run = h.Run
SECTION = "## Ingest: google2019 JSON shards"
CELLS = "a,b"
TOOLS = ("gzip", "tracewh", "polars", "pandas")
ALL_TABLES = (
    "collection_events",
    "instance_events",
    "instance_usage",
    "machine_events",
    "machine_attributes",
)
MAX_TIME = h.MAX_TIME
RSS_FLAT_TOLERANCE = 1.25

# Value checks over tracewh's Parquet (DuckDB) against the synth manifest (key in the manifest):
# they catch values read as NULL (a number where a string was expected) when row counts agree.
CHECKS = {
    "instance_events": {
        "rows": ("count(*)", "rows"),
        "machine_ids": ("count(machine_id) FILTER (WHERE machine_id <> 0)", "machine_id:set"),
        "time0": ("count(*) FILTER (WHERE time = 0)", "time:0"),
        "time_max": (f"count(*) FILTER (WHERE time = {MAX_TIME})", "time:max"),
        "constraint_items": ('sum(coalesce(len("constraint"), 0))', "constraint:items"),
        "requests": ("count(resource_request.cpus)", "resource_request"),
        "submits": ("count(*) FILTER (WHERE coalesce(type, 0) = 0)", "type:SUBMIT"),
    },
    "instance_usage": {
        "rows": ("count(*)", "rows"),
        "dist_values": ("sum(coalesce(len(cpu_usage_distribution), 0))", "cpu_usage_distribution:values"),
        "tail_values": (
            "sum(coalesce(len(tail_cpu_usage_distribution), 0))",
            "tail_cpu_usage_distribution:values",
        ),
        "cpi": ("count(cycles_per_instruction)", "cycles_per_instruction:values"),
        "max_mem": ("count(maximum_usage.memory)", "maximum_usage:memory"),
        "random_sample": ("count(random_sample_usage.cpus)", "random_sample_usage"),
    },
    "collection_events": {
        "rows": ("count(*)", "rows"),
        "time0": ("count(*) FILTER (WHERE time = 0)", "time:0"),
    },
    "machine_events": {"rows": ("count(*)", "rows"), "capacities": ("count(capacity.cpus)", "capacity")},
}


@dataclass
class Inputs:
    key: str
    scale: float
    folder: Path
    files: list[Path]
    lines: dict[str, int]  # per table
    json_bytes: int
    gz_bytes: int
    manifest: dict
    synth_s: float | None

    @property
    def rows(self) -> int:
        return sum(self.lines.values())

    @property
    def label(self) -> str:
        return f"{self.json_bytes / 1e6:,.0f} MB, {self.rows / 1e6:.2f} M rows, {len(self.files)} shards"


def build_inputs(work: Path, scale: float) -> Inputs:
    folder = work / f"g2019_{scale:g}"
    m, wall = h.synth_input(folder, "google2019", scale, args=("--cells", CELLS))
    lines = {t: m["tables"][t]["rows"] for t in ALL_TABLES if t in m["tables"]}
    return Inputs(
        folder.name,
        scale,
        folder,
        [folder / rel for rel in m["files"]],
        lines,
        sum(f["bytes"] for f in m["files"].values()),
        sum(f["file_bytes"] for f in m["files"].values()),
        m,
        wall,
    )


def check_catalog(home: Path, inp: Inputs) -> tuple[bool, str, dict]:
    """Catalog rows and rejects, and value checksums over the Parquet, against the manifest."""
    exprs = {t: {k: e for k, (e, _) in c.items()} for t, c in CHECKS.items() if t in inp.lines}
    p = subprocess.run(
        h.probe("google2019_catalog_check", str(home / "tracewh.duckdb"), json.dumps(exprs),
                str(home / "parquet" / "google2019")),
        capture_output=True,
        text=True,
    )  # fmt: skip
    if p.returncode != 0:
        return False, f"could not read the catalog: {p.stderr.strip().splitlines()[-1:]}", {}
    info = json.loads(p.stdout)
    problems = []
    for t, n in inp.lines.items():
        if info["tables"].get(t) != n:
            problems.append(f"{t}: catalog rows {info['tables'].get(t)} != manifest {n}")
    for t, _n, read, written, rejected, _, _ in info["ingests"]:
        if read != inp.lines.get(t) or written != inp.lines.get(t) or rejected:
            problems.append(f"{t}: rows_read {read}, written {written}, rejected {rejected}")
    for t, got in info["sums"].items():
        want = {k: inp.manifest["tables"][t].get(key) for k, (_, key) in CHECKS[t].items()}
        diff = {k: (got.get(k), want[k]) for k in want if got.get(k) != want[k]}
        if diff:
            problems.append(f"{t}: Parquet value checks differ (got, manifest): {diff}")
    return not problems, "; ".join(problems), info


def run_tracewh(inp: Inputs, work: Path) -> Run:
    home = work / f"home_{inp.key}"
    shutil.rmtree(home, ignore_errors=True)
    cmd = [str(TRACEWH), "--home", str(home), "ingest", "google2019", str(inp.folder), "--quiet"]
    run, _, err = h.measure("tracewh ingest", cmd)
    if run.ok:
        ok, why, info = check_catalog(home, inp)
        run.extra = info
        if ok:
            log(f"row and value checks OK: {info['tables']}")
        else:
            run.ok = False
            run.note = "CHECK FAILED: " + why
            h.banner(f"{inp.key}: {why}")
        run.out_mb = h.dir_mb(home / "parquet")
    else:
        print(err[-3000:], file=sys.stderr)
    shutil.rmtree(home, ignore_errors=True)
    return run


def run_naive(kind: str, inp: Inputs, work: Path) -> Run:
    out = work / f"out_g2019_{kind}_{inp.key}"
    shutil.rmtree(out, ignore_errors=True)
    job = work / f"job_g2019_{kind}_{inp.key}.json"
    files = [[f.name.split("-")[0], str(f)] for f in inp.files]
    job.write_text(json.dumps({"out": str(out), "files": files}))
    label = {"polars": "naive polars", "pandas": "naive pandas"}[kind]
    run, stdout, err = h.measure(label, h.probe(f"google2019_naive_{kind}", str(job)))
    if run.ok:
        res = json.loads(stdout.strip().splitlines()[-1])
        rows = res["rows"]
        run.extra["fallbacks"] = res["fallbacks"]
        if res["fallbacks"]:
            log(f"{label}: {len(res['fallbacks'])} shards re-read (whole-file schema): {res['fallbacks']}")
        if rows != {t: n for t, n in inp.lines.items() if n}:
            run.note = f"rows {rows} != generated {inp.lines}"
            log(f"{label}: {run.note}")
        run.out_mb = h.dir_mb(out)
    else:
        print(err[-3000:], file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)
    job.unlink(missing_ok=True)
    return run


def results_table(inputs: list[Inputs], results: dict[str, dict[str, Run]]) -> str:
    head = (
        "| input | tool | wall s | rows/s | MB/s (uncompr. JSON) | peak RSS MB | CPU s | x gzip floor "
        "| x tracewh | Parquet MB | load1 / busy before / others during |"
    )
    lines = [head, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for inp in inputs:
        rs = results[inp.key]
        floor, tw = rs.get("gzip"), rs.get("tracewh")
        for key in TOOLS:
            r = rs.get(key)
            if r is None:
                continue
            walls = r.extra.get("all_walls")
            wall = f"{r.wall:.2f}" + (f" (best of {walls})" if walls else "")
            flag = "" if r.ok else " **FAILED**"
            lines.append(
                f"| {inp.label} | {r.tool}{flag} | {wall} | "
                f"{inp.rows / r.wall:,.0f} | {inp.json_bytes / 1e6 / r.wall:.0f} | "
                f"{h.fmt(r.rss_mb, '.0f')} | {h.fmt(r.cpu_s, '.1f')} | "
                f"{h.fmt(r.wall / floor.wall if floor else None, '.2f')} | "
                f"{h.fmt(r.wall / tw.wall if tw else None, '.2f')} | {h.fmt(r.out_mb, '.0f')} | "
                f"{r.load1:.2f} / {r.busy_cores:.2f} / {r.others:.2f}"
                f"{' *disturbed*' if r.others > h.NOISY_CORES else ''} |"
            )
    return "\n".join(lines)


def verdict(inputs: list[Inputs], results: dict[str, dict[str, Run]]) -> list[str]:
    out = []
    for inp in inputs:
        rs = results[inp.key]
        tw, fl, pl_, pd_ = rs.get("tracewh"), rs.get("gzip"), rs.get("polars"), rs.get("pandas")
        tag = f"{inp.json_bytes / 1e6:,.0f} MB in {len(inp.files)} shards"
        if not tw:
            continue
        parts = []
        if fl and fl.others > h.NOISY_CORES:
            parts.append(
                f"{tw.wall / fl.wall:.1f}x the gzip floor (floor *disturbed*: the real ratio is higher)"
            )
        elif fl:
            parts.append(f"{tw.wall / fl.wall:.1f}x the gzip floor")
        for name, r in (("naive polars", pl_), ("naive pandas", pd_)):
            if not r:
                continue
            if not r.ok:
                parts.append(f"{name} FAILED ({r.note})")
            elif r.wall > tw.wall:
                parts.append(f"**{r.wall / tw.wall:.2f}x faster** than {name} ({r.wall:.1f} s)")
            else:
                parts.append(f"**{tw.wall / r.wall:.2f}x slower** than {name} ({r.wall:.1f} s)")
            if r.ok and r.rss_mb and tw.rss_mb:
                parts.append(f"peak RSS {tw.rss_mb:.0f} MB vs {name}'s {r.rss_mb:.0f} MB")
            if r.extra.get("fallbacks"):
                parts.append(
                    f"{len(r.extra['fallbacks'])} of {len(inp.files)} shards failed {name}'s default "
                    "schema inference and were read again"
                )
        out.append(f"- {tag}: tracewh {tw.wall:.1f} s: " + "; ".join(parts))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", default="0.00025,0.0005", help="synth scales of the inputs (cells a and b)")
    ap.add_argument("--repeat", type=int, default=2, help="runs of gzip / tracewh / polars (best of)")
    ap.add_argument("--no-pandas", action="store_true", help="skip the pandas baseline (minutes per GB)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "work")
    ap.add_argument("--results", type=Path, default=h.RESULTS)
    args = ap.parse_args(argv)
    started = time.perf_counter()
    work = args.out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    inputs = [build_inputs(work, float(s)) for s in args.scales.split(",") if s.strip()]
    for inp in inputs:
        log(f"{inp.key}: {inp.label}; warming the page cache")
        for f in inp.files:
            f.read_bytes()
    mi = h.machine_info()
    results: dict[str, dict[str, Run]] = {}
    for inp in inputs:
        rs: dict[str, Run] = {}
        rs["gzip"] = h.best_of(partial(bi.run_gzip_floor, inp), args.repeat)
        rs["tracewh"] = h.best_of(partial(run_tracewh, inp, work), args.repeat)
        rs["polars"] = h.best_of(partial(run_naive, "polars", inp, work), args.repeat)
        if not args.no_pandas:
            rs["pandas"] = run_naive("pandas", inp, work)
        results[inp.key] = rs
    table = results_table(inputs, results)
    rss = []
    tw = [(i, results[i.key]["tracewh"]) for i in inputs if results[i.key]["tracewh"].rss_mb]
    for (a, ra), (b, rb) in itertools.pairwise(tw):
        g = (rb.rss_mb or 0) / (ra.rss_mb or 1)
        rss.append(
            f"- input x{b.json_bytes / a.json_bytes:.2f}: tracewh peak RSS {ra.rss_mb:.0f} -> "
            f"{rb.rss_mb:.0f} MB (x{g:.2f}): {'**flat**' if g <= RSS_FLAT_TOLERANCE else '**GROWS**'}"
        )
    bad = [(i.key, r.tool, r.note) for i in inputs for r in results[i.key].values() if not r.ok]
    gen = ", ".join(
        f"{i.key}: " + (f"generated in {i.synth_s:.0f} s" if i.synth_s else "cached") for i in inputs
    )
    text = "\n".join(
        [
            SECTION,
            "",
            f"Measured {time.strftime('%Y-%m-%d %H:%M %Z')} by `bench/bench_google2019.py` (whole run "
            f"{time.perf_counter() - started:.0f} s; {gen}).",
            "",
            h.machine_text(mi),
            "",
            f"**Command**: `{h.command_line('bench_google2019.py', argv)}`",
            "",
            "**Inputs**: `tracewh synth google2019 --cells a,b` (every encoding variant of the export: "
            "64-bit ints as strings and as numbers, absent defaults, explicit nulls, both usage-struct "
            "spellings, lists of any length), in the page cache. **What runs**: the gzip -dc floor "
            "(2 processes), `tracewh ingest google2019` (rows, rejects and value checksums over the "
            "Parquet checked against the synth manifest), naive polars (`read_ndjson` + "
            "`write_parquet` per shard, re-read with a whole-file schema when inference fails) and "
            "naive pandas (`read_json(lines=True)` + `to_parquet`). Best of --repeat for all but pandas.",
            "",
            table,
            "",
            "### Verdict",
            "",
            *verdict(inputs, results),
            *rss,
            f"- FAILURES: {bad}" if bad else "- checks: every tracewh run matches the manifest, 0 rejects",
        ]
    )
    print(text)
    h.write_section(args.results, text, SECTION)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
