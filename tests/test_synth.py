"""`tracewh synth`: tiny synthetic traces of every kind, ingested, against the manifest, an
independent count of the raw lines, and independent oracles (pandas queue, networkx critical path).

Every expected value comes from outside the code under test: line counts from Python's gzip /
tarfile modules, event counts from reading the raw CSV / JSON with the standard library, the queue
from pandas over the raw CSV, critical paths from networkx over the raw batch_task.csv. The
manifest itself is checked against those, then the catalog against the manifest.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import tarfile
import zlib
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from tracewh import ingestion as ingest
from tracewh import reports
from tracewh.cli.main import main as cli_main
from tracewh.errors import InputError, UsageError
from tracewh.home import Home
from tracewh.options import IngestOptions
from tracewh.synth import crc32_combine, synth

# One worker runs this module (`--dist loadgroup`): its module-scoped homes are built once, not on
# each worker that gets one of its tests.
pytestmark = [pytest.mark.xdist_group("synth")]

SCALE_2011 = 0.0001  # ~5k task events, 2 machines (the minimum), ~0.16 M usage windows
SCALE_2019 = 0.000006  # ~10-20k instance events per cell
SCALE_ALI = 0.0002  # ~840 jobs, ~3k task rows


def _lines(path: Path) -> list[bytes]:
    """The raw lines of a file, read with the standard library only."""
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path, "r:gz") as tf:
            (member,) = tf.getmembers()
            data = tf.extractfile(member).read()  # type: ignore[union-attr]
    elif path.name.endswith(".gz"):
        data = gzip.decompress(path.read_bytes())
    else:
        data = path.read_bytes()
    assert data.endswith(b"\n")
    return data.split(b"\n")[:-1]


def _catalog(home: Home):
    return duckdb.connect(str(home.catalog), read_only=True)


def _check_files(out: Path, manifest: dict) -> dict[str, int]:
    """Every file's lines (independent count) equal the manifest's; returns lines per table."""
    per_table: Counter[str] = Counter()
    for rel, f in manifest["files"].items():
        n = len(_lines(out / rel))
        assert n == f["rows"], rel
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == f["sha256"], rel
        per_table[f["table"]] += n
    for table, t in manifest["tables"].items():
        assert t["rows"] == per_table[table], table
    assert not list(out.rglob("*.tmp")), "no temporary files are left"
    return dict(per_table)


def _check_ingest(home: Home, trace: str, lines: dict[str, int]) -> None:
    con = _catalog(home)
    try:
        got = dict(
            con.execute(
                "SELECT table_name, sum(rows_written) FROM meta.ingests WHERE trace = ? GROUP BY 1", [trace]
            ).fetchall()
        )
        rejected = con.execute(
            "SELECT coalesce(sum(rows_rejected), 0) FROM meta.ingests WHERE trace = ?", [trace]
        ).fetchone()[0]
        tables = dict(
            con.execute("SELECT table_name, rows FROM meta.tables WHERE trace = ?", [trace]).fetchall()
        )
    finally:
        con.close()
    assert rejected == 0
    assert got == lines
    assert tables == lines


# --------------------------------------------------------------------------- google2011


@pytest.fixture(scope="module")
def g2011(tmp_path_factory):
    root = tmp_path_factory.mktemp("g2011")
    out = root / "raw"
    manifest = synth("google2011", out, scale=SCALE_2011, parts=3, workers=2, seed=7)
    home = Home.resolve(root / "home")
    ingest.ingest(home, "google2011", out)  # verifies every part against the SHA256SUM
    return out, manifest, home


def test_google2011_layout_manifest_and_ingest(g2011):
    out, m, home = g2011
    lines = _check_files(out, m)
    assert sorted(p.name for p in (out / "task_events").iterdir()) == [
        f"part-0000{i}-of-00500.csv.gz" for i in range(3)
    ]
    assert [p.name for p in (out / "machine_events").iterdir()] == ["part-00000-of-00001.csv.gz"]
    sums = dict(line.split()[::-1] for line in (out / "SHA256SUM").read_text().splitlines())
    assert sums == {rel: f["sha256"] for rel, f in m["files"].items()}
    _check_ingest(home, "google2011", lines)


def test_google2011_counts_by_reading_the_csv(g2011):
    out, m, home = g2011
    rows = [line.decode().split(",") for p in sorted((out / "task_events").iterdir()) for line in _lines(p)]
    assert all(len(r) == 13 for r in rows)
    names = (
        "SUBMIT",
        "SCHEDULE",
        "EVICT",
        "FAIL",
        "FINISH",
        "KILL",
        "LOST",
        "UPDATE_PENDING",
        "UPDATE_RUNNING",
    )
    by_type = Counter(names[int(r[5])] for r in rows)
    te = m["tables"]["task_events"]
    assert {n: te[f"event_type:{n}"] for n in names} == {n: by_type[n] for n in names}
    assert te["missing_info:2"] == sum(1 for r in rows if r[1] == "2")
    # Synthesized missing_info 2 records carry no requests (traces.md quirk).
    assert all(r[9] == r[10] == r[11] == r[12] == "" for r in rows if r[1] == "2")
    assert te["time:0"] == sum(1 for r in rows if r[0] == "0") > 0
    assert m["entities"]["tasks"] == len({(r[2], r[3]) for r in rows})
    assert m["entities"]["jobs"] == len({r[2] for r in rows})
    sci = sum(1 for r in rows if "e-0" in r[11])
    assert te["scientific_notation:disk_space_request"] == sci > 0, "small requests as 3.815e-05"
    # Parts are time slices, sorted by time inside; each part's times are after the previous part's.
    prev = -1
    for p in sorted((out / "task_events").iterdir()):
        times = [int(line.split(b",", 1)[0]) for line in _lines(p)]
        assert times == sorted(times)
        real = [t for t in times if 0 < t < 2**63 - 1]
        assert min(real) > prev
        prev = max(real)


def test_google2011_usage_only_for_scheduled_tasks_on_their_machine(g2011):
    """Each usage window lies inside a SCHEDULE .. end interval of that task on that machine."""
    out, m, home = g2011
    runs: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    open_: dict[tuple[str, str], tuple[int, str]] = {}
    events = sorted(
        (int(r[0]), r[2], r[3], r[4], int(r[5]))
        for p in (out / "task_events").iterdir()
        for r in (line.decode().split(",") for line in _lines(p))
    )
    for t, job, idx, mach, typ in events:
        if typ == 1:
            open_[(job, idx)] = (t, mach)
        elif typ in (2, 3, 4, 5, 6) and (job, idx) in open_:
            s, mm = open_.pop((job, idx))
            runs.setdefault((job, idx), []).append((s, t, mm))
    end = 600_000_000 + 29 * 86_400_000_000
    for (job, idx), (s, mm) in open_.items():  # still running at the end of the trace
        runs.setdefault((job, idx), []).append((s, end, mm))
    n = 0
    for p in (out / "task_usage").iterdir():
        for line in _lines(p):
            r = line.decode().split(",")
            st, et = int(r[0]), int(r[1])
            assert any(s <= st and et <= e and mm == r[4] for s, e, mm in runs[(r[2], r[3])]), r[:5]
            n += 1
    assert n == m["tables"]["task_usage"]["rows"]


def test_google2011_usage_floats_as_the_trace_writes_them_and_isal_gzip(tmp_path):
    """task_usage by ISA-L: plain gzip (the standard library reads it, same lines as the manifest
    says); every float field is C's %.4g text (Python's own %-formatting as the oracle: 2.861e-06,
    0.06787, 1, 0) and disk I/O time is 0 after day 14 (the trace's notes: only ~14 days carry it)."""
    m = synth(
        "google2011", tmp_path / "o", scale=SCALE_2011, parts=3, tables=["task_usage"], seed=5, isal=True
    )
    assert m["gzip_by"].startswith("isal")
    _check_files(tmp_path / "o", m)
    day14 = 600_000_000 + 14 * 86_400_000_000
    floats, late, sci = 0, 0, 0
    for p in sorted((tmp_path / "o" / "task_usage").iterdir()):
        for line in _lines(p):
            r = line.decode().split(",")
            assert len(r) == 20
            for x in r[5:18] + r[19:]:  # the floats (r[18] is aggregation_type)
                if x:
                    assert x == f"{float(x):.4g}", r
                    floats += 1
                    sci += "e-" in x
            if int(r[0]) >= day14:
                late += 1
                assert r[11] == r[14] == "0", r
    assert floats > 100_000 and late > 10_000
    assert sci == m["tables"]["task_usage"]["scientific_notation"] > 0


QUEUE_PANDAS = r"""
import pandas as pd
MAX, HOUR = 9223372036854775807, 3600000000
USE = ["time", "job_id", "task_index", "event_type"]
"""


def test_google2011_queue_report_matches_pandas(g2011):
    """The naive pandas queue of bench/ (methods 3-2 / 3-3 of the 10-observations paper)."""
    pd = pytest.importorskip("pandas")
    out, m, home = g2011
    cols = ["time", "missing", "job_id", "task_index", "machine", "event_type"] + [f"c{i}" for i in range(7)]
    use = ["time", "job_id", "task_index", "event_type"]
    df = pd.concat(
        pd.read_csv(f, header=None, names=cols, usecols=use, dtype={c: "int64" for c in use})
        for f in sorted((out / "task_events").iterdir())
    )
    df = df[~df["event_type"].isin([7, 8])]
    df = df.sort_values(["job_id", "task_index", "time"], kind="stable")
    df["prev"] = df.groupby(["job_id", "task_index"], sort=False)["event_type"].shift(1)
    ev, prev = df["event_type"], df["prev"]
    ends = ev.isin([2, 3, 5, 6])
    df["d_pending"] = (ev == 0).astype(int) - (ev == 1) - (ends & (prev == 0))
    df["d_running"] = (ev == 1).astype(int) - (ev == 4) - (ends & (prev == 1))
    df = df[df["time"] < 2**63 - 1]
    df["bucket"] = df["time"] // 3_600_000_000
    per = df.groupby("bucket").agg(d_pending=("d_pending", "sum"), d_running=("d_running", "sum"))
    per = per.sort_index()
    want = dict(
        zip(per.index, zip(per["d_pending"].cumsum(), per["d_running"].cumsum(), strict=True), strict=True)
    )
    res = reports.run(home, "queue", trace="google2011")
    cols_r = list(res.columns)
    got = {
        int(r[cols_r.index("bucket")]): (int(r[cols_r.index("pending")]), int(r[cols_r.index("running")]))
        for r in res.rows
    }
    common = set(got) & set(want)
    assert len(common) > 24
    assert {b: got[b] for b in common} == {b: want[b] for b in common}


# --------------------------------------------------------------------------- google2019


@pytest.fixture(scope="module")
def g2019(tmp_path_factory):
    root = tmp_path_factory.mktemp("g2019")
    out = root / "raw"
    manifest = synth("google2019", out, scale=SCALE_2019, cells=["a", "b"], workers=2, seed=3)
    home = Home.resolve(root / "home")
    ingest.ingest(home, "google2019", out)
    return out, manifest, home


def test_google2019_layout_manifest_and_ingest(g2019):
    out, m, home = g2019
    lines = _check_files(out, m)
    assert sorted(p.name for p in out.iterdir()) == [
        "clusterdata_2019_a",
        "clusterdata_2019_b",
        "manifest.json",
    ]
    assert all(
        re.fullmatch(r"[a-z_]+-\d{12}\.json\.gz", p.name) for p in (out / "clusterdata_2019_a").iterdir()
    )
    _check_ingest(home, "google2019", lines)


def test_google2019_every_encoding_variant_is_present_and_read(g2019):
    out, m, home = g2019
    recs = [json.loads(line) for p in sorted(out.glob("*/instance_usage-*.json.gz")) for line in _lines(p)]
    iu = m["tables"]["instance_usage"]
    assert iu["encoding:numbers"] == sum(1 for r in recs if isinstance(r["start_time"], int)) > 0
    assert sum(1 for r in recs if isinstance(r["start_time"], str)) > 0
    assert iu["random_sampled_usage_spelling"] == sum(1 for r in recs if "random_sampled_usage" in r) > 0
    assert iu["cycles_per_instruction:null"] == sum(
        1 for r in recs if "cycles_per_instruction" in r and r["cycles_per_instruction"] is None
    )
    lengths = Counter(len(r["cpu_usage_distribution"]) for r in recs if "cpu_usage_distribution" in r)
    assert set(lengths) == {10, 11}
    assert iu["cpu_usage_distribution:values"] == sum(k * v for k, v in lengths.items())
    ev = [json.loads(line) for p in sorted(out.glob("*/instance_events-*.json.gz")) for line in _lines(p)]
    assert m["tables"]["instance_events"]["type:SUBMIT"] == sum(1 for r in ev if "type" not in r)
    assert any(r.get("constraint") == [] for r in ev) and any(len(r.get("constraint", [])) == 3 for r in ev)
    assert any(r.get("machine_id", 1) is None for r in ev), "an explicit null"
    con = _catalog(home)
    try:
        row = con.execute(
            "SELECT count(random_sample_usage.cpus), sum(len(cpu_usage_distribution)), "
            "count(cycles_per_instruction), count(*) FILTER (WHERE start_time IS NULL) "
            "FROM google2019_raw.instance_usage"
        ).fetchone()
        submits = con.execute(
            "SELECT count(*) FROM google2019_raw.instance_events WHERE coalesce(type, 0) = 0"
        ).fetchone()[0]
    finally:
        con.close()
    assert row == (
        iu["random_sample_usage"],
        iu["cpu_usage_distribution:values"],
        iu["cycles_per_instruction:values"],
        0,
    )
    assert submits == m["tables"]["instance_events"]["type:SUBMIT"]


def test_google2019_usage_belongs_to_scheduled_instances(g2019):
    out, m, home = g2019
    sched: dict[tuple, set] = {}
    for p in out.glob("*/instance_events-*.json.gz"):
        cell = p.parent.name
        for line in _lines(p):
            r = json.loads(line)
            if int(r.get("type", 0)) == 3:
                key = (cell, int(r["collection_id"]), int(r.get("instance_index", 0)))
                sched.setdefault(key, set()).add(int(r["machine_id"]))
    collections = {
        (p.parent.name, int(json.loads(line)["collection_id"]))
        for p in out.glob("*/collection_events-*.json.gz")
        for line in _lines(p)
    }
    assert {(c, cid) for c, cid, _ in sched} <= collections
    for p in out.glob("*/instance_usage-*.json.gz"):
        for line in _lines(p):
            r = json.loads(line)
            key = (p.parent.name, int(r["collection_id"]), int(r.get("instance_index", 0)))
            assert int(r["machine_id"]) in sched[key]


# --------------------------------------------------------------------------- alibaba2018


@pytest.fixture(scope="module")
def ali(tmp_path_factory):
    root = tmp_path_factory.mktemp("ali")
    out = root / "raw"
    manifest = synth("alibaba2018", out, scale=SCALE_ALI, form="csv", workers=2, seed=5)
    home = Home.resolve(root / "home")
    ingest.ingest(home, "alibaba2018", out)
    return out, manifest, home


def test_alibaba_layout_manifest_and_ingest(ali):
    out, m, home = ali
    lines = _check_files(out, m)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{t}.csv" for t in m["tables"]] + ["manifest.json"]
    )
    _check_ingest(home, "alibaba2018", lines)
    first = _lines(out / "batch_task.csv")[0].decode()
    assert not first.startswith("task_name"), "headerless"


