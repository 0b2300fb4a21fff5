"""The duel: the chain over distinct states beside the duel's first algorithm (unrolled half-turn by half-turn over
whole battles, ``tests.duel_oracle.unrolled_duel``), the chain's first solution to the end (over the product of
every part's determinant, ``tests.duel_oracle.product_solve``) and the Monte Carlo, each measured in the same run.

Figures are CPU seconds of this process (``time.process_time``: the machine's other work does not count), each
run once and cold where it says so: the exact geometry a Dress on the Colors check works out is kept for the rest
of the run, so whatever runs later in a battle runs warm. A duel to its end steps its turns in a forked second
process while it solves its chain, and a Dress on the Colors duel that large has its checks worked out ahead in
another while the chain is built (on a machine of two cores or more): its budget is judged in wall seconds, to be
read on a machine with nothing else to do, with the CPU seconds of each process beside it, and the same duel
again warm, on two cores and in one process (``cores=1``), beside that. The budgets (design §6): the
Wheatfield's two regiments to the end under 1 s; any duel of two units of at most 20 stands (or the other games'
equivalents) to the end under 2 s; a duel beyond the exact bound refused by an estimate before the work in under
0.5 s, naming --samples.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the first algorithm is kept with the tests

from rangefire.analysis.duel import duel, model_of, sample_duel, setting
from rangefire.analysis.duel_chain import build
from rangefire.analysis.duel_sample import sample_work
from rangefire.analysis.duel_solve import solve
from rangefire.analysis.duel_work import DuelTooLarge
from rangefire.rulesets import battle_from_mapping, load_battle
from rangefire.scenario.paths import Setting
from tests.duel_oracle import product_solve, unrolled_duel

ROOT = Path(__file__).resolve().parent.parent
WHEATFIELD = ROOT / "examples" / "wheatfield.yaml"
SAMPLES = 10_000


def cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def clocked(fn: Callable[[], Any]) -> tuple[float, float, float, Any]:
    """Wall seconds of ``fn``, and the CPU seconds of this process and of the children it reaped meanwhile (a duel
    to its end steps its distribution in a forked child while it solves its chain)."""
    before, start = os.times(), time.perf_counter()
    out = fn()
    wall, after = time.perf_counter() - start, os.times()
    mine = after.user + after.system - before.user - before.system
    child = after.children_user + after.children_system - before.children_user - before.children_system
    return wall, mine, child, out


def to_the_end(took: tuple[float, float, float, Any], budget: float) -> str:
    """A duel to its end: the wall seconds judged, the CPU seconds of each process beside."""
    wall, mine, child, _ = took
    cores = (f"CPU {mine:.2f} s + {child:.2f} s in second processes: the checks as the chain is built, the stepping "
             "as it is solved" if child >= 0.005 else f"CPU {mine:.2f} s")
    return f"{wall:7.2f} s ({cores}); {met(wall, budget)}"


def met(took: float, budget: float) -> str:
    return f"budget {budget:g} s: {'met' if took < budget else 'MISSED'}"


def solutions(ruleset: Any, battle: Any, a: str, b: str) -> str:
    """The chain to its end solved both ways, on the same graph: CPU seconds of each, the bits of their common
    denominators, and whether every end's probability and E[turn; end] are the same fractions."""
    played = setting(ruleset, battle, a, b, "holds" if ruleset.chooses_target else None)
    graph = build(model_of(ruleset, played), a, b, "a")
    new_took, new = cpu(lambda: solve(graph))
    old_took, old = cpu(lambda: product_solve(graph))
    same = set(new.ends) == set(old.ends) and all(
        new.probability(new.ends[e]) == old.probability(v) for e, v in old.ends.items()) and all(
        Fraction(new.turn_sums[e], new.turn_denominator) == Fraction(v, old.denominator)
        for e, v in old.turn_sums.items())
    return (f"solved {new_took:.2f} s over {new.denominator.bit_length():,} bits; the first solution "
            f"{old_took:.2f} s over {old.denominator.bit_length():,} bits ({old_took / max(new_took, 1e-9):,.1f}x); "
            f"the same fractions: {same}")


