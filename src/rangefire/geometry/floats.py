"""Distances and insides in floats: quick screens before the exact work (:mod:`rangefire.geometry.exact`) and
figures for display, never an answer of the rules. A screen passes on anything within a margin far beyond any float
rounding of table numbers, and the exact work decides it."""

from __future__ import annotations

import math


def float_gap_to_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """The distance from a point to a segment, in floats (for filters and display only)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n2 = dx * dx + dy * dy
    t = 0.0 if n2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def float_segment_gap(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float],
                       d: tuple[float, float]) -> float:
    """The distance between two segments in floats (0 when they properly cross)."""
    def side(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    if side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0:
        return 0.0
    return min(float_gap_to_segment(a, c, d), float_gap_to_segment(b, c, d), float_gap_to_segment(c, a, b),
               float_gap_to_segment(d, a, b))


def float_inside(p: tuple[float, float], ring: list[tuple[float, float]]) -> bool:
    """Whether a point lies inside a ring, in floats (even-odd crossings; for filters only)."""
    inside = False
    for i, a in enumerate(ring):
        b = ring[(i + 1) % len(ring)]
        if (a[1] > p[1]) != (b[1] > p[1]) and p[0] < a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]):
            inside = not inside
    return inside
