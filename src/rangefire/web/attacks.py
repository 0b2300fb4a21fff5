"""An attack played over HTTP: resolved at once, or kept waiting for a player's choice and then answered, withdrawn,
or given its dice (a battle whose dice are entered); each attack played recorded as one action.

Some of an attack's choices are another side's (a Bushido nomination, BU-4.2; a swerve player's action, SW-3.1):
such an attack waits in the store's ``pending`` table (:mod:`rangefire.web.pending` describes it) until the side
awaited answers, and is then played and recorded as one request with every choice would have recorded it.
Each call goes one way: who may act checked (:mod:`rangefire.web.loaded`), the rules asked, the action written
(:meth:`rangefire.web.ledger.Ledger.record`), what was played answered.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from rangefire.core import FORMAT, AskedSource, Attack, DiceSource, EnteredSource, Question, Ruleset, SeededSource
from rangefire.record import attack_action
from rangefire.web.errors import ApiError, refused
from rangefire.web.ledger import Ledger
from rangefire.web.loaded import AttackAsk, Loaded, acting_side, in_turn
from rangefire.web.pending import attack_data, attack_of, held_for, own_answers, plain, shown
from rangefire.web.questions import attack_asked, house
from rangefire.web.store import PendingRow, Role


class DiceNeeded(Exception):
    """Raised from inside an attack played with entered dice, at a stage the player has not given (yet)."""

    def __init__(self, question: Question) -> None:
        super().__init__(question.prompt())
        self.question = question


def _ask(question: Question) -> Sequence[int]:
    raise DiceNeeded(question)


class Attacks:
    """The attacks of a ledger's battles: played, kept waiting, answered, withdrawn."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.store = ledger.store
        self._random = random.SystemRandom()

    def resolve(self, loaded: Loaded, role: Role, ask: AttackAsk, dice: Mapping[str, Sequence[int]] | None,
                asking: bool) -> dict[str, Any]:
        """Play an attack of the asking side; one whose next choice is a player's (another side's, or its own
        in turn, as swerve's alternate) is kept waiting instead (``{"pending": ...}``, answered 202): choices
        of another side's sent with it are refused, never taken from this side's token."""
        ruleset, battle = loaded.ruleset, loaded.state
        side = acting_side(role)
        row = self.store.pending(loaded.row.id)
        if row is not None:
            return self._dice_of_pending(loaded, side, row, ask, dice, asking)
        attack = attack_asked(ruleset, ask)
        owner = ruleset.side_of(battle, attack.attacker) if attack.attacker in ruleset.unit_ids(battle) else None
        if owner is not None and owner != side:
            raise ApiError(403, "forbidden", f"{attack.attacker} is {owner}'s; {side} acts only for its own units",
                           path="attacker")
        in_turn(ruleset, battle, side)
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
        side = acting_side(role)
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
            raise held_for(loaded, row, "nothing is left to answer")
        if side != question.side:
            raise ApiError(403, "forbidden", f"the attack waits for {question.who} to choose {question.name} "
                                             f"[{question.clause}]; {side} does not answer for {question.side}",
                           path="answer", clause=question.clause, awaiting=question.side)
        if answer not in question.allowed:
            listed = ", ".join(question.allowed[:20]) + (" ..." if len(question.allowed) > 20 else "")
            raise ApiError(422, "invalid_choice", f"answer: {answer!r} is not one of {listed}", path="answer",
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

    def withdraw(self, loaded: Loaded, role: Role) -> None:
        """The side that made the pending attack takes it back, while no other side has answered it (an answer
        given is another player's secret acted on: from then on the attack goes on to its end). Once it is
        gone, no attack waits on the battle."""
        side = acting_side(role)
        row = self.store.pending(loaded.row.id)
        if row is None:
            raise ApiError(409, "conflict", "no attack is waiting on this battle: nothing to withdraw")
        if side != row.by_side:
            raise ApiError(403, "forbidden", f"the attack waiting is {row.by_side}'s; only {row.by_side} "
                                             "withdraws it")
        if row.answers:
            raise held_for(loaded, row, "it cannot be withdrawn")
        self.store.withdraw_pending(loaded.row.id, row.step)
        self.ledger.publish(loaded.row.id, {"actions": loaded.actions, "kind": "withdrawn", "by": side})

    def _waiting(self, loaded: Loaded, side: str, row: PendingRow) -> dict[str, Any]:
        found = shown(loaded, row)
        self.ledger.publish(loaded.row.id, {"actions": loaded.actions, "kind": "pending", "by": side,
                                            "awaiting": found["awaiting"]["side"]})
        return {"format": FORMAT, "pending": found}

    def _dice_of_pending(self, loaded: Loaded, side: str, row: PendingRow, ask: AttackAsk,
                         dice: Mapping[str, Sequence[int]] | None, asking: bool) -> dict[str, Any]:
        """A resolve while an attack waits: taken only as the dice of that attack, once every choice is made in a
        battle whose dice are entered, from its side, naming the same attacker and target (its choices are the
        pending attack's: none sent, or the same)."""
        ruleset, battle = loaded.ruleset, loaded.state
        attack = attack_of(ruleset, row.attack)
        if side != row.by_side or ruleset.next_choice(battle, attack) is not None:
            raise held_for(loaded, row, "no other attack is played")
        sent = plain(dict(attack_asked(ruleset, ask).choices))
        if (ask.attacker, ask.target) != (attack.attacker, attack.target) or sent not in ({}, row.attack["choices"]):
            raise held_for(loaded, row, "the dice are for the attack waiting (its attacker and target)")
        self._dice_allowed(loaded, dice, asking)
        checked = ruleset.check(battle, attack)
        if checked.plan is None:
            raise refused(checked.refusals)
        return self._play(loaded, side, attack, checked.plan, self._source(ruleset, dice, asking), row.step)

    @staticmethod
    def _dice_allowed(loaded: Loaded, dice: Mapping[str, Sequence[int]] | None, asking: bool) -> None:
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
        written = self.ledger.record(loaded, "attack", side, record, after, closing)
        return {"format": FORMAT, **resolution.to_dict(), "battle": ruleset.dump(loaded.shown(after)),
                "action": written.number, "house_rules": house(battle)}


__all__ = ["Attacks", "DiceNeeded"]
