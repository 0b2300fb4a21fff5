"""An attack that waits for another side's choice: "a side's secret acts only for that side".

Some of an attack's choices are not its attacker's to make: in Bushido the target's player may nominate another
model [BU-4.2]; in swerve the players alternate, one action or a pass each [SW-3.1]. ``Ruleset.next_choice``
says whose each next choice is (the side); here the server refuses such a choice from any other side's token
(:func:`own_answers`) and describes an attack kept waiting for one (:func:`view`; as the asking token may see it,
:func:`shown`), and refuses anything else while one waits (:func:`not_pending`). The protocol itself (resolve,
answer, withdraw) is in :class:`rangefire.web.attacks.Attacks`; the table is the store's ``pending``.

The player asked does not choose blind: the view works out, for each answer (the first :data:`MAX_OPTIONS`), the
attack as it would then be: its target, range, line of fire and odds (:func:`options`).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from rangefire.core import Attack, LimitError, NextChoice, Ruleset
from rangefire.core.numbers import fraction_str, with_float
from rangefire.core.scene import Group, Segment, Shape
from rangefire.draw import SCENES
from rangefire.web.errors import ApiError
from rangefire.web.loaded import Loaded
from rangefire.web.store import PendingRow, Store

#: The answers of a question worked out in full (check, line, odds): a question with more says how many it left.
MAX_OPTIONS = 6
#: Views of pending attacks kept (each page reads the battle again on every action: the odds are worked out once).
KEPT_VIEWS = 64


def plain(choices: dict[str, Any]) -> dict[str, Any]:
    """Choices as JSON holds them (a line of play as a list)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in choices.items()}


def attack_data(attack: Attack) -> dict[str, Any]:
    """An attack as the store keeps a pending one: as an attack body holds it."""
    return {"attacker": attack.attacker, "target": attack.target, "choices": plain(dict(attack.choices))}


def attack_of(ruleset: Ruleset[Any, Any], data: dict[str, Any]) -> Attack:
    return ruleset.attack(data["attacker"], data.get("target"), data.get("choices") or {})


def own_answers(ruleset: Ruleset[Any, Any], battle: Any, attack: Attack, side: str) -> Attack:
    """The attack, if every answer its choices hold is ``side``'s to give: each is checked in turn against the
    game's next choice at that point (``Ruleset.answers_in``, ``Ruleset.next_choice``); one of another side's
    is refused (403) naming the choice, whose it is and the clause. Answers past the point where the game asks
    nothing more are left to the rules' check, which refuses them by clause."""
    found = other_answer(ruleset, battle, attack, side)
    if found is not None:
        question, answer = found
        raise ApiError(403, "forbidden",
                       f"choices.{question.name}: {answer!r} is for {question.who} to choose, not {side} "
                       f"[{question.clause}]; send the attack without it and the server asks {question.side}",
                       path=f"choices.{question.name}", clause=question.clause, awaiting=question.side)
    return attack


def other_answer(ruleset: Ruleset[Any, Any], battle: Any, attack: Attack,
                 side: str) -> tuple[NextChoice, str] | None:
    """The first answer the attack's choices hold that is not ``side``'s to give, with the question it answers
    (played on ``battle``, the battle before the attack); None when every answer is ``side``'s."""
    so_far, answers = ruleset.answers_in(attack)
    for answer in answers:
        question = ruleset.next_choice(battle, so_far)
        if question is None:
            break
        if question.side != side:
            return question, answer
        so_far = ruleset.with_choice(so_far, answer)
    return None


def awaiting(question: NextChoice | None, row: PendingRow) -> dict[str, Any]:
    """What the pending attack waits for: a choice of a side (its question), or, every choice made in a battle
    whose dice are entered, the dice of the side that made the attack."""
    if question is not None:
        return {"kind": "choice", **question.to_dict()}
    return {"kind": "dice", "name": "dice", "who": row.by_side, "side": row.by_side, "allowed": [], "labels": [],
            "clause": None}


def _walk(items: tuple[Shape, ...]) -> Iterator[Shape]:
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from _walk(item.items)


def _line(ruleset: Ruleset[Any, Any], battle: Any, checked: Any) -> dict[str, str] | None:
    """The line of fire of a checked attack as its drawing shows it: its state (clear, hindered, blocked...) and
    the drawing's words for it, with the clause; None where the game draws none."""
    scene = SCENES[ruleset.key](battle, checked, [checked], {})
    for shape in _walk(scene.items):
        if isinstance(shape, Segment) and shape.kind == "line-of-fire":
            return {"state": shape.state, "text": shape.title}
    return None


def option(ruleset: Ruleset[Any, Any], battle: Any, attack: Attack, answer: str, label: str) -> dict[str, Any]:
    """What one answer makes of the attack: its target, whether the rules allow it (else their refusals), the
    range and the line of fire where the game measures one, and the odds it would then have (the game's main
    outcome: its mean and the chance of at least one; its events). ``then``: the choices still to come after it
    (a line of play goes on), whose odds are the rest played best by both players."""
    chosen = ruleset.with_choice(attack, answer)
    checked = ruleset.check(battle, chosen)
    row: dict[str, Any] = {"answer": answer, "label": label, "legal": checked.plan is not None}
    if checked.plan is None:
        return {**row, "target": chosen.target, "refusals": [r.to_dict() for r in checked.refusals]}
    plan = checked.plan
    distance = plan.details().get("range")
    row.update(target=plan.target, range=distance,
               line=_line(ruleset, battle, checked) if distance is not None else None,
               then=ruleset.next_choice(battle, chosen) is not None)
    try:
        odds = ruleset.odds(plan)
    except LimitError as exc:
        return {**row, "odds": None, "odds_refused": str(exc)}
    main = ruleset.main_outcome
    outcome = odds.outcomes[main].to_dict() if main in odds.outcomes else {}
    row["odds"] = {"outcome": main, **with_float("mean", outcome.get("mean")),
                   **with_float("at_least_one", _at_least_one(outcome.get("distribution") or {})),
                   **with_float("events", dict(odds.events)), "exact": odds.exact}
    return row


