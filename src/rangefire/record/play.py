"""A battle rebuilt from its record: each action played again and checked against what it recorded, and the one
function that plays each kind of action (:func:`play`), for the command line, the replay and the server alike.

An undo takes back the last action still standing: the battle before it is restored, and the undo stays in the
record (python-chess's ``pop``, the move stack kept)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rangefire.core import DiceError, Edit, LogLine, Mark, RangefireError, Ruleset
from rangefire.core.numbers import parse_exact
from rangefire.core.source import EnteredSource
from rangefire.record.actions import (
    Action,
    AttackAction,
    EditAction,
    EndTurnAction,
    Line,
    LogError,
    MarkAction,
    MoveAction,
    StartAction,
    UndoAction,
    _json_ready,
    _lines,
    battle_digest,
    describe,
)
from rangefire.record.log import _short


@dataclass(frozen=True)
class Step:
    """One action replayed: its line in the log, what it was, and the battle after it."""

    line: int
    action: Action
    battle: Any
    summary: str


def replay_steps(ruleset: Ruleset[Any, Any], battle: Any, actions: Sequence[Action],
                 first_line: int = 1) -> Iterator[Step]:
    """Play the actions again on ``battle``, one step at a time, checking each against its record.

    An attack is checked, resolved with its recorded dice stage by stage, and must give the recorded dice,
    outcome and log lines; every other action must give its recorded log lines; and where a line records the
    digest of the battle after it (``battle_after``), the battle replayed must have it. Any difference is a
    :class:`LogError` naming the line and what differs.
    """
    standing: list[tuple[int, Action, Any]] = []  # the actions not taken back: line, action, battle before it
    for index, action in enumerate(actions):
        line = first_line + index
        if isinstance(action, UndoAction):
            battle, summary = _replay_undo(standing, action, line)
            yield Step(line, action, battle, summary)
            continue
        before = battle
        if isinstance(action, AttackAction):
            battle, summary = _replay_attack(ruleset, battle, action, line)
        else:
            battle, log = _step(line, lambda b=battle, a=action: play(ruleset, b, a))
            _same_log(line, action.log, _lines(log))
            summary = _summary(ruleset, battle, action)
        _same_battle(ruleset, line, action, battle)
        standing.append((line, action, before))
        yield Step(line, action, battle, summary)


def _same_battle(ruleset: Ruleset[Any, Any], line: int, action: Action, battle: Any) -> None:
    """The battle replayed is the one the line records after it, where it records one (the command line's lines
    do; the server keeps its battles with their actions)."""
    recorded = getattr(action, "battle_after", None)
    if recorded is not None and battle_digest(ruleset.dump(battle)) != recorded:
        raise LogError(f"line {line}: the battle after {describe(action)} is not the one the record holds (its "
                       "digest differs): the log was played on another battle, or edited")


def play(ruleset: Ruleset[Any, Any], battle: Any, action: Action) -> tuple[Any, list[LogLine]]:
    """The battle after one action that rolls no dice (an end of turn, a move, a mark, a set-up edit, the start of a
    battle set up from empty) and its log: the one function that makes each kind, for the command line, the replay
    and the server alike. A refusal by the rules raises :class:`~rangefire.core.IllegalMoveError` (or the game's
    error); an attack is resolved with its dice (:func:`replay_steps`), an undo needs the actions before it
    (:func:`take_back`)."""
    if isinstance(action, EndTurnAction):
        return ruleset.end_activation(battle) if action.activation else ruleset.end_turn(battle)
    if isinstance(action, MoveAction):
        _same_game(ruleset, action.ruleset)
        return ruleset.move(battle, action.made())
    if isinstance(action, MarkAction):
        _same_game(ruleset, action.ruleset)
        return ruleset.mark(battle, Mark(action.unit, action.state, action.on))
    if isinstance(action, EditAction):
        from rangefire.rulesets.setup import edit

        _same_game(ruleset, action.ruleset)
        return edit(ruleset, battle, Edit(action.op, action.section, action.id, action.data))
    if isinstance(action, StartAction):
        from rangefire.rulesets.setup import start

        _same_game(ruleset, action.ruleset)
        return start(ruleset, battle, action.order)
    raise RangefireError(f"{describe(action)} is not played by itself")


def take_back(ruleset: Ruleset[Any, Any], scenario: Any,
              actions: Sequence[Action]) -> tuple[Any, Any, UndoAction]:
    """The battle at the end of the log, the battle with its last action still standing taken back, and the
    undo's record: the actions replayed on ``scenario`` (checked), the battle before that action restored.
    Nothing left to take back is said."""
    standing: list[tuple[int, Action, Any]] = []
    battle = scenario
    for step in replay_steps(ruleset, scenario, actions):
        if isinstance(step.action, UndoAction):
            standing.pop()
        else:
            standing.append((step.line, step.action, battle))
        battle = step.battle
    if not standing:
        raise LogError("nothing to take back: every action of the log is taken back already" if actions else
                       "nothing to take back: the log holds no action")
    line, action, before = standing[-1]
    dice = dict(action.dice) if isinstance(action, AttackAction) else {}
    return battle, before, UndoAction(takes_back=line, what=describe(action), dice=dice)


def _replay_undo(standing: list[tuple[int, Action, Any]], action: UndoAction, line: int) -> tuple[Any, str]:
    if not standing:
        raise LogError(f"line {line}: takes back line {action.takes_back}, but no action before it stands here "
                       "(to replay an undo, replay from before the action it takes back)")
    taken, what, before = standing.pop()
    if action.takes_back != taken:
        raise LogError(f"line {line}: takes back line {action.takes_back}, but the last action standing is line "
                       f"{taken} ({describe(what)})")
    if action.what != describe(what):
        raise LogError(f"line {line}: what: the undo takes back {_short(describe(what))} (line {taken}), the record "
                       f"holds {_short(action.what)}")
    dice = dict(what.dice) if isinstance(what, AttackAction) else {}
    if dict(action.dice) != dice:
        raise LogError(f"line {line}: dice: the action taken back (line {taken}) had {_short(dice)}, the record "
                       f"holds {_short(dict(action.dice))}")
    return before, f"undo of line {taken}: {describe(what)} taken back"


def _summary(ruleset: Ruleset[Any, Any], battle: Any, action: Action) -> str:
    if isinstance(action, EndTurnAction):
        side = ruleset.side_to_act(battle)
        what = "activation" if action.activation else "turn"
        return f"end of the {what}" + (f": {side} to act" if side else "")
    if isinstance(action, MoveAction) and action.distance is not None:
        return f"{describe(action)}: {float(parse_exact(action.distance)):.2f} {ruleset.move_unit}"
    return describe(action)


def _same_game(ruleset: Ruleset[Any, Any], key: str) -> None:
    if key != ruleset.key:
        raise RangefireError(f"an action of {key}, but the scenario is {ruleset.key}")


def replay(ruleset: Ruleset[Any, Any], battle: Any, actions: Sequence[Action], first_line: int = 1) -> Any:
    """The battle after every action, replayed and checked (see :func:`replay_steps`)."""
    for step in replay_steps(ruleset, battle, actions, first_line):
        battle = step.battle
    return battle


def _step(line: int, run: Any) -> Any:
    try:
        return run()
    except RangefireError as exc:
        raise LogError(f"line {line}: {exc}") from None


def _replay_attack(ruleset: Ruleset[Any, Any], battle: Any, action: AttackAction, line: int) -> tuple[Any, str]:
    if action.ruleset != ruleset.key:
        raise LogError(f"line {line}: an attack of {action.ruleset}, but the scenario is {ruleset.key}")
    attack = action.attack()
    checked = _step(line, lambda: ruleset.check(battle, attack))
    if checked.plan is None:
        reasons = "; ".join(str(r) for r in checked.refusals)
        raise LogError(f"line {line}: the attack of {attack.attacker} is refused here: {reasons}")
    try:
        source = EnteredSource(dict(action.dice), ruleset.stages)
        resolution = ruleset.resolve(checked.plan, source)
    except DiceError as exc:
        raise LogError(f"line {line}: the recorded dice do not fit the attack: {exc}") from None
    except RangefireError as exc:
        raise LogError(f"line {line}: {exc}") from None
    replayed = {stage: tuple(v) for stage, v in resolution.dice.items()}
    if replayed != {k: v for k, v in action.dice.items() if v}:
        raise LogError(f"line {line}: dice: the attack used {_short(replayed)}, the record holds "
                       f"{_short(dict(action.dice))}")
    outcome = _json_ready(resolution.outcome.to_dict())
    if outcome != action.outcome:
        keys = sorted(set(outcome) | set(action.outcome))
        name = next(k for k in keys if outcome.get(k) != action.outcome.get(k))
        raise LogError(f"line {line}: outcome.{name}: the replay gives {_short(outcome.get(name))}, the record "
                       f"holds {_short(action.outcome.get(name))}")
    _same_log(line, action.log, _lines(resolution.log))
    after = ruleset.apply(battle, resolution)
    target = checked.plan.target
    dice = ", ".join(f"{stage} {' '.join(map(str, v))}" for stage, v in replayed.items()) or "no dice"
    entered = " (dice entered)" if action.dice_source == "entered" else ""
    return after, f"{attack.attacker} at {target}: {dice}{entered}"


def _same_log(line: int, recorded: Sequence[Line], replayed: Sequence[Line]) -> None:
    for i, (old, new) in enumerate(zip(recorded, replayed, strict=False), start=1):
        if old != new:
            raise LogError(f"line {line}: log line {i}: the replay gives {str(new)!r}, the record holds "
                           f"{str(old)!r}")
    if len(recorded) != len(replayed):
        raise LogError(f"line {line}: the replay logs {len(replayed)} lines, the record {len(recorded)}")
