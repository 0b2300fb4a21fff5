"""Battles kept in a database: a battle is its scenario plus its actions, each action one transaction (on SQLite,
the writes waiting their turn share one, each in a savepoint of its own: :class:`SqliteStore`).

The database is a SQLite file (:class:`SqliteStore`, the default: one machine) or PostgreSQL
(:class:`rangefire.web.store_pg.PgStore`, for several processes or machines); both run the same SQL on the same
schema (:mod:`rangefire.web.migrations`). An action the server has answered for is committed (on disk: SQLite in
WAL mode with full syncs, PostgreSQL's own commit), and one it was killed in the middle of is not there at all
(a transaction is whole or absent). Nothing else is stored: the
state of a battle is always its scenario with its actions replayed (:mod:`rangefire.record`), as the command
line's ``rangefire replay`` does.

The sides of a battle set up from empty that have said they are ready are kept in the table ``ready``; the
start itself, once every side is, is an action as any other.

An attack that waits for another side's choice (a Bushido nomination, a swerve player's action) is kept in the
table ``pending``, one per battle, as the choices made so far: it survives a restart as actions do, and while it
is there no action is added nor removed (each write checks it in its own transaction). When its last choice is
made it becomes one action and leaves the table in one transaction.

A battle's settings (how it was created: who may undo what, whether hands are open) are kept beside its scenario
as one JSON object; a database written before they were gains the column, every battle of it with the defaults.

An undo is an action as any other: it is appended, naming what it takes back, and nothing is ever removed.

Tokens are stored as SHA-256 hashes only; the token itself is shown once, when the battle is created, and a
token presented later is compared against each hash of its battle in constant time.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rangefire.core import RangefireError
from rangefire.web import migrations
from rangefire.web.kept import Kept

if TYPE_CHECKING:
    from rangefire.web.relay import Relay

#: The longest token looked at: a real one is 43 characters; a longer one is refused before it is hashed.
MAX_TOKEN_CHARS = 128
#: No battle holds more actions than a log may (:data:`rangefire.record.MAX_ACTIONS`).
MAX_ACTIONS = 20_000
#: A pending attack's first step is below this (a whole number a browser's JavaScript holds exactly).
FIRST_STEPS = 2**48

class StoreError(RangefireError):
    """A store that cannot be opened or written."""

    kind = "store"


class UnavailableError(StoreError):
    """The store cannot be reached now (a database restarting, a connection lost): nothing was recorded unless
    the answer to a retry says so; retry in a moment."""

    kind = "unavailable"
    #: What the database's driver said, alone.
    reason = ""


class ConflictError(RangefireError):
    """Two writes raced on one battle: the later one finds the battle changed and is refused."""

    kind = "conflict"


class FullError(RangefireError):
    """The store holds as many battles as the server keeps: a new one is refused."""

    kind = "unavailable"


@dataclass(frozen=True)
class Role:
    """Who a token speaks for: a side (``side`` set) or a spectator (``side`` None)."""

    role: str
    side: str | None


@dataclass(frozen=True)
class BattleRow:
    id: str
    ruleset: str
    scenario: dict[str, Any]
    sides: tuple[str, ...]
    entered_dice: bool
    #: How the battle was created (``undo``, ``open_hands``): :class:`rangefire.web.service.Settings` reads it.
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ActionRow:
    """One stored action: its number in the battle (1, 2, ...), who made it, and its record (a log line)."""

    seq: int
    number: int
    kind: str
    by_side: str
    record: dict[str, Any]


@dataclass(frozen=True)
class PendingRow:
    """An attack waiting for a choice: the side that made it, the attack so far (``attacker``, ``target``,
    ``choices`` as an attack body holds them), whether its dice are entered once every choice is made, how many
    answers of another side it holds, and its step (grown by each answer: a write names the step it read). A new
    pending attack's first step is drawn at random, so that no step of one attack is another's: an answer or a
    withdrawal read against an attack since withdrawn never writes to the one made after it."""

    by_side: str
    attack: dict[str, Any]
    entered: bool
    answers: int
    step: int


@dataclass(frozen=True)
class Created:
    """A battle just created, with its tokens in clear (the only time they exist outside the client)."""

    id: str
    side_tokens: dict[str, str]
    spectator_token: str


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


#: Battles' rows kept parsed (:meth:`Store.battle`), the latest read, at most; and their scenarios' characters.
ROWS_KEPT = 1024
ROWS_KEPT_CHARS = 32 * 1024 * 1024


@dataclass
class _Parsed:
    """A battle's row as read (its columns as stored, the time of its creation with them) and as parsed; beside it,
    its tokens' hashes once read (None before)."""

    stored: tuple[Any, ...]
    row: BattleRow
    tokens: list[tuple[Any, ...]] | None = None


