"""The path of an action to the store under load: the writes of threads waiting their turn on a SQLite file
committed together (one COMMIT, each write whole or absent, none answered before its COMMIT), a battle's stored
actions kept in memory and read from the store only as they are added (by this process or another), and an
engine's answer given again for the same question on the same state without the engine's work."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from rangefire.web.engine import Engine, Job
from rangefire.web.errors import ApiError
from rangefire.web.service import AttackAsk, Battles, Settings
from rangefire.web.store import ConflictError, SqliteStore, Store, StoreError

#: Guards against a test that hangs, never measurements.
WAIT = 30.0


def new(store: Store) -> str:
    return store.create("dress-on-the-colors", {"units": []}, ("a", "b"), False).id


def commits_of(store: SqliteStore) -> list[str]:
    """The COMMITs the store's writer sends from now on (its connection opened by a first write)."""
    seen: list[str] = []
    store.touch(new(store))
    assert store._writer is not None
    store._writer.set_trace_callback(lambda sql: seen.append(sql) if sql.strip().upper() == "COMMIT" else None)
    return seen


def recorded(path: Path, battle: str) -> list[tuple[int, str]]:
    """What a connection of its own reads of a battle's actions: what is committed, nothing else."""
    with sqlite3.connect(path) as raw:
        return [(int(n), str(r)) for n, r in raw.execute("SELECT number, record FROM actions WHERE battle = ? "
                                                         "ORDER BY number", (battle,))]


def grouped(store: SqliteStore, first: Any, others: list[Any]) -> list[BaseException | None]:
    """``first(db)`` written in a transaction held open until each of ``others`` (a write each, on threads of
    their own) waits its turn behind it, so that they join its transaction: what each raised (None: nothing)."""
    raised: list[BaseException | None] = [None] * (1 + len(others))
    go = threading.Event()

    def write(index: int, body: Any) -> None:
        try:
            with store._writing() as db:
                if index == 0:
                    go.set()
                    for _ in range(int(WAIT * 100)):  # until every other write waits its turn
                        if store._wanting == len(others):
                            break
                        threading.Event().wait(0.01)
                body(db)
        except BaseException as exc:  # handed to the test
            raised[index] = exc

    threads = [threading.Thread(target=write, args=(0, first))]
    threads[0].start()
    assert go.wait(WAIT)
    for index, body in enumerate(others, 1):
        threads.append(threading.Thread(target=write, args=(index, body)))
        threads[-1].start()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive()
    return raised


def insert(battle: str, number: int, record: str = "{}") -> Any:
    return lambda db: db.run("INSERT INTO actions (battle, number, kind, by_side, record) VALUES (?, ?, 'x', 'a', "
                             "?)", (battle, number, record))


def test_writes_waiting_their_turn_share_one_commit(tmp_path):
    store = SqliteStore(tmp_path / "b.sqlite3")
    try:
        battles = [new(store) for _ in range(4)]
        commits = commits_of(store)
        raised = grouped(store, insert(battles[0], 1), [insert(b, 1) for b in battles[1:]])
        assert raised == [None] * 4
        assert len(commits) == 1  # four writes, one COMMIT: one sync of the file
        for battle in battles:
            assert recorded(store.path, battle) == [(1, "{}")]
    finally:
        store.close()


def test_a_write_failing_in_a_group_is_rolled_back_alone(tmp_path):
    store = SqliteStore(tmp_path / "b.sqlite3")
    try:
        one, two = new(store), new(store)

        def refused(db: Any) -> None:
            insert(one, 1, '{"half": true}')(db)  # written, then refused: rolled back to its savepoint
            raise ConflictError("the battle changed")

        raised = grouped(store, insert(two, 1), [refused, insert(two, 2)])
        assert raised[0] is None and isinstance(raised[1], ConflictError) and raised[2] is None
        assert recorded(store.path, one) == []
        assert recorded(store.path, two) == [(1, "{}"), (2, "{}")]  # in order: the second read the first
    finally:
        store.close()


