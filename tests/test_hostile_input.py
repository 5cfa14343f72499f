"""Odd and hostile input to an ingest: glob characters in source paths, one table given in two
forms, archives with several CSV members. Expected counts come from the raw files (line counts)."""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import shutil
import signal
import subprocess
import tarfile
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from cli_helpers import run_cli, signal_at
from conftest import REPO, SAMPLE_2019, SAMPLE_ALIBABA, write_gz
from test_safety import JOB, TRACEWH

from tracewh import catalog
from tracewh import ingestion as ingest
from tracewh.catalog import checks, holdings
from tracewh.errors import InputError
from tracewh.home import Home
from tracewh.options import IngestOptions

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


@pytest.mark.usefixtures("ingest_path")
@pytest.mark.parametrize("odd,sibling", [("a?", "ab"), ("c[1]", "c1"), ("x*", "xy")])
def test_glob_characters_in_a_source_folder_read_only_that_folder(home, tmp_path, odd, sibling):
    # Old code: DuckDB expanded the path as a glob and read the sibling's rows as well (5 rows, or
    # only the sibling's 2).
    for folder, lines in ((odd, META), (sibling, META[:2])):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "machine_meta.csv").write_text("".join(f"{ln}\n" for ln in lines))
    ingest.ingest(home, "alibaba2018", tmp_path / odd, IngestOptions(verify=False))
    assert count(home, "SELECT count(*) FROM alibaba2018.machine_meta") == 3  # the file's 3 lines
    assert count(home, "SELECT sum(rows_read) FROM meta.ingests WHERE is_current") == 3


def test_a_google2019_cell_folder_with_a_star_reads_only_its_own_shard(home, tmp_path):
    # Old code: `c*` beside `cd` read both copies of the shard (8 rows for 4).
    shard = SAMPLE_2019 / "clusterdata_2019_a" / "instance_events-000000000001.json"
    lines = len(shard.read_bytes().splitlines())  # one event per line
    for folder in ("c*", "cd"):
        (tmp_path / folder).mkdir()
        shutil.copy(shard, tmp_path / folder / shard.name)
    ingest.ingest(home, "google2019", tmp_path / "c*", IngestOptions(cell="a", allow_empty=True))
    assert count(home, "SELECT count(*) FROM google2019_raw.instance_events") == lines


# ---- one table in two forms is one part --------------------------------------------------------


def _tar(path, members: dict[str, bytes], tmp) -> None:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            f = tmp / name.replace("/", "_")
            f.write_bytes(data)
            tf.add(f, arcname=name)


@pytest.mark.usefixtures("ingest_path")
def test_a_table_ingested_as_csv_then_as_its_tar_gz_is_one_part(home, tmp_path):
    # Old code: the part key did not strip .tar.gz, so both stayed current (35,184 rows for 17,592).
    data = gzip.decompress((SAMPLE_ALIBABA / "machine_meta.csv.gz").read_bytes())
    lines = data.count(b"\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "machine_meta.csv").write_bytes(data)
    (tmp_path / "arch").mkdir()
    _tar(tmp_path / "arch" / "machine_meta.tar.gz", {"machine_meta.csv": data}, tmp_path)
    ingest.ingest(home, "alibaba2018", tmp_path / "plain")
    ingest.ingest(home, "alibaba2018", tmp_path / "arch", IngestOptions(verify=False))
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
        ingest.ingest(home, "alibaba2018", tmp_path / "src", IngestOptions(verify=False))
    assert not home.catalog.exists() or count(home, "SELECT count(*) FROM meta.ingests") == 0


def test_an_archive_with_one_csv_member_and_a_readme_is_read(home, tmp_path):
    (tmp_path / "src").mkdir()
    data = "".join(f"{ln}\n" for ln in META).encode()
    members = {"README.txt": b"notes\n", "machine_meta.csv": data}
    _tar(tmp_path / "src" / "machine_meta.tar.gz", members, tmp_path)
    ingest.ingest(home, "alibaba2018", tmp_path / "src", IngestOptions(verify=False))
    assert count(home, "SELECT count(*) FROM alibaba2018.machine_meta") == 3


# ---- after the commit: links and superseded generations ------------------------------------


def _jobs(root, jobs: list[int]):
    write_gz(
        root / "job_events" / "part-00000-of-00500.csv.gz", [JOB.format(t=1_000_000 + j, job=j) for j in jobs]
    )
    return root


def _env(home: Home, *hooks: str) -> dict[str, str]:
    """The environment of a `tracewh` subprocess on this home, with test hooks switched on."""
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TRACEWH_HOME": str(home.root),
        **dict.fromkeys(hooks, "1"),
    }


