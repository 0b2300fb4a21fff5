"""What the API does, without HTTP: battles created, their state shown, attacks checked, their odds, attacks
played and recorded, moves made, turns ended, actions undone; who may do each. The routes
(:mod:`rangefire.web.app`) only read requests into these calls and answer with what they return; the benchmark
calls them in-process too.

:class:`Battles` is where a request's work begins, and it goes one way from here: to the modules that do each
part (:mod:`~rangefire.web.attacks`, :mod:`~rangefire.web.moves`, :mod:`~rangefire.web.undo`, the engine's
:mod:`~rangefire.web.questions`), which read and write through the :class:`~rangefire.web.ledger.Ledger` (the
battles' actions and states, kept in memory as they are read and written) and never call back here. What each
asks of the others (who may act, what waits, the battle as a token sees it) is theirs:
:mod:`~rangefire.web.loaded`, :mod:`~rangefire.web.pending`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from rangefire.core import FORMAT, RangefireError, Ruleset
from rangefire.record import end_turn_action
from rangefire.rulesets import battle_from_mapping
from rangefire.scenario import parse_scenario
from rangefire.web import moves, questions
from rangefire.web.attacks import Attacks, DiceNeeded
from rangefire.web.bodies import EditBody, MarkBody, MoveBody
from rangefire.web.dumps import Dumps
from rangefire.web.errors import ApiError
from rangefire.web.games import Example, examples, ruleset_info
from rangefire.web.ledger import CACHED_ACTIONS, CACHED_STATES, Ledger, Publish
from rangefire.web.loaded import AttackAsk, Loaded, Settings, acting_side, for_role, hidden
from rangefire.web.moves import MAX_PIECES, MAX_TERRAIN_CORNERS, within_bounds
from rangefire.web.pending import not_pending, shown
from rangefire.web.store import ActionRow, BattleRow, Role, Store
from rangefire.web.undo import undo, undo_view

#: A battle played over HTTP has at most this many sides (one secret link each).
MAX_SIDES = 16
#: Battles a server keeps by default (each up to a scenario file's size plus its actions): a new one past this
#: is refused (503 ``unavailable``) rather than filling the disk; ``create_app(max_battles=...)`` sets another.
MAX_BATTLES = 10_000

#: Names a side may not take: a battle's links name the sides and the spectators' role beside them.
ROLE_NAMES = frozenset({"spectator", "spectators", "side", "sides"})


class Battles:
    """The battles of a store, as the API serves them."""

    def __init__(self, store: Store, publish: Publish | None = None, max_battles: int | None = MAX_BATTLES) -> None:
        self.store = store
        self.max_battles = max_battles
        self.ledger = Ledger(store, publish)
        self.attacks = Attacks(self.ledger)
        self._dumps = Dumps()  # the states read, written back (a state read again is not written again)

    @property
    def publish(self) -> Publish:
        """How the battle's pages are told of what lands on it (the ledger's, which every write tells)."""
        return self.ledger.publish

    @publish.setter
    def publish(self, publish: Publish) -> None:
        self.ledger.publish = publish

    # -- creating and loading ----------------------------------------------------------------------
    def create(self, scenario: dict[str, Any] | None, example: str | None, entered_dice: bool,
               set_up: bool = False, settings: Settings | None = None) -> dict[str, Any]:
        """A new battle, from an example or a scenario: played in turns from its first side, or (``set_up``: a
        battle created empty, :func:`rangefire.web.moves.empty_scenario`) left in set-up until every side is
        ready; played under ``settings`` (the defaults where none are given)."""
        settings = settings or Settings()
        if (scenario is None) == (example is None):
            raise ApiError(422, "invalid_request", "give either an example (by name) or a scenario, not both",
                           path="example" if example is not None else "scenario")
        if example is not None:
            found = next((e for e in examples() if e.name == example), None)
            if found is None:
                known = ", ".join(e.name for e in examples())
                raise ApiError(404, "not_found", f"no example named {example!r} (examples: {known})",
                               path="example")
            data = parse_scenario(found.text, "yaml", found.name)
            source = found.name
        else:
            assert scenario is not None
            data, source = scenario, "scenario"
            within_bounds(data, "the scenario", "scenario")  # counted on the mapping, before the (costly)
            # validation of its geometry
        ruleset, battle = battle_from_mapping(data, source=source)
        sides = ruleset.sides(battle)
        battle = battle if set_up else _in_turns(ruleset, battle, sides)
        if len(sides) > MAX_SIDES:
            raise ApiError(422, "invalid_request", f"the battle has {len(sides)} sides; a battle served here has "
                                                   f"at most {MAX_SIDES}", path="scenario")
        taken = sorted(set(sides) & ROLE_NAMES)
        if taken:
            raise ApiError(422, "invalid_request", f"a side is named {taken[0]!r}, the name of a role of the "
                                                   "battle's links (the spectators'): a side of that name would "
                                                   "share its link's name; rename the side", path="sides")
        created = self.store.create(ruleset.key, ruleset.dump(battle), sides, entered_dice, self.max_battles,
                                    settings.to_dict())
        links = {side: f"/battle/{created.id}#token={token}" for side, token in created.side_tokens.items()}
        links["spectator"] = f"/battle/{created.id}#token={created.spectator_token}"
        return {"format": FORMAT, "id": created.id, "ruleset": ruleset.key, "entered_dice": entered_dice,
                "settings": settings.to_dict(),
                "tokens": {"sides": created.side_tokens, "spectator": created.spectator_token}, "links": links}

    def row(self, battle_id: str) -> BattleRow:
        row = self.store.battle(battle_id)
        if row is None:
            raise ApiError(404, "not_found", f"no battle {battle_id!r} here")
        return row

    def load(self, row: BattleRow) -> Loaded:
        """The battle's state after its actions (:meth:`rangefire.web.ledger.Ledger.load`)."""
        return self.ledger.load(row)

    def stored(self, battle_id: str) -> tuple[ActionRow, ...]:
        """The battle's stored actions, in order (:meth:`rangefire.web.ledger.Ledger.stored`)."""
        return self.ledger.stored(battle_id)

    @staticmethod
    def for_role(loaded: Loaded, role: Role) -> Loaded:
        """The loaded battle with what ``role`` may see of it (:func:`rangefire.web.loaded.for_role`)."""
        return for_role(loaded, role)

    # -- reading -----------------------------------------------------------------------------------
    def state(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        return self._state(loaded, role)

    def _state(self, loaded: Loaded, role: Role, stored: Sequence[ActionRow] | None = None,
               none_pending: bool = False) -> dict[str, Any]:
        """The battle as ``role`` sees it; ``stored``, its actions when the request has them already (written by
        it: never read back), and ``none_pending`` when it knows that no attack waits (it has just withdrawn it)."""
        loaded = for_role(loaded, role)  # a battle loaded again after an action: as this token sees it
        ruleset, battle = loaded.ruleset, loaded.visible
        turn = getattr(battle, "turn", None)
        rows = {row["id"]: row for row in ruleset.status(battle)}
        units = [{"id": uid, "side": ruleset.side_of(battle, uid), "name": _name(battle, uid),
                  "status": rows.get(uid)} for uid in ruleset.unit_ids(battle)]
        pending = None if none_pending else self.store.pending(loaded.row.id)
        return {"format": FORMAT, "id": loaded.row.id, "ruleset": ruleset.key,
                "you": {"role": role.role, "side": role.side},
                "turn": turn.model_dump(mode="json") if isinstance(turn, BaseModel) else None,
                "side_to_act": ruleset.side_to_act(battle), "sides": list(loaded.row.sides),
                "actions": loaded.actions, "entered_dice": loaded.row.entered_dice,
                "settings": Settings.of(loaded.row).to_dict(),
                "battle": self._dumps.of(ruleset, battle) if loaded.seen is None else ruleset.dump(battle),
                "units": units, "pending": None if pending is None else shown(loaded, pending),
                "ready": [side for side in loaded.row.sides if side in self.store.ready(loaded.row.id)],
                **undo_view(self.ledger, loaded, self.stored(loaded.row.id) if stored is None else stored),
                **hidden(loaded)}

    def actions(self, battle_id: str) -> dict[str, Any]:
        return {"format": FORMAT, "actions": [{**a.record, "number": a.number, "by": a.by_side}
                                              for a in self.stored(battle_id)]}

    # -- the engine's questions (:mod:`rangefire.web.questions`: asked in its worker processes) ----------------
    @staticmethod
    def targets(loaded: Loaded, side: str | None, attacker: str | None) -> dict[str, Any]:
        return questions.targets(loaded, side, attacker)

    @staticmethod
    def advice(loaded: Loaded, role: Role, side: str | None, outcome: str | None, refused: bool) -> dict[str, Any]:
        return questions.advice(loaded, role, side, outcome, refused)

    @staticmethod
    def drawing(loaded: Loaded, attacker: str | None, target: str | None,
                choices: Mapping[str, Any] | None = None) -> str:
        return questions.drawing(loaded, attacker, target, choices)

    @staticmethod
    def check(loaded: Loaded, ask: AttackAsk) -> dict[str, Any]:
        return questions.check(loaded, ask)

    @staticmethod
    def odds(loaded: Loaded, ask: AttackAsk) -> dict[str, Any]:
        return questions.odds(loaded, ask)

    # -- acting ----------------------------------------------------------------------------------------
    def resolve(self, loaded: Loaded, role: Role, ask: AttackAsk, dice: Mapping[str, Sequence[int]] | None,
                asking: bool) -> dict[str, Any]:
        """Play an attack of the asking side, or keep it waiting for a player's choice
        (:meth:`rangefire.web.attacks.Attacks.resolve`)."""
        return self.attacks.resolve(loaded, role, ask, dice, asking)

    def answer(self, loaded: Loaded, role: Role, answer: str, step: int | None = None) -> dict[str, Any]:
        """The awaited side's answer to the pending attack (:meth:`rangefire.web.attacks.Attacks.answer`)."""
        return self.attacks.answer(loaded, role, answer, step)

    def withdraw(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        """The pending attack taken back by its side (:meth:`rangefire.web.attacks.Attacks.withdraw`): the
        battle now, no attack waiting."""
        self.attacks.withdraw(loaded, role)
        return self._state(loaded, role, none_pending=True)

    def end_turn(self, loaded: Loaded, role: Role, activation: bool) -> dict[str, Any]:
        ruleset, battle = loaded.ruleset, loaded.state
        side = acting_side(role)
        not_pending(self.store, loaded, "the turn does not end")
        if activation and not ruleset.has_activations:
            raise ApiError(400, "invalid_input", f"{ruleset.key} has no activations; its turns end whole (send "
                                               "activation false)", path="activation")
        acting = ruleset.side_to_act(battle)
        sides = ruleset.sides(battle)
        ending = acting if acting is not None else (sides[0] if sides else None)  # as the engine takes it
        if ending is not None and ending != side:
            raise ApiError(403, "forbidden", f"it is {ending}'s turn; only {ending} ends it")
        after, log = ruleset.end_activation(battle) if activation else ruleset.end_turn(battle)
        written = self.ledger.record(loaded, "end-turn", side, end_turn_action(log, activation), after)
        turn = getattr(after, "turn", None)
        return {"format": FORMAT, "turn": turn.model_dump(mode="json") if isinstance(turn, BaseModel) else None,
                "side_to_act": ruleset.side_to_act(after), "log": [line.to_dict() for line in log],
                "action": written.number}

    def undo(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        """Take back the last action still standing, by the side that made it (:func:`rangefire.web.undo.undo`):
        the battle after it, as the undo wrote it."""
        stored, written = undo(self.ledger, loaded, role)
        return self._state(written.loaded(loaded), role, stored)

    def move(self, loaded: Loaded, role: Role, body: MoveBody) -> dict[str, Any]:
        """A move checked or made (:func:`rangefire.web.moves.move`)."""
        return moves.move(self.ledger, loaded, role, body)

    def mark(self, loaded: Loaded, role: Role, body: MarkBody) -> dict[str, Any]:
        """A state set or cleared, checked or made (:func:`rangefire.web.moves.mark`)."""
        return moves.mark(self.ledger, loaded, role, body)

    def edit(self, loaded: Loaded, role: Role, body: EditBody) -> dict[str, Any]:
        """A set-up edit checked or made (:func:`rangefire.web.moves.edit`)."""
        return moves.edit(self.ledger, loaded, role, body)

    def ready(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        """A side ready to start the battle it set up (:func:`rangefire.web.moves.ready`): the battle now."""
        return self.state(moves.ready(self.ledger, loaded, role), role)


def _in_turns(ruleset: Ruleset[Any, Any], battle: Any, sides: Sequence[str]) -> Any:
    """A battle served here is played in turns from the start, so that each side acts only in its own: one
    whose scenario records no turn (where the game keeps them) begins at turn 1 of its first side in the
    order of the sides (the side the engine's end of turn would take to be acting)."""
    if not sides or ruleset.side_to_act(battle) is not None:
        return battle
    fields = ruleset.battle_model.model_fields
    data = ruleset.dump(battle)
    first = ruleset.following_side(battle, None)[0]  # the first side of the order with a unit [DC-9.4, AL-9.3]
    if "active_side" in fields:  # a game of activations names the side to act on its own
        data["active_side"] = first
    elif "turn" in fields:
        recorded = data.get("turn")
        data["turn"] = {**(recorded if isinstance(recorded, dict) else {}), "number": 1, "side": first}
    else:
        return battle
    try:
        return battle_from_mapping(data, source="scenario")[1]
    except RangefireError:  # a game whose turn is recorded otherwise: left as its scenario says
        return battle


def _name(battle: Any, uid: str) -> str | None:
    for group in ("units", "cards"):
        for piece in getattr(battle, group, ()) or ():
            if getattr(piece, "id", None) == uid:
                name = getattr(piece, "name", None)
                return str(name) if isinstance(name, str) else None
    return None


__all__ = ["CACHED_ACTIONS", "CACHED_STATES", "MAX_BATTLES", "MAX_PIECES", "MAX_SIDES", "MAX_TERRAIN_CORNERS",
           "ROLE_NAMES", "AttackAsk", "Battles", "DiceNeeded", "Example", "Loaded", "Settings", "examples",
           "ruleset_info"]