def test_alibaba_anomalies_and_hierarchy_match_the_manifest(ali):
    out, m, home = ali
    bt = m["tables"]["batch_task"]
    anomalies = reports.run(home, "ali-dag-anomalies")
    got = {r[0]: int(r[1]) for r in anomalies.rows if r[1] not in (None, "", 0)}
    want = {k.split(":", 1)[1]: v for k, v in bt.items() if k.startswith("anomaly:") and v}
    assert {k: got.get(k) for k in want} == want
    names = [r[0] for r in csv.reader(io.StringIO((out / "batch_task.csv").read_text()))]
    assert bt["anomaly:MergeTask name"] == names.count("MergeTask")
    assert bt["anomaly:trailing underscore"] == sum(1 for n in names if n.endswith("_"))
    assert bt["anomaly:_Stg<n> suffix"] == sum(1 for n in names if re.search(r"_Stg\d+$", n))
    hier = reports.run(home, "ali-hierarchy")
    cols = list(hier.columns)
    by = {
        (r[cols.index("level")], r[cols.index("class")] or ""): int(r[cols.index("count")]) for r in hier.rows
    }
    assert by[("jobs", "")] == m["entities"]["jobs"]
    assert by[("tasks", "")] == m["entities"]["tasks"]
    assert by[("instances", "")] == m["entities"]["instances"]
    for c in ("no_dag", "dag_root", "dag_dependent"):
        assert by[("tasks by class", c)] == bt[f"class:{c}"]
    # Every instance belongs to a task row of the same job.
    tasks = {(r[2], r[0]) for r in csv.reader(io.StringIO((out / "batch_task.csv").read_text()))}
    with open(out / "batch_instance.csv", newline="") as fh:
        assert all((r[2], r[1]) in tasks for r in csv.reader(fh))


