"""What the API does, without HTTP: battles created, their state replayed, attacks checked, their odds, attacks
played and recorded, turns ended, actions undone; who may do each. The routes (:mod:`rangefire.web.app`) only
read requests into these calls and answer with what they return; the benchmark calls them in-process too.

A battle's state is its scenario with its stored actions replayed by :func:`rangefire.record.replay` (the
command line's ``rangefire replay``): each attack checked again and played with its recorded dice. States are
kept in memory under the battle's version (its count of actions and the id of the last one, which no later
action reuses), so a request replays only a battle it has not seen in that version (after a restart). A
battle's stored actions are kept in memory too, read as they are added: a battle's actions are only ever
added (an undo is one more), so a request reads from the store only those after the ones kept, never every
action again.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel

from rangefire.core import (
    FORMAT,
    AskedSource,
    Attack,
    DiceSource,
    EnteredSource,
    Question,
    RangefireError,
    Ruleset,
    SeededSource,
)
from rangefire.core.options import house_rules, option_rows
from rangefire.core.ruleset import hidden_of
from rangefire.record import (
    KINDS,
    Action,
    AttackAction,
    LogError,
    UndoAction,
    attack_action,
    describe,
    end_turn_action,
    replay,
)
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.scenario import parse_scenario
from rangefire.web.dumps import Dumps
from rangefire.web.errors import ApiError, refused
from rangefire.web.pending import attack_data, attack_of, held, other_answer, own_answers, plain, view
from rangefire.web.store import ActionRow, BattleRow, ConflictError, PendingRow, Role, Store

#: A battle played over HTTP has at most this many sides (one secret link each).
MAX_SIDES = 16
#: Battles a server keeps by default (each up to a scenario file's size plus its actions): a new one past this
#: is refused (503 ``unavailable``) rather than filling the disk; ``create_app(max_battles=...)`` sets another.
MAX_BATTLES = 10_000
#: A battle served here has at most this many units on its table, and this many corners of terrain in all: the
#: engine answers larger tables (the command line takes them), but a drawing of every target of an attacker among
#: 400 units takes half a minute, and a server's two workers are not held that long by one client.
MAX_PIECES = 150
MAX_TERRAIN_CORNERS = 3000
#: States kept in memory (the latest ones used, of any battle, by version): a battle whose current state is not
#: among them is replayed when asked for.
CACHED_STATES = 2048
#: Stored actions kept in memory (of the battles used latest), at most.
CACHED_ACTIONS = 100_000


#: Names a side may not take: a battle's links name the sides and the spectators' role beside them.
ROLE_NAMES = frozenset({"spectator", "spectators", "side", "sides"})


@dataclass(frozen=True)
class Settings:
    """How a battle is played over HTTP, chosen when it is created and kept with it.

    ``undo``: ``fair`` (the default) refuses to take back an attack whose dice the server rolled, once they are
    shown (else a side could undo until the dice please it); ``any`` lets a side take back any action of its own
    (friendly play). Either way an undo stays in the actions, naming what it took back and the dice it had.
    ``open_hands``: every side sees every hand of cards, as the command line does (both players agree to it).
    """

    undo: str = "fair"
    open_hands: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"undo": self.undo, "open_hands": self.open_hands}

    @classmethod
    def of(cls, row: BattleRow) -> Settings:
        """A stored battle's settings (one stored before settings were kept: the defaults)."""
        kept = row.settings
        return cls(undo=str(kept.get("undo", "fair")), open_hands=bool(kept.get("open_hands", False)))


@dataclass(frozen=True)
class Example:
    name: str
    ruleset: str
    title: str
    text: str


@cache
def examples() -> tuple[Example, ...]:
    """The built-in example battles, by file name without its suffix."""
    found = []
    folder = resources.files("rangefire") / "examples"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        text = entry.read_text(encoding="utf-8")
        name = entry.name.removesuffix(".yaml")
        ruleset, battle = battle_from_mapping(parse_scenario(text, "yaml", name), name)
        found.append(Example(name, ruleset.key, str(getattr(battle, "name", None) or name), text))
    return tuple(found)


def _house(battle: Any) -> list[dict[str, Any]]:
    """The options a battle sets away from the rules' values, as every check, odds and resolve answer names them."""
    return [rule.to_dict() for rule in house_rules(battle.options)]


