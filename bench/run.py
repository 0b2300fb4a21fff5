"""rangefire benchmarks: each figure beside a reference doing the same work, measured in the same run.

Run with ``make bench`` (or ``python bench/run.py``). Machines are noisy, so every figure is printed as a
ratio against its reference from this very run; the budgets of the design are printed beside them.
"""

from __future__ import annotations

import gc
import random
import sys
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the test oracles serve as references

from rangefire.analysis.montecarlo import sample_volleys
from rangefire.core import Attack
from rangefire.dice.lineup import Pool, lineup_scores, reroll_weights
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.rulesets.arcane_legions import table
from rangefire.rulesets.dress_on_the_colors import volley
from rangefire.rulesets.dress_on_the_colors.volley import VolleyPlan, casualties, volley_distribution
from tests.battles import arcane_lines
from tests.oracles import icepool_bushido_test, icepool_lineup


def best_of(fn: Callable[[], Any], repeat: int = 5) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by the rest of the machine), with the
    garbage collector paused as ``timeit`` does."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def filters_compared(work: Callable[[], Any], verdicts: Callable[[], Any],
                     repeat: int = 3) -> tuple[float, float, bool]:
    """The time of ``work`` with the float filters on and with exact tests only, and whether ``verdicts`` come out
    identical both ways."""
    from rangefire.geometry import exact

    fast = best_of(work, repeat)
    exact.FAST_FILTERS = False
    try:
        slow = best_of(work, 1)
        plain = verdicts()
    finally:
        exact.FAST_FILTERS = True
    return fast, slow, plain == verdicts()


def enfilading_volley() -> tuple[Any, VolleyPlan]:
    """12 stands enfilading a regiment in light woods: 18 dice, saves on 6+, a micro-hit, every stage."""
    data = {"ruleset": "dress-on-the-colors",
            "terrain": [{"id": "woods", "kind": "light", "polygon": [[-8, -3], [8, -3], [8, 1], [-8, 1]]}],
            "units": [
                {"id": "F", "side": "blue", "stands": 12, "weapon": "rifled-musket", "formation": "line",
                 "position": [-14, -12], "facing": 90},
                {"id": "T", "side": "grey", "stands": 8, "weapon": "rifled-musket", "formation": "line",
                 "position": [0, 0], "facing": 0, "micro_hits": 1}]}
    ruleset, battle = battle_from_mapping(data)
    plan = ruleset.plan(battle, Attack("F", "T"))
    assert plan.enfilade and plan.dice == 18
    return ruleset, plan


def forty_unit_battle() -> Any:
    """40 units in two lines across a field strewn with 30 pieces of hindering and blocking terrain."""
    return arcane_lines(2, 40, 30, spacing=3.1, rows=((0, 6), (9, 15)), field=(0, 60, 6, 9), piece=(1, 0.6))


def reference_exact(plan: VolleyPlan) -> dict[tuple[int, int, int, bool, bool], Fraction]:
    """The same joint distribution, computed plainly: die by die, with Fractions, no counting tricks."""
    states: dict[tuple[int, bool], Fraction] = {(0, False): Fraction(1)}
    for _ in range(plan.dice):
        nxt: dict[tuple[int, bool], Fraction] = defaultdict(Fraction)
        for (hits, six), p in states.items():
            for face in range(1, 7):
                nxt[(hits + (face >= plan.need), six or face == 6)] += p / 6
        states = nxt
    rolls: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(plan.discipline_dice):
        nxt_r: dict[int, Fraction] = defaultdict(Fraction)
        for s, p in rolls.items():
            for face in range(1, 7):
                nxt_r[s + face] += p / 6
        rolls = nxt_r
    fails = sum((p for s, p in rolls.items() if s + plan.discipline_modifier < plan.discipline_pass), Fraction(0))
    out: dict[tuple[int, int, int, bool, bool], Fraction] = defaultdict(Fraction)
    for (hits, six), p in states.items():
        unsaved: dict[int, Fraction] = {0: Fraction(1)}
        for _ in range(hits):
            nxt_u: dict[int, Fraction] = defaultdict(Fraction)
            for u, q in unsaved.items():
                for face in range(1, 7):
                    nxt_u[u + (plan.save is None or face < plan.save)] += q / 6
            unsaved = nxt_u
        for u, q in unsaved.items():
            lost, _ = casualties(plan.target_stands, plan.target_micro_hits, u)
            if six and lost < plan.target_stands:
                out[(hits, u, lost, six, True)] += p * q * fails
                out[(hits, u, lost, six, False)] += p * q * (1 - fails)
            else:
                out[(hits, u, lost, six, False)] += p * q
    return {k: v for k, v in out.items() if v}


