"""The transitions report's aggregation at the whole trace's size, over a home's stored
derived.task_transitions, counted two ways: by grouping every transition by pair and task (the
report before the stored flag), or over the flag `first_of_pair`. `flag` first writes a copy of
stored transitions that predate the column with the flag added, file by file (a task lives in one
range file). Each run prints nothing; `cmp` its .out files to compare the rows.

Usage: python -m bench.probes.transitions_flag flag TRANSITIONS_DIR OUT_DIR
       python -m bench.probes.transitions_flag grouped|flagged DIR OUT_FILE"""

import sys
import tempfile
from pathlib import Path

import duckdb


def main() -> None:
    how, src, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    con = duckdb.connect()
    con.execute("SET memory_limit = '3GB'")
    con.execute(f"SET temp_directory = '{tempfile.mkdtemp(dir=out.parent)}'")
    if how == "flag":
        out.mkdir(exist_ok=True)
        for f in sorted(src.glob("*.parquet")):
            con.execute(
                "COPY (SELECT *, row_number() OVER (PARTITION BY cell, job_id, task_index, from_event, "
                f"to_event, spans_gap ORDER BY time, seq) = 1 AS first_of_pair FROM read_parquet('{f}') "
                f"ORDER BY cell, job_id, task_index, time, seq) TO '{out / f.name}' (FORMAT parquet)"
            )
        return
    files = f"read_parquet('{src}/*.parquet')"
    if how == "grouped":
        sql = (
            "WITH per_task AS (SELECT from_event, to_event, spans_gap, count(*) AS n, "
            f"count(*) FILTER (is_synthesized) AS synthesized FROM {files} "
            "GROUP BY from_event, to_event, spans_gap, job_id, task_index) "
            "SELECT from_event, to_event, spans_gap, sum(n)::BIGINT, count(*), sum(synthesized)::BIGINT "
            "FROM per_task GROUP BY ALL ORDER BY ALL"
        )
    else:
        sql = (
            "SELECT from_event, to_event, spans_gap, count(*), count(*) FILTER (first_of_pair), "
            f"count(*) FILTER (is_synthesized) FROM {files} GROUP BY ALL ORDER BY ALL"
        )
    out.write_text(repr(con.execute(sql).fetchall()))


if __name__ == "__main__":
    main()
