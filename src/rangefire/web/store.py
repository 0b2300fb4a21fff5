"""Battles kept in SQLite: a battle is its scenario plus its actions, each action one transaction.

The database is in WAL mode with full syncs: an action the server has answered for is on disk, and one it was
killed in the middle of is not there at all (a transaction is whole or absent). Nothing else is stored: the
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

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rangefire.core import RangefireError

#: The longest token looked at: a real one is 43 characters; a longer one is refused before it is hashed.
MAX_TOKEN_CHARS = 128
#: No battle holds more actions than a log may (:data:`rangefire.record.MAX_ACTIONS`).
MAX_ACTIONS = 20_000
#: A pending attack's first step is below this (a whole number a browser's JavaScript holds exactly).
FIRST_STEPS = 2**48

_SCHEMA = """
CREATE TABLE IF NOT EXISTS battles (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    scenario TEXT NOT NULL,
    sides TEXT NOT NULL,
    entered_dice INTEGER NOT NULL,
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    settings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS tokens (
    battle TEXT NOT NULL REFERENCES battles(id),
    role TEXT NOT NULL CHECK (role IN ('side', 'spectator')),
    side TEXT,
    hash BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_by_battle ON tokens(battle);
CREATE TABLE IF NOT EXISTS actions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    battle TEXT NOT NULL REFERENCES battles(id),
    number INTEGER NOT NULL,
    kind TEXT NOT NULL,
    by_side TEXT NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (battle, number)
);
CREATE TABLE IF NOT EXISTS ready (
    battle TEXT NOT NULL REFERENCES battles(id),
    side TEXT NOT NULL,
    PRIMARY KEY (battle, side)
);
CREATE TABLE IF NOT EXISTS pending (
    battle TEXT PRIMARY KEY REFERENCES battles(id),
    by_side TEXT NOT NULL,
    attack TEXT NOT NULL,
    entered INTEGER NOT NULL,
    answers INTEGER NOT NULL,
    step INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS touched (
    battle TEXT PRIMARY KEY REFERENCES battles(id),
    at TEXT NOT NULL
);
"""


def _migrate(db: sqlite3.Connection) -> None:
    """Bring a database written by an earlier version up to this schema: the ``settings`` of each battle."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(battles)")}
    if "settings" not in columns:
        db.execute("ALTER TABLE battles ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'")


class StoreError(RangefireError):
    """A store that cannot be opened or written."""

    kind = "store"


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


