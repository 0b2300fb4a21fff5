"""Sight and reach between many pairs of round bases at once: one float screen of every pair's family of
segments (:func:`rangefire.geometry.screen.screen_families`), exact tests for what it leaves undecided.

The answers are those of :func:`rangefire.geometry.discs.first_clear` pair by pair, and so of judging every
segment exactly in turn: floats decide a segment only where their error bound proves the verdict (see
:func:`~rangefire.geometry.screen.screen_families`); a segment within that bound of a boundary of a verdict (a
touched corner, an end on an edge, 3 in of obscuring terrain give or take the bound) is judged exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from rangefire.geometry import exact as _exact
from rangefire.geometry.discs import _HALF_TAN_SCALE, RIM_STEPS, Disc, Line, Piece, Seen, first_clear, judge
from rangefire.geometry.exact import Segment
from rangefire.geometry.screen import EPS, FamilyScreen, input_error, screen_families

#: Segments times vertices screened at once, at most: bounds the screen's memory (some 40 bytes each).
_CHUNK = 400_000

Param = tuple[int, int] | None


Floats = dict[int, tuple[float, float, float]]


def _floats_of(disc: Disc, cache: Floats) -> tuple[float, float, float]:
    """A disc's centre and radius in floats (correctly rounded), once per disc object."""
    got = cache.get(id(disc))
    if got is None:
        got = cache[id(disc)] = (float(disc.centre.x), float(disc.centre.y), float(disc.radius))
    return got


def within_all(pairs: Sequence[tuple[Disc, Disc]], reaches: Sequence[Fraction | int],
               cache: Floats | None = None) -> list[bool]:
    """``a.is_within(b, reach)`` for every pair: decided in floats where the gap to the boundary exceeds the
    rounding (a few units of roundoff of the magnitudes involved), exactly otherwise."""
    if not pairs:
        return []
    cache = {} if cache is None else cache
    ends = np.array([(*_floats_of(a, cache), *_floats_of(b, cache)) for a, b in pairs])
    reach = np.array([float(r) for r in reaches])
    total = ends[:, 2] + ends[:, 5] + reach
    gap = np.hypot(ends[:, 0] - ends[:, 3], ends[:, 1] - ends[:, 4])
    err = 8 * EPS * (np.abs(ends).sum(axis=1) + gap + np.abs(reach)) + 1e-300
    yes, no = gap < total - err, (gap > total + err) | (total < -err)
    return [bool(y) or (not n and a.is_within(b, r))
            for y, n, (a, b), r in zip(yes.tolist(), no.tolist(), pairs, reaches, strict=True)]


def _unit_floats(params: np.ndarray) -> np.ndarray:
    """The float unit vectors of rim parameters (quarter, k), as :func:`~rangefire.geometry.discs._unit_float`
    computes them (the same correctly rounded quotients of the same integers, exact in float64)."""
    n2 = float(_HALF_TAN_SCALE) ** 2
    k = params[..., 1].astype(float)
    c, s = (n2 - k * k) / (n2 + k * k), (2 * k * _HALF_TAN_SCALE) / (n2 + k * k)
    quarter = params[..., 0] % 4
    x = np.choose(quarter, [c, -s, -c, s])
    y = np.choose(quarter, [s, c, -s, -c])
    return np.stack([x, y], axis=-1)


