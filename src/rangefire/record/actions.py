"""The kinds of action a battle's record holds, one JSON line each: attacks, ends of turn (or of activations),
moves, states a player sets, set-up edits and undos; their records built from what was played, described in a
few words, and written as a line."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rangefire.core import Attack, Edit, LogLine, Mark, Move, MoveCheck, RangefireError, Resolution, Ruleset
from rangefire.core.numbers import dump_exact

FORMAT = 1
#: A log larger than this is refused before it is read (a turn is a few kilobytes; a long battle some hundreds).
MAX_LOG_BYTES = 8 * 1024 * 1024
#: No action's line is longer than this (an attack with every log line is a few kilobytes).
MAX_LINE_BYTES = 256 * 1024
#: No log holds more actions than this.
MAX_ACTIONS = 20_000

Clause = Annotated[str, Field(min_length=1, max_length=32)]
Text = Annotated[str, Field(max_length=4000)]
Name = Annotated[str, Field(min_length=1, max_length=64)]
Face = Annotated[int, Field(strict=True, ge=0, le=1_000_000)]
#: A battle's digest (:func:`battle_digest`): 32 hexadecimal digits.
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]
#: The keys of a line that are left out where they are not known (a line written before they were, or by the
#: HTTP API, which keeps the battle with its actions).
LEFT_OUT = ("battle_before", "battle_after", "dice_source")
#: Where an attack's dice came from: rolled by the server, rolled from a seed (the command line), or entered by
#: hand by a player (dice rolled at the table).
DiceSourceName = Literal["rolled", "seeded", "entered"]


class LogError(RangefireError):
    """A log that cannot be read or appended to, or whose replay does not give what it records."""

    kind = "invalid_log"


def _unknown(value: object) -> bool:
    return value is None


#: A value a record may not know (a digest, where the dice came from): left out when not known, never written as
#: null; the records' JSON Schema keeps their fields (a serializer of the whole record would hide them).
Known = Field(exclude_if=_unknown)


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Line(_Record):
    """One log line of an action, with its clause."""

    clause: Clause
    text: Text

    def __str__(self) -> str:
        return f"[{self.clause}] {self.text}"


class AttackAction(_Record):
    """An attack as played: who, at whom, the player's choices, the dice by stage, the outcome, the log."""

    format: Literal[1] = 1
    action: Literal["attack"] = "attack"
    ruleset: Name
    attacker: Name
    target: Name | None = None
    choices: dict[Name, Any] = Field(default_factory=dict, max_length=20)
    dice: dict[Name, Annotated[tuple[Face, ...], Field(max_length=10_000)]] = Field(default_factory=dict,
                                                                                     max_length=20)
    outcome: dict[Name, Any] = Field(default_factory=dict, max_length=100)
    log: Annotated[tuple[Line, ...], Field(max_length=1000)] = ()
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None
    #: Where the dice came from (left out where not known: a line written before it was kept).
    dice_source: Annotated[DiceSourceName | None, Known] = None

    def attack(self) -> Attack:
        """The attack to check and play again (the choices as the game reads them: lists as tuples)."""
        choices = tuple((name, tuple(v) if isinstance(v, list) else v) for name, v in self.choices.items())
        return Attack(self.attacker, self.target, choices)


class EndTurnAction(_Record):
    """A turn (or, with ``activation``, an activation) ended, with the log of what that did."""

    format: Literal[1] = 1
    action: Literal["end-turn"] = "end-turn"
    activation: Annotated[bool, Field(strict=True)] = False  # "yes" or 1 is not read as true
    log: Annotated[tuple[Line, ...], Field(max_length=10_000)] = ()
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None


class MoveAction(_Record):
    """A move as made (DC-10, AL-10, BU-9, SW-9): the move as asked (:meth:`rangefire.core.Move.to_dict`), the
    distance moved in the game's unit where it measures one, and the log."""

    format: Literal[1] = 1
    action: Literal["move"] = "move"
    ruleset: Name
    move: dict[Name, Any] = Field(max_length=10)
    distance: int | float | str | None = None
    log: Annotated[tuple[Line, ...], Field(max_length=1000)] = ()
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None

    def made(self) -> Move:
        """The move to check and make again."""
        return Move.from_dict(self.move)


class MarkAction(_Record):
    """A state a player set (``on``) or cleared on one of its units (BU-9.1), with the log."""

    format: Literal[1] = 1
    action: Literal["mark"] = "mark"
    ruleset: Name
    unit: Name
    state: Name
    on: Annotated[bool, Field(strict=True)] = True
    log: Annotated[tuple[Line, ...], Field(max_length=100)] = ()
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None


class EditAction(_Record):
    """A set-up edit (DC-10.4, AL-10.3, BU-9.3, SW-9.2): an item placed, changed or removed, with the log."""

    format: Literal[1] = 1
    action: Literal["edit"] = "edit"
    ruleset: Name
    op: Literal["place", "change", "remove"]
    section: Name
    id: Name
    data: dict[Annotated[str, Field(max_length=64)], Any] = Field(default_factory=dict, max_length=100)
    log: Annotated[tuple[Line, ...], Field(max_length=100)] = ()
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None


class StartAction(_Record):
    """The end of set-up (DC-10.4, AL-10.3, BU-9.3, SW-9.2): every side ready, the battle starts at turn 1 of the
    first side of ``order`` (the order of the sides, fixed from then on), with the log."""

    format: Literal[1] = 1
    action: Literal["start"] = "start"
    ruleset: Name
    order: Annotated[tuple[Name, ...], Field(min_length=1, max_length=64)]
    log: Annotated[tuple[Line, ...], Field(max_length=100)] = ()
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None


