"""A real ``rangefire serve`` in a subprocess on 127.0.0.1 and a free port, for the tests that need one (a
process to kill, a stream to hold open, bytes on a socket)."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

#: How long a server may take to start before the test gives up (a guard, not a measurement).
START_TIMEOUT = 60


class Server:
    """``rangefire serve --port 0 --db DB``; ``address`` is read from what it prints. Battles are created
    without the bound per address of a real server (its clients are all this machine), unless ``extra`` names
    one (``--create-rate``)."""

    def __init__(self, db: Path, *extra: str) -> None:
        self.db = db
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
        unbounded = () if "--create-rate" in extra else ("--create-rate", "0")
        self.process = subprocess.Popen([sys.executable, "-m", "rangefire.cli", "serve", "--port", "0", "--db",
                                         str(db), *unbounded, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.printed: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.address = self._wait_for_address()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def _wait_for_address(self) -> str:
        while True:
            try:
                line = self.lines.get(timeout=START_TIMEOUT)
            except queue.Empty:
                self.stop()
                raise AssertionError("the server printed no address") from None
            if not line:
                err = self.process.stderr.read() if self.process.stderr else ""
                raise AssertionError(f"the server stopped before serving: {err}")
            self.printed.append(line)
            found = re.search(r"serving on (http://127\.0\.0\.1:\d+)", line)
            if found:
                return found.group(1)

    def kill(self) -> None:
        """SIGKILL: no handler runs, no buffer is flushed, nothing is closed cleanly."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr is not None:  # stdout is left to its reader, which meets its end
            self.process.stderr.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop()
