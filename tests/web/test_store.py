"""The store of battles, on a SQLite file and on PostgreSQL alike: one transaction per write, a write on a battle
changed meanwhile refused, bounds held under racing writers (threads, and stores opened apart as two worker
processes open theirs), its schema's steps applied once, and the workers' events relayed between them."""

from __future__ import annotations

import queue
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from rangefire.web import migrations
from rangefire.web.relay import SocketRelay
from rangefire.web.store import (
    ConflictError,
    FullError,
    Role,
    SqliteStore,
    Store,
    StoreError,
    UnavailableError,
    token_hash,
)

#: Guards against a test that hangs, never measurements.
WAIT = 30.0


@pytest.fixture
def store(store_address: Path | str) -> Any:
    opened = Store(store_address)
    yield opened
    opened.close()


def new(store: Store, sides: tuple[str, ...] = ("a", "b"), **kw: Any) -> Any:
    return store.create("dress-on-the-colors", {"units": []}, sides, False, **kw)


def test_the_kind_of_store_follows_its_address(store_address):
    opened = Store(store_address)
    try:
        expected = "PgStore" if isinstance(store_address, str) else "SqliteStore"
        assert type(opened).__name__ == expected
        assert opened.where and "://" in opened.where if expected == "PgStore" else opened.where == str(store_address)
    finally:
        opened.close()


def test_a_battle_and_its_tokens_read_back(store):
    created = new(store, ("blue", "grey"), settings={"undo": "any"})
    row = store.battle(created.id)
    assert row is not None and row.sides == ("blue", "grey") and row.settings == {"undo": "any"}
    assert row.scenario == {"units": []} and row.entered_dice is False
    assert store.role(created.id, created.side_tokens["grey"]).side == "grey"
    assert store.role(created.id, created.spectator_token).role == "spectator"
    assert store.role(created.id, created.side_tokens["grey"] + "x") is None
    assert store.role("elsewhere", created.side_tokens["grey"]) is None
    assert store.battle("elsewhere") is None
    assert store.count() == 1


def test_a_row_read_again_is_the_one_parsed_unless_its_columns_changed(store, monkeypatch):
    """A battle's row is parsed once and given again while its columns read as they were: one written since (no
    battle's is, but a store written by hand may be) or a battle removed is read afresh; the rows kept are the
    latest read, within their bounds."""
    created = new(store, ("blue", "grey"))
    first = store.battle(created.id)
    assert first is not None and store.battle(created.id) is first
    with store._writing(created.id) as db:
        db.run("UPDATE battles SET scenario = ? WHERE id = ?", ('{"units": [1]}', created.id))
    changed = store.battle(created.id)
    assert changed is not None and changed is not first and changed.scenario == {"units": [1]}
    assert store.remove_unused(-1) == 1 and store.battle(created.id) is None
    kept = store._parsed()
    monkeypatch.setattr(kept, "most", 2)
    ids = [new(store).id for _ in range(3)]
    rows = [store.battle(battle_id) for battle_id in ids]
    assert store.battle(ids[0]) is not rows[0] and store.battle(ids[2]) is rows[2]
    monkeypatch.setattr(kept, "most_size", len('{"units": []}') - 1)  # no scenario that long is kept
    other = new(store).id
    assert store.battle(other) is not store.battle(other) and store.battle(other) == store.battle(other)


def test_each_action_moves_the_version_and_a_stale_one_is_refused(store):
    battle = new(store).id
    assert store.version(battle) == (0, 0)
    first = store.append(battle, (0, 0), "attack", "a", {"n": 1})
    assert first[0] == 1 and first == store.version(battle)
    with pytest.raises(ConflictError):
        store.append(battle, (0, 0), "attack", "a", {"n": 2})  # played on the battle before the first
    second = store.append(battle, first, "undo", "a", {"takes_back": 1})
    assert second[0] == 2 and second[1] > first[1]
    assert [(a.number, a.kind, a.record) for a in store.actions(battle)] == [
        (1, "attack", {"n": 1}), (2, "undo", {"takes_back": 1})]