class UndoAction(_Record):
    """An action taken back: the line of the log it takes back (the last action still standing), what that
    action was, and the dice it had where it rolled any. The undo stays in the log, as every action does."""

    format: Literal[1] = 1
    action: Literal["undo"] = "undo"
    takes_back: Annotated[int, Field(strict=True, ge=1, le=10_000_000)]
    what: Text
    dice: dict[Name, Annotated[tuple[Face, ...], Field(max_length=10_000)]] = Field(default_factory=dict,
                                                                                     max_length=20)
    battle_before: Annotated[Digest | None, Known] = None
    battle_after: Annotated[Digest | None, Known] = None


Action = AttackAction | EndTurnAction | MoveAction | MarkAction | EditAction | StartAction | UndoAction
#: Each kind of action by the name its line gives it.
KINDS: dict[str, type[_Record]] = {"attack": AttackAction, "end-turn": EndTurnAction, "move": MoveAction,
                                   "mark": MarkAction, "edit": EditAction, "start": StartAction, "undo": UndoAction}



def _lines(log: Sequence[LogLine]) -> tuple[Line, ...]:
    return tuple(Line(clause=line.clause, text=line.text) for line in log)


def _json_ready(value: Any) -> Any:
    """A value as JSON gives it back (tuples as lists), so that a record compares equal to its reading."""
    return json.loads(json.dumps(value))


def attack_action(ruleset: Ruleset[Any, Any], attack: Attack, resolution: Resolution,
                  battle_before: str | None = None, battle_after: str | None = None,
                  dice_source: DiceSourceName | None = None) -> AttackAction:
    """The record of an attack played: the attack as asked (the target the rules chose where none was named);
    with the digests of the battle it was played on and of the battle after it, and where its dice came from,
    where they are given."""
    return AttackAction(ruleset=ruleset.key, attacker=attack.attacker,
                        target=attack.target if attack.target is not None else resolution.plan.target,
                        choices=_json_ready(dict(attack.choices)),
                        dice={stage: tuple(values) for stage, values in resolution.dice.items()},
                        outcome=_json_ready(resolution.outcome.to_dict()), log=_lines(resolution.log),
                        battle_before=battle_before, battle_after=battle_after, dice_source=dice_source)


def end_turn_action(log: Sequence[LogLine], activation: bool = False, battle_before: str | None = None,
                    battle_after: str | None = None) -> EndTurnAction:
    return EndTurnAction(activation=activation, log=_lines(log), battle_before=battle_before,
                         battle_after=battle_after)


def battle_digest(data: Mapping[str, Any]) -> str:
    """A battle's digest: its dump (``Ruleset.dump``) as canonical JSON, hashed (SHA-256, 32 hexadecimal
    digits). Equal battles have equal digests, whatever file and format they were read from."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:32]


def move_action(ruleset: Ruleset[Any, Any], move: Move, checked: MoveCheck, battle_before: str | None = None,
                battle_after: str | None = None) -> MoveAction:
    """The record of a move made (its check legal)."""
    return MoveAction(ruleset=ruleset.key, move=_json_ready(move.to_dict()),
                      distance=None if checked.distance is None else dump_exact(checked.distance),
                      log=_lines(checked.log), battle_before=battle_before, battle_after=battle_after)


def mark_action(ruleset: Ruleset[Any, Any], mark: Mark, checked: MoveCheck, battle_before: str | None = None,
                battle_after: str | None = None) -> MarkAction:
    """The record of a state set or cleared (its check legal)."""
    return MarkAction(ruleset=ruleset.key, unit=mark.unit, state=mark.state, on=mark.on, log=_lines(checked.log),
                      battle_before=battle_before, battle_after=battle_after)


def edit_action(ruleset: Ruleset[Any, Any], edit: Edit, checked: MoveCheck, battle_before: str | None = None,
                battle_after: str | None = None) -> EditAction:
    """The record of a set-up edit made (its check legal)."""
    return EditAction(ruleset=ruleset.key, op=edit.op, section=edit.section, id=edit.id,
                      data=_json_ready(dict(edit.data)), log=_lines(checked.log), battle_before=battle_before,
                      battle_after=battle_after)


def start_action(ruleset: Ruleset[Any, Any], order: Sequence[str], log: Sequence[LogLine],
                 battle_before: str | None = None, battle_after: str | None = None) -> StartAction:
    """The record of a battle started in the order of its sides (:func:`rangefire.rulesets.setup.start`)."""
    return StartAction(ruleset=ruleset.key, order=tuple(order), log=_lines(log), battle_before=battle_before,
                       battle_after=battle_after)


def describe(action: Action) -> str:
    """An action in a few words: ``20th-maine's attack``, ``the end of the turn``, ``20th-maine's move``."""
    if isinstance(action, AttackAction):
        return f"{action.attacker}'s attack"
    if isinstance(action, EndTurnAction):
        return "the end of the activation" if action.activation else "the end of the turn"
    if isinstance(action, MoveAction):
        return f"{action.move.get('unit')}'s move"
    if isinstance(action, MarkAction):
        return f"{action.unit}'s {action.state} {'set' if action.on else 'cleared'}"
    if isinstance(action, EditAction):
        return f"the set-up edit ({action.op} {action.section} {action.id})"
    if isinstance(action, StartAction):
        return "the start of the battle"
    return f"the undo of line {action.takes_back} ({action.what})"


def action_line(action: Action) -> bytes:
    """The action as one line of JSON, ASCII only (no character of a name can split or end the line)."""
    data = action.model_dump(mode="json")
    text = json.dumps(data, separators=(", ", ": "), ensure_ascii=True) + "\n"
    line = text.encode("ascii")
    if len(line) > MAX_LINE_BYTES:
        raise LogError(f"the action is {len(line)} bytes as a line; a log line may be at most {MAX_LINE_BYTES}")
    return line
