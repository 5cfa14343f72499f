"""Ingest: lossless per-file accounting, rejects, atomic replace, idempotent re-runs, --append,
checksums and every named kind of bad input."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys

import duckdb
import pytest
from conftest import SAMPLE, awk, task_row, write_gz
from conftest import read_catalog as read

from tracewh import ingestion as ingest
from tracewh.errors import CatalogError, InputError, UsageError
from tracewh.home import Home
from tracewh.options import IngestOptions

JOB_ROW = "5000000,,42,0,user,1,name,logical"


def snapshot(home: Home) -> dict:
    """What a user sees: every file under the home and the rows of the metadata tables."""
    files = {
        str(p.relative_to(home.root)): p.stat().st_size
        for p in home.root.rglob("*")
        if p.is_file() and p.name != ".writer.lock"
    }
    meta = {t: read(home, f"SELECT * FROM meta.{t} ORDER BY ALL") for t in ("ingests", "rejects", "tables")}
    return {"files": files, "meta": meta, "rows": read(home, "SELECT count(*) FROM google2011.task_events")}


@pytest.fixture
def home(tmp_path) -> Home:
    return Home.resolve(tmp_path / "home")


def test_rows_read_equal_written_plus_rejected_per_file_and_match_line_counts(sample_home):
    rows = read(
        sample_home,
        "SELECT table_name, file, rows_read, rows_written, rows_rejected FROM meta.ingests "
        "WHERE is_current AND trace = 'google2011'",
    )
    assert len(rows) == len(list(SAMPLE.glob("*/*.csv.gz")))
    for table, file, n_read, written, rejected in rows:
        lines = int(awk(f"gzip -dc {SAMPLE}/{table}/{file} | wc -l"))
        assert (n_read, written, rejected) == (lines, lines, 0), file


def test_sample_checksums_are_verified_and_recorded(sample_home):
    rows = read(
        sample_home,
        "SELECT table_name, file, sha256, sha256_verified FROM meta.ingests WHERE trace = 'google2011'",
    )
    for table, file, sha, verified in rows:
        expected = awk(f"sha256sum {SAMPLE}/{table}/{file}").split()[0]
        assert (sha, verified) == (expected, True)


@pytest.mark.usefixtures("ingest_path")
def test_malformed_lines_are_rejected_with_line_number_and_reason(home, tmp_path):
    src = tmp_path / "src"
    lines = [
        task_row(700, 1, 0, 0),  # 1 ok
        task_row(701, 1, 1, 0)[: -len(",0")],  # 2 one column short
        task_row(702, "12abc", 2, 0),  # 3 text in a number
        task_row(703, 9223372036854775808, 3, 0),  # 4 job id overflows BIGINT
        task_row(704, 1, 4, 0) + ",extra",  # 5 one column too many
        task_row(-5, 1, 5, 0),  # 6 negative time
        task_row(706, 1, 6, 0, diff="2"),  # 7 not a boolean
        task_row(707, 1, 7, 0),  # 8 ok
    ]
    write_gz(src / "task_events" / "part-00000-of-00001.csv.gz", lines)
    result = ingest.ingest(home, "google2011", src)
    (f,) = result.files
    assert (f.rows_read, f.rows_written, f.rows_rejected) == (8, 2, 6)
    rejects = read(home, "SELECT line, column_name, error_type, raw FROM meta.rejects ORDER BY line")
    assert [(r[0], r[2]) for r in rejects] == [
        (2, "MISSING COLUMNS"),
        (3, "CAST"),
        (4, "CAST"),
        (5, "TOO MANY COLUMNS"),
        (6, "CAST"),
        (7, "CAST"),
    ]
    assert [r[1] for r in rejects if r[2] == "CAST"] == [
        "job_id",
        "job_id",
        "time",
        "different_machines_restriction",
    ]
    assert [r[3] for r in rejects] == lines[1:7]
    assert read(home, "SELECT task_index FROM google2011.task_events ORDER BY 1") == [(0,), (7,)]
    assert read(home, "SELECT rows, rows_rejected FROM meta.tables") == [(2, 6)]


@pytest.mark.usefixtures("ingest_path")
def test_truncated_gzip_fails_naming_the_file_and_leaves_the_warehouse_as_it_was(home, tmp_path):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["task_events", "job_events"]))
    before = snapshot(home)
    src = tmp_path / "bad"
    shutil.copytree(SAMPLE / "task_events", src / "task_events")
    part = src / "task_events" / "part-00001-of-00500.csv.gz"
    data = part.read_bytes()
    part.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"part-00001-of-00500\.csv\.gz"):
        ingest.ingest(home, "google2011", src, IngestOptions(verify=False))
    assert snapshot(home) == before
    on_disk = {p.name for p in home.generations("google2011").iterdir()}
    named = "SELECT data_dir FROM meta.tables UNION SELECT data_dir FROM meta.derived"
    assert on_disk == {d.split("/")[-1] for (d,) in read(home, named)}


def test_a_failure_during_the_commit_leaves_everything_as_it_was(home, monkeypatch):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    before = snapshot(home)

    def boom(*args, **kwargs):
        raise RuntimeError("power cut")

    # the views of the commit: re-pointed (refresh) when the catalog's views are this code's
    monkeypatch.setattr(ingest.catalog, "refresh", boom)
    with pytest.raises(Exception, match="power cut"):
        ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"], replace=True))
    assert snapshot(home) == before


def catalog_dump(home: Home) -> dict:
    """Everything a catalog holds, as sets: views (SQL and comment), columns (type and comment),
    macros, tables and their rows."""
    con = duckdb.connect(str(home.catalog), read_only=True)
    try:
        here = "database_name = current_database()"
        out = {
            "views": con.execute(
                "SELECT schema_name, view_name, sql, comment FROM duckdb_views() "
                f"WHERE {here} AND NOT internal"
            ).fetchall(),
            "columns": con.execute(
                "SELECT schema_name, table_name, column_name, column_index, data_type, comment "
                f"FROM duckdb_columns() WHERE {here}"
            ).fetchall(),
            "macros": con.execute(
                "SELECT schema_name, function_name, CAST(macro_definition AS VARCHAR), "
                f"CAST(parameters AS VARCHAR) FROM duckdb_functions() WHERE {here} AND NOT internal"
            ).fetchall(),
        }
        tables = con.execute(
            f"SELECT schema_name, table_name, sql FROM duckdb_tables() WHERE {here}"
        ).fetchall()
        out["tables"] = tables
        for schema, table, _ in tables:
            out[f"{schema}.{table}"] = con.execute(f'SELECT * FROM "{schema}"."{table}"').fetchall()
        return {k: sorted(map(repr, v)) for k, v in out.items()}
    finally:
        con.close()


def test_the_views_an_ingest_repoints_equal_a_rebuild_of_every_view(tmp_path):
    """A commit re-makes only the raw views of the tables it wrote and the derived views; the rest
    must be what `repair` (every view made again from the SQL) makes, in a home whose catalog came
    from the process's empty template (the second home) as in the first."""
    from conftest import SAMPLE_ALIBABA

    from tracewh import catalog

    for name in ("first", "second"):
        home = Home.resolve(tmp_path / name)
        ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["task_events", "machine_events"]))
        ingest.ingest(home, "alibaba2018", SAMPLE_ALIBABA, IngestOptions(tables=["batch_task"]))
        part = SAMPLE / "job_events" / "part-00000-of-00500.csv.gz"
        ingest.ingest(home, "google2011", part, IngestOptions(table_for_file="job_events"))
        refreshed = catalog_dump(home)
        assert any("read_parquet" in v and "job_events" in v for v in refreshed["views"])
        catalog.repair(home)
        assert catalog_dump(home) == refreshed, name


