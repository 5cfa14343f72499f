"""The naive pandas baseline of a google2019 ingest: read_json + to_parquet per file.

Usage: python -m bench.probes.google2019_naive_pandas JOB.json"""


def main() -> None:
    import json
    import sys
    from pathlib import Path

    import pandas as pd

    job = json.loads(Path(sys.argv[1]).read_text())
    rows = {}
    for table, f in job["files"]:
        df = pd.read_json(f, lines=True)
        out = Path(job["out"]) / Path(f).parent.name / table
        out.mkdir(parents=True, exist_ok=True)
        df.to_parquet(out / (Path(f).name.split(".")[0] + ".parquet"), engine="pyarrow")
        rows[table] = rows.get(table, 0) + len(df)
    print(json.dumps({"rows": rows, "fallbacks": []}))


if __name__ == "__main__":
    main()
