"""The floor under a report: a plain DuckDB scan or sort of the table's Parquet.

Usage: python -m bench.probes.report_floor GLOB MEMORY_LIMIT KIND TEMP_DIR"""


def main() -> None:
    import json
    import sys

    import duckdb

    glob, limit, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    con = duckdb.connect(config={"memory_limit": limit, "temp_directory": sys.argv[4]})
    src = f"read_parquet('{glob}', hive_partitioning = true)"
    sql = {
        "usage scan": f"SELECT count(*), sum(hash(job_id, task_index, start_time, end_time, cpu_rate, "
        f"canonical_memory_usage, machine_id)) FROM {src}",
        "scan": f"SELECT count(*), sum(hash(job_id, task_index, time, seq, event_type, machine_id)) "
        f"FROM {src}",
        "sort": f"SELECT count(*), sum(o) FROM (SELECT row_number() OVER "
        f"(PARTITION BY job_id, task_index ORDER BY time, seq) AS o FROM {src})",
    }[kind]
    rows, check = con.execute(sql).fetchall()[0]
    print("@@JSON " + json.dumps({"rows": rows, "check": str(check)}))


if __name__ == "__main__":
    main()
