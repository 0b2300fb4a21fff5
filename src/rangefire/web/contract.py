"""The HTTP API's answers as pydantic models: what ``/openapi.json`` says each route answers, status by status,
so that a client generated from it (openapi-python-client, openapi-typescript) has real types.

The engine's outputs are the command line's (:mod:`rangefire.core.schemas`), each game's plan typed by its own
model (:mod:`rangefire.rulesets.outputs`): ``check``, ``odds`` and ``resolve`` answer one model per game, told
apart by ``ruleset``; a battle's state holds the game's own scenario model under ``battle``. The server adds its
own keys (an action's number, the next choice, what is kept from the asking side), typed here.

The routes do not validate their answers against these models as they send them (a state holds a whole
battle); ``tests/web/test_contract.py`` validates every route's real answers, for every game, against the model
its route declares.

Errors are one model with ``kind`` enumerated per status (:func:`error_kinds`), read from the code: each
``ApiError(status, "kind", ...)`` the server raises, the library's errors by :data:`rangefire.web.errors.STATUS`.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import pkgutil
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from fastapi import FastAPI, Security
from fastapi.security import APIKeyQuery, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from rangefire.core import RangefireError
from rangefire.core.exact_floats import as_float
from rangefire.core.schemas import (
    AdviseOutput,
    HiddenOut,
    LogLineOut,
    Probability,
    ProblemOut,
    Rational,
    RefusalOut,
    TargetsOutput,
)
from rangefire.core.types import CHOICE_KINDS
from rangefire.record import KINDS
from rangefire.rulesets import RULESETS
from rangefire.rulesets.outputs import ArcaneRange, BushidoRange, DressRange, game_models
from rangefire.web.docs import SWAGGER

Format = Annotated[Literal[1], Field(description="the version of this shape (rangefire.core.FORMAT)")]
#: A side's name as a battle's ``sides`` list it.
Side = str
#: The sides of a pending attack's answers, and the events, name the acting side as ``by``.
if TYPE_CHECKING:
    GameKey = str
    ChoiceKind = str
    EventKind = str
    StoredAction = BaseModel
else:
    #: A game's key.
    GameKey = Literal[tuple(r.key for r in RULESETS)]
    #: The kinds of a player's choice.
    ChoiceKind = Literal[CHOICE_KINDS]
    #: The kinds of an event: the kinds of action, and what a battle's pages are told besides.
    EventKind = Literal[(*KINDS, "pending", "withdrawn", "ready", "resumed")]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# -- the games and the examples ----------------------------------------------------------------------------------
class OptionRowOut(_Answer):
    """One option of a game: its path under ``options``, the rules' value, its clause and a line of help."""

    path: str
    default: JsonValue
    clause: str
    help: str


class ChoiceOut(_Answer):
    """A choice the rules leave to a player (``Ruleset.choices``): its kind, fixed values (empty where they depend
    on the battle), help and clause."""

    name: str
    kind: ChoiceKind
    allowed: list[str]
    help: str
    clause: str


class RulesetInfo(_Answer):
    """A game: its key, name and aliases, options and defaults, dice stages, named outcomes and events, the
    player's choices, whether its turns have activations and the clause under which the rules choose a target
    (None where the player names it)."""

    key: GameKey
    name: str
    aliases: list[str]
    options: dict[str, JsonValue]
    stages: list[str]
    option_list: list[OptionRowOut]
    outcomes: list[str]
    events: list[str]
    choices: list[ChoiceOut]
    has_activations: bool
    chooses_target: str | None


class RulesetsAnswer(_Answer):
    """``GET /api/rulesets``: every game."""

    format: Format
    rulesets: list[RulesetInfo]


class ScenarioSchema(BaseModel):
    """The JSON Schema (draft 2020-12) of a game's scenario, as pydantic writes it: the scenario's keys under
    ``properties``, its models under ``$defs``."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    title: str
    type: Literal["object"]
    properties: dict[str, JsonValue]
    required: list[str] = Field(default_factory=list)
    defs: dict[str, JsonValue] | None = Field(None, alias="$defs")


class ExampleOut(_Answer):
    """A built-in example battle: create one with ``{"example": name}``."""

    name: str
    ruleset: GameKey
    title: str


class ExamplesAnswer(_Answer):
    format: Format
    examples: list[ExampleOut]


# -- a battle ---------------------------------------------------------------------------------------------------
class SettingsOut(_Answer):
    """How the battle is played over HTTP: ``undo`` fair or any, ``open_hands``."""

    undo: Literal["fair", "any"]
    open_hands: bool


class TokensOut(_Answer):
    """The battle's secret tokens, shown only when it is created: one per side, one for spectators."""

    sides: dict[Side, str]
    spectator: str


