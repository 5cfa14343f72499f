"""`tracewh download` against a real HTTP server on 127.0.0.1 serving the traces' public layouts.

The server (tests/trace_server.py) holds the bundled sample files under the paths of the real
hosts: ``clusterdata-2011-2/<table>/part-...`` with its SHA256SUM, ``clusterdata_2019_<cell>/``
shards with the storage JSON API listing, and ``v2018Traces/<table>.tar.gz`` archives built from
the Alibaba sample. Expected file sets are enumerated by hand from data/sample (listed in each
test); expected bytes are the sample files themselves.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from cli_helpers import run_cli as run
from conftest import REPO, SAMPLE, SAMPLE_2019, SAMPLE_ALIBABA
from trace_server import Fault, TraceServer

from tracewh import download as dl
from tracewh import ingestion as ingest
from tracewh.errors import DownloadError
from tracewh.home import Home
from tracewh.traces import alibaba2018

FAST = dl.Retry(tries=4, backoff=0.01, max_wait=0.05)
SCHEMA_SHA = hashlib.sha256((SAMPLE / "schema.csv").read_bytes()).hexdigest()
G2011_PARTS = sorted(p.relative_to(SAMPLE).as_posix() for p in SAMPLE.glob("*/part-*.csv.gz"))
BIG = "task_events/part-00001-of-00500.csv.gz"  # 924,634 bytes: the file the resume tests cut
BIG_URL = f"clusterdata-2011-2/{BIG}"


def _alibaba_archives(folder: Path) -> dict[str, bytes]:
    """The six official archives rebuilt from the sample: <table>.tar.gz holding <table>.csv."""
    out = {}
    for src in sorted(SAMPLE_ALIBABA.iterdir()):
        table = src.name.split(".")[0]
        data = src.read_bytes()
        if src.name.endswith(".gz"):
            data = gzip.decompress(data)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            info = tarfile.TarInfo(f"{table}.csv")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        out[f"{table}.tar.gz"] = buf.getvalue()
    return out


@pytest.fixture(scope="session")
def alibaba_archives() -> dict[str, bytes]:
    return _alibaba_archives(SAMPLE_ALIBABA)


@pytest.fixture
def server(alibaba_archives):
    srv = TraceServer()
    for p in SAMPLE.rglob("*"):
        if p.is_file() and p.name != "SHA256SUM":
            srv.files[f"clusterdata-2011-2/{p.relative_to(SAMPLE).as_posix()}"] = p.read_bytes()
    # The bucket's SHA256SUM: the sample's (sha256sum of every part) plus schema.csv.
    srv.files["clusterdata-2011-2/SHA256SUM"] = (SAMPLE / "SHA256SUM").read_bytes() + (
        f"{SCHEMA_SHA}  schema.csv\n".encode()
    )
    for p in SAMPLE_2019.glob("clusterdata_2019_*/*"):
        srv.files[f"{p.parent.name}/{p.name}"] = p.read_bytes()
    for name, data in alibaba_archives.items():
        srv.files[f"v2018Traces/{name}"] = data
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def alibaba_digests(monkeypatch, alibaba_archives):
    """This mirror's archives are not the official ones: publish their digests in the one table
    both download and ingest read (the official values are tested against in
    test_alibaba_official_digest_rejects_other_bytes)."""
    for name, data in alibaba_archives.items():
        monkeypatch.setitem(alibaba2018.OFFICIAL_SHA256, name, hashlib.sha256(data).hexdigest())


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    monkeypatch.setattr(dl, "DEFAULT_RETRY", FAST)


def fetch(server, trace, dest, **sel):
    p = dl.plan(trace, dest, dl.Selection(**sel), mirror=server.url)
    return dl.download(p, jobs=3)


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# ----------------------------------------------------------------------------- full downloads


def test_google2011_full_download_is_the_bucket_byte_for_byte(server, tmp_path):
    dest = tmp_path / "g11"
    result = fetch(server, "google2011", dest)
    # 12 parts in the sample (3+3 job/task events, 2+2 constraints/usage, 1+1 machine tables),
    # schema.csv (listed in SHA256SUM) and the SHA256SUM itself.
    assert files_under(dest) == sorted([*G2011_PARTS, "schema.csv", "SHA256SUM"])
    assert len(G2011_PARTS) == 12 and sorted(result.downloaded) == sorted([*G2011_PARTS, "schema.csv"])
    for rel in G2011_PARTS:
        assert (dest / rel).read_bytes() == (SAMPLE / rel).read_bytes(), rel
    assert (dest / "SHA256SUM").read_bytes() == server.files["clusterdata-2011-2/SHA256SUM"]
    assert result.bytes_received == sum((SAMPLE / r).stat().st_size for r in G2011_PARTS) + 4020


def test_google2019_download_follows_listing_pages_and_verifies_md5_and_crc32c(server, tmp_path, capsys):
    dest = tmp_path / "g19"
    code, out, err = run(
        capsys, "download", "google2019", str(dest), "--cells", "a,b", "--mirror", server.url
    )
    assert code == 0, err
    expected = sorted(f"{p.parent.name}/{p.name}" for p in SAMPLE_2019.glob("clusterdata_2019_*/*"))
    assert len(expected) == 10 and files_under(dest) == expected
    for rel in expected:
        assert (dest / rel).read_bytes() == (SAMPLE_2019 / rel).read_bytes()
    # Cell a has two instance_events shards and the page size is 2, so the listing of
    # instance_events- in cell a is one page; the listing requests: one per (cell, table) = 10.
    listings = [p for m, p, _ in server.requests if p.startswith("storage/v1/b/")]
    assert len(listings) == 10
    assert "next: tracewh ingest google2019" in err and out == ""


def test_listing_with_more_objects_than_a_page_is_followed_to_the_end(server, tmp_path):
    server.page_size = 1  # instance_events of cell a (2 shards) now takes two pages
    result = fetch(server, "google2019", tmp_path, cells=["a"], tables=["instance_events"])
    assert sorted(result.downloaded) == [
        "clusterdata_2019_a/instance_events-000000000000.json.gz",
        "clusterdata_2019_a/instance_events-000000000001.json",
    ]
    tokens = [p for m, p, _ in server.requests if p == "storage/v1/b/clusterdata_2019_a/o"]
    assert len(tokens) == 2


def test_alibaba2018_download_via_mirror_gives_the_archives(server, tmp_path, capsys, alibaba_digests):
    dest = tmp_path / "ali"
    code, out, err = run(capsys, "download", "alibaba2018", str(dest), "--mirror", server.url + "/")
    assert code == 0, err
    assert files_under(dest) == sorted(f"{t}.tar.gz" for t in alibaba2018.TABLES)
    for name in files_under(dest):
        assert (dest / name).read_bytes() == server.files[f"v2018Traces/{name}"]


def test_alibaba_official_digest_rejects_other_bytes(server, tmp_path, capsys):
    # No alibaba_digests fixture: the official sha256 of machine_meta.tar.gz (traces.md) cannot
    # match an archive rebuilt from the sample.
    dest = tmp_path / "ali"
    code, out, err = run(
        capsys, "download", "alibaba2018", str(dest), "--tables", "machine_meta", "--mirror", server.url
    )
    assert code == 1
    assert "machine_meta.tar.gz: sha256 mismatch" in err
    assert "b5b1b786b22cd413a3674b8f2ebfb2f02fac991c95df537f363ef2797c8f6d55" in err
    assert files_under(dest) == []  # neither the final name nor a .part


# ----------------------------------------------------------------------------- resume, retries


def test_dropped_connection_is_resumed_with_a_range_without_refetching(server, tmp_path):
    size = len(server.files[BIG_URL])
    server.faults[BIG_URL] = [Fault(drop_after=300_000)]
    result = fetch(server, "google2011", tmp_path, tables=["task_events"], parts="1")
    assert sorted(result.downloaded) == sorted([BIG, "schema.csv"])
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    # First GET: no Range, cut after 300,000 bytes; second GET: the rest only.
    assert server.gets(BIG_URL) == [None, "bytes=300000-"]
    assert server.served[BIG_URL] == size == 924_634


def test_a_failed_run_keeps_the_part_and_the_next_run_finishes_it(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(dl, "DEFAULT_RETRY", dl.Retry(tries=1, backoff=0.01))
    server.faults[BIG_URL] = [Fault(drop_after=200_000)]
    args = ("download", "google2011", str(tmp_path), "--tables", "task_events", "--parts", "1")
    code, out, err = run(capsys, *args, "--mirror", server.url)
    assert code == 1 and BIG in err
    assert not (tmp_path / BIG).exists()
    assert (tmp_path / f"{BIG}.part").stat().st_size == 200_000
    code, out, err = run(capsys, *args, "--mirror", server.url)
    assert code == 0, err
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    assert not (tmp_path / f"{BIG}.part").exists()
    assert server.gets(BIG_URL) == [None, "bytes=200000-"]
    assert server.served[BIG_URL] == 924_634  # 200,000 + 724,634: nothing twice


def test_a_stalled_transfer_times_out_and_resumes(server, tmp_path, monkeypatch):
    # A 3 s read timeout: no pause of a loaded machine reaches it, while the server's silence (60 s
    # before it hangs up) surely does.
    monkeypatch.setenv(dl.READ_TIMEOUT_ENV, "3")
    server.faults[BIG_URL] = [Fault(drop_after=400_000, stall=60.0)]
    reasons = []

    class Rec(dl.Progress):
        def retry(self, path, failures, reason, wait):
            reasons.append(reason)

    p = dl.plan("google2011", tmp_path, dl.Selection(tables=["task_events"], parts="1"), mirror=server.url)
    dl.download(p, progress=Rec())
    # The client gave up on the silence (a timeout), not on the hang-up 60 s later.
    assert len(reasons) == 1 and reasons[0].startswith("ReadTimeout")
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    assert server.gets(BIG_URL) == [None, "bytes=400000-"]


def test_503_is_retried_with_backoff(server, tmp_path):
    rel = "job_events/part-00000-of-00500.csv.gz"
    server.faults[f"clusterdata-2011-2/{rel}"] = [Fault(status=503), Fault(status=503)]
    seen = []

    class Rec(dl.Progress):
        def retry(self, path, failures, reason, wait):
            seen.append((path, failures, reason))

    p = dl.plan("google2011", tmp_path, dl.Selection(tables=["job_events"], parts="0"), mirror=server.url)
    dl.download(p, progress=Rec())
    assert seen == [(rel, 1, "HTTP 503 Service Unavailable"), (rel, 2, "HTTP 503 Service Unavailable")]
    assert (tmp_path / rel).read_bytes() == (SAMPLE / rel).read_bytes()


def test_listing_503_is_retried(server, tmp_path):
    server.faults["storage/v1/b/clusterdata_2019_b/o"] = [Fault(status=503)]
    result = fetch(server, "google2019", tmp_path, cells=["b"], tables=["machine_events"])
    assert result.downloaded == ["clusterdata_2019_b/machine_events-000000000000.json.gz"]


def test_host_ignoring_range_restarts_the_file_cleanly(server, tmp_path):
    server.faults[BIG_URL] = [Fault(drop_after=100_000), Fault(ignore_range=True)]
    fetch(server, "google2011", tmp_path, tables=["task_events"], parts="1")
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    assert server.served[BIG_URL] == 100_000 + 924_634


# ----------------------------------------------------------------------------- verification


def test_wrong_bytes_fail_name_the_file_and_leave_nothing(server, tmp_path, capsys):
    rel = "job_events/part-00001-of-00500.csv.gz"
    server.faults[f"clusterdata-2011-2/{rel}"] = [Fault(corrupt=True)]
    code, out, err = run(
        capsys, "download", "google2011", str(tmp_path), "--tables", "job_events", "--mirror", server.url
    )
    assert code == 1
    (line,) = [x for x in err.splitlines() if x.startswith("Error:")]
    assert line.startswith("Error: 1 file(s) failed: job_events/part-00001-of-00500.csv.gz: sha256 mismatch")
    assert "8d8c0278664757c79b2ce865d3e4e83531abf836e7ed6da3321b8309a3099c58" in err  # the published one
    assert not (tmp_path / rel).exists() and not (tmp_path / f"{rel}.part").exists()
    # The other files were fetched and kept: a re-run has only the failed one to do.
    assert (tmp_path / "job_events/part-00000-of-00500.csv.gz").is_file()
    server.reset_counts()
    code, out, err = run(
        capsys, "download", "google2011", str(tmp_path), "--tables", "job_events", "--mirror", server.url
    )
    assert code == 0, err
    assert [p for m, p, _ in server.requests if m == "GET" and "part-" in p] == [f"clusterdata-2011-2/{rel}"]


def test_wrong_md5_in_listing_fails(server, tmp_path):
    path = "clusterdata_2019_b/machine_events-000000000000.json.gz"
    server.faults[path] = [Fault(corrupt=True)]
    with pytest.raises(DownloadError, match=r"machine_events-000000000000\.json\.gz: (md5|crc32c) mismatch"):
        fetch(server, "google2019", tmp_path, cells=["b"], tables=["machine_events"])
    assert files_under(tmp_path) == []


def test_crc32c_alone_verifies_composite_objects(server, tmp_path):
    path = "clusterdata_2019_b/machine_events-000000000000.json.gz"
    server.no_md5.add(path)
    p = dl.plan(
        "google2019", tmp_path, dl.Selection(cells=["b"], tables=["machine_events"]), mirror=server.url
    )
    # The crc32c the server lists, by hand: struct.pack(">I", crc32c(body)) in base64.
    assert set(p.files[0].digests) == {"crc32c"}
    server.faults[path] = [Fault(corrupt=True)]
    with pytest.raises(DownloadError, match="crc32c mismatch"):
        dl.download(p)
    dl.download(p)
    assert (tmp_path / path).read_bytes() == (SAMPLE_2019 / path).read_bytes()


def test_object_stored_gzip_encoded_is_fetched_as_stored_not_decompressed(server, tmp_path):
    path = "clusterdata_2019_a/instance_usage-000000000000.json.gz"
    server.transcoded.add(path)
    result = fetch(server, "google2019", tmp_path, cells=["a"], tables=["instance_usage"])
    assert result.downloaded == [path]
    assert (tmp_path / path).read_bytes() == (SAMPLE_2019 / path).read_bytes()  # still gzip
    assert [r for m, p, r in server.requests if p == path and m == "GET"] == [None, None]


def test_crc32c_is_the_castagnoli_checksum():
    # The standard check value of CRC-32C over b"123456789" is 0xE3069283 (RFC 3720 B.4).
    d = dl._Digests({"crc32c": "e3069283"})
    d.update(b"1234")
    d.update(b"56789")
    assert d.mismatch() is None


def test_a_bad_part_from_an_earlier_run_is_fetched_again_from_the_start(server, tmp_path):
    (tmp_path / "task_events").mkdir()
    (tmp_path / f"{BIG}.part").write_bytes(b"\0" * 50_000)  # not a prefix of the real file
    fetch(server, "google2011", tmp_path, tables=["task_events"], parts="1")
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    # Resumed from 50,000 (874,634 bytes), mismatch, then the whole file once.
    assert server.gets(BIG_URL) == ["bytes=50000-", None]
    assert server.served[BIG_URL] == 874_634 + 924_634


def test_a_complete_part_is_verified_and_renamed_without_a_transfer(server, tmp_path):
    (tmp_path / "task_events").mkdir()
    (tmp_path / f"{BIG}.part").write_bytes((SAMPLE / BIG).read_bytes())  # cut just before the rename
    fetch(server, "google2011", tmp_path, tables=["task_events"], parts="1")
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    assert server.gets(BIG_URL) == [] and server.served[BIG_URL] == 0


def test_a_part_longer_than_the_file_is_dropped_and_fetched_whole(server, tmp_path):
    (tmp_path / "task_events").mkdir()
    (tmp_path / f"{BIG}.part").write_bytes(b"x" * 1_000_000)  # > 924,634: cannot be a prefix
    fetch(server, "google2011", tmp_path, tables=["task_events"], parts="1")
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    assert server.gets(BIG_URL) == [None]


def test_several_failures_are_all_named(server, tmp_path):
    bad = ["job_events/part-00000-of-00500.csv.gz", "job_events/part-00499-of-00500.csv.gz"]
    for rel in bad:
        server.faults[f"clusterdata-2011-2/{rel}"] = [Fault(corrupt=True)]
    with pytest.raises(DownloadError) as e:
        fetch(server, "google2011", tmp_path, tables=["job_events"])
    msg = str(e.value)
    assert msg.startswith(f"2 file(s) failed: {bad[0]}: sha256 mismatch") and f"(and 1 more: {bad[1]})" in msg
    assert not any((tmp_path / rel).exists() or (tmp_path / f"{rel}.part").exists() for rel in bad)
    assert (tmp_path / "job_events/part-00001-of-00500.csv.gz").is_file()


def test_rerun_transfers_nothing(server, tmp_path, capsys):
    args = ("download", "google2011", str(tmp_path), "--mirror", server.url)
    assert run(capsys, *args)[0] == 0
    server.reset_counts()
    code, out, err = run(capsys, *args)
    assert code == 0, err
    # Only the checksum file is read again; no part is asked for, not even its size.
    assert [(m, p) for m, p, _ in server.requests] == [("GET", "clusterdata-2011-2/SHA256SUM")]
    assert "0 file(s) downloaded" in err and "13 already present" in err
    # The plan of a complete folder gives the sizes on disk (not asked of the host).
    rows = list(csv.DictReader(io.StringIO(run(capsys, *args, "--dry-run", "--format", "csv")[1])))
    assert {r["state"] for r in rows} == {"present"} and len(rows) == 13
    assert all(int(r["bytes"]) == (tmp_path / r["path"]).stat().st_size for r in rows)


def test_a_second_download_into_the_same_folder_is_refused(server, tmp_path):
    import fcntl

    fd = os.open(tmp_path, os.O_RDONLY)  # another process's lock, as download takes it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(DownloadError, match="another tracewh download is writing to"):
            fetch(server, "alibaba2018", tmp_path, tables=["machine_meta"])
    finally:
        os.close(fd)
    assert files_under(tmp_path) == []


def test_existing_file_of_the_wrong_size_is_not_overwritten(server, tmp_path):
    path = tmp_path / "clusterdata_2019_b/machine_events-000000000000.json.gz"
    path.parent.mkdir()
    path.write_bytes(b"somebody else's file")  # 20 bytes; the sample shard has 116
    with pytest.raises(DownloadError, match="holds 20 bytes but the published file has 116;"):
        fetch(server, "google2019", tmp_path, cells=["b"], tables=["machine_events"])
    assert path.read_bytes() == b"somebody else's file"


# ----------------------------------------------------------------------------- selection, plan


def plan_paths(capsys, *args: str) -> list[str]:
    code, out, err = run(capsys, "download", *args, "--dry-run", "--format", "csv")
    assert code == 0, err
    return [r["path"] for r in csv.DictReader(io.StringIO(out))]


def test_parts_and_tables_select_exactly(server, tmp_path, capsys):
    d = str(tmp_path / "d")
    g = ("google2011", d, "--mirror", server.url)
    # Sample parts by number: 0 in every table; 1 in job/task events, constraints, usage; 499
    # in job/task events. schema.csv always comes along.
    assert plan_paths(capsys, *g, "--parts", "1-498", "--tables", "job_events,task_usage") == [
        "job_events/part-00001-of-00500.csv.gz",
        "schema.csv",
        "task_usage/part-00001-of-00500.csv.gz",
    ]
    assert plan_paths(
        capsys, *g, "--parts", "0", "--tables", "machine_events", "--tables", "task_events"
    ) == [
        "machine_events/part-00000-of-00001.csv.gz",
        "schema.csv",
        "task_events/part-00000-of-00500.csv.gz",
    ]
    assert plan_paths(capsys, *g, "--parts", "2-498,499") == [
        "job_events/part-00499-of-00500.csv.gz",
        "schema.csv",
        "task_events/part-00499-of-00500.csv.gz",
    ]
    assert not (tmp_path / "d").exists()  # a dry run writes nothing


def test_cells_shards_and_tables_select_exactly(server, tmp_path, capsys):
    g = ("google2019", str(tmp_path), "--mirror", server.url)
    assert plan_paths(capsys, *g, "--cells", "a", "--shards", "1") == [
        "clusterdata_2019_a/instance_events-000000000001.json"
    ]
    assert plan_paths(capsys, *g, "--cells", "b", "--tables", "instance_events,machine_events") == [
        "clusterdata_2019_b/instance_events-000000000000.json.gz",
        "clusterdata_2019_b/machine_events-000000000000.json.gz",
    ]
    assert plan_paths(capsys, *g, "--cells", "a,b", "--tables", "instance_usage", "--shards", "0-0") == [
        "clusterdata_2019_a/instance_usage-000000000000.json.gz",
        "clusterdata_2019_b/instance_usage-000000000000.json.gz",
    ]


def test_alibaba_tables_select_exactly(server, tmp_path, capsys):
    a = ("alibaba2018", str(tmp_path), "--mirror", server.url)
    assert plan_paths(capsys, *a, "--tables", "machine_meta,batch_task") == [
        "machine_meta.tar.gz",
        "batch_task.tar.gz",
    ]


def test_dry_run_shows_sizes_states_and_room(server, tmp_path, capsys):
    (tmp_path / "job_events").mkdir()
    (tmp_path / "job_events/part-00001-of-00500.csv.gz.part").write_bytes(b"x" * 1000)
    code, out, err = run(
        capsys, "download", "google2011", str(tmp_path), "--tables", "job_events", "--parts", "0-1",
        "--dry-run", "--format", "csv", "--mirror", server.url,
    )  # fmt: skip
    assert code == 0, err
    rows = {r["path"]: r for r in csv.DictReader(io.StringIO(out))}
    assert rows["job_events/part-00001-of-00500.csv.gz"] == {
        "path": "job_events/part-00001-of-00500.csv.gz",
        "bytes": "125467",
        "bytes_here": "1000",
        "state": "partial",
        "verified_by": "sha256",
    }
    assert rows["job_events/part-00000-of-00500.csv.gz"]["bytes"] == "3216"
    # Total 3,216 + 125,467 + 4,020 (schema.csv) = 132,703 B = 129.6 KiB; to fetch 131,703 B.
    assert "3 file(s), 129.6 KiB in total; 0 already present; 128.6 KiB to fetch" in err
    assert err.rstrip().endswith("fits")


def test_no_room_fails_the_dry_run_and_the_download(server, tmp_path, capsys, monkeypatch):
    import shutil as _shutil

    monkeypatch.setattr(dl.shutil, "disk_usage", lambda p: _shutil._ntuple_diskusage(10**9, 10**9, 1000))
    args = ("download", "google2011", str(tmp_path), "--tables", "job_events", "--mirror", server.url)
    code, out, err = run(capsys, *args, "--dry-run")
    assert code == 1 and "DOES NOT FIT" in err and "Error: not enough room" in err
    code, out, err = run(capsys, *args)
    assert code == 1 and "Error: not enough room" in err
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("alibaba2018", "--parts", "1"), "--parts is for google2011"),
        (("google2011", "--shards", "1"), "--shards is for google2019"),
        (("google2011", "--cells", "a"), "--cells is for google2019"),
        (("google2019",), "choose cells with --cells"),
        (("google2019", "--cells", "z"), "unknown google2019 cell 'z'"),
        (("google2011", "--parts", "5-2"), "runs backwards"),
        (("google2011", "--parts", "x"), "--parts 'x': 'x' is not a number or a range"),
        (("google2011", "--tables", "nope"), "unknown google2011 table 'nope'"),
        (("google2011", "--mirror", "ftp://x"), "expected an http:// or https:// address"),
        (("nosuch",), "unknown trace"),
    ],
)
def test_usage_errors_exit_2_with_one_line(tmp_path, capsys, args, message):
    code, out, err = run(capsys, "download", args[0], str(tmp_path), *args[1:])
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_unreachable_host_is_one_clear_error(tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = run(
        capsys, "download", "google2011", str(tmp_path), "--mirror", f"http://127.0.0.1:{port}"
    )
    assert code == 1
    assert err.startswith(f"Error: cannot reach 127.0.0.1:{port} (ConnectError") and "--mirror" in err


def test_an_absent_network_fails_a_dry_run_at_once_in_one_line(tmp_path, capsys, monkeypatch):
    """The real retry policy (6 tries, pauses doubling from 1 s: at least ~25 s) is not spent on a
    host that never answered: a name that does not resolve or an address nothing listens on is
    one line, at once, naming the offline plan."""
    import socket

    monkeypatch.setattr(dl, "DEFAULT_RETRY", dl.Retry())
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    code, out, err = run(
        capsys, "download", "alibaba2018", str(tmp_path), "--dry-run", "--mirror", f"http://127.0.0.1:{port}"
    )
    elapsed = time.monotonic() - started
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "retry" not in err, err
    assert err.startswith(f"Error: cannot reach 127.0.0.1:{port} (ConnectError") and "tries" not in err
    assert "`--dry-run --offline` shows the plan" in err
    assert elapsed < 10, elapsed  # six tries would pause 1+2+4+8+16 s (x0.8 jitter at least)


def test_a_host_that_answered_is_retried_when_it_goes_away(server):
    """Once the host has answered in this run (while planning), a refused connection in the
    transfer is a drop like any other: retried with back-off, and named with its count of tries
    when the host does not come back."""
    planning = dl._Http(FAST)
    try:
        body, _ = planning.get(f"{server.url}/clusterdata-2011-2/SHA256SUM")
    finally:
        planning.close()
    assert body == server.files["clusterdata-2011-2/SHA256SUM"]
    server.stop()
    transfer = dl._Http(FAST, reached=planning.reached)  # as download() gets them from the plan
    retries: list[int] = []
    transfer.on_retry = lambda what, failures, reason, wait: retries.append(failures)
    try:
        with pytest.raises(DownloadError, match=rf"cannot reach {server.url[7:]} \(ConnectError.*4 tries\)"):
            transfer.size(f"{server.url}/{SMALL_URL}")
    finally:
        transfer.close()
    assert retries == [1, 2, 3]


def _no_network(monkeypatch):
    """Any name lookup or connection fails the test: an offline plan must use neither."""
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError(f"network used offline: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def offline_rows(capsys, *args: str) -> tuple[list[dict], str]:
    code, out, err = run(capsys, "download", *args, "--dry-run", "--offline", "--format", "csv")
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out))), err


def test_offline_plan_shows_the_alibaba_archives_at_their_published_sizes(tmp_path, capsys, monkeypatch):
    _no_network(monkeypatch)
    (tmp_path / "machine_meta.tar.gz").write_bytes(b"x" * 500)  # already here: present, not fetched
    # Whether ~50 GiB fit depends on this machine's disk: the verdict is checked against the free
    # space read here (the sizes to fetch summed by hand), and the plan is printed either way.
    need = (20 + 28) * 2**30 + 125 * 2**20 + 2516582 + 1825361101
    fits = shutil.disk_usage(tmp_path).free >= need
    code, out, err = run(
        capsys, "download", "alibaba2018", str(tmp_path), "--dry-run", "--offline", "--format", "csv"
    )
    assert code == (0 if fits else 1), err
    rows = list(csv.DictReader(io.StringIO(out)))
    # trace_2018.md's `ls -sh1`: 20G, 125M, 2.4M, 28G, 92K, 1.7G, in powers of 1024 (by hand:
    # 1.7 x 2^30 = 1,825,361,100.8; 2.4 x 2^20 = 2,516,582.4)
    assert {r["path"]: (r["published_size"], r["approx_bytes"]) for r in rows} == {
        "batch_instance.tar.gz": ("20G", str(20 * 2**30)),
        "batch_task.tar.gz": ("125M", str(125 * 2**20)),
        "container_meta.tar.gz": ("2.4M", "2516582"),
        "container_usage.tar.gz": ("28G", str(28 * 2**30)),
        "machine_meta.tar.gz": ("92K", str(92 * 2**10)),
        "machine_usage.tar.gz": ("1.7G", "1825361101"),
    }
    assert {r["verified_by"] for r in rows} == {"sha256"}
    assert {r["path"]: r["state"] for r in rows}["machine_meta.tar.gz"] == "present"
    lines = err.splitlines()
    # 48 GiB + 1.7 GiB + 125 MiB + 2.4 MiB + 92 KiB = 49.82 GiB; to fetch: all but the 92 KiB
    assert lines[0].startswith("6 of 6 file(s) have a published size: 49.8 GiB by those sizes (`ls -sh1`")
    assert lines[0].endswith("cluster-trace-v2018/trace_2018.md)")
    assert lines[1].startswith("the whole trace: about 48GB in .tar.gz format and 280GB after extraction")
    assert lines[2].startswith("1 already present; 49.8 GiB to fetch by the published sizes;")
    if fits:
        assert lines[2].endswith("fits") and len(lines) == 3
    else:
        assert lines[2].endswith("DOES NOT FIT") and lines[3].startswith("Error: not enough room")


def test_offline_plan_names_the_parts_a_checksum_file_would(server, tmp_path, capsys, monkeypatch):
    """The offline names of google2011's parts are those of the online plan (read from the
    bucket's SHA256SUM on the test server), and no per-file size is claimed."""
    sel = ("--tables", "job_events,machine_events,task_usage", "--parts", "0-1,499")
    online = plan_paths(capsys, "google2011", str(tmp_path), *sel, "--mirror", server.url)
    _no_network(monkeypatch)
    rows, err = offline_rows(capsys, "google2011", str(tmp_path), *sel)
    offline = [r["path"] for r in rows]
    # The sample holds job_events 0, 1, 499, machine_events 0 and task_usage 0, 1; the bucket
    # also has task_usage 499, which the sample lacks.
    assert set(offline) == set(online) | {"task_usage/part-00499-of-00500.csv.gz"}
    assert len(offline) == 3 + 1 + 3 + 1  # job_events, machine_events, task_usage, schema.csv
    assert {(r["approx_bytes"], r["published_size"], r["state"]) for r in rows} == {
        ("", "not published", "missing")
    }
    assert err.splitlines()[0] == (
        "8 of 8 file(s): size not published; no document states per-file sizes; "
        "the host gives them at download time"
    )
    assert "the whole trace: approximately 41GB (compressed) (https://github.com/google/cluster-data/" in err
    assert err.rstrip().endswith("room not checked (no published sizes)")


