"""The catalog's one build plan (catalog.plan): its order, that the DuckDB catalog is exactly what
it says it makes, and the dependency walk an engine uses to run only what a report needs."""

from __future__ import annotations

from tracewh import catalog, reports
from tracewh.catalog import derived
from tracewh.traces import registry


def test_each_step_reads_only_what_steps_before_it_make():
    """Walking the plan in order, every name a step reads that some step makes was made by a step
    before it (or by itself): the order an engine runs the plan in is a valid one."""
    steps = catalog.plan()
    maker = {n: i for i, s in reversed(list(enumerate(steps))) for n in s.creates}
    late = [
        (s.label, n, steps[maker[n]].label)
        for i, s in enumerate(steps)
        for n in sorted(catalog.names_read(s.text))
        if n in maker and maker[n] > i
    ]
    assert late == []
    assert len({s.label for s in steps}) == len(steps), "labels name the steps"


def test_the_duckdb_catalog_holds_what_the_plan_makes(sample_con):
    """Every view, table and macro of the built catalog in the schemas the plan builds was made
    by a step of the plan, and every name a step says it makes is in the catalog (a step that makes
    something the plan does not say would escape `needed`)."""
    schemas = {"meta", derived.SCHEMA, *catalog.SHARED_SQL_FOLDERS}
    schemas |= {n for t in registry() for n in (t, catalog.raw_schema(t))}
    rows = sample_con.execute(
        "SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal "
        "UNION SELECT schema_name, table_name FROM duckdb_tables() "
        "UNION SELECT schema_name, function_name FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND NOT internal"
    ).fetchall()
    in_catalog = {f"{s}.{n}".lower() for s, n in rows if s in schemas}
    made = {n for s in catalog.plan() for n in s.creates}
    assert in_catalog == made
    kinds = {type(s).__name__ for s in catalog.plan()}
    assert kinds == {"Sql", "Schemas", "RawView", "Comments", "AdapterCheck", "DerivedTable", "Record"}


def test_a_report_over_the_derived_layer_needs_no_event_view():
    """task-times reads derived.task_episode_core: the walk takes its step (and the schemas and
    time macros every query may use), not the life-cycle views that compute the attempts from the
    events, nor any raw view."""
    steps = catalog.plan()
    report = reports.get("task-times")
    wanted = catalog.needed(steps, catalog.names_read(report.template), lambda s: s.text)
    always = {s.label for s in steps if s.always}
    assert always <= wanted
    assert wanted - always == {"derived:task_episode_core"}, sorted(wanted - always)
    # what is always taken: schemas (the shared ones made by the first file of their folder) and
    # the time macros, no view over events
    assert not any(w.startswith("raw:") or w.endswith("task_events.sql") for w in always), sorted(always)
