"""The HTTP API and the page's files (FastAPI): :func:`create_app` over one SQLite file of battles.

Every route reads its request into a call of :class:`~rangefire.web.service.Battles`, made in a worker thread
through the :class:`~rangefire.web.gate.Gate` (the engine's work never blocks the event loop), and answers its
JSON; the routes are grouped by who may call them (the games, reading a battle, acting in it, its events,
the pages); every error is
``{"format": 1, "error": {"kind", "message", "path", "clause"}}`` with its status (see ``docs/http.md``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rangefire.core import FORMAT, RangefireError
from rangefire.rulesets import RULESETS, find_ruleset
from rangefire.scenario.validation import format_error
from rangefire.web import contract, moves
from rangefire.web.answer import JsonAnswer
from rangefire.web.bodies import (
    MAX_CREATE_BYTES,
    AnswerBody,
    AttackBody,
    CreateBody,
    EditBody,
    EmptyBody,
    EndTurnBody,
    MarkBody,
    MoveBody,
    ResolveBody,
    query_choices,
    schema,
)
from rangefire.web.contract import TOKEN, answers
from rangefire.web.docs import add_docs
from rangefire.web.errors import ROUTER_KINDS, ApiError, from_library, validation_path
from rangefire.web.estimate import work_of
from rangefire.web.events import Broker, TooManyStreams, catch_up, last_event_id
from rangefire.web.games import examples, ruleset_info
from rangefire.web.gate import ENGINE_SECONDS, Gate, RetryLater, ask_of
from rangefire.web.guard import AllowedHosts, Guard
from rangefire.web.loaded import Settings
from rangefire.web.service import MAX_BATTLES, Battles
from rangefire.web.store import Store
from rangefire.web.tally import tally_of

log = logging.getLogger("rangefire.web")

STATIC = Path(__file__).resolve().parent / "static"
BattleId = Annotated[str, PathParam(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
UnitId = Annotated[str | None, Query(min_length=1, max_length=64)]

#: The page's own files only: scripts from files (no inline script, no eval), styles inline allowed (SVG).
PAGE_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
#: A drawing opened on its own runs nothing.
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'"


class SecurityHeaders:
    """Headers on every response: no sniffing of types, no Referer (a battle's link holds its token only in
    the fragment, but a page's address names the battle), no framing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                for name, value in ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
                                    (b"x-frame-options", b"DENY")):
                    if name not in names:
                        headers.append((name, value))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


class HideTokens(logging.Filter):
    """Access logs without tokens: the event stream takes its token in the query (``?token=``), which a
    server's access log (uvicorn's, at level info) would otherwise write down in clear."""

    QUERY_TOKEN = re.compile(r"([?&]token=)[^&\s]*")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.QUERY_TOKEN.sub(r"\1[hidden]", a) if isinstance(a, str) else a
                                for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self.QUERY_TOKEN.sub(r"\1[hidden]", record.msg)
        return True


def hide_tokens_in(logger_name: str = "uvicorn.access") -> None:
    """Put :class:`HideTokens` on a logger once (creating apps again adds none)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, HideTokens) for f in logger.filters):
        logger.addFilter(HideTokens())


class PageFiles(StaticFiles):
    """The page's folder; a server installed without it still serves the API, its files answered 404."""

    async def check_config(self) -> None:
        if self.directory is None or not Path(self.directory).is_dir():
            raise ApiError(404, "not_found", "the page's files are not installed on this server")
        await super().check_config()


def error_response(error: ApiError) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if error.status == 401 else None
    if isinstance(error, RetryLater):
        headers = {"Retry-After": str(error.retry_after)}
    return JSONResponse(error.body(), status_code=error.status, headers=headers)


