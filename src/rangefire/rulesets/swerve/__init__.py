"""The swerve card game: ranged combat as a played-out sequence of actions, then a reveal (SW-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("swerve").stages
('bonus',)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rangefire.core import (
    Attack,
    Choice,
    ChoiceError,
    DiceSource,
    LineOfPlay,
    LinesOfPlay,
    LogLine,
    Modifier,
    Need,
    NextChoice,
    Odds,
    Outcome,
    Plan,
    Refusal,
    Resolution,
    Ruleset,
)
from rangefire.core.moves import Move, MoveCheck
from rangefire.core.options import house_note
from rangefire.dice import Dist
from rangefire.rulesets.swerve import hidden
from rangefire.rulesets.swerve.combat import RULES, Action, Combat, State, not_in_play, timings_text
from rangefire.rulesets.swerve.moves import check_move
from rangefire.rulesets.swerve.scenario import KEY, Battle, Card, Options, Turn, cross_problems

__all__ = ["Action", "Battle", "Combat", "CombatPlan", "Swerve", "SwerveOutcome"]


@dataclass(frozen=True)
class SwerveOutcome(Outcome):
    """What a ranged combat came to: who won [SW-4.3] and the damage dealt [SW-5.1], the combat bonus revealed
    and the totals compared [SW-4.1], whether the target was destroyed [SW-5.3], the cards spent (ids, sorted)."""

    attacker_wins: bool
    damage: int
    bonus: int
    accuracy: int
    speed: int
    destroyed: bool
    spent: tuple[str, ...]


@dataclass(frozen=True)
class CombatPlan(Plan):
    """A ranged combat begun and the line of play given so far (checked, not searched: ``odds`` and
    ``resolve`` complete it by best play)."""

    attacker_player: str = ""
    defender_player: str = ""
    actions: tuple[str, ...] = ()
    given: int = 0
    start: tuple[int, int, int] = (0, 0, 0)
    final: tuple[int, int, int] = (0, 0, 0)
    complete: bool = False
    bonus_options: tuple[int, ...] = ()
    known_bonus: int | None = None
    #: The combat's fixed facts (cards, hands, deck), for the search and the replay; not part of the data.
    combat: Combat | None = field(default=None, compare=False, repr=False)

    def details(self) -> dict[str, Any]:
        return {
            "players": {"attacker": self.attacker_player, "defender": self.defender_player},
            "start": dict(zip(("accuracy", "speed", "damage"), self.start, strict=True)),
            "actions": list(self.actions),
            "actions_given": self.given,
            "totals_before_reveal": dict(zip(("accuracy", "speed", "damage"), self.final, strict=True)),
            "line_complete": self.complete,
            "reveal": {"known": self.known_bonus} if self.known_bonus is not None else
                      {"deck": list(self.bonus_options)},
        }

    def dice_text(self) -> str:
        """``accuracy 30 + bonus 5 v speed 20, damage 1``: the totals compared at the reveal [SW-4.1, SW-4.3],
        before the players' actions change them."""
        acc, speed, dmg = self.start
        bonus = f"bonus {self.known_bonus}" if self.known_bonus is not None else \
            f"bonus of {', '.join(map(str, sorted(set(self.bonus_options))))}"
        return f"accuracy {acc} + {bonus} v speed {speed}, damage {dmg}"

    def summary(self) -> list[tuple[str, str]]:
        acc, speed, dmg = self.start
        reveal = (f"combat bonus {self.known_bonus} (top of the deck)" if self.known_bonus is not None else
                  f"one of {', '.join(map(str, self.bonus_options))} (order unknown)")
        rows = [("attacker", f"{self.attacker_player} with {self.attacker}: accuracy {acc}, damage {dmg}"),
                ("defender", f"{self.defender_player} with {self.target}: speed {speed}"),
                ("reveal", reveal)]
        rows.append(("actions given", ", ".join(self.actions) or "none"))
        if not self.complete:
            rows.append(("then", "best play by both sides [SW-6.2]"))
        return rows