def test_a_commit_that_fails_fails_every_write_it_held(tmp_path):
    """A COMMIT that fails (a deferred reference to no battle here; a full disk does the same) answers each
    write of its group with the store's error: none of them is recorded, and the next write goes through."""
    store = SqliteStore(tmp_path / "b.sqlite3")
    try:
        battle = new(store)

        def broken(db: Any) -> None:
            db.run("PRAGMA defer_foreign_keys = ON")
            insert("none", 1)(db)

        raised = grouped(store, insert(battle, 1), [broken, insert(battle, 2)])
        assert all(isinstance(exc, StoreError) and "battles database failed" in str(exc) for exc in raised)
        assert recorded(store.path, battle) == []
        store.append(battle, (0, 0), "x", "a", {})
        assert [a.number for a in store.actions(battle)] == [1]
    finally:
        store.close()


def test_many_threads_writing_many_battles_lose_nothing_and_keep_each_battle_in_order(tmp_path):
    store = SqliteStore(tmp_path / "b.sqlite3")
    try:
        battles = [new(store) for _ in range(3)]
        done: dict[str, list[int]] = {b: [] for b in battles}
        lock = threading.Lock()

        def play(battle: str, who: int) -> None:
            for turn in range(15):
                while True:
                    version = store.version(battle)
                    try:
                        number, _ = store.append(battle, version, "x", "a", {"who": who, "turn": turn})
                    except ConflictError:
                        continue
                    with lock:
                        done[battle].append(number)
                    break

        threads = [threading.Thread(target=play, args=(b, w)) for b in battles for w in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT * 4)
        for battle in battles:  # every answered action is there, once, numbered 1, 2, ...; each thread's in turn
            stored = store.actions(battle)
            assert sorted(done[battle]) == [a.number for a in stored] == list(range(1, 46))
            for who in range(3):
                assert [a.record["turn"] for a in stored if a.record["who"] == who] == list(range(15))
    finally:
        store.close()


def test_stored_actions_are_read_as_they_are_added_by_any_process(tmp_path):
    """Two services over one file (two worker processes): each reads from the store only the actions after those
    it keeps, and sees every one the other added."""
    path = tmp_path / "b.sqlite3"
    here, there = Battles(SqliteStore(path)), Battles(SqliteStore(path))
    try:
        created = here.create(None, "wheatfield", False, settings=Settings(undo="any"))
        role = here.store.role(created["id"], created["tokens"]["sides"]["union"])
        assert role is not None
        row = here.row(created["id"])
        here.resolve(here.load(row), role, AttackAsk("20th-maine"), None, False)
        assert [a.number for a in here.stored(row.id)] == [a.number for a in there.stored(row.id)] == [1]
        there.undo(there.load(row), role)  # recorded by the other process: an undo of action 1
        asked: list[int] = []
        actions = here.store.actions
        here.store.actions = (  # type: ignore[method-assign]
            lambda battle, after=0: asked.append(after) or actions(battle, after))
        state = here.state(here.load(row), role)
        assert asked == [1, 2]  # each read only what came after the ones kept (the battle replayed, its undo)
        assert state["actions"] == 2 and state["last_standing"] is None
        assert [(a.number, a.kind) for a in here.stored(row.id)] == [(1, "attack"), (2, "undo")]
        assert here.stored(row.id) == tuple(there.store.actions(row.id))
    finally:
        here.store.close()
        there.store.close()