class CreatedAnswer(_Answer):
    """``POST /api/battles`` (201): the new battle, its tokens and the page's links (each holding its token in
    the fragment)."""

    format: Format
    id: str
    ruleset: GameKey
    entered_dice: bool
    settings: SettingsOut
    tokens: TokensOut
    links: dict[str, str] = Field(description="the page of each side, and of spectators (key 'spectator')")


class YouOut(_Answer):
    """The role of the token that asks: a side's (its name) or a spectator's."""

    role: Literal["side", "spectator"]
    side: Side | None


class TurnOut(_Answer):
    """The turn: its number, the side whose turn it is (where the game records one), the order of the sides."""

    number: int
    side: Side | None = None
    order: list[Side] | None = None


#: A value of a unit's status row (its stands, wounds "1/4", states, ...).
StatusValue = str | int | bool | None


class UnitOut(_Answer):
    """A unit (a swerve card) of the battle: its side, name and the game's status row (``rangefire show``)."""

    id: str
    side: Side | None
    name: str | None
    status: dict[str, StatusValue] | None


class LastStandingOut(_Answer):
    """The action an undo would take back: its number, side and what it was."""

    number: int
    by: Side
    what: str


class StandsOut(_Answer):
    """Why the last action is not taken back, even by its own side."""

    message: str
    clause: str | None


class LineOfFireOut(_Answer):
    """A line of fire as the drawing shows it: its state and the drawing's words."""

    state: str
    text: str


class OptionOddsOut(_Answer):
    """The odds an answer would give: the game's main outcome's mean, the chance of at least one, each event's."""

    outcome: str
    mean: Rational | None
    mean_float: float | None = as_float(number=True)
    at_least_one: Probability
    at_least_one_float: float = as_float()
    events: dict[str, Probability]
    events_float: dict[str, float] = as_float(each=True)
    exact: bool


class OptionOut(_Answer):
    """What one answer makes of the pending attack: its target, whether the rules allow it (else ``refusals``),
    its range and line of fire where the game measures them, whether more choices follow (``then``), its odds
    (None with ``odds_refused`` beyond the engine's limits)."""

    answer: str
    label: str
    legal: bool
    target: str | None
    refusals: list[RefusalOut] | None = None
    range: DressRange | ArcaneRange | BushidoRange | None = None
    line: LineOfFireOut | None = None
    then: bool | None = None
    odds: OptionOddsOut | None = None
    odds_refused: str | None = None


class AwaitingChoice(_Answer):
    """A pending attack waits for a player's choice: whose (``side``, ``who`` in words), its name, the answers
    (``allowed``, ``labels`` for people, ``options`` worked out), the clause. A side that may not see the answers
    (another player's hand, SW-1.4) is shown ``hidden`` in their place."""

    kind: Literal["choice"]
    name: str
    who: str
    side: Side
    clause: str
    question: str
    allowed: list[str] | None = None
    labels: list[str] | None = None
    options: list[OptionOut] | None = None
    options_left: int | None = None
    hidden: str | None = None


class AwaitingDice(_Answer):
    """Every choice made, a pending attack of a battle whose dice are entered waits for its side's dice."""

    kind: Literal["dice"]
    name: Literal["dice"]
    who: Side
    side: Side
    allowed: list[str]
    labels: list[str]
    clause: None


ChoiceValue = str | list[str]


class PendingOut(_Answer):
    """An attack kept waiting for a choice: who made it, the attack and its choices so far, the answers of another
    side it holds, what it waits for, whose dice, whether its side may still withdraw it, and its ``step`` (an
    answer naming it is taken only by this attack at this point)."""

    by: Side
    attacker: str
    target: str | None
    choices: dict[str, ChoiceValue]
    answers: int
    awaiting: Annotated[AwaitingChoice | AwaitingDice, Field(discriminator="kind")]
    dice: Literal["server", "entered"]
    withdrawable: bool
    step: int


class PendingAnswer(_Answer):
    """202: the attack waits for a player's choice (or its side's dice); nothing is recorded yet."""

    format: Format
    pending: PendingOut


