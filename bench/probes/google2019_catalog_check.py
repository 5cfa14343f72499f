"""The catalog's rows and rejects of a google2019 ingest, and value checksums over its Parquet.

Usage: python -m bench.probes.google2019_catalog_check CATALOG.duckdb CHECKS_JSON PARQUET_DIR"""


def main() -> None:
    import glob
    import json
    import sys

    import duckdb

    con = duckdb.connect(sys.argv[1], read_only=True)
    checks = json.loads(sys.argv[2])
    out = {
        "tables": dict(
            con.execute("SELECT table_name, rows FROM meta.tables WHERE trace = 'google2019'").fetchall()
        )
    }
    out["ingests"] = con.execute(
        "SELECT table_name, count(*), sum(rows_read), sum(rows_written), sum(rows_rejected), "
        "sum(epoch(finished - started)), epoch(max(finished) - min(started)) "
        "FROM meta.ingests WHERE trace = 'google2019' AND is_current GROUP BY ALL"
    ).fetchall()
    con.close()
    db = duckdb.connect()
    out["sums"] = {}
    for table, exprs in checks.items():
        files = glob.glob(sys.argv[3] + "/" + table + "/**/*.parquet", recursive=True)
        names = list(exprs)
        row = db.execute(
            "SELECT " + ", ".join(exprs[k] for k in names) + " FROM read_parquet($f, "
            "hive_partitioning = false, union_by_name = true)",
            {"f": files},
        ).fetchone()
        out["sums"][table] = {k: (int(v) if v is not None else None) for k, v in zip(names, row, strict=True)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