def checks_of(fn: Callable[[], Any]) -> tuple[float, int, Any]:
    """CPU seconds of ``fn``, and how many of them and how many checks went into the game's ``check``."""
    from rangefire.rulesets.dress_on_the_colors import DressOnTheColors

    real = DressOnTheColors.check
    spent = [0.0, 0]

    def timed(self: Any, battle: Any, attack: Any) -> Any:
        start = time.process_time()
        try:
            return real(self, battle, attack)
        finally:
            spent[0] += time.process_time() - start
            spent[1] += 1

    DressOnTheColors.check = timed  # type: ignore[method-assign]
    try:
        took, out = cpu(fn)
    finally:
        DressOnTheColors.check = real  # type: ignore[method-assign]
    return took, int(spent[1]), (spent[0], out)


def wheatfield() -> None:
    ruleset, battle = load_battle(WHEATFIELD)
    a, b = "15th-alabama", "20th-maine"
    print("\nduel, the Wheatfield's 15th-alabama against 20th-maine (8 stands against 6 behind a stone wall):")
    took = clocked(lambda: checks_of(lambda: duel(ruleset, battle, a, b)))
    _, checks, (in_checks, ended) = took[3]
    print(f"  to the end, the chain (cold)        {to_the_end(took, 1)}; {in_checks:.2f} s in {checks} checks of a "
          f"volley's geometry and plan, {ended.states:,} states; P({a} wins) {float(ended.winner['a']):.4f}")
    warm, again = cpu(lambda: duel(ruleset, battle, a, b, cores=1))
    print(f"  to the end again, one process, warm {warm:7.2f} s CPU; the same answer: "
          f"{again.to_dict() == ended.to_dict()}")
    print(f"  the chain alone, warm: {solutions(ruleset, battle, a, b)}")
    mc_took, est = cpu(lambda: sample_duel(ruleset, battle, a, b, samples=SAMPLES, seed=1))
    print(f"  to the end, Monte Carlo             {mc_took:7.2f} s CPU, {SAMPLES:,} duels: P({a} wins) "
          f"{est.winner['a'] / SAMPLES:.4f} (95%: {est.interval(est.winner['a'])[0]:.4f}-"
          f"{est.interval(est.winner['a'])[1]:.4f})")
    print("  the first algorithm never reached the end (refused at turn 6 after 40 s); over five turns, warm:")
    new5, capped = cpu(lambda: duel(ruleset, battle, a, b, turns=5))
    old5, old = cpu(lambda: unrolled_duel(ruleset, battle, a, b, 5))
    same = all(capped.winner[k] == old["winner"][k] for k in ("a", "b", "neither"))
    print(f"    the chain {new5:.2f} s, the first algorithm {old5:.2f} s ({old['visited']:,} battles): ratio "
          f"{old5 / new5:,.1f}x, identical fractions: {same}")


def twenty_stands(distance: int, terrain: tuple[dict[str, Any], ...] = ()) -> tuple[Any, Any]:
    """Two lines of 20 stands with rifled muskets, F facing T ``distance`` in away (Dress on the Colors)."""
    return battle_from_mapping({"ruleset": "dress-on-the-colors", "terrain": list(terrain), "units": [
        {"id": "F", "side": "blue", "stands": 20, "weapon": "rifled-musket", "formation": "line",
         "position": [0, 0], "facing": 0},
        {"id": "T", "side": "grey", "stands": 20, "weapon": "rifled-musket", "formation": "line",
         "position": [0, distance], "facing": 180}]})


def twenty() -> None:
    """Two units of 20 stands in the open, 6 in apart: the largest the design's budget names."""
    ruleset, battle = twenty_stands(6)
    print("\nduel, 20 stands against 20 in the open, 6 in apart (Dress on the Colors):")
    took = clocked(lambda: checks_of(lambda: duel(ruleset, battle, "F", "T")))
    _, checks, (in_checks, ended) = took[3]
    print(f"  to the end, the chain (cold)        {to_the_end(took, 2)}; {in_checks:.2f} s in the {checks} checks "
          f"of this process, {ended.states:,} states, 90% of the ends by turn {ended.ends['any'].p90}")
    forked = clocked(lambda: duel(ruleset, battle, "F", "T"))
    alone = clocked(lambda: duel(ruleset, battle, "F", "T", cores=1))
    same = alone[3].to_dict() == ended.to_dict() == forked[3].to_dict()
    print(f"  to the end again, warm: two cores {forked[0]:.2f} s, one process {alone[0]:.2f} s wall "
          f"({alone[0] / forked[0]:.2f}x); the same answer: {same}")
    print(f"  the chain alone, warm: {solutions(ruleset, battle, 'F', 'T')}")
    mc_took, est = cpu(lambda: sample_duel(ruleset, battle, "F", "T", samples=SAMPLES, seed=1))
    gap = abs(est.winner["a"] / SAMPLES - float(ended.winner["a"]))
    print(f"  to the end, Monte Carlo             {mc_took:7.2f} s CPU, {SAMPLES:,} duels; |P(F wins) - exact| "
          f"{gap:.4f}")
    new1, capped = cpu(lambda: duel(ruleset, battle, "F", "T", turns=2))
    old1, old = cpu(lambda: unrolled_duel(ruleset, battle, "F", "T", 2))
    print(f"  over two turns, warm: the chain {new1:.2f} s, the first algorithm {old1:.2f} s; identical: "
          f"{all(capped.winner[k] == old['winner'][k] for k in ('a', 'b', 'neither'))}")


