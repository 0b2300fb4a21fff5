"""The engine's time bounded: a question estimated past the server's engine time refused before it starts, one
the estimate misses stopped at the limit (its worker killed, the server serving on), and a battle's state read
while the engine's workers are busy."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from rangefire.analysis.targets import targets  # noqa: E402
from rangefire.rulesets import battle_from_mapping  # noqa: E402
from rangefire.web import create_app, estimate  # noqa: E402
from rangefire.web import engine as engine_module  # noqa: E402
from rangefire.web.engine import Engine, Job, Stopped, shared_engine  # noqa: E402
from rangefire.web.errors import ApiError  # noqa: E402
from tests.web import heavy  # noqa: E402
from tests.web.conftest import bearer, engine_answering, error_of  # noqa: E402
from tests.web.live_server import serving  # noqa: E402

#: Guards against a test that hangs, never measurements.
WAIT = 120.0


def create(client: Any, scenario: dict[str, Any]) -> tuple[str, dict[str, str]]:
    response = client.post("/api/battles", json={"scenario": scenario})
    assert response.status_code == 201, response.text
    created = response.json()
    first = next(iter(created["tokens"]["sides"].values()))
    return created["id"], bearer(first)


@pytest.fixture(scope="module")
def big_bushido() -> dict[str, Any]:
    """The table of the issue: 31 against 31, 3,000 corners (a side's targets take 6 seconds and more)."""
    return heavy.bushido()


@pytest.fixture(scope="module")
def mid_bushido() -> dict[str, Any]:
    """31 against 31 and 1,500 corners: a side's targets take a second or two, created in less."""
    return heavy.bushido(31, 1500)


@pytest.fixture
def no_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """An estimate that misses everything: every question is let through to the engine."""
    monkeypatch.setattr(estimate, "RATES", {})
    monkeypatch.setattr(estimate, "SLOWEST", (0.0, 0.0))
    monkeypatch.setattr(estimate, "FIXED_SECONDS", 0.0)


@pytest.mark.parametrize(("make", "side"), [(heavy.bushido, "prefecture"), (heavy.dress_on_the_colors, "union")])
def test_the_estimate_counts_the_pairs_the_engine_answers(make, side):
    # the pairs sized are the rows the engine gives: for a side, for one attacker, for the whole table
    ruleset, battle = battle_from_mapping(make(6, 60))
    attacker = ruleset.unit_ids(battle)[2]
    for asked, rows in (({"side": side}, targets(ruleset, battle, side=side)),
                        ({"attacker": attacker}, targets(ruleset, battle, attacker=attacker)),
                        ({}, targets(ruleset, battle))):
        assert estimate.work_of(ruleset, battle, **asked).pairs == len(rows), asked
    work = estimate.work_of(ruleset, battle, attacker=attacker, target=ruleset.unit_ids(battle)[-1])
    assert (work.pairs, work.units, work.corners) == (1, 12, 60)


def test_a_whole_side_on_a_large_table_is_refused_before_the_engine_starts(tmp_path, big_bushido, monkeypatch):
    asked: list[Any] = []
    monkeypatch.setattr(Engine, "ask", engine_answering(lambda *a: asked.append(a) or {"targets": []}))
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path)) as client:
        battle, prefecture = create(client, big_bushido)
        for query, pairs, instead in (("targets?side=prefecture", 961, "?attacker="),
                                      ("advice", 961, "targets?attacker="),  # the asking side's
                                      ("targets", 62 * 31, "?attacker=")):
            error = error_of(client.get(f"/api/battles/{battle}/{query}", headers=prefecture), 422, "too_large")
            assert f"about {pairs:,} pairs" in error["message"], error["message"]
            assert "3,000 corners" in error["message"] and "more than the 2 s" in error["message"]
            assert instead in error["message"] and "command line" in error["message"]
        assert asked == []  # refused before any worker was asked
        # one unit's targets are within the bound: asked of the engine
        client.get(f"/api/battles/{battle}/targets?attacker=m3", headers=prefecture)
        assert len(asked) == 1


def test_the_bound_is_the_servers_engine_time(tmp_path, mid_bushido, monkeypatch):
    monkeypatch.setattr(Engine, "ask", engine_answering(lambda *a: {"asked": a[1]}))
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path, engine_seconds=30)) as client:
        battle, prefecture = create(client, mid_bushido)
        answer = client.get(f"/api/battles/{battle}/targets?side=prefecture", headers=prefecture)
        assert answer.status_code == 200 and answer.json() == {"asked": 30}


def test_a_question_the_estimate_missed_is_stopped_and_the_server_serves_on(tmp_path, big_bushido, no_estimate):
    engine = shared_engine(2)
    before = list(engine.stopped)
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path, engine_seconds=1)) as client:
        battle, prefecture = create(client, big_bushido)
        error = error_of(client.get(f"/api/battles/{battle}/targets?side=prefecture", headers=prefecture), 422,
                         "too_large")
        assert "stopped after 1 s of the engine's time" in error["message"] and "?attacker=" in error["message"]
        [killed] = [pid for pid in engine.stopped if pid not in before]
        with pytest.raises(ProcessLookupError):  # the worker is gone, not left to run
            os.kill(killed, 0)
        # the server answers on: a small battle's question, its state, the same question again
        small, union = create(client, heavy.dress_on_the_colors(3, 0))
        for _ in range(3):
            answer = client.get(f"/api/battles/{small}/targets?side=union", headers=union)
            assert answer.status_code == 200 and len(answer.json()["targets"]) == 9
        assert client.get(f"/api/battles/{battle}", headers=prefecture).status_code == 200


