"""DuckDB's profile of each report (its costliest operators) and the time of each life-cycle view
the reports read.

Usage: python -m bench.probes.reports_profile JOB_JSON"""


def main() -> None:
    import json
    import re
    import sys
    import time

    from tracewh import catalog, reports
    from tracewh.home import Home

    job = json.loads(sys.argv[1])
    home = Home.resolve(job["home"])
    out = {"reports": {}, "views": {}}

    def walk(node, acc, depth=0):
        if isinstance(node, list):
            for n in node:
                walk(n, acc, depth)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type") or node.get("operator_type") or node.get("operator_name")
        t = node.get("timing", node.get("operator_timing"))
        if kind and t is not None:
            rows = node.get("intermediate_rows", node.get("operator_cardinality"))
            info = node.get("extra_info") or {}
            what = ""
            if isinstance(info, dict):
                keys = (
                    "Function",
                    "Table",
                    "Partition By",
                    "Order By",
                    "Groups",
                    "Aggregates",
                    "Projections",
                )
                for key in keys:
                    if key in info:
                        what = f"{key}: {str(info[key])[:70]}"
                        break
            acc.append({"op": kind, "s": t, "rows": rows, "depth": depth, "what": what})
        for c in node.get("children", []) or []:
            walk(c, acc, depth + 1)

    for name in job["reports"]:
        rep = reports.get(name)
        params = reports.bind(rep, None)
        if rep.needs_trace:
            params["trace"] = "google2011"
        if "cell" in rep.params:
            params["cell"] = None
        con = catalog.connect(home, read_only=True)
        prof = job["tmp"] + "/profile_" + name + ".json"
        con.execute("PRAGMA enable_profiling='json'")
        con.execute(f"PRAGMA profiling_output='{prof}'")
        t0 = time.perf_counter()
        con.execute(rep.sql, params).fetchall()
        wall = time.perf_counter() - t0
        con.execute("PRAGMA disable_profiling")
        con.close()
        with open(prof) as f:
            d = json.load(f)
        ops = []
        walk(d.get("operator", d), ops)
        total = sum(o["s"] for o in ops) or 1
        ops.sort(key=lambda o: -o["s"])
        system = d.get("system", {})
        out["reports"][name] = {
            "wall": wall,
            "ops": ops[:6],
            "op_total": total,
            "peak_buffer_mb": (system.get("peak_buffer_memory") or 0) / 1e6,
        }
    views = sorted({v for n in job["reports"] for v in re.findall(r"lifecycle\.(\w+)", reports.get(n).sql)})
    for view in views:
        con = catalog.connect(home, read_only=True)
        t0 = time.perf_counter()
        probe = job["probes"].get(view, f"SELECT count(*), sum(hash(v)) FROM lifecycle.{view} AS v")
        con.execute(probe).fetchall()
        out["views"][view] = time.perf_counter() - t0
        con.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
