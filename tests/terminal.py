"""Run the command line at a terminal (a pseudo-terminal) and answer its prompts, for the interactive paths."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time


def at_terminal(args: list[str], answers: list[bytes], timeout: float = 60) -> tuple[int, str, int]:
    """Run ``rangefire ARGS`` at a terminal, sending one answer each time it asks ``choose [``.

    Returns the exit code, the transcript without colour codes, and how many answers were left unsent.
    """
    pid, fd = pty.fork()
    if pid == 0:  # the child: rangefire at a terminal
        os.environ["COLUMNS"] = "200"
        os.execv(sys.executable, [sys.executable, "-m", "rangefire.cli", *args])
    pending = list(answers)
    transcript = b""
    sent = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        transcript += chunk
        asked = re.sub(r"\x1b\[[0-9;]*m", "", transcript.decode(errors="replace")).count("choose [")
        if pending and asked > sent:
            os.write(fd, pending.pop(0))
            sent += 1
    else:
        os.kill(pid, signal.SIGKILL)  # never hang the suite on a prompt that did not come
    _, status = os.waitpid(pid, 0)
    text = re.sub(r"\x1b\[[0-9;]*m", "", transcript.decode(errors="replace"))
    return os.WEXITSTATUS(status), text, len(pending)
