"""The sides and notches an Arcane Legions order uses, and its dice [AL-3, AL-4, AL-5.3 to AL-5.5, AL-8.1].

:func:`choose_sides` takes the sides the player named, or ranks every legal choice: the most attack dice net
of the defender's, then the shortest distance; on a tie the most attack dice, then the attacker's sides in
the order front, right, back, left, then the target's [AL-3.4, AL-3.5]. :func:`dice_for` counts the dice of
one choice with the battle's penalties, each a modifier with its clause.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from rangefire.core import Modifier, Refusal
from rangefire.geometry import Point, Segment
from rangefire.rulesets.arcane_legions.orders import RULES, noted, possessive, steps
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Battle, Options, SidePenalty, Unit
from rangefire.rulesets.arcane_legions.table import (
    Reach,
    Sight,
    base_of,
    is_adjacent,
    nearby,
    sight,
    sight_pieces,
    touching_sides,
)


class Sides(NamedTuple):
    """The sides, notches and dice an order will use [AL-3.4], the other side pairs that tied with it
    [AL-3.5]; no line of sight for close combat."""

    attack_dice: int
    defense_dice: int
    modifiers: list[Modifier]
    from_side: str
    to_side: str
    from_notch: Point
    to_notch: Point
    distance2: Fraction
    sight: Sight | None
    tied: tuple[tuple[str, str], ...] = ()


def _signed(delta: int, rules: int) -> str:
    """A penalty's note beside the rules' value, where a house rule sets it (``-2 (house rule; ...)``)."""
    return noted(delta, rules, "{:+d}")


# -- dice --------------------------------------------------------------------------------------------
def dice_for(shooter: Unit, target: Unit, order: str, sa: str, st: str, hindrances: int, options: Options,
             friends: Sequence[str] = ()) -> tuple[int, int, list[Modifier]]:
    """Attack and defense dice for a choice of sides [AL-5.3, AL-5.4, AL-8.1], never below 0 [AL-5.5]; the
    penalties are the battle's options. A penalty a house rule sets is named beside the rules' value, even
    where it takes nothing away."""
    if order == "ranged":
        base, mods = shooter.ready("blue"), _ranged_attack(shooter, target, sa, hindrances, options, friends)
    else:
        base, mods = shooter.ready("red"), _close_attack(shooter, sa, options)
    attack = max(0, base + sum(m.delta for m in mods))
    defense = _defense(target, st, options, mods)
    return attack, max(0, defense), mods


def _ranged_attack(shooter: Unit, target: Unit, sa: str, hindrances: int, options: Options,
                   friends: Sequence[str]) -> list[Modifier]:
    """A ranged order's attack dice modifiers: the ability, the side's colour [AL-5.3], firing into melee and
    each hindrance on the line of sight [AL-4.3]."""
    mods = _ability_and_side(shooter, sa, "AL-5.3", options.side_penalty.ranged, RULES.side_penalty.ranged)
    melee = options.melee_penalty
    if friends and (melee or melee != RULES.melee_penalty):
        mods.append(Modifier("AL-5.3", -melee, f"firing into melee ({target.id} is adjacent to {', '.join(friends)})"
                                               + _signed(-melee, -RULES.melee_penalty)))
    each = options.hindrance_penalty
    if hindrances and (each or each != RULES.hindrance_penalty):
        mods.append(Modifier("AL-5.3", -hindrances * each,
                             f"{hindrances} hindrance{'s' if hindrances != 1 else ''} on the line of sight"
                             + (f", {-each:+d} each{_signed(-each, -RULES.hindrance_penalty)}"
                                if each != RULES.hindrance_penalty else "") + " [AL-4.3]"))
    return mods


def _close_attack(shooter: Unit, sa: str, options: Options) -> list[Modifier]:
    """A close combat order's attack dice modifiers: the ability and the side's colour [AL-8.1]."""
    return _ability_and_side(shooter, sa, "AL-8.1", options.side_penalty.close, RULES.side_penalty.close)


def _ability_and_side(shooter: Unit, sa: str, clause: str, penalties: SidePenalty,
                      rules: SidePenalty) -> list[Modifier]:
    """The attacker's attack_dice ability, and the penalty of the colour of the side it attacks from, by the
    order's table of penalties (``penalties``; the rules' own ``rules``) [AL-5.3, AL-8.1]."""
    colour = getattr(shooter.sides, sa)
    mods = []
    if shooter.abilities.attack_dice:
        mods.append(Modifier(clause, shooter.abilities.attack_dice, f"{possessive(shooter.id)} attack_dice ability"))
    side, rules_side = getattr(penalties, colour), getattr(rules, colour)
    if side or side != rules_side:
        mods.append(Modifier(clause, -side, f"attacking from the {sa} side, which is {colour}"
                                            + _signed(-side, -rules_side)))
    return mods


def _defense(target: Unit, st: str, options: Options, mods: list[Modifier]) -> int:
    """The defense dice (before the floor of 0): ready white icons, the ability, the attacked side's colour
    [AL-5.4]; their modifiers join ``mods``."""
    defense = target.ready("white")
    if target.abilities.defense_dice:
        mods.append(Modifier("AL-5.4", target.abilities.defense_dice,
                             f"{possessive(target.id)} defense_dice ability (defense dice)"))
        defense += target.abilities.defense_dice
    colour = getattr(target.sides, st)
    side, rules_side = getattr(options.side_penalty.defense, colour), getattr(RULES.side_penalty.defense, colour)
    if side or side != rules_side:
        mods.append(Modifier("AL-5.4", -side, f"the attacked {st} side is {colour} (defense dice)"
                                              + _signed(-side, -rules_side)))
        defense -= side
    return defense


def melee_friends(battle: Battle, shooter: Unit, target: Unit) -> list[str]:
    """Units friendly to the attacker that the target is adjacent to (firing into melee) [AL-5.3]."""
    return [u.id for u in nearby(battle.units, target) if u.side == shooter.side and u.id != shooter.id
            and is_adjacent(u, target, battle.options.corner_contact_is_adjacent)]


# -- sides -------------------------------------------------------------------------------------------
def choose_sides(battle: Battle, shooter: Unit, target: Unit, order: str,
                 wanted: Mapping[str, str | None]) -> Sides | list[Refusal]:
    """The sides and notches to use [AL-3.4]: the legal choice with the most attack dice net of the
    defender's, then the shortest distance, and the other side pairs that tied [AL-3.5]. Line of sight is
    looked at only where it could still win or tie."""
    sides_a = [wanted["from_side"]] if wanted["from_side"] else list(SIDE_NAMES)
    sides_t = [wanted["to_side"]] if wanted["to_side"] else list(SIDE_NAMES)
    if order == "close":
        return _close_sides(battle, shooter, target, sides_a, sides_t)
    found = _ranged_candidates(battle, shooter, target, sides_a, sides_t)
    if isinstance(found, list):
        return found
    return _best_in_sight(battle, shooter, target, *found)


def _close_sides(battle: Battle, shooter: Unit, target: Unit, sides_a: list[str],
                 sides_t: list[str]) -> Sides | list[Refusal]:
    """Close combat uses touching sides, from their middle notches [AL-8.1]."""
    touching = touching_sides(shooter, target)
    if not touching:
        return [Refusal("AL-8.1", f"{target.id} is not adjacent to {shooter.id}: close combat needs contact")]
    pairs = [p for p in touching if p[0] in sides_a and p[1] in sides_t]
    if not pairs:
        return [Refusal("AL-8.1", "those sides do not touch: close combat uses the touching sides")]
    bs, bt = base_of(shooter), base_of(target)
    ranked: list[tuple[Any, Sides]] = []
    for sa, st in pairs:
        a, d, mods = dice_for(shooter, target, "close", sa, st, 0, battle.options)
        mid_a = bs.sides[sa].notches[len(bs.sides[sa].notches) // 2]
        mid_t = bt.sides[st].notches[len(bt.sides[st].notches) // 2]
        rank = (-(a - d), Fraction(0), -a, SIDE_NAMES.index(sa), SIDE_NAMES.index(st))
        ranked.append((rank, Sides(a, d, mods, sa, st, mid_a, mid_t, Fraction(0), None)))
    return _with_ties(ranked)


#: A ranged choice before its line of sight is looked at: the best rank it could have (with a clear line),
#: the sides, the notches and the squared distance in ``Reach`` units.
Candidate = tuple[tuple[Any, ...], str, str, Point, Point, int]


def _ranged_candidates(battle: Battle, shooter: Unit, target: Unit, sides_a: list[str],
                       sides_t: list[str]) -> tuple[list[Candidate], Reach, list[str]] | list[Refusal]:
    """Every pair of notches in range [AL-3.1] on sides that face each other [AL-3.3], best bound first;
    or why there is none."""
    bs, bt = base_of(shooter), base_of(target)
    reach_steps = battle.options.range_steps
    said = steps(reach_steps) + noted(reach_steps, RULES.range_steps, steps)
    if (bs.polygon.is_clearly_apart(bt.polygon, float(reach_steps))
            or bs.polygon.box.gap2(bt.polygon.box) > reach_steps * reach_steps):
        return [Refusal("AL-3.1", f"{target.id} is out of range: the bases are already more than {said} steps "
                                  "apart")]
    friends = melee_friends(battle, shooter, target)
    in_range = facing = False
    nearest = None
    candidates: list[Candidate] = []
    reach = Reach(bs, bt, reach_steps)  # squared distances in integers, ``reach.scale`` times the true ones
    for sa in sides_a:
        for st in sides_t:
            # a hindrance only takes dice away (its penalty is at least 0): no hindrance is the upper bound
            a_ub, d, _ = dice_for(shooter, target, "ranged", sa, st, 0, battle.options, friends)
            for ka, kt, d2 in reach.pairs(sa, st):
                nearest = d2 if nearest is None or d2 < nearest else nearest
                if d2 > reach.limit:
                    continue
                in_range = True
                if not reach.facing(sa, st, ka, kt):
                    continue
                facing = True
                # the rank with a clear line: no choice through these notches can rank better
                bound = (-(a_ub - d), d2, -a_ub, SIDE_NAMES.index(sa), SIDE_NAMES.index(st), ka, kt)
                candidates.append((bound, sa, st, bs.sides[sa].notches[ka], bt.sides[st].notches[kt], d2))
    if not in_range:
        return [Refusal("AL-3.1", f"{target.id} is out of range: its nearest notch is "
                                  f"{float(Fraction(nearest or 0, reach.scale)) ** 0.5:.2f} steps away "
                                  f"({said} steps at most)")]
    if not facing:
        return [Refusal("AL-3.3", "no side in range faces the other unit: a side can only be used toward "
                                  "what lies in front of it")]
    candidates.sort(key=lambda c: c[0])
    return candidates, reach, friends


def _best_in_sight(battle: Battle, shooter: Unit, target: Unit, candidates: list[Candidate], reach: Reach,
                   friends: list[str]) -> Sides | list[Refusal]:
    """The best candidate with a line of sight [AL-4], its hindrances counted [AL-4.3]; candidates that
    cannot win or tie even with a clear line are never looked at."""
    others = [u for u in battle.units if u.id not in (shooter.id, target.id)]
    pieces = sight_pieces(others, battle.terrain, (base_of(shooter), base_of(target)))
    best: Any = None
    ranked: dict[tuple[str, str], tuple[Any, Sides]] = {}  # the best rank of each side pair
    blockers: set[str] = set()
    for bound, sa, st, na, nt, d2 in candidates:
        if best is not None and bound[:2] > best[:2]:
            break  # no remaining choice can win or tie on net dice and distance, even with a clear line
        known = ranked.get((sa, st))
        if known is not None and known[0][:3] <= bound[:3]:
            continue  # the same sides through other notches cannot do better
        seen = sight(Segment(na, nt), others, battle.terrain, battle.options.touching_hinders, pieces)
        if seen.blocked_by:
            blockers.update(seen.blocked_by)
            continue
        a, d, mods = dice_for(shooter, target, "ranged", sa, st, len(seen.hindered_by), battle.options, friends)
        rank = (-(a - d), *bound[1:2], -a, *bound[3:])
        if known is None or rank < known[0]:
            ranked[(sa, st)] = (rank, Sides(a, d, mods, sa, st, na, nt, Fraction(d2, reach.scale), seen))
        if best is None or rank < best:
            best = rank
    if not ranked:
        return [Refusal("AL-4.2", f"every line of sight to {target.id} in range is blocked "
                                  f"({', '.join(sorted(blockers))})")]
    return _with_ties(list(ranked.values()))


def _with_ties(ranked: Sequence[tuple[Any, Sides]]) -> Sides:
    """The best-ranked choice, carrying the other side pairs that tie with it on net dice and distance, in
    the side order [AL-3.5]."""
    best_rank, best = min(ranked, key=lambda r: r[0])
    tied = sorted((r for r in ranked if r[0][:2] == best_rank[:2] and r[1] is not best), key=lambda r: r[0][3:5])
    return best._replace(tied=tuple((c.from_side, c.to_side) for _, c in tied))
