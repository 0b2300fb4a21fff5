"""Bushido: ranged attacks between models on round bases, with zones of control, redirection, the opposed
test and the wound chart (BU-*).

>>> from rangefire.rulesets import find_ruleset
>>> find_ruleset("bushido").stages
('attack', 'defense', 'wound')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rangefire.core import (
    Attack,
    Choice,
    ChoiceError,
    DiceSource,
    LogLine,
    Modifier,
    Need,
    NextChoice,
    Odds,
    Outcome,
    Plan,
    RangefireError,
    Refusal,
    Resolution,
    Ruleset,
)
from rangefire.core.options import house_note
from rangefire.core.ruleset import check_turn_number
from rangefire.dice import Dist
from rangefire.rulesets.bushido.dice import (
    WOUND_CHART,
    attack_odds,
    contest,
    pools,
    side_result,
    wound_roll,
    wounds_for,
)
from rangefire.rulesets.bushido.lookups import PairByPair, Screened
from rangefire.rulesets.bushido.scenario import CHART_ROLLS, CHART_SLS, KEY, Battle, Options, Turn, Unit, cross_problems
from rangefire.rulesets.bushido.table import Nominee, cover, crossing

__all__ = ["Battle", "Bushido", "BushidoOutcome", "BushidoPlan", "Unit"]

#: The states ending the turn clears; ``prone`` stays [BU-8.2].
TURN_STATES = ("aimed", "moved", "ran", "will_move", "surprised")


def _count(n: int, one: str, many: str) -> str:
    """``1 die``, ``2 dice``, ``0 dice``: a number with its noun in the right number."""
    return f"{n} {one if n == 1 else many}"


def _dice_noun(pool: str, delta: int) -> str:
    """The pool a modifier changes, in the number its size asks for: ``+1 attack die``, ``+2 attack dice``."""
    return f"{pool} {'die' if abs(delta) == 1 else 'dice'}"


#: The rules' values of every option: an explanation names a house rule beside them.
RULES = Options()


def _inches(value: Fraction) -> str:
    return f"{float(value):g} in"


def _ruled(shown: str, rules: str) -> str:
    """`` (house rule; the rules say 1 in)`` after a value a house rule sets, nothing after the rules' value."""
    return "" if shown == rules else f" {house_note(shown, rules)}"


def _modifier(clause: str, pool: str, delta: int, rules: int, reason: str, cite: str = "") -> Modifier:
    """A modifier in dice [BU-5.5], with the house rule named where the battle's value is not the rules'."""
    return Modifier(clause, delta, f"{_dice_noun(pool, delta)}: {reason}{_ruled(f'{delta:+d}', f'{rules:+d}')}{cite}")


def _chart_changes(chart: tuple[tuple[int, ...], ...]) -> list[str]:
    """The wound chart's entries a house rule changes: ``roll 6 at SL 2 gives 9 (the rules say 4)`` [BU-7.2]."""
    return [f"roll {roll} at SL {sl} gives {chart[roll - 1][sl]} (the rules say {WOUND_CHART[roll - 1][sl]})"
            for roll in CHART_ROLLS for sl in CHART_SLS if chart[roll - 1][sl] != WOUND_CHART[roll - 1][sl]]


@dataclass(frozen=True)
class BushidoOutcome(Outcome):
    """What a ranged attack came to: whether it hit and at what SL [BU-6.3], the wounds rolled [BU-7.2];
    ``removed`` only where it hit [BU-7.3], ``fails`` only where it failed before any roll [BU-4.3]."""

    hit: bool
    success_level: int
    wounds: int
    removed: bool | None = None
    fails: bool | None = None


