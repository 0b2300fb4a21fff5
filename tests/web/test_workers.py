"""``rangefire serve --workers 2`` on a SQLite file and on PostgreSQL: an action sent to one worker reaches the
event streams held by the other; a worker killed in the middle of a battle loses no answered action and the other
serves on; PostgreSQL restarted under load answers the requests in flight 503 ``unavailable`` and serves again
without the server being restarted.

Which worker holds a connection is read from /proc (the worker process owning the connection's socket), so these
tests run on Linux only."""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from tests.web.server import Server  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the workers from /proc")

UNION, CONFEDERATE = "union", "confederate"
SHOOTERS = {UNION: "20th-maine", CONFEDERATE: "15th-alabama"}
#: Guards against a test that hangs, never measurements.
WAIT = 60.0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def workers_of(server: Server) -> list[int]:
    """The worker processes of a ``serve --workers N`` (its children started by multiprocessing)."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    found = []
    for child in children:
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(int(child))
        except OSError:
            continue
    return found


def wait_for_workers(server: Server, count: int) -> list[int]:
    """The server's ``count`` workers, once each has answered a request."""
    deadline = time.monotonic() + WAIT
    url = urlsplit(server.address)
    answered: set[int] = set()
    while time.monotonic() < deadline:
        found = workers_of(server)
        if len(found) == count and answered >= set(found):
            return found
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=WAIT)
        try:
            connection.request("GET", "/api/examples")
            response = connection.getresponse()
            response.read()  # the connection is kept open: its worker still holds it
            assert connection.sock is not None
            pid = worker_of(connection.sock, found)
            if response.status == 200 and pid is not None:
                answered.add(pid)
        finally:
            connection.close()
    raise AssertionError(f"the server has not {count} workers answering: {workers_of(server)}, {answered}")


def worker_of(sock: socket.socket, workers: list[int]) -> int | None:
    """The worker holding the server's end of a client's connection."""
    client_port = sock.getsockname()[1]
    server_port = sock.getpeername()[1]
    wanted = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], fields[9]
        if int(local.split(":")[1], 16) == server_port and int(remote.split(":")[1], 16) == client_port:
            wanted = f"socket:[{inode}]"
    if wanted is None:
        return None
    for pid in workers:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == wanted:
                        return pid
                except OSError:
                    continue
        except OSError:
            continue
    return None