def test_a_catalog_whose_views_another_build_made_is_rebuilt_whole_at_the_next_commit(home, tmp_path):
    """The refresh trusts the views only when the catalog records this code's views_key; a view a
    catalog lacks (here dropped, the key changed as another version would have it) is made again."""
    from tracewh import catalog

    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["machine_events"]))
    con = duckdb.connect(str(home.catalog))
    con.execute("DROP VIEW google2011.job_events")
    con.execute("UPDATE meta.catalog SET value = 'another build' WHERE key = $k", {"k": catalog.BUILT_FROM})
    con.close()
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(3172,)]
    assert read(
        home, f"SELECT value = '{catalog.views_key()}' FROM meta.catalog WHERE key = '{catalog.BUILT_FROM}'"
    ) == [(True,)]


def test_an_ingest_of_only_unchanged_parts_leaves_the_catalog_file_untouched(home):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    st = home.catalog.stat()
    again = ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    assert not again.committed and again.files == []
    assert [(t.table, len(t.skipped), t.rows_total) for t in again.tables] == [("job_events", 3, 3172)]
    after = home.catalog.stat()
    # no catalog staged, published or retired: the same file, unchanged
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (st.st_ino, st.st_mtime_ns, st.st_size)
    assert not home.retired.exists() or not any(home.retired.iterdir())
    assert read(home, "SELECT count(DISTINCT ingest_id) FROM meta.ingests") == [(1,)]


