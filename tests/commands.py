"""Running the real command line in a process of its own, as a user does."""

from __future__ import annotations

import os
import subprocess
import sys


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
