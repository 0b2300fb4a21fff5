"""How a request reaches the engine: its token read and checked against the battle, its body read within its
bound, and its work run on one of a few threads, the requests past a bound refused rather than queued.

Two ways in: reading a battle and recording actions run on threads of their own (a few at once), and the
engine's questions (targets, advice, drawings, an attack's check and odds) are sized first
(:mod:`rangefire.web.estimate`: refused at once when they would take longer than the server's engine time), then
answered in worker processes (:mod:`rangefire.web.engine`), stopped at that time. A battle's state is never read
behind a question: the threads that size a question and wait on the workers are others than those that read, and
the questions waiting are counted and bounded apart from the reads and actions waiting."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import Request

from rangefire.web.answer import JsonAnswer, json_bytes
from rangefire.web.bodies import MAX_BODY_BYTES, Acting, AttackBody, B, parse_body, read_limited
from rangefire.web.engine import Engine, Job, shared_engine
from rangefire.web.errors import ApiError
from rangefire.web.estimate import Work, refuse_past
from rangefire.web.loaded import AttackAsk, Loaded, for_role
from rangefire.web.service import Battles
from rangefire.web.store import Role, Store

T = TypeVar("T")
log = logging.getLogger("rangefire.web")

#: The engine's time one request may take, in seconds, unless told otherwise (``rangefire serve --engine-seconds``).
ENGINE_SECONDS = 2.0
#: Threads reading battles and recording actions at once, for each of the engine's workers: more than the cores,
#: since an action spends much of its time waiting for the disk (its COMMIT synced), which leaves the interpreter
#: to the others, and the actions that wait together are committed together (:class:`~rangefire.web.store.Store`).
THREADS_PER_WORKER = 4
#: A battle's last use is written down at most this often (seconds): reading it is not a write each time; more
#: often when unused battles are kept only a few hours (:func:`touch_every`).
TOUCH_EVERY = 3600.0


def touch_every(keep_days: float | None) -> float:
    """How often a battle's use is written down when unused battles are kept ``keep_days`` (None: for ever): at
    most :data:`TOUCH_EVERY`, and four times within ``keep_days``, so that a battle in play is never removed."""
    if keep_days is None:
        return TOUCH_EVERY
    return min(TOUCH_EVERY, keep_days * 86400.0 / 4)


def token_of(request: Request, query_too: bool = False) -> str:
    """The battle's token the request presents: ``Authorization: Bearer <token>``, or (``query_too``: an event
    stream, which a browser opens without headers) ``?token=``."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "unauthorized", "Authorization must be 'Bearer <token>'")
        return token.strip()
    given = request.query_params.get("token") if query_too else None
    if given:
        return given
    raise ApiError(401, "unauthorized", "this needs a battle's token: Authorization: Bearer <token>")


def expected_of(request: Request) -> int | None:
    """The count of actions an acting request expects the battle to hold: its body's ``expected_actions``, else
    its ``If-Match`` header (``"12"``, as a state's ``ETag`` gives it); None when it says neither."""
    sent: int | None = getattr(request.state, "expected_actions", None)
    header = request.headers.get("if-match")
    if header is None or sent is not None:
        return sent
    tag = header.strip().removeprefix("W/").strip('"')
    if not tag.isascii() or not tag.isdigit() or len(tag) > 9:
        raise ApiError(400, "invalid_input", f"If-Match must be the battle's ETag (its count of actions, as "
                                             f"\"12\"), not {header[:40]!r}", path="If-Match")
    return int(tag)


def stale(loaded: Loaded, expected: int | None) -> None:
    """Refuse (409 ``stale``) a request made on a battle that has changed since the client last saw it."""
    if expected is not None and expected != loaded.actions:
        raise ApiError(409, "stale", f"the battle holds {loaded.actions} actions, not the {expected} this request "
                                     "was made on: it has changed since (or this request was sent twice); fetch it "
                                     "again and decide afresh", path="expected_actions", actions=loaded.actions)


def ask_of(body: AttackBody) -> AttackAsk:
    """The attack an attack's body asks for."""
    return AttackAsk(body.attacker, body.target, dict(body.choices))