def test_an_ingest_killed_midway_is_invisible_and_its_leftovers_are_cleaned_next_time(home, tmp_path):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    before = snapshot(home)
    # A kill -9 between the Parquet writes and the commit leaves an orphan generation and spill files.
    orphan = home.generations("google2011") / "job_events.20990101T000000-dead00"
    orphan.mkdir(parents=True)
    (orphan / "part-00001-of-00500.parquet").write_bytes(b"half a file")
    (home.tmp / "20990101T000000-dead00").mkdir(parents=True)
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(3172,)]
    assert snapshot(home)["meta"] == before["meta"]
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    assert not orphan.exists()
    assert not home.tmp.exists()


def test_reingest_skips_unchanged_parts_and_replace_rewrites_without_duplicating(home, monkeypatch):
    monkeypatch.setattr(ingest.catalog, "RETIRED_GRACE_S", 0)
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    first = read(home, "SELECT count(*) FROM google2011.job_events")
    again = ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    assert again.files == [] and len(again.tables[0].skipped) == 3
    assert read(home, "SELECT count(*), count(*) FILTER (is_current) FROM meta.ingests") == [(3, 3)]
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"], replace=True))
    assert read(home, "SELECT count(*) FROM google2011.job_events") == first == [(3172,)]
    assert read(home, "SELECT count(*), count(*) FILTER (is_current) FROM meta.ingests") == [(6, 3)]
    # exactly one generation left on disk (no reader holds the old catalog), the one the catalog names
    gens = [p.name for p in home.generations("google2011").iterdir()]
    (live,) = read(home, "SELECT data_dir FROM meta.tables")
    assert gens == [live[0].split("/")[-1]]
    assert home.table_link("google2011", "job_events").resolve() == (home.root / live[0]).resolve()


def test_append_adds_only_new_parts(home, tmp_path):
    src = tmp_path / "src"
    (src / "job_events").mkdir(parents=True)
    shutil.copy(SAMPLE / "job_events" / "part-00000-of-00500.csv.gz", src / "job_events")
    ingest.ingest(home, "google2011", src)
    shutil.copy(SAMPLE / "job_events" / "part-00001-of-00500.csv.gz", src / "job_events")
    result = ingest.ingest(home, "google2011", src, IngestOptions(append=True))
    assert [f.name for f in result.files] == ["part-00001-of-00500.csv.gz"]
    assert result.tables[0].skipped == ["part-00000-of-00500.csv.gz"]
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(62 + 3099,)]
    assert read(home, "SELECT file FROM meta.ingests WHERE is_current ORDER BY 1") == [
        ("part-00000-of-00500.csv.gz",),
        ("part-00001-of-00500.csv.gz",),
    ]
    # appending again is a no-op
    again = ingest.ingest(home, "google2011", src, IngestOptions(append=True))
    assert again.files == [] and read(home, "SELECT count(*) FROM google2011.job_events") == [(3161,)]


