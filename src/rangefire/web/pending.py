"""An attack that waits for another side's choice: "a side's secret acts only for that side".

Some of an attack's choices are not its attacker's to make: in Bushido the target's player may nominate another
model [BU-4.2]; in swerve the players alternate, one action or a pass each [SW-3.1]. ``Ruleset.next_choice``
says whose each next choice is (the side); here the server refuses such a choice from any other side's token
(:func:`own_answers`) and describes an attack kept waiting for one (:func:`view`). The protocol itself (resolve,
answer, withdraw) is in :class:`rangefire.web.service.Battles`; the table is the store's ``pending``.
"""

from __future__ import annotations

from typing import Any

from rangefire.core import Attack, NextChoice, Ruleset
from rangefire.web.errors import ApiError
from rangefire.web.store import PendingRow


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
    return {"kind": "dice", "name": "dice", "who": row.by_side, "side": row.by_side, "allowed": [], "clause": None}


def view(ruleset: Ruleset[Any, Any], battle: Any, row: PendingRow) -> dict[str, Any]:
    """The pending attack as the API shows it: who made it, the attack and its choices made so far, what it waits
    for, how many answers of another side it holds, whether its side may still withdraw it, and its step (an
    answer naming it is taken only by this attack at this point)."""
    question = ruleset.next_choice(battle, attack_of(ruleset, row.attack))
    return {"by": row.by_side, **row.attack, "answers": row.answers, "awaiting": awaiting(question, row),
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


__all__ = ["attack_data", "attack_of", "awaiting", "held", "other_answer", "own_answers", "plain", "view"]