def python_volleys(plan: VolleyPlan, n: int, seed: int) -> int:
    """The Monte Carlo work of ``sample_volleys``, one volley at a time in plain Python."""
    rng = random.Random(seed)
    disorders = 0
    for _ in range(n):
        roll = [rng.randint(1, 6) for _ in range(plan.dice)]
        hits = sum(1 for v in roll if v >= plan.need)
        unsaved = hits if plan.save is None else sum(1 for _ in range(hits) if rng.randint(1, 6) < plan.save)
        lost, _ = casualties(plan.target_stands, plan.target_micro_hits, unsaved)
        check = sum(rng.randint(1, 6) for _ in range(plan.discipline_dice)) + plan.discipline_modifier
        disorders += 6 in roll and lost < plan.target_stands and check < plan.discipline_pass
    return disorders


def main() -> int:
    ruleset, plan = enfilading_volley()
    print("rangefire benchmarks (best of several runs; ratios are measured in this run)\n")

    # 1. exact odds of a 12-stand enfilading volley
    def exact_cold() -> Any:
        volley.to_hit.cache_clear()
        volley.discipline_fails.cache_clear()
        return ruleset.odds(plan)

    ours = best_of(exact_cold)
    ref = best_of(lambda: reference_exact(plan), repeat=3)
    same = {(o.hits, o.unsaved_hits, o.stands_lost, o.suppression, o.disorder): p
            for o, p in volley_distribution(plan).probabilities().items()} == reference_exact(plan)
    print("exact odds, 12 stands enfilading (18 dice, 6+ saves, discipline), joint distribution:")
    print(f"  rangefire (face counts, integer weights)   {ours * 1e3:9.3f} ms   budget 10 ms: "
          f"{'met' if ours < 0.010 else 'MISSED'}; peak memory {peak_mib(exact_cold):.2f} MiB")
    print(f"  plain Python, die by die with Fractions    {ref * 1e3:9.3f} ms")
    print(f"  ratio: {ref / ours:8.1f}x faster; identical fractions: {same}\n")

    # 2. Monte Carlo volleys per second on one core
    n_np, n_py = 2_000_000, 50_000
    t_np = best_of(lambda: sample_volleys(plan, n_np, seed=1), repeat=3)
    t_py = best_of(lambda: python_volleys(plan, n_py, seed=1), repeat=3)
    rate_np, rate_py = n_np / t_np, n_py / t_py
    print("Monte Carlo, the same 18-dice volley (to hit, saves, casualties, discipline):")
    print(f"  numpy, vectorised     {rate_np:14,.0f} volleys/s   goal 1,000,000/s: "
          f"{'met' if rate_np >= 1_000_000 else 'MISSED'}; peak memory of {n_np:,} volleys "
          f"{peak_mib(lambda: sample_volleys(plan, n_np, seed=1)):.0f} MiB")
    print(f"  plain Python loop     {rate_py:14,.0f} volleys/s")
    print(f"  ratio: {rate_np / rate_py:8.1f}x faster\n")

    # 3. every enemy pair of a 40-unit, 30-terrain Arcane Legions battle: range, sides, line of sight
    b40 = forty_unit_battle()
    al = find_ruleset("arcane-legions")
    pairs = [Attack(a.id, d.id) for a in b40.units for d in b40.units if a.side != d.side]

    def check_all() -> list[Any]:
        table.clear_caches()  # measure the bases and neighbourhoods too, not only cache hits
        return [al.check(b40, p) for p in pairs]

    def verdicts() -> list[Any]:
        return [(c.is_legal, c.plan.to_dict() if c.plan else [str(r) for r in c.refusals]) for c in check_all()]

    fast, slow, same = filters_compared(check_all, verdicts)
    print(f"Arcane Legions, check all {len(pairs)} enemy pairs of a 40-unit, 30-terrain battle (exact verdicts):")
    print(f"  with fast paths       {fast * 1e3:9.1f} ms   budget 100 ms: {'met' if fast < 0.1 else 'MISSED'}; "
          f"peak memory {peak_mib(check_all):.2f} MiB")
    print(f"  exact tests only      {slow * 1e3:9.1f} ms")
    print(f"  ratio: {slow / fast:8.1f}x faster; identical plans and refusals, word for word: {same}\n")
    arcane_lineup()
    bushido()
    bushido_advise()
    swerve_best_play()
    from bench.sweep import run as sweep  # a million-point sweep: local processes, a dask LocalCluster, the plain loop

    sweep()
    from bench.duel import refusals
    from bench.duel import run as duel  # the duel's exact chain beside its Monte Carlo

    duel()
    refusals()  # duels too large, refused before any work, beside the chain run to its own limits
    from bench.startup import run as startup  # a check / odds process start to finish, beside python itself

    startup()
    from bench.server import run as server  # the HTTP API under load (RANGEFIRE_BENCH_SERVER_SECONDS shortens it)

    server()
    from bench.engine import run as engine  # the engine's time and slow clients (RANGEFIRE_BENCH_ENGINE_SECONDS)

    engine()
    return 0