def test_a_kill_right_after_the_commit_rename_is_mended_by_the_next_reading_command(home, tmp_path):
    # Old code: the links kept naming the old generation until the next writer; `check` failed.
    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    new = _jobs(tmp_path / "new", [7, 8, 9])
    # killed where the ingest stops itself right after the rename (signals.pause_point)
    code, err = signal_at(
        [*TRACEWH, "ingest", "google2011", str(new), "-q"], _env(home), "catalog replaced", signal.SIGKILL
    )
    assert code == -signal.SIGKILL, err
    link = home.table_link("google2011", "job_events")
    want = (home.root / catalog.live_dirs(home.catalog)[("google2011", "job_events")]).resolve()
    assert link.resolve() != want  # the kill left the link stale
    assert not [c.name for c in checks.run_all(home) if c.failed]
    assert link.resolve() == want
    # a link reader (pyarrow, Spark) sees the committed rows: jobs 7, 8, 9
    assert sorted(pq.read_table(link).column("job_id").to_pylist()) == [7, 8, 9]


def test_the_superseded_generation_is_deleted_by_the_next_command_and_info_says_what_it_holds(
    home, tmp_path, capsys
):
    # Old code: after `--replace` the old generation stayed until another writer ran.
    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    old_gen = home.root / catalog.live_dirs(home.catalog)[("google2011", "job_events")]
    old_bytes = sum(f.stat().st_size for f in old_gen.rglob("*") if f.is_file())
    ingest.ingest(home, "google2011", _jobs(tmp_path / "new", [7]), IngestOptions(replace=True))
    assert old_gen.is_dir()  # kept: a reader may have opened the old catalog a moment ago
    assert holdings.beyond_live(home) >= old_bytes
    for dirs in home.retired.glob("*.dirs"):  # the grace time has passed (no reader took a lock)
        os.utime(dirs, (time.time() - 3600, time.time() - 3600))
    code, _, err = run_cli(capsys, "info", "--home", str(home.root))
    assert code == 0
    assert not old_gen.exists()
    assert [p.name for p in home.generations("google2011").iterdir()] == [
        Path(catalog.live_dirs(home.catalog)[("google2011", "job_events")]).name
    ]
    assert holdings.beyond_live(home) == 0
    assert "0.00 MB on disk beyond the live data" in err


# ---- homes of older layouts ----------------------------------------------------------------

# Homes built by the code of past commits (each ingested job_events part-00000 with jobs 1 and 2;
# made with `git worktree add` of the commit): the first release (no seq column), seq without
# meta.ingests.cell and with meta.tables.distinct_tasks, approx_distinct_tasks, and main before the
# catalog format was recorded.
OLD_HOMES = Path(__file__).parent / "fixtures" / "old_homes"
MIGRATABLE = {"01f326b": False, "b2fb06e": True, "7621942": True, "32bbc14": True}


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


