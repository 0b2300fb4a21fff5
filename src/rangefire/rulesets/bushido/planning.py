"""A Bushido ranged attack planned step by step, once it may be made [BU-4.2 to BU-8.1].

:func:`plan_attack` reads the target (declared or nominated) and its line of sight, then the attack pool and
its modifiers, the defense pool and its modifiers, the house rules an explanation names, and the pools
below 1; each step gives its lines with their clauses.
"""

from __future__ import annotations

import math
from fractions import Fraction

from rangefire.core import LogLine, Modifier
from rangefire.core.options import house_note
from rangefire.geometry import Point
from rangefire.rulesets.bushido.dice import pools
from rangefire.rulesets.bushido.lookups import PairByPair
from rangefire.rulesets.bushido.plan import RULES, BushidoPlan, chart_changes, count, dice_noun, inches, modifier, ruled
from rangefire.rulesets.bushido.scenario import Battle, Options, Unit
from rangefire.rulesets.bushido.table import (
    NEAR_REACHES,
    Cover,
    Nominee,
    Sight,
    gap2_to_piece,
    near_base,
    obscuring_near,
)


def plan_attack(key: str, battle: Battle, look: PairByPair, shooter: Unit, declared: Unit, target: Unit,
                found: tuple[Nominee, ...], alternatives: tuple[BushidoPlan, ...] = ()) -> BushidoPlan:
    """The plan of ``shooter``'s attack on ``target`` (``declared``, or the model nominated in its place;
    ``found``: the models that may be nominated) [BU-4 to BU-7]."""
    weapon, options = shooter.weapon, battle.options
    assert weapon is not None and shooter.rcp is not None
    band = look.band(shooter, target, weapon)
    found_cover = look.cover(shooter, target)
    covered, seen, cover_by = found_cover.covered, found_cover.sight, found_cover.by
    notes = _target_notes(declared, target, band, found, seen)
    notes += _centre_line_notes(shooter, target, found_cover, options) + _cover_notes(battle, target, found_cover)
    if shooter.attacked and not options.one_attack_per_turn:
        notes.append(LogLine("BU-8.1", f"{shooter.id} has already made a ranged attack this turn: a second is "
                                       f"made {house_note('more', 'one a turn')}"))
    mods = _attack_modifiers(options, shooter, target, covered, cover_by)
    attack = shooter.rcp + sum(m.delta for m in mods)
    defense, defense_note = _defense_dice(options, band)
    notes += defense_note
    dmods = _defense_modifiers(options, target)
    defense += sum(m.delta for m in dmods)
    notes += _house_notes(options)
    extra, small = _small_pools(attack, defense)
    notes += small
    rolled_a, rolled_d, _, _ = pools(attack, defense)
    return BushidoPlan(
        ruleset=key, attacker=shooter.id, target=target.id, modifiers=tuple(mods + dmods + extra),
        notes=tuple(notes), declared_target=declared.id, redirected=target.id != declared.id, nominees=found,
        weapon=weapon.name, distance=max(0.0, shooter.disc.gap(target.disc)), band=band,
        line_of_sight={"verdict": seen.describe(), **seen.to_dict()}, in_cover=covered, cover_by=cover_by,
        rcp=shooter.rcp,
        attack_pool=attack, defense_pool=defense, attack_dice=rolled_a, defense_dice=rolled_d,
        supporting_dice_cap=options.cap, wound_modifier=weapon.wound_modifier, armour=target.armour,
        armour_piercing=weapon.armour_piercing, ammo_before=weapon.ammo,
        target_wounds_left=target.wounds.left, options=options, alternatives=alternatives)