def test_alibaba_critical_path_matches_networkx(ali):
    """The networkx oracle of bench/: longest node-weighted path per acyclic DAG job."""
    nx = pytest.importorskip("networkx")
    out, m, home = ali
    core, stg = re.compile(r"([A-Za-z]+)([0-9]+)((?:_[0-9]+)*)"), re.compile(r"_Stg[0-9]+$")
    jobs: dict[str, dict] = {}
    with open(out / "batch_task.csv", newline="") as fh:
        for name, _n, job, _t, status, start, end, _c, _m in csv.reader(fh):
            if name.startswith("task_") or name == "MergeTask":
                continue
            mm = core.fullmatch(stg.sub("", name.rstrip("_")))
            if mm is None:
                continue
            tid, parents = int(mm.group(2)), {int(x) for x in mm.group(3).split("_")[1:]}
            s, e = int(start), int(end)
            # A task still Running / Waiting / Ready has not ended: never timed.
            run = e - s if s > 0 and e >= s and status not in ("Running", "Waiting", "Ready") else None
            old = jobs.setdefault(job, {}).get(tid)
            if old is None:
                jobs[job][tid] = [run, run is not None, parents]
            else:
                if run is not None and (old[0] is None or run > old[0]):
                    old[0] = run
                old[1] = old[1] and run is not None
                old[2] |= parents
    status, cps = Counter(), []
    for nodes in jobs.values():
        g = nx.DiGraph()
        g.add_nodes_from(nodes)
        g.add_edges_from((p, t) for t, v in nodes.items() for p in v[2] if p != t and p in nodes)
        if not nx.is_directed_acyclic_graph(g):
            status["cycle"] += 1
            continue
        if not all(v[1] for v in nodes.values()):
            status["unknown_times"] += 1
            continue
        longest: dict[int, float] = {}
        for t in nx.topological_sort(g):
            longest[t] = nodes[t][0] + max((longest[p] for p in g.predecessors(t)), default=0)
        cps.append(max(longest.values()))
        status["ok"] += 1
    res = reports.run(home, "ali-dag-timing")
    cols = list(res.columns)
    by = {r[cols.index("measure")]: r for r in res.rows}
    assert int(by["jobs: ok"][cols.index("n")]) == status["ok"]
    cp = by["critical path"]
    assert float(cp[cols.index("mean_s")]) == pytest.approx(sum(cps) / len(cps), abs=0.001)
    assert float(cp[cols.index("max_s")]) == max(cps)
    assert m["tables"]["batch_task"]["jobs:dag"] == sum(status.values())


