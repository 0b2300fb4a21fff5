"""The server's bounds on its clients: battles created per address, battles left unused removed, a body's time to
arrive, connections per address, and a client that hangs up in the middle of its upload (one line logged)."""

from __future__ import annotations

import logging
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from rangefire.web import create_app  # noqa: E402
from rangefire.web.engine import Engine  # noqa: E402
from rangefire.web.gate import SWEEP_EVERY, TOUCH_EVERY, CreateRate, RetryLater, Sweeper, touch_every  # noqa: E402
from rangefire.web.store import Store  # noqa: E402
from tests.web.conftest import bearer, engine_answering, error_of  # noqa: E402
from tests.web.live_server import serving  # noqa: E402
from tests.web.test_headers import HOST, exchange  # noqa: E402

#: Guards against a test that hangs, never measurements.
WAIT = 30.0
BODY = b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- battles created per address ----------------------------------------------------------------------------------
def test_an_address_creates_at_most_its_rate_then_is_told_when_to_come_back(tmp_path):
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path, create_rate=3)) as client:
        for _ in range(3):
            assert client.post("/api/battles", json={"example": "ford"}).status_code == 201
        refused = client.post("/api/battles", json={"example": "ford"})
        error = error_of(refused, 429, "rate_limited")
        assert "3 battles within the hour" in error["message"]
        wait = int(refused.headers["retry-after"])
        assert 1 <= wait <= 1200 and f"in {wait} s" in error["message"]  # one battle comes back every 20 minutes
        assert client.app.state.store.count() == 3  # nothing created by the refused one


def test_the_rate_fills_again_with_time_and_is_counted_per_address(store_address):
    clock = Clock()
    store = Store(store_address)
    rate = CreateRate(2, store, clock)
    rate.take("192.0.2.1")
    rate.take("192.0.2.1")
    with pytest.raises(RetryLater, match="2 battles within the hour") as refused:
        rate.take("192.0.2.1")
    assert (refused.value.status, refused.value.kind, refused.value.retry_after) == (429, "rate_limited", 1800)
    rate.take("192.0.2.2")  # another address: a bucket of its own
    clock.now += 1799
    with pytest.raises(RetryLater, match="within the hour"):
        rate.take("192.0.2.1")
    clock.now += 2
    rate.take("192.0.2.1")  # half an hour on: one more
    with pytest.raises(RetryLater):
        CreateRate(2, store, clock).take("192.0.2.1")  # kept in the store: another process counts it alike
    clock.now -= 600  # a clock set back empties no bucket and fills none
    with pytest.raises(RetryLater):
        rate.take("192.0.2.1")
    clock.now += 3600 + 600
    rate.take("192.0.2.1")
    rate.take("192.0.2.1")  # an hour on: full again
    assert CreateRate(0, store, clock).take("192.0.2.1") is None  # 0: no bound
    store.close()


def test_no_bound_unless_told(tmp_path):
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path)) as client:
        assert all(client.post("/api/battles", json={"example": "ford"}).status_code == 201 for _ in range(5))


# -- battles left unused removed ---------------------------------------------------------------------------------
def _age(db: Path, battle: str, days: float) -> None:
    """Write the battle as created, and last used, ``days`` ago."""
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - days * 86400))
    with sqlite3.connect(db) as con:
        con.execute("UPDATE battles SET created = ?, used = ? WHERE id = ?", (when, when, battle))


def test_battles_unused_for_the_days_kept_are_removed_when_the_server_starts(tmp_path):
    db = tmp_path / "b.sqlite3"
    with TestClient(create_app(db, static_dir=tmp_path)) as client:
        made = [client.post("/api/battles", json={"example": "ford"}).json() for _ in range(3)]
    old, used_lately, fresh = made
    _age(db, old["id"], 31)
    _age(db, used_lately["id"], 29.5)
    _age(db, fresh["id"], 0)
    with TestClient(create_app(db, static_dir=tmp_path, keep_days=30)) as client:
        token = bearer(old["tokens"]["spectator"])
        error_of(client.get(f"/api/battles/{old['id']}", headers=token), 404, "not_found")
        for kept in (used_lately, fresh):
            assert client.get(f"/api/battles/{kept['id']}", headers=bearer(kept["tokens"]["spectator"])
                              ).status_code == 200
    with sqlite3.connect(db) as con:  # nothing of it is left: not its tokens nor its actions
        assert con.execute("SELECT count(*) FROM tokens WHERE battle = ?", (old["id"],)).fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM battles").fetchone()[0] == 2


