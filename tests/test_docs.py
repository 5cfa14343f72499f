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

from tracewh import reference
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
        "three bundled samples (`tracewh --home HOME demo`)"
    )