def peak_mib(work: Callable[[], Any]) -> float:
    """The peak memory traced while ``work`` runs once, in MiB (numpy's arrays included)."""
    gc.collect()
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def arcane_lineup() -> None:
    """4. The Arcane Legions lineup, exact (criticals on), beside the previous algorithm (Python integers, one
    state at a time: tests/lineup_oracle.py) and, where it answers within seconds, icepool."""
    from rangefire.dice import lineup_steps, modular
    from tests.lineup_oracle import kronecker_lineup

    def cold() -> None:  # a first call: no matrices, prime sets or arrangements of states kept from before
        for cache in (lineup_steps._binomials, lineup_steps._lattice, modular.primes_for, modular._crt_basis):
            cache.cache_clear()

    print("Arcane Legions lineup, exact hits distribution, A attack against D defense dice (criticals on):")
    print("     A x D   first call      again   previous algorithm   ratio   identical   icepool (identical)")
    d6 = reroll_weights(0)
    budgets = {(20, 20): 0.003, (40, 40): 0.030}
    for a, d in ((4, 4), (10, 10), (20, 20), (30, 30), (40, 40), (10, 3), (3, 10)):
        pools = Pool(a, d6, 0, (1, 0)), Pool(d, d6)
        first = best_of(lambda pools=pools: (cold(), lineup_scores(*pools, crit="one")), 5)
        again = best_of(lambda pools=pools: lineup_scores(*pools, crit="one"), 7)
        before = best_of(lambda pools=pools: kronecker_lineup(*pools, crit="one"), 3 if a + d < 60 else 1)
        mine = lineup_scores(*pools, crit="one").probabilities()
        same = mine == kronecker_lineup(*pools, crit="one").probabilities()
        if a + d <= 20:
            start = time.perf_counter()
            ice_same = mine == icepool_lineup(a, d, crit=True)
            ice = f"{(time.perf_counter() - start) * 1e3:9.1f} ms ({ice_same})"
        else:
            ice = "        - (minutes)"
        budget = budgets.get((a, d))
        note = f"   budget {budget * 1e3:.0f} ms: {'met' if first < budget else 'MISSED'}" if budget else ""
        print(f"  {a:3d} x {d:<3d} {first * 1e3:8.2f} ms {again * 1e3:8.2f} ms {before * 1e3:14.2f} ms "
              f"{before / first:8.1f}x   {same!s:9} {ice}{note}")
    pools = Pool(40, d6, 0, (1, 0)), Pool(40, d6)
    print(f"  40 x 40, peak memory of a first call: {peak_mib(lambda: (cold(), lineup_scores(*pools, crit='one'))):.2f}"
          " MiB; ratio: the previous algorithm's time over the first call's\n")


