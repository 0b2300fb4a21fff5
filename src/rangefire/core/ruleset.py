"""The :class:`Ruleset` base: one public flow, hooks filled in by each game.

The flow is check -> plan -> odds / resolve -> apply. The base class owns what every game shares (looking
units up, refusing an illegal attack, recording the dice, checking that entered dice were all used); a game
subclass overrides the underscored hooks, as python-chess variants override a few methods of ``Board``.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Collection, Hashable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, cast

from pydantic import BaseModel
from typing_extensions import TypeVar

from rangefire.core.errors import ChoiceError, IllegalAttackError, RangefireError, UnknownUnitError
from rangefire.core.moves import IllegalMoveError, Mark, Move, MoveCheck
from rangefire.core.options import written_options
from rangefire.core.source import DiceSource, EnteredSource, RecordingSource, parse_entered
from rangefire.core.types import (
    Attack,
    Check,
    Choice,
    LogLine,
    NextChoice,
    Odds,
    Outcome,
    Plan,
    Refusal,
    Resolution,
)

if TYPE_CHECKING:
    import numpy as np

B = TypeVar("B", bound=BaseModel)
P = TypeVar("P", bound=Plan)
OutcomeT = TypeVar("OutcomeT", bound=Outcome, default=Outcome)


#: No choices given (the default of :meth:`Ruleset.attack`; read-only, so no call can change it for the next).
NO_CHOICES: Mapping[str, object] = MappingProxyType({})

#: The last turn a battle file records (each game's ``turn.number`` is at most this).
MAX_TURN = 100_000


class NoDuelError(RangefireError):
    """A game whose units cannot exchange fire turn by turn (its duel hooks are not filled in)."""

    kind = "no_duel"


def check_turn_number(number: int) -> None:
    """Refuse to pass the turn to one a battle file cannot record, before anything is written."""
    if number > MAX_TURN:
        raise RangefireError(f"turn {MAX_TURN} is the last a battle file records (turn.number at most {MAX_TURN}); "
                             "the turn cannot pass beyond it")


class PassedTurn(NamedTuple):
    """A turn passed (:meth:`Ruleset.passed_turn`): who ends it, the number and side it passes to, and its log
    lines, those said before the game's own end-of-turn steps and those after."""

    side: str
    number: int
    following: str
    opening: list[LogLine]
    closing: list[LogLine]


def next_in_order(order: Sequence[str], left: Sequence[str], side: str | None) -> tuple[str, bool, list[str]]:
    """The side that follows ``side`` in ``order`` and has a unit left (``left``), whether the order came round
    past its last side to get there, and the sides passed over on the way (none left to them). ``side`` None, or
    not in the order, is taken to stand before the first. ValueError when no side of the order has a unit left."""
    start = order.index(side) if side in order else -1
    passed: list[str] = []
    for step in range(1, len(order) + 1):
        at = start + step
        candidate = order[at % len(order)]
        if candidate in left:
            return candidate, at >= len(order), passed
        passed.append(candidate)
    raise ValueError("no side has a unit left to take the turn")


def hidden_of(kept: Mapping[str, int]) -> dict[str, Any]:
    """What an answer says of what is kept from the side it is for: each hand it may not see, by its size,
    and that the odds it is shown assume nothing of them [SW-1.4]."""
    sizes = ", ".join(f"{owner}'s {size} card{'s' if size != 1 else ''}" for owner, size in kept.items())
    return {"hands": dict(kept), "note": f"worked out on what you can see: {sizes} in hand unknown to you, no "
                                         "tactic from them assumed [SW-1.4]"}