def test_racing_actions_on_one_version_land_once(store_address):
    # each thread with a store of its own, as worker processes have: the battle's lock is the database's
    stores = [Store(store_address) for _ in range(4)]
    try:
        battle = new(stores[0]).id
        won: queue.Queue[Any] = queue.Queue()
        barrier = threading.Barrier(len(stores) * 2)

        def race(store: Store, n: int) -> None:
            barrier.wait(WAIT)
            try:
                won.put(store.append(battle, (0, 0), "attack", "a", {"n": n}))
            except ConflictError:
                won.put(None)

        threads = [threading.Thread(target=race, args=(stores[i % len(stores)], i)) for i in range(len(stores) * 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        results = [won.get_nowait() for _ in threads]
        assert sum(r is not None for r in results) == 1
        assert [a.number for a in stores[1].actions(battle)] == [1]
    finally:
        for store in stores:
            store.close()


def test_the_bound_of_battles_holds_under_racing_creations(store_address):
    stores = [Store(store_address) for _ in range(3)]
    try:
        outcomes: queue.Queue[str] = queue.Queue()
        barrier = threading.Barrier(9)

        def create(store: Store) -> None:
            barrier.wait(WAIT)
            try:
                new(store, max_battles=4)
                outcomes.put("created")
            except FullError:
                outcomes.put("full")

        threads = [threading.Thread(target=create, args=(stores[i % 3],)) for i in range(9)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        said = sorted(outcomes.get_nowait() for _ in threads)
        assert said == ["created"] * 4 + ["full"] * 5
        assert stores[2].count() == 4
    finally:
        for store in stores:
            store.close()


def test_a_pending_attack_holds_the_battle_until_its_own_action_closes_it(store):
    battle = new(store).id
    row = store.open_pending(battle, (0, 0), "a", {"attacker": "x"}, entered=True)
    assert store.pending(battle) == row
    with pytest.raises(ConflictError):
        store.open_pending(battle, (0, 0), "a", {"attacker": "y"}, entered=False)
    with pytest.raises(ConflictError):
        store.append(battle, (0, 0), "end-turn", "a", {})  # not the attack's own
    answered = store.answer_pending(battle, row.step, {"attacker": "x", "choices": {"n": 1}}, 1)
    assert answered.step == row.step + 1 and answered.answers == 1 and answered.entered
    with pytest.raises(ConflictError):
        store.answer_pending(battle, row.step, {"attacker": "x"}, 1)  # read before the answer above
    with pytest.raises(ConflictError):
        store.append(battle, (0, 0), "attack", "a", {}, closing=row.step)  # an old step
    store.append(battle, (0, 0), "attack", "a", {}, closing=answered.step)
    assert store.pending(battle) is None
    row = store.open_pending(battle, store.version(battle), "b", {"attacker": "z"}, entered=False)
    with pytest.raises(ConflictError):
        store.withdraw_pending(battle, row.step + 1)
    store.withdraw_pending(battle, row.step)
    assert store.pending(battle) is None


def test_ready_sides_are_kept_once_and_told_with_the_others(store):
    """Keeping a side ready tells whether it was kept anew and every side ready now, read in the same transaction
    as the write; a start refused forgets it."""
    battle = new(store).id
    assert store.set_ready(battle, "a") == (True, {"a"})
    assert store.set_ready(battle, "a") == (False, {"a"})
    assert store.set_ready(battle, "b") == (True, {"a", "b"})
    store.unset_ready(battle, "b")
    assert store.ready(battle) == {"a"}


def test_battles_unused_for_days_are_removed_with_all_they_hold(store):
    old, kept = new(store).id, new(store).id
    store.append(old, (0, 0), "attack", "a", {})
    store.open_pending(old, store.version(old), "a", {}, entered=False)
    store.set_ready(old, "a")
    assert store.remove_unused(1) == 0  # both used today
    store.touch(kept)
    assert store.remove_unused(-1) == 2  # "unused since tomorrow": both
    assert store.count() == 0 and store.actions(old) == [] and store.pending(old) is None


def test_the_schema_steps_are_recorded_and_applied_once(store_address):
    Store(store_address).close()
    again = Store(store_address)
    try:
        with again._reading() as db:
            steps = [row[0] for row in db.all("SELECT number FROM schema_steps ORDER BY number")]
        assert steps == [step.number for step in migrations.STEPS] == list(range(1, migrations.latest() + 1))
    finally:
        again.close()


#: The schema a file was written with before its steps were recorded (the store's own, as released then).
LEGACY = """
CREATE TABLE battles (id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario TEXT NOT NULL, sides TEXT NOT NULL,
    entered_dice INTEGER NOT NULL, created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE tokens (battle TEXT NOT NULL REFERENCES battles(id), role TEXT NOT NULL, side TEXT, hash BLOB NOT NULL);
CREATE TABLE actions (seq INTEGER PRIMARY KEY AUTOINCREMENT, battle TEXT NOT NULL REFERENCES battles(id),
    number INTEGER NOT NULL, kind TEXT NOT NULL, by_side TEXT NOT NULL, record TEXT NOT NULL, UNIQUE (battle, number));
CREATE TABLE ready (battle TEXT NOT NULL REFERENCES battles(id), side TEXT NOT NULL, PRIMARY KEY (battle, side));
CREATE TABLE pending (battle TEXT PRIMARY KEY REFERENCES battles(id), by_side TEXT NOT NULL, attack TEXT NOT NULL,
    entered INTEGER NOT NULL, answers INTEGER NOT NULL, step INTEGER NOT NULL);
INSERT INTO battles (id, ruleset, scenario, sides, entered_dice, created) VALUES ('old', 'dress-on-the-colors', '{}',
    '["a", "b"]', 0, '2026-01-01T00:00:00Z');
INSERT INTO tokens VALUES ('old', 'side', 'a', X'00');
INSERT INTO actions (battle, number, kind, by_side, record) VALUES ('old', 1, 'end-turn', 'a', '{}');
"""


@pytest.mark.parametrize("had_settings", [False, True])
def test_a_file_written_before_the_steps_were_recorded_is_brought_up_to_date(tmp_path, had_settings):
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.executescript(LEGACY + ("ALTER TABLE battles ADD COLUMN settings TEXT NOT NULL DEFAULT '{\"undo\": "
                                    "\"any\"}';" if had_settings else ""))
    store = SqliteStore(path)
    try:
        row = store.battle("old")
        assert row is not None and row.settings == ({"undo": "any"} if had_settings else {})
        assert [a.number for a in store.actions("old")] == [1]
        assert store.remove_unused(30) == 0  # created long ago (2026-01-01), but held before: kept as in use
        store.touch("old")
        with store._reading() as db:
            assert [r[0] for r in db.all("SELECT number FROM schema_steps ORDER BY number")] == [
                step.number for step in migrations.STEPS]
    finally:
        store.close()


def test_tokens_are_kept_as_hashes(store):
    created = new(store)
    with store._reading() as db:
        kept = {bytes(row[0]) for row in db.all("SELECT hash FROM tokens WHERE battle = ?", (created.id,))}
    told = [*created.side_tokens.values(), created.spectator_token]
    assert kept == {token_hash(token) for token in told}


def _relayed(first: Any, second: Any) -> None:
    """What ``first`` sends is heard by ``second``, and not by ``first`` itself."""
    heard: dict[str, queue.Queue[tuple[str, dict[str, Any]]]] = {"first": queue.Queue(), "second": queue.Queue()}
    first.start(lambda b, e: heard["first"].put((b, e)))
    second.start(lambda b, e: heard["second"].put((b, e)))
    try:
        for relay in (first, second):  # each listening before the other sends
            listening = getattr(relay, "listening", None)
            if listening is not None:
                assert listening.wait(WAIT)
        first.send("battle-1", {"actions": 3, "kind": "attack", "by": "a"})
        assert heard["second"].get(timeout=WAIT) == ("battle-1", {"actions": 3, "kind": "attack", "by": "a"})
        second.send("battle-2", {"actions": 1, "kind": "pending", "by": "b"})
        assert heard["first"].get(timeout=WAIT) == ("battle-2", {"actions": 1, "kind": "pending", "by": "b"})
        assert heard["first"].empty() and heard["second"].empty()  # none heard its own
    finally:
        first.close()
        second.close()


def test_two_processes_of_a_sqlite_file_hear_each_others_events(tmp_path):
    _relayed(SocketRelay(tmp_path / "b.sqlite3"), SocketRelay(tmp_path / "b.sqlite3"))


def test_a_relay_of_a_process_gone_is_forgotten(tmp_path):
    gone, alive = SocketRelay(tmp_path / "b.sqlite3"), SocketRelay(tmp_path / "b.sqlite3")
    gone.start(lambda b, e: None)
    gone._stopped.set()
    assert gone._listening is not None
    gone._listening.close()  # killed: its socket file is left behind, no one reads it
    assert gone._thread is not None
    gone._thread.join(WAIT)
    alive.start(lambda b, e: None)
    try:
        alive.send("battle", {"actions": 1})
        assert not gone.path.exists()
    finally:
        alive.close()


def test_two_processes_of_a_postgresql_store_hear_each_others_events(pg_address):
    stores = [Store(pg_address), Store(pg_address)]
    try:
        _relayed(stores[0].relay(), stores[1].relay())
    finally:
        for store in stores:
            store.close()


def test_postgresql_restarted_is_said_unavailable_then_served_again(pg_cluster, pg_address):
    store = Store(pg_address)
    try:
        battle = new(store).id
        pg_cluster.stop()
        try:
            with pytest.raises(UnavailableError) as refused:
                store.version(battle)
            assert "retry" in str(refused.value) and refused.value.kind == "unavailable"
        finally:
            pg_cluster.start()
        assert store.version(battle) == (0, 0)  # the same store, no restart of it
        assert store.append(battle, (0, 0), "attack", "a", {})[0] == 1
        pg_cluster.restart()  # its idle connection cut: dropped before use, not answered unavailable
        assert store.version(battle)[0] == 1
    finally:
        store.close()


def test_an_unreachable_postgresql_is_said_in_our_words(tmp_path):
    from rangefire.web.store import StoreError

    address = f"postgresql://someone:secret@/nowhere?host={tmp_path}"
    with pytest.raises(StoreError) as refused:
        Store(address)
    said = str(refused.value)
    assert "cannot open the battles database" in said and "secret" not in said and "***" in said


@pytest.mark.parametrize("event", [
    {"actions": "1\nevent: forged\ndata: {}", "kind": "attack", "by": "a"},  # lines of its own in a stream
    {"kind": "attack", "by": "a"},  # no count of actions: a stream would break on it
    {"actions": True, "kind": "attack", "by": "a"},
    {"actions": 1, "kind": "<script>", "by": "a"},
    {"actions": 1, "kind": "attack", "by": "a", "more": "x"},
])
def test_an_event_heard_from_another_process_passes_only_as_the_streams_send_it(event):
    from rangefire.web.relay import decode, encode

    assert decode(encode("battle-1", event, "elsewhere")) is None
    assert decode(encode("../x", {"actions": 1, "kind": "attack", "by": "a"}, "elsewhere")) is None
    sent = {"actions": 2, "kind": "pending", "by": "a", "awaiting": "b"}
    assert decode(encode("battle-1", sent, "elsewhere")) == ("elsewhere", "battle-1", sent)


def test_a_sqlite_write_failing_at_its_commit_is_said_in_our_words_and_leaves_no_lock_behind(tmp_path):
    """A COMMIT that fails (here a deferred reference to no battle; a full disk does the same) is the store's
    error, and the thread's connection is left out of its transaction: the next write goes through."""
    store = SqliteStore(tmp_path / "b.sqlite3")
    try:
        with pytest.raises(StoreError) as caught, store._writing() as tx:
            tx.run("PRAGMA defer_foreign_keys = ON")
            tx.run("INSERT INTO actions (battle, number, kind, by_side, record) VALUES ('none', 1, 'x', 'a', '{}')")
        assert "battles database failed" in str(caught.value) and not isinstance(caught.value, UnavailableError)
        created = new(store)  # the same thread, the same connection
        assert store.battle(created.id) is not None
    finally:
        store.close()


def test_a_battle_removed_and_its_id_used_again_has_its_tokens_read_afresh(store):
    """A battle's tokens are kept beside its row once read: a battle removed by another process and created again
    under its id (its row and tokens rewritten behind this store's back) answers to its new tokens only."""
    created = new(store)
    assert store.battle(created.id) is not None
    old = created.side_tokens["a"]
    assert store.role(created.id, old) == Role("side", "a")
    with store._writing(created.id) as db:
        db.run("UPDATE battles SET created = ? WHERE id = ?", ("2020-01-01T00:00:00Z", created.id))
        db.run("DELETE FROM tokens WHERE battle = ?", (created.id,))
        db.run("INSERT INTO tokens (battle, role, side, hash) VALUES (?, 'side', 'a', ?)",
               (created.id, token_hash("a new token")))
    assert store.battle(created.id) is not None  # read afresh: its row is not as it was
    assert store.role(created.id, old) is None
    assert store.role(created.id, "a new token") == Role("side", "a")


def test_a_battle_removed_is_read_as_gone_though_its_tokens_were_kept(store):
    created = new(store)
    store.battle(created.id)
    assert store.role(created.id, created.side_tokens["a"]) is not None
    assert store.remove_unused(-1) == 1
    assert store.battle(created.id) is None
    assert store.role(created.id, created.side_tokens["a"]) is None