def skirmish(models: int = 20, pieces: int = 12, seed: int = 5, first: int | None = None) -> Any:
    """Models on round bases in two lines (``first`` of them prefecture's, half by default), with solid and
    obscuring terrain strewn between them."""
    rng = random.Random(seed)
    half = models // 2 if first is None else first
    units = []
    for i in range(models):
        side = "prefecture" if i < half else "ito"
        y = rng.uniform(0, 4) if side == "prefecture" else rng.uniform(14, 18)
        units.append({"id": f"m{i}", "side": side, "base": rng.choice([30, 40, 50]), "rcp": 3,
                      "position": [round((i if i < half else i - half) * 3.1, 2), round(y, 2)],
                      "wounds": {"boxes": 4}, "weapon": {"short": 6, "medium": 12, "long": 24}})
    terrain = []
    for j in range(pieces):
        x, y = round(rng.uniform(0, 3.1 * max(half, models - half)), 2), round(rng.uniform(6, 12), 2)
        terrain.append({"id": f"t{j}", "kind": rng.choice(["solid", "obscuring"]),
                        "polygon": [[x, y], [x + 2, y], [x + 2.4, y + 1.6], [x, y + 1.2]]})
    return battle_from_mapping({"ruleset": "bushido", "units": units, "terrain": terrain})[1]