class BattleStateBase(_Answer):
    """``GET /api/battles/{id}``: the battle now, as the asking token sees it (its ``ETag`` the count of
    actions)."""

    format: Format
    id: str
    ruleset: GameKey
    you: YouOut
    turn: TurnOut | None
    side_to_act: Side | None
    sides: list[Side]
    actions: int = Field(description="the count of actions (undos included)")
    entered_dice: bool
    settings: SettingsOut
    battle: dict[str, JsonValue] = Field(description="the scenario now (GET /api/rulesets/{key}/schema)")
    units: list[UnitOut]
    pending: PendingOut | None
    ready: list[Side] = Field(description="the sides ready to start a battle in set-up")
    last_standing: LastStandingOut | None
    last_action_stands: StandsOut | None
    hidden: HiddenOut | None = Field(None, description="what is kept from the asking token")


class NextChoiceOut(_Answer):
    """The next choice a player makes in the attack: whose (``side``), the answers and their labels, the clause,
    and for each answer the attack's choices once it is picked."""

    name: str
    who: str
    side: Side
    allowed: list[str]
    labels: list[str]
    clause: str
    question: str
    choices: list[dict[str, ChoiceValue]]


class DiceQuestion(_Answer):
    """The dice to enter next: the stage, how many dice of how many sides, the faces allowed, the line that asks,
    and why a stage given already is asked again (None where it is not)."""

    stage: str
    count: int
    sides: int
    faces: list[int]
    prompt: str
    problem: str | None


class DiceAsked(_Answer):
    """``resolve`` with ``"ask": true`` and a stage of dice not given: the stage to enter next. Nothing is
    recorded: send the attack again with that stage's dice."""

    format: Format
    next: DiceQuestion


# -- what acting answers ----------------------------------------------------------------------------------------
class EndTurnAnswer(_Answer):
    """The turn (or activation) ended: the turn now, the side to act, the log by clause, the action's number."""

    format: Format
    turn: TurnOut | None
    side_to_act: Side | None
    log: list[LogLineOut]
    action: int


class MoveAnswer(_Answer):
    """A move, a mark or a set-up edit checked (``check``: nothing recorded) or made (``action``, ``battle`` and
    ``side_to_act`` then): whether the rules allow it, their refusals, the distance in ``unit_of_distance``
    (exact as a scenario writes numbers; None where the game measures none) and the log by clause."""

    format: Format
    action: int | None = None
    unit: str
    legal: bool
    refusals: list[RefusalOut]
    distance: int | float | str | None
    log: list[LogLineOut]
    unit_of_distance: str | None
    battle: dict[str, JsonValue] | None = Field(None, description="the scenario after it (made only)")
    side_to_act: Side | None = None


class AdviceAnswer(AdviseOutput):
    """``rangefire advise --json``, worked out on what the asking token sees."""

    hidden: HiddenOut | None = Field(None, description="what is kept from the asking token")


class TargetsAnswer(TargetsOutput):
    """``rangefire targets --json``."""


def _numbered(model: type[BaseModel]) -> type[BaseModel]:
    made: type[BaseModel] = create_model(f"Stored{model.__name__}", __base__=model,
                                         number=(int, Field(description="its number in the battle")),
                                         by=(Side, Field(description="the side that made it")))
    return made


if not TYPE_CHECKING:
    #: Each stored action as ``rangefire.record`` writes a log's line, with its number and side.
    StoredAction = Annotated[Union[tuple(_numbered(m) for m in KINDS.values())],  # noqa: UP007
                             Field(discriminator="action")]


class ActionsAnswer(_Answer):
    """Every action, as ``rangefire.record`` writes a log's lines (``rangefire replay`` reads them)."""

    format: Format
    actions: list[StoredAction]


class BattleEvent(_Answer):
    """The data of an event of the battle's stream (``event: action``, its ``id`` the count of actions): an action
    that landed (its kind as the actions name it) or an undo; ``pending`` for an attack that waits (``awaiting``:
    whose choice); ``withdrawn``; ``ready`` (a side ready in set-up); ``resumed`` (a stream reopened that missed
    nothing). A client fetches the state again on each."""

    actions: int
    kind: EventKind
    by: Side | None
    awaiting: Side | None = None


# -- each game's --------------------------------------------------------------------------------------------------
def _title(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("-"))


def _union(models: Mapping[str, type[BaseModel]]) -> Any:
    """The models as one, told apart by ``ruleset``."""
    return Annotated[Union[tuple(models.values())], Field(discriminator="ruleset")]  # noqa: UP007


