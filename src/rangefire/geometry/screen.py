"""Many segments against one polygon at once, in floats (numpy): a screen before exact work.

For each segment the screen says one of three things:

- **apart**: the segment stays more than :data:`MARGIN` from the polygon, so it neither crosses nor touches it;
- **settled**: every crossing of the boundary is transversal, clear of vertices and of the segment's ends by
  more than the margin, so each one is real and their count is right; the stretches inside are given in floats;
- **unsure**: something comes that close (a corner touched, an edge run along, an end on the boundary), and
  only exact work can tell.

Floats only ever skip exact work: coordinates are at most 10^6 in magnitude, so rounding stays below 10^-9,
far inside the margin; whatever a verdict hinges on within the margin goes to the exact tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rangefire.geometry.exact import Polygon, Segment

MARGIN = 1e-6
APART, SETTLED, UNSURE = 0, 1, 2


def ends(segments: Sequence[Segment]) -> tuple[np.ndarray, np.ndarray]:
    """The segments' start and end points as float arrays of shape (S, 2)."""
    a = np.array([(float(s.a.x), float(s.a.y)) for s in segments], dtype=float).reshape(-1, 2)
    b = np.array([(float(s.b.x), float(s.b.y)) for s in segments], dtype=float).reshape(-1, 2)
    return a, b