class Store:
    """The battles of one SQLite file. Safe to use from several threads: each call opens its own connection."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
                _migrate(db)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot open the battles database: {exc}") from None

    # -- connections -------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA synchronous=FULL")  # each committed action is on disk before it is answered
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _db(self) -> sqlite3.Connection:
        """This thread's connection (opened once per thread: opening one per call costs more than a query)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._connect()
            self._local.db = db
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction that takes the write lock at once, so that what it read stays true until it commits."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- battles -----------------------------------------------------------------------------------
    def create(self, ruleset: str, scenario: dict[str, Any], sides: Sequence[str], entered_dice: bool,
               max_battles: int | None = None, settings: dict[str, Any] | None = None) -> Created:
        """A new battle with its tokens; refused (:class:`FullError`) when the store already holds
        ``max_battles`` (counted in the same transaction, so that racing creations cannot pass the bound)."""
        battle_id = secrets.token_urlsafe(12)
        side_tokens = {side: secrets.token_urlsafe(32) for side in sides}
        spectator = secrets.token_urlsafe(32)
        with self._write() as db:
            if max_battles is not None:
                held = int(db.execute("SELECT count(*) FROM battles").fetchone()[0])
                if held >= max_battles:
                    raise FullError(f"this server holds {held} battles, the most it keeps ({max_battles}); "
                                    "ask its keeper to raise the bound or to remove old battles")
            db.execute("INSERT INTO battles (id, ruleset, scenario, sides, entered_dice, settings) VALUES "
                       "(?, ?, ?, ?, ?, ?)", (battle_id, ruleset, json.dumps(scenario), json.dumps(list(sides)),
                                               int(entered_dice), json.dumps(settings or {})))
            rows: list[tuple[str, str, str | None, bytes]] = [
                (battle_id, "side", side, token_hash(token)) for side, token in side_tokens.items()]
            rows.append((battle_id, "spectator", None, token_hash(spectator)))
            db.executemany("INSERT INTO tokens (battle, role, side, hash) VALUES (?, ?, ?, ?)", rows)
        return Created(battle_id, side_tokens, spectator)

    def count(self) -> int:
        """How many battles the store holds."""
        return int(self._db().execute("SELECT count(*) FROM battles").fetchone()[0])

    def battle(self, battle_id: str) -> BattleRow | None:
        row = self._db().execute("SELECT id, ruleset, scenario, sides, entered_dice, settings FROM battles "
                                 "WHERE id = ?", (battle_id,)).fetchone()
        if row is None:
            return None
        return BattleRow(row[0], row[1], json.loads(row[2]), tuple(json.loads(row[3])), bool(row[4]),
                         json.loads(row[5]))

    def role(self, battle_id: str, token: str) -> Role | None:
        """Whom the token speaks for in this battle, or None. Every hash of the battle is compared, each in
        constant time, so the answer takes as long for a near miss as for a far one."""
        if len(token) > MAX_TOKEN_CHARS:
            return None
        given = token_hash(token)
        found: Role | None = None
        for role, side, stored in self._db().execute("SELECT role, side, hash FROM tokens WHERE battle = ?",
                                                     (battle_id,)):
            if hmac.compare_digest(given, stored) and found is None:
                found = Role(role, side)
        return found

    # -- actions -----------------------------------------------------------------------------------
    def actions(self, battle_id: str) -> list[ActionRow]:
        return [ActionRow(seq, number, kind, by_side, json.loads(record)) for seq, number, kind, by_side, record in
                self._db().execute("SELECT seq, number, kind, by_side, record FROM actions WHERE battle = ? "
                                   "ORDER BY number", (battle_id,))]

    def _version(self, db: sqlite3.Connection, battle_id: str) -> tuple[int, int]:
        row = db.execute("SELECT count(*), coalesce(max(seq), 0) FROM actions WHERE battle = ?",
                         (battle_id,)).fetchone()
        return int(row[0]), int(row[1])

    def version(self, battle_id: str) -> tuple[int, int]:
        """(number of actions, seq of the last one): changes with every action and every undo, never repeats."""
        return self._version(self._db(), battle_id)

    def append(self, battle_id: str, expected: tuple[int, int], kind: str, by_side: str,
               record: dict[str, Any], closing: int | None = None) -> tuple[int, int]:
        """Add one action as one transaction, if the battle is still at the ``expected`` version (see
        :meth:`version`): the battle's version after it. The count alone would not do: an undo and another
        action in between leave the count as it was but the state the action was played on gone. A battle with
        a pending attack takes no action but that attack's own: ``closing`` names its step, and it leaves the
        table in the same transaction."""
        with self._write() as db:
            self._no_pending(db, battle_id, closing)
            now = self._version(db, battle_id)
            if now != expected:
                raise ConflictError(f"the battle changed while this action was played ({now[0]} actions now, "
                                    f"{expected[0]} before); fetch it again and retry")
            count = now[0]
            if count >= MAX_ACTIONS:
                raise ConflictError(f"the battle holds {count} actions, the most one battle may")
            cursor = db.execute("INSERT INTO actions (battle, number, kind, by_side, record) VALUES (?, ?, ?, ?, ?)",
                                (battle_id, count + 1, kind, by_side, json.dumps(record)))
            if closing is not None:
                db.execute("DELETE FROM pending WHERE battle = ?", (battle_id,))
        return int(count + 1), int(cursor.lastrowid or 0)

    # -- the sides ready to start a battle set up from empty -------------------------------------------
    def ready(self, battle_id: str) -> set[str]:
        """The sides that have said they are ready to start the battle."""
        return {side for (side,) in self._db().execute("SELECT side FROM ready WHERE battle = ?", (battle_id,))}

    def set_ready(self, battle_id: str, side: str) -> None:
        """Keep that a side is ready (one transaction; saying it again changes nothing)."""
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO ready (battle, side) VALUES (?, ?)", (battle_id, side))

    # -- an attack waiting for a choice --------------------------------------------------------------
    def pending(self, battle_id: str) -> PendingRow | None:
        row = self._db().execute("SELECT by_side, attack, entered, answers, step FROM pending WHERE battle = ?",
                                 (battle_id,)).fetchone()
        if row is None:
            return None
        return PendingRow(row[0], json.loads(row[1]), bool(row[2]), int(row[3]), int(row[4]))

    def _no_pending(self, db: sqlite3.Connection, battle_id: str, closing: int | None) -> None:
        """Refuse a write while an attack waits, unless it is that attack's own (at the step it was read at)."""
        row = db.execute("SELECT by_side, step FROM pending WHERE battle = ?", (battle_id,)).fetchone()
        if row is None and closing is None:
            return
        if row is None or closing is None or int(row[1]) != closing:
            raise ConflictError("an attack waiting for a choice changed or holds the battle while this was asked; "
                                "fetch it again and retry")

    def open_pending(self, battle_id: str, expected: tuple[int, int], by_side: str, attack: dict[str, Any],
                     entered: bool) -> PendingRow:
        """Keep an attack that waits for a choice, as one transaction, if the battle is still at the ``expected``
        version and holds no other."""
        step = 1 + secrets.randbelow(FIRST_STEPS)
        with self._write() as db:
            if db.execute("SELECT 1 FROM pending WHERE battle = ?", (battle_id,)).fetchone() is not None:
                raise ConflictError("another attack is already waiting for a choice on this battle")
            now = self._version(db, battle_id)
            if now != expected:
                raise ConflictError(f"the battle changed while this attack was made ({now[0]} actions now, "
                                    f"{expected[0]} before); fetch it again and retry")
            db.execute("INSERT INTO pending (battle, by_side, attack, entered, answers, step) VALUES "
                       "(?, ?, ?, ?, 0, ?)", (battle_id, by_side, json.dumps(attack), int(entered), step))
        return PendingRow(by_side, attack, entered, 0, step)

    def answer_pending(self, battle_id: str, step: int, attack: dict[str, Any], answers: int) -> PendingRow:
        """The pending attack with one more choice made, if it is still at ``step`` (two answers racing: the
        later one finds it changed)."""
        with self._write() as db:
            cursor = db.execute("UPDATE pending SET attack = ?, answers = ?, step = step + 1 WHERE battle = ? AND "
                                "step = ?", (json.dumps(attack), answers, battle_id, step))
            if cursor.rowcount != 1:
                raise ConflictError("the attack waiting for a choice changed while this answer was given; fetch "
                                    "the battle again and retry")
            row = db.execute("SELECT by_side, entered FROM pending WHERE battle = ?", (battle_id,)).fetchone()
        return PendingRow(row[0], attack, bool(row[1]), answers, step + 1)

    def withdraw_pending(self, battle_id: str, step: int) -> None:
        """Remove the pending attack (withdrawn by its side), if it is still at ``step``."""
        with self._write() as db:
            cursor = db.execute("DELETE FROM pending WHERE battle = ? AND step = ?", (battle_id, step))
            if cursor.rowcount != 1:
                raise ConflictError("the attack waiting for a choice changed while it was withdrawn; fetch the "
                                    "battle again")

    # -- when a battle was last touched, and battles left untouched removed ---------------------------
    def touch(self, battle_id: str, at: str | None = None) -> None:
        """Keep that the battle was used now (``at``: a time as ``2026-12-01T23:04:00Z``, for tests); a battle
        never touched counts from its creation."""
        with self._write() as db:
            db.execute("INSERT INTO touched (battle, at) VALUES (?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%SZ', "
                       "'now'))) ON CONFLICT (battle) DO UPDATE SET at = excluded.at", (battle_id, at))

    def touched(self, battle_id: str) -> str | None:
        """When the battle was last used (its creation where it never was since), or None for no such battle."""
        row = self._db().execute("SELECT coalesce(t.at, b.created) FROM battles b LEFT JOIN touched t ON "
                                 "t.battle = b.id WHERE b.id = ?", (battle_id,)).fetchone()
        return None if row is None else str(row[0])

    def delete_untouched(self, before: str) -> int:
        """Remove every battle last used before ``before`` (a time as :meth:`touch` keeps it), with its tokens,
        actions, ready sides and pending attack, in one transaction: how many were removed."""
        with self._write() as db:
            old = [battle for (battle,) in db.execute(
                "SELECT b.id FROM battles b LEFT JOIN touched t ON t.battle = b.id WHERE coalesce(t.at, b.created) "
                "< ?", (before,))]
            for table, column in (("tokens", "battle"), ("actions", "battle"), ("ready", "battle"),
                                  ("pending", "battle"), ("touched", "battle"), ("battles", "id")):
                db.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(b,) for b in old])
        return len(old)
