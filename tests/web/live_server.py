"""An application served by uvicorn in a thread of the test, on 127.0.0.1 and a free port: for the tests that need a
real server with settings of their own (a short stream lifetime, a short time for a request's head)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: How long a server may take to start before the test gives up (a guard, not a measurement).
START_TIMEOUT = 20.0


@contextmanager
def serving(app: Any, **options: Any) -> Iterator[str]:
    """``app`` served as ``rangefire serve`` serves it (:func:`rangefire.web.protocol.server_config`, ``options``
    passed on); yields its address, ``http://127.0.0.1:PORT``."""
    import uvicorn

    from rangefire.web.protocol import server_config

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(server_config(app, log_level="warning", lifespan="off", **options))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