def test_alibaba_thinned_instances_by_hand():
    """--instance-fraction on five real-shaped batch_task rows (a DAG chain, an independent task
    with a MergeTask, a Waiting task with times 0): each keeps its first max(1, round(F x n))."""
    import numpy as np
    import polars as pl

    from tracewh.synth import Config, rng_for
    from tracewh.synth import alibaba2018 as ali

    tasks = pl.DataFrame(
        {
            "task_name": ["M1", "R2_1", "J3_2", "task_LTg0MTUwNTA5Mjg4MDkzNjE2OQ==", "MergeTask"],
            "instance_num": [1, 2, 9, 40, 1234],
            "job_name": ["j_1", "j_1", "j_1", "j_2", "j_2"],
            "task_type": [1, 1, 1, 12, 12],
            "status": ["Terminated", "Terminated", "Failed", "Terminated", "Waiting"],
            "start_time": [86_500, 86_530, 86_600, 90_000, 0],
            "end_time": [86_520, 86_590, 86_700, 90_100, 0],
            "plan_cpu": [100.0, 100.0, 50.0, 200.0, 400.0],
            "plan_mem": [0.39, 0.39, 0.2, 1.5, 0.05],
        }
    )
    # by hand, F = 0.1: round(0.1) = 0 -> 1, round(0.2) = 0 -> 1, round(0.9) = 1, round(4.0) = 4,
    # round(123.4) = 123; 130 rows instead of 1,286
    cfg = Config("alibaba2018", 1.0, 1, ("batch_instance",), instance_fraction=0.1)
    assert ali.kept_instances(tasks["instance_num"], 0.1).tolist() == [1, 1, 1, 4, 123]
    assert ali.kept_instances(tasks["instance_num"], 1.0).tolist() == [1, 2, 9, 40, 1234]
    rows = ali._instances(cfg, tasks, rng_for(cfg, "t"), 0)
    assert rows.height == 130
    got = rows.group_by("job_name", "task_name", maintain_order=True).agg(
        pl.len().alias("n"), pl.col("seq_no"), pl.col("total_seq_no").unique()
    )
    assert got["task_name"].to_list() == tasks["task_name"].to_list()  # every task kept
    assert got["n"].to_list() == [1, 1, 1, 4, 123]
    assert [s.to_list() for s in got["seq_no"]] == [list(range(1, k + 1)) for k in [1, 1, 1, 4, 123]]
    assert [s.to_list() for s in got["total_seq_no"]] == [[1], [2], [9], [40], [1234]]
    assert rows["instance_name"].n_unique() == 130
    # instances run inside their task (start 0-3 s after it), times 0 stay 0
    first = rows.filter(pl.col("seq_no") == 1)["start_time"].to_numpy()
    assert np.all(
        (first[:4] >= [86_500, 86_530, 86_600, 90_000]) & (first[:4] <= [86_503, 86_533, 86_603, 90_003])
    )
    assert first[4] == 0
    full = ali._instances(Config("alibaba2018", 1.0, 1, ("batch_instance",)), tasks, rng_for(cfg, "t"), 0)
    assert full.height == 1 + 2 + 9 + 40 + 1234