@pytest.mark.parametrize("rev", sorted(MIGRATABLE))
def test_a_home_of_an_older_layout_is_named_and_migrated_by_repair_or_refused_with_one_line(
    tmp_path, capsys, rev
):
    # Old code: info failed with "table_parts does not exist", check with an internal error.
    root = tmp_path / "home"
    root.mkdir()
    with tarfile.open(OLD_HOMES / f"{rev}.tar.gz") as tf:
        tf.extractall(root, filter="data")
    h = ["--home", str(root)]
    for command in (["info"], ["check"], ["ingest", "google2011", str(_jobs(tmp_path / "more", [5]))]):
        code, out, err = run_cli(capsys, *command, *h)
        assert code == 1 and out == "", (command, err)
        assert "catalog format 1" in _error_line(err) and "tracewh repair" in err, command
    code, _, err = run_cli(capsys, "repair", *h)
    if not MIGRATABLE[rev]:
        assert code == 1 and "ingest its raw files again into a new home" in _error_line(err)
        return
    assert code == 0, err
    assert run_cli(capsys, "check", *h)[0] == 0
    assert run_cli(capsys, "info", *h)[0] == 0
    q = "SELECT count(*), sum(job_id) FROM google2011.job_events"
    assert run_cli(capsys, "sql", q, "-f", "csv", *h)[1].splitlines()[1] == "2,3"  # jobs 1 and 2
    assert run_cli(capsys, "ingest", "google2011", str(tmp_path / "more"), "-q", *h)[0] == 0
    # part 0 rewritten with job 5 (the new source names part 0 too): one row
    assert run_cli(capsys, "sql", q, "-f", "csv", *h)[1].splitlines()[1] == "1,5"


