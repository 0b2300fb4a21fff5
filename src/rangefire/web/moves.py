"""Moves, marks and set-up edits over HTTP: what a side does to the table between attacks (DC-10, AL-10, BU-9,
SW-9; set-up DC-10.4, AL-10.3, BU-9.3, SW-9.2).

Each request goes one way: its body read into the library's value (:class:`~rangefire.core.Move`,
:class:`~rangefire.core.Mark`, :class:`~rangefire.core.Edit`; a bad value is 422 ``invalid_input`` naming the
field), who may make it checked (a side's token, its own units, nothing pending), the rules asked
(``Ruleset.check_move``, ``Ruleset.check_mark``, :func:`rangefire.rulesets.setup.check_edit`), then, unless it
is only a question (``check``), recorded as one action of :mod:`rangefire.record` in one transaction, as attacks
are (:meth:`rangefire.web.ledger.Ledger.record`), which the stored battle replays with :func:`rangefire.record.play`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rangefire.core import FORMAT, Edit, IllegalMoveError, Mark, Move, MoveCheck, RangefireError, Refusal, Ruleset
from rangefire.core.moves import EDIT_OPS, move_number
from rangefire.record import edit_action, mark_action, move_action, start_action
from rangefire.rulesets import find_ruleset
from rangefire.web.bodies import CreateBody, EditBody, MarkBody, MoveBody
from rangefire.web.errors import ApiError
from rangefire.web.ledger import Ledger
from rangefire.web.loaded import Loaded, acting_side
from rangefire.web.pending import not_pending
from rangefire.web.store import ConflictError, Role

#: The fields of a move, as :meth:`rangefire.core.Move.from_dict` reads them.
MOVE_FIELDS = ("unit", "to", "by", "facing", "turn", "formation", "run", "mission")
#: The longest name a move, a mark or an edit gives (a unit, a state, a formation, a section, an id).
MAX_NAME = 64


def invalid(message: str, fields: Sequence[str], default: str) -> ApiError:
    """Bad input (422 ``invalid_input``), its ``path`` the field the message begins with (``to: ...``,
    ``to[1]: ...``), else ``default``."""
    head = message.split(":", 1)[0] if ":" in message else ""
    path = head if head.split("[", 1)[0] in fields else default
    return ApiError(422, "invalid_input", message, path=path)


def illegal(refusals: Sequence[Refusal]) -> ApiError:
    """A move, mark or edit the rules refuse: 409 ``illegal_move``, the first clause and every refusal."""
    shown = [{"clause": r.clause, "reason": r.reason} for r in refusals]
    return ApiError(409, "illegal_move", "illegal move: " + "; ".join(str(r) for r in refusals),
                    clause=shown[0]["clause"] if shown else None, refusals=shown)


def _name(value: Any, field: str, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_NAME:
        raise ApiError(422, "invalid_input", f"{field}: must name {what} (1 to {MAX_NAME} characters), got "
                                             f"{_short(value)}", path=field)
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_move(body: MoveBody) -> Move:
    """The move a body asks for: each number held to what a scenario's may be (finite, at most 10^6, at most
    40 decimal places), each name bounded; a bad value named by its field."""
    data = {name: getattr(body, name) for name in MOVE_FIELDS if getattr(body, name) is not None}
    _name(data.get("unit"), "unit", "the unit that moves")
    for name in ("formation", "mission"):
        if name in data:
            _name(data[name], name, f"the {name}")
    try:
        for name in ("to", "by"):
            point = data.get(name)
            if isinstance(point, list) and len(point) == 2:
                for i, value in enumerate(point):
                    move_number(value, f"{name}[{i}]")
        for name in ("facing", "turn"):
            if name in data:
                move_number(data[name], name)
        return Move.from_dict(data)
    except RangefireError as exc:
        default = "by" if "(to)" in str(exc) else "turn" if "facing or a turn" in str(exc) else "unit"
        raise invalid(str(exc), MOVE_FIELDS, default) from None


def _asked(run: Callable[[], MoveCheck], fields: Sequence[str], default: str) -> MoveCheck:
    """The rules' answer; bad input they find (an offset that leaves a coordinate unwritable, a state the game
    does not know) is 422 naming the field. The library's own kinds (an unknown unit, a scenario that does not
    validate) are answered as everywhere."""
    try:
        return run()
    except RangefireError as exc:
        if type(exc) is RangefireError:
            raise invalid(str(exc), fields, default) from None
        raise


def _known(ruleset: Ruleset[Any, Any], battle: Any, uid: str) -> None:
    ids = list(ruleset.unit_ids(battle))
    if uid not in ids:
        shown = ", ".join(ids[:20]) + (" ..." if len(ids) > 20 else "") if ids else "none"
        raise ApiError(404, "unknown_unit", f"unit: {uid!r} is not in this battle (units: {shown})", path="unit")


def _own(ruleset: Ruleset[Any, Any], battle: Any, uid: str, side: str) -> None:
    owner = ruleset.side_of(battle, uid)
    if owner != side:
        raise ApiError(403, "forbidden", f"{uid} is {owner}'s; {side} acts only with its own units", path="unit")


def _answer(ruleset: Ruleset[Any, Any], checked: MoveCheck) -> dict[str, Any]:
    return {"format": FORMAT, **checked.to_dict(), "unit_of_distance": ruleset.move_unit}


def _made(ledger: Ledger, loaded: Loaded, kind: str, side: str, record: Any, checked: MoveCheck) -> dict[str, Any]:
    ruleset = loaded.ruleset
    written = ledger.record(loaded, kind, side, record, checked.after)
    return {"format": FORMAT, "action": written.number, **checked.to_dict(), "unit_of_distance": ruleset.move_unit,
            "battle": ruleset.dump(loaded.shown(checked.after)), "side_to_act": ruleset.side_to_act(checked.after)}


def _acting(ledger: Ledger, loaded: Loaded, role: Role, doing: str) -> str:
    side = acting_side(role)
    not_pending(ledger.store, loaded, doing)
    return side


def move(ledger: Ledger, loaded: Loaded, role: Role, body: MoveBody) -> dict[str, Any]:
    """A move checked (``body.check``: nothing recorded, any token may ask) or made by the side whose unit it is."""
    made = read_move(body)
    ruleset, battle = loaded.ruleset, loaded.state
    side = None if body.check else _acting(ledger, loaded, role, "no unit moves")
    _known(ruleset, loaded.visible, made.unit)  # a card in a hand this side cannot see is not known to it
    if side is not None:
        _own(ruleset, battle, made.unit, side)
    checked = _asked(lambda: ruleset.check_move(battle, made), MOVE_FIELDS, "to")
    if side is None:
        return _answer(ruleset, checked)
    if not checked.is_legal:
        raise illegal(checked.refusals)
    return _made(ledger, loaded, "move", side, move_action(ruleset, made, checked), checked)


def mark(ledger: Ledger, loaded: Loaded, role: Role, body: MarkBody) -> dict[str, Any]:
    """A state set or cleared (BU-9.1), checked or made as a move is."""
    unit = _name(body.unit, "unit", "the unit marked")
    state = _name(body.state, "state", "the state set or cleared")
    if not isinstance(body.on, bool):
        raise ApiError(422, "invalid_input", f"on: must be true or false, got {_short(body.on)}", path="on")
    asked = Mark(unit, state, body.on)
    ruleset, battle = loaded.ruleset, loaded.state
    side = None if body.check else _acting(ledger, loaded, role, "no state is set")
    _known(ruleset, loaded.visible, unit)
    if side is not None:
        _own(ruleset, battle, unit, side)
    checked = _asked(lambda: ruleset.check_mark(battle, asked), ("unit", "state", "on"), "state")
    if side is None:
        return _answer(ruleset, checked)
    if not checked.is_legal:
        raise illegal(checked.refusals)
    return _made(ledger, loaded, "mark", side, mark_action(ruleset, asked, checked), checked)


def read_edit(body: EditBody) -> Edit:
    if body.op not in EDIT_OPS:
        raise ApiError(422, "invalid_input", f"op: must be one of {', '.join(EDIT_OPS)}, got {_short(body.op)}",
                       path="op")
    section = _name(body.section, "section", "a section of the battle (units, terrain, cards)")
    uid = _name(body.id, "id", "the item placed, changed or removed")
    if body.data is not None and not isinstance(body.data, dict):
        raise ApiError(422, "invalid_input", f"data: must be an object (the item's keys), got {_short(body.data)}",
                       path="data")
    try:
        return Edit(body.op, section, uid, body.data or {})
    except RangefireError as exc:
        raise invalid(str(exc), ("op", "section", "id", "data"), "data") from None


#: The key naming a piece's side, by section (terrain belongs to no side: either side edits it).
OWNER_KEYS = {"units": "side", "cards": "owner"}


def _own_item(ruleset: Ruleset[Any, Any], battle: Any, asked: Edit, side: str) -> None:
    """A side places, changes and removes only its own pieces (a piece's side is its own, before and after)."""
    key = OWNER_KEYS.get(asked.section)
    if key is None:
        return
    items = ruleset.dump(battle).get(asked.section) or []
    found = next((item for item in items if isinstance(item, dict) and item.get("id") == asked.id), None)
    owners = [found.get(key)] if found is not None and asked.op != "place" else []
    if key in asked.data or asked.op == "place":
        owners.append(asked.data.get(key))
    for owner in owners:
        if owner != side:
            raise ApiError(403, "forbidden", f"{asked.section} {asked.id}: its {key} is {owner!r}; {side} "
                                             f"places, changes and removes only its own", path=f"data.{key}")


#: A battle served here has at most this many units on its table, and this many corners of terrain in all: the
#: engine answers larger tables (the command line takes them), but a drawing of every target of an attacker among
#: 400 units takes half a minute, and a server's two workers are not held that long by one client. A scenario is
#: held to them when its battle is created, a battle set up from empty at each edit.
MAX_PIECES = 150
MAX_TERRAIN_CORNERS = 3000


def within_bounds(data: Mapping[str, Any], what: str, path: str) -> None:
    """Refuse (422 ``too_large``) a battle (``what``: its scenario, or the battle after an edit, read at ``path``)
    larger than a battle served here may be, counted on its mapping."""
    def listed(key: str) -> list[Any]:
        found = data.get(key)
        return found if isinstance(found, list) else []

    pieces = len(listed("units"))  # a card game's cards are bounded by its own rules' limits (best play)
    if pieces > MAX_PIECES:
        raise ApiError(422, "too_large", f"{what} has {pieces} units; a battle served here has at most "
                                         f"{MAX_PIECES}", path=f"{path}.units" if path == "scenario" else path)
    corners = sum(len(t["polygon"]) for t in listed("terrain")
                  if isinstance(t, dict) and isinstance(t.get("polygon"), list))
    if corners > MAX_TERRAIN_CORNERS:
        raise ApiError(422, "too_large", f"{what}'s terrain has {corners} corners in all; a battle served "
                                         f"here has at most {MAX_TERRAIN_CORNERS}",
                       path=f"{path}.terrain" if path == "scenario" else path)


def _hidden_item(ruleset: Ruleset[Any, Any], battle: Any, seen: Any, asked: Edit) -> bool:
    """Whether the edit names an item of the battle kept from the asking side (a card in another hand)."""
    def ids(state: Any) -> set[Any]:
        items = ruleset.dump(state).get(asked.section) or []
        return {item.get("id") for item in items if isinstance(item, dict)}

    return asked.id in ids(battle) - ids(seen)


def edit(ledger: Ledger, loaded: Loaded, role: Role, body: EditBody) -> dict[str, Any]:
    """A set-up edit checked or made: a side's own pieces, terrain by either side; refused under the game's
    set-up clause once a side to act is recorded. One made takes back every side's readiness to start."""
    from rangefire.rulesets.setup import check_edit

    asked = read_edit(body)
    ruleset, battle, seen = loaded.ruleset, loaded.state, loaded.visible
    side = None if body.check else _acting(ledger, loaded, role, "nothing is placed")
    # a card in a hand this side cannot see is not known to it: owned, checked and refused as an id not in the
    # battle is, never "its owner is ..." (which would tell the other hand's cards one guess at a time) [SW-1.4]
    unseen = seen is not battle and _hidden_item(ruleset, battle, seen, asked)
    if side is not None:
        _own_item(ruleset, seen, asked, side)
    checked = _asked(lambda: check_edit(ruleset, seen if unseen else battle, asked), ("op", "section", "id", "data"),
                     "data")
    if side is None:
        return _answer(ruleset, checked)
    if not checked.is_legal:
        raise illegal(checked.refusals)
    if unseen:  # legal on what this side sees, never on the battle: no edit of a card kept from it
        raise ApiError(422, "invalid_input", f"{asked.section}: {asked.id!r} cannot be used by {side}; give another "
                                             "id [SW-1.4]", path="id", clause="SW-1.4")
    if asked.op != "remove":  # held, as a scenario is when its battle is created, to a battle served here's size
        within_bounds(ruleset.dump(checked.after), "the battle after this edit", "data")
    made = _made(ledger, loaded, "edit", side, edit_action(ruleset, asked, checked), checked)
    # the table changed: a side ready to start said so of the table before it, so each says it again (a battle
    # never starts on a table one side has not seen, DC-10.4); the edit's event has every page read the state
    ledger.store.unset_ready(loaded.row.id)
    return made


# -- a battle set up from empty --------------------------------------------------------------------------------
def empty_scenario(body: CreateBody) -> dict[str, Any]:
    """The scenario of a battle created empty: the game, no unit, the sides named in the order their turns pass
    (recorded as ``turn.order``, DC-9.4, AL-9.3, BU-8.4; swerve's players), the table where given."""
    assert body.game is not None
    if body.example is not None or body.scenario is not None:
        raise ApiError(422, "invalid_request", "give an example, a scenario or a game to set up, only one",
                       path="game")
    ruleset = find_ruleset(body.game)
    sides = list(body.sides or [])
    if len(sides) < 2 or len(set(sides)) != len(sides):
        raise ApiError(422, "invalid_request", f"sides: name two sides or more, each once, got {sides!r}",
                       path="sides")
    data: dict[str, Any] = {"ruleset": ruleset.key}
    if ruleset.key == "swerve":
        if body.table is not None:
            raise ApiError(422, "invalid_request", "table: swerve is played without a table", path="table")
        data.update({"players": {side: {} for side in sides}, "cards": []})
        return data
    data.update({"units": [], "turn": {"number": 1, "order": sides}})
    if ruleset.key == "arcane-legions":
        data["players"] = {side: {} for side in sides}
    if body.table is not None:
        data["table"] = {"width": body.table.width, "depth": body.table.depth}
    return data


def ready(ledger: Ledger, loaded: Loaded, role: Role) -> Loaded:
    """A side says it is ready to start (said again, nothing changes). When every side is, the battle starts: one
    action (``start``, :func:`rangefire.rulesets.setup.start`), refused (409, the set-up clause) while a side has
    placed nothing, and then (as when the start is not written, the battle changed meanwhile) this side's
    readiness is not kept either. The battle as it is after (started: as written, never read back).

    Said twice at one moment (two tabs, a double press), both requests find every side ready and try the start:
    the one whose start is written second finds the battle started by the first and answers it, as a Ready said
    once the battle has started does; never a conflict, and the start is written once."""
    from rangefire.rulesets.setup import in_setup, start

    side = _acting(ledger, loaded, role, "no side starts the battle")
    ruleset, battle, battle_id = loaded.ruleset, loaded.state, loaded.row.id
    if not in_setup(ruleset, battle):
        return loaded
    order = list(loaded.row.sides)
    anew, now = ledger.store.set_ready(battle_id, side)  # written and read at once: the last side to say it starts
    if set(order) - now:
        ledger.publish(battle_id, {"actions": loaded.actions, "kind": "ready", "by": side})
        return loaded
    try:
        after, log = start(ruleset, battle, order)
        return ledger.record(loaded, "start", side, start_action(ruleset, order, log), after).loaded(loaded)
    except ConflictError:  # the battle changed meanwhile: started by this side's other Ready, the answer is that
        started = ledger.load(loaded.row)
        if not in_setup(ruleset, started.state):
            return started
        if anew:  # changed otherwise (a unit placed, a start taken back): no start written, nor this readiness
            ledger.store.unset_ready(battle_id, side)
        raise
    except BaseException as exc:  # no start written (refused, or the request broken off): nor this readiness
        if anew:
            ledger.store.unset_ready(battle_id, side)
        if isinstance(exc, IllegalMoveError):
            raise illegal(exc.refusals) from None
        raise


__all__ = ["MAX_PIECES", "MAX_TERRAIN_CORNERS", "MOVE_FIELDS", "edit", "empty_scenario", "illegal", "invalid", "mark",
           "move", "read_edit", "read_move", "ready", "within_bounds"]