@dataclass(frozen=True)
class BushidoPlan(Plan):
    """Everything decided before the dice of a ranged attack are rolled."""

    declared_target: str = ""
    redirected: bool = False
    nominees: tuple[Nominee, ...] = ()
    weapon: str = ""
    distance: float = 0.0
    band: str | None = None
    line_of_sight: Mapping[str, Any] = field(default_factory=dict)
    in_cover: bool = False
    cover_by: tuple[str, ...] = ()
    rcp: int = 0
    attack_pool: int = 0
    defense_pool: int = 0
    attack_dice: int = 0
    defense_dice: int = 0
    supporting_dice_cap: int | None = None
    wound_modifier: int = 0
    armour: int = 0
    armour_piercing: bool = False
    ammo_before: int | None = None
    target_wounds_left: int = 0
    #: The battle's options: the wound chart and the tie rule the dice are judged by [BU-6.3, BU-7.2].
    options: Options = field(default=RULES, repr=False)
    #: Plans for each model the defender may nominate instead [BU-4.2]; for odds, not part of the data.
    alternatives: tuple[BushidoPlan, ...] = field(default=(), compare=False, repr=False)

    @property
    def fails(self) -> bool:
        """A redirected attack whose new target is beyond long range fails [BU-4.3]."""
        return self.band is None

    @property
    def wound_roll_modifier(self) -> int:
        """The weapon's wound modifier less the target's armour, unless armour piercing [BU-7.2]."""
        return self.wound_modifier - (0 if self.armour_piercing else self.armour)

    def details(self) -> dict[str, Any]:
        return {
            "declared_target": self.declared_target,
            "redirected": self.redirected,
            "nominees": [{"id": n.id, "crosses": n.crosses} for n in self.nominees],
            "weapon": self.weapon,
            "range": {"inches": round(self.distance, 4), "band": self.band},
            "fails": self.fails,
            "line_of_sight": dict(self.line_of_sight),
            "in_cover": self.in_cover,
            "cover_by": list(self.cover_by),
            "pools": {"attack": self.attack_pool, "defense": self.defense_pool},
            "attack_dice": self.attack_dice,
            "defense_dice": self.defense_dice,
            "supporting_dice_cap": "none" if self.supporting_dice_cap is None else self.supporting_dice_cap,
            "wound_roll_modifier": self.wound_roll_modifier,
            "ammo": None if self.ammo_before is None else {"before": self.ammo_before, "after": self.ammo_before - 1},
            "target_wounds_left": self.target_wounds_left,
        }

    def _cover_text(self) -> str:
        if self.cover_by:
            reach = _inches(self.options.cover_reach)
            return (f"{', '.join(self.cover_by)} within {reach}{_ruled(reach, _inches(RULES.cover_reach))} of "
                    f"{self.target} on every line of sight")
        return f"no line of sight to {self.target} at all"

    def dice_text(self) -> str:
        """``3 attack dice v 3 defense, opposed; wound 1D6 -1``: the opposed test [BU-6.1] and the wound roll [BU-7.2];
        a redirected attack beyond long range rolls nothing [BU-4.3]."""
        if self.fails:
            return "beyond long range: the attack fails"
        return (f"{_count(self.attack_dice, 'attack die', 'attack dice')} v {self.defense_dice} defense, opposed; "
                f"wound 1D6 {self.wound_roll_modifier:+d}")

    def summary(self) -> list[tuple[str, str]]:
        rows = [("weapon", self.weapon)]
        if self.redirected:
            rows.append(("target", f"{self.target}, nominated instead of {self.declared_target} [BU-4.2]"))
        rows.append(("range", f"{self.distance:.2f} in, " + (f"{self.band} band" if self.band else
                                                            "beyond long range: the attack fails [BU-4.3]")))
        rows.append(("line of sight", str(self.line_of_sight.get("verdict", ""))))
        rows.append(("cover", f"in cover: {self._cover_text()} [BU-5.7]" if self.in_cover else "none"))
        if not self.fails:
            rows += [("attack dice", str(self.attack_dice)), ("defense dice", str(self.defense_dice)),
                     ("wound roll", f"1D6 {self.wound_roll_modifier:+d}")]
            cap = self.supporting_dice_cap
            if cap != RULES.cap:  # the result counts at most this many supporting dice [BU-6.2]
                shown = "no cap" if cap is None else f"at most {_count(cap, 'supporting die', 'supporting dice')}"
                rows.append(("supporting dice", f"{shown} {house_note(str(cap), 'none')} [BU-6.2]"))
        if self.ammo_before is not None:
            rows.append(("ammo", f"{self.ammo_before} -> {self.ammo_before - 1} (spent on declaring) [BU-4.1]"))
        if self.nominees and not self.redirected:
            rows.append(("may be nominated", "; ".join(n.describe() for n in self.nominees)))
        return rows