def test_offline_plan_of_google2019_names_the_tables_the_listing_would_list(tmp_path, capsys, monkeypatch):
    _no_network(monkeypatch)
    rows, err = offline_rows(
        capsys, "google2019", str(tmp_path), "--cells", "a,c", "--tables", "machine_events,instance_usage"
    )
    assert [(r["path"], r["state"]) for r in rows] == [
        ("clusterdata_2019_a/machine_events-*", "not listed offline"),
        ("clusterdata_2019_a/instance_usage-*", "not listed offline"),
        ("clusterdata_2019_c/machine_events-*", "not listed offline"),
        ("clusterdata_2019_c/instance_usage-*", "not listed offline"),
    ]
    assert "4 of 4 file(s): size not published; the host's listing names these files" in err
    assert "the whole trace: about 2.4TiB compressed (all eight cells)" in err


def test_offline_plan_that_does_not_fit_fails_after_showing_it(tmp_path, capsys, monkeypatch):
    import shutil as _shutil

    _no_network(monkeypatch)
    monkeypatch.setattr(dl.shutil, "disk_usage", lambda p: _shutil._ntuple_diskusage(10**9, 10**9, 1000))
    code, out, err = run(capsys, "download", "alibaba2018", str(tmp_path), "--dry-run", "--offline")
    assert code == 1 and "batch_instance.tar.gz" in out and "DOES NOT FIT" in err
    assert "Error: not enough room in" in err
    assert "49.8 GiB still to fetch by the published sizes, 1,000 B free" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--offline",), "--offline plans without the network, so it needs --dry-run"),
        (("--offline", "--dry-run", "--mirror", "http://x"), "--mirror has no use with it"),
    ],
)
def test_offline_option_errors(tmp_path, capsys, args, message):
    code, out, err = run(capsys, "download", "alibaba2018", str(tmp_path), *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_missing_file_is_named_and_not_retried(server, tmp_path):
    del server.files["v2018Traces/batch_task.tar.gz"]
    with pytest.raises(DownloadError, match=r"v2018Traces/batch_task\.tar\.gz: not found \(HTTP 404\)"):
        dl.plan("alibaba2018", tmp_path, dl.Selection(tables=["batch_task"]), mirror=server.url)
    assert [m for m, path, _ in server.requests if path.endswith("batch_task.tar.gz")] == ["HEAD"]


def test_mirror_keeps_the_path_after_its_own_prefix(server, tmp_path):
    # A mirror at http://host/pub/ serves the bucket paths under /pub/.
    for k in [k for k in server.files if k.startswith("v2018Traces/")]:
        server.files[f"pub/{k}"] = server.files.pop(k)
    p = dl.plan("alibaba2018", tmp_path, dl.Selection(tables=["machine_meta"]), mirror=server.url + "/pub")
    assert p.files[0].url == f"{server.url}/pub/v2018Traces/machine_meta.tar.gz"
    assert dl.base_url(alibaba2018.REMOTE, None) + "/v2018Traces" == (
        "http://aliopentrace.oss-cn-beijing.aliyuncs.com/v2018Traces"
    )


# ----------------------------------------------------------------------------- hostile hosts

SMALL = "job_events/part-00000-of-00500.csv.gz"  # 3,216 bytes
SMALL_URL = f"clusterdata-2011-2/{SMALL}"
SMALL_SHA = hashlib.sha256((SAMPLE / SMALL).read_bytes()).hexdigest()
ME_B = "machine_events-000000000000.json.gz"  # cell b's machine_events shard, 116 bytes
ME_B_LISTING = "storage/v1/b/clusterdata_2019_b/o"


def listing_of(*items: dict) -> bytes:
    return json.dumps({"kind": "storage#objects", "items": list(items)}).encode()


def listed_me_b(server) -> dict:
    """The listing's own item for cell b's machine_events shard, to tamper with."""
    return server.listing("clusterdata_2019_b", {"prefix": ["machine_events-"]})["items"][0]


def one_error_line(err: str) -> str:
    (line,) = err.splitlines()
    assert line.startswith("Error: ") and "internal error" not in line, err
    return line


@pytest.mark.parametrize("where", ["../../", "absolute"])
def test_a_checksum_file_naming_a_path_outside_the_folder_is_refused(server, tmp_path, capsys, where):
    dest = tmp_path / "a" / "b" / "dest"
    prefix = f"{tmp_path}/abs/" if where == "absolute" else where
    named = f"{prefix}{SMALL}"
    server.files["clusterdata-2011-2/SHA256SUM"] = f"{SMALL_SHA}  {named}\n".encode()
    # Served where the address of that name leads, so a download that followed it would land it.
    body = (SAMPLE / SMALL).read_bytes()
    server.files[SMALL] = server.files[f"clusterdata-2011-2/{tmp_path.relative_to('/')}/abs/{SMALL}"] = body
    code, out, err = run(capsys, "download", "google2011", str(dest), "--mirror", server.url, "-q")
    assert code == 1 and out == ""
    line = one_error_line(err)
    assert f"names {named!r}, which is not a path inside {dest}" in line
    assert files_under(tmp_path) == [] and not (tmp_path / "a").exists()  # not even a folder
    assert [p for m, p, _ in server.requests] == ["clusterdata-2011-2/SHA256SUM"]


def test_a_storage_listing_naming_a_path_outside_the_folder_is_refused(server, tmp_path, capsys):
    dest = tmp_path / "a" / "dest"
    server.faults[ME_B_LISTING] = [Fault(body=listing_of({**listed_me_b(server), "name": f"../../{ME_B}"}))]
    server.files[ME_B] = server.files[f"clusterdata_2019_b/{ME_B}"]
    code, out, err = run(
        capsys, "download", "google2019", str(dest), "--cells", "b", "--tables", "machine_events",
        "--mirror", server.url, "-q",
    )  # fmt: skip
    assert code == 1
    assert f"names 'clusterdata_2019_b/../../{ME_B}', which is not a path inside {dest}" in one_error_line(
        err
    )
    assert files_under(tmp_path) == []


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "lying-length"])
def test_a_host_streaming_past_the_listed_size_is_stopped_and_the_file_failed(server, tmp_path, chunked):
    # 64 MiB past a 3,216-byte file: the old code took it all (then failed the size check).
    server.faults[SMALL_URL] = [Fault(overrun=64 << 20, chunked=chunked)]
    with pytest.raises(DownloadError, match=r"job_events/part-00000-of-00500\.csv\.gz: the host sent more "):
        fetch(server, "google2011", tmp_path, tables=["job_events"], parts="0")
    assert not (tmp_path / SMALL).exists() and not (tmp_path / f"{SMALL}.part").exists()
    # What the server got out before the hang-up is at most the socket buffers, far below 64 MiB.
    assert server.served[SMALL_URL] < 16 << 20
    assert (tmp_path / "schema.csv").is_file()  # the other file of the run still completed


