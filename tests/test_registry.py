"""The trace registry: every trace is a typed spec that provides what the shared layers need, and
the one generic discover() reads each trace's layout from its spec alone."""

from __future__ import annotations

import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from conftest import write_gz

from tracewh import sqlfiles
from tracewh.errors import InputError, UsageError
from tracewh.traces import BUILTIN, Layout, SourceFile, TraceSpec, get_trace, registry, trace_names

WAREHOUSE = Path(__file__).resolve().parent.parent / "warehouse"


def test_the_registry_lists_the_builtin_traces_first():
    assert trace_names()[: len(BUILTIN)] == BUILTIN
    with pytest.raises(UsageError, match="unknown trace 'nope'"):
        get_trace("nope")


@pytest.mark.parametrize("name", BUILTIN)
def test_each_trace_provides_what_the_shared_layers_need(name):
    spec = registry()[name]
    assert isinstance(spec, TraceSpec) and spec.name == name and spec.title
    assert spec.reader in ("csv", "ndjson")
    assert spec.units_per_day in (86_400, 86_400_000_000)
    assert spec.tables and all(t.name == k and t.columns for k, t in spec.tables.items())
    for table in spec.tables.values():
        names = table.column_names
        assert len(names) == len(set(names)), table.name
        assert table.partition_time is None or table.partition_time in names
    # its SQL folder exists and every file in it has a header
    files = sqlfiles.folder(spec.sql_folder)
    assert files and all("name" in f.header for f in files)
    # a part group, if any, is one the SQL macro can read (RE2 takes Python's (?P<name>...))
    rule = spec.layout.part_rule
    assert rule is None or rule[1] >= 1
    assert spec.cells is None or spec.layout.cell_folder is not None


def test_shared_code_never_branches_on_a_trace_or_format_name():
    """ingest, catalog, checks, parts and the CLI read the spec, not a trace's name."""
    shared = [WAREHOUSE / f for f in ("ingestion.py", "catalog.py", "checks.py", "parts.py", "demo.py")]
    shared += sorted((WAREHOUSE.parent / "cli").glob("*.py"))
    pattern = re.compile(r"""==\s*["'](google2011|google2019|alibaba2018)["']|(FORMAT|reader)\s*==""")
    for path in shared:
        hits = [line for line in path.read_text().splitlines() if pattern.search(line)]
        assert not hits, (path.name, hits)


def test_download_and_synth_name_no_trace_in_their_code():
    """Their trace lists and messages come from the registry: no string in the code of the shared
    download and synth modules names a trace (comments may)."""
    names = re.compile("|".join(BUILTIN))
    for path in (WAREHOUSE / "download.py", WAREHOUSE / "synth" / "__init__.py"):
        with path.open("rb") as f:
            strings = [t.string for t in tokenize.tokenize(f.readline) if t.type == tokenize.STRING]
        assert not [s for s in strings if names.search(s)], path


# Hand-laid folders for the three layouts; the expected lists are read off the files written.


def test_discover_table_folders_with_numbered_parts(tmp_path):
    spec = get_trace("google2011")
    write_gz(tmp_path / "task_events" / "part-00001-of-00500.csv.gz", ["x"])
    write_gz(tmp_path / "task_events" / "part-00000-of-00500.csv.gz", ["x"])
    write_gz(tmp_path / "job_events" / "part-00000-of-00500.csv.gz", ["x"])
    (tmp_path / "task_events" / "README").write_text("not a part")
    found = spec.discover(tmp_path, None, None)
    assert [(s.table, s.name) for s in found] == [
        ("job_events", "part-00000-of-00500.csv.gz"),
        ("task_events", "part-00000-of-00500.csv.gz"),
        ("task_events", "part-00001-of-00500.csv.gz"),
    ]
    assert spec.file_order("part-00001-of-00500.csv.gz") == 1
    assert spec.part_of("task_events/part-00007-of-00500.csv.gz") == ("task_events", 7)
    assert spec.part_of("nope/part-00007-of-00500.csv.gz") is None
    with pytest.raises(UsageError, match="google2011 has no cells"):
        spec.discover(tmp_path, None, None, "a")


