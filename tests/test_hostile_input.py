"""Odd and hostile input to an ingest: glob characters in source paths, one table given in two
forms, archives with several CSV members. Expected counts come from the raw files (line counts)."""

from __future__ import annotations

import gzip
import shutil
import tarfile

import duckdb
import pytest
from conftest import SAMPLE_2019, SAMPLE_ALIBABA

from tracewh import ingestion as ingest
from tracewh.errors import InputError
from tracewh.home import Home

META = ["m_1,0,219,17,96,100,USING", "m_2,10,219,17,96,100,USING", "m_3,20,219,17,96,100,USING"]


def count(home: Home, sql: str):
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


@pytest.fixture
def home(tmp_path) -> Home:
    return Home.resolve(tmp_path / "home")


# ---- every path handed to a reader is literal -------------------------------------------------


@pytest.mark.parametrize("odd,sibling", [("a?", "ab"), ("c[1]", "c1"), ("x*", "xy")])
def test_glob_characters_in_a_source_folder_read_only_that_folder(home, tmp_path, odd, sibling):
    # Old code: DuckDB expanded the path as a glob and read the sibling's rows as well (5 rows, or
    # only the sibling's 2).
    for folder, lines in ((odd, META), (sibling, META[:2])):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "machine_meta.csv").write_text("".join(f"{ln}\n" for ln in lines))
    ingest.ingest(home, "alibaba2018", tmp_path / odd, verify=False)
    assert count(home, "SELECT count(*) FROM alibaba2018.machine_meta") == 3  # the file's 3 lines
    assert count(home, "SELECT sum(rows_read) FROM meta.ingests WHERE is_current") == 3


def test_a_google2019_cell_folder_with_a_star_reads_only_its_own_shard(home, tmp_path):
    # Old code: `c*` beside `cd` read both copies of the shard (8 rows for 4).
    shard = SAMPLE_2019 / "clusterdata_2019_a" / "instance_events-000000000001.json"
    lines = len(shard.read_bytes().splitlines())  # one event per line
    for folder in ("c*", "cd"):
        (tmp_path / folder).mkdir()
        shutil.copy(shard, tmp_path / folder / shard.name)
    ingest.ingest(home, "google2019", tmp_path / "c*", cell="a", allow_empty=True)
    assert count(home, "SELECT count(*) FROM google2019_raw.instance_events") == lines


# ---- one table in two forms is one part --------------------------------------------------------


def _tar(path, members: dict[str, bytes], tmp) -> None:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            f = tmp / name.replace("/", "_")
            f.write_bytes(data)
            tf.add(f, arcname=name)


def test_a_table_ingested_as_csv_then_as_its_tar_gz_is_one_part(home, tmp_path):
    # Old code: the part key did not strip .tar.gz, so both stayed current (35,184 rows for 17,592).
    data = gzip.decompress((SAMPLE_ALIBABA / "machine_meta.csv.gz").read_bytes())
    lines = data.count(b"\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "machine_meta.csv").write_bytes(data)
    (tmp_path / "arch").mkdir()
    _tar(tmp_path / "arch" / "machine_meta.tar.gz", {"machine_meta.csv": data}, tmp_path)
    ingest.ingest(home, "alibaba2018", tmp_path / "plain")
    ingest.ingest(home, "alibaba2018", tmp_path / "arch", verify=False)
    assert count(home, "SELECT count(*) FROM alibaba2018.machine_meta") == lines
    assert count(home, "SELECT count(*) FROM meta.ingests WHERE is_current") == 1
    ingest.ingest(home, "alibaba2018", tmp_path / "plain")  # and back: still one part
    assert count(home, "SELECT count(*) FROM alibaba2018.machine_meta") == lines


# ---- archives ------------------------------------------------------------------------------


def test_an_archive_with_two_csv_members_is_refused_naming_both(home, tmp_path):
    # Old code: the first member was read, the second dropped without a word (3 rows, exit 0).
    (tmp_path / "src").mkdir()
    one = "".join(f"{ln}\n" for ln in META[:2]).encode()
    two = f"{META[2]}\n".encode()
    _tar(tmp_path / "src" / "machine_meta.tar.gz", {"a/machine_meta.csv": one, "b/more.csv": two}, tmp_path)
    with pytest.raises(InputError, match=r"machine_meta\.tar\.gz: .*several \.csv files.*more\.csv"):
        ingest.ingest(home, "alibaba2018", tmp_path / "src", verify=False)
    assert not home.catalog.exists() or count(home, "SELECT count(*) FROM meta.ingests") == 0


def test_an_archive_with_one_csv_member_and_a_readme_is_read(home, tmp_path):
    (tmp_path / "src").mkdir()
    data = "".join(f"{ln}\n" for ln in META).encode()
    members = {"README.txt": b"notes\n", "machine_meta.csv": data}
    _tar(tmp_path / "src" / "machine_meta.tar.gz", members, tmp_path)
    ingest.ingest(home, "alibaba2018", tmp_path / "src", verify=False)
    assert count(home, "SELECT count(*) FROM alibaba2018.machine_meta") == 3