def test_a_checksum_file_that_streams_on_is_refused_at_the_limit(server, tmp_path, monkeypatch):
    monkeypatch.setattr(dl, "SMALL_LIMIT", 1 << 20)  # the real limit (64 MiB) works alike, slower
    server.faults["clusterdata-2011-2/SHA256SUM"] = [Fault(overrun=256 << 20, chunked=True)]
    with pytest.raises(
        DownloadError, match=r"SHA256SUM: more than 1\.0 MiB, far more than a listing; refusing"
    ):
        fetch(server, "google2011", tmp_path, tables=["job_events"])
    assert server.served["clusterdata-2011-2/SHA256SUM"] < 32 << 20  # not the 256 MiB on offer
    assert files_under(tmp_path) == []


@pytest.mark.parametrize(
    ("faults", "message"),
    [
        (
            lambda srv: {
                "clusterdata-2011-2/SHA256SUM": [Fault(redirect="clusterdata-2011-2/SHA256SUM")] * 40
            },
            "SHA256SUM: the host redirects in a loop",
        ),
        (
            lambda srv: {
                ME_B_LISTING: [Fault(body=b"<html><body>Moved</body></html>", content_type="text/html")]
            },
            "not a storage listing (the host sent text/html)",
        ),
        (lambda srv: {ME_B_LISTING: [Fault(body=b'{"items": 7}')]}, "not a storage listing"),
        (
            lambda srv: {ME_B_LISTING: [Fault(body=listing_of({**listed_me_b(srv), "size": "lots"}))]},
            'the listing holds an object without a usable name, size or digest: {"kind"',
        ),
        (
            lambda srv: {ME_B_LISTING: [Fault(body=listing_of({**listed_me_b(srv), "md5Hash": "%%%"}))]},
            "without a usable name, size or digest",
        ),
    ],
    ids=["redirect-loop", "html-listing", "items-not-a-list", "size-lots", "md5-not-base64"],
)
def test_a_hostile_answer_is_one_named_error_line(server, tmp_path, capsys, faults, message):
    server.faults.update(faults(server))
    trace = ["google2011", "--tables", "job_events"]
    if ME_B_LISTING in server.faults:
        trace = ["google2019", "--cells", "b", "--tables", "machine_events"]
    code, out, err = run(capsys, "download", trace[0], str(tmp_path), *trace[1:], "--mirror", server.url)
    assert code == 1 and out == ""
    assert message in one_error_line(err)