def _parsed_rows() -> Kept[str, _Parsed]:
    """The latest battles' rows read, given again only while their columns read as they were (a battle's never
    change once it is created, but a battle removed and its id used again is read afresh, its tokens with it)."""
    return Kept(ROWS_KEPT, ROWS_KEPT_CHARS, lambda parsed: len(parsed.stored[1]))  # the scenario's text


class Store:
    """The battles of one store: the SQL every kind of store runs, over the connections of its kind.

    ``Store(where)`` opens the store ``where`` names: a PostgreSQL database for an address
    ``postgresql://...`` (:class:`rangefire.web.store_pg.PgStore`), else a SQLite file (:class:`SqliteStore`).
    Safe to use from several threads, and from several processes sharing one store: every write is one
    transaction that holds its battle's lock from its first read to its commit."""

    #: How the kind of store says where it is, for the keeper (a PostgreSQL address without its password).
    where: str = ""

    def __new__(cls, where: str | Path = "") -> Store:
        if cls is Store:
            if is_postgresql(where):
                from rangefire.web.store_pg import PgStore

                return PgStore.__new__(PgStore, where)
            return SqliteStore.__new__(SqliteStore, where)
        return super().__new__(cls)

    # -- what each kind of store gives: a connection to read on, a transaction to write in --------------
    @contextmanager
    def _reading(self) -> Iterator[Tx]:
        raise NotImplementedError
        yield  # pragma: no cover

    @contextmanager
    def _writing(self, battle_id: str | None = None) -> Iterator[Tx]:
        """One transaction holding the write lock of ``battle_id`` (or, with None, of the store's battles as a
        whole) from its start, so that what it read stays true until it commits."""
        raise NotImplementedError
        yield  # pragma: no cover

    def close(self) -> None:
        """Close the store's connections (a store is not used after)."""

    def relay(self) -> Relay | None:
        """How the processes sharing this store tell each other of what lands on a battle (None: no way)."""
        return None

    # -- battles -----------------------------------------------------------------------------------
    def create(self, ruleset: str, scenario: dict[str, Any], sides: Sequence[str], entered_dice: bool,
               max_battles: int | None = None, settings: dict[str, Any] | None = None) -> Created:
        """A new battle with its tokens; refused (:class:`FullError`) when the store already holds
        ``max_battles`` (counted in the same transaction, so that racing creations cannot pass the bound)."""
        battle_id = secrets.token_urlsafe(12)
        side_tokens = {side: secrets.token_urlsafe(32) for side in sides}
        spectator = secrets.token_urlsafe(32)
        with self._writing(None if max_battles is not None else battle_id) as db:
            if max_battles is not None:
                held = int(db.one("SELECT count(*) FROM battles")[0])
                if held >= max_battles:
                    raise FullError(f"this server holds {held} battles, the most it keeps ({max_battles}); "
                                    "ask its keeper to raise the bound or to remove old battles")
            db.run("INSERT INTO battles (id, ruleset, scenario, sides, entered_dice, settings) VALUES "
                   "(?, ?, ?, ?, ?, ?)", (battle_id, ruleset, json.dumps(scenario), json.dumps(list(sides)),
                                          int(entered_dice), json.dumps(settings or {})))
            rows: list[tuple[str, str, str | None, bytes]] = [
                (battle_id, "side", side, token_hash(token)) for side, token in side_tokens.items()]
            rows.append((battle_id, "spectator", None, token_hash(spectator)))
            db.many("INSERT INTO tokens (battle, role, side, hash) VALUES (?, ?, ?, ?)", rows)
        return Created(battle_id, side_tokens, spectator)

    def count(self) -> int:
        """How many battles the store holds."""
        with self._reading() as db:
            return int(db.one("SELECT count(*) FROM battles")[0])

    def touch(self, battle_id: str) -> None:
        """Write down that the battle is in use now (see :meth:`remove_unused`)."""
        with self._writing(battle_id) as db:
            db.run("UPDATE battles SET used = ? WHERE id = ?", (_now(), battle_id))

    def remove_unused(self, days: float) -> int:
        """Remove every battle not used (:meth:`touch`; else created) for ``days``, with its tokens, actions and
        all: how many. One transaction each, so that a battle in use meanwhile is kept."""
        cutoff = _now(datetime.now(UTC) - timedelta(days=days))
        with self._reading() as db:
            old = [row[0] for row in db.all("SELECT id FROM battles WHERE coalesce(used, created) < ?", (cutoff,))]
        removed = 0
        for battle_id in old:
            with self._writing(battle_id) as db:
                if db.first("SELECT 1 FROM battles WHERE id = ? AND coalesce(used, created) < ?",
                            (battle_id, cutoff)) is None:
                    continue
                for table in ("tokens", "actions", "ready", "pending"):
                    db.run(f"DELETE FROM {table} WHERE battle = ?", (battle_id,))
                removed += db.run("DELETE FROM battles WHERE id = ?", (battle_id,))
            self._parsed().pop(battle_id)
        return removed

    def battle(self, battle_id: str) -> BattleRow | None:
        """The battle's row; one read as it was read before is the row parsed then (every request reads its
        battle's row, and parsing its scenario again took as long as the rest of reading it)."""
        with self._reading() as db:
            row = db.first("SELECT id, ruleset, scenario, sides, entered_dice, settings, created FROM battles WHERE "
                           "id = ?", (battle_id,))
        if row is None:
            return None
        stored = tuple(row[1:])
        kept = self._parsed().get(battle_id)
        if kept is not None and kept.stored == stored:
            return kept.row
        found = BattleRow(row[0], row[1], json.loads(row[2]), tuple(json.loads(row[3])), bool(row[4]),
                          json.loads(row[5]))
        self._parsed().put(battle_id, _Parsed(stored, found))
        return found

    def _parsed(self) -> Kept[str, _Parsed]:
        """The rows kept (:func:`_parsed_rows`), made at first use by whichever thread comes first."""
        parsed: Kept[str, _Parsed] | None = self.__dict__.get("_parsed_rows")
        if parsed is None:
            parsed = self.__dict__.setdefault("_parsed_rows", _parsed_rows())
        return parsed

    def role(self, battle_id: str, token: str) -> Role | None:
        """Whom the token speaks for in this battle, or None. Every hash of the battle is compared, each in
        constant time, so the answer takes as long for a near miss as for a far one. The hashes are read once
        after the battle's row is (:meth:`battle`, which every request reads first) and kept beside it: a battle's
        tokens never change while it is there, and a battle read afresh has them read afresh."""
        if len(token) > MAX_TOKEN_CHARS:
            return None
        given = token_hash(token)
        kept = self._parsed().get(battle_id)
        rows = kept.tokens if kept is not None else None
        if rows is None:
            with self._reading() as db:
                rows = db.all("SELECT role, side, hash FROM tokens WHERE battle = ?", (battle_id,))
            if kept is not None and rows:  # kept beside its row (a battle removed meanwhile has none)
                kept.tokens = rows
        found: Role | None = None
        for role, side, stored in rows:
            if hmac.compare_digest(given, bytes(stored)) and found is None:
                found = Role(role, side)
        return found

    # -- actions -----------------------------------------------------------------------------------
    def actions(self, battle_id: str, after: int = 0) -> list[ActionRow]:
        """The battle's actions in order; those after the first ``after`` only (a reader that holds those: the
        actions of a battle are only ever added)."""
        with self._reading() as db:
            rows = db.all("SELECT seq, number, kind, by_side, record FROM actions WHERE battle = ? AND number > ? "
                          "ORDER BY number", (battle_id, after))
        return [ActionRow(int(seq), int(number), kind, by_side, json.loads(record))
                for seq, number, kind, by_side, record in rows]

    @staticmethod
    def _version(db: Tx, battle_id: str) -> tuple[int, int]:
        row = db.one("SELECT count(*), coalesce(max(seq), 0) FROM actions WHERE battle = ?", (battle_id,))
        return int(row[0]), int(row[1])

    def version(self, battle_id: str) -> tuple[int, int]:
        """(number of actions, seq of the last one): changes with every action and every undo, never repeats."""
        with self._reading() as db:
            return self._version(db, battle_id)

    def append(self, battle_id: str, expected: tuple[int, int], kind: str, by_side: str,
               record: dict[str, Any], closing: int | None = None) -> tuple[int, int]:
        """Add one action as one transaction, if the battle is still at the ``expected`` version (see
        :meth:`version`): the battle's version after it. The count alone would not do: an undo and another
        action in between leave the count as it was but the state the action was played on gone. A battle with
        a pending attack takes no action but that attack's own: ``closing`` names its step, and it leaves the
        table in the same transaction."""
        with self._writing(battle_id) as db:
            now = self._checked(db, battle_id, closing)
            if now != expected:
                raise ConflictError(f"the battle changed while this action was played ({now[0]} actions now, "
                                    f"{expected[0]} before); fetch it again and retry")
            count = now[0]
            if count >= MAX_ACTIONS:
                raise ConflictError(f"the battle holds {count} actions, the most one battle may")
            seq = db.one("INSERT INTO actions (battle, number, kind, by_side, record) VALUES (?, ?, ?, ?, ?) "
                         "RETURNING seq", (battle_id, count + 1, kind, by_side, json.dumps(record)))[0]
            if closing is not None:
                db.run("DELETE FROM pending WHERE battle = ?", (battle_id,))
        return int(count + 1), int(seq)

    # -- the sides ready to start a battle set up from empty -------------------------------------------
    def ready(self, battle_id: str) -> set[str]:
        """The sides that have said they are ready to start the battle."""
        with self._reading() as db:
            return {side for (side,) in db.all("SELECT side FROM ready WHERE battle = ?", (battle_id,))}

    def set_ready(self, battle_id: str, side: str) -> tuple[bool, set[str]]:
        """Keep that a side is ready (saying it again changes nothing): whether this kept it anew, and the sides
        ready now. One transaction holding the battle's lock, so of two sides saying so at once the later reads
        the earlier (read apart from the write, each could find the other not yet ready and the battle never
        start)."""
        with self._writing(battle_id) as db:
            before = {side for (side,) in db.all("SELECT side FROM ready WHERE battle = ?", (battle_id,))}
            db.run("INSERT INTO ready (battle, side) VALUES (?, ?) ON CONFLICT DO NOTHING", (battle_id, side))
        return side not in before, before | {side}

    def unset_ready(self, battle_id: str, side: str | None = None) -> None:
        """Forget that a side is ready (a start refused), or every side (``None``: the table changed under them)."""
        with self._writing(battle_id) as db:
            if side is None:
                db.run("DELETE FROM ready WHERE battle = ?", (battle_id,))
            else:
                db.run("DELETE FROM ready WHERE battle = ? AND side = ?", (battle_id, side))

    # -- an attack waiting for a choice --------------------------------------------------------------
    def pending(self, battle_id: str) -> PendingRow | None:
        with self._reading() as db:
            row = db.first("SELECT by_side, attack, entered, answers, step FROM pending WHERE battle = ?",
                           (battle_id,))
        if row is None:
            return None
        return PendingRow(row[0], json.loads(row[1]), bool(row[2]), int(row[3]), int(row[4]))

    @staticmethod
    def _checked(db: Tx, battle_id: str, closing: int | None) -> tuple[int, int]:
        """The battle's version (:meth:`version`), read in the one statement that reads its pending attack's
        step: a write is refused while an attack waits, unless it is that attack's own (at the step it was read
        at)."""
        row = db.one("SELECT (SELECT step FROM pending WHERE battle = ?), count(*), coalesce(max(seq), 0) FROM "
                     "actions WHERE battle = ?", (battle_id, battle_id))
        now = int(row[1]), int(row[2])
        if row[0] is None and closing is None:
            return now
        if row[0] is None or closing is None or int(row[0]) != closing:
            raise ConflictError("an attack waiting for a choice changed or holds the battle while this was asked; "
                                "fetch it again and retry")
        return now

    def open_pending(self, battle_id: str, expected: tuple[int, int], by_side: str, attack: dict[str, Any],
                     entered: bool) -> PendingRow:
        """Keep an attack that waits for a choice, as one transaction, if the battle is still at the ``expected``
        version and holds no other."""
        step = 1 + secrets.randbelow(FIRST_STEPS)
        with self._writing(battle_id) as db:
            row = db.one("SELECT EXISTS (SELECT 1 FROM pending WHERE battle = ?), count(*), coalesce(max(seq), 0) "
                         "FROM actions WHERE battle = ?", (battle_id, battle_id))
            if row[0]:
                raise ConflictError("another attack is already waiting for a choice on this battle")
            now = int(row[1]), int(row[2])
            if now != expected:
                raise ConflictError(f"the battle changed while this attack was made ({now[0]} actions now, "
                                    f"{expected[0]} before); fetch it again and retry")
            db.run("INSERT INTO pending (battle, by_side, attack, entered, answers, step) VALUES (?, ?, ?, ?, 0, ?)",
                   (battle_id, by_side, json.dumps(attack), int(entered), step))
        return PendingRow(by_side, attack, entered, 0, step)

    def answer_pending(self, battle_id: str, step: int, attack: dict[str, Any], answers: int) -> PendingRow:
        """The pending attack with one more choice made, if it is still at ``step`` (two answers racing: the
        later one finds it changed)."""
        with self._writing(battle_id) as db:
            changed = db.run("UPDATE pending SET attack = ?, answers = ?, step = step + 1 WHERE battle = ? AND "
                             "step = ?", (json.dumps(attack), answers, battle_id, step))
            if changed != 1:
                raise ConflictError("the attack waiting for a choice changed while this answer was given; fetch "
                                    "the battle again and retry")
            row = db.one("SELECT by_side, entered FROM pending WHERE battle = ?", (battle_id,))
        return PendingRow(row[0], attack, bool(row[1]), answers, step + 1)

    def withdraw_pending(self, battle_id: str, step: int) -> None:
        """Remove the pending attack (withdrawn by its side), if it is still at ``step``."""
        with self._writing(battle_id) as db:
            if db.run("DELETE FROM pending WHERE battle = ? AND step = ?", (battle_id, step)) != 1:
                raise ConflictError("the attack waiting for a choice changed while it was withdrawn; fetch the "
                                    "battle again")

    # -- battles created per client address --------------------------------------------------------------
    @contextmanager
    def _counting(self) -> Iterator[Tx]:
        """Where an address's count of battles created is taken: a transaction of the store's (each kind of
        store may take a lighter one: the count's own statement locks its row)."""
        with self._writing() as db:
            yield db

    def take_created(self, address: str, per_hour: int, now: float) -> float | None:
        """Count one battle created by ``address`` at ``now`` (seconds since 1970), if its bucket holds one: a
        bucket of ``per_hour`` battles that fills again at that rate, kept in the store so that every process
        serving it counts alike. None when counted; else the battles (less than one) the bucket holds now, nothing
        counted. A bucket left alone for an hour is full again, as good as none: such rows are removed."""
        full, rate = float(per_hour), per_hour / 3600.0
        # the bucket as it has filled again by now: never past full, never emptied by a clock set back
        refilled = ("CASE WHEN ? <= counted THEN tokens WHEN tokens + (? - counted) * ? >= ? THEN ? "
                    "ELSE tokens + (? - counted) * ? END")
        filled = (now, now, rate, full, full, now, rate)
        with self._counting() as db:
            db.run("DELETE FROM create_rates WHERE counted < ?", (now - 3600.0,))
            db.run("INSERT INTO create_rates (address, tokens, counted) VALUES (?, ?, ?) ON CONFLICT (address) "
                   "DO NOTHING", (address, full, now))
            # one statement reads and writes the row, holding its lock: two processes cannot both take its last
            taken = db.run(f"UPDATE create_rates SET tokens = {refilled} - 1, counted = CASE WHEN ? > counted "
                           f"THEN ? ELSE counted END WHERE address = ? AND {refilled} >= 1",
                           (*filled, now, now, address, *filled))
            if taken == 1:
                return None
            row = db.first(f"SELECT {refilled} FROM create_rates WHERE address = ?", (*filled, address))
        return float(row[0]) if row is not None else 0.0


