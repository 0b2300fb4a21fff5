"""An undo over HTTP: the last action still standing taken back by the side that made it, recorded as one more
action naming what it took back and the dice it had (nothing is removed), so every side's log shows it; and what a
battle's state says of it before anyone asks (what an undo would take back, and why it may not)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rangefire.record import AttackAction, UndoAction, describe
from rangefire.web.errors import ApiError
from rangefire.web.ledger import Ledger, Written, action_of, standing, version_of
from rangefire.web.loaded import Loaded, Settings, acting_side
from rangefire.web.pending import not_pending, other_answer
from rangefire.web.store import ActionRow, ConflictError, Role


def undo(ledger: Ledger, loaded: Loaded, role: Role) -> tuple[tuple[ActionRow, ...], Written]:
    """Take back the last action still standing, by the side that made it. Refused for an attack whose dice the
    server rolled (unless the battle was created with ``undo: any``) and for one holding another side's answer.
    A start taken back takes back the readiness of its side too (set-up, DC-10.4). The battle's stored actions after it
    (those read, and the undo as written) and the undo written."""
    side = acting_side(role)
    not_pending(ledger.store, loaded, "nothing is undone")
    stored = ledger.stored(loaded.row.id)
    if version_of(stored) != loaded.version:  # an action landed since the read
        raise ConflictError("the battle changed while the undo was asked; fetch it again and retry")
    found = standing(stored)
    if not found:
        raise ApiError(409, "conflict", "nothing to undo: every action of the battle is taken back already"
                       if stored else "nothing to undo: the battle has no actions")
    last = found[-1]
    if last.by_side != side:
        raise ApiError(403, "forbidden", f"the last action ({last.kind}, number {last.number}) is "
                                         f"{last.by_side}'s; only {last.by_side} may undo it")
    refusal = stands_refusal(ledger, loaded, stored, last)
    if refusal is not None:
        raise refusal
    taken = action_of(last)
    dice = dict(taken.dice) if isinstance(taken, AttackAction) else {}
    record = UndoAction(takes_back=last.number, what=describe(taken), dice=dice)
    written = ledger.record(loaded, "undo", side, record, ledger.before(loaded, stored, last))
    if last.kind == "start":  # in set-up again: the side that took the start back says again when it is ready
        ledger.store.unset_ready(loaded.row.id, side)
    return (*stored, written.row), written


def undo_view(ledger: Ledger, loaded: Loaded, stored: Sequence[ActionRow]) -> dict[str, Any]:
    """What an undo would take back (``last_standing``: the last action not taken back, its number, side and
    what it was; None when every action is) and why it may not be, whatever the asking token
    (``last_action_stands``: an attack whose dice the server rolled, or one holding another side's answer,
    BU-4.2, SW-3.1; None when only whose it is and what waits decide, which a page says itself)."""
    found = standing(stored)
    if not found:
        return {"last_standing": None, "last_action_stands": None}
    last = found[-1]
    refusal = stands_refusal(ledger, loaded, stored, last)
    return {"last_standing": {"number": last.number, "by": last.by_side, "what": describe(action_of(last))},
            "last_action_stands": None if refusal is None else {"message": refusal.message,
                                                                "clause": refusal.clause}}


def stands_refusal(ledger: Ledger, loaded: Loaded, stored: Sequence[ActionRow], last: ActionRow) -> ApiError | None:
    """Why the action ``last`` may not be taken back by its own side: an attack whose dice the server rolled,
    in a battle whose undo is fair; an attack holding another side's answer. None when it may."""
    if last.kind != "attack":
        return None
    action = AttackAction.model_validate(last.record)
    held = _held_answer(ledger, loaded, stored, last, action)
    if held is None and action.dice_source == "rolled" and action.dice and Settings.of(loaded.row).undo == "fair":
        return ApiError(403, "forbidden", f"the last action (attack, number {last.number}) was rolled by the "
                                          "server and its dice are shown, so the attack stands (this battle's "
                                          "undo is fair; one created with undo: any takes it back)",
                        path="undo")
    return held


def _held_answer(ledger: Ledger, loaded: Loaded, stored: Sequence[ActionRow], last: ActionRow,
                 action: AttackAction) -> ApiError | None:
    """The refusal of an undo of an attack holding another side's answer (a Bushido nomination, BU-4.2; a
    swerve player's action, SW-3.1): that player's choice is made and shown, so the attack stands, as a
    pending one is no longer withdrawn once answered; else None. Its answers are told apart on the battle
    before it."""
    ruleset = loaded.ruleset
    attack = action.attack()
    if not ruleset.answers_in(attack)[1]:  # no answers at all (most games): no battle before it to read
        return None
    found = other_answer(ruleset, ledger.before(loaded, stored, last), attack, last.by_side)
    if found is None:
        return None
    question, answer = found
    return ApiError(403, "forbidden", f"the last action (attack, number {last.number}) holds {question.who}'s "
                                      f"choice of {question.name} ({answer!r}) [{question.clause}]: made and "
                                      f"shown, so the attack stands and {last.by_side} does not undo it",
                    clause=question.clause, awaiting=question.side)


__all__ = ["stands_refusal", "undo", "undo_view"]