def test_a_size_probe_without_content_length_leaves_the_size_unknown(
    server, tmp_path, capsys, alibaba_digests
):
    # HEAD refused; the one-byte Range probe answered 200, chunked: no length anywhere.
    path = "v2018Traces/machine_meta.tar.gz"
    server.faults[path] = [Fault(method="HEAD", status=405), Fault(ignore_range=True, chunked=True)]
    args = ("download", "alibaba2018", str(tmp_path), "--tables", "machine_meta", "--mirror", server.url)
    code, out, err = run(capsys, *args, "--dry-run", "--format", "csv")
    assert code == 0, err
    (row,) = csv.DictReader(io.StringIO(out))
    assert row["bytes"] == ""
    assert "(1 of unknown size)" in err
    server.faults[path] = [Fault(method="HEAD", status=405), Fault(ignore_range=True, chunked=True)]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    assert (tmp_path / "machine_meta.tar.gz").read_bytes() == server.files[path]  # the sha256 decides


def test_markup_in_a_folder_a_listed_name_or_an_http_reason_prints_as_written(server, tmp_path, capsys):
    # Each of these is text from outside that rich read as markup: the old code died on "[/x]"
    # (MarkupError, then again in the error boundary: a raw traceback).
    dest = tmp_path / "d[/x]"
    odd = f"x[/x]/{SMALL}"  # a name inside the folder, as the checksum file lists it
    server.files["clusterdata-2011-2/SHA256SUM"] = f"{SMALL_SHA}  {odd}\n".encode()
    server.files[f"clusterdata-2011-2/{odd}"] = (SAMPLE / SMALL).read_bytes()
    server.faults[f"clusterdata-2011-2/{odd}"] = [Fault(status=503, reason="Slow [/x] Down")]
    code, out, err = run(capsys, "download", "google2011", str(dest), "--mirror", server.url)
    assert code == 0, err
    first, done, summary, hint = err.splitlines()
    assert first.startswith(f"{odd}: HTTP 503 Slow [/x] Down; retry 1 in ")
    assert done == f"{odd}: downloaded"
    assert summary.startswith("google2011: 1 file(s) downloaded (")
    assert summary.endswith(f"0 already present, all verified, in {dest}")
    assert hint == f"next: tracewh ingest google2011 {dest}"
    assert (dest / odd).read_bytes() == (SAMPLE / SMALL).read_bytes()