def _target_notes(declared: Unit, target: Unit, band: str | None, found: tuple[Nominee, ...],
                  seen: Sight) -> list[LogLine]:
    """The line of sight [BU-2.1]; a nomination made [BU-4.2], beyond long range the attack fails [BU-4.3];
    or the models that may still be nominated."""
    notes = [LogLine("BU-2.1", f"line of sight to {target.id} {seen.describe()}")]
    if target.id != declared.id:
        notes.insert(0, LogLine("BU-4.2", f"{declared.id}'s player nominates {target.id} as the target"))
        if band is None:
            notes.append(LogLine("BU-4.3", f"{target.id} is beyond long range: the attack fails (the Ammo marker "
                                           "stays spent)"))
    elif found:
        notes.append(LogLine("BU-4.2", f"{target.side} may nominate {' or '.join(n.id for n in found)} instead "
                                       f"(choice redirect_to); {target.id} stays the target"))
    return notes


def _at(p: Point) -> str:
    return f"({float(p.x):.2f}, {float(p.y):.2f})"


def _centre_line_notes(shooter: Unit, target: Unit, found: Cover, options: Options) -> list[LogLine]:
    """Where the line between the centres is blocked but another line gives sight: what blocks it, and that one
    clear line is enough [BU-2.1]."""
    centre = found.centre
    if centre is None or found.sight.line is None or centre.is_clear(options.obscuring_sight):
        return []
    limit = options.obscuring_sight
    what = (f"crosses solid {', '.join(centre.solid)}" if centre.solid else
            f"runs {centre.obscured:.2f} in through obscuring {', '.join(centre.obscuring)} (more than "
            f"{inches(limit)}{ruled(inches(limit), inches(RULES.obscuring_sight))})")
    return [LogLine("BU-2.1", f"the line between the centres {what}, but {shooter.id} sees {target.id} along "
                              "another: one clear line base to base is enough")]


def _beyond(gap: float, reach: Fraction) -> str:
    """A distance just beyond the reach as a reader measures it (``1.20 in``; ``just over 1 in`` where two
    decimals would hide the difference)."""
    shown = f"{gap:.2f}"
    return f"just over {inches(reach)}" if float(shown) <= reach else f"{shown} in"


def _cover_notes(battle: Battle, target: Unit, found: Cover) -> list[LogLine]:
    """Why obscuring terrain gives no cover: on the line of sight that decides it, it lies farther than the reach
    from the target's base (named where it lies within ``NEAR_REACHES`` reaches), or that line does not pass through
    it at all though it lies within the reach; cover needs it within the reach on every line of sight [BU-5.7]."""
    line = found.denied
    if line is None:
        return []
    reach, disc = battle.options.cover_reach, target.disc
    near = obscuring_near(battle, disc, NEAR_REACHES * reach)  # farther out nobody expects it to cover
    if not near:
        return []
    within = f"{inches(reach)}{ruled(inches(reach), inches(RULES.cover_reach))}"
    along = f"the line of sight from {_at(line.segment.a)} to {_at(line.segment.b)}"
    need = f"cover needs obscuring terrain within {within} of {target.id} on every line of sight"
    notes = []
    for piece in near:
        gap2 = gap2_to_piece(line, piece.id, disc) if piece.id in line.obscuring else None
        if gap2 is not None:
            if gap2 > (disc.radius + NEAR_REACHES * reach) ** 2:
                continue
            gap = _beyond(math.sqrt(gap2) - float(disc.radius), reach)
            notes.append(LogLine("BU-5.7", f"{piece.id} is {gap} from {target.id}'s base on {along}: {need}"))
        elif near_base(piece, disc, reach):
            notes.append(LogLine("BU-5.7", f"{piece.id} lies within {within} of {target.id}'s base, but {along} "
                                           f"does not pass through it: {need}"))
    return notes


def _attack_modifiers(options: Options, shooter: Unit, target: Unit, covered: bool,
                      cover_by: tuple[str, ...]) -> list[Modifier]:
    """The attack pool's modifiers: aimed, ran, moved [BU-5.3], the target in cover [BU-5.7]."""
    am, rules = options.attack_modifiers, RULES.attack_modifiers
    mods = []
    if shooter.has("aimed"):
        mods.append(modifier("BU-5.3", "attack", am.aimed, rules.aimed, "aimed this turn"))
    if shooter.has("ran"):
        mods.append(modifier("BU-5.3", "attack", am.ran, rules.ran, "ran this turn"))
    if shooter.has("moved") or shooter.has("will_move"):
        mods.append(modifier("BU-5.3", "attack", am.moved, rules.moved, "has moved or will move this activation"))
    if covered:
        mods.append(modifier("BU-5.3", "attack", am.cover, rules.cover, f"{target.id} is in cover"
                             f"{' (' + ', '.join(cover_by) + ')' if cover_by else ''}", " [BU-5.7]"))
    return mods


