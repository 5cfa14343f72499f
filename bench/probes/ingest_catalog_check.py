"""What the catalog says a google2011 ingest wrote: rows per table, the ingests' row counts and
times, files, partitions and bytes (read-only): the ingest bench's row check.

Usage: python -m bench.probes.ingest_catalog_check CATALOG.duckdb"""


def main() -> None:
    import json
    import sys

    import duckdb

    con = duckdb.connect(sys.argv[1], read_only=True)
    tables = dict(
        con.execute("SELECT table_name, rows FROM meta.tables WHERE trace = 'google2011'").fetchall()
    )
    ing = con.execute(
        "SELECT table_name, count(*), sum(rows_read), sum(rows_written), sum(rows_rejected), "
        "epoch(max(finished) - min(started)), sum(epoch(finished - started)) "
        "FROM meta.ingests WHERE trace = 'google2011' AND is_current GROUP BY ALL"
    ).fetchall()
    files = con.execute(
        "SELECT table_name, files, partitions, bytes FROM meta.tables WHERE trace = 'google2011'"
    ).fetchall()
    span = con.execute(
        "SELECT epoch(max(finished) - min(started)) FROM meta.ingests "
        "WHERE trace = 'google2011' AND is_current"
    ).fetchone()[0]
    print(json.dumps({"tables": tables, "ingests": ing, "files": files, "span": span}))


if __name__ == "__main__":
    main()