def test_a_state_is_read_while_the_engines_workers_are_busy(tmp_path, mid_bushido, no_estimate):
    engine = shared_engine(2)
    app = create_app(tmp_path / "b.sqlite3", static_dir=tmp_path, engine_seconds=WAIT)
    with serving(app) as address, httpx.Client(base_url=address, timeout=WAIT) as client:
        battle, prefecture = create(client, mid_bushido)
        player, union = create(client, heavy.dress_on_the_colors(3, 0))
        client.get(f"/api/battles/{player}/targets?attacker=r0", headers=union)  # the workers started
        done: list[int] = []

        def heavy_question() -> None:
            with httpx.Client(base_url=address, timeout=WAIT) as own:
                done.append(own.get(f"/api/battles/{battle}/targets?side=prefecture", headers=prefecture)
                            .status_code)

        loops = [threading.Thread(target=heavy_question) for _ in range(4)]
        for loop in loops:
            loop.start()
        while len(engine.working) < 2 and len(done) < 4:  # both workers at a question
            threading.Event().wait(0.01)
        assert len(engine.working) == 2, done
        for _ in range(5):
            state = client.get(f"/api/battles/{player}", headers=union)
            assert state.status_code == 200 and state.json()["id"] == player
        assert done == []  # every read answered while the four questions were still being worked on
        for loop in loops:
            loop.join(WAIT)
        assert done == [200] * 4


def test_a_worker_lost_from_outside_is_answered_503_and_replaced(tmp_path: Path, mid_bushido, no_estimate):
    engine = shared_engine(2)
    with TestClient(create_app(tmp_path / "b.sqlite3", static_dir=tmp_path, engine_seconds=WAIT)) as client:
        battle, prefecture = create(client, mid_bushido)
        killer = threading.Thread(target=_kill_the_busy_worker, args=(engine,))
        killer.start()
        error = error_of(client.get(f"/api/battles/{battle}/targets?side=prefecture", headers=prefecture), 503,
                         "unavailable")
        killer.join(WAIT)
        assert "retry" in error["message"]
        small, union = create(client, heavy.dress_on_the_colors(3, 0))
        assert client.get(f"/api/battles/{small}/targets?side=union", headers=union).status_code == 200


def _kill_the_busy_worker(engine: Engine) -> None:
    for _ in range(int(WAIT * 100)):
        if engine.working:
            os.kill(next(iter(engine.working)), signal.SIGKILL)
            return
        threading.Event().wait(0.01)


# -- the pool of workers, with workers that are no processes ------------------------------------------------------
class FakeWorker:
    """A worker that starts at once (or fails to, ``failures`` times) and never answers."""

    failures = 0
    made = 0

    def __init__(self) -> None:
        if FakeWorker.failures:
            FakeWorker.failures -= 1
            raise OSError("no more processes")
        FakeWorker.made += 1
        self.process = type("Process", (), {"pid": 100_000 + FakeWorker.made})()
        self.back = type("Back", (), {"poll": staticmethod(lambda seconds: False)})()

    def wait_ready(self) -> None:
        pass

    def send(self, job: Job) -> None:
        pass

    def kill(self) -> None:
        killed.append(self.process.pid)


killed: list[int] = []
#: A question as the pool sees it when its workers are fakes (only its kind is read, to log it).
QUESTION: Any = type("Question", (), {"kind": "targets"})()


@pytest.fixture
def fake_workers(monkeypatch: pytest.MonkeyPatch) -> type[FakeWorker]:
    monkeypatch.setattr(engine_module, "_Worker", FakeWorker)
    monkeypatch.setattr(FakeWorker, "failures", 0)
    return FakeWorker


def test_a_question_waiting_for_a_worker_starts_one_when_a_replacement_failed_to_start(fake_workers):
    pool = Engine(1)
    first = pool._take()
    taken: list[Any] = []
    waiter = threading.Thread(target=lambda: taken.append(pool._take()), daemon=True)
    waiter.start()
    threading.Event().wait(0.2)  # the waiter waits for the one worker to come free
    fake_workers.failures = 1
    pool._replace(first)  # the worker started in its place fails to start
    waiter.join(30)
    assert len(taken) == 1 and taken[0] is not first  # the waiter started one in the free place
    assert pool._started == 1


def test_a_worker_that_cannot_be_started_is_answered_503_in_our_words(fake_workers):
    pool = Engine(1)
    fake_workers.failures = 1
    with pytest.raises(ApiError) as refused:
        pool.ask(QUESTION, 1.0, "ask less")
    assert (refused.value.status, refused.value.kind) == (503, "unavailable")
    assert "could not be started" in refused.value.message and "retry" in refused.value.message
    assert pool._started == 0  # the next question tries again
    with pytest.raises(Stopped):
        pool.ask(QUESTION, 0.0, "ask less")


def test_the_workers_stopped_are_kept_for_the_record_within_a_bound(fake_workers):
    pool = Engine(1)
    killed.clear()
    for _ in range(engine_module.STOPPED_KEPT + 5):
        with pytest.raises(Stopped):
            pool.ask(QUESTION, 0.0, "ask less")
    assert len(killed) == engine_module.STOPPED_KEPT + 5
    assert list(pool.stopped) == killed[-engine_module.STOPPED_KEPT:]  # the latest, in order
