"""A reader that goes away before the output is done (``rangefire odds ... | head``) is not a refusal: the command
ends quietly with 141 (128 + SIGPIPE, as a shell reports any program stopped so), never 1 (the code of an attack
the rules refuse), never a traceback (issue 23)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from rangefire.cli import PIPE_CLOSED
from rangefire.demo import example_path

WHEATFIELD = str(example_path("wheatfield.yaml"))


def closed_reader(*args: str) -> subprocess.CompletedProcess[str]:
    """``rangefire ARGS`` writing into a pipe whose reading end is already closed: every write finds it gone."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "rangefire.cli", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [
    ("odds", WHEATFIELD, "-a", "15th-alabama"),                        # for people (Rich)
    ("odds", WHEATFIELD, "-a", "15th-alabama", "--json"),              # for programs
    ("check", WHEATFIELD, "-a", "20th-maine", "-t", "4th-texas"),      # a refusal (exit 1) that is never read
    ("targets", WHEATFIELD),
    ("schema", "--output", "odds"),
])
def test_a_closed_pipe_ends_quietly_with_141(args):
    proc = closed_reader(*args)
    assert PIPE_CLOSED == 141
    assert (proc.returncode, proc.stderr) == (141, "")


def test_a_reader_that_stops_early_in_a_shell():
    """``| head -n 1`` in a shell: the line read, then 141 or, where every write landed before head left, 0;
    never 1 and never a word on stderr."""
    if shutil.which("bash") is None or shutil.which("head") is None:
        pytest.skip("needs bash and head")
    command = (f'"{sys.executable}" -m rangefire.cli odds "{WHEATFIELD}" -a 15th-alabama 2>err.txt | head -n 1; '
               'echo "exit ${PIPESTATUS[0]}"; cat err.txt')
    for _ in range(3):
        proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                              cwd=os.environ.get("TMPDIR", "/tmp"))
        lines = proc.stdout.splitlines()
        assert lines[0].startswith("15th-alabama fires at 20th-maine"), proc.stdout
        assert lines[1] in ("exit 141", "exit 0") and lines[2:] == [], proc.stdout


def test_a_reader_that_reads_it_all_changes_nothing():
    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", "check", WHEATFIELD, "-a", "20th-maine", "-t",
                           "4th-texas"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "DC-2.1" in proc.stdout and proc.stderr == ""
