"""The schema of the battles' store, as a numbered list of steps, one for SQLite and PostgreSQL alike.

Each step is SQL run once, in one transaction with the row that records it in ``schema_steps``; a store opened
applies the steps it lacks, in order, before it serves anything. The few words the two databases say differently
are written as ``{placeholders}`` (:data:`DIALECTS`): an automatic key, a column of bytes, a large whole number,
the time now. A new step is added at the end, never edited once released.

A SQLite file written before the steps were recorded holds tables already: step 1 creates only those missing, and
step 2 is taken as done where its battles have their ``settings``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Step:
    number: int
    what: str
    sql: str


STEPS: tuple[Step, ...] = (
    Step(1, "battles, their tokens, actions, sides ready and pending attacks", """
CREATE TABLE IF NOT EXISTS battles (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    scenario TEXT NOT NULL,
    sides TEXT NOT NULL,
    entered_dice INTEGER NOT NULL,
    created TEXT NOT NULL DEFAULT ({now})
);
CREATE TABLE IF NOT EXISTS tokens (
    battle TEXT NOT NULL REFERENCES battles(id),
    role TEXT NOT NULL CHECK (role IN ('side', 'spectator')),
    side TEXT,
    hash {bytes} NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_by_battle ON tokens(battle);
CREATE TABLE IF NOT EXISTS actions (
    seq {key},
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
    step {big} NOT NULL
)"""),
    Step(2, "a battle's settings (undo, open hands): the defaults for the battles already held",
         "ALTER TABLE battles ADD COLUMN settings TEXT NOT NULL DEFAULT '{{}}'"),
    Step(3, "when a battle was last used (the battles already held: now, so that none is taken for unused)",
         "ALTER TABLE battles ADD COLUMN used TEXT; UPDATE battles SET used = {now}"),
    Step(4, "battles created per client address within the hour, counted for every process serving the store", """
CREATE TABLE IF NOT EXISTS create_rates (
    address TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    counted DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS create_rates_by_time ON create_rates(counted)"""),
)

#: What each database calls the few things they name differently.
DIALECTS: dict[str, dict[str, str]] = {
    "sqlite": {"key": "INTEGER PRIMARY KEY AUTOINCREMENT", "bytes": "BLOB", "big": "INTEGER",
               "now": "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"},
    "postgresql": {"key": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "bytes": "BYTEA", "big": "BIGINT",
                   "now": "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"},
}

RECORD = """CREATE TABLE IF NOT EXISTS schema_steps (
    number INTEGER PRIMARY KEY,
    what TEXT NOT NULL,
    applied TEXT NOT NULL DEFAULT ({now})
)"""


def statements(step: Step, dialect: str) -> list[str]:
    """The step's SQL in the dialect's words, one statement each."""
    text = step.sql.format(**DIALECTS[dialect])
    return [part.strip() for part in text.split(";") if part.strip()]


def latest() -> int:
    return STEPS[-1].number


def apply(execute: Callable[[str, Sequence[Any]], list[tuple[Any, ...]]], dialect: str,
          tables: set[str], columns: Callable[[str], set[str]]) -> list[int]:
    """Apply the steps the store lacks, inside the caller's transaction (which holds the store's write lock):
    ``execute(sql, params)`` runs one statement (``?`` for its parameters) and answers its rows, ``tables`` are
    the tables the store holds and ``columns(table)`` the columns of one. The numbers of the steps applied now."""
    if "schema_steps" not in tables:
        execute(RECORD.format(**DIALECTS[dialect]), ())
        if "battles" in tables and "settings" in columns("battles"):  # written before the steps were recorded
            step = STEPS[1]  # its settings are there (step 1 is run again: it creates only the tables missing)
            execute("INSERT INTO schema_steps (number, what) VALUES (?, ?)", (step.number, step.what))
    done = {int(row[0]) for row in execute("SELECT number FROM schema_steps", ())}
    applied = []
    for step in STEPS:
        if step.number in done:
            continue
        for statement in statements(step, dialect):
            execute(statement, ())
        execute("INSERT INTO schema_steps (number, what) VALUES (?, ?)",
                (step.number, step.what))
        applied.append(step.number)
    return applied