def ruleset_info(ruleset: Ruleset[Any, Any]) -> dict[str, Any]:
    """A game as ``GET /api/rulesets`` lists it: its options and defaults, its dice stages, its choices as the
    game declares them (``Ruleset.choices``)."""
    return {"key": ruleset.key, "name": ruleset.title, "aliases": list(ruleset.aliases),
            "options": ruleset.default_options(), "stages": list(ruleset.stages),
            "option_list": [row.to_dict() for row in option_rows(ruleset.options_model)],
            "outcomes": list(ruleset.outcome_names), "events": list(ruleset.event_names),
            "choices": [choice.to_dict() for choice in ruleset.choices],
            "has_activations": ruleset.has_activations, "chooses_target": ruleset.chooses_target}


class DiceNeeded(Exception):
    """Raised from inside an attack played with entered dice, at a stage the player has not given (yet)."""

    def __init__(self, question: Question) -> None:
        super().__init__(question.prompt())
        self.question = question


def _ask(question: Question) -> Sequence[int]:
    raise DiceNeeded(question)


@dataclass(frozen=True)
class Loaded:
    """A battle as stored, and its state after every action; once the asking token is known
    (:meth:`Battles.for_role`), the battle as that token may see it (``visible``: a card game's other hands left
    out, SW-1.4) and the sizes of what is kept from it (``kept``)."""

    row: BattleRow
    ruleset: Ruleset[Any, Any]
    state: Any
    actions: int
    version: tuple[int, int]
    seen: Any = None
    kept: Mapping[str, int] = field(default_factory=dict)
    viewer: str | None = None

    @property
    def visible(self) -> Any:
        """What every read of the asking token is worked out on: never a card it may not see."""
        return self.state if self.seen is None else self.seen

    def shown(self, battle: Any) -> Any:
        """A battle after an action, as the asking token may see it."""
        return battle if self.seen is None else self.ruleset.seen_by(battle, self.viewer)


@dataclass(frozen=True)
class AttackAsk:
    """An attack as a request asks for it."""

    attacker: str
    target: str | None = None
    choices: Mapping[str, Any] | None = None


Publish = Callable[[str, dict[str, Any]], None]


