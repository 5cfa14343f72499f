"""Running the `tracewh` command for the CLI tests: in-process (its exit code, stdout and stderr),
or as a subprocess signalled at a named moment of a commit."""

from __future__ import annotations

import os
import signal
import subprocess

from tracewh import signals
from tracewh.cli.main import main


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def signal_at(cmd: list[str], env: dict, moment: str, sig: signal.Signals) -> tuple[int, str]:
    """Run a writer that stops itself at ``moment`` (signals.pause_point), deliver ``sig`` there
    and let it go on: the signal lands exactly at that moment whatever the machine's load.
    Returns the exit code and stderr."""
    proc = subprocess.Popen(cmd, env={**env, signals.PAUSE_ENV: moment}, stderr=subprocess.PIPE, text=True)
    # Waits (without reaping) until the child stops itself, or exits without reaching the moment.
    info = os.waitid(os.P_PID, proc.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
    assert info is not None and info.si_code == os.CLD_STOPPED, (moment, proc.communicate())
    proc.send_signal(sig)
    if sig != signal.SIGKILL:
        proc.send_signal(signal.SIGCONT)
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err
