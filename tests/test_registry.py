"""The trace registry: every trace is a typed spec that provides what the shared layers need, and
the one generic discover() reads each trace's layout from its spec alone."""

from __future__ import annotations

import re
import subprocess
import sys
import tokenize
from pathlib import Path

import duckdb
import pytest
from conftest import write_gz

from tracewh import sqlfiles
from tracewh.errors import InputError, UsageError
from tracewh.traces import (
    BUILTIN,
    Layout,
    SourceFile,
    TraceSpec,
    expand_sql,
    get_trace,
    registry,
    trace_names,
)

WAREHOUSE = Path(__file__).resolve().parent.parent / "warehouse"


def test_the_registry_lists_the_builtin_traces_first():
    assert trace_names()[: len(BUILTIN)] == BUILTIN
    with pytest.raises(UsageError, match="unknown trace 'nope'"):
        get_trace("nope")


def test_the_builtin_traces_are_the_modules_of_their_package():
    # found, not listed: a new trace is its module (and its folder), no shared line names it
    modules = sorted(p.stem for p in (WAREHOUSE / "traces").glob("*.py") if p.stem != "__init__")
    assert sorted(BUILTIN) == modules and modules


def test_the_registry_order_is_the_specs_place_not_the_module_names():
    # the three first traces keep their places whatever is added (compare's columns, listings and
    # every {{each trace}} follow it); name order would put alibaba* first
    assert BUILTIN[:3] == ("google2011", "google2019", "alibaba2018")
    places = [registry()[n].place for n in BUILTIN]
    assert places == sorted(places) and len(set(places)) == len(places)


def test_a_builtin_trace_without_a_place_or_with_a_taken_one_is_refused(monkeypatch):
    import dataclasses

    from tracewh import traces

    first = registry()["google2011"]
    for other, said in ((None, "google2019 names no place"), (1, "google2019 has the place of google2011")):
        second = dataclasses.replace(registry()["google2019"], place=other)
        specs = {"tracewh.traces.google2011": first, "tracewh.traces.google2019": second}
        monkeypatch.setattr(traces, "_spec_of", specs.__getitem__)
        monkeypatch.setattr(
            traces.pkgutil,
            "iter_modules",
            lambda path: [type("M", (), {"name": "google2011"}), type("M", (), {"name": "google2019"})],
        )
        with pytest.raises(UsageError, match=said):
            traces._shipped()


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
    shared = [
        WAREHOUSE / f
        for f in (
            "ingestion/__init__.py",
            "catalog/__init__.py",
            "catalog/checks.py",
            "catalog/parts.py",
            "demo.py",
        )
    ]
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


def test_the_time_units_come_from_the_specs(sample_con):
    # 2011/2019 count microseconds from 600 s before the start; Alibaba seconds from the start
    got = sample_con.execute(
        "SELECT meta.seconds('google2011', 1500000), meta.seconds('alibaba2018', 3), "
        "meta.time_units('google2019', 3600), meta.time_units('alibaba2018', 3600), "
        "meta.start_s('google2011'), meta.start_s('alibaba2018'), meta.units_per_second('google2019')"
    ).fetchone()
    assert got == (1.5, 3.0, 3_600_000_000, 3600, 600, 0, 1_000_000)


def test_shared_sql_writes_no_time_unit_or_offset():
    """Units (microseconds), the 600 s offset and day lengths in raw units are the specs' (meta.seconds,
    meta.time_units, meta.start_s); shared SQL may use seconds (3600 s an hour), never raw units."""
    unit = re.compile(r"\b(1e6|1000000|1_000_000|86400000000|600000000|3600000000)\b|- 600\b")
    for folder in ("lifecycle", "reports", "checks", "meta"):
        for path in (WAREHOUSE.parent / "sql" / folder).glob("*.sql"):
            code = re.sub(r"--.*$", "", path.read_text(), flags=re.M)
            # overview's byte counts in MB are no time
            hits = [m.group(0) for m in unit.finditer(code.replace("t.bytes / 1e6", ""))]
            assert not hits, (path.name, hits)


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


def test_decode_and_tier_macros_come_from_the_trace_tables(sample_con):
    # hand-read from sql/google2011/00_codes.sql and sql/google2019/00_codes.sql: event_type 3 is
    # FAIL; comparison_operator 2 is LESS_THAN; 2019 type 1 is QUEUE; priority 8 is 2011's middle
    # tier, 9 its first production one; 2019 116-119 is mid, 120 production, 360 monitoring
    got = sample_con.execute(
        "SELECT google2011.decode('event_type', 3), google2011.decode('comparison_operator', 2), "
        "google2011.decode('event_type', 42), google2011.decode('event_type', NULL), "
        "google2019.decode('type', 1), google2011.priority_tier(8), google2011.priority_tier(12), "
        "google2011.is_production(8), google2011.is_production(9), google2011.is_production(NULL), "
        "google2019.priority_tier(119), google2019.is_production(119), google2019.is_production(120), "
        "google2019.priority_tier(360)"
    ).fetchone()
    assert got == (
        "FAIL", "LESS_THAN", "UNKNOWN(42)", None, "QUEUE", "middle", "UNKNOWN(12)",
        False, True, None, "mid", False, True, "monitoring",
    )  # fmt: skip