def create_app(db_path: str | Path, *, static_dir: str | Path | None = None, keepalive: float = 15.0,
               max_streams: int = 1000, streams_per_battle: int = 32, stream_seconds: float = 3600.0,
               max_battles: int | None = MAX_BATTLES, workers: int = 2, max_waiting: int = 256,
               engine_seconds: float = ENGINE_SECONDS, create_rate: int = 0, keep_days: float | None = None,
               allowed_hosts: AllowedHosts | None = None, share_events: bool = False,
               tally_file: str | None = None) -> FastAPI:
    """The API over the battles of ``db_path`` (created when missing), with the page's files from
    ``static_dir`` (the package's ``web/static`` by default); ``workers`` requests are worked on at once.
    Bounds: ``max_battles`` battles kept (None: no bound), ``max_streams`` event streams open (at most
    ``streams_per_battle`` on one battle), each open for ``stream_seconds`` before the browser reopens it;
    ``max_waiting`` requests at the engine (worked on or waiting their turn), the next refused (503).
    ``engine_seconds``: the engine's time one request may take (:class:`~rangefire.web.gate.Gate`); ``create_rate``:
    battles one client address may create in an hour (0: no bound); ``keep_days``: battles unused that long are
    removed, now and every hour (None: kept for ever).
    ``allowed_hosts``: the ``Host`` names answered, any other refused (421); None answers any (``rangefire
    serve`` always gives them: see :class:`~rangefire.web.guard.AllowedHosts`). ``db_path`` may be a PostgreSQL
    address (``postgresql://...``: :class:`~rangefire.web.store.Store`); ``share_events``: the events of the other
    processes serving the same store reach this one's streams, and its theirs (``serve --workers``);
    ``tally_file``: the streams counted with every worker's of the server (:mod:`rangefire.web.tally`), not this
    process's alone. The store is closed when the application shuts down (a server's lifespan): its relay's
    socket removed."""
    hide_tokens_in()
    store = Store(db_path)
    broker = Broker(max_streams, streams_per_battle, stream_seconds, relay=store.relay() if share_events else None,
                    tally=tally_of(tally_file))
    battles = Battles(store, broker.publish, max_battles)
    gate = Gate(battles, store, workers, max_waiting, engine_seconds, create_rate=create_rate, keep_days=keep_days)
    gate.sweeper.sweep()
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            store.close()

    app = FastAPI(title="rangefire", version=str(FORMAT), docs_url=None, redoc_url=None, lifespan=lifespan,
                  description="Ranged combat for tabletop games over HTTP: battles, odds, dice, turns. Every "
                              "error is one model, its kind enumerated per status (docs/http.md).")
    contract.describe(app)
    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    app.add_middleware(SecurityHeaders)  # outside the guard: its refusals carry these headers too
    app.state.battles = battles
    app.state.store = store
    app.state.gate = gate
    _error_handlers(app)
    _games(app)
    _reading(app, gate, battles)
    _acting(app, gate, battles)
    _events(app, gate, broker, keepalive)
    add_docs(app)
    _pages(app, Path(static_dir) if static_dir is not None else STATIC)
    return app


def _error_handlers(app: FastAPI) -> None:
    """Every error as ``{"format", "error": {...}}`` with its status: the server's own refusals, the library's
    (a refused attack, bad input), a body or query the models refuse, an unknown route, and a fault."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(RangefireError)
    async def library_error(request: Request, exc: RangefireError) -> JSONResponse:
        return error_response(from_library(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # a query's or a path's value (a body is read by parse_body, in the same words): said as a scenario's
        # value is, never in the validator's words ("String should match pattern ...")
        errors = list(exc.errors())
        if not errors:
            return error_response(ApiError(422, "invalid_request", "the request is not valid"))
        path = validation_path(errors[0].get("loc", ()))
        return error_response(ApiError(422, "invalid_request", format_error(errors[0], path or "request"),
                                       path=path))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        # the router's and the files' refusals, said in our words rather than as the status's name
        kind = ROUTER_KINDS.get(exc.status_code, "invalid_input")
        where = request.url.path[:200]
        allowed = (exc.headers or {}).get("Allow")
        message = {404: f"nothing is served at {where}",
                   405: f"{request.method} is not taken at {where}" + (f" (only {allowed})" if allowed else "")
                   }.get(exc.status_code, str(exc.detail))
        response = error_response(ApiError(exc.status_code, kind, message))
        if allowed:
            response.headers["Allow"] = allowed
        return response

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return error_response(ApiError(500, "internal", "an unexpected error on the server; nothing was recorded "
                                                        "by this request unless it says so"))


def _games(app: FastAPI) -> None:
    """The games and the built-in examples: no token needed."""

    @app.get("/api/rulesets", response_model=None, responses=answers(contract.RulesetsAnswer, token=False))
    def rulesets() -> JsonAnswer:
        """Every game: its options and defaults, dice stages, named outcomes and the player's choices."""
        return JsonAnswer({"format": FORMAT, "rulesets": [ruleset_info(r) for r in RULESETS]})

    @app.get("/api/rulesets/{key}/schema", response_model=None,
             responses=answers(contract.ScenarioSchema, token=False, said="the scenario's JSON Schema"))
    def ruleset_schema(key: Annotated[str, PathParam(max_length=64)]) -> JsonAnswer:
        """The JSON Schema of the game's scenario."""
        return JsonAnswer(find_ruleset(key).battle_model.model_json_schema())

    @app.get("/api/examples", response_model=None, responses=answers(contract.ExamplesAnswer, token=False))
    def example_list() -> JsonAnswer:
        """The built-in example battles (create one with ``{"example": name}``)."""
        return JsonAnswer({"format": FORMAT, "examples": [{"name": e.name, "ruleset": e.ruleset, "title": e.title}
                                                          for e in examples()]})


