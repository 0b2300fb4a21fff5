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