def _defense_dice(options: Options, band: str | None) -> tuple[int, list[LogLine]]:
    """The defense dice of the range band [BU-5.1], with a note where a house rule sets them (a redirected
    attack beyond long range rolls nothing [BU-4.3]: judged as long)."""
    judged = band or "long"
    defense, rules = getattr(options.defense_dice, judged), getattr(RULES.defense_dice, judged)
    if band is None or defense == rules:
        return defense, []
    return defense, [LogLine("BU-5.1", f"{band} range: {count(defense, 'defense die', 'defense dice')} "
                                       f"{house_note(str(defense), str(rules))}")]


def _defense_modifiers(options: Options, target: Unit) -> list[Modifier]:
    """The defense pool's modifiers: the target prone, ran or surprised, Large or Small [BU-5.4]."""
    dm, rules = options.defense_modifiers, RULES.defense_modifiers
    mods = [modifier("BU-5.4", "defense", getattr(dm, state), getattr(rules, state), f"{target.id} is {state}")
            for state in ("prone", "ran", "surprised") if target.has(state)]
    if target.size == "large":
        mods.append(modifier("BU-5.4", "defense", dm.large, rules.large, f"{target.id} is Large ({target.base} mm)"))
    elif target.size == "small":
        mods.append(modifier("BU-5.4", "defense", dm.small, rules.small, f"{target.id} is Small ({target.base} mm)"))
    return mods


def _house_notes(options: Options) -> list[LogLine]:
    """House rules the dice are judged by: the attack dice rolled again and added [BU-6.2], who wins a tie
    [BU-6.3], the wound chart [BU-7.2]."""
    notes = []
    if options.reroll_failed_attack:
        notes.append(LogLine("BU-6.2", "house rule: each attack die that fails (a 1) is rolled once more, the second "
                                       "roll standing (options.reroll_failed_attack; the rules roll each die once)"))
    if options.exploding_sixes:
        notes.append(LogLine("BU-6.2", "house rule: each 6 on the attack dice adds an attack die, an added 6 another, "
                                       f"at most {count(options.exploding_sixes, 'die', 'dice')} added "
                                       "(options.exploding_sixes; the rules add none)"))
    if not options.attacker_wins_ties:
        notes.append(LogLine("BU-6.3", "equal results and equal dice remaining: the defender wins at SL 0 "
                                       f"{house_note('the defender', 'the attacker')}"))
    changed = chart_changes(options.chart)
    if changed:
        shown = "; ".join(changed[:4]) + (f"; and {len(changed) - 4} more" if len(changed) > 4 else "")
        notes.append(LogLine("BU-7.2", f"the wound chart is a house rule: {shown}"))
    return notes


def _small_pools(attack: int, defense: int) -> tuple[list[Modifier], list[LogLine]]:
    """A pool below 1 rolls 1 die, and the other pool gains what it lacked [BU-5.6]."""
    if attack >= 1 and defense >= 1:
        return [], []
    _, _, gain_a, gain_d = pools(attack, defense)
    extra = []
    if gain_a:
        extra.append(Modifier("BU-5.6", gain_a, f"{dice_noun('attack', gain_a)}: the defense pool is {defense}"))
    if gain_d:
        extra.append(Modifier("BU-5.6", gain_d, f"{dice_noun('defense', gain_d)}: the attack pool is {attack}"))
    return extra, [LogLine("BU-5.6", f"pools {attack} and {defense}: a pool below 1 rolls 1 die"
                                     + ("; neither gains, both were below 1" if not (gain_a or gain_d) else ""))]