def test_a_battle_read_is_used_and_kept(tmp_path):
    db = tmp_path / "b.sqlite3"
    with TestClient(create_app(db, static_dir=tmp_path)) as client:
        made = client.post("/api/battles", json={"example": "ford"}).json()
        _age(db, made["id"], 40)
        assert client.get(f"/api/battles/{made['id']}", headers=bearer(made["tokens"]["spectator"])
                          ).status_code == 200  # its use written down now
    with TestClient(create_app(db, static_dir=tmp_path, keep_days=30)) as client:
        assert client.get(f"/api/battles/{made['id']}", headers=bearer(made["tokens"]["spectator"])
                          ).status_code == 200


def test_a_battle_in_play_is_kept_when_unused_battles_are_kept_a_few_minutes(tmp_path):
    assert touch_every(None) == touch_every(30) == TOUCH_EVERY
    assert touch_every(0.01) == 0.01 * 86400 / 4  # four writings-down within the time kept: 3.6 minutes apart
    db = tmp_path / "b.sqlite3"
    with TestClient(create_app(db, static_dir=tmp_path, keep_days=0.01)) as client:  # 14.4 minutes
        made = client.post("/api/battles", json={"example": "ford"}).json()
        token = bearer(made["tokens"]["spectator"])
        assert client.get(f"/api/battles/{made['id']}", headers=token).status_code == 200
        gate = client.app.state.gate
        gate._touched[made["id"]] -= 300  # its use written down five minutes ago (by the server's clock) ...
        _age(db, made["id"], 0.02)  # ... and (by the store's) half an hour ago: played on since, read now
        assert client.get(f"/api/battles/{made['id']}", headers=token).status_code == 200
        assert gate.sweeper.sweep() == 0  # its use written down again by that read: kept
        assert client.get(f"/api/battles/{made['id']}", headers=token).status_code == 200


def test_the_uses_written_down_are_forgotten_under_a_lock(tmp_path):
    """Two threads reading battles at once: the one that forgets the oldest uses is not changed under it."""
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path)) as client:
        made = [client.post("/api/battles", json={"example": "ford"}).json() for _ in range(2)]
        gate = client.app.state.gate
        other: list[Any] = []

        def read_the_other() -> None:
            try:
                other.append(gate.authorised(made[1]["id"], made[1]["tokens"]["spectator"])[1].role)
            except Exception as exc:  # pragma: no cover - said in the assert
                other.append(exc)

        class Racing(dict):  # type: ignore[type-arg]
            raced = False

            def __iter__(self) -> Iterator[str]:
                keys = dict.__iter__(self)
                first = next(keys)
                if not Racing.raced:  # the other read comes while the oldest are being sorted out
                    Racing.raced = True
                    reader = threading.Thread(target=read_the_other, daemon=True)
                    reader.start()
                    reader.join(5)
                yield first
                yield from keys

        gate.REMEMBERED = 2
        gate._touched = Racing({"old1": 1.0, "old2": 2.0, "old3": 3.0})
        gate.authorised(made[0]["id"], made[0]["tokens"]["spectator"])
        _wait_for(lambda: other)
        assert other == ["spectator"]
        assert "old1" not in gate._touched and {made[0]["id"], made[1]["id"]} <= set(gate._touched)


def test_a_state_is_read_and_acted_on_while_questions_fill_their_queue(tmp_path, monkeypatch):
    """The questions waiting are bounded apart from the reads: a full queue of questions refuses the next
    question (503), never a read of a battle's state."""
    from tests.web import heavy

    free = threading.Event()
    monkeypatch.setattr(Engine, "ask", engine_answering(lambda *a: free.wait(WAIT) and {"targets": []}))
    app = create_app(tmp_path / "b.sqlite3", static_dir=tmp_path, max_waiting=1)
    with serving(app) as address, httpx.Client(base_url=address, timeout=WAIT) as client:
        created = client.post("/api/battles", json={"scenario": heavy.dress_on_the_colors(3, 0)}).json()
        battle, union = created["id"], bearer(created["tokens"]["sides"]["union"])
        asked: list[int] = []
        question = threading.Thread(target=lambda: asked.append(client.get(
            f"/api/battles/{battle}/targets?side=union", headers=union).status_code))
        question.start()
        try:
            assert _wait_for(lambda: app.state.gate.at_engine == 1)
            state = client.get(f"/api/battles/{battle}", headers=union)
            assert state.status_code == 200 and state.json()["id"] == battle
            error = error_of(client.get(f"/api/battles/{battle}/targets?side=union", headers=union), 503,
                             "unavailable")
            assert "1 questions are waiting for the engine" in error["message"] and "retry" in error["message"]
        finally:
            free.set()
            question.join(WAIT)
        assert asked == [200]