def bushido() -> None:
    """5. the Bushido opposed test with the wound chart, exact, against icepool and brute force; 6. checks."""
    from rangefire.rulesets.bushido.dice import attack_odds, contest, opposed_dist
    from tests.bushido.test_dice import brute_force

    print("\nBushido, exact odds of a ranged attack (opposed test, SL, wound chart), A attack against D defence dice:")
    print("     A x D      rangefire      reference     ratio   identical")
    for a, d in ((4, 4), (8, 8), (12, 12)):
        def first_call(a: int = a, d: int = d) -> Any:  # not the odds kept from an earlier call
            attack_odds.cache_clear()
            return attack_odds(a, d, 0)

        t_ours = best_of(first_call, 7)
        start = time.perf_counter()
        if (a, d) == (4, 4):
            ref_name, reference = "brute force", brute_force(a, d, 0, None)[2]
            same = attack_odds(a, d, 0)[2] == reference
        else:
            ref_name = "icepool"
            same = opposed_dist(a, d).probabilities() == icepool_bushido_test(a, d, None, contest)
        theirs = time.perf_counter() - start
        note = (f"  budget 10 ms: {'met' if t_ours < 0.010 else 'MISSED'}; peak memory "
                f"{peak_mib(first_call):.2f} MiB") if (a, d) == (12, 12) else ""
        print(f"  {a:3d} x {d:<3d} {t_ours * 1e3:10.3f} ms {theirs * 1e3:12.1f} ms {theirs / t_ours:8.0f}x   "
              f"{same} ({ref_name}){note}")

    from rangefire.geometry import exact
    from rangefire.geometry.discs import _rim_segments
    from rangefire.rulesets.bushido.table import band, bands, sight, sights

    b40 = skirmish(40, 30, seed=2)
    los_pairs = [(u, v) for u in b40.units for v in b40.units if u.side != v.side]

    def all_at_once(pairs: list[Any] = los_pairs) -> list[Any]:
        seen = sights(b40, pairs)
        ranges = bands([(u, v, u.weapon) for u, v in pairs])
        return [(s.to_dict(), r) for s, r in zip(seen, ranges, strict=True)]

    def pair_by_pair(pairs: list[Any] = los_pairs) -> list[Any]:
        _rim_segments.cache_clear()
        return [(sight(b40, u, v).to_dict(), band(u, v, u.weapon)) for u, v in pairs]

    fast = best_of(all_at_once, 9)  # the least disturbed of several: the machine is shared
    before = best_of(pair_by_pair, 1)
    same_before = all_at_once() == pair_by_pair()
    tracemalloc.start()
    all_at_once()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    some = los_pairs[::20]  # exact tests only take seconds a pair: timed on every 20th pair, compared pair by pair
    fast_some = best_of(lambda: all_at_once(some), 3)
    exact.FAST_FILTERS = False
    try:
        start = time.perf_counter()
        plain = pair_by_pair(some)
        slow_some = time.perf_counter() - start
    finally:
        exact.FAST_FILTERS = True
    same = plain == all_at_once(some)
    print(f"\nBushido, line of sight and range for all {len(los_pairs)} enemy pairs of a 40-model, 30-terrain table "
          f"(up to {1 + 13 * 13} segments a pair):")
    print(f"  all pairs in one float screen, exact near boundaries {fast * 1e3:9.1f} ms   budget 200 ms: "
          f"{'met' if fast < 0.2 else 'MISSED'}; peak memory {peak / 2**20:.1f} MiB")
    print(f"  pair by pair, float filters per pair                 {before * 1e3:9.1f} ms   "
          f"ratio {before / fast:.1f}x; identical verdicts: {same_before}")
    print(f"  every 20th pair ({len(some)}): one screen {fast_some * 1e3:.1f} ms, exact tests only "
          f"{slow_some * 1e3:.1f} ms")
    print(f"  ratio: {slow_some / fast_some:8.1f}x faster; identical verdicts: {same}")

    b20 = skirmish()
    bu = find_ruleset("bushido")
    pairs = [Attack(a.id, d.id) for a in b20.units for d in b20.units if a.side != d.side]

    def check_all() -> list[Any]:
        _rim_segments.cache_clear()
        return [bu.check(b20, p) for p in pairs]

    def verdicts() -> list[Any]:
        return [(c.is_legal, c.plan.to_dict() if c.plan else [r.clause for r in c.refusals]) for c in check_all()]

    fast, slow, same = filters_compared(check_all, verdicts)
    print(f"\nBushido, check all {len(pairs)} enemy pairs of a 20-model, 12-terrain skirmish (sight, zones, cover, "
          "nominations):")
    print(f"  float filters, exact near boundaries {fast * 1e3:9.1f} ms   ({fast / len(pairs) * 1e3:.1f} ms a check)")
    print(f"  exact tests only                     {slow * 1e3:9.1f} ms")
    print(f"  ratio: {slow / fast:8.1f}x faster; identical verdicts: {same}")