#: Writes committed together at most (:class:`SqliteStore`): a write waits for no more than these before it.
GROUP_COMMIT = 32


class _Group:
    """Writes of one process's threads committed together (:meth:`SqliteStore._writing`): how many, and, once
    committed or failed, the error of their COMMIT (None: each write that succeeded is on disk)."""

    def __init__(self) -> None:
        self.size = 0
        self.error: sqlite3.Error | None = None
        self.done = threading.Event()


class SqliteStore(Store):
    """The battles of one SQLite file, in WAL mode with full syncs. Each thread reads on its own connection; the
    writes of the process go through one connection, taking turns, and a write takes the file's write lock at
    once (``BEGIN IMMEDIATE``), which every process sharing the file respects.

    Group commit: the writes of threads that wait their turn while one is written share its transaction, each
    in a savepoint of its own (one that fails is rolled back alone, its error raised), and one COMMIT, one sync
    of the file, answers them all: none returns before the COMMIT that holds it is on disk, and a COMMIT that
    fails fails every write it held (none of them recorded). A write is still whole or absent, and committed
    before it is answered; a battle's writes stay in order (each reads what those before it wrote)."""

    def __init__(self, path: str | Path = "") -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self._local = threading.local()
        self._turn = threading.Lock()  # the writer's connection, one thread at a time
        self._writer: sqlite3.Connection | None = None
        self._group: _Group | None = None  # the transaction open on the writer, and the writes it holds
        self._wanting = 0  # threads waiting for their turn to write (they join the open transaction)
        self._counted = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = self._connect()
            db.execute("PRAGMA journal_mode=WAL")
            with self._writing() as tx:
                tables = {row[0] for row in tx.all("SELECT name FROM sqlite_master WHERE type = 'table'")}
                migrations.apply(tx.rows, "sqlite", tables,
                                 lambda table: {row[1] for row in tx.all(f"PRAGMA table_info({table})")})
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot open the battles database: {exc}") from None

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (opened once per thread: opening one per call costs more than a query)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._open()
        return db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA synchronous=FULL")  # each committed action is on disk before it is answered
        db.execute("PRAGMA foreign_keys=ON")
        return db

    @contextmanager
    def _reading(self) -> Iterator[Tx]:
        try:
            yield Tx(self._connect(), qmark=True)
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    @contextmanager
    def _writing(self, battle_id: str | None = None) -> Iterator[Tx]:
        # SQLite has one write lock for the whole file: every battle's writes take turns, those of this process
        # here (each woken as the one before is done; SQLite's own wait, between processes, polls and sleeps
        # longer the longer it waits)
        failed: BaseException | None = None
        with self._counted:
            self._wanting += 1
        try:
            self._turn.acquire()
        finally:
            with self._counted:
                self._wanting -= 1
        try:
            group = self._join()
            db = self._writer
            assert db is not None
            try:
                db.execute("SAVEPOINT write")
                try:
                    yield Tx(db, qmark=True)
                    db.execute("RELEASE write")
                except BaseException as exc:
                    failed = exc
                    db.execute("ROLLBACK TO write")
                    db.execute("RELEASE write")
            except sqlite3.Error as exc:  # the transaction itself is broken: every write it held fails
                failed = failed or exc
                self._end(group, exc)
            else:
                group.size += 1
                with self._counted:
                    last = self._wanting == 0
                if last or group.size >= GROUP_COMMIT:  # no thread waits to join: committed now
                    self._commit(group)
        except sqlite3.Error as exc:  # the transaction could not be begun (busy past the wait)
            raise self._failed(exc) from None
        finally:
            self._turn.release()
        while not group.done.wait(1.0):  # the thread that was to join it gone (never so, but never waited on)
            with self._turn:
                if self._group is group:
                    self._commit(group)
        try:
            if failed is not None:
                raise failed
            if group.error is not None:
                raise group.error
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    def _join(self) -> _Group:
        """The transaction open on the writer's connection (its turn held), begun when none is."""
        if self._group is None:
            if self._writer is None:
                self._writer = self._open()
            self._writer.execute("BEGIN IMMEDIATE")
            self._group = _Group()
        return self._group

    def _commit(self, group: _Group) -> None:
        """Commit the writes of ``group`` (its turn held) and wake them; a COMMIT that fails is every one's."""
        db = self._writer
        assert db is not None
        try:
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._end(group, exc)
            return
        self._group = None
        group.done.set()

    def _end(self, group: _Group, error: sqlite3.Error) -> None:
        """The transaction failed: rolled back (the writer's connection never keeps the file's write lock), each
        of its writes told ``error``."""
        db = self._writer
        if db is not None and db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        self._group = None
        group.error = error
        group.done.set()

    def _failed(self, exc: sqlite3.Error) -> StoreError:
        """A fault of the file said in our words: busy past the wait (locked by another process) is a moment's
        (503, retry); anything else (a full disk, a file made read-only) the store's (500)."""
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
            return UnavailableError(f"the battles database is busy ({exc}); retry in a moment")
        return StoreError(f"the battles database failed ({exc}); nothing was recorded by this request")

    def relay(self) -> Relay | None:
        from rangefire.web.relay import SocketRelay

        self._relay: Relay | None = SocketRelay(self.path)
        return self._relay

    def close(self) -> None:
        relay: Relay | None = getattr(self, "_relay", None)
        if relay is not None:  # its socket removed: no process of the store is told of it again
            relay.close()
            self._relay = None
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is not None:  # this thread's (the others' close with their threads)
            db.close()
            self._local.db = None
        with self._turn:
            if self._writer is not None:
                self._writer.close()
                self._writer = None