class Swerve(Ruleset[Battle, CombatPlan, SwerveOutcome]):
    """Accuracy against speed, with swerved cards and a combat bonus from the deck."""

    key = KEY
    title = "swerve (card game)"
    aliases = ("swerve-card-game",)
    clause_prefix = "SW"
    setup_clause = "SW-9.2"  # set-up edits before the first turn
    stages = ("bonus",)
    outcome_names = ("damage",)
    event_names = ("attacker_wins",)
    main_outcome = "damage"
    choices = (Choice("actions", "actions", (), "the line of play, e.g. attacker:pass,defender:swerve-target "
                                                "(both sides then play their best)", "SW-3.1"),)
    battle_model = Battle
    options_model = Options
    written_rulings = ("attacker_wins_ties",)  # SW-4.3: written in every battle

    def raw_problems(self, data: Mapping[str, Any]) -> list[str]:
        return cross_problems(data)

    def _unit_ids(self, battle: Battle) -> Sequence[str]:
        return [c.id for c in battle.cards]

    def _side_of(self, battle: Battle, uid: str) -> str:
        return battle.card(uid).owner

    def _target_ids(self, battle: Battle) -> Sequence[str]:
        # Only cards in play can be targeted: never one in a hand, nor one at no mission [SW-1.5].
        return [c.id for c in battle.cards if c.mission is not None and battle.holder(c.id) is None]

    def sides(self, battle: Battle) -> list[str]:
        """The players in the order the scenario lists them (the order turns pass in, SW-8.1)."""
        return list(battle.players)

    def _sides_left(self, battle: Battle) -> Sequence[str]:
        """Every player takes its turn, whatever it holds: the rules pass over none [SW-8.1]."""
        return list(battle.players)

    # -- the turn [SW-8.1] -------------------------------------------------------------------------
    def _side_to_act(self, battle: Battle) -> str | None:
        return battle.turn.side if battle.turn is not None else None

    def _end_turn(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        """The turn passes to the next player, whose swerved cards are unswerved as that turn starts."""
        _, number, following, opening, closing = self.passed_turn(battle, "SW-8.1", "SW-8.1")
        log = opening + closing
        unswerved = [c.id for c in battle.cards if c.owner == following and c.swerved]
        cards = tuple(c.model_copy(update={"swerved": False}) if c.id in unswerved else c for c in battle.cards)
        done = f"{', '.join(unswerved)} unswerved" if unswerved else "no swerved card to unswerve"
        log.append(LogLine("SW-8.1", f"{following}'s turn starts: {done}"))
        after = battle.model_copy(update={"cards": cards, "turn": Turn(number=number, side=following)})
        return after, log

    # -- moves [SW-9.1]: rangefire.rulesets.swerve.moves; a card is at a mission, nothing is measured ---------
    move_unit = None

    def _move(self, battle: Battle, move: Move) -> MoveCheck:
        return check_move(battle, move)  # SW-9.1

    # -- duels: played by rangefire.rulesets.swerve.duel --------------------
    duel_module = "rangefire.rulesets.swerve.duel"
    duel_left_name = "toughness"

    # -- hidden hands [SW-1.4]: rangefire.rulesets.swerve.hidden ------------------------------------------
    def seen_by(self, battle: Battle, side: str | None, revealed: Collection[str] = ()) -> Battle:
        return hidden.seen_by(battle, side, revealed)

    def kept_from(self, battle: Battle, side: str | None) -> dict[str, int]:
        return hidden.kept_from(battle, side)

    def status(self, battle: Battle) -> list[dict[str, Any]]:
        return [{"id": c.id, "owner": c.owner, "type": c.type, "swerved": c.swerved,
                 "damage": f"{c.counters}/{battle.options.toughness(c)}" if c.type in ("unit", "vehicle") else ""}
                for c in battle.cards]

    # -- beginning and the line of play ------------------------------------------------------------
    def begin(self, battle: Battle, attack: Attack) -> Combat | list[Refusal]:
        """The combat a card begins against a target [SW-2.1, SW-2.2], or why it cannot begin."""
        launcher = battle.card(attack.attacker)
        away = not_in_play(launcher, battle.holder(launcher.id))
        if away is not None:
            return [Refusal("SW-1.5", f"{away}: it never begins combat")]
        if launcher.ranged is None:
            return [Refusal("SW-2.1", f"{launcher.id} has no text that begins ranged combat")]
        if launcher.ranged.cost == "swerve-self" and launcher.swerved:
            return [Refusal("SW-2.1", f"{launcher.id} is swerved: it cannot pay \"swerve this\" again")]
        if attack.target is None:
            return [Refusal("SW-2.2", "ranged combat targets exactly one unit or vehicle: name it")]
        target = battle.card(attack.target)
        away = not_in_play(target, battle.holder(target.id))
        if away is not None:
            return [Refusal("SW-1.5", f"{away}: it is never a target")]
        refusals = []
        if target.type not in launcher.ranged.targets:
            allowed = " or ".join(launcher.ranged.targets)
            refusals.append(Refusal("SW-2.2", f"{target.id} is a {target.type}: {launcher.id} targets a {allowed}"))
        if target.owner == launcher.owner:
            refusals.append(Refusal("SW-2.2", f"{target.id} is {launcher.owner}'s own card, not an opponent's"))
        if target.owner not in battle.players or launcher.owner not in battle.players:
            refusals.append(Refusal("SW-1.4", "both players need a deck entry under players"))
        return refusals or Combat(battle, launcher, target)

    def _actions(self, combat: Combat, attack: Attack) -> list[Action]:
        """The line of play as actions. Text that names no action at all (an unknown word, player or role, a
        missing card) is bad input, not a move the rules refuse: those are refused later, by clause."""
        texts = attack.choice("actions") or ()
        actions = []
        for i, text in enumerate(texts, start=1):
            try:
                actions.append(Action.parse(text, combat.players))
            except ValueError as exc:
                raise ChoiceError("actions", f"actions: action {i} is not an action: {exc}") from None
        return actions

    def next_choice(self, battle: Battle, attack: Attack) -> NextChoice | None:
        """Who must act next and the legal actions [SW-3.1: the attacker acts first, then the players alternate,
        one action or a pass each turn]: the side is the player who owns the card in that role. None when the
        stage is over [SW-3.2] (or the combat cannot begin, which ``check`` then explains)."""
        combat = self.begin(battle, attack)
        if not isinstance(combat, Combat):
            return None
        actions = self._actions(combat, attack)
        state, _, refusal, _ = combat.play(combat.start(), actions)
        if refusal is not None or state.is_over:
            return None
        side = combat.owner[state.turn]
        legal = combat.legal(state)
        return NextChoice(side, f"{side} ({state.turn})", "actions", tuple(str(a) for a in legal),
                          "SW-3.1", "take one action or pass", tuple(combat.label(a) for a in legal))

    def _allowed_values(self, battle: Battle, attack: Attack, choice: Choice) -> Sequence[str]:
        """The actions open to the player who acts next after the line given so far [SW-3.1]."""
        question = self.next_choices(battle, attack)
        return question[1] if question is not None else []

    def _check(self, battle: Battle, attack: Attack) -> CombatPlan | Sequence[Refusal]:
        combat = self.begin(battle, attack)
        if not isinstance(combat, Combat):
            return combat
        actions = self._actions(combat, attack)
        start = combat.start()
        _, _, refusal, index = combat.play(start, actions)
        if refusal is not None:
            return [Refusal(refusal.clause, f"action {index + 1} ({actions[index]}): {refusal.reason}")]
        # only the line given is checked: best play is searched by odds and resolve, never here
        modifiers, s = [], start
        for action in actions:
            nxt, line = combat.after(s, action)
            for total in ("accuracy", "speed", "damage"):
                delta = getattr(nxt, total) - getattr(s, total)
                if delta:
                    modifiers.append(Modifier(line.clause, delta, f"{total}: {action}"))
            s = nxt
        notes = [LogLine("SW-2.3", f"{combat.launcher.id} begins with accuracy {start.accuracy}, damage "
                                   f"{start.damage}"),
                 LogLine("SW-2.4", f"{combat.target.id} defends with speed {start.speed}; the defender's damage "
                                   "is 0"),
                 *self._house_notes(battle, combat)]
        return CombatPlan(
            ruleset=self.key, attacker=combat.launcher.id, target=combat.target.id, modifiers=tuple(modifiers),
            notes=tuple(notes), attacker_player=combat.owner["attacker"], defender_player=combat.owner["defender"],
            actions=tuple(str(a) for a in actions), given=len(actions), complete=s.is_over,
            start=(start.accuracy, start.speed, start.damage), final=(s.accuracy, s.speed, s.damage),
            bonus_options=combat.bonus_options(),
            known_bonus=None if combat.bonus_options() else combat.known_bonus(), combat=combat)

    @staticmethod
    def _house_notes(battle: Battle, combat: Combat) -> list[LogLine]:
        """What the battle's house rules change in this combat, beside the rules' values [SW-3.4 to SW-5.3]."""
        options, notes = battle.options, []
        times = options.target_swerve_speed
        if times != RULES.target_swerve_speed:
            notes.append(LogLine("SW-3.4", f"swerving {combat.target.id} adds {times} times its speed "
                                           f"{house_note(str(times), 'once')}"))
        if options.usable_timings != RULES.usable_timings:
            notes.append(LogLine("SW-3.5", f"tactics and abilities timed {timings_text(options.usable_timings)} "
                                           f"are usable {house_note('', timings_text(RULES.usable_timings))}"))
        deck = battle.players[combat.owner["attacker"]]
        if not deck.deck and deck.top_revealed is None and options.empty_deck_bonus != RULES.empty_deck_bonus:
            notes.append(LogLine("SW-4.2", f"{combat.owner['attacker']}'s deck is empty: combat bonus "
                                           f"{options.empty_deck_bonus} {house_note('', str(RULES.empty_deck_bonus))}"))
        if options.attacker_wins_ties != RULES.attacker_wins_ties:
            notes.append(LogLine("SW-4.3", "equal totals: the attacker wins "
                                           f"{house_note('the attacker', 'the defender')}"))
        if combat.target.toughness is None and options.unprinted_toughness != RULES.unprinted_toughness:
            notes.append(LogLine("SW-5.3", f"{combat.target.id} prints no toughness: {options.unprinted_toughness} "
                                           f"damage destroys it {house_note('', str(RULES.unprinted_toughness))}"))
        return notes

    @staticmethod
    def _replay(plan: CombatPlan) -> tuple[Combat, State, list[Action]]:
        combat = plan.combat
        assert combat is not None, "a CombatPlan comes from Swerve.check"
        return combat, combat.start(), [Action.parse(a) for a in plan.actions]

    # -- odds [SW-6] -------------------------------------------------------------------------------
    def _odds(self, plan: CombatPlan) -> Odds:
        combat, start, actions = self._replay(plan)
        state, _, _, _ = combat.play(start, actions)
        combat.require_searchable(state)
        best = combat.best_line(state)
        final, _, _, _ = combat.play(state, best)
        result = combat.outcome(final)
        listed, cut = self._lines_of_play(combat, state)
        return Odds(plan=plan, outcomes={"damage": result.map(lambda o: o[1])},
                    events={"attacker_wins": result.p(lambda o: o[0])},
                    lines=LinesOfPlay(tuple(str(a) for a in best), combat.value(state), listed, cut))

    @staticmethod
    def _lines_of_play(combat: Combat, state: State) -> tuple[tuple[LineOfPlay, ...], bool]:
        """The lines listed with their odds, and whether the list was cut. A line's odds turn only on its totals
        at the end [SW-4.3, SW-5.1], and thousands of lines end on a few dozen totals: each is worked out once,
        and the lines ending on it share the same values."""
        ends, cut = combat.line_totals(state)
        worth: dict[tuple[int, int, int], tuple[Fraction, Dist[int]]] = {}
        listed = []
        for actions, totals in ends:
            found = worth.get(totals)
            if found is None:
                outcome = combat.outcome(State(*totals))
                found = worth[totals] = outcome.p(lambda o: o[0]), outcome.map(lambda o: o[1])
            listed.append(LineOfPlay(actions, *found))
        return tuple(listed), cut

    # -- resolution and application ----------------------------------------------------------------
    def _resolve(self, plan: CombatPlan, source: DiceSource) -> tuple[list[LogLine], SwerveOutcome]:
        combat, state, actions = self._replay(plan)
        who, launcher_id, target_id = combat.owner["attacker"], combat.launcher.id, combat.target.id
        if combat.launcher_paid:
            begin = LogLine("SW-2.1", f"{who} swerves {launcher_id} to begin ranged combat against {target_id}")
        else:
            begin = LogLine("SW-2.5", f"{launcher_id} begins ranged combat against {target_id} at no cost: it "
                                      "stays unswerved")
        log = [begin, *plan.notes]
        state, lines, refusal, _ = combat.play(state, actions)
        assert refusal is None, "a CombatPlan's actions were checked"
        log += lines
        if not state.is_over:
            combat.require_searchable(state)
            log.append(LogLine("SW-6.2", f"from action {len(actions) + 1} on, both sides play the best line"))
            state, lines, _, _ = combat.play(state, combat.best_line(state))
            log += lines
        log.append(LogLine("SW-3.2", "both players passed in succession: the actions stage ends"))
        options = combat.bonus_options()
        if options:  # the order is unknown: the top card is any card left [SW-4.1, SW-6.1]
            values = sorted(set(options))
            can_be = ", ".join(str(v) for v in values[:-1]) + (" or " if len(values) > 1 else "") + str(values[-1])
            bonus = source.choose("bonus", options, "combat bonus left in the deck", Need(
                f"the combat bonus on top of {combat.owner['attacker']}'s deck, {can_be}",
                f"accuracy {state.accuracy} against speed {state.speed}"))
        else:
            bonus = combat.known_bonus()
        log.append(LogLine("SW-4.1", f"{combat.owner['attacker']} reveals a combat bonus of {bonus}: total accuracy "
                                     f"{state.accuracy} + {bonus} = {state.accuracy + bonus} against total speed "
                                     f"{state.speed}"))
        wins = combat.attacker_wins(state, bonus)
        winner = "the attacker wins" if wins else "the defender wins"
        if state.accuracy + bonus == state.speed:
            winner += " (equal totals)"
            if combat.ties_to_attacker != RULES.attacker_wins_ties:
                winner += f" {house_note(winner, 'the defender wins')}"
        log.append(LogLine("SW-4.3", winner))
        damage = combat.damage_dealt(state, wins)
        target = combat.target
        counters = target.counters + damage
        toughness = combat.battle.options.toughness(target)
        destroyed = counters >= toughness
        if wins:
            log.append(LogLine("SW-5.1", f"{target.id} takes {damage} damage ({counters}/{toughness})"
                                         + ("; it is destroyed [SW-5.3]" if destroyed else "")))
        else:
            log.append(LogLine("SW-5.2", "the defender deals no damage in ranged combat; nobody takes damage"))
        return log, SwerveOutcome(attacker_wins=wins, damage=damage, bonus=bonus, accuracy=state.accuracy + bonus,
                                  speed=state.speed, destroyed=wins and destroyed, spent=tuple(sorted(state.spent)))

    def _apply(self, battle: Battle, resolution: Resolution[SwerveOutcome]) -> Battle:
        plan = resolution.plan
        assert isinstance(plan, CombatPlan)
        out = resolution.outcome
        spent = set(out.spent)
        played = {cid for cid in spent if battle.card(cid).type == "tactic"}
        cards: list[Card] = []
        for card in battle.cards:
            if card.id in played:
                continue  # a tactic played is discarded
            paid = card.id == plan.attacker and plan.combat is not None and plan.combat.launcher_paid  # [SW-2.5]
            if paid or card.id in spent:
                card = card.model_copy(update={"swerved": True})  # costs paid stay paid [SW-5.3]
            if card.id == plan.target and out.damage:
                if out.destroyed:
                    continue
                card = card.model_copy(update={"counters": card.counters + out.damage})
            cards.append(card)
        hands = {p: tuple(c for c in hand if c not in played and not (c == plan.target and out.destroyed))
                 for p, hand in battle.hands.items()}
        players = dict(battle.players)
        deck = players[plan.attacker_player]
        if deck.deck_order == "unknown" and deck.deck:
            players[plan.attacker_player] = deck.model_copy(update={"top_revealed": out.bonus})  # [SW-4.2]
        return battle.model_copy(update={"cards": tuple(cards), "hands": hands, "players": players})
