"""The phases of one report on Spark: the session, the catalog's registration, a cold and a warm run.

Usage: python -m bench.probes.spark_phases HOME REPORT"""


def main() -> None:
    import json
    import sys
    import time

    t0 = time.perf_counter()
    from tracewh import reports
    from tracewh.engines import spark as ws
    from tracewh.home import Home

    s = ws.session("local[2]")
    t1 = time.perf_counter()
    home = Home.resolve(sys.argv[1])
    ws.register(s, home)
    t2 = time.perf_counter()
    reports.run(home, sys.argv[2], trace="google2011", spark=s)
    t3 = time.perf_counter()
    rows = reports.run(home, sys.argv[2], trace="google2011", spark=s)
    t4 = time.perf_counter()
    print(
        json.dumps(
            {
                "session": t1 - t0,
                "register": t2 - t1,
                "cold": t3 - t2,
                "warm": t4 - t3,
                "rows": len(rows.rows),
            }
        )
    )


if __name__ == "__main__":
    main()