class Ruleset(ABC, Generic[B, P, OutcomeT]):
    """A game's ranged combat behind one protocol.

    Class attributes describe the game; the hooks implement it:

    - ``_unit_ids(battle)``: the ids an attack may name (by default those of ``battle.units``);
    - ``_allowed_values(battle, attack, choice)``: the values a choice may take in this battle, where they depend
      on it (by default the declared ``allowed``);
    - ``_check(battle, attack)``: a plan, or the refusals with their clauses;
    - ``_check_many(battle, attacks)``: the same for many attacks of one battle (by default one by one; a game
      whose checks share work, such as one screen of every pair's sight, overrides it);
    - ``_odds(plan)``: the exact distributions;
    - ``_resolve(plan, source)``: the log and the outcome of one attack;
    - ``_apply(battle, resolution)``: the battle after it.
    """

    key: ClassVar[str]
    """The game's key, as a scenario's ``ruleset`` names it."""
    title: ClassVar[str]
    """The game's name for people."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names the game is found by (``find_ruleset``)."""
    clause_prefix: ClassVar[str]
    """The prefix of the game's clauses (every refusal, modifier and log line cites one of them)."""
    stages: ClassVar[tuple[str, ...]]
    """The stages its dice are rolled in, as entered dice name them (``--dice hit=6,4``)."""
    outcome_names: ClassVar[tuple[str, ...]]
    """The integer-valued outcomes ``odds`` gives the exact distribution of, and a resolution's outcome
    reports (design section 5)."""
    event_names: ClassVar[tuple[str, ...]]
    """The events ``odds`` gives the exact probability of, and a resolution's outcome reports."""
    conditions: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """Outcomes that hold only given an event, with the words saying so (a level of success ``"given a hit"``): a chart
    or table of them says it."""
    main_outcome: ClassVar[str]
    """The outcome a player weighs a target by (one of ``outcome_names``): its mean is what a table of targets shows."""
    chooses_target: ClassVar[str | None] = None
    """The clause under which the rules choose the target when an attack names none; None where the player names it."""
    choices: ClassVar[tuple[Choice, ...]] = ()
    """The player's choices beyond attacker and target, as data (others are refused)."""
    choice_names: ClassVar[tuple[str, ...]] = ()
    """Their names, in the order declared (derived from ``choices``)."""
    battle_model: ClassVar[type[BaseModel]]
    """The model a scenario of the game is read into (its battle)."""
    options_model: ClassVar[type[BaseModel]]
    """The model of the battle's ``options``: the rulings, and the numbers a house rule may set."""
    written_rulings: ClassVar[tuple[str, ...]] = ()
    """The options every written battle holds even at the rules' value (the rulings); every other option is written
    only where a house rule departs from the rules."""
    has_activations: ClassVar[bool] = False
    """Whether a turn is made of activations that end on their own (``end_activation``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.choice_names = tuple(choice.name for choice in cls.choices)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # -- the player's choices ----------------------------------------------------------------------
    def choice(self, name: str) -> Choice:
        """The declared choice of that name; :class:`ChoiceError` if this game has none."""
        for choice in self.choices:
            if choice.name == name:
                return choice
        known = ", ".join(self.choice_names) or "none"
        raise ChoiceError(name, f"{name} does not apply to {self.key} (its choices: {known})")

    def attack(self, attacker: str, target: str | None = None,
               choices: Mapping[str, object] = NO_CHOICES) -> Attack:
        """An attack with the player's choices, each checked against this game's declaration: an unknown name or
        a value not allowed raises :class:`ChoiceError` naming the choice (values that depend on the battle are
        checked by :meth:`check`)."""
        return Attack(attacker, target, self._read_choices(choices.items()))

    def allowed_values(self, battle: B, attack: Attack, name: str) -> tuple[str, ...]:
        """The values the choice ``name`` may take for this attack in this battle: the declared ``allowed`` where
        they are fixed; where they depend on the battle (the models that may be nominated, the actions open to
        the player next), the game's answer, empty where there is none."""
        choice = self.choice(name)
        attack = Attack(attack.attacker, attack.target, self._read_choices(attack.choices))
        return tuple(self._allowed_values(battle, attack, choice))

    def _read_choices(self, given: Any) -> tuple[tuple[str, Any], ...]:
        return tuple((name, self.choice(name).read(value)) for name, value in given)

    # -- the public flow ---------------------------------------------------------------------------
    def check(self, battle: B, attack: Attack) -> Check[P]:
        """May this attack be made? A :class:`Check` holding the plan or the refusals.

        Raises :class:`UnknownUnitError` for an id the battle does not hold and :class:`ChoiceError` for a choice
        this game does not have or a value it does not allow: that is bad input, not a refusal by the rules.
        """
        attack = self._read_attack(attack, self._unit_ids(battle))
        return self._checked(attack, self._check(battle, attack))

    def check_many(self, battle: B, attacks: Sequence[Attack]) -> list[Check[P]]:
        """:meth:`check` for every attack of one battle, in order, with the same answers word for word: a game
        that shares work between the checks of one battle (a screen of every pair's sight at once) does it in
        ``_check_many``; by default each attack is checked in turn. Bad input in any attack (an unknown id, a
        choice this game does not have) is raised before anything is checked."""
        ids = self._unit_ids(battle)
        read = [self._read_attack(attack, ids) for attack in attacks]
        results = self._check_many(battle, read)
        if len(results) != len(read):
            raise AssertionError(f"{self.key}: {len(results)} answers to {len(read)} attacks")
        return [self._checked(attack, result) for attack, result in zip(read, results, strict=True)]

    def _read_attack(self, attack: Attack, ids: Sequence[str]) -> Attack:
        """The attack with its choices read; an id the battle does not hold raised as bad input."""
        attack = Attack(attack.attacker, attack.target, self._read_choices(attack.choices))
        for role, uid in (("attacker", attack.attacker), ("target", attack.target)):
            if uid is not None and uid not in ids:
                known = ", ".join(ids) or "none"
                raise UnknownUnitError(f"{role} {uid!r} is not in this battle (units: {known})")
        return attack

    def _checked(self, attack: Attack, result: P | Sequence[Refusal]) -> Check[P]:
        if isinstance(result, Plan):
            return Check(attack.attacker, result.target, plan=result)
        refusals = tuple(result)
        self._clauses_of(refusals)
        return Check(attack.attacker, attack.target, refusals=refusals)

    def plan(self, battle: B, attack: Attack) -> P:
        """The plan of a legal attack; raises :class:`IllegalAttackError` with the refusals otherwise."""
        checked = self.check(battle, attack)
        if checked.plan is None:
            raise IllegalAttackError(checked.refusals)
        return checked.plan

    def odds(self, plan: P) -> Odds[P]:
        """The exact distribution of every named outcome of a planned attack, with the plan as given."""
        # a game's hook builds its Odds on the plan it is given (typed there as a Plan of any game)
        return cast("Odds[P]", self._odds(plan))

    def resolve(self, plan: P, source: DiceSource) -> Resolution[OutcomeT, P]:
        """Play a planned attack out with dice from ``source``; every step logged by clause."""
        recorder = RecordingSource(source)
        log, outcome = self._resolve(plan, recorder)
        recorder.finish()
        dice = {stage: tuple(v) for stage, v in recorder.record.items()}
        return Resolution(plan=plan, log=tuple(log), dice=dice, outcome=outcome)

    def apply(self, battle: B, resolution: Resolution[OutcomeT]) -> B:
        """The battle after the attack: a new value, the old one untouched."""
        return self._apply(battle, resolution)

    def play(self, battle: B, attack: Attack, source: DiceSource) -> tuple[Resolution[OutcomeT, P], B]:
        """Check, resolve and apply in one step; nothing changes if any step fails."""
        plan = self.plan(battle, attack)
        resolution = self.resolve(plan, source)
        return resolution, self.apply(battle, resolution)

    def next_choice(self, battle: B, attack: Attack) -> NextChoice | None:
        """For games played as a sequence of choices: the next one, with the side whose player makes it (a
        :class:`NextChoice`); None when nothing is left to choose (the default: the attack is fully described by
        attacker and target, and the choices its own player sends with it)."""
        return None

    def next_choices(self, battle: B, attack: Attack) -> tuple[str, list[str]] | None:
        """:meth:`next_choice` in words: who chooses next (for people) and from what; None when nothing is
        left to choose."""
        question = self.next_choice(battle, attack)
        return None if question is None else (question.who, list(question.allowed))

    def with_choice(self, attack: Attack, answer: str) -> Attack:
        """The attack with one more answer to :meth:`next_choices` (by default, one more action in the line)."""
        choices = dict(attack.choices)
        choices["actions"] = (*choices.get("actions", ()), answer)
        return Attack(attack.attacker, attack.target, tuple(choices.items()))

    def answers_in(self, attack: Attack) -> tuple[Attack, tuple[str, ...]]:
        """The attack as declared, without the answers to :meth:`next_choice` its choices hold, and those answers
        in the order they were made: :meth:`with_choice` of each in turn on the declared attack gives the
        attack back. So a program can tell, answer by answer, whose each was (by default the answers are a
        line of play's actions)."""
        choices = dict(attack.choices)
        actions = tuple(choices.pop("actions", ()))
        return Attack(attack.attacker, attack.target, tuple(choices.items())), actions

    def unit_ids(self, battle: B) -> Sequence[str]:
        """The ids an attack may name, in file order."""
        return self._unit_ids(battle)

    def side_of(self, battle: B, uid: str) -> str:
        """The side (player) a unit belongs to."""
        return self._side_of(battle, uid)

    def sides(self, battle: B) -> list[str]:
        """Every side, in the order turns pass in: the order the battle records (``turn.order``, fixed when its
        scenario was first read, so a side whose units are all gone keeps its place), or where it records none
        the order in which its units first name their sides."""
        recorded = getattr(getattr(battle, "turn", None), "order", None)
        if recorded:
            return list(recorded)
        return list(dict.fromkeys(self.side_of(battle, uid) for uid in self.unit_ids(battle)))

    def sides_left(self, battle: B) -> list[str]:
        """The sides that still take their turn, in the order of :meth:`sides`: by default those with a unit
        left (a side with none is passed over when the turn passes); a game that passes the turn to every
        player whatever it holds overrides :meth:`_sides_left`."""
        left = set(self._sides_left(battle))
        return [side for side in self.sides(battle) if side in left]

    def following_side(self, battle: B, side: str | None) -> tuple[str, bool, list[str]]:
        """The side the turn (or the activation) passes to after ``side``: the next side of :meth:`sides` with a
        unit left; whether the order came round past its last side to reach it (a new turn); and the sides
        passed over, having no unit left. ``side`` None stands before the first side."""
        try:
            return next_in_order(self.sides(battle), self.sides_left(battle), side)
        except ValueError:
            raise RangefireError("no side has a unit left to take the turn") from None

    def side_to_act(self, battle: B) -> str | None:
        """The side whose turn it is, where the battle records one; None where nothing limits who acts."""
        return self._side_to_act(battle)

    def end_turn(self, battle: B) -> tuple[B, list[LogLine]]:
        """The battle after the side to act ends its turn: the game's end-of-turn clauses, each step logged
        with its clause. A new value; the old battle is untouched."""
        after, log = self._end_turn(battle)
        return after, list(log)

    def end_activation(self, battle: B) -> tuple[B, list[LogLine]]:
        """The battle after the side to act ends one activation, where the game's turns are made of them."""
        if not self.has_activations:
            raise RangefireError(f"{self.key} has no activations to end: end the whole turn instead")
        after, log = self._end_activation(battle)
        return after, list(log)

    def passed_turn(self, battle: B, clause: str, order_clause: str) -> PassedTurn:
        """Who ends the turn recorded as ``battle.turn`` (``number`` and ``side``), and the turn number and side it
        passes to (:meth:`following_side`): the next side in the order of the sides with a unit left, a side with
        none passed over (``order_clause``); the number grows only when the order comes round past its last side.
        A battle that records no side to act is taken to be at turn 1 (or its recorded number) of its first side
        with a unit left (the log says so).

        Returns a :class:`PassedTurn`: the log lines said before the game's own end-of-turn steps (``opening``)
        and after them (``closing``: the sides passed over, the turn passing).
        """
        turn = getattr(battle, "turn", None)
        number: int | None = getattr(turn, "number", None)
        side: str | None = getattr(turn, "side", None)
        log: list[LogLine] = []
        if side is None:
            side = self.following_side(battle, None)[0]
            log.append(LogLine(clause, f"the battle recorded no turn: it is taken to be turn {number or 1} of "
                                       f"{side}, the first side"))
        number = number or 1
        following, wrapped, passed = self.following_side(battle, side)
        next_number = number + 1 if wrapped else number
        check_turn_number(next_number)
        closing = [LogLine(order_clause, f"{gone} has no unit left: its turn is passed over") for gone in passed]
        closing.append(LogLine(clause, f"turn {number}: {side}'s turn ends; the turn passes to {following}"
                                       + (f", turn {next_number} begins" if next_number != number else "")))
        return PassedTurn(side, next_number, following, log, closing)

    # -- moves and marks: the table changed between attacks [DC-10, AL-10, BU-9, SW-9] -------------------
    #: The unit a move's distance is measured in ("in", "steps"), None where the game measures none.
    move_unit: ClassVar[str | None] = "in"
    #: The states a player sets and clears on its own units in play (:meth:`mark`), none by default.
    markable: ClassVar[tuple[str, ...]] = ()
    #: The clause under which units and terrain are placed, changed and removed before the first turn
    #: (:func:`rangefire.rulesets.setup.check_edit`); None for a game without set-up edits.
    setup_clause: ClassVar[str | None] = None

    def check_move(self, battle: B, move: Move) -> MoveCheck:
        """May this move be made? A :class:`MoveCheck` holding the battle after it, its log lines by clause and the
        distance moved, or the refusals with their clauses. An id the battle does not hold is bad input
        (:class:`UnknownUnitError`), as for an attack."""
        self._known(battle, move.unit)
        checked = self._move(battle, move)
        self._clauses_of(checked.refusals)
        return checked

    def move(self, battle: B, move: Move) -> tuple[B, list[LogLine]]:
        """The battle after a legal move and its log; :class:`IllegalMoveError` with the refusals otherwise."""
        checked = self.check_move(battle, move)
        if not checked.is_legal:
            raise IllegalMoveError(checked.refusals)
        return cast("B", checked.after), list(checked.log)

    def check_mark(self, battle: B, mark: Mark) -> MoveCheck:
        """May this state be set (or cleared)? As :meth:`check_move`."""
        self._known(battle, mark.unit)
        if mark.state not in self.markable:
            known = ", ".join(self.markable) or "none"
            raise RangefireError(f"{mark.state!r} is not a state a player sets in {self.key} (states: {known})")
        checked = self._mark(battle, mark)
        self._clauses_of(checked.refusals)
        return checked

    def mark(self, battle: B, mark: Mark) -> tuple[B, list[LogLine]]:
        """The battle after a legal mark and its log; :class:`IllegalMoveError` with the refusals otherwise."""
        checked = self.check_mark(battle, mark)
        if not checked.is_legal:
            raise IllegalMoveError(checked.refusals)
        return cast("B", checked.after), list(checked.log)

    def _known(self, battle: B, uid: str) -> None:
        ids = self._unit_ids(battle)
        if uid not in ids:
            raise UnknownUnitError(f"unit {uid!r} is not in this battle (units: {', '.join(ids) or 'none'})")

    def _clauses_of(self, refusals: Sequence[Refusal]) -> None:
        for refusal in refusals:
            if not refusal.clause.startswith(self.clause_prefix + "-"):
                raise AssertionError(f"refusal without a clause of this game: {refusal!r}")

    def enemies(self, battle: B, attacker: str) -> list[str]:
        """The units an attacker could be checked against: those of every other side, in file order."""
        side = self.side_of(battle, attacker)
        return [uid for uid in self._target_ids(battle) if self.side_of(battle, uid) != side]

    def entered_dice(self, items: Sequence[str]) -> EnteredSource:
        """Dice typed in by the player (``hit=6,4,3``), checked against this game's stages."""
        return parse_entered(items, self.stages)

    # -- duels: two units exchanging fire, turn by turn ------------------------------------------
    #: What :meth:`duel_left` counts ("stands", "hp", "wounds left"...), for people and charts.
    duel_left_name: ClassVar[str] = "left"
    #: The module that plays this game's duels (imported when a duel is asked for), or None for a game without
    #: one. It holds ``exchanges(ruleset, battle, attack)``, ``sampled_exchanges(ruleset, battle, attack, n,
    #: rng)`` and ``left(battle, uid)``, and where the game needs them ``battle_key(battle)``,
    #: ``begin(ruleset, battle, uid)`` and ``pass_to(ruleset, battle, uid)``; the hooks below call them.
    duel_module: ClassVar[str | None] = None

    def _duel(self) -> Any:
        if self.duel_module is None:
            raise NoDuelError(f"{self.key} has no duel: its units cannot exchange fire turn by turn here")
        return importlib.import_module(self.duel_module)

    def exchanges(self, battle: B, attack: Attack) -> list[tuple[Fraction, B]]:
        """Every battle this attack can leave behind (the attack resolved and applied), with its exact probability;
        equal battles merged; probabilities sum to 1. A refused attack leaves the battle as it is."""
        return cast("list[tuple[Fraction, B]]", self._duel().exchanges(self, battle, attack))

    def sampled_exchanges(self, battle: B, attack: Attack, n: int,
                          rng: np.random.Generator) -> list[tuple[int, B]]:
        """``n`` attacks played from this battle with every die rolled (vectorised, from ``rng``), the battles they
        leave behind counted (the counts sum to ``n``); a refused attack leaves all ``n`` as they are."""
        return cast("list[tuple[int, B]]", self._duel().sampled_exchanges(self, battle, attack, n, rng))

    def duel_left(self, battle: B, uid: str) -> int:
        """What is left of a unit (stands, hit points, wound boxes unmarked...): 0 when it is destroyed or gone."""
        return int(self._duel().left(battle, uid))

    def duel_bounds(self, battle: B, attack: Attack) -> tuple[int, int, int] | None:
        """Bounds on a duel's work, known before any is done: the most states the target can take while it stands
        (what attacks can change of it), the most battles one such attack can leave, and the values of what the
        target spends by one with each attack it makes (Ammo, orders paid: 1 where none), which the states leave
        out; None where the game gives none (its duel module's ``bounds``, of two numbers or three)."""
        module = self._duel()
        if not hasattr(module, "bounds"):
            return None
        found = tuple(module.bounds(self, battle, attack))
        return int(found[0]), int(found[1]), int(found[2]) if len(found) > 2 else 1

    def duel_key(self, battle: B) -> Hashable:
        """A value equal for two battles of one duel only where they are equal (a duel merges the battles it
        reaches by it): the game's own ``battle_key``, else the battle's fingerprint (cheaper to hash than the
        battle, whose coordinates are Fractions)."""
        module = self._duel()
        if hasattr(module, "battle_key"):
            return cast(Hashable, module.battle_key(battle))
        from rangefire.core.fingerprint import fingerprint

        return fingerprint(battle)

    def duel_pass(self, battle: B, uid: str) -> B:
        """The battle with the turn passed until the side of ``uid`` is to act: the game's own end-of-turn clauses
        (:meth:`end_turn`), as many times as there are sides in between. Where the battle records no side to
        act, one end of turn is taken (it may record one). A game whose turn passes otherwise says so in its
        duel module's ``pass_to``."""
        module = self._duel()
        if hasattr(module, "pass_to"):
            return cast("B", module.pass_to(self, battle, uid))
        side = self.side_of(battle, uid)
        for _ in range(len(self.sides(battle)) + 1):
            battle, _log = self.end_turn(battle)
            if self.side_to_act(battle) in (None, side):
                return battle
        raise RangefireError(f"the turn never passes to {side}, the side of {uid}")

    def duel_begin(self, battle: B, uid: str) -> B:
        """The battle as a duel begins with ``uid`` to fire: as it is when that unit's side is to act or the
        battle records no side to act; otherwise with the turn passed to it (:meth:`duel_pass`)."""
        module = self._duel()
        if hasattr(module, "begin"):
            return cast("B", module.begin(self, battle, uid))
        if self.side_to_act(battle) in (None, self.side_of(battle, uid)):
            return battle
        return self.duel_pass(battle, uid)

    # -- scenarios ---------------------------------------------------------------------------------
    def raw_problems(self, data: Mapping[str, Any]) -> list[str]:
        """Problems field validation cannot see (ids used twice...), found on the raw scenario mapping."""
        return []

    def default_options(self) -> dict[str, Any]:
        return self.options_model().model_dump(mode="json")

    def dump(self, battle: B) -> dict[str, Any]:
        """The battle as a scenario mapping that every command reads again: its options as
        :func:`~rangefire.core.options.written_options` keeps them (the rulings in ``written_rulings``, and
        any other value only where a house rule sets it)."""
        data = battle.model_dump(mode="json", exclude_none=True)
        options = getattr(battle, "options", None)
        if isinstance(options, BaseModel) and "options" in data:
            data["options"] = written_options(options, self.written_rulings)
        return data

    def status(self, battle: B) -> list[dict[str, Any]]:
        """One row per unit for people: what an attack can change. Games add their own columns."""
        return [{"id": uid} for uid in self.unit_ids(battle)]

    # -- what a side may see ---------------------------------------------------------------------------
    def seen_by(self, battle: B, side: str | None, revealed: Collection[str] = ()) -> B:
        """The battle as ``side`` may know it (None: a spectator, who is told no secret): what the rules keep
        from that side left out, so that nothing worked out on it names what it may not see, but for what the
        player's choices ``revealed`` have shown (a card played from a hand). A game with nothing secret (most)
        gives the battle itself."""
        return battle

    def kept_from(self, battle: B, side: str | None) -> dict[str, int]:
        """What :meth:`seen_by` leaves out for ``side``, as sizes by owner (a card game: each other hand's
        size); empty where nothing is."""
        return {}

    def seen_as(self, battle: B, side: str | None) -> tuple[B, dict[str, Any] | None]:
        """The battle as ``side`` sees it (:meth:`seen_by`) and what is kept from it (:func:`hidden_of`), for
        an answer that is worked out on it; the battle itself and None where nothing is kept."""
        kept = self.kept_from(battle, side)
        if not kept:
            return battle, None
        return self.seen_by(battle, side), hidden_of(kept)

    # -- hooks -------------------------------------------------------------------------------------
    def _unit_ids(self, battle: B) -> Sequence[str]:
        """The ids of the battle's ``units`` (a game whose pieces live elsewhere overrides this)."""
        return [unit.id for unit in getattr(battle, "units", ())]

    def _side_of(self, battle: B, uid: str) -> str:
        """The ``side`` of the unit with that id (a game whose pieces have owners instead overrides this)."""
        for unit in getattr(battle, "units", ()):
            if unit.id == uid:
                return str(unit.side)
        raise UnknownUnitError(f"{uid!r} is not in this battle")

    def _sides_left(self, battle: B) -> Sequence[str]:
        """The sides with a unit left (a game whose every player takes its turn whatever it holds overrides
        this)."""
        return [self.side_of(battle, uid) for uid in self.unit_ids(battle)]

    def _side_to_act(self, battle: B) -> str | None:
        """By default a battle records no turn (a game with turns overrides this)."""
        return None

    def _end_turn(self, battle: B) -> tuple[B, Sequence[LogLine]]:
        """By default a game keeps no turns (a game with turns overrides this)."""
        raise RangefireError(f"{self.key} keeps no turns to end")

    def _end_activation(self, battle: B) -> tuple[B, Sequence[LogLine]]:
        raise RangefireError(f"{self.key} has no activations to end")

    def _allowed_values(self, battle: B, attack: Attack, choice: Choice) -> Sequence[str]:
        """By default the declared values (a game whose values depend on the battle overrides this)."""
        return choice.allowed

    def _target_ids(self, battle: B) -> Sequence[str]:
        """The ids that may be targeted at all (by default every unit)."""
        return self._unit_ids(battle)

    def _move(self, battle: B, move: Move) -> MoveCheck:
        """A game whose units move overrides this (DC-10, AL-10, BU-9, SW-9)."""
        raise RangefireError(f"{self.key} has no moves")

    def _mark(self, battle: B, mark: Mark) -> MoveCheck:
        """A game whose players set states on their units overrides this (BU-9.1)."""
        raise RangefireError(f"{self.key} has no states a player sets")

    @abstractmethod
    def _check(self, battle: B, attack: Attack) -> P | Sequence[Refusal]: ...

    def _check_many(self, battle: B, attacks: Sequence[Attack]) -> Sequence[P | Sequence[Refusal]]:
        """``_check`` of each attack in turn (the default). A game overrides it to share work between the
        attacks of one battle; its answers must be those of ``_check``, word for word."""
        return [self._check(battle, attack) for attack in attacks]

    @abstractmethod
    def _odds(self, plan: P) -> Odds: ...

    @abstractmethod
    def _resolve(self, plan: P, source: DiceSource) -> tuple[list[LogLine], OutcomeT]: ...

    @abstractmethod
    def _apply(self, battle: B, resolution: Resolution[OutcomeT]) -> B: ...
