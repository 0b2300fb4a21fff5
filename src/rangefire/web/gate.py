"""How a request reaches the engine: its token read and checked against the battle, its body read within its
bound, and its work run on one of a few threads, the requests past a bound refused rather than queued."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import Request

from rangefire.web.bodies import MAX_BODY_BYTES, Acting, AttackBody, B, parse_body, read_limited
from rangefire.web.errors import ApiError
from rangefire.web.service import AttackAsk, Battles, Loaded
from rangefire.web.store import Role, Store

T = TypeVar("T")


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
    """The engine's door for the routes: ``workers`` requests worked on at once, at most ``max_waiting`` at the
    engine (worked on or waiting their turn), the next refused (503)."""

    def __init__(self, battles: Battles, store: Store, workers: int, max_waiting: int) -> None:
        self.battles, self.store, self.max_waiting = battles, store, max_waiting
        # The engine's work holds the interpreter's lock: more threads at it than cores only make each answer
        # slower (and starve the event loop that reads requests), so a few run at once and the rest wait in turn.
        self.limiter = anyio.CapacityLimiter(workers)
        self.at_engine = 0  # requests worked on or waiting (counted in the event loop: no lock needed)

    async def in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        # Each waiting request holds its body (up to 1 MiB) and a connection: past the bound a client is told
        # to come back rather than queued without end.
        if self.at_engine >= self.max_waiting:
            raise ApiError(503, "unavailable", f"{self.at_engine} requests are waiting for the engine, the most "
                                               "this server queues; retry in a moment")
        self.at_engine += 1
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args), limiter=self.limiter)
        finally:
            self.at_engine -= 1

    def authorised(self, battle_id: str, token: str) -> tuple[Loaded, Role]:
        """The battle loaded, and the role the token gives in it (401 when it gives none)."""
        row = self.battles.row(battle_id)
        role = self.store.role(battle_id, token)
        if role is None:
            raise ApiError(401, "unauthorized", "the token is not one of this battle's")
        return self.battles.for_role(self.battles.load(row), role), role

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