def _reading(app: FastAPI, gate: Gate, battles: Battles) -> None:
    """A battle created, and what any of its tokens may read: its state, actions, drawing, targets, advice,
    and an attack's check and odds (questions: nothing is recorded)."""

    @app.post("/api/battles", status_code=201, openapi_extra=schema(CreateBody), response_model=None,
              responses=answers(contract.CreatedAnswer, 201, token=False, said="the battle created",
                                example="create"))
    async def create(request: Request) -> JsonAnswer:
        """A new battle from an example or a scenario: one secret link per side and one for spectators,
        shown only in this answer."""
        await gate.in_thread(gate.created_by, request)  # counted in the store: every worker's creations
        b = await gate.body(request, CreateBody, MAX_CREATE_BYTES)
        settings = Settings(undo=b.undo, open_hands=b.open_hands)
        if b.game is not None:  # a battle created empty, set up by its sides
            return JsonAnswer(await gate.in_thread(battles.create, moves.empty_scenario(b), None, b.entered_dice,
                                                   True, settings), status_code=201)
        if b.sides is not None or b.table is not None:
            raise ApiError(422, "invalid_request", "sides and table are given with a game to set up",
                           path="sides" if b.sides is not None else "table")
        return JsonAnswer(await gate.in_thread(battles.create, b.scenario, b.example, b.entered_dice, False,
                                               settings), status_code=201)

    @app.get("/api/battles/{battle_id}", response_model=None, dependencies=TOKEN,
             responses=answers(contract.battle_state(), said="the battle now", example="state"))
    async def state(request: Request, battle_id: BattleId) -> JsonAnswer:
        """The battle now: whose turn, the units, the scenario after every action. Its ``ETag`` is its count of
        actions: an acting request sent with ``If-Match`` set to it acts only on the battle as read here."""
        answer = await gate.run(request, battle_id, battles.state)
        return JsonAnswer(answer, headers={"ETag": f'"{answer["actions"]}"'})

    @app.get("/api/battles/{battle_id}/actions", response_model=None, dependencies=TOKEN,
             responses=answers(contract.ActionsAnswer))
    async def actions(request: Request, battle_id: BattleId) -> JsonAnswer:
        """Every action, as ``rangefire.record`` writes a log's lines."""
        return JsonAnswer(await gate.run(request, battle_id, lambda loaded, role: battles.actions(loaded.row.id)))

    @app.get("/api/battles/{battle_id}/drawing.svg", response_class=Response, dependencies=TOKEN,
             responses=contract.drawing())
    async def drawing(request: Request, battle_id: BattleId, attacker: UnitId = None, target: UnitId = None,
                      choices: str | None = None) -> Response:
        """The battle drawn as ``rangefire show`` draws it; with an attacker its targets marked, with a target
        the line, made with the player's ``choices`` (JSON, as an attack's: ``{"from_side": "left"}``)."""
        chosen = query_choices(choices)
        svg = await gate.drawn(request, battle_id, (attacker, target, chosen),
                             lambda on: work_of(on.ruleset, on.state, attacker, target=target, alone=attacker is None),
                             "this drawing", "draw one attacker's line to one target, or the table alone")
        return Response(svg, media_type="image/svg+xml",
                        headers={"Content-Security-Policy": SVG_POLICY, "Cache-Control": "no-store"})

    @app.get("/api/battles/{battle_id}/targets", response_model=None, dependencies=TOKEN,
             responses=answers(contract.TargetsAnswer))
    async def targets(request: Request, battle_id: BattleId, attacker: UnitId = None,
                      side: UnitId = None) -> JsonAnswer:
        """Who can shoot whom, as ``rangefire targets --json``."""
        return await gate.ask(request, battle_id, "targets", (side, attacker),
                              lambda on: work_of(on.ruleset, on.state, attacker, side),
                              "this list of targets", "ask one unit's targets (?attacker=ID)")

    @app.get("/api/battles/{battle_id}/advice", response_model=None, dependencies=TOKEN,
             responses=answers(contract.AdviceAnswer))
    async def advice(request: Request, battle_id: BattleId, side: UnitId = None,
                     outcome: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
                     refused: bool = False) -> JsonAnswer:
        """Every legal attack of a side (by default the asking side's) ranked by the expected value of an
        outcome, as ``rangefire advise --json``; ``refused=true`` lists the refused pairs with their clauses."""
        return await gate.ask(request, battle_id, "advice", (side, outcome, refused),
                              lambda on: work_of(on.ruleset, on.state, side=side or on.viewer,
                                                alone=not (side or on.viewer)),
                              "this advice", "ask one unit's targets (targets?attacker=ID) and the odds of its "
                                             "attacks")

    @app.post("/api/battles/{battle_id}/check", openapi_extra=schema(AttackBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.check_answer(), said="the check", example="check"))
    async def check(request: Request, battle_id: BattleId) -> JsonAnswer:
        """May this attack be made? As ``rangefire check --json``, with the next choice a player makes."""
        b = await gate.body(request, AttackBody)
        return await gate.ask(request, battle_id, "check", (ask_of(b),),
                              lambda on: work_of(on.ruleset, on.state, b.attacker, target=b.target),
                              "this check", "name its target")

    @app.post("/api/battles/{battle_id}/odds", openapi_extra=schema(AttackBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.odds_answer(), said="the odds", example="odds"))
    async def odds(request: Request, battle_id: BattleId) -> JsonAnswer:
        """The exact odds of an attack, as ``rangefire odds --json``."""
        b = await gate.body(request, AttackBody)
        return await gate.ask(request, battle_id, "odds", (ask_of(b),),
                              lambda on: work_of(on.ruleset, on.state, b.attacker, target=b.target or b.attacker),
                              "these odds", "ask the command line")


