"""What DuckDB holds while the derived layer's build runs, per step, at a given batch size: the
build of a google2011 home's derived tables rebuilt whole (tracewh.catalog.derived.build with a full
plan, as an ingest that rebuilds the trace does) on a scratch copy of the home's catalog, with a
thread reading duckdb_memory() (DuckDB's own count, in memory and spilled to its temporary files)
every 50 ms, each sample tagged with the step running: the cut of the events into batches, each
batch's events read into memory, and each table's COPY.

Usage: python -m bench.probes.derived_batch_memory HOME POOL [SHARE]
(POOL: DuckDB's memory limit, e.g. 2500MiB; SHARE: batches per job range of derived.BATCH_EVENTS
events, default what the build picks for that pool, derived.batch_share). Prints one JSON line
after @@JSON: the share, the events, and per step the peak MiB in memory and spilled (and in
memory by DuckDB's tag at that peak); the CPU and wall seconds of the build. The tag of a batch's
events read into memory: the steps of a batch other than the tables' COPY (since the build reads
a batch from its scratch file, nothing is read into memory there)."""


def main() -> None:
    import functools
    import json
    import shutil
    import sys
    import tempfile
    import threading
    import time
    from pathlib import Path

    import duckdb

    from tracewh.catalog import derived
    from tracewh.home import Home

    home, pool, *share = sys.argv[1:]
    source = Home.resolve(Path(home))
    step = ["start"]
    peaks: dict[str, list] = {}
    done = threading.Event()
    if share:
        derived.batch_share = lambda con: int(share[0])  # type: ignore[assignment]
    picked: list[int] = []
    chosen = derived.batch_share
    derived.batch_share = lambda con: picked.append(chosen(con)) or picked[-1]  # type: ignore[assignment]

    def tagged(name: str, label) -> None:
        fn = getattr(derived, name)

        @functools.wraps(fn)
        def run(*a, **k):
            before = step[0]
            step[0] = label(a) if callable(label) else label
            try:
                return fn(*a, **k)
            finally:
                step[0] = before

        setattr(derived, name, run)

    tagged("batches", "cut into batches")
    tagged("_per_task_tables", "a batch's events read into memory")
    tagged("_copy", lambda a: "write " + derived.short(a[2]))

    with tempfile.TemporaryDirectory(dir=source.root.parent, prefix=".probe-derived-") as scratch:
        root = Path(scratch)
        shutil.copyfile(source.catalog, root / "catalog.duckdb")
        con = duckdb.connect(
            str(root / "catalog.duckdb"), config={"memory_limit": pool, "temp_directory": str(root / "spill")}
        )
        other = con.cursor()

        def sample() -> None:
            while not done.wait(0.05):
                tags = other.execute(
                    "SELECT tag, memory_usage_bytes, temporary_storage_bytes FROM duckdb_memory()"
                ).fetchall()
                mem, tmp = sum(m for _, m, _ in tags), sum(t for _, _, t in tags)
                p = peaks.setdefault(step[0], [0, 0, {}])
                if mem > p[0]:  # the tags that hold the memory at the step's peak
                    p[2] = {t: round(m / 2**20) for t, m, _ in tags if m >= 2**20}
                p[0], p[1] = max(p[0], mem), max(p[1], tmp)

        thread = threading.Thread(target=sample, daemon=True)
        con.execute("BEGIN")
        out = Home.resolve(root / "out")
        events = con.execute(
            f"SELECT count(*) FROM {derived.EVENTS_VIEW} WHERE trace = 'google2011'"
        ).fetchone()[0]
        thread.start()
        started, cpu = time.perf_counter(), time.process_time()
        derived.build(con, out, derived.Plan("google2011", True), "probe")
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        done.set()
        thread.join()
        con.execute("ROLLBACK")
        other.close()
        con.close()
    mib = 2**20
    print(
        "@@JSON",
        json.dumps(
            {
                "pool": pool,
                "share": picked[0] if picked else None,
                "events": events,
                "cpu_s": round(cpu, 1),
                "wall_s": round(wall, 1),
                "steps_peak_mib_in_memory_spilled_by_tag": {
                    k: [round(m / mib), round(t / mib), tags] for k, (m, t, tags) in peaks.items()
                },
            }
        ),
    )


if __name__ == "__main__":
    main()