def _now(when: datetime | None = None) -> str:
    """A time as the store writes it (``created``, ``used``): UTC, to the second, ``2026-05-01T12:00:00Z``."""
    return (when or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_postgresql(where: str | Path) -> bool:
    """Whether ``where`` is a PostgreSQL address (``postgresql://...`` or ``postgres://...``), not a file."""
    return isinstance(where, str) and where.startswith(("postgresql://", "postgres://"))


class Tx:
    """A connection as the store's SQL uses it, whichever database it is: statements written with ``?``
    placeholders (said ``%s`` to PostgreSQL), answered as tuples."""

    def __init__(self, db: Any, qmark: bool) -> None:
        self.db, self.qmark = db, qmark

    def _sql(self, sql: str) -> str:
        return sql if self.qmark else sql.replace("?", "%s")

    def _execute(self, sql: str, params: Sequence[Any]) -> Any:
        return self.db.execute(self._sql(sql), tuple(params)) if params else self.db.execute(sql)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement: its rows (none for a statement that answers none)."""
        cursor = self._execute(sql, params)
        return list(cursor.fetchall()) if cursor.description is not None else []

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return list(self._execute(sql, params).fetchall())

    def first(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._execute(sql, params).fetchone()
        return row

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...]:
        row = self.first(sql, params)
        assert row is not None, sql
        return row

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement: how many rows it changed."""
        return int(self._execute(sql, params).rowcount)

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.cursor().executemany(self._sql(sql), rows)