def _played(result: dict[str, Any]) -> JsonAnswer:
    """An attack kept waiting for a player's choice is accepted, not yet played: 202 with what it waits for."""
    return JsonAnswer(result, status_code=202 if "pending" in result else 200)


def _acting(app: FastAPI, gate: Gate, battles: Battles) -> None:
    """What a side's token does, for that side only: attacks played (or kept waiting for another side's
    choice), answers, withdrawals, the end of a turn, undo."""

    @app.post("/api/battles/{battle_id}/resolve", openapi_extra=schema(ResolveBody), response_model=None,
              dependencies=TOKEN, responses=answers(
                  contract.played_or_asked(), example="resolve",
                  said="the attack played and recorded; or, asked for (`ask`), the dice to enter next (`next`)",
                  more={202: {"model": contract.PendingAnswer, "description": "the attack waits for a player's "
                                                                              "choice: `pending` says whose"}}))
    async def resolve(request: Request, battle_id: BattleId) -> JsonAnswer:
        """Play an attack (the server rolls, or dice entered where allowed) and record it; where the next choice
        is a player's (a Bushido nomination, a swerve action), 202: the attack waits for it (``pending``)."""
        b = await gate.body(request, ResolveBody)
        return _played(await gate.run(request, battle_id,
                                      lambda loaded, role: battles.resolve(loaded, role, ask_of(b), b.dice, b.ask)))

    @app.post("/api/battles/{battle_id}/answer", openapi_extra=schema(AnswerBody), response_model=None,
              dependencies=TOKEN, responses=answers(
                  contract.resolve_answer(), said="the attack played and recorded", example="answer",
                  more={202: {"model": contract.PendingAnswer, "description": "the attack waits for the next "
                                                                              "choice: `pending` says whose"}}))
    async def answer(request: Request, battle_id: BattleId) -> JsonAnswer:
        """The awaited side's answer to the pending attack's choice: 202 while another choice is awaited, else
        the attack played and recorded (as resolve answers)."""
        b = await gate.body(request, AnswerBody)
        return _played(await gate.run(request, battle_id,
                                      lambda loaded, role: battles.answer(loaded, role, b.answer, b.step)))

    @app.post("/api/battles/{battle_id}/withdraw", openapi_extra=schema(EmptyBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.battle_state(), said="the battle now"))
    async def withdraw(request: Request, battle_id: BattleId) -> JsonAnswer:
        """Take back the pending attack (its side only, while no other side has answered it)."""
        await gate.body(request, EmptyBody)
        return JsonAnswer(await gate.run(request, battle_id, battles.withdraw))

    @app.post("/api/battles/{battle_id}/end-turn", openapi_extra=schema(EndTurnBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.EndTurnAnswer))
    async def end_turn(request: Request, battle_id: BattleId) -> JsonAnswer:
        """End the turn (or, with ``activation``, the activation) of the side to act."""
        b = await gate.body(request, EndTurnBody)
        return JsonAnswer(await gate.run(request, battle_id,
                                         lambda loaded, role: battles.end_turn(loaded, role, b.activation)))

    @app.post("/api/battles/{battle_id}/move", openapi_extra=schema(MoveBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.MoveAnswer))
    async def move(request: Request, battle_id: BattleId) -> JsonAnswer:
        """Move one of the side's units (DC-10, AL-10, BU-9, SW-9) and record it; with ``check``, only ask
        whether the move may be made (nothing recorded)."""
        b = await gate.body(request, MoveBody)
        return JsonAnswer(await gate.run(request, battle_id, lambda loaded, role: battles.move(loaded, role, b)))

    @app.post("/api/battles/{battle_id}/mark", openapi_extra=schema(MarkBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.MoveAnswer))
    async def mark(request: Request, battle_id: BattleId) -> JsonAnswer:
        """Set or clear a state on one of the side's units (BU-9.1) and record it; with ``check``, only ask."""
        b = await gate.body(request, MarkBody)
        return JsonAnswer(await gate.run(request, battle_id, lambda loaded, role: battles.mark(loaded, role, b)))

    @app.post("/api/battles/{battle_id}/edit", openapi_extra=schema(EditBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.MoveAnswer))
    async def edit(request: Request, battle_id: BattleId) -> JsonAnswer:
        """A set-up edit (place, change or remove a unit of the side's own, or terrain) before the battle
        starts; with ``check``, only ask."""
        b = await gate.body(request, EditBody)
        return JsonAnswer(await gate.run(request, battle_id, lambda loaded, role: battles.edit(loaded, role, b)))

    @app.post("/api/battles/{battle_id}/ready", openapi_extra=schema(EmptyBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.battle_state(), said="the battle now"))
    async def ready(request: Request, battle_id: BattleId) -> JsonAnswer:
        """The side is ready to start the battle it set up; when every side is, the battle starts (an action)."""
        await gate.body(request, EmptyBody)
        return JsonAnswer(await gate.run(request, battle_id, battles.ready))

    @app.post("/api/battles/{battle_id}/undo", openapi_extra=schema(EmptyBody), response_model=None,
              dependencies=TOKEN, responses=answers(contract.battle_state(), said="the battle now"))
    async def undo(request: Request, battle_id: BattleId) -> JsonAnswer:
        """Take back the last action still standing (only the side that made it), recorded as an undo action
        naming it; an attack whose dice the server rolled stands, unless the battle was created with
        ``undo: any``."""
        await gate.body(request, EmptyBody)
        return JsonAnswer(await gate.run(request, battle_id, battles.undo))


