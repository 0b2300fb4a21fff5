"""A Dress on the Colors volley: its plan, its exact odds and its resolution [DC-3 to DC-5, DC-8].

The odds walk die faces, never rolls: the to-hit dice fall into three classes (natural 6, other hit, miss),
counted by multinomial coefficients; saves are binomial per number of hits; the discipline check is the
exact distribution of the sum of its dice. Everything is chained with integer weights (``Dist.bind``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rangefire.core import DiceSource, LogLine, Need, Outcome, Plan
from rangefire.core.options import house_note
from rangefire.dice import Dist
from rangefire.rulesets.dress_on_the_colors.scenario import Options

if TYPE_CHECKING:  # numpy is loaded only where dice are sampled
    import numpy as np
    from numpy.typing import NDArray

#: The rules as written, which an explanation quotes beside a house rule's value.
RULES = Options()

# The target numbers [DC-3.2], cover saves [DC-4.1] and every other number of the tables are the battle's
# options (``scenario.Options``, the rules' values as defaults); the plan carries the values in force.
WEAPON_NAMES = {
    "smoothbore": "smoothbore musket",
    "rifled-musket": "rifled musket",
    "breechloader": "breechloader / repeater",
    "artillery": "artillery",
}
#: The clauses whose modifiers change each to-hit die [DC-3.3, DC-7.2]; enfilade's modifiers change the number
#: of dice [DC-6.2] and the save [DC-6.3] instead.
TO_HIT_CLAUSES = ("DC-3.3", "DC-7.2")
#: The to-hit dice the house rule ``reroll_to_hit`` rolls once more [DC-3.4], as a player reads them.
REROLLED = {"ones": "1s that miss", "misses": "misses"}


def plural(n: int, word: str) -> str:
    """A count with its noun, singular for one.

    >>> plural(1, "stand"), plural(3, "stand"), plural(1, "die"), plural(0, "die")
    ('1 stand', '3 stands', '1 die', '0 dice')
    """
    if n == 1:
        return f"{n} {word}"
    return f"{n} {'dice' if word == 'die' else word + 's'}"


def worsen_save(save: int | None, shift: int = 1) -> int | None:
    """Enfilade worsens a save by ``shift`` (the rules: one): 4+ becomes 5+, 5+ becomes 6+, no save stays none;
    past 6+ no die saves, so there is no save [DC-6.3].

    >>> worsen_save(4), worsen_save(5), worsen_save(None), worsen_save(5, 2), worsen_save(4, 0)
    (5, 6, None, None, 4)
    """
    if save is None or save + shift > 6:
        return None
    return save + shift


def never_hits(lowest: int) -> str:
    """What DC-3.4 says of the low rolls, with a house rule's departure from "a natural 1 never hits".

    >>> never_hits(2), never_hits(3)
    ('a natural 1 never hits', 'nothing below a natural 3 hits (house rule; the rules say a natural 1 never hits)')
    """
    if lowest == 2:
        return "a natural 1 never hits"
    said = "a natural 1 can hit" if lowest == 1 else f"nothing below a natural {lowest} hits"
    return f"{said} {house_note(said, 'a natural 1 never hits')}"


def need_for(target_number: int, modifiers: int, lowest: int = 2) -> int:
    """The natural result a die needs: modified result >= target number, and never below ``lowest`` (the
    rules: 2, a natural 1 never hits) [DC-3.4].

    ``modifiers`` is the sum of the deltas (negative for penalties). A need above 6 cannot be met.

    >>> need_for(4, -1), need_for(2, 0), need_for(5, -3), need_for(2, 1, lowest=1)
    (5, 2, 8, 1)
    """
    return max(lowest, target_number - modifiers)


def casualties(stands: int, micro_hits: int, unsaved: int) -> tuple[int, int]:
    """Stands lost and the new micro-hit marker [DC-4.3]: lost = floor((m + U) / 2), marker = (m + U) mod 2;
    losses stop at the stands the unit has (a destroyed unit keeps no marker).

    >>> casualties(5, 1, 3), casualties(2, 0, 7)
    ((2, 0), (2, 0))
    """
    lost, marker = divmod(micro_hits + unsaved, 2)
    if lost >= stands:
        return stands, 0
    return lost, marker


@dataclass(frozen=True)
class VolleyPlan(Plan):
    """Everything decided before the dice of a volley are rolled."""

    weapon: str = ""
    band: str = ""
    distance2: Fraction = Fraction(0)
    line_of_fire: tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]] | None = None
    line_of_fire_tied: bool = False
    target_number: int = 0
    need: int = 7
    stands_firing: int = 0
    enfilade: bool = False
    enfilade_dice: int = 0
    cover: str = "open"
    cover_from: tuple[str, ...] = ()
    save: int | None = None
    smoke_from: tuple[str, ...] = ()
    target_stands: int = 1
    target_micro_hits: int = 0
    target_disordered: bool = False
    target_discipline: int = 0
    discipline_dice: int = 2
    discipline_pass: int = 6
    discipline_disordered: int = -1
    places_gunsmoke: bool = False
    tied_targets: tuple[str, ...] = ()
    dice_per_stand: int = 1
    lowest_hit: int = 2
    #: House rules of the dice: to-hit dice rolled once more ("none", "ones", "misses") [DC-3.4], and hits on a
    #: natural 6 that no save cancels [DC-4.1].
    reroll_to_hit: str = "none"
    sixes_ignore_cover: bool = False
    #: Where a house rule set a value the summary shows: its row and the note saying what the rules say.
    house_notes: tuple[tuple[str, str], ...] = ()

    @property
    def dice(self) -> int:
        """To-hit dice: one per stand firing [DC-3.1], plus one per two stands when enfilading [DC-6.2] (or
        as many as the house rules say)."""
        return self.stands_firing * self.dice_per_stand + self.enfilade_dice

    @property
    def to_hit_modifier(self) -> int:
        """The sum of the modifiers to each to-hit die [DC-3.3, DC-7.2] (not enfilade's dice or save)."""
        return sum(m.delta for m in self.modifiers if m.clause in TO_HIT_CLAUSES)

    @property
    def discipline_modifier(self) -> int:
        """The unit's discipline modifier, -1 (the house rules' value) if already disordered [DC-5.2]."""
        return self.target_discipline + (self.discipline_disordered if self.target_disordered else 0)

    @property
    def sixes_unsaved(self) -> bool:
        """Whether hits on a natural 6 are beyond any save here: the house rule, where a 6 hits and a save is
        rolled at all [DC-4.1]."""
        return self.sixes_ignore_cover and self.need <= 6 and self.save is not None

    def dice_text(self) -> str:
        """``8 dice, natural 5+, saves 4+``: the to-hit dice [DC-3.1, DC-6.2], the natural roll each needs
        [DC-3.4] and the target's cover save [DC-4.1]; the house rules of the dice after them."""
        need = f"natural {self.need}+" if self.need <= 6 else "no die can hit"
        text = f"{self.dice} dice, {need}, " + (f"saves {self.save}+" if self.save is not None else "no save")
        if self.reroll_to_hit != "none":
            text += f", {REROLLED[self.reroll_to_hit]} rolled again"
        return text + (", 6s unsaved" if self.sixes_unsaved else "")

    def summary(self) -> list[tuple[str, str]]:
        dice = plural(self.stands_firing, "stand") + (f" x {self.dice_per_stand}" if self.dice_per_stand != 1 else "")
        dice += f" + {self.enfilade_dice} enfilade" if self.enfilade else ""
        modified = self.to_hit_modifier
        to_hit = f"{self.target_number}+" + (f", {modified:+d}" if modified else "")
        to_hit += f": a natural {self.need}+" if self.need <= 6 else ": no die can hit"
        where = self.cover + (f" ({', '.join(self.cover_from)})" if self.cover_from else "")
        saves = f"{where}: " + (f"saves on {self.save}+" if self.save is not None else "no save")
        saves += " (worsened by enfilade)" if any(m.clause == "DC-6.3" for m in self.modifiers) else ""
        state = [plural(self.target_stands, "stand"),
                 "a micro-hit" if self.target_micro_hits else "no micro-hit",
                 "disordered" if self.target_disordered else "in good order"]
        if self.reroll_to_hit != "none":
            to_hit += f"; {REROLLED[self.reroll_to_hit]} rolled once more (house rule)"
        if self.sixes_unsaved:
            saves += "; a natural 6 cannot be saved (house rule)"
        rows = [
            ("weapon", WEAPON_NAMES.get(self.weapon, self.weapon)),
            ("range", f"{math.sqrt(self.distance2):.2f} in ({self.band})"),
            ("dice", f"{self.dice} ({dice})"),
            ("to hit", to_hit),
            ("cover", saves),
            ("target", ", ".join(state)),
            ("discipline", f"{self.discipline_dice}D6 {self.discipline_modifier:+d}, pass on "
                           f"{self.discipline_pass}+"),
            ("gunsmoke", "placed after the volley" if self.places_gunsmoke else "none: the firer moved"),
        ]
        return [(name, f"{text}{self.house_note(name)}") for name, text in rows]

    def house_note(self, row: str) -> str:
        """The note a house rule adds to a summary row (``" (house rule; the rules say 4+)"``), or ""."""
        if row == "discipline":
            return self._discipline_note()
        return next((f" {note}" for name, note in self.house_notes if name == row), "")

    def _discipline_note(self) -> str:
        """The discipline check beside the rules' [DC-5.2], from the plan's own fields: the check copies the
        options into them and reads them for nothing else (a sweep sets them in the plan directly)."""
        penalty = self.discipline_disordered if self.target_disordered else 0
        rules_penalty = RULES.discipline_disordered if self.target_disordered else 0
        if (self.discipline_dice, self.discipline_pass, penalty) == (
                RULES.discipline_dice, RULES.discipline_pass, rules_penalty):
            return ""
        said = (f"{RULES.discipline_dice}D6 {self.target_discipline + rules_penalty:+d}, pass on "
                f"{RULES.discipline_pass}+")
        return f" {house_note('', said)}"

    def details(self) -> dict[str, Any]:
        distance = math.sqrt(self.distance2)
        lof = self.line_of_fire
        return {
            "weapon": self.weapon,
            "range": {"inches": round(distance, 4), "squared": str(self.distance2), "band": self.band},
            "line_of_fire": [[str(c) for c in lof[0]], [str(c) for c in lof[1]]] if lof else None,
            "line_of_fire_tied": self.line_of_fire_tied,
            "target_number": self.target_number,
            "need": self.need,
            "can_hit": self.need <= 6,
            "dice": self.dice,
            "stands_firing": self.stands_firing,
            "enfilade": self.enfilade,
            "enfilade_dice": self.enfilade_dice,
            "cover": self.cover,
            "cover_from": list(self.cover_from),
            "save": self.save,
            "gunsmoke_crossed": list(self.smoke_from),
            "target_stands": self.target_stands,
            "target_micro_hits": self.target_micro_hits,
            "target_disordered": self.target_disordered,
            "discipline_check": {
                "dice": self.discipline_dice,
                "modifier": self.discipline_modifier,
                "pass": self.discipline_pass,
            },
            "places_gunsmoke": self.places_gunsmoke,
            "tied_targets": list(self.tied_targets),
            "reroll_to_hit": self.reroll_to_hit,
            "sixes_ignore_cover": self.sixes_ignore_cover,
        }


# -- exact odds ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DressOutcome(Outcome):
    """What a volley came to [DC-3, DC-4, DC-5]: the named outcomes and events, then the target as it is left."""

    hits: int
    unsaved_hits: int
    stands_lost: int
    suppression: bool
    disorder: bool
    target_stands: int
    micro_hits: int
    destroyed: bool


@dataclass(frozen=True)
class VolleyOutcome:
    """One joint outcome of a volley: what every named outcome and event needs to be computed together."""

    hits: int
    unsaved_hits: int
    stands_lost: int
    suppression: bool
    disorder: bool


def face_classes(need: int, reroll: str = "none") -> tuple[int, int, int]:
    """The weights of one to-hit die's final face in three classes: a natural 6 (a hit whenever ``need <= 6``,
    and always suppression [DC-5.1]), another hitting face (``need..5``), a miss [DC-3.4]; out of 6, or out of 36
    where a house rule rolls some dice once more (``reroll``: ``ones``, a natural 1 that misses; ``misses``,
    every die that misses but a 6; the second roll stands).

    >>> face_classes(4), face_classes(4, "ones"), face_classes(4, "misses")
    ((1, 2, 3), (7, 14, 15), (9, 18, 9))
    """
    other = max(0, 6 - need)
    misses = 5 - other  # faces 1 to need - 1 (1 to 5 where nothing hits): a 6 is never a miss to roll again
    if reroll == "none":
        return 1, other, misses
    again = misses if reroll == "misses" else min(misses, 1)  # a natural 1 misses unless need is 1
    return 6 + again, (6 + again) * other, 6 * (misses - again) + again * misses


def _classes(dice: int, need: int, reroll: str) -> Iterator[tuple[int, int, int]]:
    """(sixes, other hits, weight) of every split of the dice among the classes of :func:`face_classes`:
    multinomial counts, no roll enumerated."""
    six, other, miss = face_classes(need, reroll)
    for sixes in range(dice + 1):
        rest = dice - sixes
        ways_sixes = math.comb(dice, sixes) * six**sixes
        for hits in range(rest + 1):
            w = ways_sixes * math.comb(rest, hits) * other**hits * miss ** (rest - hits)
            if w:
                yield sixes, hits, w


@lru_cache(maxsize=256)
def to_hit(dice: int, need: int, reroll: str = "none") -> Dist[tuple[int, bool]]:
    """Joint (hits, any natural 6) of the to-hit roll [DC-3.1, DC-3.4, DC-5.1], with the house rule's dice
    rolled once more (``reroll``, see :func:`face_classes`).

    >>> to_hit(1, 4).probabilities()
    {(0, False): Fraction(1, 2), (1, False): Fraction(1, 3), (1, True): Fraction(1, 6)}
    """
    weights: dict[tuple[int, bool], int] = {}
    for sixes, hits, w in _classes(dice, need, reroll):
        key = (hits + (sixes if need <= 6 else 0), sixes > 0)
        weights[key] = weights.get(key, 0) + w
    return Dist(weights)


@lru_cache(maxsize=256)
def sixes_and_hits(dice: int, need: int, reroll: str = "none") -> Dist[tuple[int, int]]:
    """Joint (natural 6s, other hits) of the to-hit roll, for the house rule under which a hit on a natural 6
    cannot be saved [DC-4.1]: the 6s hit (``need <= 6``) and suppress [DC-5.1], the others face the save.

    >>> sixes_and_hits(1, 4).probabilities()
    {(0, 0): Fraction(1, 2), (0, 1): Fraction(1, 3), (1, 0): Fraction(1, 6)}
    """
    return Dist({(sixes, hits): w for sixes, hits, w in _classes(dice, need, reroll)})


@lru_cache(maxsize=64)
def discipline_fails(dice: int, modifier: int, pass_on: int) -> Fraction:
    """Probability of failing the Discipline Check: ``dice``D6 + modifier below ``pass_on`` [DC-5.2].

    >>> discipline_fails(2, 0, 6)
    Fraction(5, 18)
    """
    total = Dist.die(6).repeat_sum(dice)
    return total.p(lambda s: s + modifier < pass_on)


#: What the hits of a volley come to after the saves and the discipline check [DC-4.1, DC-4.3, DC-5.2], by the
#: hits and every number of the plan that :func:`volley_distribution` reads after them: shared between plans that
#: differ only in their to-hit dice (bounded: cleared when full).
_AFTER_HITS: dict[tuple[tuple[int, bool, int], tuple[Any, ...]], Dist[VolleyOutcome]] = {}
_AFTER_HITS_KEPT = 4096


def volley_distribution(plan: VolleyPlan) -> Dist[VolleyOutcome]:
    """The exact joint distribution of a volley's outcome [DC-8.1]: hits, saves, casualties, suppression,
    and disorder (suppression, the target survives, it fails its check) [DC-5.3]."""
    fail_faces = 6 if plan.save is None else plan.save - 1
    fails = discipline_fails(plan.discipline_dice, plan.discipline_modifier, plan.discipline_pass)
    check = Dist({True: fails.numerator, False: fails.denominator - fails.numerator}) if 0 < fails < 1 else \
        Dist.constant(fails == 1)
    reads = (fail_faces, fails, plan.target_stands, plan.target_micro_hits)

    def after_hits(key: tuple[int, bool, int]) -> Dist[VolleyOutcome]:
        found = _AFTER_HITS.get((key, reads))
        if found is None:
            if len(_AFTER_HITS) >= _AFTER_HITS_KEPT:
                _AFTER_HITS.clear()
            found = _AFTER_HITS[(key, reads)] = saved(key)
        return found

    def saved(key: tuple[int, bool, int]) -> Dist[VolleyOutcome]:
        hits, suppression, sure = key  # sure: hits on a natural 6 that no save cancels (a house rule) [DC-4.1]

        def after_saves(failed_saves: int) -> Dist[VolleyOutcome]:
            unsaved = sure + failed_saves
            lost, _ = casualties(plan.target_stands, plan.target_micro_hits, unsaved)
            survives = lost < plan.target_stands
            if not (suppression and survives):
                return Dist.constant(VolleyOutcome(hits, unsaved, lost, suppression, False))
            return check.map(lambda failed: VolleyOutcome(hits, unsaved, lost, suppression, failed))

        return Dist.binomial(hits - sure, fail_faces, 6).bind(after_saves)

    rolls: Dist[tuple[int, bool, int]]
    if plan.sixes_unsaved:
        rolls = sixes_and_hits(plan.dice, plan.need, plan.reroll_to_hit).map(lambda k: (k[0] + k[1], k[0] > 0, k[0]))
    else:
        rolls = to_hit(plan.dice, plan.need, plan.reroll_to_hit).map(lambda k: (k[0], k[1], 0))
    return rolls.bind(after_hits)


def sampled_to_hit(plan: VolleyPlan, n: int, rng: np.random.Generator,
                   ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """``n`` to-hit rolls of the plan's dice, every die rolled (numpy): which dice hit, which of those no save can
    cancel (a house rule's natural 6s [DC-4.1]), and whether each roll suppresses [DC-3.4, DC-5.1]. A house rule's
    second roll [DC-3.4] is drawn for every die and kept where it applies; under the rules the draws are the same
    as ever."""
    import numpy as np

    roll = rng.integers(1, 7, size=(n, plan.dice), dtype=np.int8)
    if plan.reroll_to_hit != "none":
        missed = (roll != 6) & (roll < plan.need)  # a die that does not hit; a 6 is never rolled again
        if plan.reroll_to_hit == "ones":
            missed &= roll == 1
        roll = np.where(missed, rng.integers(1, 7, size=(n, plan.dice), dtype=np.int8), roll)
    hit = roll >= plan.need  # need >= 2 by the rules: a natural 1 never hits; above 6 nothing hits [DC-3.4]
    sure = hit & (roll == 6) if plan.sixes_unsaved else np.zeros_like(hit)
    return hit, sure, (roll == 6).any(axis=1)


# -- resolution ------------------------------------------------------------------------------------
def _faces(values: tuple[int, ...]) -> str:
    return " ".join(str(v) for v in values) or "none"


def rolled_again(plan: VolleyPlan, faces: tuple[int, ...]) -> list[int]:
    """The places of the to-hit dice a house rule rolls once more [DC-3.4]: a natural 1 that misses (``ones``),
    or every die that misses but a 6, which always suppresses [DC-5.1] (``misses``); none under the rules."""
    if plan.reroll_to_hit == "none":
        return []
    missed = [i for i, v in enumerate(faces) if v != 6 and not (plan.need <= 6 and v >= plan.need)]
    return missed if plan.reroll_to_hit == "misses" else [i for i in missed if faces[i] == 1]


def _rolled_again(plan: VolleyPlan, source: DiceSource, rolled: tuple[int, ...],
                  say: Callable[[str, str], None]) -> tuple[int, ...]:
    """The to-hit dice after the house rule's second roll, stage ``hit-reroll``: the second roll stands
    [DC-3.4]."""
    again = rolled_again(plan, rolled)
    if not again:
        if plan.reroll_to_hit != "none":
            say("DC-3.4", f"house rule: {REROLLED[plan.reroll_to_hit]} are rolled once more: none to roll")
        return rolled
    what = REROLLED[plan.reroll_to_hit]
    hit_need = f"a natural {plan.need}+ hits" if plan.need <= 6 else "no die can hit, a natural 6 suppresses"
    second = source.roll("hit-reroll", len(again), need=Need(f"{hit_need}; the second roll stands",
                                                              f"{plural(len(again), 'die')}: {what}, once more"))
    final = list(rolled)
    for i, v in zip(again, second, strict=True):
        final[i] = v
    say("DC-3.4", f"house rule: {what} are rolled once more (options.reroll_to_hit = {plan.reroll_to_hit}; the "
                  f"rules roll once): {_faces(tuple(rolled[i] for i in again))} rolled again: {_faces(second)}; "
                  f"the dice now {_faces(tuple(final))}")
    return tuple(final)


def resolve_volley(plan: VolleyPlan, source: DiceSource) -> tuple[list[LogLine], DressOutcome]:
    """Play one volley in the order of DC-8.1, logging each step with its clause."""
    log: list[LogLine] = []

    def say(clause: str, text: str) -> None:
        log.append(LogLine(clause, text))

    # The planning steps first: target, range, target number, cover, modifiers [DC-2, DC-3, DC-4.2, DC-6,
    # DC-7.2, DC-7.3], as the check shows them; the need is stated with the roll below.
    log.extend(note for note in plan.notes if note.clause != "DC-3.4")
    log.extend(LogLine(m.clause, f"{m.delta:+d} {m.reason}") for m in plan.modifiers)
    dice_text = plural(plan.stands_firing, "stand")
    if plan.dice_per_stand != 1:
        dice_text += f" x {plural(plan.dice_per_stand, 'die')}{plan.house_note('dice')}"
    if plan.enfilade_dice:
        dice_text += f" + {plan.enfilade_dice} enfilade [DC-6.2]"
    # a die that cannot hit is still rolled: its natural 6 suppresses [DC-3.4, DC-5.1]
    hit_need = f"a natural {plan.need}+ hits" if plan.need <= 6 else "no die can hit, a natural 6 suppresses"
    rolled = source.roll("hit", plan.dice, need=Need(hit_need, dice_text))  # [DC-3.1, DC-3.4]
    say("DC-3.1", f"{plan.attacker} fires {plural(plan.dice, 'die')} ({dice_text}) at {plan.target}: "
                  f"{_faces(rolled)}")
    rolled = _rolled_again(plan, source, rolled, say)
    if plan.need <= 6:
        hits = sum(1 for v in rolled if v >= plan.need)
        say("DC-3.4", f"needs a natural {plan.need}+ (target number {plan.target_number}+, modifiers "
                      f"{plan.to_hit_modifier:+d}); {never_hits(plan.lowest_hit)}: {plural(hits, 'hit')}")
    else:
        hits = 0
        say("DC-3.4", f"needs a natural {plan.need}: no die can hit")
    suppression = 6 in rolled
    sure = rolled.count(6) if plan.sixes_unsaved else 0  # a house rule: no save for a natural 6 [DC-4.1]
    if sure:
        say("DC-4.1", f"house rule: {plural(sure, 'hit')} on a natural 6 cannot be saved (options.sixes_ignore_cover"
                      f"; the rules save every hit): {sure} unsaved")
    if plan.save is None or hits == sure:
        saves: tuple[int, ...] = ()
        unsaved = hits
        if plan.save is not None:
            pass  # every hit on a natural 6, said above: no save to roll
        elif hits and plan.cover == "open":
            say("DC-4.1", f"target in the open: no cover save{plan.house_note('cover')}, {unsaved} unsaved")
        elif hits:  # a save worsened past 6+ by enfilade [DC-6.3], or none by a house rule [DC-4.1]
            say("DC-4.1", f"{plan.cover} cover ({', '.join(plan.cover_from)}): no save"
                          f"{' (worsened by enfilade) [DC-6.3]' if plan.enfilade else ''}"
                          f"{plan.house_note('cover')}, {unsaved} unsaved")
    else:
        saving = plural(hits, "hit") + f" on a natural {plan.need}+" + (f", less {sure} on a 6" if sure else "")
        saves = source.roll("save", hits - sure, need=Need(f"{plan.save}+ saves", saving))  # [DC-4.1]
        saved = sum(1 for v in saves if v >= plan.save)
        unsaved = hits - saved
        grade = f"{plan.cover} cover ({', '.join(plan.cover_from)})"
        worse = " worsened by enfilade [DC-6.3]" if plan.enfilade else ""
        say("DC-4.1", f"cover saves on {plan.save}+{plan.house_note('cover')} for {grade}{worse}: {_faces(saves)}: "
                      f"{saved} saved, {unsaved} unsaved" + (f" with the {sure} on a 6" if sure else ""))
    lost, marker = casualties(plan.target_stands, plan.target_micro_hits, unsaved)
    left = plan.target_stands - lost
    say("DC-4.3", f"{plural(unsaved, 'unsaved hit')} + {plural(plan.target_micro_hits, 'micro-hit')}: "
                  f"{plural(lost, 'stand')} lost, "
                  f"{left} left, micro-hit marker {marker}"
                  + ("; the unit is destroyed" if left == 0 else ""))
    disorder = False
    if not suppression:
        say("DC-5.1", "no natural 6 on the to-hit dice: no suppression")
    else:
        say("DC-5.1", "a natural 6 on the to-hit dice: suppression")
        if left == 0:
            say("DC-5.3", f"{plan.target} is destroyed: no discipline check")
        else:
            check = source.roll("discipline", plan.discipline_dice, need=Need(  # [DC-5.2]
                f"{plan.discipline_dice}D6 {plan.discipline_modifier:+d}, pass on {plan.discipline_pass}+",
                "a natural 6 on the to-hit dice: suppression"))
            total = sum(check) + plan.discipline_modifier
            disorder = total < plan.discipline_pass
            verdict = "fails: Disorder Marker" if disorder else "passes"
            if disorder and plan.target_disordered:
                verdict = "fails: already disordered, no change"
            say("DC-5.2", f"discipline check {_faces(check)} {plan.discipline_modifier:+d} = {total} "
                          f"against {plan.discipline_pass}{plan.house_note('discipline')}: {plan.target} {verdict}")
    if plan.places_gunsmoke:
        say("DC-7.1", f"{plan.attacker} fired while stationary: gunsmoke marker placed at its front edge")
    else:
        say("DC-7.1", f"{plan.attacker} moved this turn: no gunsmoke marker")
    return log, DressOutcome(hits=hits, unsaved_hits=unsaved, stands_lost=lost, suppression=suppression,
                             disorder=disorder, target_stands=left, micro_hits=marker, destroyed=left == 0)