def twenty_elsewhere() -> None:
    """The same two units of 20 stands where their answer is longer: 12 in apart (the long band, more turns), the
    target in light woods (saves: every volley's weights longer), and firing first in turn (twice the states). The
    exact answer's denominator is itself that long (the answer reduced: some 176,000 bits in the woods, against
    22,700 in the open), so every edge of the solve works on numbers that long."""
    woods = ({"id": "wood", "kind": "light", "polygon": [[-40, 5.5], [40, 5.5], [40, 9], [-40, 9]]},)
    cases = [("12 in apart", twenty_stands(12), "a"), ("the target in light woods, 6 in", twenty_stands(6, woods), "a"),
             ("firing first in turn (--first alternate), 6 in", twenty_stands(6), "alternate")]
    print("\nduel, 20 stands against 20 elsewhere (Dress on the Colors), to the end:")
    for name, (ruleset, played), first in cases:
        took = clocked(lambda: duel(ruleset, played, "F", "T", first=first))  # noqa: B023  (called at once)
        ended = took[3]
        bits = max(p.denominator.bit_length() for p in ended.winner.values())
        print(f"  {name:48s} {to_the_end(took, 2)}; {ended.states:,} states, {ended.turns_stepped} turns "
              f"stepped, the answer over {bits:,} bits")


def other_games() -> None:
    """The other games' largest duels of the examples and their like, to the end."""
    bushido = battle_from_mapping({"ruleset": "bushido", "units": [
        {"id": "A", "side": "east", "position": [0, 0], "base": 40, "wounds": {"boxes": 6}, "rcp": 3,
         "weapon": {"name": "bow", "short": 6, "medium": 12, "long": 18, "ammo": 6}},
        {"id": "B", "side": "west", "position": [0, 8], "base": 40, "wounds": {"boxes": 6}, "rcp": 3,
         "weapon": {"name": "bow", "short": 6, "medium": 12, "long": 18}}]})
    temple = load_battle(ROOT / "examples" / "temple.yaml", [Setting("units.takeda.wounds.boxes", 20),
                                                             Setting("units.yoichi.weapon.ammo", 20)])
    cases = [("Bushido, 6 wound boxes each, 6 Ammo against unlimited", bushido, "A", "B"),
             ("Bushido, the temple's archer (20 Ammo) against a model of 20 wound boxes, through its terrain",
              temple, "yoichi", "takeda"),
             ("Arcane Legions, the ford's archers against the orc band", load_battle(ROOT / "examples" / "ford.yaml"),
              "archers", "orc-band")]
    print("\nduels of the other games, to the end:")
    for name, (ruleset, battle), a, b in cases:
        try:
            timing = clocked(lambda: duel(ruleset, battle, a, b))  # noqa: B023  (called at once)
            ended = timing[3]
        except Exception as exc:  # a bench reports what happened
            print(f"  {name}: {type(exc).__name__}: {exc}")
            continue
        mc, est = cpu(lambda: sample_duel(ruleset, battle, a, b, samples=SAMPLES, seed=1))  # noqa: B023
        old, _ = cpu(lambda: unrolled_duel(ruleset, battle, a, b, 5))  # noqa: B023
        print(f"  {name}: the chain {to_the_end(timing, 2).strip()} ({ended.states:,} states, P({a} wins) "
              f"{float(ended.winner['a']):.4f}); Monte Carlo {mc:.2f} s CPU ({est.winner['a'] / SAMPLES:.4f}); the "
              f"first algorithm over 5 turns {old:.2f} s CPU")
        print(f"    {solutions(ruleset, battle, a, b)}")