# ----------------------------------------------------------------------------- ingest, interrupt


def _gz_lines(path: Path) -> int:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


def test_downloads_ingest_cleanly(server, tmp_path, alibaba_digests):
    home = Home.resolve(tmp_path / "home")
    g11 = tmp_path / "g11"
    fetch(server, "google2011", g11, tables=["job_events", "machine_events"])
    g19 = tmp_path / "g19"
    fetch(server, "google2019", g19, cells=["b"], tables=["machine_events", "collection_events"])
    ali = tmp_path / "ali"
    fetch(server, "alibaba2018", ali, tables=["machine_meta", "batch_task"])
    import duckdb

    for trace, folder in (("google2011", g11), ("google2019", g19), ("alibaba2018", ali)):
        ingest.ingest(home, trace, folder)  # verifies sha256 where published (SHA256SUM, archives)
    con = duckdb.connect(str(home.catalog), read_only=True)
    got = dict(con.execute("SELECT trace || '.' || table_name, rows FROM meta.tables").fetchall())
    rejects = con.execute("SELECT count(*) FROM meta.rejects").fetchone()[0]
    con.close()
    # Expected rows: the non-empty lines of the sample files, counted independently here.
    job = sum(_gz_lines(SAMPLE / r) for r in G2011_PARTS if r.startswith("job_events/"))
    assert job == 62 + 3099 + 11  # data/sample/README.md
    assert got["google2011.job_events"] == job
    assert got["google2011.machine_events"] == 84
    b = SAMPLE_2019 / "clusterdata_2019_b"
    assert got["google2019.machine_events"] == _gz_lines(b / "machine_events-000000000000.json.gz")
    assert got["google2019.collection_events"] == _gz_lines(b / "collection_events-000000000000.json.gz")
    assert got["alibaba2018.machine_meta"] == _gz_lines(SAMPLE_ALIBABA / "machine_meta.csv.gz")
    assert got["alibaba2018.batch_task"] == _gz_lines(SAMPLE_ALIBABA / "batch_task.csv")
    assert rejects == 0