def test_an_action_written_is_kept_as_written_never_read_back(store_address):
    """An action written is kept beside the battle's actions as the store gives it back when read, and an undo
    answers the battle after it as it wrote it: neither the battle's version nor its actions are read again
    after the write (a SQLite file, a PostgreSQL store). What it answers is what another process reads."""
    battles, other = Battles(Store(store_address)), Battles(Store(store_address))
    try:
        created = battles.create(None, "wheatfield", False, settings=Settings(undo="any"))
        row = battles.row(created["id"])
        role = battles.store.role(row.id, created["tokens"]["sides"]["union"])
        assert role is not None
        assert battles.stored(row.id) == ()
        battles.resolve(battles.load(row), role, AttackAsk("20th-maine"), None, False)
        loaded = battles.for_role(battles.load(row), role)
        asked: list[str] = []
        for name in ("version", "actions"):
            read = getattr(battles.store, name)
            setattr(battles.store, name,
                    lambda *args, read=read, name=name, **kw: asked.append(name) or read(*args, **kw))
        undone = battles.undo(loaded, role)
        assert asked == ["actions"]  # before the write only: is the battle still as it was read?
        assert undone == other.state(other.load(row), role)
        assert undone["actions"] == 2 and undone["last_standing"] is None
        assert battles.stored(row.id) == tuple(other.store.actions(row.id))
        assert asked == ["actions", "actions"]  # the actions after those kept: none
    finally:
        battles.store.close()
        other.store.close()


def _wheatfield(battles: Battles) -> tuple[Any, Any, str]:
    """A new Wheatfield battle's row, its loaded battle and the Union's role."""
    created = battles.create(None, "wheatfield", False)
    row = battles.row(created["id"])
    role = battles.store.role(row.id, created["tokens"]["sides"]["union"])
    assert role is not None
    return row, battles.load(row), role


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the engine's workers are processes")
def test_the_same_question_on_the_same_state_is_answered_again_without_the_engine(tmp_path):
    battles = Battles(SqliteStore(tmp_path / "b.sqlite3"))
    engine = Engine(1)
    try:
        row, loaded, role = _wheatfield(battles)

        def job(state: Any) -> Job:
            return Job("odds", loaded.ruleset.key, row, state, loaded.actions, loaded.version, role,
                       (AttackAsk("20th-maine"),))

        own = battles.odds(battles.for_role(loaded, role), AttackAsk("20th-maine"))  # worked out here
        first = engine.ask(job(loaded.state), 60.0, "ask less")
        assert first == own
        worker = engine._idle.get(timeout=WAIT)
        worker.kill()  # the only worker dead: an answer now is one kept
        engine._idle.put(worker)
        first["format"] = "changed by its caller"
        assert engine.ask(job(loaded.state), 60.0, "ask less") == own
        with pytest.raises(ApiError, match=r"worker was lost"):  # an equal state, another object: asked again
            engine.ask(job(loaded.state.model_copy()), 60.0, "ask less")
    finally:
        battles.store.close()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="the engine's workers are processes")
def test_an_answer_kept_as_written_is_given_again_as_written(tmp_path):
    """The routes keep the engine's answers as their JSON (written once): the same bytes given again without
    the engine, kept apart from the same answer kept as a value, and equal to the answer worked out here."""
    from rangefire.web.answer import json_bytes

    battles = Battles(SqliteStore(tmp_path / "b.sqlite3"))
    engine = Engine(1)
    try:
        row, loaded, role = _wheatfield(battles)
        asked = Job("odds", loaded.ruleset.key, row, loaded.state, loaded.actions, loaded.version, role,
                    (AttackAsk("20th-maine"),))
        own = battles.odds(battles.for_role(loaded, role), AttackAsk("20th-maine"))
        written = engine.ask(asked, 60.0, "ask less", json_bytes)
        assert written == json_bytes(own)
        assert engine.ask(asked, 60.0, "ask less") == own  # a value: another answer kept, asked of the worker
        worker = engine._idle.get(timeout=WAIT)
        worker.kill()  # the only worker dead: an answer now is one kept
        engine._idle.put(worker)
        assert engine.ask(asked, 60.0, "ask less", json_bytes) == written
        assert engine.ask(asked, 60.0, "ask less") == own
    finally:
        battles.store.close()