def _at_least_one(distribution: dict[str, str]) -> str:
    """The chance of at least 1 in a distribution as JSON holds it (values as text, chances as fractions)."""
    return fraction_str(sum((Fraction(p) for k, p in distribution.items() if Fraction(k) >= 1), Fraction(0)))


_kept: OrderedDict[tuple[str, int, str], tuple[Any, list[dict[str, Any]]]] = OrderedDict()
_kept_lock = threading.Lock()


def options(ruleset: Ruleset[Any, Any], battle: Any, row: PendingRow, question: NextChoice) -> list[dict[str, Any]]:
    """:func:`option` for each of the question's first :data:`MAX_OPTIONS` answers, in its order. Kept for the
    pending attack at this step on this battle state (nothing else is played while it waits), so that a page
    reading the battle again does not work the odds out again."""
    key = (ruleset.key, row.step, json.dumps(row.attack, sort_keys=True))
    with _kept_lock:
        kept = _kept.get(key)
    if kept is not None and kept[0] is battle:
        return kept[1]
    attack = attack_of(ruleset, row.attack)
    labels = question.labels or question.allowed
    found = [option(ruleset, battle, attack, answer, label)
             for answer, label in list(zip(question.allowed, labels, strict=True))[:MAX_OPTIONS]]
    with _kept_lock:
        _kept[key] = (battle, found)
        while len(_kept) > KEPT_VIEWS:
            _kept.popitem(last=False)
    return found


def view(ruleset: Ruleset[Any, Any], battle: Any, row: PendingRow) -> dict[str, Any]:
    """The pending attack as the API shows it: who made it, the attack and its choices made so far, what it waits
    for, how many answers of another side it holds, whether its side may still withdraw it, and its step (an
    answer naming it is taken only by this attack at this point). A choice awaited carries ``options``: each
    answer's attack as it would then be (:func:`option`), and ``options_left``, how many answers it did not work
    out (beyond :data:`MAX_OPTIONS`)."""
    question = ruleset.next_choice(battle, attack_of(ruleset, row.attack))
    waits = awaiting(question, row)
    if question is not None:
        waits["options"] = options(ruleset, battle, row, question)
        waits["options_left"] = max(0, len(question.allowed) - MAX_OPTIONS)
    return {"by": row.by_side, **row.attack, "answers": row.answers, "awaiting": waits,
            "dice": "entered" if row.entered else "server", "withdrawable": row.answers == 0, "step": row.step}


def held(ruleset: Ruleset[Any, Any], battle: Any, row: PendingRow, doing: str) -> ApiError:
    """The refusal (409 ``pending``) of anything but the answer while an attack waits."""
    shown = view(ruleset, battle, row)
    wait = shown["awaiting"]
    what = (f"{wait['who']}'s dice (POST resolve)" if wait["kind"] == "dice"
            else f"{wait['who']} to choose {wait['name']} [{wait['clause']}] (POST answer)")
    then = (f"; {row.by_side} may withdraw it (POST withdraw) until another side answers" if row.answers == 0
            else "; another side has answered, so it goes on to its end")
    target = f" at {shown['target']}" if shown.get("target") else ""
    return ApiError(409, "pending", f"{doing}: {row.by_side}'s attack ({shown['attacker']}{target}) is waiting for "
                                    f"{what}{then}", clause=wait["clause"], pending=shown)


def _texts(value: Any) -> list[str]:
    """Every text in a choices' value (a line of play's actions, a nomination)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list | tuple):
        return [text for item in value for text in _texts(item)]
    return []


def shown(loaded: Loaded, row: PendingRow) -> dict[str, Any]:
    """The pending attack as the asking token may see it (:func:`view`): worked out on what it sees; the answers
    open to another side named only where nothing is kept from this one (a card game's answers are the other
    hand's cards: only their player sees them, SW-1.4)."""
    battle = loaded.state
    if loaded.kept:  # what this side sees, and the cards the attack's choices have played from a hand
        battle = loaded.ruleset.seen_by(battle, loaded.viewer, _texts(row.attack.get("choices")))
    found = view(loaded.ruleset, battle, row)
    waits = found["awaiting"]
    if loaded.kept and waits.get("side") != loaded.viewer:
        found["awaiting"] = {key: value for key, value in waits.items()
                             if key not in ("allowed", "labels", "options", "options_left")}
        found["awaiting"]["hidden"] = (f"{waits.get('who')} chooses from what you cannot see (a hand of cards, "
                                       "SW-1.4)")
    return found


def held_for(loaded: Loaded, row: PendingRow, doing: str) -> ApiError:
    """:func:`held`, its pending attack as the asking token may see it (:func:`shown`)."""
    error = held(loaded.ruleset, loaded.state, row, doing)
    error.extra["pending"] = shown(loaded, row)
    return error


def not_pending(store: Store, loaded: Loaded, doing: str) -> None:
    """Refuse (409 ``pending``) an action while an attack waits for a choice, saying what ``doing`` was."""
    row = store.pending(loaded.row.id)
    if row is not None:
        raise held_for(loaded, row, doing)


__all__ = ["MAX_OPTIONS", "attack_data", "attack_of", "awaiting", "held", "held_for", "not_pending", "option",
           "options", "other_answer", "own_answers", "plain", "shown", "view"]
