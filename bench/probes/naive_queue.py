"""The naive baselines of the queue report: pandas or polars over the raw task_events CSV,
with the same hour buckets and the same rules, written as JSON for the bench to compare.

Usage: python -m bench.probes.naive_queue pandas|polars JOB.json"""

import json
import sys

MAX, HOUR = 9223372036854775807, 3600000000
USE = ["time", "job_id", "task_index", "event_type"]


def pandas(job: dict) -> None:
    import pandas as pd

    frames = [
        pd.read_csv(f, header=None, names=job["columns"], usecols=USE, dtype={c: "int64" for c in USE})
        for f in job["files"]
    ]
    df = pd.concat(frames, ignore_index=True)
    rows = len(df)
    df = df[~df["event_type"].isin([7, 8])]
    # Stable sort: events of a task at the same microsecond keep the file order.
    df = df.sort_values(["job_id", "task_index", "time"], kind="stable")
    df["prev"] = df.groupby(["job_id", "task_index"], sort=False)["event_type"].shift(1)
    ev, prev = df["event_type"], df["prev"]
    ends = ev.isin([2, 3, 5, 6])  # EVICT FAIL KILL LOST
    df["d_pending"] = (ev == 0).astype(int) - (ev == 1) - (ends & (prev == 0))
    df["d_running"] = (ev == 1).astype(int) - (ev == 4) - (ends & (prev == 1))
    df = df[df["time"] < MAX]
    df["bucket"] = df["time"] // HOUR
    df["submitted"], df["scheduled"], df["ended"] = ev == 0, ev == 1, ev.between(2, 6)
    per = (
        df.groupby("bucket")
        .agg(
            d_pending=("d_pending", "sum"),
            d_running=("d_running", "sum"),
            submitted=("submitted", "sum"),
            scheduled=("scheduled", "sum"),
            ended=("ended", "sum"),
        )
        .sort_index()
    )
    per["pending"], per["running"] = per["d_pending"].cumsum(), per["d_running"].cumsum()
    out = {
        int(b): [int(r.pending), int(r.running), int(r.submitted), int(r.scheduled), int(r.ended)]
        for b, r in per.iterrows()
    }
    with open(job["out"], "w") as f:
        json.dump({"rows": rows, "buckets": out}, f)


def polars(job: dict) -> None:
    import polars as pl

    idx = [job["columns"].index(c) for c in USE]
    frames = [
        pl.read_csv(
            f, has_header=False, columns=idx, schema_overrides={f"column_{i}": pl.Int64 for i in idx}
        ).rename(lambda c: job["columns"][int(c.split("_")[1])])
        for f in job["files"]
    ]
    df = pl.concat(frames)
    rows = df.height
    ev, prev = pl.col("event_type"), pl.col("prev")
    ends = ev.is_in([2, 3, 5, 6])  # EVICT FAIL KILL LOST
    per = (
        df.filter(~ev.is_in([7, 8]))
        # Stable sort: events of a task at the same microsecond keep the file order.
        .sort(["job_id", "task_index", "time"], maintain_order=True)
        .with_columns(ev.shift(1).over(["job_id", "task_index"]).alias("prev"))
        .filter(pl.col("time") < MAX)
        .group_by((pl.col("time") // HOUR).alias("bucket"))
        .agg(
            ((ev == 0).cast(pl.Int64) - (ev == 1) - (ends & (prev == 0)).fill_null(False))
            .sum()
            .alias("d_pending"),
            ((ev == 1).cast(pl.Int64) - (ev == 4) - (ends & (prev == 1)).fill_null(False))
            .sum()
            .alias("d_running"),
            (ev == 0).sum().alias("submitted"),
            (ev == 1).sum().alias("scheduled"),
            ev.is_between(2, 6).sum().alias("ended"),
        )
        .sort("bucket")
        .with_columns(
            pl.col("d_pending").cum_sum().alias("pending"), pl.col("d_running").cum_sum().alias("running")
        )
    )
    out = {
        int(r["bucket"]): [
            int(r["pending"]),
            int(r["running"]),
            int(r["submitted"]),
            int(r["scheduled"]),
            int(r["ended"]),
        ]
        for r in per.iter_rows(named=True)
    }
    with open(job["out"], "w") as f:
        json.dump({"rows": rows, "buckets": out}, f)


def main() -> None:
    kind, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        job = json.load(f)
    {"pandas": pandas, "polars": polars}[kind](job)


if __name__ == "__main__":
    main()
