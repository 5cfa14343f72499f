#!/bin/bash
# Peak memory of a one-worker google2019 ingest against the size of its one instance_usage shard,
# at the default ingest limit and at smaller --memory-limit values (issue 13: "ingest memory flat").
#
#   bench/shard_memory.sh WORK [LIMIT ...]     e.g. bench/shard_memory.sh /tmp/shards 512MB 1GB
#
# WORK gets three synthetic cells (tracewh synth google2019 --tables instance_usage, one shard each:
# 73, 506 and 874 MB of JSON at scales 0.00003, 0.000125, 0.0005). Each ingest runs twice under
# /usr/bin/time; a line per run: limit, scale, run, peak RSS KiB, user s, system s, wall s, and
# (rows, sum of the rows' hashes) over the Parquet written, which must be equal at every limit. A
# failed ingest prints FAILED and the sweep goes on.
set -uo pipefail
work=$(realpath -m "$1"); shift
cd "$(dirname "$0")/.." || exit 1
limits=(default "$@")
for s in 0.00003 0.000125 0.0005; do
  [ -d "$work/s$s" ] || .venv/bin/tracewh synth google2019 "$work/s$s" --scale $s --tables instance_usage --cells a -q || exit 1
done
for limit in "${limits[@]}"; do
  args=(); [ "$limit" = default ] || args=(--memory-limit "$limit")
  for s in 0.00003 0.000125 0.0005; do
    for run in 1 2; do
      home=$(mktemp -d)
      if /usr/bin/time -f "%M %U %S %e" -o "$home.time" .venv/bin/tracewh --home "$home/h" ingest google2019 \
        "$work/s$s" --tables instance_usage --workers 1 --quiet "${args[@]}"; then
        # every value of every row: the sum of the rows' hashes
        check=$(.venv/bin/python -c "import duckdb; print(duckdb.connect().sql(\"SELECT count(*), sum(hash(t)) FROM read_parquet('$home/h/parquet/google2019/instance_usage/**/*.parquet') AS t\").fetchall()[0])")
        echo "$limit $s run$run $(cat "$home.time") $check"
      else
        echo "$limit $s run$run FAILED (exit $?): $(tail -1 "$home.time")"
      fi
      rm -rf "$home" "$home.time"
    done
  done
done
