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
- **Shared between states**: a state is one integer (:meth:`States.key`), and each volley's plan, its frame
  (every unit but the target after the volley and the turn's passing) and its target's outcomes (by the dice, the
  target's stands, marker and disorder, and its marks after the turn passes) are each worked out once for all the
  states that share them: a state's volley is then a few look-ups and an addition for each outcome
  (:meth:`States.transitions`). A test holds every volley of a chain to the game's own exchanges and end of turn
  worked out afresh from the state's battle.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

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
#: A volley as a check reads it (:meth:`States._check_key`): shooter, target, the turn's and the units' numbers.
CheckKey = tuple[str, str, int, tuple[int, ...]]
_DICE: dict[Hashable, Dice] = {}
_READERS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {}
MAX_KEPT = 20_000
#: The stands of the target :func:`dice` weighs a volley at: more than any volley's dice could take [DC-4.3], and
#: the same for plans of up to this many dice, so that the game's work after the hits is shared between them.
SAFE_STANDS = 64
#: Bits of a state's integer given to the turn and to each unit (:meth:`States.key`).
BITS = 32
_MASK = (1 << BITS) - 1


def _reader(kind: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    """The names of a plan class's fields a die may read, and a function reading them from a plan."""
    found = _READERS.get(kind)
    if found is None:
        names = tuple(f.name for f in dataclasses.fields(kind) if f.name not in NOT_DICE)
        get = operator.attrgetter(*names)
        found = _READERS[kind] = (names, get if len(names) > 1 else lambda plan: (get(plan),))
    return found


def dice_key(plan: VolleyPlan, disordered: bool | None = None) -> Hashable:
    """Every field of the plan a die may read (all but :data:`NOT_DICE`, so that a field a house rule adds is
    read), with the modifiers' clauses and values: plans equal in it roll the same dice. ``disordered``: that of
    the plan with its target so disordered or not instead [DC-5.2]."""
    names, get = _reader(type(plan))
    values = get(plan)
    if disordered is not None and disordered != plan.target_disordered:
        i = names.index("target_disordered")
        values = (*values[:i], disordered, *values[i + 1:])
    return names, values, tuple((m.clause, m.delta) for m in plan.modifiers)


def dice(plan: VolleyPlan, disordered: bool | None = None) -> Dice:
    """The volley's unsaved hits and disorder, for a target that survives them all (:data:`Dice`): the game's
    own distribution [DC-8.1] of a plan whose target has more stands than the dice could take and no marker
    (``disordered``: and is so disordered or not instead of the plan's target [DC-5.2])."""
    key = dice_key(plan, disordered)
    found = _DICE.get(key)
    if found is None:
        safe = dataclasses.replace(plan, target_stands=max(plan.dice + 2, SAFE_STANDS), target_micro_hits=0,
                                   target_disordered=plan.target_disordered if disordered is None else disordered)
        dist = volley_distribution(safe)
        merged: dict[tuple[int, bool], int] = {}
        for outcome, w in dist.weights().items():
            k = (outcome.unsaved_hits, outcome.disorder)
            merged[k] = merged.get(k, 0) + w
        if len(_DICE) >= MAX_KEPT:
            _DICE.clear()
        found = _DICE[key] = (tuple((w, u, d) for (u, d), w in merged.items()), dist.total)
    return found

#: What a volley's dice leave of a target of given stands, marker and disorder (:meth:`States._shape`): the
#: weights' total, the weights and (stands, marker, disorder) of the outcomes where it stands and its stands in
#: each, the weight of the outcomes that destroy it (0: none) and where they come among the others; the weights in
#: lowest terms.
Shape = tuple[int, tuple[int, ...], tuple[tuple[int, int, bool], ...], tuple[int, ...], int, int]
#: A volley's frame (:meth:`States._frame`): the key of the state it leaves with the target destroyed, with the
#: turn passed and without; and the target's turn marks after the turn passes.
Frame = tuple[int, int, int]


class Landed(NamedTuple):
    """What a volley's dice leave of its target (:meth:`States._landed`), the weights in lowest terms over
    ``total``."""

    total: int
    #: The outcomes where it stands, in the order the dice first give each: weights, and the target's fields of
    #: the state's key.
    weights: tuple[int, ...]
    codes: tuple[int, ...]
    #: The stands left of the firer and of the target in each.
    lefts: tuple[tuple[int, int], ...]
    #: The weight of the outcomes that destroy it (0: none), and where they come among the others.
    destroyed: int
    first: int
    #: The stands of the firer.
    firer: int


class _Codes(dict[tuple[int, int, bool], int]):
    """The target's field of a state's key by its stands, marker and disorder after a volley, with the turn marks
    ``marks`` (a unit's number) after the turn passes; each unit made where first asked for. It refers to its
    states weakly: the states keep it, and no cycle is left for Python's collector to find once a duel lets them go
    (a duel pauses that collector, and its first pass after would go over every object of the states)."""

    def __init__(self, states: States, marks: int, shift: int) -> None:
        super().__init__()
        self.states, self.marks, self.shift = weakref.ref(states), marks, shift

    def __missing__(self, key: tuple[int, int, bool]) -> int:
        stands, marker, disorder = key
        states = self.states()
        assert states is not None  # asked only by the states that keep it
        n = states._changed_unit(self.marks, stands=stands, micro_hits=marker, disordered=disorder)
        found = self[key] = (n + 1) << self.shift
        return found


class States:
    """The states of a duel in one battle (see the module's text): a :class:`~rangefire.analysis.duel_chain.
    DuelModel`, with :meth:`fire_lefts` for the chain's building.

    A state is given out as one integer (:meth:`key`): the turn's number in its low :data:`BITS` bits and each
    unit's number plus one (0: destroyed) in the next fields, in the battle's order, so that a volley's states
    differ from one another by the target's field alone and are made by one addition."""

    def __init__(self, ruleset: DressOnTheColors, battle: Battle) -> None:
        self.ruleset = ruleset
        self.base = battle
        self.order = [u.id for u in battle.units]
        self.position = {uid: i for i, uid in enumerate(self.order)}
        self.shift = [BITS * (i + 1) for i in range(len(self.order))]
        self.units: list[Unit] = []
        self._stands: list[int] = []
        self._unit_ids: dict[Hashable, int] = {}
        self.turns: list[Any] = []
        self._turn_ids: dict[Hashable, int] = {}
        self._changed: dict[tuple[int, tuple[tuple[str, Any], ...]], int] = {}
        self._normal: dict[int, int] = {}
        self._seen: dict[tuple[int, bool], int] = {}
        self._fired: dict[tuple[int, bool], int] = {}
        self._transfer: dict[tuple[int, int], int] = {}
        #: The game's plan of a volley by (shooter, target, turn, the units as a check reads them): its number
        #: in ``_plan_list`` (-1: refused).
        self._plans: dict[Hashable, int] = {}
        #: Each plan (None where only what the chain reads of it came from a second process: checked again
        #: where asked for), its key in ``_plans``, and whether its firer places a gunsmoke marker [DC-7.1].
        self._plan_list: list[VolleyPlan | None] = []
        self._plan_keys: list[CheckKey] = []
        self._gunsmoke: list[bool] = []
        #: What a second process checks ahead (:meth:`foresee`): the plans' keys asked for and not answered yet,
        #: how to wait for them, and how many units and turns that process has of this model's.
        self._asked: set[CheckKey] = set()
        self._until: Callable[[Callable[[], bool]], bool] | None = None
        self._sent = (0, 0)
        self._variants: dict[tuple[int, int, bool], VolleyPlan] = {}
        self._dice: dict[tuple[int, bool], Dice] = {}
        #: A volley's plan, frame with the turn passed and the target's marks after it (None: refused), by the
        #: state with the target's marker and disorder set aside, the shooter, the target and who is next.
        self._steps: dict[tuple[int, str, str, str], tuple[int, int, int] | None] = {}
        self._frames: dict[tuple[int, int, str], Frame] = {}
        self._landing: dict[tuple[int, int, int], Landed] = {}
        self._passes: dict[Hashable, tuple[int, tuple[int, ...]]] = {}
        self._passed: dict[Hashable, State] = {}
        self._dice_numbers: dict[tuple[int, bool], tuple[int, int]] = {}
        self._dice_ids: dict[Dice, int] = {}
        self._dice_list: list[Dice] = []
        self._losses: dict[tuple[int, int, bool], list[tuple[int, int, int, bool]]] = {}
        #: The target's field of a state a volley and the turn's passing leave, by its marks and place.
        self._codes: dict[tuple[int, int], _Codes] = {}
        self._shapes: dict[tuple[int, int, int, bool], Shape] = {}
        #: The stands left of the firer and the target in each outcome of a volley, by the firer's stands and the
        #: target's in each (:meth:`_landed`); and one tuple for each pair of stands and each target's stands,
        #: marker and disorder, shared by every outcome that leaves them: a duel keeps hundreds of thousands of
        #: these, and fewer objects are quicker for Python to make and its collector to go over.
        self._lefts: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, int], ...]] = {}
        self._pairs: dict[tuple[Any, ...], Any] = {}

    # -- the numbers of units, turns and states -------------------------------------------------------------
    def _unit(self, unit: Unit) -> int:
        key = fingerprint(unit)
        found = self._unit_ids.get(key)
        if found is None:
            found = self._unit_ids[key] = len(self.units)
            if found >= _MASK:
                raise ValueError(f"more than {_MASK - 1:,} states of a unit in one duel")
            self.units.append(unit)
            self._stands.append(unit.stands)
        return found

    def _turn(self, turn: Any) -> int:
        key = None if turn is None else (turn.side, turn.order)
        found = self._turn_ids.get(key)
        if found is None:
            found = self._turn_ids[key] = len(self.turns)
            self.turns.append(turn)
        return found

    def key(self, state: State) -> int:
        """The state as one integer: the turn's number, then each unit's number plus one (0: destroyed)."""
        turn, units = state
        out = turn
        for s, n in zip(self.shift, units, strict=True):
            out += (n + 1) << s
        return out

    def state(self, key: Hashable) -> State:
        """The state of an integer of :meth:`key`."""
        assert isinstance(key, int)
        return key & _MASK, tuple(((key >> s) & _MASK) - 1 for s in self.shift)

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

    def _seen_as(self, n: int, target: bool) -> int:
        """The unit as a check reads it: no marker (a target: and no disorder either), set on the plan after."""
        found = self._seen.get((n, target))
        if found is None:
            found = self._seen[(n, target)] = (self._changed_unit(n, micro_hits=0, disordered=False) if target
                                               else self._changed_unit(n, micro_hits=0))
        return found

    def _fired_unit(self, n: int, gunsmoke: bool) -> int:
        """The firer after its volley: its gunsmoke marker where the plan places one [DC-7.1], fired [DC-9.1]."""
        found = self._fired.get((n, gunsmoke))
        if found is None:
            found = self._fired[(n, gunsmoke)] = self._changed_unit(n, gunsmoke=gunsmoke, fired=True)
        return found

    def _state_of(self, battle: Battle) -> State:
        units = tuple(self._unit(battle.unit(uid)) if any(u.id == uid for u in battle.units) else -1
                      for uid in self.order)
        return self._turn(battle.turn), units

    def _battle_of(self, state: State) -> Battle:
        turn, units = state
        return self.base.model_copy(update={"turn": self.turns[turn],
                                            "units": tuple(self.units[n] for n in units if n >= 0)})

    def state_of(self, battle: Battle) -> int:
        """The state (:meth:`key`) of a battle of this duel."""
        return self.key(self._state_of(battle))

    def battle_of(self, key: Hashable) -> Battle:
        """The battle a state (:meth:`key`) stands for."""
        return self._battle_of(self.state(key))

    # -- the duel's model ---------------------------------------------------------------------------------
    def start(self, first: str) -> int:
        return self.state_of(self.ruleset.duel_begin(self.base, first))

    def left(self, state: Hashable, uid: str) -> int:
        assert isinstance(state, int)
        n = ((state >> self.shift[self.position[uid]]) & _MASK) - 1
        return 0 if n < 0 else self._stands[n]

    def _check_key(self, turn: int, units: Sequence[int], by: int, at: int, shooter: str,
                   target: str) -> CheckKey:
        """The volley as a check reads it: the target's marker and disorder and the firer's marker set aside."""
        seen = list(units)
        shot, firer = units[at], units[by]
        seen[at] = self._seen.get((shot, True)) or self._seen_as(shot, True)
        seen[by] = self._seen.get((firer, False)) or self._seen_as(firer, False)
        return shooter, target, turn, tuple(seen)

    def _plan_number(self, turn: int, units: Sequence[int], by: int, at: int, shooter: str,
                     target: str) -> int:
        """The game's plan of the volley (its number in ``_plan_list``, -1: refused), checked once for every
        state a check can tell apart (:meth:`_check_key`): here, or by a second process asked ahead."""
        key = self._check_key(turn, units, by, at, shooter, target)
        found = self._plans.get(key)
        if found is None:
            # answered, or taken back and worked out here; else (the other process gone, what it was asked
            # forgotten) checked here
            if key in self._asked and self._until is not None and self._until(lambda: key in self._plans):
                return self._plans[key]
            self._asked.discard(key)
            plan = self._checked(key)
            found = self._kept(key, plan, None if plan is None else plan.places_gunsmoke)
        return found

    def _checked(self, key: CheckKey) -> VolleyPlan | None:
        """The game's own check of the volley of a :meth:`_check_key`."""
        shooter, target, turn, seen = key
        plan = self.ruleset.check(self._battle_of((turn, seen)), Attack(shooter, target)).plan
        assert plan is None or isinstance(plan, VolleyPlan)
        return plan

    def _kept(self, key: CheckKey, plan: VolleyPlan | None, gunsmoke: bool | None) -> int:
        """A plan's number given (-1: refused, ``gunsmoke`` None)."""
        found = -1
        if gunsmoke is not None:
            found = len(self._plan_list)
            self._plan_list.append(plan)
            self._plan_keys.append(key)
            self._gunsmoke.append(gunsmoke)
        self._plans[key] = found
        return found

    def _plan_of(self, p: int) -> VolleyPlan:
        """Plan ``p`` itself, checked again where only what the chain reads of it came from a second process."""
        plan = self._plan_list[p]
        if plan is None:
            plan = self._plan_list[p] = self._checked(self._plan_keys[p])
            assert plan is not None
        return plan

    # -- the checks worked out ahead (:mod:`rangefire.analysis.duel_ahead`) ------------------------------
    def foresee(self, state: Hashable, shooter: str, target: str) -> list[tuple[Any, Any]]:
        """The check the volley from ``state`` will need (its :meth:`_check_key`), where neither known nor asked
        for yet: with the units and turns made since the last, for the second process to number them as this one
        does."""
        assert isinstance(state, int)
        units = [((state >> s) & _MASK) - 1 for s in self.shift]
        at, by = self.position[target], self.position[shooter]
        if units[at] < 0 or units[by] < 0:
            return []
        key = self._check_key(state & _MASK, units, by, at, shooter, target)
        if key in self._plans or key in self._asked:
            return []
        self._asked.add(key)
        units_sent, turns_sent = self._sent
        news = None
        if (units_sent, turns_sent) != (len(self.units), len(self.turns)):
            news = (self.units[units_sent:], self.turns[turns_sent:])
            self._sent = (len(self.units), len(self.turns))
        return [(news, key)]

    def learn(self, news: Any) -> None:
        """The units and turns the other process made, numbered as it numbers them."""
        units, turns = news
        self.units.extend(units)
        self.turns.extend(turns)

    def work(self, job: Any) -> Any:
        """A check of :meth:`foresee` worked out (in either process): the game's check of the volley, and what the
        chain reads of its plan: whether it places a gunsmoke marker [DC-7.1] and its dice at a target calm and
        disordered [DC-5.2]; None where refused."""
        plan = self._checked(job)
        return job, None if plan is None else (plan.places_gunsmoke, dice(plan, False), dice(plan, True))

    def take(self, answer: Any) -> None:
        """An answer of :meth:`work` kept, as if the plan had been checked here."""
        key, found = answer
        self._asked.discard(key)
        if key in self._plans:  # worked out here meanwhile
            return
        if found is None:
            self._kept(key, None, None)
            return
        gunsmoke, calm, disordered = found
        p = self._kept(key, None, gunsmoke)
        self._dice[(p, False)], self._dice[(p, True)] = calm, disordered

    def ahead(self, until: Callable[[Callable[[], bool]], bool] | None) -> None:
        """Told how to wait for the second process's answers as it is forked (it then has every unit and turn
        made so far), None once it ends (what is still asked for is then checked here)."""
        self._until = until
        if until is None:
            self._asked.clear()
        else:
            self._sent = (len(self.units), len(self.turns))

    def _plan(self, state: State, shooter: str, target: str) -> VolleyPlan | None:
        """The game's plan of the volley with the target's marker and disorder set on it (None: refused)."""
        turn, units = state
        at, by = self.position[target], self.position[shooter]
        p = self._plan_number(turn, units, by, at, shooter, target)
        if p < 0:
            return None
        plan = self._plan_of(p)
        shot = self.units[units[at]]
        if (shot.micro_hits, shot.disordered) == (plan.target_micro_hits, plan.target_disordered):
            return plan
        variant = (p, shot.micro_hits, shot.disordered)
        found = self._variants.get(variant)
        if found is None:
            found = self._variants[variant] = dataclasses.replace(plan, target_micro_hits=shot.micro_hits,
                                                                  target_disordered=shot.disordered)
        return found

    def _dice_of(self, p: int, disordered: bool) -> Dice:
        """The dice of plan ``p`` at a target so disordered or not [DC-5.2] (no die reads its marker)."""
        found = self._dice.get((p, disordered))
        if found is None:
            found = self._dice[(p, disordered)] = dice(self._plan_of(p), disordered)
        return found

    def fire(self, state: Hashable, shooter: str, target: str, then: str) -> tuple[int, list[tuple[int, Hashable]]]:
        assert isinstance(state, int)
        found = self._volley(state, shooter, target, then)
        if isinstance(found, int):  # refused: the volley changes nothing
            return 1, [(1, found)]
        _, (passed, gone, _), landed = found
        out: list[tuple[int, Hashable]] = [(w, passed + code) for w, code in zip(landed.weights, landed.codes,
                                                                                   strict=True)]
        if landed.destroyed:
            out.insert(landed.first, (landed.destroyed, gone))
        return landed.total, out

    def transitions(self, state: Hashable, shooter: str, target: str, then: str) -> tuple[
            int, Sequence[int], list[Hashable], Sequence[tuple[int, int]], list[tuple[int, int, int]]]:
        """:meth:`fire`'s outcomes split for the chain (:func:`~rangefire.analysis.duel_chain.build`): the
        denominator; the weights, the states where both units stand (each once, in :meth:`fire`'s order) and the
        stands left of the shooter and of the target in each; and the ends (weight, stands left of the shooter, of
        the target). The weights and stands are those of the target's outcomes (:meth:`_landed`), and each state
        its frame's key plus the target's field."""
        assert isinstance(state, int)
        at = self.shift[self.position[target]]
        shot = ((state >> at) & _MASK) - 1
        seen = self._seen.get((shot, True))
        if seen is None:
            seen = self._seen_as(shot, True)
        # the state as the volley's plan and frame read it: the target's marker and disorder set aside
        key = (state + ((seen - shot) << at), shooter, target, then)
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = self._step(state, shooter, target, then)
        if found is None:  # refused: the volley changes nothing
            after = self.key(self._pass(self.state(state), shooter, target, then))
            return 1, (1,), [after], [(self.left(after, shooter), self.left(after, target))], []
        p, passed, marks = found
        landed = self._landing.get((p, shot, marks))
        if landed is None:
            firer = ((state >> self.shift[self.position[shooter]]) & _MASK) - 1
            landed = self._landed(p, firer, shot, marks, self.position[target])
        ends = [(landed.destroyed, landed.firer, 0)] if landed.destroyed else []
        return landed.total, landed.weights, [passed + code for code in landed.codes], landed.lefts, ends

    def _step(self, state: int, shooter: str, target: str, then: str) -> tuple[int, int, int] | None:
        """The volley's plan, the key of its frame with the turn passed and the target's turn marks after it
        (:meth:`_frame`); None where the volley is refused. The same for every state differing only in the
        target's marker and disorder."""
        found = self._volley(state, shooter, target, then)
        if isinstance(found, int):
            return None
        p, (passed, _, marks), _ = found
        return p, passed, marks

    def _volley(self, state: int, shooter: str, target: str, then: str) -> int | tuple[int, Frame, Landed]:
        """The volley's plan (its number), frame (:meth:`_frame`) and the target's outcomes (:meth:`_landed`), or
        the state after a refused volley."""
        turn = state & _MASK
        units = [((state >> s) & _MASK) - 1 for s in self.shift]
        at, by = self.position[target], self.position[shooter]
        firer, shot = units[by], units[at]
        p = self._plan_number(turn, units, by, at, shooter, target)
        if p < 0:
            return self.key(self._pass((turn, tuple(units)), shooter, target, then))
        frame = self._frames.get((p, firer, then))
        if frame is None:
            frame = self._frame(p, turn, units, by, at, then)
        landed = self._landing.get((p, shot, frame[2]))
        if landed is None:
            landed = self._landed(p, firer, shot, frame[2], at)
        return p, frame, landed

    def _frame(self, p: int, turn: int, units: Sequence[int], by: int, at: int, then: str) -> Frame:
        """What plan ``p``'s volley leaves of every unit but its target, by its firer ``units[by]``, as the
        key of a state whose target is destroyed: with the turn passed to ``then`` (the firer's gunsmoke marker
        and fired mark [DC-7.1, DC-9.1], then the game's end of turn [DC-9.3]); without it (the target
        destroyed, the duel ends); and the target's turn marks after the turn passes. The same for every state
        with this plan and firer (the plan reads every other unit and the turn)."""
        shooter, target = self.order[by], self.order[at]
        shift = self.shift
        fired = self._fired_unit(units[by], self._gunsmoke[p])  # [DC-7.1, DC-9.1]
        normal = self._normalised
        marks = tuple(normal(fired) if i == by else -1 if n < 0 else normal(n) for i, n in enumerate(units))
        new_turn, new_marks = self._passing(turn, marks, shooter, target, then)
        passed, gone = new_turn, turn
        for i, n in enumerate(units):
            if i == by:
                passed += (self._marked(new_marks[i], fired) + 1) << shift[i]
                gone += (fired + 1) << shift[i]
            elif i != at and n >= 0:
                passed += (self._marked(new_marks[i], n) + 1) << shift[i]
                gone += (n + 1) << shift[i]
        found = self._frames[(p, units[by], then)] = (passed, gone, new_marks[at])
        return found

    def _landed(self, p: int, firer: int, shot_n: int, marks: int, at: int) -> Landed:
        """Plan ``p``'s outcomes by ``firer`` at the target ``shot_n`` (at place ``at``) whose turn marks after
        the turn passes are ``marks`` (:class:`Landed`): the outcomes of its dice at a target of its stands,
        marker and disorder (:meth:`_shape`), each with the target's field of the state's key."""
        shot = self.units[shot_n]
        number, total = self._dice_numbers.get((p, shot.disordered)) or self._dice_number(p, shot.disordered)
        shape = self._shapes.get((number, shot.stands, shot.micro_hits, shot.disordered))
        if shape is None:
            shape = self._shape(number, total, shot.stands, shot.micro_hits, shot.disordered)
        codes = self._codes.get((marks, at))
        if codes is None:
            codes = self._codes[(marks, at)] = _Codes(self, marks, self.shift[at])
        left = self._stands[firer]
        lefts = self._lefts.get((left, shape[3]))
        if lefts is None:
            pair = self._pairs.setdefault
            lefts = self._lefts[(left, shape[3])] = tuple([pair(k, k) for k in zip(itertools.repeat(left), shape[3])])
        landed = self._landing[(p, shot_n, marks)] = Landed(
            shape[0], shape[1], tuple(map(codes.__getitem__, shape[2])), lefts, shape[4], shape[5], left)
        return landed

    def _shape(self, number: int, total: int, stands: int, micro_hits: int, disordered: bool) -> Shape:
        """What the dice numbered ``number`` (weights over ``total``) leave of a target of these stands, marker
        and disorder, merged, in the order the dice first give each [DC-4.3, DC-5.3] (:data:`Shape`)."""
        lost = self._lost(number, micro_hits, disordered)
        weights = [w for w, gone, _, _ in lost if gone < stands]
        one = self._pairs.setdefault
        kept = [one(k, k) for k in [(stands - gone, marker, disorder) for _, gone, marker, disorder in lost
                                    if gone < stands]]
        destroyed = sum([w for w, gone, _, _ in lost if gone >= stands])
        # every outcome before the first that destroys it leaves it standing
        first = next((i for i, (_, gone, _, _) in enumerate(lost) if gone >= stands), -1)
        common = math.gcd(total, destroyed, *weights)  # the weights in lowest terms
        if common > 1:
            total, destroyed, weights = total // common, destroyed // common, [w // common for w in weights]
        found = self._shapes[(number, stands, micro_hits, disordered)] = (
            total, tuple(weights), tuple(kept), tuple([k[0] for k in kept]), destroyed, first)
        return found

    def _dice_number(self, p: int, disordered: bool) -> tuple[int, int]:
        """The number of plan ``p``'s dice at a target so disordered or not (equal dice, one number), and their
        weights' total."""
        key = (p, disordered)
        found = self._dice_numbers.get(key)
        if found is None:
            rolled = self._dice_of(p, disordered)
            number = self._dice_ids.get(rolled)
            if number is None:
                number = self._dice_ids[rolled] = len(self._dice_list)
                self._dice_list.append(rolled)
            found = self._dice_numbers[key] = (number, rolled[1])
        return found

    def _lost(self, number: int, micro_hits: int, disordered: bool) -> list[tuple[int, int, int, bool]]:
        """What the dice numbered ``number`` take of a target with this marker and disorder, whatever its
        stands: (weight, stands lost, the marker left, disorder after) merged, in the order the dice first give
        each [DC-4.3, DC-5.3]; every outcome losing at least the target's stands destroys it."""
        key = (number, micro_hits, disordered)
        found = self._losses.get(key)
        if found is None:
            merged: dict[tuple[int, int, bool], int] = {}
            for w, unsaved, disorder in self._dice_list[number][0]:
                lost, marker = divmod(micro_hits + unsaved, 2)  # uncapped: at least the stands destroys it
                k = (lost, marker, disordered or disorder)
                merged[k] = merged.get(k, 0) + w
            found = self._losses[key] = [(w, *k) for k, w in merged.items()]
        return found

    def sample(self, state: Hashable, shooter: str, target: str, then: str, n: int,
               rng: np.random.Generator) -> list[tuple[int, Hashable]]:
        """``n`` volleys from this state with every die rolled (the game's own rolls, :func:`~rangefire.rulesets.
        dress_on_the_colors.duel.sampled_volleys`), counted by the state each leaves: as :meth:`fire`, the dice
        rolled instead of weighed (for the Monte Carlo, which never reads the exact transitions)."""
        from rangefire.rulesets.dress_on_the_colors.duel import sampled_volleys

        turn, units = self.state(state)
        plan = self._plan((turn, units), shooter, target)
        if plan is None:
            return [(n, self.key(self._pass((turn, units), shooter, target, then)))]
        at, by = self.position[target], self.position[shooter]
        shot = self.units[units[at]]
        fired = self._fired_unit(units[by], plan.places_gunsmoke)  # [DC-7.1, DC-9.1]
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
        return [(c, self.key(k)) for k, c in out.items()]

    def _passing(self, turn: int, marks: tuple[int, ...], shooter: str, target: str,
                 then: str) -> tuple[int, tuple[int, ...]]:
        """The turn and every unit's marks after the turn passes to ``then``'s side (round to it again where it
        fired last), by the game's end of turn, worked out once for every state of the marks and the side
        [DC-9.3]: ``marks`` are the units as end of turn reads them (:meth:`_normalised`)."""
        key = (turn, marks, shooter, target, then)
        found = self._passes.get(key)
        if found is None:
            battle = self._battle_of((turn, marks))
            if then == shooter:
                battle = self.ruleset.duel_pass(battle, target)
            battle = self.ruleset.duel_pass(battle, then)
            found = self._passes[key] = self._state_of(battle)
        return found

    def _pass(self, state: State, shooter: str, target: str, then: str) -> State:
        """The state with the turn passed to ``then``'s side: every unit with its marks after the turn passes
        and its own stands, marker and disorder [DC-9.3]."""
        whole = (state, shooter, target, then)
        done = self._passed.get(whole)
        if done is None:
            turn, units = state
            marks = tuple(self._normalised(n) if n >= 0 else -1 for n in units)
            new_turn, new_marks = self._passing(turn, marks, shooter, target, then)
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
