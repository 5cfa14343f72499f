"""The floor of a whole-trace ingest: DuckDB's own CSV reader copying the files to one Parquet file.

Usage: python -m bench.probes.wholetrace_copy FILES_JSON OUT.parquet MEMORY_LIMIT"""


def main() -> None:
    import json
    import sys

    import duckdb

    files, out = json.loads(sys.argv[1]), sys.argv[2]
    con = duckdb.connect(config={"memory_limit": sys.argv[3]})
    n = con.execute(
        f"COPY (SELECT * FROM read_csv({files!r}, header=false, auto_detect=true)) TO '{out}' "
        "(FORMAT parquet, COMPRESSION zstd)"
    ).fetchone()[0]
    print("@@JSON " + json.dumps({"rows": n}))


if __name__ == "__main__":
    main()
