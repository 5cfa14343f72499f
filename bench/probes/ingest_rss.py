"""Where an ingest's resident memory peaks: the library call the CLI makes, in this process, with a
thread reading /proc/self/status (VmRSS) and pyarrow's default pool every 50 ms, each sample tagged
with the step running then (the ingest's phase, and inside ``deriving`` the derived builder and the
table it writes, seen by wrapping those module functions in this process only).

Usage: python -m bench.probes.ingest_rss HOME TRACE MEMORY_LIMIT TABLES PARTS SOURCE...
(TABLES comma-separated; PARTS e.g. 0-49, or '' for all; REPLACE=1 in the environment: --replace,
to measure the same parts again in the same home). DuckDB's own count (duckdb_memory(), by a
second connection to the staged catalog) is sampled too while the derived tables are built.
Prints one JSON line after @@JSON: the peak RSS, the limit, and per step its peak RSS, pyarrow and
DuckDB bytes, and its first second."""


def main() -> None:
    import functools
    import json
    import os
    import sys
    import threading
    import time
    from pathlib import Path

    import pyarrow as pa

    from tracewh import ingestion
    from tracewh.catalog import derived
    from tracewh.home import Home
    from tracewh.options import IngestOptions

    home, trace, limit, tables, parts, *sources = sys.argv[1:]
    step = ["start"]
    samples: list[tuple[float, str, int, int, int]] = []
    cursor: list = []  # a second connection to the staged catalog's database, once the build has one
    done = threading.Event()
    lock = threading.Lock()

    def rss() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def sample() -> None:
        while not done.wait(0.05):
            duck = 0
            with lock:
                if cursor:
                    try:
                        row = (
                            cursor[0]
                            .execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()")
                            .fetchone()
                        )
                        duck = int(row[0] or 0) if row else 0
                    except Exception:
                        duck = -1
            samples.append((time.monotonic(), step[0], rss(), pa.total_allocated_bytes(), duck))

    class Phases(ingestion.Progress):
        def phase(self, text: str) -> None:
            step[0] = text

    def tagged(name, fn, label):
        @functools.wraps(fn)
        def run(*a, **k):
            before = step[0]
            step[0] = label(a, k) if callable(label) else label
            with lock:
                if not cursor:
                    cursor.append(a[0].cursor())
            try:
                return fn(*a, **k)
            finally:
                step[0] = before
                if not before.startswith("deriving:"):  # the catalog's commit needs it closed
                    with lock:
                        cursor.pop().close()

        setattr(derived, name, run)

    tagged("_per_task_tables", derived._per_task_tables, "deriving: per-task tables")
    tagged("_write", derived._write, lambda a, k: f"{step[0].split(' <')[0]} <{derived.short(a[3])}>")
    tagged("build_usage", derived.build_usage, "deriving: usage")
    tagged("build_rebuilt", derived.build_rebuilt, "deriving: rebuilt")
    tagged("build_walks", derived.build_walks, "deriving: walks")
    tagged("batches", derived.batches, "deriving: batches")

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    replace = bool(os.environ.get("REPLACE"))
    opts = IngestOptions(tables=tables.split(","), parts=parts or None, verify=False, replace=replace)
    t0 = time.monotonic()
    ingestion.ingest(
        Home.resolve(home), trace, [Path(s) for s in sources], opts, memory_limit=limit, progress=Phases()
    )
    done.set()
    t.join()
    steps: dict[str, dict] = {}
    for when, name, r, arrow, duck in samples:
        s = steps.setdefault(
            name, {"first_s": round(when - t0, 1), "rss_mib": 0, "arrow_mib": 0, "duckdb_mib": 0, "s": 0.0}
        )
        s["rss_mib"] = max(s["rss_mib"], r >> 20)
        s["arrow_mib"] = max(s["arrow_mib"], arrow >> 20)
        s["duckdb_mib"] = max(s["duckdb_mib"], duck >> 20)
        s["s"] = round(when - t0 - s["first_s"], 1)
    peak = max(samples, key=lambda x: x[2])
    print(
        "@@JSON "
        + json.dumps(
            {
                "limit": limit,
                "wall_s": round(time.monotonic() - t0, 1),
                "peak_rss_mib": peak[2] >> 20,
                "peak_step": peak[1],
                "peak_duckdb_mib": peak[4] >> 20,
                "steps": steps,
            }
        )
    )


if __name__ == "__main__":
    main()
