"""Ingest options as one typed value (warehouse/options.py): checked once, where the value is made,
with one message worded for the interface that made it (the API's keywords, the CLI's flags), and
one place for the defaults."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
from cli_helpers import run_cli
from conftest import SAMPLE

import tracewh
from tracewh.errors import OptionError, UsageError
from tracewh.options import IngestOptions

# (API keywords, CLI flags, the message through the API, the message through the CLI)
BAD = [
    (
        {"replace": True, "append": True},
        ["--replace", "--append"],
        "replace=True and append=True contradict each other; choose one",
        "--replace and --append contradict each other; choose one",
    ),
    (
        {"parts": "3-1"},
        ["--parts", "3-1"],
        "parts='3-1': the range '3-1' runs backwards",
        "--parts '3-1': the range '3-1' runs backwards",
    ),
    (
        {"parts": "0-x"},
        ["--parts", "0-x"],
        "parts='0-x': '0-x' is not a number or a range like 0-99,120",
        "--parts '0-x': '0-x' is not a number or a range like 0-99,120",
    ),
    (
        {"workers": 0},
        ["--workers", "0"],
        "workers=0: at least one worker is needed",
        "--workers 0: at least one worker is needed",
    ),
]


@pytest.mark.parametrize(("keywords", "flags", "api_message", "cli_message"), BAD)
def test_a_bad_option_is_one_usage_error_from_the_api_and_the_cli(
    tmp_path, capsys, keywords, flags, api_message, cli_message
):
    # Old code: the API said "--replace and --append ..." (the CLI's flags), and workers=0 was taken
    # for "every core" (no error at all).
    home = tmp_path / "home"
    with pytest.raises(UsageError) as caught:
        tracewh.ingest("google2011", SAMPLE, home=home, **keywords)
    assert str(caught.value) == api_message
    with pytest.raises(OptionError) as again:  # the same check when the value is made directly
        IngestOptions(**keywords)
    assert str(again.value) == api_message
    code, out, err = run_cli(capsys, "ingest", "google2011", str(SAMPLE), "--home", str(home), *flags)
    assert (code, out, err) == (2, "", f"Error: {cli_message}\n")
    assert not home.exists()  # refused before anything was written


def test_the_api_keywords_take_the_options_defaults():
    # One place for the defaults: every field of IngestOptions is a keyword of tracewh.ingest whose
    # default is the field's (``table`` is the field table_for_file), and a keyword that is not a
    # field is none of the options.
    signature = inspect.signature(tracewh.ingest).parameters
    named = {"table_for_file": "table"}
    for f in dataclasses.fields(IngestOptions):
        assert signature[named.get(f.name, f.name)].default == f.default, f.name
    others = set(signature) - {named.get(f.name, f.name) for f in dataclasses.fields(IngestOptions)}
    assert others == {"trace", "source", "home", "memory_limit", "progress", "spark"}


def test_the_options_select_part_numbers():
    assert IngestOptions(parts="0-2, 7,5-5").part_numbers() == {0, 1, 2, 5, 7}
    assert IngestOptions().part_numbers() is None
    assert IngestOptions(replace=True).mode == "replace" and IngestOptions().mode == "parts"