def test_sigint_keeps_the_part_and_the_same_command_resumes(server, tmp_path, capsys):
    # The server holds the body after 8 pieces (131,072 of 924,634 bytes) until released, so the
    # signal surely comes mid-transfer whatever the machine's load (a slow server raced the poller).
    server.hold_after = 131_072
    args = ["download", "google2011", str(tmp_path), "--tables", "task_events", "--parts", "1"]
    # The read timeout far beyond communicate()'s: the stop must wake the blocked read itself.
    env = {**os.environ, "PYTHONPATH": str(REPO), dl.READ_TIMEOUT_ENV: "3600"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracewh.cli.main", *args, "--mirror", server.url, "--quiet"],
        env=env, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    part = tmp_path / f"{BIG}.part"
    deadline = time.monotonic() + 300  # a safety net only: the held server cannot finish first
    while not (part.exists() and part.stat().st_size >= 100_000):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr and proc.stderr.read()
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    server.released.set()
    assert proc.returncode == 130, err
    # One line for one Ctrl-C (the old code added the boundary's own "Error: interrupted").
    assert err == "Error: interrupted; partial files are kept as .part and the same command resumes them\n"
    assert not (tmp_path / BIG).exists()
    kept = part.stat().st_size
    assert 100_000 <= kept <= 131_072
    server.hold_after = None
    code, out, err = run(capsys, *args, "--mirror", server.url)
    assert code == 0, err
    assert (tmp_path / BIG).read_bytes() == (SAMPLE / BIG).read_bytes()
    assert server.gets(BIG_URL)[-1] == f"bytes={kept}-"


def test_the_download_library_never_imports_the_cli_toolkit():
    code = (
        "import sys, tracewh.download\n"
        "print(sorted(m for m in ('typer', 'rich', 'click', 'tracewh.cli') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
