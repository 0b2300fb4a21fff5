"""Battles kept in PostgreSQL (psycopg 3): the SQL of :class:`rangefire.web.store.Store` on PostgreSQL's
connections, for several worker processes (or machines) sharing one store.

Every write is one transaction that first locks its battle's row (``SELECT ... FOR UPDATE``), so that two
processes acting on one battle take turns as two threads on a SQLite file do; creating a battle under a bound
of battles, and the schema's steps at start, take one advisory lock instead. An action is answered only once
its transaction has committed.

Connections are kept for reuse (one per thread at work, at most :data:`IDLE` idle); one found closed by the
database (a restart) is dropped before use. A request whose connection is lost mid-way is answered 503
``unavailable`` (:class:`~rangefire.web.store.UnavailableError`): nothing was recorded unless a retry finds it
so (an acting request sent again with its ``expected_actions`` is refused as stale if it was).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import select
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from rangefire.web import migrations
from rangefire.web.relay import Deliver, decode, encode
from rangefire.web.store import Store, StoreError, Tx, UnavailableError

try:
    import psycopg
    from psycopg import pq
except ImportError:  # pragma: no cover - said when a PostgreSQL store is asked for
    psycopg = None  # type: ignore[assignment]

log = logging.getLogger("rangefire.web")

#: Idle connections kept for reuse at most (one per thread at work is opened as needed): about as many as a worker
#: process has threads at the store, so that a busy server does not open and close one per request.
IDLE = 16
#: Seconds to wait for the database to answer a new connection.
CONNECT_SECONDS = 5
#: The advisory lock of the store as a whole (creating under a bound, the schema's steps).
STORE_LOCK = 0x72616E6765  # "range"
#: The channel the workers' events travel on.
CHANNEL = "rangefire_events"


#: A password given in an address's query (``?password=``, which libpq takes), or as a key=value of it.
QUERY_PASSWORD = re.compile(r"(?i)(password=)([^&\s]*)")


def readable(address: str) -> bool:
    """Whether ``address`` can be read as an address at all (a broken ``[::1`` host cannot)."""
    try:
        urlsplit(address).port  # noqa: B018 - reading the port is what checks the host and port
    except ValueError:
        return False
    return True


def shown(address: str) -> str:
    """The address without its password (before the ``@`` or in the query), as it is printed or said in an
    error; an address that cannot be read is not repeated at all."""
    if not readable(address):
        return "the PostgreSQL address given (it cannot be read as one)"
    text = QUERY_PASSWORD.sub(r"\1***", address)
    parts = urlsplit(text)
    if parts.password is None:
        return text
    netloc = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{netloc[-1]}"))


def secrets_of(address: str) -> tuple[str, ...]:
    """Every way the address's passwords may be written, longest first: hidden in whatever a driver says."""
    found = [m.group(2) for m in QUERY_PASSWORD.finditer(address)]
    if readable(address) and urlsplit(address).password:
        found.append(urlsplit(address).password or "")
    return tuple(sorted({w for f in found for w in (f, unquote(f)) if w}, key=len, reverse=True))


def _reason(exc: BaseException, hide: tuple[str, ...] = ()) -> str:
    text = str(exc).strip().splitlines()
    reason = text[0] if text else type(exc).__name__
    for secret in hide:
        reason = reason.replace(secret, "***")
    return reason


def _unavailable(exc: BaseException, hide: tuple[str, ...] = ()) -> UnavailableError:
    error = UnavailableError(f"the battles database cannot be reached ({_reason(exc, hide)}); retry in a moment")
    error.reason = _reason(exc, hide)
    return error


class PgStore(Store):
    """The battles of one PostgreSQL database, its address ``postgresql://user@host/name`` (libpq's)."""

    def __init__(self, where: str | Path = "") -> None:
        if psycopg is None:
            raise StoreError("a PostgreSQL store needs psycopg 3: pip install 'rangefire[postgres]'")
        self.address = str(where)
        self.where = shown(self.address)
        self.hide = secrets_of(self.address)
        if not readable(self.address):
            raise StoreError(f"{self.where}: the address is not one of PostgreSQL's "
                             "(postgresql://user@host:port/name)")
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._relay: PgRelay | None = None
        try:
            with self._writing() as tx:
                tables = {row[0] for row in tx.all("SELECT tablename FROM pg_tables WHERE schemaname = "
                                                   "current_schema()")}
                migrations.apply(tx.rows, "postgresql", tables, lambda table: {
                    row[0] for row in tx.all("SELECT column_name FROM information_schema.columns WHERE "
                                             "table_schema = current_schema() AND table_name = ?", (table,))})
        except UnavailableError as exc:
            raise StoreError(f"{self.where}: cannot open the battles database: {exc.reason}") from None
        except psycopg.Error as exc:
            raise StoreError(f"{self.where}: cannot open the battles database: {_reason(exc, self.hide)}") from None

    # -- connections -------------------------------------------------------------------------------
    def connect(self) -> Any:
        """A new connection, in autocommit (each transaction is begun and ended by the store), each statement
        prepared on it the first time it runs (the store runs the same few again and again: the database parses
        and plans each once per connection, not once in five runs)."""
        try:
            return psycopg.connect(self.address, autocommit=True, connect_timeout=CONNECT_SECONDS,
                                   application_name="rangefire", prepare_threshold=0)
        except psycopg.Error as exc:
            raise _unavailable(exc, self.hide) from None

    def _take(self) -> Any:
        """An idle connection still open (one the database has closed, as on a restart, has something to read
        while idle: dropped), else a new one."""
        while True:
            with self._lock:
                db = self._idle.pop() if self._idle else None
            if db is None:
                return self.connect()
            if not db.closed and not select.select([db.fileno()], [], [], 0)[0]:
                return db
            with contextlib.suppress(Exception):
                db.close()

    def _give_back(self, db: Any) -> None:
        if not db.closed and db.info.transaction_status == pq.TransactionStatus.IDLE:
            with self._lock:
                if len(self._idle) < IDLE:
                    self._idle.append(db)
                    return
        with contextlib.suppress(Exception):
            db.close()

    @contextmanager
    def _lease(self) -> Iterator[Any]:
        db = self._take()
        try:
            yield db
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            with contextlib.suppress(Exception):
                db.close()
            raise _unavailable(exc, self.hide) from None
        except BaseException:
            self._give_back(db)
            raise
        self._give_back(db)

    @contextmanager
    def _reading(self) -> Iterator[Tx]:
        with self._lease() as db:
            yield Tx(db, qmark=False)

    @contextmanager
    def _writing(self, battle_id: str | None = None) -> Iterator[Tx]:
        # in pipeline mode: BEGIN and the lock are sent with the transaction's first read and go to the database
        # in one exchange (each statement still runs after the one before it, the read after the lock is held, so
        # it sees what the writer before committed), and COMMIT is sent alone at the end and its answer awaited
        # before the action is answered
        with self._lease() as db:
            try:
                with db.pipeline() as pipeline:
                    db.execute("BEGIN")
                    if battle_id is None:
                        db.execute("SELECT pg_advisory_xact_lock(%s)", (STORE_LOCK,))
                    else:
                        db.execute("SELECT 1 FROM battles WHERE id = %s FOR UPDATE", (battle_id,))
                    yield _PipelinedTx(db, pipeline)
                    db.execute("COMMIT")
            except BaseException:
                if not db.closed and not db.broken and db.info.transaction_status != pq.TransactionStatus.IDLE:
                    db.execute("ROLLBACK")
                raise

    @contextmanager
    def _counting(self) -> Iterator[Tx]:
        # each statement its own transaction: the count's UPDATE locks its row and reads it as last committed,
        # so no lock of the store as a whole is needed (creating battles takes that one)
        with self._reading() as db:
            yield db

    def close(self) -> None:
        if self._relay is not None:
            self._relay.close()
            self._relay = None
        with self._lock:
            idle, self._idle = self._idle, []
        for db in idle:
            with contextlib.suppress(Exception):
                db.close()

    def relay(self) -> PgRelay:
        self._relay = PgRelay(self)
        return self._relay


class _PipelinedTx(Tx):
    """A transaction's statements sent in pipeline mode: each goes out with the next whose answer is needed (a
    row read); one whose count of rows changed, or whose rows, is asked for is settled (the pipeline synced, the
    transaction still open) before it is answered."""

    def __init__(self, db: Any, pipeline: Any) -> None:
        super().__init__(db, qmark=False)
        self.pipeline = pipeline

    def _settled(self, sql: str, params: Sequence[Any]) -> Any:
        cursor = self._execute(sql, params)
        self.pipeline.sync()
        return cursor

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self._settled(sql, params)
        return list(cursor.fetchall()) if cursor.description is not None else []

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        return int(self._settled(sql, params).rowcount)


class PgRelay:
    """The workers' events through PostgreSQL: each sent with ``NOTIFY`` on :data:`CHANNEL`, heard by every
    worker ``LISTEN``-ing on its own connection (one held open by a thread, opened again after the database
    restarts); a worker's own events are told to its streams already and skipped."""

    def __init__(self, store: PgStore) -> None:
        self.store = store
        self.origin = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self.listening = threading.Event()  # set while LISTEN holds (for the tests)

    def start(self, deliver: Deliver) -> None:
        self._thread = threading.Thread(target=self._listen, args=(deliver,), daemon=True, name="rangefire-listen")
        self._thread.start()

    def _listen(self, deliver: Deliver) -> None:
        while not self._stopped.is_set():
            try:
                with psycopg.connect(self.store.address, autocommit=True, connect_timeout=CONNECT_SECONDS,
                                     application_name="rangefire-listen") as db:
                    db.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    while not self._stopped.is_set():
                        for note in db.notifies(timeout=0.5):
                            found = decode(note.payload)
                            if found is not None and found[0] != self.origin:
                                deliver(found[1], found[2])
            except psycopg.Error as exc:
                self.listening.clear()
                if not self._stopped.is_set():
                    log.warning("the workers' events are not heard (%s); listening again in a moment",
                                _reason(exc, self.store.hide))
                    self._stopped.wait(0.5)

    def send(self, battle_id: str, event: dict[str, Any]) -> None:
        try:
            with self.store._lease() as db:
                db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, encode(battle_id, event, self.origin).decode()))
        except (UnavailableError, psycopg.Error) as exc:  # the action stands; the other workers' pages catch up
            log.warning("an event of battle %s was not told to the other workers (%s)", battle_id,
                        _reason(exc, self.store.hide))

    def close(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=3)