def test_discover_cell_folders(tmp_path):
    spec = get_trace("google2019")
    write_gz(tmp_path / "clusterdata_2019_b" / "machine_events-000000000003.json.gz", ["{}"])
    write_gz(tmp_path / "clusterdata_2019_a" / "machine_events-000000000000.json.gz", ["{}"])
    found = spec.discover(tmp_path, None, None)
    assert [(s.cell, s.name) for s in found] == [
        ("a", "machine_events-000000000000.json.gz"),
        ("b", "machine_events-000000000003.json.gz"),
    ]
    assert [s.cell for s in spec.discover(tmp_path, None, None, "b")] == ["b"]
    flat = tmp_path / "flat"
    write_gz(flat / "instance_events-000000000002.json.gz", ["{}"])
    with pytest.raises(UsageError, match="which cell"):
        spec.discover(flat, None, None)
    name = "instance_events-000000000002.json.gz"
    assert spec.discover(flat, None, None, "c") == [SourceFile("instance_events", flat / name, name, "c")]
    assert spec.file_order("instance_events-000000000002.json.gz") == 2


def test_discover_one_file_per_table(tmp_path):
    spec = get_trace("alibaba2018")
    write_gz(tmp_path / "machine_meta.csv.gz", ["m_1,0,,,,,"])
    (tmp_path / "machine_meta.csv").write_text("m_1,0,,,,,\n")
    with pytest.raises(UsageError, match="hold the same table"):
        spec.discover(tmp_path, None, None)
    (tmp_path / "machine_meta.csv").unlink()
    (found,) = spec.discover(tmp_path, None, None)
    assert (found.table, found.name, found.cell) == ("machine_meta", "machine_meta.csv.gz", None)
    assert spec.part_of("machine_meta.tar.gz") is None  # no numbered parts
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no alibaba2018 files found \(expected <table>\.tar\.gz"):
        spec.discover(tmp_path / "empty", None, None)


def test_a_spec_is_frozen_and_typed():
    spec = get_trace("google2011")
    with pytest.raises(AttributeError):
        spec.name = "other"  # type: ignore[misc]
    assert isinstance(spec.layout, Layout)


def test_the_time_vocabulary_comes_from_the_specs(sample_con):
    # 2011: t = 600 s (600_000_000 us) is the trace start, so 600 s + 2 h is hour 2; 599 s is -1e6 us,
    # which DuckDB's integer division truncates to hour 0 (as the hourly view always did);
    # Alibaba: seconds from the start, 7200 s is hour 2
    got = sample_con.execute(
        "SELECT meta.trace_hour('google2011', 600000000 + 2 * 3600000000), "
        "meta.trace_hour('google2011', 599000000), meta.trace_hour('alibaba2018', 7200), "
        "meta.after_window('google2019') = (2::HUGEINT ** 63 - 1)"
    ).fetchone()
    assert got == (2, 0, 2, True)


def test_the_after_window_value_is_written_only_in_the_trace_folders():
    """No shared SQL or module names 2^63-1: it is a special value of some traces (their spec and folder)."""
    root = WAREHOUSE.parent
    hits = [
        p.relative_to(root).as_posix()
        for folder in (root / "sql", WAREHOUSE)
        for p in folder.rglob("*")
        if p.suffix in (".sql", ".py") and "9223372036854775807" in p.read_text()
    ]
    trace_places = {f"sql/{n}/" for n in BUILTIN} | {f"warehouse/traces/{n}.py" for n in BUILTIN}
    assert [h for h in hits if not any(h.startswith(t) for t in trace_places)] == []


def test_import_boundaries():
    """The library never imports the CLI's typer/rich; the registry, the headers and the result
    types are light (no duckdb), and the CLI starts without duckdb or httpx."""
    code = (
        "import sys, tracewh.traces, tracewh.headers, tracewh.results\n"
        "light = {m for m in ('duckdb', 'typer', 'rich') if m in sys.modules}\n"
        "import tracewh.cli.main\n"
        "print(sorted(light), sorted(m for m in ('duckdb', 'httpx') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[0] == "[] []"
    for path in WAREHOUSE.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(import|from) (typer|rich)\b", text, re.M), path
