"""The naive polars baseline of a google2011 ingest: read_csv + write_parquet per file.

Usage: python -m bench.probes.ingest_naive_polars JOB.json"""


def main() -> None:
    import json
    import sys
    from pathlib import Path

    import polars as pl

    job = json.loads(Path(sys.argv[1]).read_text())
    rows = 0
    for table, f in job["files"]:
        df = pl.read_csv(f, has_header=False, new_columns=job["columns"][table])
        out = Path(job["out"]) / table
        out.mkdir(parents=True, exist_ok=True)
        df.write_parquet(out / (Path(f).name.split(".")[0] + ".parquet"))
        rows += df.height
    print(rows)


if __name__ == "__main__":
    main()