class _Family:
    """One unordered pair of discs: ``first`` and ``second`` in the order :class:`RimFamily` uses, with their
    centres and radii in floats."""

    def __init__(self, first: Disc, second: Disc, terrain: Sequence[Piece],
                 floats: tuple[tuple[float, float, float], tuple[float, float, float]]) -> None:
        self.first, self.second = first, second
        self.floats = floats
        self.params: tuple[list[Param], list[Param]] = ([None], [None])
        self.near: list[int] = []
        self.terrain = terrain
        self.lines: dict[tuple[int, int] | None, Line] = {}  # judged exactly, first to second
        self.names: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        # where its centre line and its rim segments are in the screens: (screen, family number)
        self.centre: tuple[FamilyScreen, int] | None = None
        self.rim: tuple[FamilyScreen, int] | None = None
        self.jobs: list[tuple[int, bool]] = []  # the pairs it answers: their places, and whether first to second

    def segment(self, i: int, j: int, forward: bool) -> Segment:
        a = self.first.rim_point(self.params[0][i])
        b = self.second.rim_point(self.params[1][j])
        return Segment(a, b) if forward else Segment(b, a)

    def pieces(self) -> list[Piece]:
        return [self.terrain[k] for k in self.near]

    def judged(self, key: tuple[int, int] | None) -> Line:
        """The line exactly judged (first to second): the centre line for None."""
        if key not in self.lines:
            seg = (Segment(self.first.centre, self.second.centre) if key is None
                   else self.segment(key[0], key[1], True))
            self.lines[key] = judge(seg, self.pieces())
        return self.lines[key]