class Stream:
    """An event stream read on a plain socket (so that its worker can be told): its ``action`` events queued."""

    def __init__(self, address: str, battle: str, token: str) -> None:
        url = urlsplit(address)
        self.sock = socket.create_connection((url.hostname, url.port), timeout=WAIT)
        self.sock.sendall(f"GET /api/battles/{battle}/events?token={token} HTTP/1.1\r\nHost: {url.netloc}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.opened = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.opened.wait(WAIT), "the stream did not open"

    def _read(self) -> None:
        buffer = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                if b"retry:" in buffer:
                    self.opened.set()  # the stream is registered before its first bytes
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    if line.startswith(b"data: "):
                        self.events.put(json.loads(line[6:]))
        except OSError:
            pass
        self.events.put(None)  # the stream has ended

    def close(self) -> None:
        self.sock.close()


def create(address: str) -> dict[str, Any]:
    with httpx.Client(base_url=address, timeout=WAIT) as client:
        response = client.post("/api/battles", json={"example": "wheatfield", "undo": "any"})
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created


def streams_on_every_worker(address: str, created: dict[str, Any], workers: list[int]) -> dict[int, Stream]:
    """One stream on each worker, opened until the connections have landed on each."""
    held: dict[int, Stream] = {}
    for _ in range(60):
        stream = Stream(address, created["id"], created["tokens"]["spectator"])
        pid = worker_of(stream.sock, workers)
        if pid is None or pid in held:
            stream.close()
        else:
            held[pid] = stream
        if len(held) == len(workers):
            return held
    raise AssertionError(f"60 connections landed on workers {sorted(held)} only of {workers}")


@pytest.fixture
def two_workers(store_address: Path | str) -> Any:
    with Server(store_address, "--workers", "2") as running:  # type: ignore[arg-type]
        wait_for_workers(running, 2)
        yield running


def test_an_action_sent_to_one_worker_reaches_the_streams_of_every_worker(two_workers):
    workers = wait_for_workers(two_workers, 2)
    created = create(two_workers.address)
    streams = streams_on_every_worker(two_workers.address, created, workers)
    url = urlsplit(two_workers.address)
    union = created["tokens"]["sides"][UNION]
    try:
        for number, (path, kind) in enumerate((("resolve", "attack"), ("undo", "undo"), ("end-turn", "end-turn")),
                                              start=1):
            acting = http.client.HTTPConnection(url.hostname, url.port, timeout=WAIT)
            body = {"attacker": SHOOTERS[UNION]} if path == "resolve" else {}
            acting.request("POST", f"/api/battles/{created['id']}/{path}", json.dumps(body),
                           {"Authorization": f"Bearer {union}", "Content-Type": "application/json"})
            answer = acting.getresponse()
            assert answer.status == 200, answer.read()
            answer.read()
            assert acting.sock is not None
            sent_to = worker_of(acting.sock, workers)
            acting.close()
            assert sent_to in workers
            for pid, stream in streams.items():  # the worker it was sent to, and the other
                event = stream.events.get(timeout=WAIT)
                assert event == {"actions": number, "kind": kind, "by": UNION}, (pid, sent_to, event)
    finally:
        for stream in streams.values():
            stream.close()


class Player:
    """A player at one battle, in a thread, as fast as answers come: the side to act fires where it can, then
    ends its turn. Each answered action is kept; each answer's status and kind counted; a connection the
    server cut (its worker killed) is counted and the player goes on."""

    def __init__(self, address: str, created: dict[str, Any]) -> None:
        self.address, self.created = address, created
        self.answered: list[dict[str, Any]] = []
        self.said: dict[str, int] = {}
        self.cut = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _count(self, response: Any) -> None:
        kind = str(response.status_code)
        if response.status_code >= 400:
            kind += " " + response.json()["error"]["kind"]
        self.said[kind] = self.said.get(kind, 0) + 1

    def _play(self) -> None:
        battle, sides = self.created["id"], self.created["tokens"]["sides"]
        with httpx.Client(base_url=self.address, timeout=WAIT) as client:
            while not self.stop.is_set():
                try:
                    state = client.get(f"/api/battles/{battle}", headers=bearer(sides[UNION]))
                    self._count(state)
                    if state.status_code != 200:
                        continue
                    side = state.json()["side_to_act"]
                    for path, body in (("resolve", {"attacker": SHOOTERS[side]}), ("end-turn", {})):
                        response = client.post(f"/api/battles/{battle}/{path}", headers=bearer(sides[side]),
                                               json=body)
                        self._count(response)
                        if response.status_code == 200:
                            self.answered.append(response.json())
                except httpx.TransportError:
                    self.cut += 1

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(WAIT)
        assert not self.thread.is_alive()


def wait_until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def assert_kept(address: str, player: Player, in_doubt: int) -> None:
    """Every action the player was answered for is stored under its number, as answered; at most ``in_doubt``
    more (those in flight when a worker died or the database went away)."""
    created = player.created
    with httpx.Client(base_url=address, timeout=WAIT) as client:
        stored = client.get(f"/api/battles/{created['id']}/actions",
                            headers=bearer(created["tokens"]["spectator"])).json()["actions"]
        assert [a["number"] for a in stored] == list(range(1, len(stored) + 1))
        assert len(player.answered) <= len(stored) <= len(player.answered) + in_doubt
        by_number = {a["number"]: a for a in stored}
        for answer in player.answered:
            record = by_number[answer["action"]]
            if record["action"] == "attack":
                assert {k: list(v) for k, v in record["dice"].items()} == answer["dice"]
            else:
                assert record["action"] == "end-turn" and record["log"] == answer["log"]
        state = client.get(f"/api/battles/{created['id']}", headers=bearer(created["tokens"]["spectator"]))
        assert state.status_code == 200 and state.json()["actions"] == len(stored)  # every action replays


def test_a_worker_killed_mid_stream_loses_no_answered_action_and_the_other_serves_on(two_workers):
    workers = wait_for_workers(two_workers, 2)
    watched = create(two_workers.address)
    streams = streams_on_every_worker(two_workers.address, watched, workers)
    players = [Player(two_workers.address, create(two_workers.address)) for _ in range(4)]
    try:
        wait_until(lambda: sum(len(p.answered) for p in players) >= 30, "the players made 30 actions")
        victim = workers[0]
        os.kill(victim, signal.SIGKILL)
        assert streams[victim].events.get(timeout=WAIT) is None  # its streams are cut, not left hanging
        before = [len(p.answered) for p in players]
        wait_until(lambda: all(len(p.answered) >= n + 6 for p, n in zip(players, before, strict=True)),
                   "every player was answered again after the kill")
        # the other worker's stream heard the actions of the watched battle, whichever worker took them
        url = urlsplit(two_workers.address)
        acting = http.client.HTTPConnection(url.hostname, url.port, timeout=WAIT)
        acting.request("POST", f"/api/battles/{watched['id']}/end-turn", "{}",
                       {"Authorization": f"Bearer {watched['tokens']['sides'][UNION]}",
                        "Content-Type": "application/json"})
        assert acting.getresponse().status == 200
        acting.close()
        survivor = workers[1]
        assert streams[survivor].events.get(timeout=WAIT) == {"actions": 1, "kind": "end-turn", "by": UNION}
    finally:
        for player in players:
            player.finish()
        for stream in streams.values():
            stream.close()
    for player in players:
        assert not [kind for kind in player.said if kind[0] == "5"], player.said
        assert_kept(two_workers.address, player, in_doubt=player.cut)
    wait_for_workers(two_workers, 2)  # the worker killed was replaced


def test_postgresql_restarted_under_load_answers_503_and_serves_again(pg_cluster, pg_address):
    with Server(pg_address, "--workers", "2") as server:  # type: ignore[arg-type]
        wait_for_workers(server, 2)
        players = [Player(server.address, create(server.address)) for _ in range(4)]
        try:
            wait_until(lambda: sum(len(p.answered) for p in players) >= 20, "the players made 20 actions")
            pg_cluster.restart()
            before = [len(p.answered) for p in players]
            wait_until(lambda: all(len(p.answered) >= n + 6 for p, n in zip(players, before, strict=True)),
                       "every player was answered again after the restart")
        finally:
            for player in players:
                player.finish()
        unavailable = sum(p.said.get("503 unavailable", 0) for p in players)
        for player in players:
            assert player.cut == 0, "a request went unanswered"
            assert not [kind for kind in player.said if kind[0] == "5" and kind != "503 unavailable"], player.said
            assert_kept(server.address, player, in_doubt=player.said.get("503 unavailable", 0))
        assert unavailable >= 1  # the restart was felt, and said so


def _serve(*args: str) -> Any:
    import subprocess

    return subprocess.run([sys.executable, "-m", "rangefire.cli", "serve", "--port", "0", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("given, said", [("0", "--workers 0: must be 1 to 32"), ("33", "--workers 33: must be 1 to 32"),
                                         ("two", "--workers 'two': must be a whole number")])
def test_a_number_of_workers_out_of_bounds_is_refused(tmp_path, given, said):
    proc = _serve("--db", str(tmp_path / "b.sqlite3"), "--workers", given)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert said in proc.stderr
    assert not (tmp_path / "b.sqlite3").exists()


def test_a_postgresql_store_out_of_reach_is_said_without_its_password(tmp_path):
    proc = _serve("--db", f"postgresql://someone:hunter2@/battles?host={tmp_path}", "--workers", "2")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot open the battles database" in proc.stderr and str(tmp_path) in proc.stderr
    assert "hunter2" not in proc.stderr + proc.stdout and "someone:***@" in proc.stderr


@pytest.mark.parametrize("address", [
    "postgresql://someone@127.0.0.1:1/battles?password=hunter2",  # libpq takes a password in the query too
    "postgresql://someone:hunter%zz2@127.0.0.1:1/battles",  # a password the driver repeats in its error
    "postgresql://someone:hunter2@[::1/battles",  # an address that cannot be read at all
])
def test_a_postgresql_password_is_never_printed_wherever_the_address_holds_it(tmp_path, address):
    proc = _serve("--db", address)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "battles database" in proc.stderr or "cannot be read" in proc.stderr
    assert "hunter" not in proc.stderr + proc.stdout


def test_two_servers_of_one_postgresql_database_tell_each_other_of_their_actions(pg_address):
    with Server(pg_address) as first, Server(pg_address) as second:  # type: ignore[arg-type]
        created = create(first.address)
        stream = Stream(second.address, created["id"], created["tokens"]["spectator"])
        try:
            with httpx.Client(base_url=first.address, timeout=WAIT) as client:
                ended = client.post(f"/api/battles/{created['id']}/end-turn",
                                    headers=bearer(created["tokens"]["sides"][UNION]), json={})
                assert ended.status_code == 200, ended.text
            assert stream.events.get(timeout=WAIT) == {"actions": 1, "kind": "end-turn", "by": UNION}
        finally:
            stream.close()