def test_alibaba_instance_fraction_keeps_batch_task_and_every_task(tmp_path):
    """The whole generator at F = 0.05: batch_task byte-identical to the unthinned run, and per
    task max(1, round(0.05 x instance_num)) instance rows, counted from the raw CSV."""
    kw = {"scale": SCALE_ALI, "tables": ["batch_task", "batch_instance"], "form": "csv", "seed": 3}
    whole = synth("alibaba2018", tmp_path / "whole", workers=1, **kw)
    thin = synth("alibaba2018", tmp_path / "thin", workers=1, instance_fraction=0.05, **kw)
    task_csv = (tmp_path / "thin" / "batch_task.csv").read_bytes()
    assert task_csv == (tmp_path / "whole" / "batch_task.csv").read_bytes()
    assert thin["instance_fraction"] == 0.05 and "instance_fraction" not in whole
    want = Counter()
    for name, n, job, *_ in csv.reader(io.StringIO(task_csv.decode())):
        want[(job, name)] += max(1, round(0.05 * int(n)))
    with open(tmp_path / "thin" / "batch_instance.csv", newline="") as fh:
        got = Counter((r[2], r[1]) for r in csv.reader(fh))
    assert got == want
    assert thin["tables"]["batch_instance"]["rows"] == sum(want.values())
    assert sum(want.values()) < whole["tables"]["batch_instance"]["rows"] / 5
    with pytest.raises(UsageError, match="no per-task instance table"):
        synth("google2011", tmp_path / "g", scale=SCALE_2011, instance_fraction=0.5)
    with pytest.raises(UsageError, match=r"must be in \(0, 1\]"):
        synth("alibaba2018", tmp_path / "a", scale=SCALE_ALI, instance_fraction=0)


