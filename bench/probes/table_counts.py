"""What the ingest's "counting" phase costs on one table generation: the meta.tables counts of a
Google 2011 table (rows, in-window time range, distinct jobs, tasks and machines) as the ingest
computes them (tracewh.ingestion._table_stats), with the wall, CPU and peak RSS, in a fresh
process. Run it on a hard-linked copy of a generation (`cp -al`): it writes the files' facts
(tracewh.ingestion.generations.fact_file) into the folder it is given; `--forget N` first removes
the facts of the last N Parquet files (as a new generation has none for the files it wrote).

Usage: python -m bench.probes.table_counts GENERATION TABLE MEMORY_LIMIT [--forget N]"""


def main() -> None:
    import json
    import resource
    import sys
    import tempfile
    import time
    from pathlib import Path

    import duckdb

    from tracewh import ingestion
    from tracewh.ingestion import generations
    from tracewh.traces import get_trace

    gen, table, memory = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if "--forget" in sys.argv:
        n = int(sys.argv[sys.argv.index("--forget") + 1])
        kinds = [d.name for d in (gen / generations.FACTS_FOLDER).iterdir()]
        for f in sorted(gen.rglob("*.parquet"))[-n:]:
            for kind in kinds:
                generations.fact_file(gen, kind, f).unlink(missing_ok=True)
    db = duckdb.connect()
    db.execute(f"SET memory_limit = '{memory}'")
    db.execute(f"SET temp_directory = '{tempfile.mkdtemp(dir=gen.parent)}'")
    c0, t0 = time.process_time(), time.perf_counter()
    stats = ingestion._table_stats(db, "google2011", get_trace("google2011").tables[table], gen)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "wall_s": round(time.perf_counter() - t0, 1),
                "cpu_s": round(time.process_time() - c0, 1),
                "rss_peak_mib": round(usage.ru_maxrss / 1024),
                "stats": stats,
            }
        )
    )


if __name__ == "__main__":
    main()
