"""Property: any valid raw task_events rows -> ingest -> the view gives back the same values, and a
partition-pruned query equals a full scan."""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
from conftest import MAX_TIME, write_gz
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracewh import ingestion as ingest
from tracewh.home import Home

i64 = st.integers(min_value=0, max_value=MAX_TIME)
times = st.one_of(st.just(0), st.just(MAX_TIME), st.integers(min_value=1, max_value=3_000_000_000_000))
opt_int = st.one_of(st.none(), st.integers(min_value=0, max_value=11))
opt_float = st.one_of(st.none(), st.floats(min_value=0, max_value=1, allow_nan=False, width=32))
hash_text = st.text(alphabet="ABCDEFabcdef0123456789+/=", min_size=1, max_size=44)

rows = st.lists(
    st.tuples(
        times,
        opt_int,
        i64,
        st.integers(0, 100_000),
        st.one_of(st.none(), i64),
        st.integers(0, 8),
        st.one_of(st.none(), hash_text),
        opt_int,
        st.integers(0, 11),
        opt_float,
        opt_float,
        opt_float,
        st.one_of(st.none(), st.booleans()),
    ),
    min_size=1,
    max_size=40,
)


def fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return f"{v:.6g}"  # the traces write short floats, some in scientific notation
    return str(v)


# Each example ingests several files at once (parts of one table): about fifteen generated files
# in six ingests (an ingest costs about the same for one file as for five small ones).
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(rows, min_size=1, max_size=5))
def test_raw_rows_come_back_unchanged_through_ingest_and_view(files):
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        names = [f"part-{i:05d}-of-{len(files):05d}.csv.gz" for i in range(len(files))]
        for name, data in zip(names, files, strict=True):
            write_gz(src / "task_events" / name, [",".join(fmt(v) for v in r) for r in data])
        home = Home.resolve(Path(tmp) / "home")
        done = ingest.ingest(home, "google2011", src).files
        assert sorted((f.name, f.rows_written, f.rows_rejected) for f in done) == [
            (name, len(data), 0) for name, data in zip(names, files, strict=True)
        ]
        con = duckdb.connect(str(home.catalog), read_only=True)
        got = con.execute(
            "SELECT time, missing_info, job_id, task_index, machine_id, event_type, user, "
            "scheduling_class, priority, cpu_request, memory_request, disk_space_request, "
            "different_machines_restriction FROM google2011.task_events"
        ).fetchall()
        rows_given = [r for data in files for r in data]
        expected = [tuple(float(fmt(v)) if isinstance(v, float) else v for v in r) for r in rows_given]
        assert sorted(got, key=repr) == sorted(expected, key=repr)
        days = {d for (d,) in con.execute("SELECT DISTINCT day FROM google2011.task_events").fetchall()}
        for day in days:
            pruned = con.execute(f"SELECT count(*) FROM google2011.task_events WHERE day = {day}").fetchone()
            full = con.execute(
                f"SELECT count(*) FILTER (time // 86400000000 = {day}) FROM google2011.task_events"
            ).fetchone()
            assert pruned == full
        con.close()
