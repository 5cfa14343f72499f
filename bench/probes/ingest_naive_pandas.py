"""The naive pandas baseline of a google2011 ingest: read_csv + to_parquet per file.

Usage: python -m bench.probes.ingest_naive_pandas JOB.json"""


def main() -> None:
    import json
    import sys
    from pathlib import Path

    import pandas as pd

    job = json.loads(Path(sys.argv[1]).read_text())
    rows = 0
    for table, f in job["files"]:
        df = pd.read_csv(f, header=None, names=job["columns"][table])
        out = Path(job["out"]) / table
        out.mkdir(parents=True, exist_ok=True)
        df.to_parquet(out / (Path(f).name.split(".")[0] + ".parquet"), engine="pyarrow")
        rows += len(df)
    print(rows)


if __name__ == "__main__":
    main()