class Battles:
    """The battles of a store, as the API serves them."""

    def __init__(self, store: Store, publish: Publish | None = None, max_battles: int | None = MAX_BATTLES) -> None:
        self.store = store
        self.max_battles = max_battles
        self.publish: Publish = publish or (lambda battle_id, event: None)
        self._states: OrderedDict[tuple[str, tuple[int, int]], Any] = OrderedDict()
        self._actions: OrderedDict[str, tuple[ActionRow, ...]] = OrderedDict()
        self._actions_kept = 0
        self._lock = threading.Lock()
        self._random = random.SystemRandom()
        self._dumps = Dumps()  # the states read, written back (a state read again is not written again)

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
            _within_bounds(data)  # counted on the mapping, before the (costly) validation of its geometry
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
        """The battle's state after its actions: from memory when the state of its current version is kept
        there, else replayed from the scenario and every stored action."""
        ruleset = find_ruleset(row.ruleset)
        version = self.store.version(row.id)
        with self._lock:
            kept = self._states.get((row.id, version))
        if kept is not None:
            return Loaded(row, ruleset, kept, version[0], version)
        stored = self.stored(row.id)
        version = _version_of(stored)
        try:
            state = replay(ruleset, self._scenario(row), [_action(a) for a in stored])
        except LogError as exc:  # the engine changed under a stored battle: said, never hidden
            raise ApiError(500, "internal", f"battle {row.id}: its actions no longer replay: {exc}") from None
        self._keep(row.id, version, state)
        return Loaded(row, ruleset, state, version[0], version)

    def stored(self, battle_id: str) -> tuple[ActionRow, ...]:
        """The battle's stored actions, in order, as the store holds them now: those kept in memory and the ones
        added after them, read from the store (a battle's actions are only ever added)."""
        with self._lock:
            kept = self._actions.get(battle_id, ())
        added = self.store.actions(battle_id, after=len(kept))
        if not added:
            if kept:
                with self._lock:
                    if battle_id in self._actions:
                        self._actions.move_to_end(battle_id)
            return kept
        if added[0].number != len(kept) + 1:  # never so (numbers run 1, 2, ...): every action read again
            kept, added = (), self.store.actions(battle_id)
        stored = kept + tuple(added)
        with self._lock:
            held = self._actions.pop(battle_id, ())
            keep = stored if len(stored) >= len(held) else held  # another thread may have read further meanwhile
            self._actions[battle_id] = keep
            self._actions_kept += len(keep) - len(held)
            while self._actions_kept > CACHED_ACTIONS and len(self._actions) > 1:
                self._actions_kept -= len(self._actions.popitem(last=False)[1])
        return stored

    def for_role(self, loaded: Loaded, role: Role) -> Loaded:
        """The loaded battle with what ``role`` may see of it: everything in a battle created with open hands,
        else what the game keeps from that side left out (a spectator: every hand) [SW-1.4]."""
        if Settings.of(loaded.row).open_hands:
            return replace(loaded, viewer=role.side)
        kept = loaded.ruleset.kept_from(loaded.state, role.side)
        if not kept:
            return replace(loaded, viewer=role.side)
        return replace(loaded, seen=loaded.ruleset.seen_by(loaded.state, role.side), kept=kept, viewer=role.side)

    def _scenario(self, row: BattleRow) -> Any:
        """The battle as its scenario holds it, before any action (validated once, then kept)."""
        with self._lock:
            kept = self._states.get((row.id, (0, 0)))
        if kept is None:
            kept = battle_from_mapping(row.scenario, source=f"battle {row.id}")[1]
            self._keep(row.id, (0, 0), kept)
        return kept

    def _keep(self, battle_id: str, version: tuple[int, int], state: Any) -> None:
        """Keep a state under its version: the latest few of each battle stay, so an undo finds the state
        before the last action without a replay."""
        with self._lock:
            self._states[(battle_id, version)] = state
            self._states.move_to_end((battle_id, version))
            while len(self._states) > CACHED_STATES:
                self._states.popitem(last=False)

    # -- reading -----------------------------------------------------------------------------------
    def state(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        loaded = self.for_role(loaded, role)  # a battle loaded again after an action: as this token sees it
        ruleset, battle = loaded.ruleset, loaded.visible
        turn = getattr(battle, "turn", None)
        rows = {row["id"]: row for row in ruleset.status(battle)}
        units = [{"id": uid, "side": ruleset.side_of(battle, uid), "name": _name(battle, uid),
                  "status": rows.get(uid)} for uid in ruleset.unit_ids(battle)]
        return {"format": FORMAT, "id": loaded.row.id, "ruleset": ruleset.key,
                "you": {"role": role.role, "side": role.side},
                "turn": turn.model_dump(mode="json") if isinstance(turn, BaseModel) else None,
                "side_to_act": ruleset.side_to_act(battle), "sides": list(loaded.row.sides),
                "actions": loaded.actions, "entered_dice": loaded.row.entered_dice,
                "settings": Settings.of(loaded.row).to_dict(),
                "battle": self._dumps.of(ruleset, battle) if loaded.seen is None else ruleset.dump(battle),
                "units": units, "pending": self._pending_view(loaded),
                "ready": [side for side in loaded.row.sides if side in self.store.ready(loaded.row.id)],
                **self._undo_view(loaded), **_hidden(loaded)}

    def _undo_view(self, loaded: Loaded) -> dict[str, Any]:
        """What an undo would take back (``last_standing``: the last action not taken back, its number, side and
        what it was; None when every action is) and why it may not be, whatever the asking token
        (``last_action_stands``: an attack whose dice the server rolled, or one holding another side's answer,
        BU-4.2, SW-3.1; None when only whose it is and what waits decide, which a page says itself)."""
        stored = self.stored(loaded.row.id)
        standing = _standing(stored)
        if not standing:
            return {"last_standing": None, "last_action_stands": None}
        last = standing[-1]
        refusal = self._stands_refusal(loaded, stored, last)
        return {"last_standing": {"number": last.number, "by": last.by_side,
                                  "what": describe(_action(last))},
                "last_action_stands": None if refusal is None else {"message": refusal.message,
                                                                    "clause": refusal.clause}}

    def _pending_view(self, loaded: Loaded) -> dict[str, Any] | None:
        row = self.store.pending(loaded.row.id)
        return None if row is None else self._shown_pending(loaded, row)

    def _shown_pending(self, loaded: Loaded, row: PendingRow) -> dict[str, Any]:
        """The pending attack as the asking token may see it: worked out on what it sees; the answers open to
        another side named only where nothing is kept from this one (a card game's answers are the other hand's
        cards: only their player sees them, SW-1.4)."""
        battle = loaded.state
        if loaded.kept:  # what this side sees, and the cards the attack's choices have played from a hand
            battle = loaded.ruleset.seen_by(battle, loaded.viewer, _texts(row.attack.get("choices")))
        shown = view(loaded.ruleset, battle, row)
        waits = shown["awaiting"]
        if loaded.kept and waits.get("side") != loaded.viewer:
            shown["awaiting"] = {key: value for key, value in waits.items()
                                 if key not in ("allowed", "labels", "options", "options_left")}
            shown["awaiting"]["hidden"] = (f"{waits.get('who')} chooses from what you cannot see (a hand of cards, "
                                           "SW-1.4)")
        return shown

    def _held(self, loaded: Loaded, row: PendingRow, doing: str) -> ApiError:
        """:func:`held`, its pending attack as the asking token may see it."""
        error = held(loaded.ruleset, loaded.state, row, doing)
        error.extra["pending"] = self._shown_pending(loaded, row)
        return error

    def actions(self, battle_id: str) -> dict[str, Any]:
        return {"format": FORMAT, "actions": [{**a.record, "number": a.number, "by": a.by_side}
                                              for a in self.stored(battle_id)]}

    def targets(self, loaded: Loaded, side: str | None, attacker: str | None) -> dict[str, Any]:
        from rangefire.analysis.targets import targets

        rows = targets(loaded.ruleset, loaded.visible, side=side, attacker=attacker)
        return {"format": FORMAT, "targets": [row.to_dict() for row in rows]}

    def advice(self, loaded: Loaded, role: Role, side: str | None, outcome: str | None,
               refused: bool) -> dict[str, Any]:
        """Every legal attack of a side ranked, as ``rangefire advise --json``: the side named, else the
        asking side's own (a spectator names one)."""
        from rangefire.analysis.advise import advise

        side = side if side is not None else role.side
        if side is None:
            raise RangefireError("name the side to advise (?side=): a spectator's token has no side of its own")
        advised = advise(loaded.ruleset, loaded.visible, side, outcome)
        return {"format": FORMAT, **advised.to_dict(refused=refused), "house_rules": _house(loaded.state),
                **_hidden(loaded)}

    def drawing(self, loaded: Loaded, attacker: str | None, target: str | None,
                choices: Mapping[str, Any] | None = None) -> str:
        from rangefire.draw import draw_battle

        return draw_battle(loaded.ruleset, loaded.visible, attacker, target, choices)

    def check(self, loaded: Loaded, ask: AttackAsk) -> dict[str, Any]:
        ruleset, battle = loaded.ruleset, loaded.visible
        attack = self._attack(ruleset, ask)
        checked = ruleset.check(battle, attack)
        result: dict[str, Any] = {"format": FORMAT, **checked.to_dict(ruleset.key), "house_rules": _house(battle)}
        if ask.target is None and ruleset.chooses_target is None:  # as `check` without --target: every candidate
            from rangefire.analysis.targets import targets

            result["candidates"] = [row.to_dict() for row in targets(ruleset, battle, attacker=ask.attacker)]
        result["next_choice"] = self._next_choice(ruleset, battle, attack) if checked.is_legal else None
        return {**result, **_hidden(loaded)}

    def _next_choice(self, ruleset: Ruleset[Any, Any], battle: Any, attack: Attack) -> dict[str, Any] | None:
        """The next choice a player makes in this attack (a swerve action, a Bushido nomination): the side whose
        player makes it (``side``), who in words, the answers, the clause, and for each answer the ``choices``
        the attack holds once it is chosen."""
        question = ruleset.next_choice(battle, attack)
        if question is None:
            return None
        after = [plain(dict(ruleset.with_choice(attack, answer).choices)) for answer in question.allowed]
        return {**question.to_dict(), "choices": after}

    def odds(self, loaded: Loaded, ask: AttackAsk) -> dict[str, Any]:
        ruleset = loaded.ruleset
        checked = ruleset.check(loaded.visible, self._attack(ruleset, ask))
        if checked.plan is None:
            raise refused(checked.refusals)
        return {"format": FORMAT, **ruleset.odds(checked.plan).to_dict(), "house_rules": _house(loaded.state),
                **_hidden(loaded)}

    # -- acting ----------------------------------------------------------------------------------------
    def resolve(self, loaded: Loaded, role: Role, ask: AttackAsk, dice: Mapping[str, Sequence[int]] | None,
                asking: bool) -> dict[str, Any]:
        """Play an attack of the asking side; one whose next choice is a player's (another side's, or its own
        in turn, as swerve's alternate) is kept waiting instead (``{"pending": ...}``, answered 202): choices
        of another side's sent with it are refused, never taken from this side's token."""
        ruleset, battle = loaded.ruleset, loaded.state
        side = self._acting_side(role)
        row = self.store.pending(loaded.row.id)
        if row is not None:
            return self._dice_of_pending(loaded, side, row, ask, dice, asking)
        attack = self._attack(ruleset, ask)
        owner = ruleset.side_of(battle, attack.attacker) if attack.attacker in ruleset.unit_ids(battle) else None
        if owner is not None and owner != side:
            raise ApiError(403, "forbidden", f"{attack.attacker} is {owner}'s; {side} acts only for its own units",
                           path="attacker")
        self._in_turn(ruleset, battle, side)
        self._dice_allowed(loaded, dice, asking)
        attack = own_answers(ruleset, battle, attack, side)
        checked = ruleset.check(battle, attack)
        if checked.plan is None:
            raise refused(checked.refusals)
        question = ruleset.next_choice(battle, attack)
        if question is not None:  # a player chooses first: the attack waits for them
            row = self.store.open_pending(loaded.row.id, loaded.version, side, attack_data(attack),
                                          dice is not None or asking)
            return self._waiting(loaded, side, row)
        return self._play(loaded, side, attack, checked.plan, self._source(ruleset, dice, asking))

    def answer(self, loaded: Loaded, role: Role, answer: str, step: int | None = None) -> dict[str, Any]:
        """The awaited side's answer to the pending attack's next choice: the attack waits for the next one, or,
        none left, is played (the server's dice; a battle whose dice were asked for waits for them) and recorded
        as one attack action, as one request with every choice would have recorded it. With ``step``, taken only
        while the pending attack is still at that step (the one the answering player saw)."""
        ruleset, battle = loaded.ruleset, loaded.state
        side = self._acting_side(role)
        row = self.store.pending(loaded.row.id)
        if row is None:
            raise ApiError(409, "conflict", "no attack is waiting for an answer on this battle")
        if step is not None and step != row.step:
            raise ApiError(409, "conflict", f"step: the attack this answer was chosen for (step {step}) has changed "
                                            f"or was withdrawn; the one waiting now is at step {row.step}: fetch the "
                                            "battle again and answer it", path="step")
        attack = attack_of(ruleset, row.attack)
        question = ruleset.next_choice(battle, attack)
        if question is None:
            raise self._held(loaded, row, "nothing is left to answer")
        if side != question.side:
            raise ApiError(403, "forbidden", f"the attack waits for {question.who} to choose {question.name} "
                                             f"[{question.clause}]; {side} does not answer for {question.side}",
                           path="answer", clause=question.clause, awaiting=question.side)
        if answer not in question.allowed:
            shown = ", ".join(question.allowed[:20]) + (" ..." if len(question.allowed) > 20 else "")
            raise ApiError(422, "invalid_choice", f"answer: {answer!r} is not one of {shown}", path="answer",
                           clause=question.clause, allowed=list(question.allowed))
        attack = ruleset.with_choice(attack, answer)
        answers = row.answers + (side != row.by_side)
        if ruleset.next_choice(battle, attack) is None and not row.entered:
            checked = ruleset.check(battle, attack)
            if checked.plan is None:
                raise refused(checked.refusals)
            return self._play(loaded, row.by_side, attack, checked.plan, self._source(ruleset, None, False), row.step)
        row = self.store.answer_pending(loaded.row.id, row.step, attack_data(attack), answers)
        return self._waiting(loaded, side, row)

    def withdraw(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        """The side that made the pending attack takes it back, while no other side has answered it (an answer
        given is another player's secret acted on: from then on the attack goes on to its end)."""
        side = self._acting_side(role)
        row = self.store.pending(loaded.row.id)
        if row is None:
            raise ApiError(409, "conflict", "no attack is waiting on this battle: nothing to withdraw")
        if side != row.by_side:
            raise ApiError(403, "forbidden", f"the attack waiting is {row.by_side}'s; only {row.by_side} "
                                             "withdraws it")
        if row.answers:
            raise self._held(loaded, row, "it cannot be withdrawn")
        self.store.withdraw_pending(loaded.row.id, row.step)
        self.publish(loaded.row.id, {"actions": loaded.actions, "kind": "withdrawn", "by": side})
        return self.state(loaded, role)

    def _waiting(self, loaded: Loaded, side: str, row: PendingRow) -> dict[str, Any]:
        shown = self._shown_pending(loaded, row)
        self.publish(loaded.row.id, {"actions": loaded.actions, "kind": "pending", "by": side,
                                     "awaiting": shown["awaiting"]["side"]})
        return {"format": FORMAT, "pending": shown}

    def _dice_of_pending(self, loaded: Loaded, side: str, row: PendingRow, ask: AttackAsk,
                         dice: Mapping[str, Sequence[int]] | None, asking: bool) -> dict[str, Any]:
        """A resolve while an attack waits: taken only as the dice of that attack, once every choice is made in a
        battle whose dice are entered, from its side, naming the same attacker and target (its choices are the
        pending attack's: none sent, or the same)."""
        ruleset, battle = loaded.ruleset, loaded.state
        attack = attack_of(ruleset, row.attack)
        if side != row.by_side or ruleset.next_choice(battle, attack) is not None:
            raise self._held(loaded, row, "no other attack is played")
        sent = plain(dict(self._attack(ruleset, ask).choices))
        if (ask.attacker, ask.target) != (attack.attacker, attack.target) or sent not in ({}, row.attack["choices"]):
            raise self._held(loaded, row, "the dice are for the attack waiting (its attacker and target)")
        self._dice_allowed(loaded, dice, asking)
        checked = ruleset.check(battle, attack)
        if checked.plan is None:
            raise refused(checked.refusals)
        return self._play(loaded, side, attack, checked.plan, self._source(ruleset, dice, asking), row.step)

    def _dice_allowed(self, loaded: Loaded, dice: Mapping[str, Sequence[int]] | None, asking: bool) -> None:
        if (dice is not None or asking) and not loaded.row.entered_dice:
            raise ApiError(403, "forbidden", "this battle's dice are rolled by the server (its creator did not "
                                             "allow entered dice)", path="dice")

    def _source(self, ruleset: Ruleset[Any, Any], dice: Mapping[str, Sequence[int]] | None,
                asking: bool) -> DiceSource:
        """Dice entered (and asked for, stage by stage) where given, else the server's roll."""
        if dice is not None or asking:
            return EnteredSource(dict(dice or {}), ruleset.stages, AskedSource(_ask) if asking else None)
        return SeededSource(self._random.randrange(2**63))

    def _play(self, loaded: Loaded, side: str, attack: Attack, plan: Any, source: DiceSource,
              closing: int | None = None) -> dict[str, Any]:
        """Resolve a checked attack, apply it, record it as one action of ``side`` (closing the pending attack at
        step ``closing`` in the same transaction); with dice asked for stage by stage and a stage not given, the
        next stage to enter (``{"next": {...}}``), nothing recorded."""
        ruleset, battle = loaded.ruleset, loaded.state
        try:
            resolution = ruleset.resolve(plan, source)
        except DiceNeeded as needed:  # a player entering dice stage by stage: asked, not refused; nothing recorded
            q = needed.question
            return {"format": FORMAT, "next": {"stage": q.stage, "count": q.count, "sides": q.sides,
                                               "faces": list(q.faces), "prompt": q.prompt(),
                                               "problem": q.problem or None}}
        after = ruleset.apply(battle, resolution)
        record = attack_action(ruleset, attack, resolution,
                               dice_source="entered" if isinstance(source, EnteredSource) else "rolled")
        number = self._record(loaded, "attack", side, record, after, closing)
        return {"format": FORMAT, **resolution.to_dict(), "battle": ruleset.dump(loaded.shown(after)),
                "action": number, "house_rules": _house(battle)}

    def end_turn(self, loaded: Loaded, role: Role, activation: bool) -> dict[str, Any]:
        ruleset, battle = loaded.ruleset, loaded.state
        side = self._acting_side(role)
        self._not_pending(loaded, "the turn does not end")
        if activation and not ruleset.has_activations:
            raise ApiError(400, "invalid_input", f"{ruleset.key} has no activations; its turns end whole (send "
                                               "activation false)", path="activation")
        acting = ruleset.side_to_act(battle)
        sides = ruleset.sides(battle)
        ending = acting if acting is not None else (sides[0] if sides else None)  # as the engine takes it
        if ending is not None and ending != side:
            raise ApiError(403, "forbidden", f"it is {ending}'s turn; only {ending} ends it")
        after, log = ruleset.end_activation(battle) if activation else ruleset.end_turn(battle)
        number = self._record(loaded, "end-turn", side, end_turn_action(log, activation), after)
        turn = getattr(after, "turn", None)
        return {"format": FORMAT, "turn": turn.model_dump(mode="json") if isinstance(turn, BaseModel) else None,
                "side_to_act": ruleset.side_to_act(after), "log": [line.to_dict() for line in log],
                "action": number}

    def undo(self, loaded: Loaded, role: Role) -> dict[str, Any]:
        """Take back the last action still standing, by the side that made it: recorded as an undo action naming
        what it took back and the dice it had (nothing is removed), so every side's log shows it. Refused for an
        attack whose dice the server rolled (unless the battle was created with ``undo: any``) and for one
        holding another side's answer."""
        side = self._acting_side(role)
        self._not_pending(loaded, "nothing is undone")
        stored = self.stored(loaded.row.id)
        if _version_of(stored) != loaded.version:  # an action landed since the read
            raise ConflictError("the battle changed while the undo was asked; fetch it again and retry")
        standing = _standing(stored)
        if not standing:
            raise ApiError(409, "conflict", "nothing to undo: every action of the battle is taken back already"
                           if stored else "nothing to undo: the battle has no actions")
        last = standing[-1]
        if last.by_side != side:
            raise ApiError(403, "forbidden", f"the last action ({last.kind}, number {last.number}) is "
                                             f"{last.by_side}'s; only {last.by_side} may undo it")
        refusal = self._stands_refusal(loaded, stored, last)
        if refusal is not None:
            raise refusal
        taken = _action(last)
        dice = dict(taken.dice) if isinstance(taken, AttackAction) else {}
        record = UndoAction(takes_back=last.number, what=describe(taken), dice=dice)
        self._record(loaded, "undo", side, record, self._before(loaded, stored, last))
        return self.state(self.load(loaded.row), role)

    def _before(self, loaded: Loaded, stored: Sequence[ActionRow], last: ActionRow) -> Any:
        """The battle before a stored action: kept in memory, else replayed from the actions before it."""
        earlier = stored[:last.number - 1]
        version = (len(earlier), earlier[-1].seq if earlier else 0)
        with self._lock:
            kept = self._states.get((loaded.row.id, version))
        if kept is not None:
            return kept
        before = replay(loaded.ruleset, self._scenario(loaded.row), [_action(a) for a in earlier])
        self._keep(loaded.row.id, version, before)
        return before

    def _stands_refusal(self, loaded: Loaded, stored: Sequence[ActionRow], last: ActionRow) -> ApiError | None:
        """Why the action ``last`` may not be taken back by its own side: an attack whose dice the server rolled,
        in a battle whose undo is fair; an attack holding another side's answer. None when it may."""
        if last.kind != "attack":
            return None
        action = AttackAction.model_validate(last.record)
        held = self._held_answer(loaded, stored, last, action)
        if held is None and action.dice_source == "rolled" and action.dice and Settings.of(loaded.row).undo == "fair":
            return ApiError(403, "forbidden", f"the last action (attack, number {last.number}) was rolled by the "
                                              "server and its dice are shown, so the attack stands (this battle's "
                                              "undo is fair; one created with undo: any takes it back)",
                            path="undo")
        return held

    def _held_answer(self, loaded: Loaded, stored: Sequence[ActionRow], last: ActionRow,
                     action: AttackAction) -> ApiError | None:
        """The refusal of an undo of an attack holding another side's answer (a Bushido nomination, BU-4.2; a
        swerve player's action, SW-3.1): that player's choice is made and shown, so the attack stands, as a
        pending one is no longer withdrawn once answered; else None. Its answers are told apart on the battle
        before it."""
        ruleset = loaded.ruleset
        attack = action.attack()
        if not ruleset.answers_in(attack)[1]:  # no answers at all (most games): no battle before it to read
            return None
        found = other_answer(ruleset, self._before(loaded, stored, last), attack, last.by_side)
        if found is None:
            return None
        question, answer = found
        return ApiError(403, "forbidden", f"the last action (attack, number {last.number}) holds {question.who}'s "
                                          f"choice of {question.name} ({answer!r}) [{question.clause}]: made and "
                                          f"shown, so the attack stands and {last.by_side} does not undo it",
                        clause=question.clause, awaiting=question.side)

    def _record(self, loaded: Loaded, kind: str, side: str, action: Action, after: Any,
                closing: int | None = None) -> int:
        version = self.store.append(loaded.row.id, loaded.version, kind, side, action.model_dump(mode="json"),
                                    closing)
        number = version[0]
        self._keep(loaded.row.id, version, after)
        self.publish(loaded.row.id, {"actions": number, "kind": kind, "by": side})
        return number

    def record(self, loaded: Loaded, kind: str, side: str, action: Action, after: Any) -> int:
        """Record an action of ``side`` played on the loaded battle (one transaction), keep the state after it
        and tell the battle's pages: its number (a move, a mark, a set-up edit: :mod:`rangefire.web.moves`)."""
        return self._record(loaded, kind, side, action, after)

    def not_pending(self, loaded: Loaded, doing: str) -> None:
        """Refuse (409 ``pending``) an action while an attack waits for a choice."""
        self._not_pending(loaded, doing)

    def acting_side(self, role: Role) -> str:
        """The side a token acts for (403 for a spectator's)."""
        return self._acting_side(role)

    def _not_pending(self, loaded: Loaded, doing: str) -> None:
        row = self.store.pending(loaded.row.id)
        if row is not None:
            raise self._held(loaded, row, doing)

    # -- who may act -------------------------------------------------------------------------------
    @staticmethod
    def _acting_side(role: Role) -> str:
        if role.side is None:
            raise ApiError(403, "forbidden", "a spectator's link watches the battle; it never acts")
        return role.side

    @staticmethod
    def _in_turn(ruleset: Ruleset[Any, Any], battle: Any, side: str) -> None:
        acting = ruleset.side_to_act(battle)
        if acting is not None and acting != side:
            raise ApiError(403, "forbidden", f"it is {acting}'s turn; {side} acts in its own turn")

    @staticmethod
    def _attack(ruleset: Ruleset[Any, Any], ask: AttackAsk) -> Attack:
        """The attack asked for, its choices read by the game's own declaration (``Ruleset.attack``: an unknown
        name or a value not allowed is a :class:`ChoiceError` naming the choice)."""
        return ruleset.attack(ask.attacker, ask.target, dict(ask.choices or {}))


def _within_bounds(data: Mapping[str, Any]) -> None:
    """Refuse (422 ``too_large``) a scenario larger than a battle served here may be."""
    def listed(key: str) -> list[Any]:
        found = data.get(key)
        return found if isinstance(found, list) else []

    pieces = len(listed("units"))  # a card game's cards are bounded by its own rules' limits (best play)
    if pieces > MAX_PIECES:
        raise ApiError(422, "too_large", f"the scenario has {pieces} units; a battle served here has at most "
                                         f"{MAX_PIECES}", path="scenario.units")
    corners = sum(len(t["polygon"]) for t in listed("terrain")
                  if isinstance(t, dict) and isinstance(t.get("polygon"), list))
    if corners > MAX_TERRAIN_CORNERS:
        raise ApiError(422, "too_large", f"the scenario's terrain has {corners} corners in all; a battle served "
                                         f"here has at most {MAX_TERRAIN_CORNERS}", path="scenario.terrain")


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


def _hidden(loaded: Loaded) -> dict[str, Any]:
    """What an answer says of what is kept from the asking token (nothing where nothing is)."""
    return {"hidden": hidden_of(loaded.kept)} if loaded.kept else {}


def _texts(value: Any) -> list[str]:
    """Every text in a choices' value (a line of play's actions, a nomination)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _texts(item)]
    return []


def _standing(stored: Sequence[ActionRow]) -> list[ActionRow]:
    """The stored actions not taken back, in order: each undo takes back the last one standing before it."""
    standing: list[ActionRow] = []
    for row in stored:
        if row.kind == "undo":
            if standing:
                standing.pop()
        else:
            standing.append(row)
    return standing


def _version_of(stored: Sequence[ActionRow]) -> tuple[int, int]:
    """A battle's version (:meth:`Store.version`) after its stored actions."""
    return len(stored), stored[-1].seq if stored else 0


def _action(row: ActionRow) -> Action:
    """A stored action as the record reads it, by its kind (an attack, an end of turn, a move, a mark, a set-up
    edit)."""
    model = KINDS.get(row.kind)
    if model is None:
        raise LogError(f"action {row.number}: a stored action of the unknown kind {row.kind!r}")
    return model.model_validate(row.record)  # type: ignore[return-value]


def _name(battle: Any, uid: str) -> str | None:
    for group in ("units", "cards"):
        for piece in getattr(battle, group, ()) or ():
            if getattr(piece, "id", None) == uid:
                name = getattr(piece, "name", None)
                return str(name) if isinstance(name, str) else None
    return None


__all__ = ["CACHED_STATES", "MAX_BATTLES", "MAX_PIECES", "MAX_SIDES", "MAX_TERRAIN_CORNERS", "ROLE_NAMES", "AttackAsk",
           "Battles", "DiceNeeded", "Example", "Loaded", "Settings", "examples", "ruleset_info"]