def test_append_refuses_a_part_whose_content_changed(home, tmp_path):
    src = tmp_path / "src"
    write_gz(src / "job_events" / "part-00000-of-00500.csv.gz", [JOB_ROW])
    ingest.ingest(home, "google2011", src)
    write_gz(src / "job_events" / "part-00000-of-00500.csv.gz", [JOB_ROW, JOB_ROW])
    with pytest.raises(InputError, match="different size or sha256"):
        ingest.ingest(home, "google2011", src, IngestOptions(append=True))


def test_sha256sum_mismatch_is_fatal_unless_no_verify(home, tmp_path):
    src = tmp_path / "src"
    write_gz(src / "job_events" / "part-00000-of-00500.csv.gz", [JOB_ROW])
    (src / "SHA256SUM").write_text("0" * 64 + "  job_events/part-00000-of-00500.csv.gz\n")
    with pytest.raises(InputError, match="does not match the published digest"):
        ingest.ingest(home, "google2011", src)
    assert not home.catalog.exists() or read(home, "SELECT count(*) FROM meta.ingests") == [(0,)]
    ingest.ingest(home, "google2011", src, IngestOptions(verify=False))
    assert read(home, "SELECT sha256_verified FROM meta.ingests") == [(False,)]


def test_single_part_file_with_table(home, tmp_path):
    f = write_gz(tmp_path / "loose.csv.gz", [JOB_ROW])
    with pytest.raises(UsageError, match="--table"):
        ingest.ingest(home, "google2011", f)
    ingest.ingest(home, "google2011", f, IngestOptions(table_for_file="job_events"))
    assert read(home, "SELECT job_id, file FROM google2011.job_events, meta.ingests") == [
        (42, "loose.csv.gz")
    ]


@pytest.mark.usefixtures("ingest_path")
def test_plain_csv_parts_are_accepted(home, tmp_path):
    src = tmp_path / "src"
    (src / "job_events").mkdir(parents=True)
    (src / "job_events" / "part-00000-of-00001.csv").write_text(JOB_ROW + "\n")
    ingest.ingest(home, "google2011", src)
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(1,)]


@pytest.mark.usefixtures("ingest_path")
@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "empty file"),
        (b"time,job\n", "not a gzip file"),
    ],
)
def test_empty_and_non_gzip_files_fail_with_a_clear_error(home, tmp_path, content, message):
    src = tmp_path / "src"
    (src / "job_events").mkdir(parents=True)
    (src / "job_events" / "part-00000-of-00001.csv.gz").write_bytes(content)
    with pytest.raises(InputError, match=message):
        ingest.ingest(home, "google2011", src)


@pytest.mark.usefixtures("ingest_path")
def test_a_gzip_of_nothing_is_an_error_unless_an_empty_part_is_expected(home, tmp_path):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    before = snapshot(home)
    src = tmp_path / "src"
    (src / "job_events").mkdir(parents=True)
    (src / "job_events" / "part-00000-of-00001.csv.gz").write_bytes(gzip.compress(b""))
    with pytest.raises(InputError, match=r"part-00000-of-00001\.csv\.gz: no rows; pass --allow-empty"):
        ingest.ingest(home, "google2011", src, IngestOptions(replace=True))
    assert snapshot(home) == before
    result = ingest.ingest(home, "google2011", src, IngestOptions(replace=True, allow_empty=True))
    assert result.files[0].rows_read == 0
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(0,)]


@pytest.mark.usefixtures("ingest_path")
def test_a_file_whose_rows_are_all_rejected_is_an_error_even_when_empty_parts_are_allowed(home, tmp_path):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    before = snapshot(home)
    src = tmp_path / "src"
    write_gz(
        src / "job_events" / "part-00000-of-00001.csv.gz",
        ["time,missing_info,job_id,event_type,user,scheduling_class,job_name,logical_job_name"],
    )
    for allow_empty in (False, True):
        with pytest.raises(
            InputError, match=r"part-00000-of-00001\.csv\.gz: all 1 line\(s\) were rejected \(line 1"
        ):
            ingest.ingest(home, "google2011", src, IngestOptions(replace=True, allow_empty=allow_empty))
    assert snapshot(home) == before