def refusals() -> None:
    """A duel beyond the exact bound: refused from the game's bounds before any volley."""
    sixty = load_battle(WHEATFIELD, [Setting("units.20th-maine.stands", 60),
                                     Setting("units.15th-alabama.stands", 60)])
    ruleset, battle = sixty
    print("\nduel beyond the exact bound, the Wheatfield's regiments at 60 stands a side:")
    start = time.process_time()
    try:
        duel(ruleset, battle, "20th-maine", "15th-alabama")
        said = "answered"
    except DuelTooLarge as exc:
        said = f"refused: {str(exc)[:90]}..."
    took = time.process_time() - start
    print(f"  the chain's estimate   {took * 1e3:7.2f} ms CPU, {said}; {met(took, 0.5)} (the command adds "
          "'--samples N for a Monte Carlo alone')")
    mc, _ = cpu(lambda: sample_duel(ruleset, battle, "20th-maine", "15th-alabama", turns=3, samples=1_000,
                                    seed=1))
    print(f"  its Monte Carlo over three turns, 1,000 duels: {mc:.2f} s CPU")
    for samples in (1_000, 100_000):  # weighed from its pilot duels before any of it is played
        weighed, work = cpu(lambda samples=samples: sample_work(ruleset, battle, "20th-maine", "15th-alabama", None,
                                                                samples))
        print(f"  its Monte Carlo to the end, {samples:>7,} duels: weighed in {weighed:.2f} s CPU, "
              f"{'played' if work.fits else 'refused'} (some {work.dice:,} dice, {work.draws:,} states drawn; "
              f"{work.fit:,} duels would be)")
    for name, data in BEYOND.items():
        took, said = cpu(lambda data=data: refused(*battle_from_mapping(data)))
        print(f"  {name:<50} {took * 1e3:7.2f} ms CPU, {said}; {met(took, 0.5)}")


def _unit(uid: str, side: str, y: int) -> dict[str, Any]:
    return {"id": uid, "side": side, "base": "formation", "position": [0, y], "facing": 180 * (y > 0),
            "sides": {"front": "blue", "right": "grey", "back": "grey", "left": "red"},
            "slots": [{"icons": ["blue"], "hp": 3}] * 12}


def _card(cid: str, owner: str) -> dict[str, Any]:
    return {"id": cid, "owner": owner, "type": "vehicle", "speed": 20, "toughness": 40, "mission": "canyon",
            "ranged": {"accuracy": 30, "damage": 1}}


_BOW = {"name": "bow", "short": 6, "medium": 12, "long": 18}
#: Duels of the other games beyond the exact bound (the A and B of each), refused from the games' bounds.
BEYOND = {
    "Bushido, two models of 60 boxes, 60 Ammo": {"ruleset": "bushido", "units": [
        {"id": "A", "side": "east", "position": [0, 0], "base": 40, "wounds": {"boxes": 60}, "rcp": 3,
         "weapon": {**_BOW, "ammo": 60}},
        {"id": "B", "side": "west", "position": [0, 8], "base": 40, "wounds": {"boxes": 60}, "rcp": 3,
         "weapon": _BOW}]},
    "Arcane Legions, 12 figures of 3 hit points a side": {
        "ruleset": "arcane-legions", "players": {"legion": {"order_points": 40}, "horde": {"order_points": 40}},
        "units": [_unit("A", "legion", 0), _unit("B", "horde", 4)]},
    "swerve, two vehicles of toughness 40": {"ruleset": "swerve", "players": {
        "jason": {"deck": list(range(0, 50, 5)), "deck_order": "unknown"},
        "tyler": {"deck": list(range(0, 50, 5)), "deck_order": "unknown"}},
        "cards": [_card("A", "jason"), _card("B", "tyler")]},
}


def refused(ruleset: Any, battle: Any) -> str:
    try:
        duel(ruleset, battle, "A", "B")
    except DuelTooLarge as exc:
        return f"refused at some {exc.work.nodes:,} states"
    return "answered"


def run() -> None:
    """Every duel of the bench that is answered (``bench/run.py`` calls it, then :func:`refusals`)."""
    wheatfield()
    twenty()
    twenty_elsewhere()
    other_games()


if __name__ == "__main__":
    run()
    refusals()