def test_the_sweep_runs_again_each_hour_not_on_every_request(tmp_path):
    db = tmp_path / "b.sqlite3"
    store = Store(db)
    clock = Clock()
    sweeper = Sweeper(store, 30, clock)
    assert sweeper.sweep() == 0
    ids = [store.create("ford", {}, ["a", "b"], False).id for _ in range(2)]
    for battle in ids:
        _age(db, battle, 60)
    sweeper.maybe()  # within the hour: no sweep
    assert store.count() == 2
    clock.now += SWEEP_EVERY
    sweeper.maybe()
    _wait_for(lambda: sweeper.removed == 2)  # in a thread of its own
    assert store.count() == 0 and sweeper.removed == 2
    assert Sweeper(store, None, clock).sweep() == 0  # None: kept for ever


# -- slow clients -------------------------------------------------------------------------------------------------
class Lines(logging.Handler):
    """Every record of the server's loggers, kept."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def said(self, words: str) -> list[logging.LogRecord]:
        return [r for r in self.records if words in r.getMessage()]


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler = Lines()
    loggers = [logging.getLogger(name) for name in ("rangefire.web", "uvicorn", "uvicorn.error", "asyncio")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def _wait_for(found: Any) -> Any:
    for _ in range(int(WAIT * 100)):
        value = found()
        if value:
            return value
        time.sleep(0.01)
    return found()


def test_a_body_that_does_not_arrive_in_time_is_answered_408(tmp_path, lines):
    with serving(create_app(tmp_path / "b.sqlite3"), body_seconds=0.5) as address:
        status, headers, body, closed = exchange(address, BODY + b'{"example": "fo')
        assert status == 408 and closed
        error = httpx.Response(status, headers=headers, content=body).json()["error"]
        assert error["kind"] == "timeout" and "body did not arrive whole within 0.5 seconds" in error["message"]
        said = _wait_for(lambda: lines.said("its body did not arrive whole"))
        assert len(said) == 1 and "POST /api/battles from 127.0.0.1" in said[0].getMessage()
        time.sleep(0.2)
        assert not lines.said("went away") and not [r for r in lines.records if r.exc_info]  # one line, no fault
        # a body that arrives in time, though slowly, is taken
        piece = b'{"example": "ford"}'
        head = BODY.replace(b"100", str(len(piece)).encode())
        assert exchange(address, head, piece[:8], piece[8:], pause=0.1)[0] == 201


def test_a_client_hanging_up_mid_upload_logs_one_line_and_no_fault(tmp_path, lines):
    with serving(create_app(tmp_path / "b.sqlite3")) as address:
        url = urlsplit(address)
        for _ in range(3):
            with socket.create_connection((url.hostname, url.port), timeout=WAIT) as sock:
                sock.sendall(BODY + b'{"exam')
                time.sleep(0.2)
        said = _wait_for(lambda: len(lines.said("went away before its body was whole")) >= 3 and
                         lines.said("went away before its body was whole"))
        time.sleep(0.3)
        said = lines.said("went away before its body was whole")
        assert len(said) == 3 and all(r.levelno == logging.WARNING and not r.exc_info for r in said)
        assert "POST /api/battles from 127.0.0.1" in said[0].getMessage()
        assert not [r for r in lines.records if r.exc_info or "Traceback" in r.getMessage()]
        assert len(lines.records) == 3  # nothing else was logged
        assert httpx.get(address + "/api/examples", timeout=WAIT).status_code == 200


def test_connections_from_one_address_are_capped(tmp_path):
    with serving(create_app(tmp_path / "b.sqlite3"), per_address=3) as address:
        url = urlsplit(address)
        held = [socket.create_connection((url.hostname, url.port), timeout=WAIT) for _ in range(3)]
        try:
            for sock in held:
                sock.sendall(b"GET /api/exam")  # half-sent heads, held open
            time.sleep(0.2)
            status, headers, body, _ = exchange(address, b"GET /api/examples HTTP/1.1\r\n" + HOST + b"\r\n")
            assert status == 503
            error = httpx.Response(status, headers=headers, content=body).json()["error"]
            assert error["kind"] == "unavailable" and "3 connections are open from this address" in error["message"]
            held.pop().close()
            time.sleep(0.2)
            assert exchange(address, b"GET /api/examples HTTP/1.1\r\n" + HOST + b"\r\n")[0] == 200
        finally:
            for sock in held:
                sock.close()


def test_another_address_is_served_while_one_holds_its_cap(tmp_path):
    with serving(create_app(tmp_path / "b.sqlite3"), per_address=2) as address:
        url = urlsplit(address)
        held = []
        try:
            for _ in range(2):
                sock = socket.create_connection((url.hostname, url.port), timeout=WAIT,
                                                source_address=("127.0.0.2", 0))
                sock.sendall(b"POST /api/battles HTTP/1.1\r\n")
                held.append(sock)
            time.sleep(0.2)
            assert exchange(address, b"GET /api/examples HTTP/1.1\r\n" + HOST + b"\r\n")[0] == 200
        finally:
            for sock in held:
                sock.close()


# -- rangefire serve's options ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("option", "value", "said"), [
    ("--engine-seconds", "soon", "--engine-seconds 'soon': must be a number"),
    ("--engine-seconds", "0", "--engine-seconds 0: must be 0.5 to 86400 seconds"),
    # below it every question is refused as too large (its fixed cost alone, estimate.FIXED_SECONDS, is 0.15 s)
    ("--engine-seconds", "0.1", "--engine-seconds 0.1: must be 0.5 to 86400 seconds"),
    ("--create-rate", "-1", "--create-rate -1: must be a whole number from 0"),
    ("--keep-days", "-3", "--keep-days -3: must be 0 (kept for ever) to 100000 days"),
    ("--max-streams", "0", "--max-streams 0: must be a whole number from 1"),
    ("--body-seconds", "0.5", "--body-seconds 0.5: must be 1 to 86400 seconds"),
    ("--connections-per-address", "many", "--connections-per-address 'many': must be a whole number"),
])
def test_serve_refuses_a_bound_in_our_words_before_it_listens(tmp_path, option, value, said):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "rangefire.cli", "serve", "--port", "0", "--db",
                           str(tmp_path / "b.sqlite3"), option, value], capture_output=True, text=True,
                          timeout=120, env={**__import__("os").environ, "COLUMNS": "200"})
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "b.sqlite3").exists()  # nothing written


def test_serve_applies_its_bounds(tmp_path):
    from tests.web.server import Server

    with Server(tmp_path / "b.sqlite3", "--create-rate", "1", "--body-seconds", "1",
                "--connections-per-address", "4") as running:
        with httpx.Client(base_url=running.address, timeout=WAIT) as client:
            assert client.post("/api/battles", json={"example": "ford"}).status_code == 201
            error_of(client.post("/api/battles", json={"example": "ford"}), 429, "rate_limited")
        status, _, body, _ = exchange(running.address, BODY.replace(b"/api/battles", b"/api/battles/b1/check") +
                                      b'{"atta')
        assert status == 408 and "within 1 seconds" in body.decode()
        url = urlsplit(running.address)
        held = [socket.create_connection((url.hostname, url.port), timeout=WAIT) for _ in range(4)]
        try:
            time.sleep(0.3)
            assert exchange(running.address, b"GET /api/examples HTTP/1.1\r\n" + HOST + b"\r\n")[0] == 503
        finally:
            for sock in held:
                sock.close()


def test_serve_with_workers_starts_no_engine_in_the_process_that_only_watches(tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    import rangefire.cli.serve as serve_module
    from rangefire.cli import app

    warmed: list[Engine] = []
    monkeypatch.setattr(Engine, "warm", lambda self: warmed.append(self))
    watched: list[dict[str, Any]] = []
    monkeypatch.setattr(serve_module, "_run_workers", lambda web, settings, *rest: watched.append(settings))
    done = CliRunner().invoke(app, ["serve", "--port", "0", "--db", str(tmp_path / "b.sqlite3"), "--workers", "2"])
    assert done.exit_code == 0, done.output
    assert len(watched) == 1 and warmed == []  # the watching process never answers a question
    monkeypatch.setenv(serve_module.WORKER_SETTINGS, json.dumps(watched[0]))
    web = serve_module.worker_app()  # each worker does
    try:
        assert len(warmed) == 1
    finally:
        web.state.store.close()
