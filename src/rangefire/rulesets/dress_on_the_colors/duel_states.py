"""Dress on the Colors duels over plain states: what the rules can tell apart of each unit, not whole battles.

A state is the turn (the side to act [DC-9.2]; never its number, which no rule of a volley reads) and each unit
of the battle as a small number, one per distinct unit (its stands, micro-hit marker, disorder, gunsmoke marker,
moved and fired marks: every field by value). The duel's chain (:mod:`rangefire.analysis.duel_chain`) asks each
state once, whatever turn reaches it:

- **The volley** is checked by the game's own ``check`` on the battle the state stands for, once for every
  state that differs in what a check reads: the target's micro-hit marker and disorder are read by no step of the
  plan but its ``target_micro_hits`` and ``target_disordered`` (the results' casualties [DC-4.3] and the discipline
  check's -1 [DC-5.2]), and the firer's marker by none, so plans differing only there are one check, the target's
  two fields set on it.
- **The dice** are the game's own :func:`~rangefire.rulesets.dress_on_the_colors.volley.volley_distribution`
  (its house rules included), worked out once for every plan equal in what its dice read (:func:`dice_key`), with
  the target out of reach of destruction: the unsaved hits, and whether a surviving target is disordered
  [DC-5.3]. Each target then takes its casualties from the unsaved hits [DC-4.3] and a disorder if it survives.
- **What the volley leaves** is the game's ``apply`` of the outcome: the target's stands, marker and disorder
  (kept once gained [DC-5.3]), gone where destroyed [DC-4.3]; the firer's gunsmoke marker where it fired
  stationary [DC-7.1] and its fired mark [DC-9.1]. A test holds these to ``apply`` over many battles.
- **The turn passes** by the game's own ``end_turn`` [DC-9.3]: it reads and changes only the turn marks (moved,
  fired, gunsmoke of a unit that moved, the start of turn position) and the side to act, never stands, markers or
  disorder, which stay [DC-9.3]; so it is worked out once for every state of the marks and the side.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from rangefire.core import Attack
from rangefire.core.fingerprint import fingerprint
from rangefire.rulesets.dress_on_the_colors.scenario import Battle, Unit
from rangefire.rulesets.dress_on_the_colors.volley import VolleyPlan, casualties, volley_distribution

if TYPE_CHECKING:
    import numpy as np

    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors

#: A state: the turn's number in :attr:`States.turns` and each unit's in :attr:`States.units` (-1: destroyed).
State = tuple[int, tuple[int, ...]]
#: Plan fields that no die reads: who, where, and what is said of it (every other field is a dice key's).
NOT_DICE = frozenset({"ruleset", "attacker", "target", "notes", "modifiers", "weapon", "band", "distance2",
                      "line_of_fire", "line_of_fire_tied", "cover", "cover_from", "smoke_from", "tied_targets",
                      "house_notes", "places_gunsmoke", "target_stands", "target_micro_hits"})
#: What a volley's dice come to for a target out of reach of destruction: (weight, unsaved hits, disorder if the
#: target survives), and the weights' total.
Dice = tuple[tuple[tuple[int, int, bool], ...], int]
_DICE: dict[Hashable, Dice] = {}
MAX_KEPT = 20_000


def dice_key(plan: VolleyPlan) -> Hashable:
    """Every field of the plan a die may read (all but :data:`NOT_DICE`, so that a field a house rule adds is
    read), with the modifiers' clauses and values: plans equal in it roll the same dice."""
    fields = tuple((f.name, getattr(plan, f.name)) for f in dataclasses.fields(plan) if f.name not in NOT_DICE)
    return fields, tuple((m.clause, m.delta) for m in plan.modifiers)


def dice(plan: VolleyPlan) -> Dice:
    """The volley's unsaved hits and disorder, for a target that survives them all (:data:`Dice`): the game's
    own distribution [DC-8.1] of a plan whose target has more stands than the dice could take and no marker."""
    key = dice_key(plan)
    found = _DICE.get(key)
    if found is None:
        safe = dataclasses.replace(plan, target_stands=plan.dice + 2, target_micro_hits=0)
        dist = volley_distribution(safe)
        merged: dict[tuple[int, bool], int] = {}
        for outcome, w in dist.weights().items():
            k = (outcome.unsaved_hits, outcome.disorder)
            merged[k] = merged.get(k, 0) + w
        if len(_DICE) >= MAX_KEPT:
            _DICE.clear()
        found = _DICE[key] = (tuple((w, u, d) for (u, d), w in merged.items()), dist.total)
    return found


