"""The API on a real server process: live events, bodies refused before they are read, and nothing lost when
the process is killed in the middle of a battle with actions in flight."""

from __future__ import annotations

import json
import queue
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from rangefire.record import AttackAction, EndTurnAction  # noqa: E402
from tests.web.server import Server  # noqa: E402

UNION, CONFEDERATE = "union", "confederate"
#: Guards against a test that hangs, never measurements.
WAIT = 30.0


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Any, example: str = "wheatfield", **settings: Any) -> dict[str, Any]:
    response = client.post("/api/battles", json={"example": example, **settings})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with Server(tmp_path / "battles.sqlite3") as running:
        yield running


def test_serve_prints_its_address_and_each_examples_links(tmp_path):
    with Server(tmp_path / "b.sqlite3", "--examples") as running:
        printed = "".join(running.printed)
        links = [line.split(": ", 1)[1].strip() for line in printed.splitlines() if "#token=" in line]
        assert len(links) == 6 * 3  # six examples, two sides and a spectator each
        assert all(link.startswith(running.address + "/battle/") for link in links)
        url = urlsplit(links[0])
        token = url.fragment.removeprefix("token=")
        battle = url.path.rsplit("/", 1)[1]
        with httpx.Client(base_url=running.address) as client:
            state = client.get(f"/api/battles/{battle}", headers=bearer(token))
            assert state.status_code == 200 and state.json()["you"]["role"] == "side"


def test_a_second_client_sees_each_action_as_it_lands(server):
    events: queue.Queue[dict[str, Any]] = queue.Queue()
    with httpx.Client(base_url=server.address, timeout=WAIT) as client:
        created = create(client, undo="any")
        battle, union = created["id"], created["tokens"]["sides"][UNION]
        opened = threading.Event()

        def listen() -> None:
            url = f"/api/battles/{battle}/events?token={created['tokens']['spectator']}"
            with httpx.Client(base_url=server.address, timeout=WAIT) as watcher, watcher.stream("GET", url) as s:
                assert s.headers["content-type"].startswith("text/event-stream")
                opened.set()
                seen = 0
                for line in s.iter_lines():
                    if line.startswith("data: "):
                        events.put(json.loads(line.removeprefix("data: ")))
                        seen += 1
                        if seen == 3:
                            return

        thread = threading.Thread(target=listen, daemon=True)
        thread.start()
        assert opened.wait(WAIT)  # the stream is registered before its first bytes are sent
        played = client.post(f"/api/battles/{battle}/resolve", headers=bearer(union), json={"attacker": "20th-maine"})
        assert played.status_code == 200, played.text
        assert events.get(timeout=WAIT) == {"actions": 1, "kind": "attack", "by": UNION}
        client.post(f"/api/battles/{battle}/undo", headers=bearer(union), json={})
        assert events.get(timeout=WAIT) == {"actions": 2, "kind": "undo", "by": UNION}
        client.post(f"/api/battles/{battle}/end-turn", headers=bearer(union), json={})
        assert events.get(timeout=WAIT) == {"actions": 3, "kind": "end-turn", "by": UNION}
        thread.join(WAIT)


def _send_headers(address: str, path: str, headers: dict[str, str]) -> socket.socket:
    url = urlsplit(address)
    sock = socket.create_connection((url.hostname, url.port), timeout=WAIT)
    head = f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    sock.sendall(head.encode())
    return sock


def _status(sock: socket.socket) -> int:
    answer = b""
    while b"\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    return int(answer.split(b" ", 2)[1])


