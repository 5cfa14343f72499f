"""Alibaba 2017: the one archive of six headerless tables (data/sample/alibaba2017, hand-made in
the documented format) ingests whole; negative times are values ("before the trace"), classed with
0; a bad field is a reject and a missing instance id is not; the reports over the shared batch and
machine adapters match hand computations on the sample; synth writes the published form."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import duckdb
import pytest
from conftest import SAMPLE_ALIBABA, SAMPLE_ALIBABA2017

from tracewh import download as dl
from tracewh import ingestion as ingest
from tracewh import reports, synth
from tracewh.errors import InputError
from tracewh.home import Home
from tracewh.traces import BUILTIN, get_trace, prelude_sql

SAMPLE = SAMPLE_ALIBABA2017
ARCHIVE = SAMPLE / "alibaba-trace-2017.tar.gz"


def _members(path: Path = ARCHIVE) -> dict[str, bytes]:
    """The archive's members by file name, read with tarfile (not with tracewh)."""
    with tarfile.open(path, "r:gz") as tar:
        return {m.name.rpartition("/")[2]: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]


def _archive(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"alibaba-trace-2017/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    h = Home.resolve(tmp_path_factory.mktemp("ali2017") / "home")
    ingest.ingest(h, "alibaba2017", SAMPLE)
    return h


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    """The sample's members extracted and read by DuckDB's CSV reader: the independent view."""
    folder = tmp_path_factory.mktemp("ali2017raw")
    con = duckdb.connect()
    for name, data in _members().items():
        (folder / name).write_bytes(data)
        table = name.removesuffix(".csv")
        con.execute(
            f"CREATE VIEW {table} AS SELECT * FROM read_csv('{folder / name}', header = false, delim = ',')"
        )
    yield con
    con.close()


def _q(home: Home, sql: str) -> list[tuple]:
    with duckdb.connect(str(home.catalog), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_it_follows_the_traces_before_it_in_the_registry():
    # added after them: their listings and compare's columns keep their order
    assert BUILTIN[:4] == ("google2011", "google2019", "alibaba2018", "alibaba2017")


def test_every_table_is_read_whole_from_its_member(home, raw):
    members = _members()
    spec = get_trace("alibaba2017")
    assert sorted(members) == sorted(t.member for t in spec.tables.values())
    for name, table in spec.tables.items():
        lines = members[str(table.member)].count(b"\n")
        assert _q(home, f"SELECT count(*) FROM alibaba2017.{name}") == [(lines,)], name
    assert _q(home, "SELECT count(*) FROM meta.rejects WHERE trace = 'alibaba2017'") == [(0,)]
    # a few columns against the plain CSV read (column numbers as in schema.csv)
    assert (
        _q(home, "SELECT sum(instance_num), sum(plan_mem) FROM alibaba2017.batch_task")
        == raw.execute("SELECT sum(column4), sum(column7) FROM batch_task").fetchall()
    )
    assert (
        _q(home, "SELECT sum(cpu_util), max(load15) FROM alibaba2017.server_usage")
        == raw.execute("SELECT sum(column2), max(column7) FROM server_usage").fetchall()
    )
    assert (
        _q(home, "SELECT string_agg(cpuset, ';' ORDER BY seq) FROM alibaba2017.container_event")
        == raw.execute("SELECT string_agg(column7, ';') FROM container_event").fetchall()
    )


def test_missing_job_and_task_ids_stay_as_null(home):
    # the sample's last three instances have neither (the known issue of batch_instance.csv)
    assert _q(
        home, "SELECT count(*), min(start_timestamp) FROM alibaba2017.batch_instance WHERE job_id IS NULL"
    ) == [(3, 65012)]
    assert _q(home, "SELECT count(*) FROM alibaba2017.batch_instance WHERE task_id IS NULL") == [(3,)]


def test_negative_and_zero_times_are_before_the_trace(home):
    # by hand, batch_instance.csv: one start at -20, three at 0 (Waiting, Ready, job 4), 22 later
    got = _q(
        home,
        "SELECT start_timestamp_class, count(*), min(start_timestamp), max(start_timestamp) "
        "FROM alibaba2017.batch_instance GROUP BY 1 ORDER BY 1",
    )
    assert got == [("before_window", 4, -20, 0), ("in_window", 22, 39990, 77500)]
    # the task created at -30 and the usage samples at -300 and -60 are kept, not refused
    assert _q(home, "SELECT job_id, task_id FROM alibaba2017.batch_task WHERE create_timestamp < 0") == [
        (1, 1)
    ]
    assert _q(home, 'SELECT machine_id FROM alibaba2017.server_usage WHERE "timestamp" < 0') == [(5,)]
    assert _q(home, "SELECT instance_id FROM alibaba2017.container_usage WHERE ts < 0") == [(6,)]


def test_the_time_classes_come_from_the_spec():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA alibaba2017")
    con.execute(prelude_sql(get_trace("alibaba2017")))
    got = con.execute(
        "SELECT list(alibaba2017.time_class(t) ORDER BY t) FROM range(-2, 3) AS r(t)"
    ).fetchone()
    assert got == (["before_window", "before_window", "before_window", "in_window", "in_window"],)


def test_bad_fields_are_rejects_and_a_missing_instance_id_is_not(tmp_path):
    members = _members()
    members["batch_task.csv"] += b"42000,42600,7,1.5,1,Terminated,50,0.0046\n"  # task id not an integer
    members["server_usage.csv"] += b"43200,6,,57,40,0.6,0.6,0.7\n"  # cpu util: mandatory, empty
    members["batch_instance.csv"] += b"-5,300,,,3,Terminated,1,1,,,,\n"  # no ids, no usage, negative start
    src = tmp_path / "src"
    src.mkdir()
    _archive(src / "alibaba-trace-2017.tar.gz", members)
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2017", src)
    got = _q(home, "SELECT table_name, column_name, error_type FROM meta.rejects ORDER BY table_name")
    assert got == [("batch_task", "task_id", "CAST"), ("server_usage", "cpu_util", "EMPTY MANDATORY")]
    assert _q(home, "SELECT count(*) FROM alibaba2017.batch_instance") == [(27,)]


def test_its_archive_takes_the_exact_path_and_no_derived_table_is_built_for_it(tmp_path):
    # the fast path takes plain and gzip'd CSV parts, not an archive's members; the derived layer
    # is built from the life-cycle inputs, which this trace does not provide: ingesting it beside
    # alibaba2018 (whose parts do take the fast path, and whose DAG walk is stored) leaves that
    # trace's derived rows as they were and adds none
    home = Home.resolve(tmp_path / "home")
    before = ingest.ingest(home, "alibaba2018", SAMPLE_ALIBABA)
    assert any(f.fast for f in before.files)
    derived = "SELECT trace, name, data_dir FROM meta.derived ORDER BY ALL"
    stored = _q(home, derived)
    assert {t for t, *_ in stored} == {"alibaba2018"}
    result = ingest.ingest(home, "alibaba2017", SAMPLE)
    assert sorted(f.table for f in result.files) == sorted(get_trace("alibaba2017").tables)
    assert not any(f.fast for f in result.files)
    assert _q(home, derived) == stored
    lines = _members()["batch_instance.csv"].count(b"\n")
    assert _q(home, "SELECT count(*) FROM alibaba2017.batch_instance") == [(lines,)]
    both = reports.get("ali-hierarchy").traces
    assert {"alibaba2018", "alibaba2017"} <= set(both)
    for trace in ("alibaba2018", "alibaba2017"):
        assert reports.run(home, "ali-hierarchy", trace=trace).rows


def test_a_missing_member_is_named(tmp_path):
    members = _members()
    del members["container_usage.csv"]
    src = tmp_path / "src"
    src.mkdir()
    _archive(src / "alibaba-trace-2017.tar.gz", members)
    with pytest.raises(InputError, match=r"container_usage\.csv"):
        ingest.ingest(Home.resolve(tmp_path / "home"), "alibaba2017", src)


def test_the_published_digest_guards_the_file_it_names(tmp_path):
    # SHA256SUM gives the digest of trace_201708.tgz: the sample under that name is not that file
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ARCHIVE, src / "trace_201708.tgz")
    with pytest.raises(InputError, match="sha256"):
        ingest.ingest(Home.resolve(tmp_path / "home"), "alibaba2017", src)


def _report(home: Home, name: str) -> list[dict]:
    rows = reports.run(home, name, trace="alibaba2017")
    return [dict(zip(rows.columns, r, strict=True)) for r in rows.rows]


def test_machine_utilisation_by_hand(home):
    rows = _report(home, "ali-utilization")
    hourly = {r["x"]: r for r in rows if r["section"] == "hourly"}
    # hour 11: machines 1-4 at 39600..41400 (every 600 s), cpu base + 0..3, mem constant
    assert sorted(hourly) == [11, 12]
    assert hourly[11]["machines"] == 4
    assert hourly[11]["cpu_util_percent"] == pytest.approx(round((31 + 47.5 + 22.25 + 60) / 4 + 1.5, 3))
    assert hourly[11]["mem_util_percent"] == pytest.approx(round((80.5 + 92 + 70 + 88.25) / 4, 3))
    # hour 12: machine 5 at 43200 only (its samples at -300 and 0 are before the trace)
    assert (hourly[12]["machines"], hourly[12]["cpu_util_percent"]) == (1, 16.5)
    per = {r["item"]: (r["containers"], r["batch_instances"]) for r in rows if r["section"] == "per machine"}
    # containers created per machine (container_event Create); instance rows per machine
    assert per == {"1": (2, 6), "2": (2, 7), "3": (1, 4), "4": (2, 4), "5": (0, 1), "6": (0, 2), "8": (0, 2)}


def test_hierarchy_by_hand(home):
    rows = {(r["level"], r["class"]): r for r in _report(home, "ali-hierarchy")}
    assert rows[("jobs", None)]["count"] == 6
    assert rows[("tasks", None)]["count"] == 10
    assert rows[("instances", None)]["count"] == 26
    by_class = rows[("tasks by class", "no DAG information")]
    assert (by_class["count"], by_class["share"], by_class["instances_per_task"]) == (10, 1.0, 2.4)
    assert all(r["published_count"] is None and r["published_share"] is None for r in rows.values())


def test_batch_timing_start_delay_by_hand(home):
    rows = {r["instances_per_task"]: r for r in _report(home, "ali-start-delay")}
    # tasks with one started instance: (2,2), (3,2), (5,2); the others (delays from the first start):
    # (1,1) 0 30 | (1,2) 0 5 | (2,1) 0 20 90 190 1000 | (5,1) 0 5 20 90 190 | (6,1) 0 10
    assert rows["1"]["tasks"] == 3 and rows["1"]["max_delay_s"] == 0
    two = rows["2-10"]
    assert two["tasks"] == 5
    assert two["mean_of_mean_delay_s"] == pytest.approx((15 + 2.5 + 260 + 61 + 5) / 5)
    assert two["mean_of_max_delay_s"] == pytest.approx((30 + 5 + 1000 + 190 + 10) / 5)
    assert (two["p50_max_delay_s"], two["max_delay_s"]) == (30, 1000)


def test_the_download_is_the_one_archive_of_the_readme(tmp_path):
    plan = dl.offline_plan("alibaba2017", tmp_path / "dest")
    assert [(f.path, f.size) for f in plan.files] == [("alibaba-trace-2017.tar.gz", None)]
    from trace_server import TraceServer

    server = TraceServer()
    server.files["v2017Traces/alibaba-trace-2017.tar.gz"] = ARCHIVE.read_bytes()
    server.start()
    try:
        online = dl.plan(
            "alibaba2017", tmp_path / "dest", dl.Selection(tables=["batch_task"]), mirror=server.url
        )
        assert [(f.path, f.url.removeprefix(server.url)) for f in online.files] == [
            ("alibaba-trace-2017.tar.gz", "/v2017Traces/alibaba-trace-2017.tar.gz")
        ]
        dl.download(online, jobs=1)
    finally:
        server.stop()
    assert (tmp_path / "dest" / "alibaba-trace-2017.tar.gz").read_bytes() == ARCHIVE.read_bytes()


def test_synth_writes_the_one_archive_and_it_ingests(tmp_path):
    out = tmp_path / "synth"
    manifest = synth.synth("alibaba2017", out, scale=0.004, workers=1)
    assert sorted(p.name for p in out.iterdir()) == ["alibaba-trace-2017.tar.gz", "manifest.json"]
    members = _members(out / "alibaba-trace-2017.tar.gz")
    lines = {name.removesuffix(".csv"): data.count(b"\n") for name, data in members.items()}
    assert lines == {t: m["rows"] for t, m in manifest["tables"].items()}
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2017", out)
    for table, n in lines.items():
        assert _q(home, f"SELECT count(*) FROM alibaba2017_raw.{table}") == [(n,)], table
    assert _q(home, "SELECT count(*) FROM meta.rejects") == [(0,)]
    assert _q(home, "SELECT trace, scale FROM meta.synthetic_traces") == [("alibaba2017", 0.004)]


def test_synth_archive_is_the_same_bytes_for_the_same_seed(tmp_path):
    # A gzip header records a time and a file name unless told not to (RFC 1952: MTIME at bytes
    # 4-7, FLG bit 3 = FNAME): either would make the archive's digest, in the manifest and the
    # SHA256SUM, change from run to run (two runs inside one second would not show the time).
    manifests = [synth.synth("alibaba2017", tmp_path / run, scale=0.002, workers=1) for run in ("a", "b")]
    assert len({m["files"]["alibaba-trace-2017.tar.gz"]["sha256"] for m in manifests}) == 1
    head = (tmp_path / "a" / "alibaba-trace-2017.tar.gz").read_bytes()[:10]
    assert head[4:8] == b"\0\0\0\0" and not head[3] & 0x08
