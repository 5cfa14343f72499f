"""The documentation stays true: every `tracewh ...` command in the README's and docs/' code
blocks and tables parses against the real command line (its command, options and arguments
exist), and docs/catalog.md is what the catalog's comments say today."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess

import pytest
import typer.main
from conftest import REPO

from tracewh.catalog import reference
from tracewh.cli.main import app

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def documented_commands() -> list[tuple[str, str]]:
    """(file, command line) for each tracewh line of a code block and each `tracewh ...` table example."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        blocks = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
        lines = [line for block in blocks for line in block.splitlines()]
        lines += re.findall(r"\| `(tracewh [^`]+)` \|$", text, flags=re.M)
        for line in lines:
            line = re.sub(r"^\.venv/bin/", "", line.strip())
            if not line.startswith("tracewh ") or line.endswith("\\"):
                continue
            # the shell's part: comments, redirections, pipes
            line = re.split(r"\s(?:#|<|>|\|)\s?", line, maxsplit=1)[0]
            found.append((path.name, line))
    return found


COMMANDS = documented_commands()


def test_the_docs_show_many_commands():
    assert len(COMMANDS) >= 40 and {"README.md", "guide.md", "cluster.md"} <= {f for f, _ in COMMANDS}


@pytest.mark.parametrize(("doc", "line"), COMMANDS, ids=[f"{f}:{c[:60]}" for f, c in COMMANDS])
def test_documented_command_parses(doc, line):
    args = shlex.split(line)[1:]
    command = typer.main.get_command(app)
    ctx = command.make_context("tracewh", list(args), resilient_parsing=False)
    # down the groups to the command, each level parsing its own options
    while hasattr(command, "resolve_command"):
        rest = [*ctx._protected_args, *ctx.args]  # the sub-command and what follows it
        if not rest:
            break
        name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None, f"{doc}: no command {name!r} in {line!r}"
        command, ctx = sub, sub.make_context(name or "", rest, parent=ctx)


# What the run test leaves out, and why: each is run by its own tests.
NOT_RUN = {
    "download": "needs the network (its --offline plans are run)",
    "ingest": "needs the user's downloads (tests/test_ingest.py and the demo ingest the samples)",
    "synth": "writes traces of a size meant for a real run (tests/test_synth.py)",
    "demo": "a fresh ingest of the samples (tests/test_cli.py)",
    "compact": "rewrites the home the other tests read (tests/test_compaction.py)",
    "repair": "needs a moved home (tests/test_safety.py)",
    "shell": "interactive (tests/test_shell_compat.py)",
    "summary": "every report of the sample, ~25 s (tests/test_summary.py)",
}


def _runnable(line: str) -> bool:
    args = shlex.split(line)[1:]
    name = next(
        a for a in args if not a.startswith("-") and a not in ("/tmp/demo", "/new/place/tracewh-home")
    )
    if name == "download":
        return "--offline" in args
    # Spark runs in tests/test_spark.py; `-` reads a query from stdin
    return name not in NOT_RUN and "spark" not in args and "-" not in args


def test_documented_reading_commands_run_on_the_sample(sample_home, tmp_path, monkeypatch, capsys):
    """Every documented command that only reads (reports, plots, sql, info, check, cite, offline
    download plans) runs on the bundled sample and exits 0, from an empty folder, so its relative
    output files land there; a plot of an export runs after the commands that write one."""
    import shutil

    from cli_helpers import run_cli

    from tracewh import download

    monkeypatch.setenv("TRACEWH_HOME", str(sample_home.root))
    monkeypatch.chdir(tmp_path)
    # The offline plans check the room for a whole trace (~50 GiB for Alibaba); whether that fits
    # is this machine's affair, not the documentation's (the room check has tests of its own).
    monkeypatch.setattr(download.shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(2**60, 0, 2**60))
    lines = list(dict.fromkeys(line for _, line in COMMANDS if _runnable(line)))
    lines.sort(key=lambda line: shlex.split(line)[1] == "plot")  # stable: doc order otherwise
    assert len(lines) >= 15, lines
    failed = []
    for line in lines:
        code, out, err = run_cli(capsys, *shlex.split(line)[1:])
        if code != 0:
            failed.append((line, code, err.strip().splitlines()[-1:]))
    assert not failed, failed
    assert {"queue.pdf", "queue.svg", "queue.parquet", "n.csv", "task-times.csv"} <= {
        p.name for p in tmp_path.iterdir()
    }


def test_every_image_the_docs_show_is_in_the_repository():
    """An image a page embeds must exist and must not be git-ignored (`*.png` is, outside docs/):
    an ignored one exists only on the machine that made it and is broken on every clone."""
    images = [
        (path, (path.parent / target).resolve())
        for path in DOCS
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
        if "://" not in target
    ]
    assert len(images) >= 30 and any(p.name == "summary.png" for _, p in images)
    missing = [(doc.name, str(p)) for doc, p in images if not p.is_file()]
    assert not missing, missing
    if shutil.which("git") and (REPO / ".git").exists():
        ignored = subprocess.run(
            ["git", "check-ignore", *(str(p) for _, p in images)], cwd=REPO, capture_output=True, text=True
        ).stdout.split()
        assert not ignored, ignored


def test_catalog_reference_is_current(sample_home):
    committed = (REPO / "docs" / "catalog.md").read_text(encoding="utf-8")
    assert reference.markdown(sample_home) == committed, (
        "docs/catalog.md is stale: `.venv/bin/python docs/make_catalog.py HOME` on a home holding the "
        "samples of conftest.SAMPLES (docs/make_catalog.py says how)"
    )
