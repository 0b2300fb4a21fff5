"""Bushido: ranged attacks between models on round bases, with zones of control, redirection, the opposed
test and the wound chart (BU-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("bushido").stages
('attack', 'defense', 'attack-reroll', 'attack-extra', 'wound')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from rangefire.core import (
    Attack,
    Choice,
    ChoiceError,
    DiceSource,
    LogLine,
    Need,
    NextChoice,
    Odds,
    Refusal,
    Resolution,
    Ruleset,
)
from rangefire.core.moves import Mark, Move, MoveCheck
from rangefire.core.options import house_note
from rangefire.core.ruleset import check_turn_number
from rangefire.dice import Dist
from rangefire.rulesets.bushido.dice import (
    attack_odds,
    contest,
    side_result,
    wound_roll,
    wounds_for,
)
from rangefire.rulesets.bushido.lookups import PairByPair, Screened
from rangefire.rulesets.bushido.moves import check_mark, check_move
from rangefire.rulesets.bushido.plan import (
    RULES,
    BushidoOutcome,
    BushidoPlan,
    count,
    house_attack_dice,
    inches,
    ruled,
)
from rangefire.rulesets.bushido.planning import plan_attack
from rangefire.rulesets.bushido.scenario import KEY, Battle, Options, Turn, Unit, cross_problems
from rangefire.rulesets.bushido.table import Nominee, crossing

__all__ = ["Battle", "Bushido", "BushidoOutcome", "BushidoPlan", "Unit"]

#: The states ending the turn clears; ``prone`` stays [BU-8.2].
TURN_STATES = ("aimed", "moved", "ran", "will_move", "surprised")


class Bushido(Ruleset[Battle, BushidoPlan, BushidoOutcome]):
    """Ranged attacks: eligibility, redirection, dice pools by clause, the opposed test and the wound chart."""

    key = KEY
    title = "Bushido"
    aliases = ("bu",)
    clause_prefix = "BU"
    setup_clause = "BU-9.3"  # set-up edits before the first turn
    stages = ("attack", "defense", "attack-reroll", "attack-extra", "wound")  # the middle two: house rules [BU-6.2]
    outcome_names = ("wounds", "success_level")
    conditions = MappingProxyType({"success_level": "given a hit"})  # the SL of a hit [BU-6.3]
    event_names = ("hit",)
    main_outcome = "wounds"
    choices = (Choice("redirect_to", "unit", (), "the model the target's player nominates instead", "BU-4.2"),)
    battle_model = Battle
    options_model = Options
    written_rulings = ("supporting_dice_cap", "one_attack_per_turn")  # BU-6.2, BU-8.1: written in every battle

    def raw_problems(self, data: Mapping[str, Any]) -> list[str]:
        return cross_problems(data)

    # -- the turn [BU-8] ---------------------------------------------------------------------------
    has_activations = True

    def _side_to_act(self, battle: Battle) -> str | None:
        return battle.active_side

    def _end_activation(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        """Ending the activation passes ``active_side`` to the next side in the order of the sides, a side with no
        model left passed over [BU-8.2, BU-8.4]."""
        log = []
        side = battle.active_side
        if side is None:
            side = self.following_side(battle, None)[0]
            log.append(LogLine("BU-8.2", f"the battle recorded no active side: {side}, the first side, is taken to "
                                         "be ending its activation"))
        following, _, passed = self.following_side(battle, side)
        log += [LogLine("BU-8.4", f"{gone} has no model left: its activation is passed over") for gone in passed]
        log.append(LogLine("BU-8.2", f"{side}'s activation ends; the activation passes to {following}"))
        return battle.model_copy(update={"active_side": following}), log

    def _end_turn(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        """Ending the turn clears the turn's states and attack marks; prone and wounds stay [BU-8.2]."""
        log = []
        number = battle.turn.number if battle.turn is not None else None
        if number is None:
            number = 1
            log.append(LogLine("BU-8.2", "the battle recorded no turn: it is taken to be turn 1"))
        order = tuple(self.sides(battle))  # fixed when the scenario was first read: it stays [BU-8.4]
        units = []
        for unit in battle.units:
            cleared = [s for s in unit.states if s in TURN_STATES] + (["its attack mark"] if unit.attacked else [])
            cleared += ["where it stood at the start of the turn"] if unit.start_position is not None else []
            if cleared:
                log.append(LogLine("BU-8.2", f"{unit.id}: {', '.join(cleared)} cleared"))
                unit = unit.model_copy(update={"states": tuple(s for s in unit.states if s not in TURN_STATES),
                                               "attacked": False, "start_position": None})  # its trail [BU-9.1]
            units.append(unit)
        stay = [f"{u.id} prone" for u in battle.units if u.has("prone")]
        stay += [f"{u.id} {u.wounds.marked}/{u.wounds.boxes} wounds" for u in battle.units if u.wounds.marked]
        log.append(LogLine("BU-8.2", "prone and wounds stay" + (f" ({', '.join(stay)})" if stay else "")))
        stays = f" ({battle.active_side} stays the active side)" if battle.active_side else ""
        check_turn_number(number + 1)
        log.append(LogLine("BU-8.2", f"turn {number} ends; turn {number + 1} begins{stays}"))
        after = battle.model_copy(update={"units": tuple(units), "turn": Turn(number=number + 1, order=order)})
        return after, log

    # -- moves and states a player sets [BU-9]: rangefire.rulesets.bushido.moves ----------------------------
    markable = ("will_move", "aimed", "prone")  # BU-9.1

    def _move(self, battle: Battle, move: Move) -> MoveCheck:
        return check_move(battle, move)  # BU-9.1, BU-9.2

    def _mark(self, battle: Battle, mark: Mark) -> MoveCheck:
        return check_mark(battle, mark)  # BU-9.1

    # -- duels: played by rangefire.rulesets.bushido.duel --------------------
    duel_module = "rangefire.rulesets.bushido.duel"
    duel_left_name = "wound boxes"

    def status(self, battle: Battle) -> list[dict[str, Any]]:
        return [{"id": u.id, "side": u.side, "wounds": f"{u.wounds.marked}/{u.wounds.boxes}",
                 "ammo": "-" if u.weapon is None or u.weapon.ammo is None else u.weapon.ammo,
                 "states": ", ".join(u.states) or "-"} for u in battle.units]

    def next_choice(self, battle: Battle, attack: Attack) -> NextChoice | None:
        """The target's player chooses: keep the declared target or nominate another of their models [BU-4.2];
        the side is the target's (its player, not the attacker's, makes the nomination). Nothing to ask once
        they have answered (one swap only, BU-4.3), when no model qualifies, or when the attack is refused."""
        if any(name == "redirect_to" for name, _ in attack.choices):
            return None
        checked = self.check(battle, attack)
        plan = checked.plan
        if not isinstance(plan, BushidoPlan) or not plan.nominees:
            return None
        side = battle.unit(plan.target).side
        return NextChoice(side, f"{side} (the target's player)", "redirect_to",
                          (f"keep {plan.target}", *(f"nominate {n.id}" for n in plan.nominees)), "BU-4.2",
                          f"keep {plan.target} as the target or nominate another of {side}'s models")

    def _allowed_values(self, battle: Battle, attack: Attack, choice: Choice) -> Sequence[str]:
        """The models the target's player may nominate for this attack [BU-4.2] (none when it is refused)."""
        declared = Attack(attack.attacker, attack.target, tuple(c for c in attack.choices if c[0] != choice.name))
        plan = self.check(battle, declared).plan
        return [n.id for n in plan.nominees] if isinstance(plan, BushidoPlan) else []

    def with_choice(self, attack: Attack, answer: str) -> Attack:
        """``nominate ID`` redirects the attack; ``keep ...`` leaves the declared target (an empty redirect)."""
        chosen = answer.removeprefix("nominate ") if answer.startswith("nominate ") else ""
        return Attack(attack.attacker, attack.target, (*attack.choices, ("redirect_to", chosen)))

    def answers_in(self, attack: Attack) -> tuple[Attack, tuple[str, ...]]:
        """A ``redirect_to`` given is the target's player's answer [BU-4.2]: ``nominate ID``, or ``keep TARGET``
        when empty (the declared target kept)."""
        choices = dict(attack.choices)
        if "redirect_to" not in choices:
            return attack, ()
        chosen = str(choices.pop("redirect_to"))
        answer = f"nominate {chosen}" if chosen else f"keep {attack.target}"
        return Attack(attack.attacker, attack.target, tuple(choices.items())), (answer,)

    # -- check and plan --------------------------------------------------------------------------
    def _check(self, battle: Battle, attack: Attack) -> BushidoPlan | Sequence[Refusal]:
        return self._check_with(battle, attack, PairByPair(battle))

    def _check_many(self, battle: Battle, attacks: Sequence[Attack]) -> list[BushidoPlan | Sequence[Refusal]]:
        """Every attack checked as :meth:`_check` checks it, the table's answers worked out together
        (:class:`~rangefire.rulesets.bushido.lookups.Screened`): contact and zones of control once a shooter
        and enemy [BU-3.3], then sight and range of every pair a shooter may fire on in one screen [BU-2.1,
        BU-3.4], then the nominations of every pair that passes [BU-4.2]; the checks themselves one by one."""
        look = Screened(battle)
        units = {u.id: u for u in battle.units}
        shooters = [units[uid] for uid in dict.fromkeys(a.attacker for a in attacks)]
        look.screen_eligibility(shooters)
        eligible = {s.id for s in shooters if not self._eligibility(battle, s, look)}
        pairs = [(units[a.attacker], units[a.target]) for a in attacks
                 if a.target is not None and a.attacker in eligible and units[a.target].side != units[a.attacker].side]
        look.screen_sights(pairs)
        look.screen_nominees([(s, t) for s, t in pairs if s.weapon is not None and look.sight(s, t).is_clear
                              and look.band(s, t, s.weapon) is not None])
        return [self._check_with(battle, attack, look) for attack in attacks]

    def _check_with(self, battle: Battle, attack: Attack, look: PairByPair) -> BushidoPlan | Sequence[Refusal]:
        shooter = look.unit(attack.attacker)
        if attack.target is None:
            return [Refusal("BU-3.2", "name the target model")]
        declared = look.unit(attack.target)
        refusals = self._eligibility(battle, shooter, look)
        if declared.side == shooter.side:
            refusals.append(Refusal("BU-3.2", f"{declared.id} is on {shooter.side}'s side, not an enemy model"))
        elif not refusals:
            seen = look.sight(shooter, declared)
            if not seen.is_clear:
                refusals.append(Refusal("BU-3.2", f"{shooter.id} has no line of sight to {declared.id}: "
                                                  f"{seen.describe()}"))
            assert shooter.weapon is not None
            if look.band(shooter, declared, shooter.weapon) is None:
                refusals.append(Refusal("BU-3.4", f"{declared.id} is {shooter.disc.gap(declared.disc):.2f} in away, "
                                                  f"beyond the {shooter.weapon.name}'s long range of "
                                                  f"{float(shooter.weapon.long):g} in"))
        if refusals:
            return refusals
        found = tuple(look.nominees(shooter, declared))
        wanted = attack.choice("redirect_to") or None  # an empty answer keeps the declared target
        if wanted is None:
            alternatives = tuple(self._plan(battle, look, shooter, declared, look.unit(n.id), ()) for n in found)
            return self._plan(battle, look, shooter, declared, declared, found, alternatives)
        if wanted not in self._unit_ids(battle):
            known = ", ".join(self._unit_ids(battle))
            raise ChoiceError("redirect_to", f"redirect_to {wanted!r} is not in this battle (units: {known})")
        if wanted == declared.id:
            return [Refusal("BU-4.2", f"{wanted} is the declared target: a nomination names another model")]
        match = [n for n in found if n.id == wanted]
        if not match:
            return [Refusal("BU-4.2", self._why_not_nominee(battle, shooter, declared, battle.unit(wanted)))]
        return self._plan(battle, look, shooter, declared, battle.unit(wanted), found)

    def _eligibility(self, battle: Battle, shooter: Unit, look: PairByPair) -> list[Refusal]:
        """Whether this model may make a ranged attack at all [BU-3.1, BU-3.3, BU-3.5], once a shooter (a side's
        checks ask it of each shooter once for every enemy)."""
        known = look.eligible.get(shooter.id)
        if known is None:
            known = look.eligible[shooter.id] = tuple(self._eligibility_of(battle, shooter, look))
        return list(known)

    def _eligibility_of(self, battle: Battle, shooter: Unit, look: PairByPair) -> list[Refusal]:
        refusals = []
        if shooter.attacked and battle.options.one_attack_per_turn:
            refusals.append(Refusal("BU-8.1", f"{shooter.id} has already made a ranged attack this turn (one a "
                                              "turn)"))
        if battle.active_side is not None and shooter.side != battle.active_side:
            refusals.append(Refusal("BU-8.3", f"it is {battle.active_side}'s activation; {shooter.id} is on "
                                              f"{shooter.side}'s side: only the active side attacks"))
        if shooter.rcp is None:
            refusals.append(Refusal("BU-3.1", f"{shooter.id} has no RCP: only a model with an RCP (or one a card "
                                              "or effect gives an RCP) may make a ranged attack"))
        if shooter.weapon is None:
            refusals.append(Refusal("BU-1.3", f"{shooter.id} has no ranged weapon"))
        elif shooter.weapon.ammo == 0:
            refusals.append(Refusal("BU-3.5", f"{shooter.id}'s {shooter.weapon.name} has no Ammo left"))
        enemies = [u for u in battle.units if u.side != shooter.side]
        touching = [u.id for u in enemies if look.in_contact(shooter, u)]
        if touching:
            refusals.append(Refusal("BU-3.3", f"{shooter.id} is in base contact with {', '.join(touching)}"))
        zones = [u.id for u in enemies if u.id not in touching and look.in_zone(u, shooter)]
        if zones:
            zone = inches(battle.options.zone_of_control)
            refusals.append(Refusal("BU-3.3", f"{shooter.id} is in the zone of control of {', '.join(zones)} "
                                              f"(within {zone}{ruled(zone, inches(RULES.zone_of_control))} of "
                                              "the base, in its line of sight) [BU-2.2]"))
        return refusals

    def _why_not_nominee(self, battle: Battle, shooter: Unit, declared: Unit, model: Unit) -> str:
        if model.side != declared.side:
            return f"{model.id} is not one of {declared.side}'s models: only the target's player's models qualify"
        if crossing(battle, shooter, declared, model) is None:
            return (f"{model.id} does not qualify: the line from {shooter.id} to {declared.id} (centre to centre, "
                    "BU-4.3) crosses neither its base nor a zone of control it sees")
        return f"{model.id} does not qualify: it has no line of sight to {shooter.id}"

    def _plan(self, battle: Battle, look: PairByPair, shooter: Unit, declared: Unit, target: Unit,
              found: tuple[Nominee, ...], alternatives: tuple[BushidoPlan, ...] = ()) -> BushidoPlan:
        return plan_attack(self.key, battle, look, shooter, declared, target, found, alternatives)

    # -- odds, resolution, application -----------------------------------------------------------
    def _odds(self, plan: BushidoPlan) -> Odds:
        outcomes, events = self._distributions(plan)
        nominations = {alt.target: Odds(alt, *self._distributions(alt)) for alt in plan.alternatives}  # [BU-4.2]
        return Odds(plan=plan, outcomes=outcomes, events=events, alternatives=nominations)

    @staticmethod
    def _distributions(plan: BushidoPlan) -> tuple[dict[str, Any], dict[str, Any]]:
        if plan.fails:
            return {"wounds": Dist.constant(0), "success_level": Dist.constant(0)}, {"hit": 0}
        wounds, sl, hit = attack_odds(plan.attack_dice, plan.defense_dice, plan.wound_roll_modifier,
                                      plan.supporting_dice_cap, plan.options.chart, plan.options.attacker_wins_ties,
                                      plan.attack_roll)
        return {"wounds": wounds, "success_level": sl}, {"hit": hit}

    def _resolve(self, plan: BushidoPlan, source: DiceSource) -> tuple[list[LogLine], BushidoOutcome]:
        log = list(plan.notes)
        if plan.ammo_before is not None:
            log.insert(0, LogLine("BU-4.1", f"Ammo marker removed on declaring: {plan.ammo_before - 1} left"))
        outcome = BushidoOutcome(hit=False, success_level=0, wounds=0)
        if plan.fails:
            return [*log, LogLine("BU-4.3", "the attack fails: nothing is rolled")], replace(outcome, fails=True)
        cap = plan.supporting_dice_cap
        # Both roll at once [BU-6.1]; each result as BU-6.2 counts it, the higher wins [BU-6.3].
        counted = "1s discarded, highest +1 per other die" + (f" (at most {cap})" if cap is not None else "")
        a_dice = source.roll("attack", plan.attack_dice, need=Need(f"{counted}, the higher result hits",
                                                                   f"{plan.attacker} at {plan.target}"))
        d_dice = source.roll("defense", plan.defense_dice, need=Need(f"{counted}, the higher result saves",
                                                                     f"{plan.target}"))
        a_dice, house = house_attack_dice(plan, source, a_dice)  # house rules: 1s rolled again, 6s add dice
        log += house
        a, d = side_result(a_dice, cap), side_result(d_dice, cap)
        for who, dice, (result, kept) in (("attack", a_dice, a), ("defense", d_dice, d)):
            log.append(LogLine("BU-6.2", f"{who} dice {', '.join(map(str, dice))}: 1s discarded, "
                                         f"{kept} remain{'s' if kept == 1 else ''}, result {result}"))
        ties = plan.options.attacker_wins_ties
        hit, sl = contest(a, d, ties)
        neither = a[0] == d[0] == 0  # a result of 0 never wins, so two of them leave no winner [BU-6.3]
        winner = "the attacker" if hit else "the defender"
        if neither:
            log.append(LogLine("BU-6.3", "both results are 0: neither wins, the attack misses"))
        elif a[0] == d[0]:
            rule = "" if a[1] != d[1] or ties else f" {house_note(winner, 'the attacker')}"
            log.append(LogLine("BU-6.3", f"equal results; {winner} wins at SL 0 "
                                         f"({count(a[1], 'remaining die', 'remaining dice')} against {d[1]}){rule}"))
        else:
            log.append(LogLine("BU-6.3", f"{'the attacker' if hit else 'the defender'} wins at SL {sl}"))
        if neither:
            # not a successful attack, so no wound roll [BU-7.1]; nor did the defender win, so BU-6.4 is not cited
            log.append(LogLine("BU-7.1", "no successful attack: no wound roll, no damage"))
            return log, outcome
        if not hit:
            log.append(LogLine("BU-6.4", "the defender wins: the attack misses and deals no damage"))
            return log, outcome
        chart = f"1D6 {plan.wound_roll_modifier:+d} on the wound chart at SL {min(sl, 6)}"  # [BU-7.2]
        die = source.roll("wound", 1, need=Need(chart, f"the attack hits at SL {sl}"))[0]
        roll = wound_roll(die, plan.wound_roll_modifier)
        wounds = wounds_for(roll, sl, plan.options.chart)
        rules = str(wounds_for(roll, sl))
        log.append(LogLine("BU-7.2", f"wound die {die} {plan.wound_roll_modifier:+d} = roll {roll} at SL {min(sl, 6)}"
                                     f"{' (SL ' + str(sl) + ' counts as 6)' if sl > 6 else ''}: "
                                     f"{count(wounds, 'wound', 'wounds')}{ruled(str(wounds), rules)}"))
        removed = wounds >= plan.target_wounds_left
        marked = count(min(wounds, plan.target_wounds_left), "box", "boxes")
        log.append(LogLine("BU-7.3", f"{plan.target} marks {marked}"
                                     + (": every box is marked, the model is removed" if removed else "")))
        return log, BushidoOutcome(hit=True, success_level=sl, wounds=wounds, removed=removed)

    def _apply(self, battle: Battle, resolution: Resolution[BushidoOutcome]) -> Battle:
        plan = resolution.plan
        assert isinstance(plan, BushidoPlan)
        wounds = resolution.outcome.wounds
        units = []
        for unit in battle.units:
            if unit.id == plan.attacker and unit.weapon is not None and unit.weapon.ammo is not None:
                weapon = unit.weapon.model_copy(update={"ammo": unit.weapon.ammo - 1})  # [BU-4.1]
                unit = unit.model_copy(update={"weapon": weapon})
            if unit.id == plan.attacker:
                unit = unit.model_copy(update={"attacked": True})  # the attack is made, hit or miss [BU-8.1]
            if unit.id == plan.target and wounds:
                marked = min(unit.wounds.boxes, unit.wounds.marked + wounds)
                if marked >= unit.wounds.boxes:
                    continue  # every box marked: the model is removed [BU-7.3]
                unit = unit.model_copy(update={"wounds": unit.wounds.model_copy(update={"marked": marked})})
            units.append(unit)
        return battle.model_copy(update={"units": tuple(units)})