@pytest.mark.usefixtures("ingest_path")
def test_duplicate_rows_are_kept_as_in_the_source(home, tmp_path):
    src = tmp_path / "src"
    write_gz(src / "job_events" / "part-00000-of-00001.csv.gz", [JOB_ROW, JOB_ROW])
    ingest.ingest(home, "google2011", src)
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(2,)]


def test_a_folder_of_another_trace_is_refused_naming_what_it_holds(home, tmp_path):
    src = tmp_path / "alibaba"
    src.mkdir()
    (src / "batch_task.csv").write_text("t,1,j_1,1,Terminated,1,2,100,0.3\n")
    with pytest.raises(InputError, match=r"no google2011 files found.*batch_task\.csv"):
        ingest.ingest(home, "google2011", src)


def test_unknown_trace_and_table_are_usage_errors(home):
    with pytest.raises(UsageError):
        ingest.ingest(home, "google2099", SAMPLE)
    with pytest.raises(UsageError):
        ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["nope"]))


def test_a_home_that_is_not_writable_is_a_clear_error(tmp_path):
    if sys.platform != "win32" and shutil.which("id") and awk("id -u").strip() == "0":
        # root ignores permissions: use a path below a regular file instead
        blocker = tmp_path / "file"
        blocker.write_text("")
        home = Home.resolve(blocker / "home")
    else:
        ro = tmp_path / "ro"
        ro.mkdir(mode=0o500)
        home = Home.resolve(ro / "home")
    with pytest.raises(CatalogError, match="not writable"):
        ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))


def test_a_catalog_held_by_another_writer_is_a_clear_error(home, monkeypatch):
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    monkeypatch.setattr(ingest.catalog, "_LOCK_WAIT_S", 0.5)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            # holds the catalog until its stdin closes (not for a time a slow machine could outlast)
            "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
            "print('ready', flush=True); sys.stdin.read()",
            str(home.catalog),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(CatalogError, match="locked by another process"):
            ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    finally:
        holder.kill()
        holder.wait()
    assert read(home, "SELECT count(*) FROM google2011.job_events") == [(3172,)]


def test_two_ingests_at_once_the_second_is_refused(home):
    with home.writer_lock(), pytest.raises(CatalogError, match="being written"):
        ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))


def test_an_ingest_removes_spill_folders_of_dead_queries_and_keeps_a_running_ones(home):
    import os

    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    dead = home.tmp / "query-999999999"
    alive = home.tmp / f"query-{os.getpid()}"
    for folder in (dead, alive):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "duckdb_temp_block").write_bytes(b"x")
    ingest.ingest(home, "google2011", SAMPLE, IngestOptions(tables=["job_events"]))
    assert not dead.exists() and (alive / "duckdb_temp_block").exists()


def test_reingesting_an_unchanged_folder_reports_the_rows_the_tables_still_hold(tmp_path):
    src = tmp_path / "src"
    write_gz(
        src / "task_events" / "part-00000-of-00002.csv.gz", [task_row(600_000_000, 1, i, 0) for i in range(3)]
    )
    write_gz(src / "task_events" / "part-00001-of-00002.csv.gz", [task_row(700_000_000, 2, 0, 0)])
    home = Home.resolve(tmp_path / "home")
    ingest.ingest(home, "google2011", src)
    again = ingest.ingest(home, "google2011", src)
    (table,) = again.tables
    assert (table.table, len(table.skipped), table.rows_total) == ("task_events", 2, 3 + 1)


def _counted_by_hand(home: Home, table: str, time: str) -> list[tuple]:
    """meta.tables' counts of a Google 2011 table, from a plain query over its live Parquet files
    (in-window times: 0 < t < 2^63 - 1, traces.md)."""
    files = f"'{home.table_link('google2011', table)}/**/*.parquet'"
    return read(
        home,
        f"SELECT count(*), min({time}) FILTER ({time} > 0 AND {time} < 9223372036854775807), "
        f"max({time}) FILTER ({time} > 0 AND {time} < 9223372036854775807), count(DISTINCT job_id), "
        f"count(DISTINCT (job_id, task_index)), count(DISTINCT machine_id) FROM read_parquet({files})",
    )