def test_a_write_refused_while_staging_the_catalog_is_one_line_and_changes_nothing(home, tmp_path):
    # Old code: "Error: internal error: OSError: [Errno 27] File too large" (a full disk alike).
    import resource

    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    size = home.catalog.stat().st_size

    def small_files() -> None:  # the Parquet fits, a copy of the catalog does not
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a refused write is EFBIG, not a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, size // 2))

    env = _env(home)
    new = _jobs(tmp_path / "new", [7])
    proc = subprocess.run(
        [*TRACEWH, "ingest", "google2011", str(new), "-q"],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=small_files,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    line = _error_line(proc.stderr)
    assert "staging the catalog" in line and "internal error" not in line, line
    assert count(home, "SELECT sum(job_id) FROM google2011.job_events") == 3  # jobs 1 and 2, as before
    assert not list(home.root.glob(".tracewh.duckdb.*.staged*"))


def test_a_ctrl_c_that_duckdb_turns_into_its_own_error_is_exit_130_and_says_nothing_committed(home, tmp_path):
    # Old code: "Error: internal error: RuntimeError: Query interrupted" (or DuckDB's
    # InvalidInputException naming the KeyboardInterrupt), exit 1, not saying what was committed.
    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    env = _env(home, ingest.SIGINT_IN_QUERY_ENV)
    new = _jobs(tmp_path / "new", [7])
    proc = subprocess.run(
        [*TRACEWH, "ingest", "google2011", str(new), "-q"], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 130, proc.stderr
    assert _error_line(proc.stderr) == "Error: interrupted; nothing was committed, the warehouse is as it was"
    assert count(home, "SELECT sum(job_id) FROM google2011.job_events") == 3  # jobs 1 and 2
    assert [p.name for p in home.generations("google2011").iterdir()] == [
        Path(catalog.live_dirs(home.catalog)[("google2011", "job_events")]).name
    ]


# ---- one snapshot per summary page ---------------------------------------------------------


def test_an_ingest_committing_while_the_summary_page_is_built_is_not_on_the_page(home, tmp_path):
    # Old code: each report opened the catalog anew, so the page mixed the old and the new data
    # (here: the "What is ingested" table, read last, showed the 3 new rows beside reports of 2).
    from tracewh.reports import summary

    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    new = _jobs(tmp_path / "new", [7, 8, 9])
    seen: list[str] = []

    def during(label: str) -> None:
        if not seen:  # before the first report: another process commits a replace
            cmd = [*TRACEWH, "ingest", "google2011", str(new), "--replace", "-q"]
            subprocess.run(cmd, env=_env(home), check=True, capture_output=True)
        seen.append(label)

    page = summary.html_page(home, progress=during)
    assert seen and count(home, "SELECT count(*) FROM google2011.job_events") == 3  # it did commit
    held = re.search(r'<section id="ingested">(.*?)</section>', page.html, re.S)
    assert held is not None
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", held.group(1))
    # the job_events row of the page's own snapshot: 2 rows (jobs 1 and 2), not the new 3
    assert cells[cells.index("job_events") + 1] == "2", cells


def test_an_api_snapshot_reads_one_state_while_an_ingest_commits(home, tmp_path):
    # Old code: no session; each call opened the catalog anew (the second info showed 3 rows).
    import tracewh

    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    new = _jobs(tmp_path / "new", [7, 8, 9])
    with tracewh.snapshot(home.root):
        before = tracewh.info(home.root)
        cmd = [*TRACEWH, "ingest", "google2011", str(new), "--replace", "-q"]
        subprocess.run(cmd, env=_env(home), check=True, capture_output=True)
        after = tracewh.info(home.root)
    assert before["rows"].to_list() == after["rows"].to_list() == [2]
    assert tracewh.info(home.root)["rows"].to_list() == [3]  # a new session sees the commit


# ---- duplicate lines: kept, counted ---------------------------------------------------------


@pytest.mark.usefixtures("ingest_path")
def test_duplicate_lines_are_kept_and_counted_per_file_in_meta_and_info(home, tmp_path, capsys):
    # Old code: identical lines were written with no count anywhere.
    a, b, c = (JOB.format(t=1_000_000 + j, job=j) for j in (1, 2, 3))
    # by hand: a a | b | a | c c c -> 1 + 2 = 3 lines repeat the line before them; 7 rows kept
    write_gz(tmp_path / "g" / "job_events" / "part-00000-of-00500.csv.gz", [a, a, b, a, c, c, c])
    ingest.ingest(home, "google2011", tmp_path / "g")
    (tmp_path / "ali").mkdir()
    # plain csv, counted in the hashing pass: m1 m1 m1 m2 -> 2
    (tmp_path / "ali" / "machine_meta.csv").write_text(f"{META[0]}\n{META[0]}\n{META[0]}\n{META[1]}\n")
    ingest.ingest(home, "alibaba2018", tmp_path / "ali", IngestOptions(verify=False))
    q = "SELECT table_name, rows_written, duplicate_lines FROM meta.ingests WHERE is_current ORDER BY 1"
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        assert con.execute(q).fetchall() == [("job_events", 7, 3), ("machine_meta", 4, 2)]
    finally:
        con.close()
    code, out, _ = run_cli(capsys, "info", "--home", str(home.root), "-f", "csv")
    assert code == 0
    got = {r["table"]: r["duplicates"] for r in csv.DictReader(io.StringIO(out))}
    assert got == {"job_events": "3", "machine_meta": "2"}


def test_a_reading_command_never_deletes_what_a_connection_of_its_own_process_reads(home, tmp_path):
    # Without the check of this process's own open files, the tidy's lock probe would succeed
    # (fcntl locks never conflict within a process), drop the notebook's lock and delete the
    # generation its connection reads.
    import tracewh

    ingest.ingest(home, "google2011", _jobs(tmp_path / "old", [1, 2]))
    con = tracewh.connect(home.root)
    try:
        assert con.execute("SELECT count(*) FROM google2011.job_events").fetchall() == [(2,)]
        cmd = [*TRACEWH, "ingest", "google2011", str(_jobs(tmp_path / "new", [7])), "--replace", "-q"]
        subprocess.run(cmd, env=_env(home), check=True, capture_output=True)
        for dirs in home.retired.glob("*.dirs"):  # past the grace time
            os.utime(dirs, (time.time() - 3600, time.time() - 3600))
        tracewh.info(home.root)  # a reading command: it tidies the home first
        assert con.execute("SELECT count(*), sum(job_id) FROM google2011.job_events").fetchall() == [(2, 3)]
    finally:
        con.close()
