"""Whole trace, streamed: google2011, all six tables, generated, ingested and deleted in batches of
K parts so that it fits the disk, then every google2011 report.

At scale 1.0 the 500 parts hold 144.6 M task events and 1.23 G task_usage rows: ~43 GB of gzip
(zlib 6) and about as much Parquet, more than the raw parts and the home can share on one disk.
So for each batch of K parts (of the scale's plan, ``bench.synth_parts``): generate the batch into
``--scratch`` (timed), ``tracewh ingest`` it into ``--home`` (wall, CPU, peak RSS by
harness.measure), record the disk (raw batch, home, free space while both exist), delete the raw
batch. machine_events and machine_attributes (one file each) come with the first batch.

Before every batch the disk is projected (the home now, plus the Parquet of the parts still to
come, plus one raw batch; per-part sizes measured on the batches so far, or DEFAULT_* before the
first): the run refuses to start or go on when that does not fit the free space. Every figure goes
to ``--state`` (JSON) as soon as it is measured, so a stopped run resumes where it stopped (a
half-written raw batch is deleted and made again; ``tracewh ingest`` skips parts it already has).
After the last batch every google2011 report runs on the home; ``--write`` renders the RESULTS.md
section, with a projection to the whole 500 parts when the run covered fewer.

    .venv/bin/python -m bench.bench_stream --scale 1.0 --parts 0-499 --batch 10 --isal \\
        --scratch /big/raw --home /big/home --state /big/stream.json
    .venv/bin/python -m bench.bench_stream --state /big/stream.json --write
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench import harness as h
from bench.bench_wholetrace import google_reports, parse_range

SECTION = "## Whole trace, streamed: google2011 all six tables in batches (generate, ingest, delete)"
PARTS = 500  # the 500-part tables of the published layout
# Before a batch is measured: a scale-1.0 part of all six tables in gzip (task_usage ~88 MB by
# zlib 6, ~95 MB by ISA-L; task_events ~4 MB; task_constraints ~1 MB), and Parquet per gzip byte.
DEFAULT_PART_GZ_MB = 100.0
DEFAULT_PARQUET_PER_GZ = 1.0
MARGIN_MB = 2000.0  # free space kept beyond the projection (the catalog, DuckDB's temporary files)


def free_mb(path: Path) -> float:
    while not path.exists():
        path = path.parent
    return shutil.disk_usage(path).free / 1e6


def same_disk(a: Path, b: Path) -> bool:
    def dev(p: Path) -> int:
        while not p.exists():
            p = p.parent
        return os.stat(p).st_dev

    return dev(a) == dev(b)


def per_part(state: dict) -> tuple[float, float]:
    """(gzip MB, Parquet MB) per part of the given scale: measured on the batches so far (the
    Parquet is the home's growth), else the defaults scaled."""
    done = list(state.get("batches", {}).values())
    parts = sum(b["parts"] for b in done)
    if parts:
        gz = sum(b["raw_mb"] for b in done) / parts
        return gz, sum(b["home_growth_mb"] for b in done) / parts
    gz = DEFAULT_PART_GZ_MB * state["scale"] * PARTS / max(1, state["plan_parts"])
    return gz, gz * DEFAULT_PARQUET_PER_GZ


def projection(state: dict, home: Path, scratch: Path, batch: int) -> dict:
    """What the rest of the run needs on disk, against the free space (MB)."""
    gz, pq = per_part(state)
    left = state["total_parts"] - sum(b["parts"] for b in state.get("batches", {}).values())
    home_now = disk_mb(home) if home.exists() else 0.0
    grow = left * pq  # the home's growth still to come
    raw = min(batch, left) * gz  # one raw batch at a time
    # An ingest's end holds the generations it superseded (derived tables rebuilt whole) until the
    # grace has passed: that share of the home, as the last batch measured it, at the final size.
    last = list(state.get("batches", {}).values())[-1:]
    share = (last[0]["home_peak_mb"] / last[0]["home_mb"] - 1) if last and last[0]["home_mb"] else 0.0
    transient = share * (home_now + grow)
    p = {
        "gz_per_part_mb": gz,
        "parquet_per_part_mb": pq,
        "parts_left": left,
        "home_now_mb": home_now,
        "home_final_mb": home_now + grow,
        "raw_batch_mb": raw,
        "transient_mb": transient,
        "peak_mb": home_now + grow + raw + transient,
        "free_home_mb": free_mb(home),
        "free_scratch_mb": free_mb(scratch),
    }
    if same_disk(home, scratch):
        p["fits"] = grow + transient + raw + MARGIN_MB <= p["free_home_mb"]
    else:
        p["fits"] = (
            grow + transient + MARGIN_MB <= p["free_home_mb"] and raw + MARGIN_MB <= p["free_scratch_mb"]
        )
    return p


def refuse_unless_fits(state: dict, a: argparse.Namespace) -> None:
    p = projection(state, a.home, a.scratch, a.batch)
    state["projection_before"] = state.get("projection_before") or p
    if not p["fits"]:
        sys.exit(
            f"refused: the rest of the run needs {p['home_final_mb'] - p['home_now_mb']:,.0f} MB more "
            f"Parquet ({p['parts_left']} parts x {p['parquet_per_part_mb']:.0f} MB) and one raw batch of "
            f"{p['raw_batch_mb']:,.0f} MB and {p['transient_mb']:,.0f} MB of superseded generations at an "
            f"ingest's end, plus {MARGIN_MB:,.0f} MB kept free; free: "
            f"{p['free_home_mb']:,.0f} MB (home), {p['free_scratch_mb']:,.0f} MB (scratch). "
            "Smaller --batch, or another disk."
        )


def disk_mb(folder: Path) -> float:
    """The disk a folder takes: each file once however many hard links it has (a new generation
    links the files it keeps), in allocated blocks (as du counts)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total / 1e6


def mb_by_table(folder: Path) -> dict[str, float]:
    return {d.name: h.dir_mb(d) for d in sorted(folder.iterdir()) if d.is_dir()}


def run_batch(a: argparse.Namespace, state: dict, lo: int, hi: int) -> None:
    key = f"{lo}-{hi}"
    raw = a.scratch / f"batch-{key}"
    shutil.rmtree(raw, ignore_errors=True)  # a stopped run's half-written batch
    first = not state.get("batches")
    gen_cmd = [str(h.VENV_PY), "-m", "bench.synth_parts", str(raw), "--tables", ",".join(a.tables)]
    gen_cmd += ["--range", key, "--scale", str(a.scale), "--seed", str(a.seed)]
    gen_cmd += (["--isal"] if a.isal else []) + ([] if first else ["--no-single"])
    gen_cmd += ["--workers", str(a.workers)] if a.workers else []
    gen, _, err = h.measure(f"generate {key}", gen_cmd)
    if not gen.ok:
        sys.exit(f"generation of parts {key} failed: {err[-2000:]}")
    manifest = json.loads((raw / "manifest.json").read_text())
    # the synth workers are not children of the measured process (forkserver): their CPU time and
    # peak RSS come from the manifest
    gen.extra = {"main_cpu_s": gen.cpu_s, "workers_cpu_s": manifest["worker_cpu_s"]}
    gen.cpu_s = (gen.cpu_s or 0.0) + manifest["worker_cpu_s"]
    gen.rss_mb = max(gen.rss_mb or 0.0, manifest["worker_peak_rss_mb"])
    raw_by_table = mb_by_table(raw)
    home_before = disk_mb(a.home) if a.home.exists() else 0.0
    ing_cmd = [str(h.TRACEWH), "--home", str(a.home), "ingest", "google2011", str(raw), "-q"]
    ing_cmd += ["--memory-limit", a.ingest_limit]
    ing, _, err = h.measure(f"ingest {key}", ing_cmd)
    if not ing.ok:
        sys.exit(f"ingest of parts {key} failed (the raw batch stays in {raw}): {err[-2000:]}")
    free_peak = free_mb(a.scratch)  # the raw batch and its Parquet both on disk: the peak
    home_peak = disk_mb(a.home)  # with the generations the ingest superseded (kept for readers)
    shutil.rmtree(raw)
    home_after = settle(a.home)
    state.setdefault("batches", {})[key] = {
        "parts": hi - lo + 1,
        "generate": gen.__dict__,
        "ingest": ing.__dict__,
        "rows": {t: v["rows"] for t, v in manifest["tables"].items()},
        "raw_mb": sum(raw_by_table.values()),
        "raw_by_table_mb": raw_by_table,
        "home_mb": home_after,
        "home_peak_mb": home_peak,
        "disk_peak_mb": home_peak + sum(raw_by_table.values()),
        "home_growth_mb": home_after - home_before,
        "free_at_peak_mb": free_peak,
        "free_after_mb": free_mb(a.scratch),
        "gzip_by": manifest.get("gzip_by", "zlib"),
        "at": time.strftime("%H:%M:%S", time.gmtime()),
    }
    save(a.state, state)


def settle(home: Path) -> float:
    """The home's size once the generations its last ingest superseded are gone: they stay for
    readers until the retired catalog's grace has passed, then any command's tidy deletes them."""
    from tracewh import catalog
    from tracewh.home import Home

    time.sleep(catalog.RETIRED_GRACE_S + 1)
    catalog.tidy(Home.resolve(home))
    return disk_mb(home)


def run_reports(a: argparse.Namespace, state: dict) -> None:
    for name, needs_trace in google_reports():
        if name in state.get("reports", {}):
            continue  # measured before the run stopped
        cmd = [str(h.TRACEWH), "--home", str(a.home), "report", name, "--format", "csv"]
        cmd += (["--trace", "google2011"] if needs_trace else []) + ["--memory-limit", a.limit]
        run, _, err = h.measure(name, cmd, stdout_devnull=True)
        if not run.ok:
            run.note = err.strip().splitlines()[-1] if err.strip() else run.note
        state.setdefault("reports", {})[name] = run.__dict__
        save(a.state, state)


def save(path: Path, state: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    os.replace(tmp, path)


def catalog_rows(home: Path) -> dict[str, int]:
    import duckdb

    con = duckdb.connect(str(home / "tracewh.duckdb"), read_only=True)
    try:
        q = "SELECT table_name, rows FROM meta.tables WHERE trace = 'google2011'"
        return {t: int(n) for t, n in con.execute(q).fetchall()}
    finally:
        con.close()


def write(state: dict) -> None:
    batches = list(state.get("batches", {}).values())
    parts = sum(b["parts"] for b in batches)
    if not parts:
        sys.exit("nothing measured yet")

    def total(stage: str, key: str) -> float:
        return sum(b[stage][key] or 0 for b in batches)

    gen_w, gen_c, ing_w, ing_c = (total(s, k) for s in ("generate", "ingest") for k in ("wall", "cpu_s"))
    raw = sum(b["raw_mb"] for b in batches)
    home = batches[-1]["home_mb"]
    peak_used = max(b.get("disk_peak_mb", b["home_mb"] + b["raw_mb"]) for b in batches)
    loads = [b[s]["load1"] for b in batches for s in ("generate", "ingest")]
    others = [b[s]["others"] for b in batches for s in ("generate", "ingest")]
    rows = {t: sum(b["rows"].get(t, 0) for b in batches) for t in batches[0]["rows"]}
    lines = [
        SECTION,
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `bench/bench_stream.py`. "
        + h.machine_text(h.machine_info()),
        f"**Loaded machine**: shared with other work (1-minute load {min(loads):.0f}-{max(loads):.0f} "
        f"before the runs; other processes used {min(others):.2f}-{max(others):.2f} cores during them): "
        "walls are inflated, CPU seconds and sizes are what to read.",
        "",
        "**Commands**: " + "; ".join(f"`{c}`" for c in state.get("commands", [])),
        "",
        f"**Input**: `tracewh synth google2011 --scale {state['scale']}` (seed {state['seed']}), parts "
        f"{state['range']} of its {state['plan_parts']}, all six tables, gzip by "
        f"{batches[0]['gzip_by']}; " + ", ".join(f"{t} {n:,}" for t, n in sorted(rows.items())) + " rows.",
        "",
        "| parts | generate s / CPU s / peak RSS MB | ingest s / CPU s / peak RSS MB | raw gz MB "
        "(task_usage) | home MB at the ingest's end / settled | home growth MB | disk peak MB (home + raw) | "
        "free MB at peak | others (gen / ingest) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, b in state["batches"].items():
        g, i = b["generate"], b["ingest"]
        lines.append(
            f"| {key} | {g['wall']:.0f} / {h.fmt(g['cpu_s'], '.0f')} / {h.fmt(g['rss_mb'], '.0f')} | "
            f"{i['wall']:.0f} / {h.fmt(i['cpu_s'], '.0f')} / {h.fmt(i['rss_mb'], '.0f')} | "
            f"{b['raw_mb']:,.0f} ({b['raw_by_table_mb'].get('task_usage', 0):,.0f}) | "
            f"{b.get('home_peak_mb', 0):,.0f} / {b['home_mb']:,.0f} | {b['home_growth_mb']:,.0f} | "
            f"{b.get('disk_peak_mb', 0):,.0f} | {b['free_at_peak_mb']:,.0f} | "
            f"{g['others']:.2f} / {i['others']:.2f} |"
        )
    lines += [
        "",
        f"Totals over {parts} parts: generate {gen_w:.0f} s wall / {gen_c:.0f} CPU s; ingest {ing_w:.0f} s "
        f"wall / {ing_c:.0f} CPU s; raw {raw:,.0f} MB gzip -> home {home:,.0f} MB "
        f"(Parquet / gzip {home / raw:.2f}); peak disk (home + one raw batch) {peak_used:,.0f} MB.",
    ]
    reps = state.get("reports", {})
    if reps:
        lines += ["", "| report | wall s | CPU s | peak RSS MB | others |", "|---|---|---|---|---|"]
        for name, r in reps.items():
            wall = f"{r['wall']:.1f}" if r["ok"] else f"FAIL ({r['note']})"
            lines.append(
                f"| {name} | {wall} | {h.fmt(r['cpu_s'], '.1f')} | {h.fmt(r['rss_mb'], '.0f')} | "
                f"{r['others']:.2f} |"
            )
    if parts < PARTS and state["scale"] == 1.0:
        f = PARTS / parts  # the parts are time slices of the same size: the projection scales by count
        lines += [
            "",
            f"**Projection to the whole trace (500 parts at scale 1.0) from these {parts} parts, x{f:.0f} "
            "(not a measurement; linear in the parts, so blind to an ingest whose cost grows with the "
            "home: compare the batches)**: generation "
            f"{gen_c * f / 3600:.1f} CPU h = ~{gen_c * f / 2 / 3600:.1f} h on 2 quiet cores (its wall here "
            f"{gen_w * f / 3600:.1f} h); ingest {ing_c * f / 3600:.2f} CPU h = "
            f"~{ing_c * f / 2 / 60:.0f} min on 2 quiet cores (its wall here {ing_w * f / 60:.0f} min); "
            f"raw {raw * f / 1e3:,.1f} GB gzip; "
            f"Parquet {home * f / 1e3:,.1f} GB; disk peak = that Parquet + one raw batch "
            f"({raw / parts:.0f} MB a part).",
        ]
    h.write_section(h.RESULTS, "\n".join(lines) + "\n" + state.get("reading", ""), SECTION)


def main(argv: list[str] | None = None) -> int:
    from tracewh.traces import google2011 as spec

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--state", type=Path, required=True, help="JSON of the run (resumed when it exists)")
    p.add_argument("--scratch", type=Path, help="where each raw batch is generated (then deleted)")
    p.add_argument("--home", type=Path)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--parts", default="0-499", help="part range LO-HI of the scale's plan")
    p.add_argument("--batch", type=int, default=10, help="parts per batch (K)")
    p.add_argument("--tables", default=",".join(spec.TABLES))
    p.add_argument("--isal", action="store_true", help="gzip by ISA-L (synth --isal)")
    p.add_argument("--workers", type=int, help="generation workers (default: cores)")
    p.add_argument("--ingest-limit", default="3GB")
    p.add_argument("--limit", default="3GB", help="reports' --memory-limit")
    p.add_argument("--no-reports", action="store_true")
    p.add_argument("--quiet-wait", type=float, default=5.0, help="max seconds to wait for a quiet machine")
    p.add_argument("--write", action="store_true", help="write the RESULTS.md section from --state")
    a = p.parse_args(argv)
    h.QUIET_WAIT_S = a.quiet_wait
    state = json.loads(a.state.read_text()) if a.state.is_file() else {}
    if a.scratch and a.home:
        a.tables = a.tables.split(",")
        lo, hi = parse_range(a.parts)
        plan_parts = min(PARTS, max(1, round(PARTS * a.scale)))
        if not 0 <= lo <= hi < plan_parts:
            sys.exit(f"--parts {a.parts}: the plan at scale {a.scale} has parts 0-{plan_parts - 1}")
        run = {"scale": a.scale, "seed": a.seed, "range": a.parts, "tables": a.tables, "batch": a.batch}
        if state and any(state.get(k) != v for k, v in run.items()):
            sys.exit(f"{a.state} is another run ({', '.join(f'{k} {state.get(k)}' for k in run)})")
        state.update(run, plan_parts=plan_parts, total_parts=hi - lo + 1, home=str(a.home))
        state.setdefault("commands", []).append(h.command_line("bench_stream.py", argv))
        a.scratch.mkdir(parents=True, exist_ok=True)
        for start in range(lo, hi + 1, a.batch):
            end = min(hi, start + a.batch - 1)
            if f"{start}-{end}" in state.get("batches", {}):
                continue
            refuse_unless_fits(state, a)
            save(a.state, state)
            run_batch(a, state, start, end)
        state["catalog_rows"] = catalog_rows(a.home)
        save(a.state, state)
        if not a.no_reports:
            run_reports(a, state)
    if a.write:
        write(state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
