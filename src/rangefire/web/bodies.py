"""Request bodies: read within a size bound (refused as soon as it is passed, before the rest is read), parsed
as the scenario files' JSON is (duplicate keys, depth and number length refused), validated by pydantic."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from rangefire.core import LimitError, ScenarioError
from rangefire.core.errors import problem_data
from rangefire.scenario import MAX_FILE_BYTES, parse_scenario
from rangefire.scenario.validation import error_path, format_errors
from rangefire.web.errors import ApiError, from_library

#: A new battle's body holds a whole scenario: as large as a scenario file may be.
MAX_CREATE_BYTES = MAX_FILE_BYTES
#: Any other body: an attack, its choices and its dice.
MAX_BODY_BYTES = 64 * 1024

Name = Annotated[str, Field(min_length=1, max_length=64)]
ChoiceText = Annotated[str, Field(max_length=64)]
ChoiceValue = ChoiceText | Annotated[list[ChoiceText], Field(max_length=100)]
Face = Annotated[int, Field(strict=True, ge=0, le=1_000_000)]


class Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[1] = 1  # rangefire.core.FORMAT


class TableSize(Body):
    """A table's size, in the game's units (as a scenario's ``table``)."""

    width: Annotated[int | float, Field(gt=0, le=1_000_000, allow_inf_nan=False)]
    depth: Annotated[int | float, Field(gt=0, le=1_000_000, allow_inf_nan=False)]


class CreateBody(Body):
    """A new battle: a built-in example by name, a whole scenario (as a scenario file holds it), or an empty battle
    of a game (``game``) between named ``sides`` (in the order their turns pass), its table optional, to be set up
    by the sides. ``undo``: ``fair`` (an attack whose dice the server rolled stands once they are shown) or ``any``
    (friendly play: any action may be taken back by its side); ``open_hands``: every side sees every hand of
    cards (both players agree to play open)."""

    example: Name | None = None
    scenario: dict[str, Any] | None = None
    game: Name | None = None
    sides: Annotated[list[Name], Field(min_length=1, max_length=16)] | None = None
    table: TableSize | None = None
    entered_dice: StrictBool = False
    undo: Literal["fair", "any"] = "fair"
    open_hands: StrictBool = False


class Acting(Body):
    """A request that acts on a battle: with ``expected_actions``, the count of actions the client last saw
    (the battle state's ``actions``), taken only while the battle still holds that many (else 409 ``stale``,
    nothing done), so that a request sent twice never acts twice. ``If-Match: "<actions>"`` says the same."""

    expected_actions: Annotated[int, Field(strict=True, ge=0, le=10_000_000)] | None = None


class AttackBody(Body):
    """An attack: the attacker, the target (none where the rules choose), the player's choices by name."""

    attacker: Name
    target: Name | None = None
    choices: dict[Name, ChoiceValue] = Field(default_factory=dict, max_length=20)


class ChoicesQuery(Body):
    """The player's choices given in a query (``drawing.svg?choices={"from_side": "left"}``), as an attack's."""

    choices: dict[Name, ChoiceValue] = Field(default_factory=dict, max_length=20)


class ResolveBody(AttackBody, Acting):
    """An attack to play: with ``dice`` entered by stage where the battle allows it; with ``ask``, a stage
    not given is answered with the dice to enter next (``{"next": {...}}``, nothing recorded) instead of an
    error."""

    dice: dict[Name, Annotated[list[Face], Field(max_length=1000)]] | None = Field(default=None, max_length=20)
    ask: StrictBool = False


class AnswerBody(Acting):
    """The awaited side's answer to a pending attack's next choice: one of the ``allowed`` answers its
    ``awaiting`` lists (``"nominate yojimbo"``, ``"defender:pass"``), with the pending attack's ``step``."""

    answer: Annotated[str, Field(min_length=1, max_length=200)]
    #: The pending attack's ``step`` the answer was chosen at: refused (409) when that attack has changed or gone
    #: since, so that an answer never lands on another attack (one made after a withdrawal, or its next choice).
    step: Annotated[int, Field(strict=True, ge=1, le=2**53)] | None = None


class EndTurnBody(Acting):
    activation: StrictBool = False


class EmptyBody(Acting):
    """A request that sends nothing but, where it acts, the count of actions it expects."""


class MoveBody(Acting):
    """A move (DC-10, AL-10, BU-9, SW-9): every field as ``rangefire.core.Move`` reads it, each value checked there
    (a bad one is 422 ``invalid_input`` naming it); with ``check`` nothing is recorded."""

    unit: Any = None
    to: Any = None
    by: Any = None
    facing: Any = None
    turn: Any = None
    formation: Any = None
    run: Any = None
    mission: Any = None
    check: StrictBool = False


class MarkBody(Acting):
    """A state a player sets (``on``) or clears on one of its units (BU-9.1); with ``check`` nothing is recorded."""

    unit: Any = None
    state: Any = None
    on: Any = True
    check: StrictBool = False


class EditBody(Acting):
    """A set-up edit (DC-10.4, AL-10.3, BU-9.3, SW-9.2): ``place``, ``change`` or ``remove`` an item of a section;
    with ``check`` nothing is recorded."""

    op: Any = None
    section: Any = None
    id: Any = None
    data: Any = None
    check: StrictBool = False


B = TypeVar("B", bound=Body)


def too_large(limit: int) -> ApiError:
    return ApiError(413, "too_large", f"the body is larger than {limit} bytes, the most this request takes")


async def read_limited(chunks: AsyncIterator[bytes], declared: str | None, limit: int) -> bytes:
    """The body, refused (413) as soon as its declared length or the bytes read pass ``limit``."""
    if declared is not None:
        if not declared.isascii() or not declared.isdigit() or len(declared) > 20:
            raise ApiError(400, "invalid_input", "Content-Length must be a whole number of bytes")
        if int(declared) > limit:
            raise too_large(limit)
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise too_large(limit)
    return bytes(data)


def parse_body(raw: bytes, model: type[B]) -> B:
    """A body's JSON, checked as a scenario file's is, then validated; an empty body is ``{}``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "invalid_input", "the body is not UTF-8 text") from None
    return _validated(model, _parsed(text, "body") if text.strip() else {}, "body")


#: A query's choices are a few names and values: far less than a body.
MAX_QUERY_CHOICES = 4096


def query_choices(text: str | None) -> dict[str, Any]:
    """The ``choices`` query parameter: JSON text read and checked as an attack body's ``choices`` are."""
    if text is None or not text.strip():
        return {}
    if len(text) > MAX_QUERY_CHOICES:
        raise ApiError(400, "invalid_input", f"choices: {len(text):,} characters; at most {MAX_QUERY_CHOICES:,}")
    return dict(_validated(ChoicesQuery, {"choices": _parsed(text, "choices")}, "query").choices)


def _parsed(text: str, source: str) -> dict[str, Any]:
    """JSON text checked as a scenario file's is (duplicate keys, depth, number length), a mapping, whose every
    key and text is one a battle can keep (:func:`_keepable`)."""
    try:
        data = parse_scenario(text, "json", source=source)
    except LimitError as exc:
        raise from_library(exc) from None
    except ScenarioError as exc:
        raise ApiError(400, "invalid_input", str(exc)) from None
    if _ESCAPES.search(text):  # such a character is only ever written as an escape: most bodies hold none
        _keepable(data, "query" if source == "choices" else source, "choices" if source == "choices" else "")
    return data


#: The escapes that may write U+0000 or half of a surrogate pair (a whole pair, read as one character, passes).
_ESCAPES = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


def _keepable(data: Any, where: str, path: str) -> None:
    """Refuse (400, naming its place) a key or text holding the character U+0000 or half of a surrogate pair (a
    ``\\ud800`` written alone in JSON): neither is a character a battle keeps (PostgreSQL holds no U+0000 in
    text, and UTF-8 writes no half pair), so that such a name is refused here in our words, never failing where
    it is stored or answered."""
    todo: list[tuple[Any, str]] = [(data, path)]
    while todo:
        value, at = todo.pop()
        if isinstance(value, dict):
            for key, inner in value.items():
                place = f"{at}.{key}" if at else str(key)
                _text_keepable(key, where, place)
                todo.append((inner, place))
        elif isinstance(value, list):
            todo.extend((inner, f"{at}[{i}]") for i, inner in enumerate(value))
        else:
            _text_keepable(value, where, at)


def _text_keepable(value: Any, where: str, path: str) -> None:
    if not isinstance(value, str):
        return
    bad = next((c for c in value if c == "\x00" or "\ud800" <= c <= "\udfff"), None)
    if bad is None:
        return
    said = ascii(path)[1:-1] or where
    what = "the character U+0000" if bad == "\x00" else f"half of a surrogate pair (\\u{ord(bad):04x})"
    raise ApiError(400, "invalid_input", f"{where}: {said}: holds {what}, which no name or text of a battle may hold",
                   path=said)


def _validated(model: type[B], data: dict[str, Any], where: str) -> B:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        # as a scenario's errors are said: places in the body only (never the name pydantic gives a union's
        # member), the alternatives of a union in one message
        errors = exc.errors()[:100]
        problems = format_errors(errors, data)[:20]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ApiError(422, "invalid_request", f"{where}: {problems[0]}{more}", path=error_path(errors[0], data),
                       problems=[problem_data(p) for p in problems]) from None


def schema(model: type[Body]) -> dict[str, Any]:
    """The OpenAPI description of a body read by :func:`parse_body` (shown at ``/docs``)."""
    return {"requestBody": {"required": model is not EmptyBody,
                            "content": {"application/json": {"schema": model.model_json_schema()}}}}