def test_a_large_body_is_refused_before_it_is_all_sent(server):
    # A declared length past the bound: answered at once, though not one byte of the body was sent.
    sock = _send_headers(server.address, "/api/battles", {"Content-Length": str(10**9)})
    try:
        assert _status(sock) == 413
    finally:
        sock.close()
    # No length (chunked): answered once the bytes read pass the bound, while the body is still unfinished.
    sock = _send_headers(server.address, "/api/battles", {"Transfer-Encoding": "chunked"})
    try:
        chunk = b" " * 8192
        for _ in range((2 << 20) // len(chunk)):  # 2 MiB, beyond the 1 MiB a new battle may take
            sock.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        assert _status(sock) == 413  # the final empty chunk was never sent
    finally:
        sock.close()


def _play(address: str, created: dict[str, Any], done: list[dict[str, Any]], stop: threading.Event) -> None:
    """One player at a battle, as fast as answers come: each turn a volley where one is legal, then the end of
    the turn; every answered action kept in ``done``."""
    battle, sides = created["id"], created["tokens"]["sides"]
    shooters = {UNION: "20th-maine", CONFEDERATE: "15th-alabama"}
    side = UNION
    with httpx.Client(base_url=address, timeout=WAIT) as client:
        while not stop.is_set():
            try:
                played = client.post(f"/api/battles/{battle}/resolve", headers=bearer(sides[side]),
                                     json={"attacker": shooters[side]})
                if played.status_code == 200:
                    done.append(played.json())
                ended = client.post(f"/api/battles/{battle}/end-turn", headers=bearer(sides[side]), json={})
                assert ended.status_code == 200, ended.text
                done.append(ended.json())
            except httpx.TransportError:  # the server is gone
                return
            side = CONFEDERATE if side == UNION else UNION


def test_a_killed_server_has_lost_no_completed_action_and_holds_no_half_written_one(tmp_path):
    db = tmp_path / "battles.sqlite3"
    done: dict[str, list[dict[str, Any]]] = {}
    with Server(db) as first:
        with httpx.Client(base_url=first.address, timeout=WAIT) as client:
            battles = [create(client) for _ in range(4)]
        stop = threading.Event()
        threads = []
        for created in battles:
            done[created["id"]] = []
            thread = threading.Thread(target=_play, args=(first.address, created, done[created["id"]], stop),
                                      daemon=True)
            threads.append(thread)
            thread.start()
        deadline = time.monotonic() + WAIT
        while sum(len(d) for d in done.values()) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(t.is_alive() for t in threads)  # every player is mid-request or about to be
        first.kill()
        stop.set()
        for thread in threads:
            thread.join(WAIT)
    assert sum(len(d) for d in done.values()) >= 40

    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Server(db) as second, httpx.Client(base_url=second.address, timeout=WAIT) as client:
        for created in battles:
            answered = done[created["id"]]
            token = created["tokens"]["spectator"]
            stored = client.get(f"/api/battles/{created['id']}/actions", headers=bearer(token)).json()["actions"]
            numbers = [a["number"] for a in stored]
            assert numbers == list(range(1, len(stored) + 1))
            # every answered action is there; at most the one in flight when the server died is there besides
            assert len(answered) <= len(stored) <= len(answered) + 1
            for record, answer in zip(stored, answered, strict=False):
                assert record["number"] == answer["action"]
                body = {k: v for k, v in record.items() if k not in ("number", "by")}
                if record["action"] == "attack":
                    action = AttackAction.model_validate(body)
                    assert {k: list(v) for k, v in action.dice.items()} == answer["dice"]
                else:
                    assert EndTurnAction.model_validate(body).log == tuple(
                        EndTurnAction.model_validate({"log": answer["log"]}).log)
            state = client.get(f"/api/battles/{created['id']}", headers=bearer(token))
            assert state.status_code == 200, state.text  # every stored action replays whole
            assert state.json()["actions"] == len(stored)


def _serve(*args: str, block: str = "") -> Any:
    """``rangefire serve ARGS`` in a subprocess (with the modules named in ``block`` made unimportable)."""
    import subprocess
    import sys

    code = (f"import sys\nfor name in {block.split()!r}: sys.modules[name] = None\n"
            f"sys.argv = ['rangefire', 'serve', *{list(args)!r}]\nfrom rangefire.cli import main\nmain()")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_serve_without_the_web_extra_says_what_to_install(tmp_path):
    proc = _serve("--db", str(tmp_path / "b.sqlite3"), block="fastapi uvicorn")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "pip install 'rangefire[web]'" in proc.stderr
    assert not (tmp_path / "b.sqlite3").exists()


def test_serve_on_a_port_in_use_says_so(server, tmp_path):
    port = urlsplit(server.address).port
    proc = _serve("--port", str(port), "--db", str(tmp_path / "other.sqlite3"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"cannot listen on 127.0.0.1 port {port}: address already in use" in proc.stderr
    assert not (tmp_path / "other.sqlite3").exists()