def _const(*values: str) -> Any:
    """The type of a value that is one of ``values``."""
    return Literal[values]


@functools.cache
def states() -> dict[str, type[BaseModel]]:
    """The battle state of each game: ``ruleset`` its key, ``battle`` its scenario model."""
    return {r.key: create_model(f"{_title(r.key)}BattleState", __base__=BattleStateBase,
                                ruleset=(_const(r.key), ...), battle=(r.battle_model, ...)) for r in RULESETS}


@functools.cache
def checks() -> dict[str, type[BaseModel]]:
    """``check`` of each game: ``rangefire check --json`` and the next choice a player makes."""
    return {key: create_model(f"{_title(key)}CheckAnswer", __base__=model,
                              next_choice=(NextChoiceOut | None, ...))
            for key, model in game_models("check").items()}


@functools.cache
def odds() -> dict[str, type[BaseModel]]:
    """``odds`` of each game: ``rangefire odds --json``."""
    return dict(game_models("odds"))


@functools.cache
def resolutions() -> dict[str, type[BaseModel]]:
    """``resolve`` of each game: ``rangefire resolve --json`` (``battle`` the game's scenario) and the action's
    number."""
    battles = {r.key: r.battle_model for r in RULESETS}
    return {key: create_model(f"{_title(key)}ResolveAnswer", __base__=model, battle=(battles[key], ...),
                              seed=(int | None, Field(None, description="the command line's seed: over HTTP none "
                                                                        "(the dice are recorded with the action)")),
                              action=(int, Field(description="the attack's number among the battle's actions")))
            for key, model in game_models("resolve").items()}


def battle_state() -> Any:
    return _union(states())


def check_answer() -> Any:
    return _union(checks())


def odds_answer() -> Any:
    return _union(odds())


def resolve_answer() -> Any:
    return _union(resolutions())


def played_or_asked() -> Any:
    """``resolve``'s 200: the attack played, or (``"ask": true``) the dice to enter next."""
    return Union[resolve_answer(), DiceAsked]  # noqa: UP007