def test_tier_macros_follow_the_table_and_refuse_production_below_another_tier():
    from tracewh.traces import vocabulary_macros_sql

    # move 2011's production bound from 9 to 10 in the table: the macro follows
    rows = [("low", 0, 9, False), ("prod", 10, 11, True)]
    con = duckdb.connect()
    con.execute("CREATE SCHEMA t")
    con.execute(vocabulary_macros_sql("t", "priority_tiers", rows))
    assert con.execute("SELECT t.is_production(9), t.is_production(10), t.priority_tier(9)").fetchone() == (
        False,
        True,
        "low",
    )
    with pytest.raises(UsageError, match="production tiers must be the highest"):
        vocabulary_macros_sql("t", "priority_tiers", [("prod", 0, 5, True), ("low", 6, 9, False)])


def test_no_view_decodes_a_code_by_itself(sample_con):
    """Every code is named by <trace>.decode (one generator, tracewh.traces.VOCABULARY): no view joins
    a code or tier table or spells the UNKNOWN(<code>) fallback, and each decode call names a code
    set its trace's code table has (the calls {{decoded}} makes from the spec's Column.codes too)."""
    calls = re.compile(r"(\w+)\.decode\('(\w+)'")
    used: set[tuple[str, str]] = set()
    for path in (WAREHOUSE.parent / "sql").rglob("*.sql"):
        text = expand_sql(sqlfiles.parse(path).body)
        assert not re.search(r"JOIN\s+(?!lifecycle\.)\w+\.(codes|priority_tiers|priority_tier_of)\b", text), (
            path
        )
        assert "'UNKNOWN('" not in text, path
        used |= set(calls.findall(text))
    assert ("google2011", "event_type") in used and ("google2019", "constraint_relation") in used
    known = {
        (schema, code_set)
        for schema in {s for s, _ in used}
        for (code_set,) in sample_con.execute(f"SELECT DISTINCT code_set FROM {schema}.codes").fetchall()
    }
    assert used <= known, used - known
    # shared SQL names no tier: their names and order come from lifecycle.priority_tiers
    tiers = {t for (t,) in sample_con.execute("SELECT tier FROM lifecycle.priority_tiers").fetchall()}
    assert {"free", "middle", "best-effort batch", "monitoring"} <= tiers
    for folder in ("reports", "lifecycle", "checks"):
        for path in (WAREHOUSE.parent / "sql" / folder).glob("*.sql"):
            body = sqlfiles.parse(path).body.split("\n-- plot:")[0]
            literals = set(re.findall(r"'([^']*)'", re.sub(r"^--.*$", "", body, flags=re.M)))
            assert not literals & tiers, (path.name, literals & tiers)


def test_each_column_comment_has_one_source():
    """A spec column is documented by its Column.comment, any other view column by the SQL that
    makes it: no SQL COMMENT ON COLUMN names a column the spec documents (the catalog used to
    let the spec overwrite it silently), and no column is commented twice in SQL."""
    comment_on = re.compile(r"COMMENT ON COLUMN (\w+)\.(\w+)\.(\w+) IS", re.I)
    seen: dict[tuple[str, str, str], str] = {}
    for path in sorted((WAREHOUSE.parent / "sql").rglob("*.sql")):
        for target in comment_on.findall(path.read_text()):
            assert target not in seen, (target, seen.get(target), path.name)
            seen[target] = path.name
            schema, view, column = target
            spec = registry().get(schema.removesuffix("_raw"))
            table = spec.tables.get(view) if spec else None
            documented = {c.name for c in table.columns if c.comment} | {"seq"} if table else set()
            assert column not in documented, (path.name, target)


def test_the_catalog_refuses_a_column_commented_twice(monkeypatch, tmp_path):
    import shutil

    from tracewh import ingestion
    from tracewh.errors import CatalogError
    from tracewh.home import Home

    # the toy trace with one more SQL line commenting machines.cpus, which its spec documents ("cores")
    toy = tmp_path / "toytrace"
    shutil.copytree(WAREHOUSE.parent / "tests" / "fixtures" / "toytrace", toy)
    with (toy / "sql" / "10_views.sql").open("a") as f:
        f.write("\nCOMMENT ON COLUMN toy2024.machines.cpus IS 'CPU cores';\n")
    # under another module name, so the toy module other tests import stays the fixture's
    (toy / "toy2024.py").rename(toy / "toy2024_twice.py")
    monkeypatch.syspath_prepend(str(toy))
    monkeypatch.setenv("TRACEWH_TRACE_MODULES", "toy2024_twice")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "machines.csv").write_text("m1,0.5\n")
    with pytest.raises(CatalogError, match=r"toy2024\.machines\.cpus is commented twice"):
        ingestion.ingest(Home.resolve(tmp_path / "home"), "toy2024", tmp_path / "src")
