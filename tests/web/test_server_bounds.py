"""The bounds of ``rangefire serve`` hold for the whole server, however many workers serve it: battles created per
client address (kept in the store, on SQLite and on PostgreSQL), event streams open and connections per address
(counted in a tally of the server's workers). Each test sends its requests to both workers on purpose (a
connection kept open stays with the worker that took it), so that a bound counted per worker would let through
twice as much and fail it. A client's address is its connection's, unless ``--forwarded-allow-ips`` names the
proxy in front; and a server of two workers on a SQLite file leaves none of its relay's sockets behind.

Which worker holds a connection is read from /proc, so these tests run on Linux only."""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from rangefire.web.relay import socket_folder  # noqa: E402
from tests.web.conftest import error_of  # noqa: E402
from tests.web.server import Server  # noqa: E402
from tests.web.test_headers import HOST, exchange  # noqa: E402
from tests.web.test_workers import WAIT, wait_for_workers, worker_of  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the workers from /proc")

CREATE = json.dumps({"example": "ford"})
JSON = {"Content-Type": "application/json"}


def one_on_each_worker(address: str, workers: list[int]) -> dict[int, http.client.HTTPConnection]:
    """A connection kept open on each worker (opened until each worker holds one)."""
    url = urlsplit(address)
    held: dict[int, http.client.HTTPConnection] = {}
    for _ in range(100):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=WAIT)
        connection.request("GET", "/api/examples")
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        assert connection.sock is not None
        pid = worker_of(connection.sock, workers)
        if pid is None or pid in held:
            connection.close()
        else:
            held[pid] = connection
        if len(held) == len(workers):
            return held
    raise AssertionError(f"100 connections landed on workers {sorted(held)} only of {workers}")


def on(connection: http.client.HTTPConnection, workers: list[int], pid: int, method: str, path: str,
       body: str | None = None, headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """A request sent on a connection held by worker ``pid`` (checked): its status and JSON."""
    assert connection.sock is not None and worker_of(connection.sock, workers) == pid
    connection.request(method, path, body, headers or {})
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"{}")


# -- battles created per address ------------------------------------------------------------------------------
def test_battles_created_per_address_are_counted_for_every_worker(store_address):
    with Server(store_address, "--workers", "2", "--create-rate", "4") as server:  # type: ignore[arg-type]
        workers = wait_for_workers(server, 2)
        held = one_on_each_worker(server.address, workers)
        try:
            for number in range(4):  # two on each worker: within a bound of 4 per worker, or of 4 in all
                pid = workers[number % 2]
                status, body = on(held[pid], workers, pid, "POST", "/api/battles", CREATE, JSON)
                assert status == 201, body
            for pid in workers:  # each worker has made two only, yet the address has made its four
                status, body = on(held[pid], workers, pid, "POST", "/api/battles", CREATE, JSON)
                assert status == 429 and body["error"]["kind"] == "rate_limited", body
                assert "4 battles within the hour" in body["error"]["message"]
        finally:
            for connection in held.values():
                connection.close()