def _point_gaps(p: np.ndarray, c: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Distances from points p (S, 2) to segments c-e (n, 2): shape (S, n)."""
    d = e - c
    n2 = np.maximum((d * d).sum(axis=1), 1e-300)
    w = p[:, None, :] - c[None, :, :]
    t = np.clip((w * d[None, :, :]).sum(axis=2) / n2[None, :], 0.0, 1.0)
    r = w - t[:, :, None] * d[None, :, :]
    gaps: np.ndarray = np.hypot(r[:, :, 0], r[:, :, 1])
    return gaps


class Screen:
    """The screen of segments ``a``-``b`` (arrays of shape (S, 2)) against several polygons at once: the edges
    of all of them are laid side by side, and each polygon's verdict is reduced from its own columns."""

    def __init__(self, a: np.ndarray, b: np.ndarray, polygons: Sequence[Polygon]) -> None:
        m = MARGIN
        rings = [np.array([(float(p.x), float(p.y)) for p in poly.vertices], dtype=float) for poly in polygons]
        self.offsets = np.cumsum([0] + [len(r) for r in rings])
        starts = self.offsets[:-1]
        c = np.concatenate(rings)
        e = np.concatenate([np.roll(r, -1, axis=0) for r in rings])
        d = b - a
        length = np.hypot(d[:, 0], d[:, 1])
        safe = np.maximum(length, 1e-300)
        lo_xy = np.array([r.min(axis=0) for r in rings])
        hi_xy = np.array([r.max(axis=0) for r in rings])
        seg_lo, seg_hi = np.minimum(a, b), np.maximum(a, b)
        apart = ((seg_lo[:, None, :] > hi_xy[None, :, :] + m)
                 | (seg_hi[:, None, :] < lo_xy[None, :, :] - m)).any(axis=2)
        # signed distances of the vertices (each edge's first) from each segment's line
        sc = (d[:, None, 0] * (c[None, :, 1] - a[:, None, 1]) - d[:, None, 1] * (c[None, :, 0] - a[:, None, 0])) \
            / safe[:, None]
        se = (d[:, None, 0] * (e[None, :, 1] - a[:, None, 1]) - d[:, None, 1] * (e[None, :, 0] - a[:, None, 0])) \
            / safe[:, None]
        apart |= (np.minimum.reduceat(sc, starts, axis=1) > m) | (np.maximum.reduceat(sc, starts, axis=1) < -m)
        ends_near = (_point_gaps(a, c, e) <= m) | (_point_gaps(b, c, e) <= m)
        near_vertex = (np.abs(sc) <= m) | (np.abs(se) <= m)
        box_lo, box_hi = np.minimum(c, e), np.maximum(c, e)
        boxes_meet = ((box_lo[None, :, :] <= seg_hi[:, None, :] + m)
                      & (box_hi[None, :, :] >= seg_lo[:, None, :] - m)).all(axis=2)
        straddle = ~near_vertex & ((sc > 0) != (se > 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(straddle, sc / (sc - se), 0.0)  # along each edge, where it meets the segment's line
            px = c[None, :, 0] + t * (e - c)[None, :, 0]
            py = c[None, :, 1] + t * (e - c)[None, :, 1]
            u = ((px - a[:, None, 0]) * d[:, None, 0] + (py - a[:, None, 1]) * d[:, None, 1]) / (safe * safe)[:, None]
        lo = (m / safe)[:, None]
        crossing = straddle & (u > lo) & (u < 1 - lo)
        by_an_end = straddle & ~crossing & (u >= -lo) & (u <= 1 + lo)
        unsure = np.logical_or.reduceat(ends_near | (near_vertex & boxes_meet) | by_an_end, starts, axis=1)
        unsure |= (length <= m)[:, None]
        # is each start inside? crossing number along +x, in floats (the start is clear of the boundary)
        with np.errstate(divide="ignore", invalid="ignore"):
            above_c, above_e = c[None, :, 1] > a[:, None, 1], e[None, :, 1] > a[:, None, 1]
            x_at = c[None, :, 0] + (a[:, None, 1] - c[None, :, 1]) * (e - c)[None, :, 0] / (e - c)[None, :, 1]
            toggles = (above_c != above_e) & (a[:, None, 0] < x_at)
        self.inside = (np.add.reduceat(toggles.astype(np.int64), starts, axis=1) % 2) == 1
        # a segment wholly apart is apart whatever else it comes near
        self.status = np.where(apart, APART, np.where(unsure, UNSURE, SETTLED)).astype(np.int8)
        self.ts = np.where(crossing, u, np.nan)

    def lengths(self) -> np.ndarray:
        """For every segment and polygon, the fraction of the segment inside (0 when apart), NaN where unsure."""
        out = np.zeros(self.status.shape)
        for k in range(self.status.shape[1]):
            cols = np.sort(np.nan_to_num(self.ts[:, self.offsets[k]:self.offsets[k + 1]], nan=1.0), axis=1)
            ends = np.concatenate([np.zeros((len(cols), 1)), cols, np.ones((len(cols), 1))], axis=1)
            steps = np.diff(ends, axis=1)
            # the stretch after the j-th crossing is inside when the start is, j even, or the start is not, j odd
            odd = (np.arange(steps.shape[1]) % 2 == 1)[None, :]
            out[:, k] = (steps * (self.inside[:, k][:, None] != odd)).sum(axis=1)
        out[self.status == APART] = 0.0
        out[self.status == UNSURE] = np.nan
        return out

    def stretches(self, i: int, k: int = 0) -> list[tuple[float, float]] | None:
        """Segment i's stretches inside polygon k in floats; None when only exact work can tell."""
        status = self.status[i, k]
        if status == APART:
            return []
        if status == UNSURE:
            return None
        row = self.ts[i, self.offsets[k]:self.offsets[k + 1]]
        out = []
        inside, start = bool(self.inside[i, k]), 0.0
        for t in sorted(row[~np.isnan(row)].tolist()):
            if inside:
                out.append((start, t))
            inside, start = not inside, t
        if inside:
            out.append((start, 1.0))
        return out


# -- families of segments, many at once, with proven error bounds ----------------------------------------------
#: The unit roundoff of float64: a correctly rounded operation is off by at most this, relatively.
EPS = 2.0**-53


def input_error(magnitude: float, radius: float) -> float:
    """A bound on how far a float point of the table lies from its exact point, per coordinate: coordinates
    (at most ``magnitude``) are correctly rounded (``EPS * |x|``), and a rim point ``cx + ux * r`` (ux a
    correctly rounded quotient, |ux| <= 1) is off by at most ``EPS (2 |cx| + 4 r)``; four times that, for
    slack."""
    return 16 * EPS * (magnitude + radius) + 1e-300


@dataclass
class FamilyScreen:
    """The verdicts of a float screen over Q families of segments, each from one of ``nf`` points of ``first``
    to one of ``ns`` points of ``second``: segment (q, i, j) runs from ``first[q, i]`` to ``second[q, j]``.

    Only what the floats prove is set: ``clear`` (no solid piece met, certainly less than the limit inside
    obscuring terrain) and ``blocked`` (a solid piece's interior certainly crossed, or certainly more than the
    limit inside obscuring terrain); a segment with neither is for the exact tests. Per incidence m (the piece
    ``inc_k[m]`` near family ``inc_q[m]``): ``crossed``, its interior certainly crossed; ``yes`` and ``no``,
    whether the piece is certainly named, or certainly not, among the blockers of the segment (a solid piece
    whose interior it crosses; an obscuring piece whose interior it crosses when it certainly crosses no solid
    piece). The rows of incidence m (one per edge) start at ``inc_start[m]``; per row, ``cross`` says which
    segments certainly cross the edge, at ``t = |s3| / (|s3| + |s4|)``; ``start_in`` (m, i) whether the start
    is inside."""

    clear: np.ndarray
    blocked: np.ndarray
    inc_q: np.ndarray
    inc_k: np.ndarray
    crossed: np.ndarray
    yes: np.ndarray
    no: np.ndarray
    inc_start: np.ndarray
    cross: np.ndarray
    s3: np.ndarray
    s4: np.ndarray
    start_in: np.ndarray
    #: per incidence, whether the piece is obscuring
    obscuring: np.ndarray
    #: per incidence, over the segments a family really has (see :meth:`summarise`): the piece certainly named
    #: on some segment, and some segment where that is unsure
    named: list[bool] | None = None
    undecided: list[bool] | None = None

    def summarise(self, nf: np.ndarray, ns: np.ndarray) -> None:
        """Fill :attr:`named` and :attr:`undecided`, each family q having ``nf[q]`` by ``ns[q]`` segments."""
        shape = self.yes.shape
        real = ((np.arange(shape[1])[None, :, None] < nf[self.inc_q][:, None, None])
                & (np.arange(shape[2])[None, None, :] < ns[self.inc_q][:, None, None]))
        self.named = (self.yes & real).any(axis=(1, 2)).tolist()
        self.undecided = (~self.yes & ~self.no & real).any(axis=(1, 2)).tolist()

    def stretches(self, q: int, i: int, j: int) -> list[tuple[float, float]]:
        """Segment (q, i, j)'s stretches inside the obscuring incidences it certainly crosses, in floats,
        merged; for a segment the screen found clear (every incidence settled)."""
        lo, hi = np.searchsorted(self.inc_q, [q, q + 1]).tolist()
        inside = (self.crossed[lo:hi, i, j] & self.obscuring[lo:hi]).tolist()
        if not any(inside):
            return []
        bounds = [*self.inc_start[lo:hi].tolist(), int(self.inc_start[hi]) if hi < len(self.inc_start)
                  else len(self.cross)]
        rows = slice(bounds[0], bounds[-1])  # a family's incidences, and so their rows, are consecutive
        hits = self.cross[rows, i, j].tolist()
        a3, a4 = np.abs(self.s3[rows, i]).tolist(), np.abs(self.s4[rows, j]).tolist()
        starts = self.start_in[lo:hi, i].tolist()
        events: list[tuple[float, int]] = []
        depth = 0
        for n, crossed in enumerate(inside):
            if not crossed:
                continue
            within = bool(starts[n])
            depth += within
            ts = sorted(a3[r] / (a3[r] + a4[r]) for r in range(bounds[n] - bounds[0], bounds[n + 1] - bounds[0])
                        if hits[r])
            for t in ts:
                events.append((t, -1 if within else 1))
                within = not within
        runs: list[tuple[float, float]] = []
        start = 0.0
        for t, step in sorted(events, key=lambda e: e[0]):
            if depth == 0:
                start = t
            depth += step
            if depth == 0:
                runs.append((start, t))
        if depth > 0:
            runs.append((start, 1.0))
        merged: list[tuple[float, float]] = []
        for t0, t1 in runs:
            if merged and t0 <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], t1))
            else:
                merged.append((t0, t1))
        return merged