class Gate:
    """The engine's door for the routes: ``workers`` times :data:`THREADS_PER_WORKER` requests read or acted on
    at once and ``workers`` questions at the engine's worker processes, each given ``engine_seconds``; at most
    ``max_waiting`` reads and actions (worked on or waiting their turn) and, apart, at most ``max_waiting``
    questions, the next refused (503)."""

    #: Battles whose last writing-down of use is remembered, at most (the oldest half forgotten past it).
    REMEMBERED = 100_000

    def __init__(self, battles: Battles, store: Store, workers: int, max_waiting: int,
                 engine_seconds: float = ENGINE_SECONDS, engine: Engine | None = None, *, create_rate: int = 0,
                 keep_days: float | None = None) -> None:
        self.battles, self.store, self.max_waiting = battles, store, max_waiting
        self.rate = CreateRate(create_rate, store)
        self.sweeper = Sweeper(store, keep_days)
        self.touch_every = touch_every(keep_days)
        self.engine_seconds = engine_seconds
        self.engine = engine if engine is not None else shared_engine(workers)
        # Reading and recording hold the interpreter's lock but for their waits on the store: a few threads more
        # than cores keep it busy while others wait for the disk (many more would only make each answer slower
        # and starve the event loop that reads requests), and the rest wait in turn.
        self.limiter = anyio.CapacityLimiter(workers * THREADS_PER_WORKER)
        # The threads that size a question and wait for the engine's workers (never those that read a state), as
        # many for each worker: a question answered again from those the engine keeps needs no worker, and one
        # that does waits for a worker to come free, in turn.
        self.engine_limiter = anyio.CapacityLimiter(self.engine.size * THREADS_PER_WORKER)
        # requests worked on or waiting (counted in the event loop: no lock needed): reads and actions, questions
        self.at_threads = 0
        self.at_engine = 0
        self._touched: dict[str, float] = {}
        self._touched_lock = threading.Lock()  # written by the threads that read and those that size questions

    async def in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on one of the threads that read and act; refused (503) past ``max_waiting`` of them."""
        # Each waiting request holds its body (up to 1 MiB) and a connection: past the bound a client is told
        # to come back rather than queued without end.
        if self.at_threads >= self.max_waiting:
            raise ApiError(503, "unavailable", f"{self.at_threads} requests are waiting their turn, the most this "
                                               "server queues; retry in a moment")
        self.at_threads += 1
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args), limiter=self.limiter)
        finally:
            self.at_threads -= 1

    async def at_the_engine(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` (a question sized and asked) on one of the threads that wait for the engine's workers;
        refused (503) past ``max_waiting`` questions, counted apart from the reads and actions."""
        if self.at_engine >= self.max_waiting:
            raise ApiError(503, "unavailable", f"{self.at_engine} questions are waiting for the engine, the most "
                                               "this server queues; retry in a moment")
        self.at_engine += 1
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args), limiter=self.engine_limiter)
        finally:
            self.at_engine -= 1

    def authorised(self, battle_id: str, token: str) -> tuple[Loaded, Role]:
        """The battle loaded, and the role the token gives in it (401 when it gives none); its use written down
        (at most once in :attr:`touch_every`), so that a battle in use is never removed as unused."""
        row = self.battles.row(battle_id)
        role = self.store.role(battle_id, token)
        if role is None:
            raise ApiError(401, "unauthorized", "the token is not one of this battle's")
        now = time.monotonic()
        with self._touched_lock:
            due = now - self._touched.get(battle_id, -self.touch_every) >= self.touch_every
            if due:
                if len(self._touched) > self.REMEMBERED:  # forget the oldest half rather than grow without end
                    for old in sorted(self._touched, key=self._touched.__getitem__)[:self.REMEMBERED // 2]:
                        del self._touched[old]
                self._touched[battle_id] = now
        if due:
            try:
                self.store.touch(battle_id)
            except BaseException:
                with self._touched_lock:  # not written down: the next request tries again
                    self._touched.pop(battle_id, None)
                raise
            self.sweeper.maybe()
        return for_role(self.battles.load(row), role), role

    def created_by(self, request: Request) -> None:
        """Count a battle created by the request's client address (429 past ``create_rate``: :class:`CreateRate`;
        a write to the store: called on a thread), and sweep the battles left unused when the last sweep is
        old."""
        self.rate.take(request.client.host if request.client is not None else "")
        self.sweeper.maybe()

    async def ask(self, request: Request, battle_id: str, kind: str, args: tuple[Any, ...],
                  sizing: Callable[[Loaded], Work], what: str, instead: str) -> JsonAnswer:
        """:meth:`answer` for a question answered in JSON: the answer as the engine keeps it, written (a question
        asked again on the same state is neither worked out nor written again)."""
        found = await self.answer(request, battle_id, kind, args, sizing, what, instead, json_bytes)
        assert isinstance(found, bytes)
        return JsonAnswer(found)

    async def drawn(self, request: Request, battle_id: str, args: tuple[Any, ...], sizing: Callable[[Loaded], Work],
                    what: str, instead: str) -> str:
        """:meth:`answer` for a drawing (its SVG text)."""
        found = await self.answer(request, battle_id, "drawing", args, sizing, what, instead)
        assert isinstance(found, str)
        return found

    async def answer(self, request: Request, battle_id: str, kind: str, args: tuple[Any, ...],
                     sizing: Callable[[Loaded], Work], what: str, instead: str,
                     written: Callable[[Any], bytes] | None = None) -> object:
        """An engine's question (``kind``, with ``args``: :class:`~rangefire.web.engine.Job`) on the battle, for
        the role the request's token gives: sized first (``sizing``; refused, 422 ``too_large``, when it would
        take longer than the engine's time, saying ``what`` it is and what to ask ``instead``), then answered by
        a worker process and stopped at that time; with ``written``, the answer as that writes it."""
        token = token_of(request)
        expected = expected_of(request)

        def prepare() -> Job:
            loaded, role = self.authorised(battle_id, token)
            stale(loaded, expected)
            refuse_past(sizing(loaded), loaded.ruleset.key, self.engine_seconds, what, instead)
            return Job(kind, loaded.ruleset.key, loaded.row, loaded.state, loaded.actions, loaded.version, role,
                       args)

        def asked() -> object:
            return self.engine.ask(prepare(), self.engine_seconds, instead, written)

        return await self.at_the_engine(asked)

    async def run(self, request: Request, battle_id: str, work: Callable[[Loaded, Role], T],
                  query_token: bool = False) -> T:
        """``work`` on the battle, for the role the request's token gives, in a worker thread; refused without
        acting when the request expects another count of actions (:func:`expected_of`)."""
        token = token_of(request, query_token)
        expected = expected_of(request)

        def job() -> T:
            loaded, role = self.authorised(battle_id, token)
            stale(loaded, expected)
            return work(loaded, role)

        return await self.in_thread(job)

    async def body(self, request: Request, model: type[B], limit: int = MAX_BODY_BYTES) -> B:
        """The request's body, read within ``limit`` bytes and validated as ``model``."""
        raw = await read_limited(request.stream(), request.headers.get("content-length"), limit)
        if len(raw) <= 4096:  # an attack's body: read at once
            body = parse_body(raw, model)
        else:
            # a scenario of 40,000 values takes a tenth of a second to read and check: not in the event loop,
            # where it would hold every other request and event stream that long
            body = await self.in_thread(parse_body, raw, model)
        if isinstance(body, Acting):
            request.state.expected_actions = body.expected_actions
        return body


#: Battles one address may create in an hour unless told otherwise (``rangefire serve --create-rate``).
CREATE_RATE = 60
#: Days a battle is kept after its last use unless told otherwise (``rangefire serve --keep-days``).
KEEP_DAYS = 30.0
#: Seconds between two sweeps of the battles left unused.
SWEEP_EVERY = 3600.0


class RetryLater(ApiError):
    """A refusal that says when to come back: ``Retry-After``, in seconds."""

    def __init__(self, error: ApiError, seconds: int) -> None:
        super().__init__(error.status, error.kind, error.message, error.path, error.clause, **error.extra)
        self.retry_after = seconds


class CreateRate:
    """At most ``per_hour`` battles created by one client address in an hour (a bucket of ``per_hour`` that
    fills again at that rate); 0 for no bound. The buckets are kept in the store (:meth:`Store.take_created`),
    so that the bound holds for every worker process serving it, and over a restart; ``clock`` is the time in
    seconds since 1970 (the processes' common one)."""

    def __init__(self, per_hour: int, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.per_hour, self.store, self.clock = per_hour, store, clock

    def take(self, address: str) -> None:
        """Count one battle created by ``address``; refused (429 ``rate_limited``, with the seconds until the
        next one as ``Retry-After``) past the bound."""
        if self.per_hour <= 0:
            return
        left = self.store.take_created(address, self.per_hour, self.clock())
        if left is not None:
            wait = max(1, round((1.0 - left) * 3600.0 / self.per_hour + 0.5))
            raise RetryLater(ApiError(429, "rate_limited", f"this address has created {self.per_hour} battles within "
                                                           f"the hour, the most this server takes; the next may be "
                                                           f"created in {wait} s (a battle is played by its links: "
                                                           "it need not be created again)"), wait)


class Sweeper:
    """Battles left unused for ``keep_days`` removed from the store: at once (when the server starts) and then at
    most once in :data:`SWEEP_EVERY`, in a thread of its own, started by the first request after that time."""

    def __init__(self, store: Store, keep_days: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.store, self.keep_days, self.clock = store, keep_days, clock
        self._lock = threading.Lock()
        self._last = -SWEEP_EVERY
        self.removed = 0

    def sweep(self) -> int:
        """Remove the battles unused for ``keep_days`` now: how many."""
        if self.keep_days is None:
            return 0
        with self._lock:
            self._last = self.clock()
            removed = self.store.remove_unused(self.keep_days)
            self.removed += removed
        if removed:
            log.warning("removed %d battles unused for %g days", removed, self.keep_days)
        return removed

    def maybe(self) -> None:
        """Sweep in a thread of its own when the last sweep is older than :data:`SWEEP_EVERY` (and none runs)."""
        if self.keep_days is None or self.clock() - self._last < SWEEP_EVERY or self._lock.locked():
            return
        self._last = self.clock()
        threading.Thread(target=self._quietly, daemon=True, name="rangefire-sweep").start()

    def _quietly(self) -> None:
        try:
            self.sweep()
        except Exception as exc:  # a store that fails now fails the next request too, where it is answered
            log.error("the battles unused for %g days could not be removed: %s", self.keep_days, exc)