#: The rim points' order, middle first, as :meth:`Disc.rim_params` takes them.
_ORDER = np.array(sorted(range(-RIM_STEPS // 2, RIM_STEPS // 2 + 1), key=lambda k: (abs(k), k)), dtype=float)


def _rim_params(families: list[_Family]) -> np.ndarray:
    """Every family's rim parameters (U, 2, RIM_STEPS + 1, 2), each side facing the other's centre, exactly as
    :meth:`Disc.rim_params` gives them: the same float operations in the same order (numpy's divmod is
    CPython's), and a tangent from numpy taken only where it lies more than 10^-6 from the rounding boundary
    (its error is below 10^-8 there); the rest are taken from :func:`math.tan`, as there."""
    facing = np.empty((len(families), 2))
    for u, family in enumerate(families):
        d = family.second.centre - family.first.centre
        dy, dx = float(d.y), float(d.x)
        facing[u] = math.atan2(dy, dx), math.atan2(-dy, -dx)
    angle = facing[:, :, None] + math.pi * _ORDER / RIM_STEPS
    quarter, rest = np.divmod(angle, math.pi / 2)
    raw = np.tan(rest / 2) * _HALF_TAN_SCALE
    k = np.rint(raw)
    doubt = np.abs(raw - np.floor(raw) - 0.5) < 1e-6
    for at in zip(*np.nonzero(doubt), strict=True):
        k[at] = round(math.tan(float(rest[at]) / 2) * _HALF_TAN_SCALE)
    out: np.ndarray = np.stack([quarter.astype(np.int64) % 4, k.astype(np.int64)], axis=-1)
    return out


def _points(families: list[_Family], params: np.ndarray, side: int, size: int) -> np.ndarray:
    """The float rim points of one side of every family (U, size, 2), padded by repeating the last: the centre
    plus the float unit vector times the radius, as :class:`RimFamily` computes them."""
    disc = np.array([f.floats[side] for f in families])
    units = _unit_floats(params[:, side])
    units = np.concatenate([units, np.repeat(units[:, -1:], size - units.shape[1], axis=1)], axis=1)
    out: np.ndarray = disc[:, None, 0:2] + units * disc[:, None, 2:3]
    return out


def _corridors(families: list[_Family], rings: tuple[np.ndarray, np.ndarray, np.ndarray], delta: float,
               magnitude: float) -> np.ndarray:
    """Which pieces may meet some segment of each family (U, K): every such segment lies within the larger
    radius of the centre line (in the hull of the two discs). Kept unless certainly outside that band or
    outside the box around it (a float bound of the same kind as the screen's, applied generously)."""
    ring, ring_start, _ = rings
    a = np.array([f.floats[0][:2] for f in families])
    b = np.array([f.floats[1][:2] for f in families])
    reach = np.array([max(f.floats[0][2], f.floats[1][2]) for f in families])
    slack = 1e-9 + 256 * EPS * (magnitude + reach.max() + 1) + 8 * delta
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    err = 2 * (256 * EPS * (magnitude + 1) ** 2 + 64 * delta * (magnitude + 1)) / length + slack
    band = (reach + err)[:, None]
    lo = np.minimum.reduceat(ring, ring_start, axis=0)
    hi = np.maximum.reduceat(ring, ring_start, axis=0)
    grow = (reach + slack)[:, None]
    box_lo, box_hi = np.minimum(a, b) - grow, np.maximum(a, b) + grow
    keep: np.ndarray = ~((lo[None, :, 0] > box_hi[:, None, 0]) | (hi[None, :, 0] < box_lo[:, None, 0])
                         | (lo[None, :, 1] > box_hi[:, None, 1]) | (hi[None, :, 1] < box_lo[:, None, 1]))
    step = max(1, _CHUNK // len(ring))  # families a block: every vertex against each family's line
    for start in range(0, len(families), step):
        at = slice(start, start + step)
        w = ring[None, :, :] - a[at, None, :]
        side = (d[at, None, 0] * w[:, :, 1] - d[at, None, 1] * w[:, :, 0]) / length[at, None]
        keep[at] &= ~(np.logical_and.reduceat(side > band[at], ring_start, axis=1)
                      | np.logical_and.reduceat(side < -band[at], ring_start, axis=1))
    return keep


def _ordered(a: Disc, b: Disc, fa: tuple[float, float, float], fb: tuple[float, float, float]) -> bool:
    """Whether ``a`` comes first by (x, y, radius), as :class:`RimFamily` orders a pair: component by
    component, from the floats where they differ (rounding never reverses an order), exactly where they tie."""
    for x, y, p, q in zip(fa, fb, (a.centre.x, a.centre.y, a.radius), (b.centre.x, b.centre.y, b.radius),
                          strict=True):
        if x != y:
            return x < y
        if p != q:
            return p < q
    return True


def first_clear_all(pairs: Sequence[tuple[Disc, Disc]], pieces: Sequence[Piece], limit: Fraction) -> list[Seen]:
    """:func:`~rangefire.geometry.discs.first_clear` for every pair ``(a, b)``, the same answers, with one
    float screen of all the pairs' families of segments together."""
    terrain = [p for p in pieces if p.kind in ("solid", "obscuring")]
    if not _exact.FAST_FILTERS or not terrain or not pairs:
        return [first_clear(a, b, pieces, limit) for a, b in pairs]
    cache: Floats = {}
    touching = within_all(pairs, [0] * len(pairs), cache)
    out: list[Seen | None] = [first_clear(a, b, pieces, limit) if t else None
                              for (a, b), t in zip(pairs, touching, strict=True)]
    families: dict[tuple[int, int], _Family] = {}
    for n, ((a, b), t) in enumerate(zip(pairs, touching, strict=True)):
        if t:
            continue
        fa, fb = _floats_of(a, cache), _floats_of(b, cache)
        forward = _ordered(a, b, fa, fb)
        first, second = (a, b) if forward else (b, a)
        family = families.get((id(first), id(second)))
        if family is None:
            family = families[id(first), id(second)] = _Family(first, second, terrain,
                                                               (fa, fb) if forward else (fb, fa))
        family.jobs.append((n, forward))
    if families:
        _screen_all(list(families.values()), terrain, limit, out)
    return [s for s in out if s is not None]


def _settle(family: _Family, limit: Fraction, out: list[Seen | None]) -> None:
    """Answer a family's pairs, then let go of its screens (only one chunk's are kept at a time)."""
    for n, forward in family.jobs:
        out[n] = _resolve(family, forward, limit)
    family.centre = family.rim = None


def _rings(terrain: Sequence[Piece]) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray,
                                                                                                  np.ndarray]]:
    ring = np.array([(float(p.x), float(p.y)) for piece in terrain for p in piece.polygon.vertices])
    ring_len = np.array([len(piece.polygon.vertices) for piece in terrain], dtype=np.int64)
    ring_start = np.concatenate([[0], np.cumsum(ring_len)[:-1]]).astype(np.int64)
    solid = np.array([piece.kind == "solid" for piece in terrain])
    turn = np.array([1 if piece.polygon.area2() > 0 else -1 for piece in terrain], dtype=np.int64)
    return (ring, ring_start, ring_len), (solid, turn)


def _overlaps(keep: np.ndarray, rings: tuple[np.ndarray, np.ndarray, np.ndarray], solid: np.ndarray,
              delta: float) -> np.ndarray:
    """Which obscuring pieces of each family (U, K) may overlap another obscuring piece of it: their boxes are
    not certainly apart (by more than twice the input error, with slack)."""
    ring, ring_start, _ = rings
    lo = np.minimum.reduceat(ring, ring_start, axis=0) - 4 * delta
    hi = np.maximum.reduceat(ring, ring_start, axis=0) + 4 * delta
    meet = ((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :])).all(axis=2)
    meet &= ~solid[:, None] & ~solid[None, :]
    np.fill_diagonal(meet, False)
    out: np.ndarray = (keep.astype(np.int32) @ meet.astype(np.int32) > 0) & keep
    return out


def _screen_all(families: list[_Family], terrain: Sequence[Piece], exact_limit: Fraction,
                out: list[Seen | None]) -> None:
    """Screen every family's centre line, then the rim segments of those it does not settle, a chunk at a time,
    answering each chunk's pairs in ``out`` before the next."""
    limit = float(exact_limit)
    rings, kinds = _rings(terrain)
    centres = np.array([(*f.floats[0][:2], *f.floats[1][:2]) for f in families])
    magnitude = max(float(np.abs(rings[0]).max()), float(np.abs(centres).max()))
    radius = max(max(f.floats[0][2], f.floats[1][2]) for f in families)
    delta = input_error(magnitude, radius)
    keep = _corridors(families, rings, delta, magnitude)
    inc_q, inc_k = np.nonzero(keep)
    centre = screen_families(centres[:, None, 0:2], centres[:, None, 2:4], inc_q, inc_k, rings, kinds, delta, limit)
    centre.summarise(np.ones(len(families), np.int64), np.ones(len(families), np.int64))
    for u, family in enumerate(families):
        family.near = np.flatnonzero(keep[u]).tolist()
        family.centre = (centre, u)
    # a clear centre line is the first clear line both ways: those families need no rim segments
    for u in np.flatnonzero(centre.clear[:, 0, 0]).tolist():
        _settle(families[u], exact_limit, out)
    rest = np.flatnonzero(~centre.clear[:, 0, 0])
    families = [families[u] for u in rest]
    if not families:
        return
    keep = keep[rest]
    overlaps = _overlaps(keep, rings, kinds[0], delta)
    params = _rim_params(families)
    for u, family in enumerate(families):
        sides = params[u].tolist()
        family.params = ([None] if family.first.radius == 0 else [tuple(p) for p in sides[0]],
                         [None] if family.second.radius == 0 else [tuple(p) for p in sides[1]])
    nf = params.shape[2]
    ns = -(-nf // 8) * 8  # whole 64-bit words of segments for the screen's reductions
    weight = keep @ rings[2] * nf * ns
    start = 0
    while start < len(families):
        stop = start + 1
        total = int(weight[start])
        while stop < len(families) and total + int(weight[stop]) <= _CHUNK:
            total += int(weight[stop])
            stop += 1
        chunk = families[start:stop]
        first = _points(chunk, params[start:stop], 0, nf)
        second = _points(chunk, params[start:stop], 1, ns)
        q, k = np.nonzero(keep[start:stop])
        screen = screen_families(first, second, q, k, rings, kinds, delta, limit, overlaps[start:stop])
        screen.summarise(np.array([len(f.params[0]) for f in chunk]), np.array([len(f.params[1]) for f in chunk]))
        for n, family in enumerate(chunk):
            family.rim = (screen, n)
            _settle(family, exact_limit, out)
        start = stop


def _resolve(family: _Family, forward: bool, limit: Fraction) -> Seen:
    """The first clear line of one pair, in its own order (``forward``: from ``family.first``), or what blocks
    every line: the screen's verdicts where it has them, exact judgement where not."""
    assert family.centre is not None
    screen, u = family.centre
    if screen.clear[u, 0, 0]:
        return Seen(_line(family, screen, u, None, forward), 1)
    if not screen.blocked[u, 0, 0]:
        line = _exact_line(family, None, forward, limit)
        if line is not None:
            return Seen(line, 1)
    assert family.rim is not None
    screen, q = family.rim
    nf, ns = len(family.params[0]), len(family.params[1])
    clear, blocked = screen.clear[q, :nf, :ns], screen.blocked[q, :nf, :ns]
    if not forward:
        clear, blocked = clear.T, blocked.T
    across = blocked.shape[1]
    for n in np.flatnonzero(~blocked.ravel()).tolist():
        row, col = divmod(n, across)
        i, j = (row, col) if forward else (col, row)
        found = (_line(family, screen, q, (i, j), forward) if clear[row, col]
                 else _exact_line(family, (i, j), forward, limit))
        if found is not None:
            return Seen(found, n + 2)
    solid, deep = _names(family)
    return Seen(None, 1 + nf * ns, solid, deep)


def _exact_line(family: _Family, key: tuple[int, int] | None, forward: bool, limit: Fraction) -> Line | None:
    """The line judged exactly, in the pair's own direction, when it is clear; None when not."""
    line = family.judged(key)
    if not line.is_clear(limit):
        return None
    if forward:
        return line
    seg = Segment(line.segment.b, line.segment.a)
    return judge(seg, family.pieces())


def _line(family: _Family, screen: FamilyScreen, q: int, key: tuple[int, int] | None, forward: bool) -> Line:
    """A line the screen found clear, from its floats: no solid piece, the obscuring pieces it crosses (in the
    pieces' order) and its stretches inside them, merged where they meet."""
    i, j = key if key is not None else (0, 0)
    runs = screen.stretches(q, i, j)
    if not forward:
        runs = [(1 - t1, 1 - t0) for t0, t1 in reversed(runs)]
    lo, hi = np.searchsorted(screen.inc_q, [q, q + 1]).tolist()
    crossed = [family.terrain[k] for m, k in zip(range(lo, hi), screen.inc_k[lo:hi].tolist(), strict=True)
               if screen.crossed[m, i, j] and family.terrain[k].kind == "obscuring"]
    if key is None:
        a, b = family.first.centre, family.second.centre
        segment = Segment(a, b) if forward else Segment(b, a)
    else:
        segment = family.segment(i, j, forward)
    return Line(segment, (), tuple(p.id for p in crossed), tuple(p.polygon for p in crossed), tuple(runs))


def _names(family: _Family) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """With no clear line: the solid pieces crossed on any line, and the obscuring pieces crossed on lines that
    cross no solid piece; from the screen where it is sure, judging exactly the lines where it is not."""
    if family.names is not None:
        return family.names
    assert family.centre is not None and family.rim is not None
    solid: set[str] = set()
    deep: set[str] = set()
    nf, ns = len(family.params[0]), len(family.params[1])
    for (screen, q), rim in ((family.centre, False), (family.rim, True)):
        assert screen.named is not None and screen.undecided is not None
        lo, hi = np.searchsorted(screen.inc_q, [q, q + 1]).tolist()
        for m in range(lo, hi):
            piece = family.terrain[int(screen.inc_k[m])]
            names = solid if piece.kind == "solid" else deep
            if piece.id in names or not (screen.named[m] or screen.undecided[m]):
                continue
            if screen.named[m]:
                names.add(piece.id)
                continue
            yes, no = screen.yes[m, :nf, :ns], screen.no[m, :nf, :ns]
            for i, j in np.argwhere(~yes & ~no).tolist():
                line = family.judged((i, j) if rim else None)
                if piece.id in line.solid if piece.kind == "solid" else (not line.solid and piece.id in
                                                                         line.obscuring):
                    names.add(piece.id)
                    break
    family.names = (tuple(sorted(solid)), tuple(sorted(deep)))
    return family.names
