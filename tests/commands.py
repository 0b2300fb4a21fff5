"""Running the real command line in a process of its own, as a user does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence


def run(*args: str, ok: int | None = 0, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """``rangefire ARGS`` at a terminal ``columns`` wide; asserts the exit code (unless ``ok`` is None) and that
    no traceback reached the user."""
    env = {**os.environ, "COLUMNS": str(columns)}
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env)
    if ok is not None:
        assert proc.returncode == ok, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc


def assert_setting_refused(scenario: os.PathLike[str] | str, attack: Sequence[str], setting: str, says: str, *,
                           lines: int = 1) -> None:
    """``odds SCENARIO ATTACK --set SETTING`` is refused with exit 2, in words and in JSON alike: the message says
    ``says`` on at most ``lines`` lines, and nothing reaches standard output."""
    proc = run("odds", str(scenario), *attack, "--set", setting, ok=2)
    assert says in proc.stderr and proc.stdout == "" and len(proc.stderr.strip().splitlines()) <= lines, proc.stderr
    data = json.loads(run("odds", str(scenario), *attack, "--set", setting, "--json", ok=2).stdout)
    assert says in data["error"]["message"]


def run_here(*args: str, ok: int | None = 0, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """``rangefire ARGS`` as :func:`run` runs it, but in this process: the same entry point (``main``: the command
    named, ``--json``'s usage errors, the exit code) with its own arguments, standard streams and ``COLUMNS``, without
    a fresh interpreter's start (about 0.4 s each). For what a command answers; what only a process of its own shows
    (its start, its imports, a signal) stays with :func:`run`. A traceback is not printed but raised here."""
    from typer.testing import CliRunner

    import rangefire.cli as cli
    from rangefire.cli import common

    # main leaves the app only the command it runs, its callback wrapped: put every command back after
    kept = [(info, info.callback, info.short_help) for info in cli.app.registered_commands]
    argv = sys.argv
    try:
        with CliRunner().isolation(env={"COLUMNS": str(columns)}) as (out, err, _):
            sys.argv = ["rangefire", *args]
            try:
                cli.main()
                code = 0
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else int(done.code is not None)
            sys.stdout.flush()
            sys.stderr.flush()
            stdout, stderr = out.getvalue().decode(), err.getvalue().decode()
    finally:
        sys.argv = argv
        cli.app.registered_commands[:] = [info for info, _, _ in kept]
        for info, callback, short_help in kept:
            info.callback, info.short_help = callback, short_help
        for console in (common.out, common.err):  # a console made here wrote to this run's streams and width
            console._console = None  # type: ignore[attr-defined]
    proc = subprocess.CompletedProcess(["rangefire", *args], code, stdout, stderr)
    if ok is not None:
        assert proc.returncode == ok, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    return proc