def _cross(ux: np.ndarray, uy: np.ndarray, vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
    out: np.ndarray = ux * vy - uy * vx
    return out


def _any_over(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """OR over consecutive groups of rows (each starting at ``starts``): as 64-bit words where the rows allow,
    which numpy reduces many times faster than booleans."""
    if len(values) == 0:
        return np.zeros((len(starts), *values.shape[1:]), dtype=bool)
    flat = np.ascontiguousarray(values).reshape(len(values), -1)
    if flat.shape[1] % 8 == 0:
        words = np.bitwise_or.reduceat(flat.view(np.uint64), starts, axis=0)
        return words.view(bool).reshape((len(starts), *values.shape[1:]))
    out: np.ndarray = np.logical_or.reduceat(values, starts, axis=0)
    return out


def _by_family(values: np.ndarray, inc_q: np.ndarray, families: int, how: np.ufunc = np.logical_or,
               empty: float = 0) -> np.ndarray:
    """A reduction of per-incidence values over each family's incidences (incidences sorted by family)."""
    out = np.full((families, *values.shape[1:]), empty, dtype=values.dtype)
    if len(inc_q):
        present, starts = np.unique(inc_q, return_index=True)
        out[present] = _any_over(values, starts) if how is np.logical_or else how.reduceat(values, starts, axis=0)
    return out


def _union(segments: np.ndarray, sid: np.ndarray, t: np.ndarray, step: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """The measure (in t) covered by at least one piece, for each of ``segments``: ``depth`` pieces hold its
    start, and each crossing (``sid``, ``t``) enters (+1) or leaves (-1) one. A sweep: events sorted along
    each segment, the depth after each, the gaps to the next event where it is positive."""
    n = len(segments)
    ev_sid = np.concatenate([segments, sid, segments])
    ev_t = np.concatenate([np.zeros(n), t, np.ones(n)])
    total = np.zeros(n, dtype=np.int64)
    np.add.at(total, np.searchsorted(segments, sid), step)
    ev_step = np.concatenate([depth, step, -(depth + total)])  # back to 0 after each segment's last event
    order = np.lexsort((ev_t, ev_sid))
    ev_sid, ev_t, cover = ev_sid[order], ev_t[order], np.cumsum(ev_step[order])
    gaps = (ev_t[1:] - ev_t[:-1]) * (cover[:-1] > 0)
    out: np.ndarray = np.bincount(np.searchsorted(segments, ev_sid[:-1]), gaps, minlength=n)
    return out


def screen_families(first: np.ndarray, second: np.ndarray, inc_q: np.ndarray, inc_k: np.ndarray,
                    rings: tuple[np.ndarray, np.ndarray, np.ndarray], kinds: tuple[np.ndarray, np.ndarray],
                    delta: float, limit: float, overlaps: np.ndarray | None = None) -> FamilyScreen:
    """Screen Q families of segments (``first`` (Q, nf, 2), ``second`` (Q, ns, 2), floats) against the pieces
    near each (incidences ``inc_q``, ``inc_k``, sorted by family); ``rings`` holds every piece's vertices
    (V, 2) with each piece's first vertex and count; ``kinds`` whether each piece is solid and +1 or -1 as it
    runs counter-clockwise or not; ``delta`` bounds how far any float point lies from its exact point.

    The error bound: in coordinates relative to a float origin of the family (each shifted coordinate is off by at
    most ``delta' = delta + 2 EPS M`` from exact, M the largest shifted magnitude of the family), an orientation
    ``(q - p) x (r - p)`` evaluated in floats, as differences or as ``q x r - p x r - q x p``, is off from the exact
    orientation of the exact points by at most ``E = 64 EPS M^2 + 32 delta' (M + delta')``: the float evaluation by
    at most 24 EPS M^2 (Shewchuk's bound, 3 EPS times the products' magnitudes, for the first form; three terms of
    magnitude 2 M^2 and two subtractions, 22 EPS M^2, for the second), the inputs by at most ``16 delta' M + 8
    delta'^2``. A sign is taken from floats only beyond E; a comparison of coordinates only beyond ``4 delta'``. An
    edge is then certainly apart from a segment (one lies strictly on one side of the other's line) or certainly
    crossed at a point inside both; anything else is unsure. A crossing at t = |o_a| / (|o_a| + |o_b|) is off by at
    most ``2E / (D - 2E) + 4 EPS`` (D the float sum). The length inside a piece is the sum of the crossings' t
    (leaving) less those entering, plus 1 when the end is inside: off by at most the sum of their errors and the
    rounding of the sum; the length inside the union of the obscuring pieces is at most the sum over the pieces and
    at least the largest, and the sum itself where no two of the pieces it crosses may overlap (``overlaps`` (Q, K):
    the pieces of each family that may overlap another there); where neither decides, the union is swept in order.
    All times the segment's length, off by at most ``4 delta' + 4 EPS |d|``.
    """
    ring, ring_start, ring_len = rings
    solid, turn = kinds
    families, nf, ns = len(first), first.shape[1], second.shape[1]
    origin = first[:, 0, :].copy()
    f = first - origin[:, None, :]
    s = second - origin[:, None, :]
    lens = ring_len[inc_k]
    inc_start = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    rows = int(lens.sum())
    row_inc = np.repeat(np.arange(len(inc_k)), lens)
    row_q = inc_q[row_inc]
    place = np.arange(rows) - inc_start[row_inc]
    row_next = np.where(place + 1 == lens[row_inc], inc_start[row_inc], np.arange(rows) + 1)
    v = ring[ring_start[inc_k][row_inc] + place] - origin[row_q]
    # the error bounds, per family
    mag = np.maximum(np.abs(f).max(axis=(1, 2)), np.abs(s).max(axis=(1, 2)))
    if rows:
        np.maximum.at(mag, row_q, np.abs(v).max(axis=1))
    dq = delta + 2 * EPS * mag
    eq = 64 * EPS * mag * mag + 32 * dq * (mag + dq)
    er = eq[row_q]
    # the vertices against each segment's line: orient(f_i, s_j, v) = s_j x v - f_i x v - s_j x f_i
    sv = _cross(s[row_q, None, :, 0], s[row_q, None, :, 1], v[:, None, None, 0], v[:, None, None, 1])
    fv = _cross(f[row_q, :, None, 0], f[row_q, :, None, 1], v[:, None, None, 0], v[:, None, None, 1])
    sf = _cross(s[:, None, :, 0], s[:, None, :, 1], f[:, :, None, 0], f[:, :, None, 1])
    o = sv - fv - sf[row_q]
    bound = er[:, None, None]
    pos, neg = o > bound, o < -bound
    del o, sv, fv
    pos2, neg2 = pos[row_next], neg[row_next]
    # each segment's ends against each edge's line: orient(c, e, p)
    c, e = v, v[row_next]
    ex, ey = (e - c)[:, 0, None], (e - c)[:, 1, None]
    s3 = _cross(ex, ey, f[row_q, :, 0] - c[:, 0, None], f[row_q, :, 1] - c[:, 1, None])  # (rows, nf)
    s4 = _cross(ex, ey, s[row_q, :, 0] - c[:, 0, None], s[row_q, :, 1] - c[:, 1, None])  # (rows, ns)
    pos3, neg3 = s3 > er[:, None], s3 < -er[:, None]
    pos4, neg4 = s4 > er[:, None], s4 < -er[:, None]
    across_line = (pos & neg2) | (neg & pos2)
    across_edge = (pos3[:, :, None] & neg4[:, None, :]) | (neg3[:, :, None] & pos4[:, None, :])
    cross = across_line & across_edge
    apart_edge = (pos & pos2) | (neg & neg2) | (pos3[:, :, None] & pos4[:, None, :]) | \
        (neg3[:, :, None] & neg4[:, None, :])
    del pos, neg, pos2, neg2, across_line, across_edge
    any_unsure = _any_over(~(apart_edge | cross), inc_start)
    any_cross = _any_over(cross, inc_start)
    del apart_edge
    # is each start inside each piece? crossing number along +x, every term certain or the answer unsure
    tol = 4 * dq[row_q][:, None]
    dyc = v[:, 1, None] - f[row_q, :, 1]
    dye = e[:, 1, None] - f[row_q, :, 1]
    above_c, below_c, above_e, below_e = dyc > tol, dyc < -tol, dye > tol, dye < -tol
    straddle = (above_c & below_e) | (below_c & above_e)
    toggle = straddle & ((pos3 & above_e) | (neg3 & below_e))  # upward edges with the start on their left
    doubt = ~(above_c | below_c) | ~(above_e | below_e) | (straddle & ~pos3 & ~neg3)
    if rows:
        start_in = np.logical_xor.reduceat(toggle, inc_start, axis=0)
        start_unsure = np.logical_or.reduceat(doubt, inc_start, axis=0)
        lo, hi = np.minimum.reduceat(v, inc_start, axis=0), np.maximum.reduceat(v, inc_start, axis=0)
        fq, t4 = f[inc_q], 4 * dq[inc_q][:, None]
        out_box = ((fq[:, :, 0] < lo[:, 0, None] - t4) | (fq[:, :, 0] > hi[:, 0, None] + t4)
                   | (fq[:, :, 1] < lo[:, 1, None] - t4) | (fq[:, :, 1] > hi[:, 1, None] + t4))
        start_in &= ~out_box
        start_unsure &= ~out_box
    else:
        start_in = start_unsure = np.zeros((0, nf), bool)
    settled = ~any_unsure & ~start_unsure[:, :, None]
    crossed = any_cross | (start_in & ~start_unsure)[:, :, None]
    apart = settled & ~any_cross & ~start_in[:, :, None]
    solid_inc = solid[inc_k][:, None, None]
    solid_cross = _by_family(crossed & solid_inc, inc_q, families)
    solid_apart = ~_by_family(~apart & solid_inc, inc_q, families)
    settled_obscuring = ~_by_family(~settled & ~solid_inc, inc_q, families)
    # the length inside each obscuring piece, then bounds on the length inside their union
    wanted = settled_obscuring & ~solid_cross  # only there can the length decide anything
    r, i, j = np.nonzero(cross & ~solid[inc_k][row_inc][:, None, None] & wanted[row_q])
    a3, a4 = np.abs(s3[r, i]), np.abs(s4[r, j])
    span = a3 + a4
    t = a3 / span
    err_t = 2 * er[r] / (span - 2 * er[r]) + 4 * EPS
    m = row_inc[r]
    entering = (s3[r, i] > 0) != (turn[inc_k[m]] > 0)  # from the outer side of the edge to the inner
    mid = (m * nf + i) * ns + j
    size = len(inc_k) * nf * ns
    steps = np.bincount(mid, np.where(entering, 1.0, -1.0), minlength=size).reshape(-1, nf, ns)
    ends = start_in[:, :, None] + steps  # 1 where the end is inside (for a settled incidence)
    piece = np.bincount(mid, np.where(entering, -t, t), minlength=size).reshape(-1, nf, ns) + (ends > 0.5)
    piece = np.where(solid_inc, 0.0, piece)
    total = _by_family(piece, inc_q, families, np.add, 0.0)
    most = _by_family(piece, inc_q, families, np.maximum, 0.0)
    sid = (row_q[r] * nf + i) * ns + j
    count = families * nf * ns
    shape = (families, nf, ns)
    # the rounding of the sums: fewer terms than crossings and pieces, partial sums no larger than their count
    terms = np.bincount(sid, minlength=count).reshape(shape) + np.bincount(inc_q, minlength=families)[:, None, None]
    slack = np.bincount(sid, err_t, minlength=count).reshape(shape) + 4 * EPS * (terms + 4) ** 2
    length = np.hypot(*(s[:, None, :, :] - f[:, :, None, :]).transpose(3, 0, 1, 2))
    stretch = 4 * dq[:, None, None] + 8 * EPS * length  # the length's error, and the product's rounding
    under = total * length + (length * slack + total * stretch) < limit
    over = most * length - (length * slack + most * stretch) > limit
    # where pieces may overlap and the bounds do not decide, the union itself: each such segment's crossings
    # swept in order
    between = settled_obscuring & ~solid_cross & ~under & ~over
    if between.any() and overlaps is not None:  # the sum is the union unless two pieces crossed overlap
        twice = crossed & (~solid[inc_k] & overlaps[inc_q, inc_k])[:, None, None]
        between &= _by_family(twice.astype(np.int16), inc_q, families, np.add, 0) > 1
        exact_sum = settled_obscuring & ~solid_cross & ~under & ~over & ~between
        under |= exact_sum & (total * length + (length * slack + total * stretch) < limit)
        over |= exact_sum & (total * length - (length * slack + total * stretch) > limit)
    between = between.ravel()
    if between.any():
        pick = between[sid]
        starts = _by_family((start_in & ~solid[inc_k][:, None]).astype(np.int64), inc_q, families, np.add, 0)
        union = _union(np.flatnonzero(between), sid[pick], t[pick], np.where(entering[pick], 1, -1),
                       np.broadcast_to(starts[:, :, None], shape).ravel()[between])
        at = np.unravel_index(np.flatnonzero(between), shape)
        size_err = length[at] * slack[at] + union * stretch[at]
        under[at] = union * length[at] + size_err < limit
        over[at] = union * length[at] - size_err > limit
    clear = solid_apart & settled_obscuring & under
    blocked = solid_cross | (settled_obscuring & over)
    yes = np.where(solid_inc, crossed, crossed & solid_apart[inc_q])
    no = np.where(solid_inc, apart, apart | solid_cross[inc_q])
    return FamilyScreen(clear, blocked, inc_q, inc_k, crossed, yes, no, inc_start, cross, s3, s4, start_in,
                        ~solid[inc_k])