# -- errors ---------------------------------------------------------------------------------------------------------
def _raised(source: str) -> set[tuple[int, str]]:
    """The ``(status, kind)`` of each ``ApiError(<status>, "<kind>", ...)`` in a module's source."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        status, kind = node.args[0], node.args[1]
        if (name == "ApiError" and isinstance(status, ast.Constant) and isinstance(status.value, int)
                and isinstance(kind, ast.Constant) and isinstance(kind.value, str)):
            found.add((status.value, kind.value))
    return found


@functools.cache
def error_kinds() -> dict[int, tuple[str, ...]]:
    """Every error kind the server answers, by status, read from the code: each ``ApiError(status, "kind")`` of
    the modules of :mod:`rangefire.web`, the tables of kinds the router and the HTTP reader answer
    (:data:`~rangefire.web.errors.ROUTER_KINDS`, :data:`~rangefire.web.protocol.UNREADABLE`), and the library's
    errors by :data:`~rangefire.web.errors.STATUS` (any other library error is a 400 of its own kind, the base
    class's ``invalid_input``)."""
    import rangefire.web
    from rangefire.web.errors import ROUTER_KINDS, STATUS
    from rangefire.web.protocol import UNREADABLE

    pairs: set[tuple[int, str]] = {(400, RangefireError.kind)}
    pairs |= {(status, klass.kind) for klass, status in STATUS}
    pairs |= {(status, kind) for status, kind in {**ROUTER_KINDS, **UNREADABLE}.items()}
    for info in pkgutil.iter_modules(rangefire.web.__path__, "rangefire.web."):
        module = importlib.import_module(info.name)
        loader = getattr(module, "__loader__", None)
        source = loader.get_source(info.name) if loader is not None and hasattr(loader, "get_source") else None
        if source:
            pairs |= _raised(source)
    statuses: dict[int, set[str]] = {}
    for status, kind in pairs:
        statuses.setdefault(status, set()).add(kind)
    return {status: tuple(sorted(kinds)) for status, kinds in sorted(statuses.items())}


class ErrorDetailOut(_Answer):
    """What went wrong: its ``kind`` (stable; enumerated per status), a message, where in the request (``path``) and
    the rule (``clause``); besides them, where they apply: every problem of a scenario or a body (``problems``), the
    rules' refusals (``refusals``), the choice at fault, the source of a scenario, the side awaited
    (``awaiting``), the answers allowed, the count of actions now (``actions``, a stale request), the attack that
    waits (``pending``)."""

    kind: str
    message: str
    path: str | None
    clause: str | None
    source: str | None = None
    problems: list[ProblemOut] | None = None
    refusals: list[RefusalOut] | None = None
    choice: str | None = None
    awaiting: Side | None = None
    allowed: list[str] | None = None
    actions: int | None = None
    pending: PendingOut | None = None


class ErrorAnswer(_Answer):
    """Every error: ``{"format": 1, "error": {...}}`` with its status."""

    format: Format
    error: ErrorDetailOut


@functools.cache
def error_models() -> dict[int, type[BaseModel]]:
    """The error of each status, its ``kind`` one of that status's (:func:`error_kinds`)."""
    models: dict[int, type[BaseModel]] = {}
    for status, kinds in error_kinds().items():
        detail = create_model(f"Error{status}Detail", __base__=ErrorDetailOut, kind=(_const(*kinds), ...))
        models[status] = create_model(f"Error{status}", __base__=ErrorAnswer, error=(detail, ...))
    return models


#: Statuses no route without a token answers (nothing is acted on, no side named).
TOKEN_ONLY = (401, 403, 409)


def error_responses(token: bool) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route: each error status it may answer, with its model (a route taking no token
    answers none of :data:`TOKEN_ONLY`)."""
    from http import HTTPStatus

    return {status: {"model": model, "description": f"{HTTPStatus(status).phrase}: the error's kind says why"}
            for status, model in error_models().items() if token or status not in TOKEN_ONLY}


# -- the routes' declarations ----------------------------------------------------------------------------------------
#: The battle's token, ``Authorization: Bearer <token>``: a side's (it acts for that side) or the spectators'.
BEARER = HTTPBearer(scheme_name="battleToken", auto_error=False, bearerFormat="a battle's secret token",
                    description="A battle's token, as its creation answered it: one per side (acting for that side) "
                                "and one for spectators (reading only). Each route checks it itself: none, or one "
                                "not the battle's, is 401 unauthorized.")
#: An event stream's token in its address (``?token=``): a browser's EventSource sets no header.
QUERY_TOKEN = APIKeyQuery(name="token", scheme_name="eventStreamToken", auto_error=False,
                          description="The battle's token in the event stream's address (a browser's EventSource "
                                      "sends no header); access logs write it as token=[hidden].")
#: The dependencies of a route that needs a battle's token (they only describe it: the route checks it).
TOKEN = [Security(BEARER)]
STREAM_TOKEN = [Security(BEARER), Security(QUERY_TOKEN)]


@functools.cache
def examples() -> dict[str, dict[str, Any]]:
    """The examples of the main routes' answers (``web/swagger/examples.json``: each one a real answer about a
    built-in example, written by ``tests/web/test_contract.py``), by route name; none where the file is
    missing."""
    path = SWAGGER / "examples.json"
    if not path.is_file():
        return {}
    found: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return found


def answers(model: Any, status: int = 200, *, token: bool = True, said: str = "the answer",
            example: str | None = None, more: Mapping[int | str, dict[str, Any]] | None = None
            ) -> dict[int | str, dict[str, Any]]:
    """A route's ``responses``: its answer (``model`` at ``status``, with the examples named ``example`` where
    there are any), ``more`` answers, and every error status it may answer (:func:`error_responses`)."""
    answer: dict[str, Any] = {"model": model, "description": said}
    if example is not None:  # put in once the description is made (FastAPI's would leave out every null)
        answer[SHOWN] = example
    return {status: answer, **(more or {}), **error_responses(token)}


#: The key of a route's answer naming its examples, until :func:`describe` puts them in.
SHOWN = "x-examples-named"


def _examples(spec: dict[str, Any]) -> None:
    """Each answer's examples, by the name its route gave (:func:`answers`)."""
    for operations in spec["paths"].values():
        for operation in operations.values():
            for response in operation["responses"].values():
                name = response.pop(SHOWN, None)
                shown = examples().get(name or "")
                if shown:
                    response["content"]["application/json"]["examples"] = {
                        key: {"summary": item["summary"], "value": item["value"]} for key, item in shown.items()}