def test_alibaba_archives_are_single_gzip_members_with_the_same_rows(tmp_path):
    """tar.gz and csv.gz of a table made of two pieces: one gzip member each (tarfile's stream
    mode reads them), the same CSV bytes in both, and the archive ingests."""
    kw = {"scale": 0.0006, "tables": ["batch_task"], "seed": 9, "workers": 2}  # 2,521 jobs: 2 pieces
    tgz = synth("alibaba2018", tmp_path / "tgz", form="tar.gz", **kw)
    gz = synth("alibaba2018", tmp_path / "gz", form="csv.gz", **kw)
    text = gzip.decompress((tmp_path / "gz" / "batch_task.csv.gz").read_bytes())
    with tarfile.open(tmp_path / "tgz" / "batch_task.tar.gz", "r|gz") as tf:
        member = tf.next()
        assert member is not None and member.name == "batch_task.csv" and member.size == len(text)
        assert tf.extractfile(member).read() == text  # type: ignore[union-attr]
    raw = (tmp_path / "gz" / "batch_task.csv.gz").read_bytes()
    d = zlib.decompressobj(31)
    assert d.decompress(raw) == text and d.eof and d.unused_data == b""  # one member, nothing after
    assert tgz["tables"] == gz["tables"]
    assert len(text.splitlines()) == gz["tables"]["batch_task"]["rows"]
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "alibaba2018", tmp_path / "tgz", IngestOptions(verify=False))
    con = _catalog(home)
    try:
        assert con.execute("SELECT rows FROM meta.tables WHERE table_name = 'batch_task'").fetchone()[
            0
        ] == len(text.splitlines())
    finally:
        con.close()


