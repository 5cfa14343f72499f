"""The row counts of the Alibaba tables in a catalog (read-only): the ingest's row check.

Usage: python -m bench.probes.alibaba_catalog_rows CATALOG.duckdb"""


def main() -> None:
    import json
    import sys

    import duckdb

    con = duckdb.connect(sys.argv[1], read_only=True)
    print(
        json.dumps(
            dict(
                con.execute("SELECT table_name, rows FROM meta.tables WHERE trace = 'alibaba2018'").fetchall()
            )
        )
    )


if __name__ == "__main__":
    main()