class Bushido(Ruleset[Battle, BushidoPlan, BushidoOutcome]):
    """Ranged attacks: eligibility, redirection, dice pools by clause, the opposed test and the wound chart."""

    key = KEY
    title = "Bushido"
    aliases = ("bu",)
    clause_prefix = "BU"
    stages = ("attack", "defense", "wound")
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
        """Ending the activation passes ``active_side`` to the next side [BU-8.2]."""
        sides = self.sides(battle)
        if not sides:
            raise RangefireError("no side has a model left to take the activation")
        log = []
        side = battle.active_side
        if side is None:
            side = sides[0]
            log.append(LogLine("BU-8.2", f"the battle recorded no active side: {side}, the first side, is taken to "
                                         "be ending its activation"))
        following = sides[(sides.index(side) + 1) % len(sides)] if side in sides else sides[0]
        log.append(LogLine("BU-8.2", f"{side}'s activation ends; the activation passes to {following}"))
        return battle.model_copy(update={"active_side": following}), log

    def _end_turn(self, battle: Battle) -> tuple[Battle, list[LogLine]]:
        """Ending the turn clears the turn's states and attack marks; prone and wounds stay [BU-8.2]."""
        log = []
        number = battle.turn.number if battle.turn is not None else None
        if number is None:
            number = 1
            log.append(LogLine("BU-8.2", "the battle recorded no turn: it is taken to be turn 1"))
        units = []
        for unit in battle.units:
            cleared = [s for s in unit.states if s in TURN_STATES] + (["its attack mark"] if unit.attacked else [])
            if cleared:
                log.append(LogLine("BU-8.2", f"{unit.id}: {', '.join(cleared)} cleared"))
                unit = unit.model_copy(update={"states": tuple(s for s in unit.states if s not in TURN_STATES),
                                               "attacked": False})
            units.append(unit)
        stay = [f"{u.id} prone" for u in battle.units if u.has("prone")]
        stay += [f"{u.id} {u.wounds.marked}/{u.wounds.boxes} wounds" for u in battle.units if u.wounds.marked]
        log.append(LogLine("BU-8.2", "prone and wounds stay" + (f" ({', '.join(stay)})" if stay else "")))
        stays = f" ({battle.active_side} stays the active side)" if battle.active_side else ""
        check_turn_number(number + 1)
        log.append(LogLine("BU-8.2", f"turn {number} ends; turn {number + 1} begins{stays}"))
        after = battle.model_copy(update={"units": tuple(units), "turn": Turn(number=number + 1)})
        return after, log

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
                          (f"keep {plan.target}", *(f"nominate {n.id}" for n in plan.nominees)), "BU-4.2")

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
        shooter = battle.unit(attack.attacker)
        if attack.target is None:
            return [Refusal("BU-3.2", "name the target model with --target")]
        declared = battle.unit(attack.target)
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
            alternatives = tuple(self._plan(battle, look, shooter, declared, battle.unit(n.id), ()) for n in found)
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
        """Whether this model may make a ranged attack at all [BU-3.1, BU-3.3, BU-3.5]."""
        refusals = []
        if shooter.attacked and battle.options.one_attack_per_turn:
            refusals.append(Refusal("BU-8.1", f"{shooter.id} has already made a ranged attack this turn (one a "
                                              "turn)"))
        if battle.active_side is not None and shooter.side != battle.active_side:
            refusals.append(Refusal("BU-3.1", f"it is {battle.active_side}'s activation; {shooter.id} is on "
                                              f"{shooter.side}'s side"))
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
            zone = _inches(battle.options.zone_of_control)
            refusals.append(Refusal("BU-3.3", f"{shooter.id} is in the zone of control of {', '.join(zones)} "
                                              f"(within {zone}{_ruled(zone, _inches(RULES.zone_of_control))} of "
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
        weapon = shooter.weapon
        assert weapon is not None and shooter.rcp is not None
        redirected = target.id != declared.id
        band_ = look.band(shooter, target, weapon)
        covered, seen, cover_by = cover(battle, shooter, target)
        notes = [LogLine("BU-2.1", f"line of sight to {target.id} {seen.describe()}")]
        options = battle.options
        if redirected:
            notes.insert(0, LogLine("BU-4.2", f"{declared.id}'s player nominates {target.id} as the target"))
            if band_ is None:
                notes.append(LogLine("BU-4.3", f"{target.id} is beyond long range: the attack fails (the Ammo "
                                               "marker stays spent)"))
        elif found:
            notes.append(LogLine("BU-4.2", f"{target.side} may nominate {' or '.join(n.id for n in found)} instead "
                                           f"(choice redirect_to); {target.id} stays the target"))
        am, rules_am = options.attack_modifiers, RULES.attack_modifiers
        if shooter.attacked and not options.one_attack_per_turn:
            notes.append(LogLine("BU-8.1", f"{shooter.id} has already made a ranged attack this turn: a second is "
                                           f"made {house_note('more', 'one a turn')}"))
        mods: list[Modifier] = []
        attack = shooter.rcp
        if shooter.has("aimed"):
            mods.append(_modifier("BU-5.3", "attack", am.aimed, rules_am.aimed, "aimed this turn"))
        if shooter.has("ran"):
            mods.append(_modifier("BU-5.3", "attack", am.ran, rules_am.ran, "ran this turn"))
        if shooter.has("moved") or shooter.has("will_move"):
            mods.append(_modifier("BU-5.3", "attack", am.moved, rules_am.moved,
                                  "has moved or will move this activation"))
        if covered:
            mods.append(_modifier("BU-5.3", "attack", am.cover, rules_am.cover, f"{target.id} is in cover"
                                  f"{' (' + ', '.join(cover_by) + ')' if cover_by else ''}", " [BU-5.7]"))
        attack += sum(m.delta for m in mods)
        judged = band_ or "long"  # a redirected attack beyond long range rolls nothing [BU-4.3]
        defense = getattr(options.defense_dice, judged)
        rules_defense = getattr(RULES.defense_dice, judged)
        if band_ is not None and defense != rules_defense:
            notes.append(LogLine("BU-5.1", f"{band_} range: {_count(defense, 'defense die', 'defense dice')} "
                                           f"{house_note(str(defense), str(rules_defense))}"))
        dm, rules_dm = options.defense_modifiers, RULES.defense_modifiers
        dmods = []
        for state in ("prone", "ran", "surprised"):
            if target.has(state):
                dmods.append(_modifier("BU-5.4", "defense", getattr(dm, state), getattr(rules_dm, state),
                                       f"{target.id} is {state}"))
        if target.size == "large":
            dmods.append(_modifier("BU-5.4", "defense", dm.large, rules_dm.large,
                                   f"{target.id} is Large ({target.base} mm)"))
        elif target.size == "small":
            dmods.append(_modifier("BU-5.4", "defense", dm.small, rules_dm.small,
                                   f"{target.id} is Small ({target.base} mm)"))
        defense += sum(m.delta for m in dmods)
        if not options.attacker_wins_ties:
            notes.append(LogLine("BU-6.3", "equal results and equal dice remaining: the defender wins at SL 0 "
                                           f"{house_note('the defender', 'the attacker')}"))
        changed = _chart_changes(options.chart)
        if changed:
            shown = "; ".join(changed[:4]) + (f"; and {len(changed) - 4} more" if len(changed) > 4 else "")
            notes.append(LogLine("BU-7.2", f"the wound chart is a house rule: {shown}"))
        rolled_a, rolled_d, gain_a, gain_d = pools(attack, defense)
        extra = []
        if attack < 1 or defense < 1:
            if gain_a:
                extra.append(Modifier("BU-5.6", gain_a, f"{_dice_noun('attack', gain_a)}: the defense pool is "
                                                        f"{defense}"))
            if gain_d:
                extra.append(Modifier("BU-5.6", gain_d, f"{_dice_noun('defense', gain_d)}: the attack pool is "
                                                        f"{attack}"))
            notes.append(LogLine("BU-5.6", f"pools {attack} and {defense}: a pool below 1 rolls 1 die"
                                           + ("; neither gains, both were below 1" if not (gain_a or gain_d) else "")))
        return BushidoPlan(
            ruleset=self.key, attacker=shooter.id, target=target.id, modifiers=tuple(mods + dmods + extra),
            notes=tuple(notes), declared_target=declared.id, redirected=redirected, nominees=found,
            weapon=weapon.name, distance=max(0.0, shooter.disc.gap(target.disc)), band=band_,
            line_of_sight={"verdict": seen.describe(), **seen.to_dict()}, in_cover=covered, cover_by=cover_by,
            rcp=shooter.rcp,
            attack_pool=attack, defense_pool=defense, attack_dice=rolled_a, defense_dice=rolled_d,
            supporting_dice_cap=battle.options.cap, wound_modifier=weapon.wound_modifier, armour=target.armour,
            armour_piercing=weapon.armour_piercing, ammo_before=weapon.ammo,
            target_wounds_left=target.wounds.left, options=options, alternatives=alternatives)

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
                                      plan.supporting_dice_cap, plan.options.chart, plan.options.attacker_wins_ties)
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
                                         f"({_count(a[1], 'remaining die', 'remaining dice')} against {d[1]}){rule}"))
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
                                     f"{_count(wounds, 'wound', 'wounds')}{_ruled(str(wounds), rules)}"))
        removed = wounds >= plan.target_wounds_left
        marked = _count(min(wounds, plan.target_wounds_left), "box", "boxes")
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

