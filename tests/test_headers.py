"""SQL file headers are typed and validated at load: a malformed header fails, every report's
--help lists its parameters, and a bad parameter value is a usage error."""

from __future__ import annotations

import contextlib

import pytest

from tracewh import headers, reports, sqlfiles
from tracewh.cli.main import main
from tracewh.errors import UsageError
from tracewh.headers import HeaderError

GOOD = {"name": "r", "traces": "any", "description": "d", "params": "trace, cell, bucket_s: int > 0 = 3600"}


def test_every_shipped_sql_file_has_a_valid_header():
    # every folder, a trace's own reports/ and checks/ too
    for folder in sorted(p for p in sqlfiles.sql_root().rglob("*") if p.is_dir()):
        for f in sqlfiles.folder(folder):  # parse() validates; a bad header raises here
            assert f.meta.kind in ("report", "check", "view", "derived") and "description" in f.header, f.path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"purpose": "x"}, "not allowed"),  # one key per meaning: description, not purpose
        ({"description": None}, "lacks description"),
        ({"params": "trace, bucket_s = 3600"}, "needs a type"),
        ({"params": "bucket_s: long = 3"}, "unknown type"),
        ({"params": "bucket_s: int > 0 = 0"}, "default '0' is invalid"),
        ({"params": "name: str > 0"}, "'> 0' is for numbers"),
        ({"plot": "x=hours; colour=red"}, "plot option 'colour=red' unknown"),
        ({"plot": "x=hours; kind=pie"}, "plot kind 'pie' unknown"),
    ],
)
def test_a_malformed_header_fails_at_load(change, message):
    values = {**GOOD, **change}
    values = {k: v for k, v in values.items() if v is not None}
    with pytest.raises(HeaderError, match=message):
        headers.parse("reports/r.sql", "report", values)


def test_typed_parameters_convert_and_refuse():
    h = headers.parse(
        "reports/r.sql", "report", {**GOOD, "params": "trace, top: int > 0 = 20, mode: str = a in a|b"}
    )
    assert h.builtin_params == ("trace",)
    top, mode = h.params
    assert top.convert("r", "7") == 7 and mode.convert("r", "b") == "b"
    with pytest.raises(UsageError, match="top must be a whole number > 0"):
        top.convert("r", "2.5")
    with pytest.raises(UsageError, match="mode must be one of a, b"):
        mode.convert("r", "c")


@pytest.mark.parametrize(
    ("spec", "value", "message"),
    [
        ("f: float > 0 = 2", "nan", "f must be a finite number > 0"),
        ("f: float > 0 = 2", "inf", "f must be a finite number > 0"),
        ("f: float = 2", "-inf", "f must be a finite number"),
        ("n: int > 0 = 1", str(2**63), "n must be a whole number > 0 up to 9223372036854775807"),
        ("n: int = 1", str(-(2**63) - 1), "n must be a whole number from -9223372036854775808"),
    ],
)
def test_numbers_must_be_finite_and_fit_a_bigint(spec, value, message):
    (p,) = headers.parse("reports/r.sql", "report", {**GOOD, "params": spec}).params
    with pytest.raises(UsageError, match=message):
        p.convert("r", value)


def test_the_bigint_bounds_are_accepted():
    (p,) = headers.parse("reports/r.sql", "report", {**GOOD, "params": "n: int = 1"}).params
    assert (p.convert("r", str(2**63 - 1)), p.convert("r", str(-(2**63)))) == (2**63 - 1, -(2**63))


def test_the_header_reader_joins_continuation_lines():
    text = "-- name: v\n-- description: one\n-- two\nSELECT 1;\n-- note: not header\n"
    assert headers.read(text) == {"name": "v", "description": "one two"}


@pytest.mark.parametrize("name", sorted(n for n, r in reports.all_reports().items() if r.param_specs))
def test_every_report_help_lists_its_parameters(name, capsys):
    with contextlib.suppress(SystemExit):
        main(["report", name, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for p in reports.get(name).param_specs:
        assert f"{p.name} ({p.type}" in out, (name, p.name)


def test_a_bad_parameter_value_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", "queue", "--trace", "google2011", "--param", "bucket_s=soon"])
    assert exc.value.code == 2
    assert "bucket_s must be a whole number > 0" in capsys.readouterr().err


def test_plots_read_the_chart_spec_from_the_parsed_header(monkeypatch):
    from dataclasses import replace

    from tracewh.reports import plots

    # queue's header line: "x=hours; y=pending,running; kind=step; title=Tasks pending and running; ..."
    spec = plots.spec("queue")
    assert (spec["x"], spec["y"], spec["kind"], spec["xtime"]) == (
        "hours",
        "pending,running",
        "step",
        "hours",
    )
    assert spec == sqlfiles.parse(sqlfiles.sql_root() / "reports" / "queue.sql").meta.plot
    # plots.py takes the validated object as it is: it never re-parses a plot string of its own
    parsed = {"x": "a;b", "kind": "bar"}
    monkeypatch.setattr(plots, "get", lambda name: replace(reports.get("queue"), plot=parsed))
    assert plots.spec("queue") is parsed


def test_a_comment_after_a_report_header_is_not_part_of_its_caveat():
    # compare's body starts with a comment on its first statement; it is SQL, not the caveat
    caveat = reports.get("compare").caveat
    assert caveat.endswith("a sample or slice is not the whole trace"), caveat
