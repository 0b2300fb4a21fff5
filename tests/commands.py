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