def bushido_advise() -> None:
    """7. Every legal attack of a side ranked, and its table of targets, on Bushido battles of 30 against 33 and 40
    against 40 models with 30 pieces of terrain: the game's checks of the battle's pairs together (``check_many``: one
    screen of every pair's sight, cover read off it, contact and zones once a shooter and enemy) beside the base
    class's default, each pair checked alone (the old way, pair by pair), with identical answers. The budget is
    judged on processor time, which on a quiet machine is the wall-clock time: on a shared one the wall clock
    measures the other work as well."""
    from rangefire.analysis.advise import advise
    from rangefire.analysis.targets import targets
    from rangefire.core import Ruleset
    from rangefire.geometry.discs import _rim_segments
    from rangefire.rulesets.bushido import Bushido
    from rangefire.rulesets.bushido.dice import attack_odds
    from rangefire.rulesets.bushido.scenario import base_disc

    together = find_ruleset("bushido")
    alone = type("PairByPair", (Bushido,), {"_check_many": Ruleset._check_many})()  # the default: one by one

    def cold() -> None:  # no family of segments, no disc, no odds kept from an earlier run
        _rim_segments.cache_clear()
        base_disc.cache_clear()
        attack_odds.cache_clear()

    def timed(work: Callable[[], Any], repeat: int) -> tuple[float, float]:
        """The least wall-clock time of ``repeat`` runs, and the least processor time (this process's alone: the
        figure a shared, busy machine disturbs least)."""
        runs = []
        for _ in range(repeat):
            cold()
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            work()
            runs.append((time.perf_counter() - wall, time.process_time() - cpu))
        return min(w for w, _ in runs), min(c for _, c in runs)

    for ours, theirs, budget in ((30, 33, None), (40, 40, 1.0)):
        battle = skirmish(ours + theirs, 30, seed=3, first=ours)

        def ranked(ruleset: Any, battle: Any = battle) -> dict[str, Any]:
            return advise(ruleset, battle, "prefecture").to_dict()

        def rows(ruleset: Any, battle: Any = battle) -> list[dict[str, Any]]:
            return [row.to_dict() for row in targets(ruleset, battle, side="prefecture")]

        first = ranked(together)
        print(f"\nBushido, a side's {first['pairs']} attacker and enemy pairs of a {ours} v {theirs}, 30-terrain "
              f"battle ({len(first['ranked'])} legal), each checked and its odds computed:")
        for name, work in (("advise (ranked)", ranked), ("targets (table)", rows)):
            fast, fast_cpu = timed(lambda work=work: work(together), 3)
            slow, slow_cpu = timed(lambda work=work: work(alone), 1)
            same = work(together) == work(alone)
            note = (f"   budget {budget:g} s of processor time: {'met' if fast_cpu < budget else 'MISSED'}"
                    if budget and name.startswith("advise") else "")
            print(f"  {name}: pairs together {fast * 1e3:8.1f} ms ({fast_cpu * 1e3:.1f} ms processor), pair by pair "
                  f"{slow * 1e3:8.1f} ms ({slow_cpu * 1e3:.1f} ms processor); ratio {slow_cpu / fast_cpu:5.1f}x; "
                  f"identical: {same}{note}")
        print(f"  peak memory of advise, pairs together: {peak_mib(lambda: (cold(), ranked(together))):.1f} MiB")


