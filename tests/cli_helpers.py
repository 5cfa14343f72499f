"""Running the `tracewh` command in-process for the CLI tests: its exit code, stdout and stderr."""

from __future__ import annotations

from tracewh.cli.main import main


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err