# -- event streams open --------------------------------------------------------------------------------------
def open_stream(sock: socket.socket, netloc: str, battle: str, token: str) -> bytes:
    """Ask for a battle's event stream on ``sock``: what came until the stream opened, or its refusal whole."""
    sock.sendall(f"GET /api/battles/{battle}/events?token={token} HTTP/1.1\r\nHost: {netloc}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    got = b""
    deadline = time.monotonic() + WAIT
    while b"retry:" not in got and not (got.startswith(b"HTTP/1.1 503") and got.endswith(b"}")):
        assert time.monotonic() < deadline, got
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def test_event_streams_open_are_counted_for_every_worker(store_address):
    with Server(store_address, "--workers", "2", "--max-streams", "2") as server:  # type: ignore[arg-type]
        workers = wait_for_workers(server, 2)
        url = urlsplit(server.address)
        created = httpx.post(server.address + "/api/battles", json={"example": "ford"}, timeout=WAIT).json()
        battle, token = created["id"], created["tokens"]["spectator"]
        held = one_on_each_worker(server.address, workers)
        try:
            for connection in held.values():  # one stream on each worker: the server's two
                assert connection.sock is not None
                assert b"200 OK" in open_stream(connection.sock, url.netloc, battle, token)
            for _ in range(6):  # whichever worker takes it, the third is refused
                with socket.create_connection((url.hostname, url.port), timeout=WAIT) as sock:
                    got = open_stream(sock, url.netloc, battle, token)
                assert got.startswith(b"HTTP/1.1 503"), got
                assert b"2 event streams are open, the most this server keeps" in got
            held.pop(workers[0]).close()  # one let go: its place is free again, on either worker

            def opens() -> bool:
                with socket.create_connection((url.hostname, url.port), timeout=WAIT) as sock:
                    return b"retry:" in open_stream(sock, url.netloc, battle, token)

            wait_until(opens, "a stream opened once another was closed")
        finally:
            for connection in held.values():
                connection.close()


# -- connections per address ------------------------------------------------------------------------------------
def plain(address: str) -> tuple[int, bytes]:
    """A plain request on a new connection: its status and body."""
    status, _, body, _ = exchange(address, b"GET /api/examples HTTP/1.1\r\n" + HOST + b"\r\n")
    return status, body


def test_connections_per_address_are_counted_for_every_worker(store_address):
    with Server(store_address, "--workers", "2", "--connections-per-address", "4") as server:  # type: ignore[arg-type]
        workers = wait_for_workers(server, 2)
        url = urlsplit(server.address)
        held: dict[int, list[socket.socket]] = {pid: [] for pid in workers}
        try:
            while min(len(socks) for socks in held.values()) < 2:  # two half-sent requests held on each worker
                sock = socket.create_connection((url.hostname, url.port), timeout=WAIT)
                sock.sendall(b"GET /api/exam")
                pid = None
                deadline = time.monotonic() + WAIT
                while pid is None and time.monotonic() < deadline:
                    pid = worker_of(sock, workers)
                    time.sleep(0.02)
                assert pid is not None, "no worker took the connection"
                if len(held[pid]) < 2:
                    held[pid].append(sock)
                else:
                    sock.close()
                    time.sleep(0.2)  # let go before the next is counted
            for _ in range(6):  # each worker holds two only, yet the address holds its four
                status, got = plain(server.address)
                assert status == 503, got
                assert b"4 connections are open from this address" in got
            held[workers[1]].pop().close()
            wait_until(lambda: plain(server.address)[0] == 200, "served again once a connection was closed")
        finally:
            for socks in held.values():
                for sock in socks:
                    sock.close()


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


# -- the client's address behind a proxy --------------------------------------------------------------------------
def create_from(address: str, forwarded: str | None) -> httpx.Response:
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    return httpx.post(address + "/api/battles", json={"example": "ford"}, headers=headers, timeout=WAIT)


def test_a_forwarded_address_is_not_believed_unless_the_proxy_is_named(tmp_path):
    with Server(tmp_path / "a.sqlite3", "--create-rate", "1") as server:
        assert create_from(server.address, "192.0.2.1").status_code == 201
        # a client of this machine saying it is another is still itself
        error_of(create_from(server.address, "192.0.2.2"), 429, "rate_limited")
        error_of(create_from(server.address, None), 429, "rate_limited")
    with Server(tmp_path / "b.sqlite3", "--create-rate", "1", "--workers", "2",
                "--forwarded-allow-ips", "10.9.8.7, 127.0.0.0/8") as server:
        assert create_from(server.address, "192.0.2.1").status_code == 201
        assert create_from(server.address, "192.0.2.2").status_code == 201  # another client, as the proxy says
        assert create_from(server.address, None).status_code == 201  # the proxy's own
        error_of(create_from(server.address, "192.0.2.1"), 429, "rate_limited")
        error_of(create_from(server.address, "198.51.100.9, 192.0.2.2"), 429, "rate_limited")  # the proxy's word


@pytest.mark.parametrize(("given", "said"), [
    ("proxy.example.org", "--forwarded-allow-ips 'proxy.example.org': not an address or a network"),
    ("10.0.0.300", "--forwarded-allow-ips '10.0.0.300': not an address or a network"),
    ("10.0.0.1,,10.0.0.2", "--forwarded-allow-ips '': not an address or a network"),
    ("10.0.0.0/33", "--forwarded-allow-ips '10.0.0.0/33': not an address or a network"),
])
def test_serve_refuses_a_proxy_that_is_no_address_before_it_listens(tmp_path, given, said):
    import subprocess

    done = subprocess.run([sys.executable, "-m", "rangefire.cli", "serve", "--port", "0", "--db",
                           str(tmp_path / "b.sqlite3"), "--forwarded-allow-ips", given], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "b.sqlite3").exists()


# -- what a server leaves behind -----------------------------------------------------------------------------------
def sockets_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.sock")) if folder.is_dir() else []


def tallies_of(pid: int) -> list[str]:
    folder = Path(tempfile.gettempdir()) / f"rangefire-{os.getuid()}"
    return sorted(p.name for p in folder.glob(f"serve-{pid}-*.tally"))


def test_a_server_of_two_workers_leaves_no_socket_behind(tmp_path):
    db = tmp_path / "b.sqlite3"
    folder = socket_folder(db)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)  # a process killed before it could remove its own
    stale.bind(str(folder / "1-0badc0de.sock"))
    stale.close()
    assert sockets_in(folder) == ["1-0badc0de.sock"]
    server = Server(db, "--workers", "2")
    try:
        workers = wait_for_workers(server, 2)
        # each worker listens on its own socket; the dead one's is cleared when they start
        assert sorted(name.split("-")[0] for name in sockets_in(folder)) == sorted(str(pid) for pid in workers)
        assert len(tallies_of(server.process.pid)) == 1
    finally:
        server.stop()
    assert server.process.returncode == 0
    assert sockets_in(folder) == [] and not folder.exists()  # nothing of the server's is left
    assert tallies_of(server.process.pid) == []