# --------------------------------------------------------------------------- engine


def test_same_seed_same_bytes_whatever_the_workers(tmp_path):
    kw = {"scale": SCALE_2011, "parts": 2, "tables": ["task_events", "job_events"], "seed": 11}
    a = synth("google2011", tmp_path / "a", workers=1, **kw)
    b = synth("google2011", tmp_path / "b", workers=2, **kw)
    c = synth("google2011", tmp_path / "c", workers=1, **{**kw, "seed": 12})
    assert {k: f["sha256"] for k, f in a["files"].items()} == {k: f["sha256"] for k, f in b["files"].items()}
    assert a["files"].keys() == c["files"].keys()
    assert all(a["files"][k]["sha256"] != c["files"][k]["sha256"] for k in a["files"])


def test_memory_does_not_grow_with_the_number_of_parts(tmp_path):
    """A worker keeps at most the two blocks a part needs (the cache once kept every block, so a
    worker's memory grew with the scale)."""
    from tracewh.synth import google2011 as g

    g._block.cache_clear()
    synth("google2011", tmp_path / "o", scale=SCALE_2011, parts=6, tables=["task_events"], workers=1)
    assert g._block.cache_info().currsize <= 2


def test_crc32_combine_equals_the_crc_of_the_concatenation():
    a, b = b"task_events,1,2\n" * 1000, b"x" * 70_001
    assert crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(a + b)
    assert crc32_combine(zlib.crc32(a), zlib.crc32(b""), 0) == zlib.crc32(a)


def test_refuses_a_folder_that_is_not_empty_and_touches_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    keep = out / "mine.txt"
    keep.write_text("precious")
    with pytest.raises(UsageError, match="not empty"):
        synth("google2011", out, scale=SCALE_2011)
    assert [p.name for p in out.iterdir()] == ["mine.txt"] and keep.read_text() == "precious"


def test_a_failure_midway_leaves_no_manifest_and_no_temporary_file(tmp_path, monkeypatch):
    from tracewh.synth import google2011 as g

    real = g.MAKERS["job_events"]

    def boom(cfg, piece):
        if piece.args[0] == 1:
            raise KeyboardInterrupt  # as an interrupt between two pieces
        return real(cfg, piece)

    monkeypatch.setitem(g.MAKERS, "job_events", boom)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        synth("google2011", out, scale=SCALE_2011, parts=3, tables=["job_events"], workers=1)
    assert not (out / "manifest.json").exists()
    assert not list(out.rglob("*.tmp"))


