"""Where a google2011 ingest's time goes: the same library call the CLI makes, in a fresh process,
with the wall and CPU time of each phase as the ingest reports them (IngestResult.phases), the
time its imports took and the peak RSS after it.

Usage: python -m bench.probes.ingest_phases HOME INPUT_FOLDER"""


def main() -> None:
    import json
    import resource
    import sys
    import time

    t_start = time.perf_counter()
    from pathlib import Path

    from tracewh import ingestion
    from tracewh.home import Home

    out: dict = {"import_s": time.perf_counter() - t_start}
    t0 = time.perf_counter()
    result = ingestion.ingest(Home.resolve(sys.argv[1]), "google2011", Path(sys.argv[2]))
    out["ingest_s"] = time.perf_counter() - t0
    out["phases"] = [[p.name, p.seconds, p.cpu_seconds] for p in result.phases]
    out["rss_peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