def test_the_table_counts_stay_exact_through_added_replaced_and_removed_parts(home, tmp_path):
    # An ingest counts what its own files hold and reuses what it counted of the files it keeps
    # (their facts travel with them into each new generation): after each step the counts equal
    # a count of the live rows.
    recorded = (
        "SELECT rows, min_time, max_time, distinct_jobs, approx_distinct_tasks, distinct_machines "
        "FROM meta.tables WHERE table_name = 'task_usage'"
    )
    usage = SAMPLE / "task_usage"
    lines = gzip.decompress((usage / "part-00001-of-00500.csv.gz").read_bytes()).decode().splitlines()
    src = tmp_path / "src" / "task_usage"
    src.mkdir(parents=True)
    shutil.copy(usage / "part-00000-of-00500.csv.gz", src)
    steps = [
        ("first part", IngestOptions()),
        ("a second part", IngestOptions(append=True)),
        ("the second part replaced by its first half", IngestOptions(append=False)),
        ("the first part removed", IngestOptions(replace=True)),
    ]
    seen = []
    for what, options in steps:
        if what == "a second part":
            shutil.copy(usage / "part-00001-of-00500.csv.gz", src)
        elif what.startswith("the second part replaced"):
            write_gz(src / "part-00001-of-00500.csv.gz", lines[: len(lines) // 2])
        elif what == "the first part removed":
            (src / "part-00000-of-00500.csv.gz").unlink()
        ingest.ingest(home, "google2011", src.parent, options)
        got = read(home, recorded)
        assert got == _counted_by_hand(home, "task_usage", "start_time"), what
        seen.append(got[0][0])
    assert len(set(seen)) == len(seen)  # every step changed the rows
    # only the live files' facts are kept, one of each kind (its folder: kind.<digest of its query>)
    live = home.table_link("google2011", "task_usage").resolve()
    facts = sorted(p.relative_to(live / "_facts") for p in (live / "_facts").rglob("*") if p.is_file())
    (data,) = [p.relative_to(live).as_posix() for p in live.rglob("*.parquet")]
    assert [(f.parts[0].split(".")[0], "/".join(f.parts[1:])) for f in facts] == [
        (kind, f"{data}.facts") for kind in ("jobs", "machines", "rows", "tasks")
    ]


def test_compact_keeps_the_facts_of_the_files_it_keeps_only(home, tmp_path):
    from tracewh.ingestion import compaction

    src = tmp_path / "src" / "task_usage"
    src.mkdir(parents=True)
    for n in (0, 1):
        shutil.copy(SAMPLE / "task_usage" / f"part-0000{n}-of-00500.csv.gz", src)
        ingest.ingest(home, "google2011", src.parent, IngestOptions(append=True, compact=False))
    live = home.table_link("google2011", "task_usage").resolve()
    assert len(list((live / "_facts").rglob("*.facts"))) == 2 * 4
    compaction.compact(home, "google2011")
    live = home.table_link("google2011", "task_usage").resolve()
    (merged,) = live.rglob("*.parquet")  # the two parts' files merged into one
    assert list((live / "_facts").rglob("*.facts")) == []
    # the next ingest counts the merged file (and the counts are the live rows')
    shutil.copy(SAMPLE / "task_events" / "part-00000-of-00500.csv.gz", tmp_path / "src")
    (tmp_path / "src" / "task_events").mkdir()
    shutil.move(tmp_path / "src" / "part-00000-of-00500.csv.gz", tmp_path / "src" / "task_events")
    ingest.ingest(home, "google2011", tmp_path / "src", IngestOptions(append=True, compact=False))
    counted = read(
        home,
        "SELECT rows, min_time, max_time, distinct_jobs, approx_distinct_tasks, distinct_machines "
        "FROM meta.tables WHERE table_name = 'task_usage'",
    )
    assert counted == _counted_by_hand(home, "task_usage", "start_time")


def test_an_ingest_reads_the_counts_of_the_files_it_keeps_from_their_facts(home, tmp_path):
    # The files an ingest keeps are not scanned again for meta.tables: a fact planted for a kept
    # file (its rows plus 1,000) is what the next ingest adds up; a fact that is missing is
    # computed from its file again. (Without compaction: it would merge the sample's small files.)
    src = tmp_path / "src" / "task_usage"
    src.mkdir(parents=True)
    shutil.copy(SAMPLE / "task_usage" / "part-00000-of-00500.csv.gz", src)
    ingest.ingest(home, "google2011", src.parent, IngestOptions(compact=False))
    live = home.table_link("google2011", "task_usage").resolve()
    (kept,) = live.rglob("*.parquet")
    (rows,) = read(home, f"SELECT count(*) FROM read_parquet('{kept}')")[0]
    (rows_folder,) = (live / "_facts").glob("rows.*")
    fact = rows_folder / f"{kept.relative_to(live).as_posix()}.facts"
    planted = tmp_path / "planted.parquet"
    con = duckdb.connect()
    con.execute(
        f"COPY (SELECT rows + 1000 AS rows, min_time, max_time FROM read_parquet('{fact}')) TO '{planted}'"
    )
    con.close()
    fact.unlink()  # a hard link shared with no other generation: replaced, not written through
    shutil.copy(planted, fact)
    (tasks_folder,) = (live / "_facts").glob("tasks.*")
    tasks_folder.rename(live / "_facts" / "tasks-gone")
    # a fact another query made (another tracewh's key or window: another digest) is not read
    foreign = live / "_facts" / "rows.0000000000000000" / fact.relative_to(rows_folder)
    foreign.parent.mkdir(parents=True)
    shutil.copy(planted, foreign)
    shutil.copy(SAMPLE / "task_usage" / "part-00001-of-00500.csv.gz", src)
    ingest.ingest(home, "google2011", src.parent, IngestOptions(append=True, compact=False))
    (counted,) = read(home, "SELECT rows, approx_distinct_tasks FROM meta.tables")
    by_hand = _counted_by_hand(home, "task_usage", "start_time")[0]
    assert counted == (by_hand[0] + 1000, by_hand[4])
    assert rows < by_hand[0]
    live = home.table_link("google2011", "task_usage").resolve()
    assert sorted(p.name.split(".")[0] for p in (live / "_facts").iterdir()) == [
        "jobs",
        "machines",
        "rows",
        "tasks",
    ]


def test_a_kept_files_facts_are_carried_whatever_its_name(home, tmp_path):
    # a file named with glob characters ([1]) keeps its facts into the next generation (the same
    # files, hard-linked), not computed again
    usage = tmp_path / "u[1].csv.gz"
    shutil.copy(SAMPLE / "task_usage" / "part-00000-of-00500.csv.gz", usage)
    ingest.ingest(home, "google2011", usage, IngestOptions(table_for_file="task_usage", compact=False))
    live = home.table_link("google2011", "task_usage").resolve()
    before = {p.relative_to(live): p.stat().st_ino for p in (live / "_facts").rglob("*.facts")}
    assert len(before) == 4 and all("u[1]" in str(p) for p in before)
    other = tmp_path / "src" / "task_usage"
    other.mkdir(parents=True)
    shutil.copy(SAMPLE / "task_usage" / "part-00001-of-00500.csv.gz", other)
    ingest.ingest(home, "google2011", other.parent, IngestOptions(append=True, compact=False))
    live = home.table_link("google2011", "task_usage").resolve()
    after = {p.relative_to(live): p.stat().st_ino for p in (live / "_facts").rglob("*.facts")}
    assert {p: after.get(p) for p in before} == before
    assert read(home, "SELECT rows FROM meta.tables") == [
        _counted_by_hand(home, "task_usage", "start_time")[0][:1]
    ]