def swerve_best_play() -> None:
    """7. swerve odds under best play, 6 tactics a hand: the search beside the exhaustive reference."""

    from rangefire.rulesets.swerve import search
    from rangefire.rulesets.swerve.combat import Combat
    from tests.swerve.test_best_play import issue_case

    search.MAX_EXHAUSTIVE_WORK = 10**9  # the reference refuses 13 actions open; here it is timed anyway

    def long_line(tactics: int) -> dict[str, Any]:
        """The issue's case with damage cards for the attacker (each must be played, one a turn: the longest
        best line) and cards that count for nothing on the defender's side."""
        data = issue_case(tactics)
        for card in data["cards"]:
            if card["type"] == "tactic":
                card["effect"] = {"damage": 1} if card["owner"] == "jason" else {"accuracy": 1}
        return data

    def fresh(data: dict[str, Any]) -> tuple[Any, Any]:
        ruleset, battle = battle_from_mapping(data)
        return ruleset, ruleset.plan(battle, Attack("launcher", "rider"))

    def best_play(data: dict[str, Any], exhaustive: bool = False) -> tuple[Any, list[str]]:
        _, plan = fresh(data)
        combat = Combat(plan.combat.battle, plan.combat.launcher, plan.combat.target)  # nothing cached
        start = combat.start()
        score = combat.exhaustive_score(start) if exhaustive else combat.score(start)
        return score, [str(a) for a in combat.best_line(start, exhaustive=exhaustive)]

    print("\nswerve, odds under best play (value and best line), 13 actions open (6 tactics a hand and the "
          "target's swerve):")
    print("  case                              search   exhaustive reference     ratio   identical   peak MiB "
          "(search / reference)")
    cases = (("the issue's case (8/11)", issue_case(6)), ("6 damage cards v 6 idle", long_line(6)))
    for i, (name, data) in enumerate(cases):
        ours = best_of(lambda data=data: best_play(data), 5)
        start = time.perf_counter()
        reference = best_play(data, exhaustive=True)
        theirs = time.perf_counter() - start
        same = best_play(data) == reference
        mine = peak_mib(lambda data=data: best_play(data))
        # the reference's peak memory on the first case only: it runs for seconds, slower still when traced
        theirs_mem = f"{peak_mib(lambda data=data: best_play(data, exhaustive=True)):.2f}" if i == 0 else "-"
        note = "  budget 50 ms: " + ("met" if ours < 0.050 else "MISSED")
        print(f"  {name:30s} {ours * 1e3:8.2f} ms {theirs * 1e3:14.0f} ms {theirs / ours:12.0f}x   {same}"
              f"   {mine:6.2f} / {theirs_mem}{note}")
    for tactics in (30,):
        for name, data in (("the issue's case", issue_case(tactics)), ("damage cards", long_line(tactics))):
            t = best_of(lambda data=data: best_play(data), 3)
            print(f"  {name}, {tactics} tactics a hand ({2 * tactics + 1} actions, no reference can answer): "
                  f"{t * 1e3:.1f} ms, peak {peak_mib(lambda data=data: best_play(data)):.2f} MiB")
    whole_odds_call(fresh(issue_case(6))[0], lambda: fresh(issue_case(6))[1])


def whole_odds_call(ruleset: Any, plan: Callable[[], Any]) -> None:
    """The whole odds call of the issue's case (the search, then the 2000 lines of play listed, 55 distinct ends)
    beside the search alone and beside the lines worked out one by one as before: a state, a probability and a
    mapped distribution for each line."""
    from rangefire.core import LineOfPlay
    from rangefire.rulesets.swerve.combat import MAX_LINES

    def line_by_line(plan: Any) -> list[Any]:
        combat = plan.combat
        state = combat.start()
        combat.best_line(state)
        combat.value(state)
        listed = []
        for line, end in combat.lines(state)[0]:
            outcome = combat.outcome(end)
            listed.append(LineOfPlay(tuple(str(a) for a in line), outcome.p(lambda o: o[0]),
                                     outcome.map(lambda o: o[1])))
        return listed

    def search(plan: Any) -> Any:
        combat = plan.combat
        return combat.score(combat.start()), combat.best_line(combat.start())

    plans = [plan() for _ in range(21)]  # each timed once: nothing cached from an earlier call
    whole = best_of(lambda: ruleset.odds(plans.pop()), 7)
    before = best_of(lambda: line_by_line(plans.pop()), 7)
    alone = best_of(lambda: search(plans.pop()), 7)
    same = [x.to_dict() for x in ruleset.odds(plan()).lines.lines] == [x.to_dict() for x in line_by_line(plan())]
    note = "budget 50 ms: " + ("met" if whole < 0.050 else "MISSED")
    print(f"  the whole odds call of the issue's case ({MAX_LINES} lines of play listed, each end's odds worked out "
          f"once, plans made beforehand):\n    {whole * 1e3:.1f} ms; the search alone {alone * 1e3:.1f} ms; the lines "
          f"worked out one by one (as before) {before * 1e3:.1f} ms, {before / whole:.1f}x; identical lines: {same}; "
          f"{note}")


if __name__ == "__main__":
    sys.exit(main())
