"""The naive polars baseline of a google2019 ingest: read_ndjson + write_parquet per file.

Usage: python -m bench.probes.google2019_naive_polars JOB.json"""


def main() -> None:
    import json
    import sys
    from pathlib import Path

    import polars as pl

    job = json.loads(Path(sys.argv[1]).read_text())
    rows, fallbacks = {}, []
    for table, f in job["files"]:
        try:
            df = pl.read_ndjson(f)
        except pl.exceptions.PolarsError as e:
            # The schema comes from the first 100 lines: a field first seen as a number fails on a
            # later string. Infer from the whole shard instead (slower).
            fallbacks.append(Path(f).name + ": " + str(e).splitlines()[0][:80])
            df = pl.read_ndjson(f, infer_schema_length=None)
        out = Path(job["out"]) / Path(f).parent.name / table
        out.mkdir(parents=True, exist_ok=True)
        df.write_parquet(out / (Path(f).name.split(".")[0] + ".parquet"))
        rows[table] = rows.get(table, 0) + df.height
    print(json.dumps({"rows": rows, "fallbacks": fallbacks}))


if __name__ == "__main__":
    main()