def test_cli_synth_writes_nothing_to_stdout_and_fails_in_one_line(tmp_path, capsys):
    out = tmp_path / "o"
    with pytest.raises(SystemExit) as e:
        cli_main(["synth", "google2011", str(out), "--scale", "0.00005", "--tables", "job_events", "--quiet"])
    assert e.value.code == 0
    cap = capsys.readouterr()
    assert cap.out == ""
    assert json.loads((out / "manifest.json").read_text())["tables"]["job_events"]["rows"] > 0
    for args, msg in (
        (["synth", "google2011", str(out)], "not empty"),
        (["synth", "google2019", str(tmp_path / "x"), "--cells", "z"], "unknown google2019 cell"),
        (["synth", "alibaba2018", str(tmp_path / "y"), "--scale", "0"], "--scale"),
    ):
        with pytest.raises(SystemExit) as e:
            cli_main(args)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("Error: ") and msg in err and err.count("\n") == 1


# --------------------------------------------------------------------------- labelled and verified


def test_a_synthetic_archive_is_verified_against_its_own_manifest(tmp_path):
    out = tmp_path / "raw"
    m = synth("alibaba2018", out, scale=SCALE_ALI, tables=["machine_meta"], workers=1, seed=5)
    home = Home.resolve(tmp_path / "home")
    # as published: a .tar.gz, whose official digest a generated archive cannot have
    ingest.ingest(home, "alibaba2018", out)
    con = _catalog(home)
    try:
        got = con.execute("SELECT file, sha256, sha256_verified FROM meta.ingests").fetchall()
    finally:
        con.close()
    assert got == [("machine_meta.tar.gz", m["files"]["machine_meta.tar.gz"]["sha256"], True)]
    # a byte changed after synth wrote it: the manifest's digest catches it
    data = bytearray((out / "machine_meta.tar.gz").read_bytes())
    data[-20] ^= 0xFF
    (out / "machine_meta.tar.gz").write_bytes(bytes(data))
    with pytest.raises(InputError, match="does not match the digest in its synth manifest"):
        ingest.ingest(Home.resolve(tmp_path / "home2"), "alibaba2018", out)


def test_synthetic_data_is_labelled_in_the_catalog_every_footer_plot_and_the_summary(ali, sample_home):
    from tracewh.reports import plots, summary

    out, m, home = ali
    con = _catalog(home)
    try:
        rows = con.execute("SELECT trace, files, seed, scale FROM meta.synthetic_traces").fetchall()
    finally:
        con.close()
    # the fixture's synth call: seed 5, scale SCALE_ALI, one file per table
    assert rows == [("alibaba2018", len(m["files"]), 5, SCALE_ALI)]
    label = (
        "SYNTHETIC: alibaba2018 here was generated by tracewh synth (seed 5, scale 0.0002), not recorded on "
        "a cluster"
    )
    for name in ("ali-hierarchy", "ali-app-zipf", "compare"):
        assert any(line.startswith(f"data: {label}") for line in reports.footer(home, name)), name
    result = reports.run(home, "ali-app-zipf")
    assert "SYNTHETIC DATA" in plots.figure("ali-app-zipf", result).axes[0].get_title()
    page = summary.html_page(home).html
    assert label in page
    # a recorded trace (the bundled sample) carries no such line
    assert not any("SYNTHETIC" in line for line in reports.footer(sample_home, "ali-hierarchy"))
    assert reports.run(sample_home, "ali-app-zipf").context["synthetic"] is None


def test_google2019_usage_stays_within_machine_capacity(g2019):
    out, m, home = g2019
    con = _catalog(home)
    try:
        # per machine and 300 s window of the generator's grid (windows never straddle it), the
        # summed mean usage of the instances on it against the machine's capacity
        worst = con.execute(
            "WITH cap AS (SELECT cell, machine_id, max(capacity_cpus) AS c, max(capacity_memory) AS m "
            "             FROM google2019.machine_events GROUP BY ALL), "
            "use AS (SELECT cell, machine_id, (start_time - 600000000) // 300000000 AS w, "
            "               sum(average_cpus) AS cpu, sum(average_memory) AS mem "
            "        FROM google2019.instance_usage GROUP BY ALL) "
            "SELECT count(*), max(cpu / c), max(mem / m) FROM use JOIN cap USING (cell, machine_id)"
        ).fetchone()
    finally:
        con.close()
    windows, cpu, mem = worst
    assert windows > 100
    assert cpu <= 1.0 and mem <= 1.0, worst