def event_stream() -> dict[int | str, dict[str, Any]]:
    """The event stream's ``responses``: ``text/event-stream``, each event's ``data`` a :class:`BattleEvent` (as
    FastAPI describes a stream of events: OpenAPI 3.2's ``itemSchema``)."""
    item = {"type": "object", "required": ["data"], "properties": {
        "event": {"type": "string", "const": "action"},
        "id": {"type": "string", "description": "the battle's count of actions once the event landed"},
        "retry": {"type": "integer", "minimum": 0},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"$ref": "#/components/schemas/BattleEvent"}}}}
    said = ("the battle's events as they come: first `retry: 2000` and the count of actions it starts at (`id: N`, "
            "no event), then, for each action that lands, `event: action` with `id` its count of actions and `data` "
            "a BattleEvent (JSON); a `: keep-alive` comment every 15 seconds. Reopened with `Last-Event-ID`, the "
            "stream first sends what landed since.")
    return {200: {"description": said, "content": {"text/event-stream": {
        "schema": {"type": "string", "description": "server-sent events"}, "itemSchema": item}}},
        **error_responses(True)}


def drawing() -> dict[int | str, dict[str, Any]]:
    return {200: {"description": "the drawing (SVG): every unit, model or card a `<g class=\"unit\" "
                                 "data-unit=\"<id>\" data-side=\"<side>\">`",
                  "content": {"image/svg+xml": {"schema": {"type": "string", "contentMediaType": "image/svg+xml"}}}},
            **error_responses(True)}


def _short_names(spec: dict[str, Any]) -> dict[str, Any]:
    """The description with each game's scenario models named after the game (``BushidoUnit``), where pydantic
    names models of one name in two games by their modules (``rangefire__rulesets__bushido__scenario__Unit``), and
    each schema titled by its name (a generator names its classes by their titles)."""
    schemas = spec["components"]["schemas"]
    names = {}
    for name in schemas:
        parts = name.split("__")
        if len(parts) > 2 and parts[:2] == ["rangefire", "rulesets"]:
            names[name] = _title(parts[2].replace("_", "-")) + parts[-1]
    text = json.dumps(spec)
    for long, short in names.items():
        assert short not in schemas, short
        text = text.replace(f'"#/components/schemas/{long}"', f'"#/components/schemas/{short}"')
    renamed: dict[str, Any] = json.loads(text)
    kept = renamed["components"]["schemas"]
    renamed["components"]["schemas"] = {names.get(name, name): {**value, "title": names.get(name, name)}
                                        if isinstance(value, dict) and value else value
                                        for name, value in kept.items()}
    return renamed


def _bodies(spec: dict[str, Any]) -> None:
    """Each request body's model among the schemas, referred to by name (the routes describe their bodies whole,
    as :func:`rangefire.web.bodies.schema` gives them, its models under ``$defs``)."""
    schemas = spec["components"]["schemas"]
    for operations in spec["paths"].values():
        for operation in operations.values():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if not content or "title" not in content.get("schema", {}):
                continue
            text = json.dumps(content["schema"]).replace('"#/$defs/', '"#/components/schemas/')
            body: dict[str, Any] = json.loads(text)
            for name, model in body.pop("$defs", {}).items():
                assert schemas.get(name, model) == model, name
                schemas[name] = model
            assert schemas.get(body["title"], body) == body, body["title"]
            schemas[body["title"]] = body
            content["schema"] = {"$ref": f"#/components/schemas/{body['title']}"}


def describe(app: FastAPI) -> None:
    """The app's OpenAPI description, made once: FastAPI's, with what its routes cannot declare (the data of the
    event stream's events, :class:`BattleEvent`, among the schemas)."""
    made = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        spec = made()
        found = BattleEvent.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        schemas.update(found.pop("$defs", {}))
        schemas["BattleEvent"] = found
        _bodies(spec)
        _examples(spec)
        app.openapi_schema = _short_names(spec)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


__all__ = ["BEARER", "QUERY_TOKEN", "STREAM_TOKEN", "TOKEN", "ActionsAnswer", "AdviceAnswer", "BattleEvent",
           "BattleStateBase", "CreatedAnswer", "DiceAsked", "DiceQuestion", "EndTurnAnswer", "ErrorAnswer",
           "ErrorDetailOut", "ExamplesAnswer", "MoveAnswer", "PendingAnswer", "PendingOut", "RulesetsAnswer",
           "ScenarioSchema", "TargetsAnswer", "answers", "battle_state", "check_answer", "checks", "describe",
           "drawing", "error_kinds", "error_models", "error_responses", "event_stream", "examples", "odds",
           "odds_answer", "played_or_asked", "resolutions", "resolve_answer", "states"]