class States:
    """The states of a duel in one battle (see the module's text): a :class:`~rangefire.analysis.duel_chain.
    DuelModel`."""

    def __init__(self, ruleset: DressOnTheColors, battle: Battle) -> None:
        self.ruleset = ruleset
        self.base = battle
        self.order = [u.id for u in battle.units]
        self.position = {uid: i for i, uid in enumerate(self.order)}
        self.units: list[Unit] = []
        self._unit_ids: dict[Hashable, int] = {}
        self.turns: list[Any] = []
        self._turn_ids: dict[Hashable, int] = {}
        self._plans: dict[Hashable, VolleyPlan | None] = {}
        self._passes: dict[Hashable, State] = {}
        self._changed: dict[tuple[int, tuple[tuple[str, Any], ...]], int] = {}
        self._normal: dict[int, int] = {}
        self._transfer: dict[tuple[int, int], int] = {}
        self._passed: dict[Hashable, State] = {}
        self._variants: dict[Hashable, VolleyPlan] = {}
        self._dice: dict[int, tuple[VolleyPlan, Dice]] = {}
        self._taking: dict[tuple[int, int], tuple[VolleyPlan, list[tuple[int, int]]]] = {}
        #: The unit a volley leaves of a target: (the target, stands, marker, disorder) to the unit's number.
        self._hit: dict[tuple[int, int, int, bool], int] = {}

    # -- the numbers of units and turns -------------------------------------------------------------------
    def _unit(self, unit: Unit) -> int:
        key = fingerprint(unit)
        found = self._unit_ids.get(key)
        if found is None:
            found = self._unit_ids[key] = len(self.units)
            self.units.append(unit)
        return found

    def _turn(self, turn: Any) -> int:
        key = None if turn is None else (turn.side, turn.order)
        found = self._turn_ids.get(key)
        if found is None:
            found = self._turn_ids[key] = len(self.turns)
            self.turns.append(turn)
        return found

    def _changed_unit(self, n: int, **update: Any) -> int:
        key = (n, tuple(sorted(update.items())))
        found = self._changed.get(key)
        if found is None:
            unit = self.units[n]
            same = all(getattr(unit, k) == v for k, v in update.items())
            found = self._changed[key] = n if same else self._unit(unit.model_copy(update=update))
        return found

    def _normalised(self, n: int) -> int:
        """The unit with its stands as it began and no marker or disorder: what end of turn reads of it."""
        found = self._normal.get(n)
        if found is None:
            begun = self.base.units[self.position[self.units[n].id]]
            found = self._normal[n] = self._changed_unit(n, stands=begun.stands, micro_hits=0, disordered=False)
        return found

    def state_of(self, battle: Battle) -> State:
        units = tuple(self._unit(battle.unit(uid)) if any(u.id == uid for u in battle.units) else -1
                      for uid in self.order)
        return self._turn(battle.turn), units

    def battle_of(self, state: State) -> Battle:
        turn, units = state
        return self.base.model_copy(update={"turn": self.turns[turn],
                                            "units": tuple(self.units[n] for n in units if n >= 0)})

    # -- the duel's model ---------------------------------------------------------------------------------
    def start(self, first: str) -> State:
        return self.state_of(self.ruleset.duel_begin(self.base, first))

    def left(self, state: Hashable, uid: str) -> int:
        n = state[1][self.position[uid]]  # type: ignore[index]  # a State
        return 0 if n < 0 else self.units[n].stands

    def _plan(self, state: State, attack: Attack) -> VolleyPlan | None:
        turn, units = state
        target, firer = self.position[attack.target or ""], self.position[attack.attacker]
        seen = tuple(self._normal_target(n) if i == target else self._changed_unit(n, micro_hits=0) if i == firer
                     else n for i, n in enumerate(units))
        key = (attack, turn, seen)
        if key not in self._plans:
            plan = self.ruleset.check(self.battle_of((turn, seen)), attack).plan
            assert plan is None or isinstance(plan, VolleyPlan)
            self._plans[key] = plan
        plan = self._plans[key]
        if plan is None:
            return None
        shot = self.units[units[target]]
        if (shot.micro_hits, shot.disordered) == (plan.target_micro_hits, plan.target_disordered):
            return plan
        variant = (key, shot.micro_hits, shot.disordered)
        found = self._variants.get(variant)
        if found is None:
            found = self._variants[variant] = dataclasses.replace(plan, target_micro_hits=shot.micro_hits,
                                                                  target_disordered=shot.disordered)
        return found

    def _normal_target(self, n: int) -> int:
        return self._changed_unit(n, micro_hits=0, disordered=False)

    def fire(self, state: Hashable, shooter: str, target: str, then: str) -> tuple[int, list[tuple[int, Hashable]]]:
        assert isinstance(state, tuple)
        turn, units = state
        plan = self._plan(state, Attack(shooter, target))
        if plan is None:  # refused: the volley changes nothing
            return 1, [(1, self._pass(state, shooter, target, then))]
        at, by = self.position[target], self.position[shooter]
        fired = self._changed_unit(units[by], gunsmoke=plan.places_gunsmoke, fired=True)  # [DC-7.1, DC-9.1]
        kept = self._dice.get(id(plan))
        if kept is None or kept[0] is not plan:
            kept = self._dice[id(plan)] = (plan, dice(plan))  # the plan kept: its identity is not reused
        total = kept[1][1]
        out: dict[State, int] = {}
        for w, left in self._taken(kept, units[at]):
            after = list(units)
            after[by] = fired
            after[at] = left
            if left < 0:  # destroyed: it leaves the table [DC-4.3]
                k: State = (turn, tuple(after))
            else:
                k = self._pass((turn, tuple(after)), shooter, target, then)
            out[k] = out.get(k, 0) + w
        return total, [(w, k) for k, w in out.items()]

    def _taken(self, kept: tuple[VolleyPlan, Dice], shot_n: int) -> list[tuple[int, int]]:
        """What the volley's dice leave of the target ``shot_n`` (-1: destroyed), with their weights merged: the
        casualties of the unsaved hits [DC-4.3] and a disorder if it survives [DC-5.3]; worked out once for every
        plan and state of the target."""
        key = (id(kept[0]), shot_n)
        found = self._taking.get(key)
        if found is not None and found[0] is kept[0]:
            return found[1]
        shot = self.units[shot_n]
        stands, micro_hits, disordered = shot.stands, shot.micro_hits, shot.disordered
        hit = self._hit
        merged: dict[int, int] = {}
        for w, unsaved, disorder in kept[1][0]:
            lost, marker = casualties(stands, micro_hits, unsaved)  # [DC-4.3]
            if lost >= stands:
                left = -1
            else:
                after = (shot_n, stands - lost, marker, disordered or disorder)
                left = hit.get(after, -2)
                if left == -2:
                    left = hit[after] = self._changed_unit(shot_n, stands=after[1], micro_hits=marker,
                                                           disordered=after[3])
            merged[left] = merged.get(left, 0) + w
        taken = [(w, left) for left, w in merged.items()]
        self._taking[key] = (kept[0], taken)  # the plan kept: its identity is not reused
        return taken

    def sample(self, state: Hashable, shooter: str, target: str, then: str, n: int,
               rng: np.random.Generator) -> list[tuple[int, Hashable]]:
        """``n`` volleys from this state with every die rolled (the game's own rolls, :func:`~rangefire.rulesets.
        dress_on_the_colors.duel.sampled_volleys`), counted by the state each leaves: as :meth:`fire`, the dice
        rolled instead of weighed (for the Monte Carlo, which never reads the exact transitions)."""
        from rangefire.rulesets.dress_on_the_colors.duel import sampled_volleys

        assert isinstance(state, tuple)
        turn, units = state
        plan = self._plan(state, Attack(shooter, target))
        if plan is None:
            return [(n, self._pass(state, shooter, target, then))]
        at, by = self.position[target], self.position[shooter]
        shot = self.units[units[at]]
        fired = self._changed_unit(units[by], gunsmoke=plan.places_gunsmoke, fired=True)  # [DC-7.1, DC-9.1]
        out: dict[State, int] = {}
        for count, unsaved, disorder, _, _ in sampled_volleys(plan, n, rng):
            lost, marker = casualties(shot.stands, shot.micro_hits, unsaved)  # [DC-4.3]
            after = list(units)
            after[by] = fired
            if lost >= shot.stands:
                after[at] = -1
                k: State = (turn, tuple(after))
            else:
                after[at] = self._changed_unit(units[at], stands=shot.stands - lost, micro_hits=marker,
                                               disordered=shot.disordered or disorder)  # [DC-5.3]
                k = self._pass((turn, tuple(after)), shooter, target, then)
            out[k] = out.get(k, 0) + count
        return [(c, k) for k, c in out.items()]

    def _pass(self, state: State, shooter: str, target: str, then: str) -> State:
        """The turn passed to ``then``'s side (round to it again where it fired last) by the game's end of turn,
        worked out once for every state of the marks and the side [DC-9.3]."""
        whole = (state, shooter, then)
        done = self._passed.get(whole)
        if done is not None:
            return done
        turn, units = state
        marks = tuple(self._normalised(n) if n >= 0 else -1 for n in units)
        key = (turn, marks, shooter, then)
        found = self._passes.get(key)
        if found is None:
            battle = self.battle_of((turn, marks))
            if then == shooter:
                battle = self.ruleset.duel_pass(battle, target)
            battle = self.ruleset.duel_pass(battle, then)
            found = self._passes[key] = self.state_of(battle)
        new_turn, new_marks = found
        done = self._passed[whole] = (new_turn, tuple(-1 if n < 0 else self._marked(m, n)
                                                      for m, n in zip(new_marks, units, strict=True)))
        return done

    def _marked(self, marks: int, unit: int) -> int:
        """The unit ``unit`` with the turn marks of ``marks`` (its stands, marker and disorder kept)."""
        key = (marks, unit)
        found = self._transfer.get(key)
        if found is None:
            u = self.units[unit]
            found = self._transfer[key] = self._changed_unit(marks, stands=u.stands, micro_hits=u.micro_hits,
                                                             disordered=u.disordered)
        return found
