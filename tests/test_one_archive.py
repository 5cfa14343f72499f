"""A trace whose one archive holds every table (as Alibaba's cluster-trace-v2017 is published):
the spec names each table's member, discover gives one source per table, and the ingest reads
each table from its own member, streamed, never the archive's other files."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import duckdb
import pytest

from tracewh import ingestion as ingest
from tracewh.errors import InputError
from tracewh.home import Home
from tracewh.ingestion import readers
from tracewh.traces import MODULES_ENV

MODULE = """
import re
from tracewh.traces import Column, Layout, Table, TraceSpec

SPEC = TraceSpec(
    name="NAME",
    title="One archive, two tables",
    tables={
        "events": Table(
            "events",
            (Column("time", "BIGINT", is_time=True), Column("job", "VARCHAR", mandatory=True)),
            "events",
            member="event.csv",
        ),
        "machines": Table(
            "machines", (Column("machine", "VARCHAR", mandatory=True),), "machines", member="server.csv"
        ),
    },
    layout=Layout(re.compile(r"^NAME[.]tar[.]gz$"), "NAME.tar.gz", holds_every_table=True),
    reader="csv",
    units_per_day=86_400,
    negative_times=True,  # as v2017: a negative time is before the trace
)
"""


def _archive(path: Path, members: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _register(tmp_path: Path, monkeypatch, name: str, text: str) -> Path:
    """The trace module ``text`` registered as a trace kept outside tracewh (a module name of its
    own: Python keeps an imported module); returns an empty download folder."""
    (tmp_path / f"{name}_mod.py").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(MODULES_ENV, f"{name}_mod")
    src = tmp_path / "download"
    src.mkdir()
    return src


def test_a_table_is_read_from_its_own_member_only(tmp_path):
    path = _archive(
        tmp_path / "a.tar.gz", {"x/event.csv": "1,a\n", "x/server.csv": "m1\nm2\n", "README": "hi\n"}
    )
    assert b"".join(readers.raw_lines(path, "server.csv")) == b"m1\nm2\n"
    assert b"".join(readers.raw_lines(path, "event.csv")) == b"1,a\n"
    with pytest.raises(readers.ArchiveRefused, match=r"several \.csv files"):
        list(readers.raw_lines(path))  # no member named: one CSV per archive, as before
    twice = _archive(tmp_path / "b.tar.gz", {"a/event.csv": "1,a\n", "b/event.csv": "2,b\n"})
    with pytest.raises(readers.ArchiveRefused, match=r"two files named event\.csv"):
        list(readers.raw_lines(twice, "event.csv"))
    with pytest.raises(readers.ArchiveRefused, match=r"no machines\.csv"):
        list(readers.raw_lines(path, "machines.csv"))


def test_one_archive_ingests_every_table_from_its_member(tmp_path, monkeypatch):
    src = _register(tmp_path, monkeypatch, "onearchive", MODULE.replace("NAME", "onearchive"))
    # 3 events (one before the trace: time -5), 2 machines; the README is no table's
    _archive(
        src / "onearchive.tar.gz",
        {"trace/event.csv": "-5,j1\n10,j1\n20,j2\n", "trace/server.csv": "m1\nm2\n", "trace/README": "x\n"},
    )
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "onearchive", src)
    con = duckdb.connect(str(home.catalog), read_only=True)
    assert con.execute("SELECT time, job FROM onearchive_raw.events ORDER BY seq").fetchall() == [
        (-5, "j1"),
        (10, "j1"),
        (20, "j2"),
    ]
    assert con.execute("SELECT machine FROM onearchive_raw.machines ORDER BY 1").fetchall() == [
        ("m1",),
        ("m2",),
    ]
    rejected = con.execute("SELECT count(*) FROM meta.rejects").fetchone()
    con.close()
    assert rejected == (0,)


def test_a_missing_member_is_an_input_error(tmp_path, monkeypatch):
    src = _register(tmp_path, monkeypatch, "onearchive2", MODULE.replace("NAME", "onearchive2"))
    _archive(src / "onearchive2.tar.gz", {"event.csv": "1,j1\n"})
    with pytest.raises(InputError, match=r"no server\.csv"):
        ingest.ingest(Home.resolve(tmp_path / "home"), "onearchive2", src)


def test_the_one_archive_is_downloaded_whole_and_checked(tmp_path, monkeypatch):
    import hashlib

    from trace_server import TraceServer

    from tracewh import download as dl

    data = _archive(tmp_path / "src.tar.gz", {"event.csv": "1,j1\n", "server.csv": "m1\n"}).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    remote = (
        "    remote=Remote(base='http://example.invalid', root='v2017', listing='archive',\n"
        f"                  archive='onearchive3.tar.gz', sha256={{'onearchive3.tar.gz': '{digest}'}}),"
    )
    module = (
        MODULE.replace("NAME", "onearchive3")
        .replace("    negative_times=True,", "    negative_times=True,\n" + remote)
        .replace("import Column, Layout, Table, TraceSpec", "import Column, Layout, Remote, Table, TraceSpec")
    )
    _register(tmp_path, monkeypatch, "onearchive3", module)
    server = TraceServer()
    server.files["v2017/onearchive3.tar.gz"] = data
    server.start()
    try:
        dest = tmp_path / "dest"
        # --tables cannot split the archive: the whole of it is fetched
        plan = dl.plan("onearchive3", dest, dl.Selection(tables=["events"]), mirror=server.url)
        assert [f.path for f in plan.files] == ["onearchive3.tar.gz"]
        dl.download(plan, jobs=1)
    finally:
        server.stop()
    assert (dest / "onearchive3.tar.gz").read_bytes() == data


def test_the_plan_without_the_network_is_the_one_archive(tmp_path, monkeypatch):
    from tracewh import download as dl

    remote = (
        "    remote=Remote(base='http://example.invalid', root='v2017', listing='archive',\n"
        "                  archive='onearchive4.tar.gz', sha256={'onearchive4.tar.gz': '00' * 32},\n"
        "                  published=Published(Stated('about 1G', 'doc'),\n"
        "                                      sizes={'onearchive4.tar.gz': '2K'})),"
    )
    module = (
        MODULE.replace("NAME", "onearchive4")
        .replace("    negative_times=True,", "    negative_times=True,\n" + remote)
        .replace(
            "import Column, Layout, Table, TraceSpec",
            "import Column, Layout, Published, Remote, Stated, Table, TraceSpec",
        )
    )
    _register(tmp_path, monkeypatch, "onearchive4", module)
    # whatever the tables asked for, the one file, its stated size (2K = 2048 bytes), its digest
    plan = dl.offline_plan("onearchive4", tmp_path / "dest", dl.Selection(tables=["machines"]))
    assert [(f.path, f.stated, f.size, f.verified_by) for f in plan.files] == [
        ("onearchive4.tar.gz", "2K", 2048, "sha256")
    ]