def _events(app: FastAPI, gate: Gate, broker: Broker, keepalive: float) -> None:
    """The battle's event stream, each open one counted against the broker's bounds."""

    @app.get("/api/battles/{battle_id}/events", response_class=StreamingResponse,
             dependencies=contract.STREAM_TOKEN, responses=contract.event_stream())
    async def events(request: Request, battle_id: BattleId) -> StreamingResponse:
        """Server-sent events: one ``action`` event per action or undo that lands, its ``id`` the count of actions
        (the token may be given as ``?token=``, as EventSource sets no header); reopened with ``Last-Event-ID``,
        the stream first sends what landed since."""
        since = last_event_id(request.headers.get("last-event-id"))
        await gate.run(request, battle_id, lambda loaded, role: role, query_token=True)
        try:
            stream = broker.open(battle_id)
        except TooManyStreams as exc:
            raise ApiError(503, "unavailable", str(exc)) from None
        try:  # read once the stream is open: an action landing meanwhile is queued on it, never lost between
            opening, first = await gate.run(request, battle_id,
                                            lambda loaded, role: catch_up(gate.store, loaded, since),
                                            query_token=True)
        except BaseException:
            broker.close(battle_id, stream)
            raise
        return StreamingResponse(broker.stream(battle_id, stream, request.is_disconnected, keepalive, opening, first),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _pages(app: FastAPI, static: Path) -> None:
    """The home page, a battle's page (its token travels in the link's fragment, never to the server) and their
    files."""

    def page(name: str) -> Response:
        path = static / name
        if not path.is_file():
            raise ApiError(404, "not_found", f"the page {name} is not installed on this server")
        return FileResponse(path, media_type="text/html", headers={"Content-Security-Policy": PAGE_POLICY,
                                                                   "Cache-Control": "no-store"})

    @app.get("/", include_in_schema=False)
    def index() -> Response:
        return page("index.html")

    @app.get("/battle/{battle_id}", include_in_schema=False)
    def battle_page(battle_id: BattleId) -> Response:
        return page("battle.html")

    app.mount("/static", PageFiles(directory=static, check_dir=False), name="static")
