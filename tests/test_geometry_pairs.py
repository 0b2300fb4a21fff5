"""Sight and reach for many pairs of round bases at once (rangefire.geometry.pairs, the family screen of
rangefire.geometry.screen): the same verdicts as exact tests alone, pair by pair, on random tables built to
put things exactly on the boundaries a float screen must hand over [BU-1.5, BU-2.1, BU-2.5, BU-2.6]."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rangefire.geometry import Point, Polygon, exact
from rangefire.geometry.discs import RIM_STEPS, Disc, Piece, RimFamily, Seen, first_clear
from rangefire.geometry.pairs import _Family, _points, _rim_params, first_clear_all, within_all
from rangefire.geometry.screen import input_error, screen_families

THREE = Fraction(3)
RADII = [Fraction(mm) / Fraction(254, 10) / 2 for mm in (30, 40, 50, 60)]  # 30 mm is 75/127 in [BU-1.5]


def exact_only(pairs: list[tuple[Disc, Disc]], pieces: list[Piece]) -> list[Seen]:
    """The reference: every pair on its own, every segment judged with exact tests only."""
    exact.FAST_FILTERS = False
    try:
        return [first_clear(a, b, pieces, THREE) for a, b in pairs]
    finally:
        exact.FAST_FILTERS = True


def verdict(seen: Seen) -> tuple[object, ...]:
    line = seen.line
    return (seen.tried, seen.solid, seen.deep, line is not None and line.is_clear(THREE),
            None if line is None else (line.segment, line.solid, line.obscuring, line.obscured2))


def same(fast: list[Seen], slow: list[Seen]) -> None:
    assert [verdict(s) for s in fast] == [verdict(s) for s in slow]
    for f, s in zip(fast, slow, strict=True):
        if f.line is not None and s.line is not None:  # the float stretches (for display) agree closely
            assert f.line.obscured == pytest.approx(s.line.obscured, abs=1e-9)


quarter = st.integers(-24, 24).map(lambda n: Fraction(n, 4))
radius = st.sampled_from(RADII)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[Disc], list[Piece]]:
    """Two to four bases and up to four pieces on a quarter-inch grid, with some placed exactly on boundaries:
    bases touching, a piece's edge through a base's nearest rim point (a tangent), a piece exactly 3 in across
    on the line between two bases, edges along the line between their centres, a base standing in a piece
    level with a vertex of it (where counting crossings of a ray needs care)."""
    first = Disc(Point(draw(quarter), draw(quarter)), draw(radius))
    discs = [first]
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["free", "free", "touching", "in line", "in column"]))
        r = draw(radius)
        anchor = draw(st.sampled_from(discs))
        if how == "touching":  # edge to edge exactly 0 along an axis
            sign = draw(st.sampled_from([1, -1]))
            centre = Point(anchor.centre.x + sign * (anchor.radius + r), anchor.centre.y)
        elif how == "in line":
            centre = Point(anchor.centre.x + draw(st.integers(3, 12)), anchor.centre.y)
        elif how == "in column":
            centre = Point(anchor.centre.x, anchor.centre.y + draw(st.integers(-12, -3)))
        else:
            centre = Point(draw(quarter), draw(quarter))
        discs.append(Disc(centre, r))
    pieces = []
    for n in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["solid", "obscuring", "obscuring"]))
        how = draw(st.sampled_from(["free", "free", "tangent", "three deep", "on the line", "around"]))
        disc = draw(st.sampled_from(discs))
        w, h = Fraction(draw(st.integers(1, 16)), 4), Fraction(draw(st.integers(1, 16)), 4)
        if how == "tangent":  # its left edge through the disc's rightmost point
            x0, y0 = disc.centre.x + disc.radius, disc.centre.y - h / 2
        elif how == "three deep":  # exactly 3 in across, on the disc's row
            x0, y0, w = disc.centre.x + disc.radius + 1, disc.centre.y - h / 2, THREE
        elif how == "on the line":  # its bottom edge on the disc's row
            x0, y0 = disc.centre.x + draw(st.integers(1, 6)), disc.centre.y
        elif how == "around":  # the base stands in it, level with its point (below)
            x0, y0 = disc.centre.x - Fraction(draw(st.integers(1, 8)), 4), disc.centre.y - h / 2
        else:
            x0, y0 = draw(quarter), draw(quarter)
        corners = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
        shape = draw(st.sampled_from(["box", "slanted", "pointed"]))
        if shape == "slanted":  # edges that are not axis-aligned
            corners[2] = (corners[2][0] + Fraction(1, 4), corners[2][1] + Fraction(1, 2))
        elif shape == "pointed":  # a point to the right, halfway up: a ray along +x from that height meets it
            corners.insert(2, (x0 + w + Fraction(1, 2), y0 + h / 2))
        if draw(st.booleans()):
            corners.reverse()  # clockwise too
        pieces.append(Piece(f"p{n}", kind, Polygon.of(corners)))
    return discs, pieces


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_one_screen_of_every_pair_gives_the_exact_verdicts_bu_2_1(table):
    """Property: first_clear_all over every ordered pair of a random table finds, pair by pair, the same first
    clear line (after as many lines), and names the same blockers, as exact tests alone."""
    discs, pieces = table
    pairs = [(a, b) for a in discs for b in discs if a is not b]
    same(first_clear_all(pairs, pieces, THREE), exact_only(pairs, pieces))


def test_a_hand_made_table_of_boundaries_bu_2_1_bu_2_5_bu_2_6():
    """Touching bases, a wall whose edge is tangent to a base, mist exactly 3 in deep on the centre line, two
    abutting walls with a seam on the centre line, a point (a base of no size), two bases whose x differ by a
    hair (equal in floats): the screen hands each to the exact tests."""
    a, b = Disc(Point.of(0, 0), RADII[0]), Disc(Point.of(10, 0), RADII[1])
    touching = Disc(Point(-RADII[0] - RADII[2], Fraction(0)), RADII[2])
    far = Disc(Point.of(0, 12), RADII[3])
    pieces = [Piece("mist", "obscuring", Polygon.of([(3, -5), (6, -5), (6, 5), (3, 5)])),
              Piece("tangent", "solid", Polygon.of([(10 + RADII[1], -1), (12, -1), (12, 1), (10 + RADII[1], 1)])),
              Piece("left", "solid", Polygon.of([(-1, 5), (0, 5), (0, 6), (-1, 6)])),
              Piece("right", "solid", Polygon.of([(0, 5), (1, 5), (1, 6), (0, 6)]))]
    point = Disc(Point.of(8, 0), Fraction(0))  # a point of the table, as a zone of control is judged
    level = Disc(Point(Fraction(1, 2), Fraction(7)), RADII[0])
    close = Disc(Point(Fraction(1, 2) + Fraction(1, 10**20), Fraction(-7)), RADII[0])  # the same x in floats
    bases = (a, b, touching, far, point, level, close)
    pairs = [(x, y) for x in bases for y in bases if x is not y]
    fast = first_clear_all(pairs, pieces, THREE)
    same(fast, exact_only(pairs, pieces))
    assert fast[0].line is not None and fast[0].line.obscured2 == 9  # a to b: through exactly 3 in of mist
    # the centre line runs along the seam of the two walls, blocked by both [BU-2.5]; so is every other line
    assert fast[pairs.index((far, a))] == Seen(None, 1 + (RIM_STEPS + 1) ** 2, ("left", "right"), ())
    assert fast[pairs.index((b, touching))].line is not None  # the tangent wall is only touched
    assert fast[pairs.index((level, close))].tried > 1  # the wall blocks the centre line: the rim's order counts


@settings(max_examples=200, deadline=None)
@given(ax=quarter, ay=quarter, ra=radius, rb=radius, k=st.integers(1, 4),
       way=st.sampled_from([(1, 0, 1), (0, -1, 1), (3, 4, 5), (-4, 3, 5), (5, 12, 13)]),
       hair=st.sampled_from([Fraction(0), Fraction(1, 10**12), Fraction(-1, 10**12), Fraction(1, 4)]))
def test_reach_at_exact_distances_is_decided_as_exactly_bu_1_5(ax, ay, ra, rb, k, way, hair):
    """Property: within_all agrees with the exact test, bases placed so that the edge-to-edge distance is
    exactly the reach (axis lines and Pythagorean triples give rational distances), or a hair either side;
    touching bases (reach 0) and overlapping ones included."""
    dx, dy, length = way
    a, b = Disc(Point(ax, ay), ra), Disc(Point(ax + k * dx, ay + k * dy), rb)
    gap = k * length - ra - rb
    reaches = [gap + hair, gap, Fraction(0), hair, -ra - rb + hair]
    touching = Disc(Point(ax + (ra + rb) * dx / length, ay + (ra + rb) * dy / length), rb)
    pairs = [(a, b)] * len(reaches) + [(a, touching), (touching, a)]
    reaches += [Fraction(0), hair]
    assert within_all(pairs, reaches) == [p.is_within(q, r) for (p, q), r in zip(pairs, reaches, strict=True)]


def test_bases_standing_in_a_wood_see_each_other_through_it_bu_2_1():
    """Both bases stand in one wood, 2 in apart: the centre line starts inside the wood and never crosses its
    edge, yet runs 2 in through it. The screen's clear verdict names the wood and its depth, as the exact tests
    do (a line counted as crossing a piece only where it crosses the piece's edge would name nothing)."""
    a, b = Disc(Point.of(2, 5), RADII[0]), Disc(Point.of(4, 5), RADII[1])
    outside = Disc(Point.of(20, 5), RADII[0])
    pieces = [Piece("wood", "obscuring", Polygon.of([(0, 0), (10, 0), (10, 10), (0, 10)]))]
    pairs = [(a, b), (b, a), (a, outside)]
    fast = first_clear_all(pairs, pieces, THREE)
    same(fast, exact_only(pairs, pieces))
    for seen in fast[:2]:
        assert seen.tried == 1 and seen.line is not None
        assert seen.line.obscuring == ("wood",) and seen.line.obscured2 == 4
        assert seen.line.obscured == pytest.approx(2)


def test_overlapping_mist_counts_once_when_the_sum_would_block_bu_2_6():
    """Two banks of mist 2 in deep overlap by 1.5 in on the centre line: 2.5 in of mist, though the two pieces'
    depths sum to 4 in. Only the union may say a line is too deep; the centre line is clear."""
    a, b = Disc(Point.of(0, 0), RADII[0]), Disc(Point.of(10, 0), RADII[1])
    pieces = [Piece("mist", "obscuring", Polygon.of([(4, -5), (6, -5), (6, 5), (4, 5)])),
              Piece("fog", "obscuring", Polygon.of([(Fraction(9, 2), -5), (Fraction(13, 2), -5),
                                                     (Fraction(13, 2), 5), (Fraction(9, 2), 5)]))]
    pairs = [(a, b), (b, a)]
    fast = first_clear_all(pairs, pieces, THREE)
    same(fast, exact_only(pairs, pieces))
    for seen in fast:
        assert seen.tried == 1 and seen.line is not None and seen.line.obscured2 == Fraction(25, 4)
        assert sorted(seen.line.obscuring) == ["fog", "mist"]


def test_reach_a_rounding_away_from_its_boundary_is_decided_exactly_bu_1_5():
    """Bases exactly at the reach, or 10^-18 in short of or beyond it: the floats of the centres, radii and reach
    round, so the float distance may land on either side of the float reach (a 50 mm and a 60 mm base 3 in apart
    are exactly 106/127 in from edge to edge, yet in floats a hair further apart). Within the rounding margin the
    answer is the exact one, over every pair of base sizes and a few distances and places, and where the sum
    of the radii and the reach is exactly 0."""
    pairs, reaches = [], []
    for ra in RADII:
        for rb in RADII:
            for dx, dy, length in ((1, 0, 1), (3, 4, 5), (5, 12, 13), (8, 15, 17)):
                for k in range(1, 6):
                    for x0 in (Fraction(0), Fraction(1, 3), Fraction(7, 10), Fraction(123, 7)):
                        a, b = Disc(Point(x0, x0), ra), Disc(Point(x0 + k * dx, x0 + k * dy), rb)
                        for hair in (Fraction(0), Fraction(1, 10**18), Fraction(-1, 10**18)):
                            pairs.append((a, b))
                            reaches.append(k * length - ra - rb + hair)
            for hair in (Fraction(0), Fraction(1, 10**18), Fraction(-1, 10**18)):
                # one centre, a reach of minus both radii: the sum is exactly 0 (within at 0 in), in floats a
                # hair below it for a 30 mm and a 50 mm base
                pairs.append((Disc(Point.of(1, 1), ra), Disc(Point.of(1, 1), rb)))
                reaches.append(-ra - rb + hair)
    expected = [p.is_within(q, r) for (p, q), r in zip(pairs, reaches, strict=True)]
    assert within_all(pairs, reaches) == expected
    fifty, sixty = Disc(Point.of(0, 0), RADII[2]), Disc(Point.of(3, 0), RADII[3])
    assert within_all([(fifty, sixty)], [Fraction(106, 127)]) == [True]  # the boundary is included
    assert within_all([(fifty, sixty)], [Fraction(106, 127) - Fraction(1, 10**18)]) == [False]


def test_rim_points_are_those_of_the_family_pair_by_pair():
    """The screen's rim parameters and float points are exactly those of RimFamily (and Disc.rim_params)."""
    rng = np.random.default_rng(3)
    families = []
    for _ in range(50):
        a = Disc(Point(Fraction(int(rng.integers(-4000, 4000)), 100), Fraction(int(rng.integers(-4000, 4000)), 100)),
                 RADII[int(rng.integers(0, 4))])
        b = Disc(Point(Fraction(int(rng.integers(-4000, 4000)), 100), Fraction(int(rng.integers(-4000, 4000)), 100)),
                 RADII[int(rng.integers(0, 4))])
        first, second = sorted((a, b), key=lambda d: (d.centre.x, d.centre.y, d.radius))
        floats = tuple((float(d.centre.x), float(d.centre.y), float(d.radius)) for d in (first, second))
        families.append(_Family(first, second, [], floats))  # type: ignore[arg-type]
    params = _rim_params(families)
    first_points, second_points = _points(families, params, 0, RIM_STEPS + 1), _points(families, params, 1, 16)
    for u, family in enumerate(families):
        assert [tuple(p) for p in params[u, 0].tolist()] == family.first.rim_params(family.second.centre)
        assert [tuple(p) for p in params[u, 1].tolist()] == family.second.rim_params(family.first.centre)
        rim = RimFamily(family.first, family.second)
        starts, stops = rim.arrays
        assert (first_points[u][:, None, :].repeat(RIM_STEPS + 1, axis=1).reshape(-1, 2) == starts).all()
        assert (second_points[u][None, :RIM_STEPS + 1, :].repeat(RIM_STEPS + 1, axis=0).reshape(-1, 2)
                == stops).all()


def test_the_family_screen_hands_over_what_touches_and_settles_what_is_clear():
    """Three segments against a unit square and a band of mist: through the square (blocked), through two of
    its corners (unsure: exact tests decide), clear of both (clear); 4 in inside the mist (blocked: too deep
    by far); exactly 3 in inside it (unsure)."""
    square = [(1, 1), (2, 1), (2, 2), (1, 2)]
    mist = [(-1, -1), (5, -1), (5, 0.75), (-1, 0.75)]
    ring = np.array(square + mist, dtype=float)
    rings = (ring, np.array([0, 4]), np.array([4, 4]))
    kinds = (np.array([True, False]), np.array([1, 1]))
    first = np.array([[[0.0, 1.5], [0.0, 3.0], [0.0, 5.5]], [[0, 0.5], [0, 0.5], [0, 0.5]],
                      [[-2, 0.5], [-2, 0.5], [-2, 0.5]]])
    second = np.array([[[3.0, 1.5], [3.0, 0.0], [3.0, 5.5]], [[4, 0.5], [4, 0.5], [4, 0.5]],
                       [[2, 0.5], [2, 0.5], [2, 0.5]]])
    inc_q, inc_k = np.array([0, 0, 1, 2]), np.array([0, 1, 1, 1])
    screen = screen_families(first, second, inc_q, inc_k, rings, kinds, input_error(10, 0), 3.0)
    diagonal = [screen.clear[0, i, i] for i in range(3)], [screen.blocked[0, i, i] for i in range(3)]
    assert diagonal == ([False, False, True], [True, False, False])  # (0, 3) to (3, 0): corners (1, 2), (2, 1)
    assert screen.blocked[1, 0, 0]  # 4 in of mist from (0, 0.5) to (4, 0.5): one piece, certainly too deep
    assert not screen.clear[2, 0, 0] and not screen.blocked[2, 0, 0]  # (-2, 0.5) to (2, 0.5): in at x = -1


def test_sights_and_bands_match_sight_and_band_pair_by_pair_bu_2_1_bu_5_1():
    """The table's many-pairs functions give what the one-pair functions give, on a skirmish table."""
    from rangefire.rulesets import battle_from_mapping
    from rangefire.rulesets.bushido.table import band, bands, sight, sights

    units = [{"id": f"m{i}", "side": "a" if i < 4 else "b", "base": (30, 40, 50, 60)[i % 4],
              "position": [i % 4 * 3, 0 if i < 4 else 10 + i % 3], "wounds": {"boxes": 2},
              "weapon": {"short": 6, "medium": 10 + Fraction(i, 4), "long": 13}} for i in range(8)]
    terrain = [{"id": "wall", "kind": "solid", "polygon": [[2, 4], [3, 4], [3, 5], [2, 5]]},
               {"id": "mist", "kind": "obscuring", "polygon": [[5, 3], [9, 3], [9, 7], [5, 7]]},
               {"id": "field", "kind": "clear", "polygon": [[-5, 3], [0, 3], [0, 7]]}]
    _, battle = battle_from_mapping({"ruleset": "bushido", "units": units, "terrain": terrain})
    pairs = [(u, v) for u in battle.units for v in battle.units if u.side != v.side]
    assert [s.to_dict() for s in sights(battle, pairs)] == [sight(battle, u, v).to_dict() for u, v in pairs]
    assert bands([(u, v, u.weapon) for u, v in pairs]) == [band(u, v, u.weapon) for u, v in pairs]
