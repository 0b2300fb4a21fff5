"""The exact geometry as it was first written, over ``fractions.Fraction`` and with no float screen: the
reference the geometry worked out over GMP's rationals (``rangefire.geometry.exact``) must equal, number for
number (tests/test_geometry_rational.py). Every function reads only a polygon's ``vertices`` and the points'
coordinates, never what the library keeps or screens."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

from rangefire.geometry.exact import Frame, Point, Polygon, Segment, Where, orient

ZERO, ONE = Fraction(0), Fraction(1)
Box = tuple[Fraction, Fraction, Fraction, Fraction]


def closest_on_segment(p: Point, seg: Segment) -> Point:
    d = seg.b - seg.a
    n2 = d.norm2()
    if n2 == 0:
        return seg.a
    t = (p - seg.a).dot(d) / n2
    return seg.at(min(ONE, max(ZERO, t)))


def on_segment(p: Point, seg: Segment) -> bool:
    a, b = seg
    return (min(a.x, b.x) <= p.x <= max(a.x, b.x) and min(a.y, b.y) <= p.y <= max(a.y, b.y)
            and orient(a, b, p) == 0)


def segments_intersect(s: Segment, u: Segment) -> bool:
    o1, o2 = orient(s.a, s.b, u.a), orient(s.a, s.b, u.b)
    o3, o4 = orient(u.a, u.b, s.a), orient(u.a, u.b, s.b)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return on_segment(u.a, s) or on_segment(u.b, s) or on_segment(s.a, u) or on_segment(s.b, u)


def intersection_params(s: Segment, u: Segment) -> list[Fraction]:
    d, e = s.b - s.a, u.b - u.a
    denom = d.cross(e)
    w = u.a - s.a
    if denom != 0:
        t, v = w.cross(e) / denom, w.cross(d) / denom
        return [t] if 0 <= t <= 1 and 0 <= v <= 1 else []
    if w.cross(d) != 0:
        return []
    n2 = d.norm2()
    if n2 == 0:
        return [ZERO] if on_segment(s.a, u) else []
    t0, t1 = sorted(((u.a - s.a).dot(d) / n2, (u.b - s.a).dot(d) / n2))
    lo, hi = max(t0, ZERO), min(t1, ONE)
    return [lo, hi] if lo <= hi else []


def facing_stretch(s: Segment, u: Segment) -> tuple[Fraction, Fraction] | None:
    d = s.b - s.a
    n2 = d.norm2()
    if n2 == 0 or d.cross(u.b - u.a) != 0:
        return None
    t0, t1 = sorted(((u.a - s.a).dot(d) / n2, (u.b - s.a).dot(d) / n2))
    lo, hi = max(t0, ZERO), min(t1, ONE)
    return (lo, hi) if lo <= hi else None


def closest_points(s: Segment, u: Segment) -> tuple[Fraction, Point, Point]:
    params = intersection_params(s, u)
    if params:
        p = s.at(params[0])
        return ZERO, p, p
    stretch = facing_stretch(s, u)
    if stretch is not None:
        p = s.at((stretch[0] + stretch[1]) / 2)
        q = closest_on_segment(p, u)
        return (p - q).norm2(), p, q
    best: tuple[Fraction, Point, Point] | None = None
    for p, seg, swap in ((s.a, u, False), (s.b, u, False), (u.a, s, True), (u.b, s, True)):
        q = closest_on_segment(p, seg)
        d2 = (p - q).norm2()
        if best is None or d2 < best[0]:
            best = (d2, q, p) if swap else (d2, p, q)
    assert best is not None
    return best


def box_of(points: Sequence[Point]) -> Box:
    return (min(p.x for p in points), min(p.y for p in points), max(p.x for p in points), max(p.y for p in points))


def gap2(a: Box, b: Box) -> Fraction:
    dx = b[0] - a[2] if b[0] > a[2] else a[0] - b[2] if a[0] > b[2] else 0
    dy = b[1] - a[3] if b[1] > a[3] else a[1] - b[3] if a[1] > b[3] else 0
    return Fraction(dx * dx + dy * dy)


def edges(poly: Polygon) -> list[Segment]:
    v = poly.vertices
    return [Segment(v[i], v[(i + 1) % len(v)]) for i in range(len(v))]


def locate(poly: Polygon, p: Point) -> Where:
    inside = False
    for edge in edges(poly):
        a, b = edge
        if on_segment(p, edge):
            return Where.BOUNDARY
        if (a.y > p.y) != (b.y > p.y):
            lhs = (p.x - a.x) * (b.y - a.y)
            rhs = (b.x - a.x) * (p.y - a.y)
            if (lhs < rhs) == (b.y > a.y):
                inside = not inside
    return Where.INSIDE if inside else Where.OUTSIDE


def interior_params(poly: Polygon, seg: Segment) -> list[tuple[Fraction, Fraction]]:
    ts = {ZERO, ONE}
    for edge in edges(poly):
        ts.update(intersection_params(seg, edge))
    ordered = sorted(t for t in ts if 0 <= t <= 1)
    out: list[tuple[Fraction, Fraction]] = []
    for t0, t1 in itertools.pairwise(ordered):
        if t0 < t1 and locate(poly, seg.at((t0 + t1) / 2)) is Where.INSIDE:
            if out and out[-1][1] == t0:
                out[-1] = (out[-1][0], t1)
            else:
                out.append((t0, t1))
    return out


def contact(poly: Polygon, seg: Segment) -> str:
    if seg.a == seg.b:
        return {Where.INSIDE: "crossing", Where.BOUNDARY: "touching"}.get(locate(poly, seg.a), "clear")
    if interior_params(poly, seg):
        return "crossing"
    return "touching" if any(segments_intersect(seg, e) for e in edges(poly)) else "clear"


def overlaps(poly: Polygon, convex: Polygon) -> bool:
    if any(interior_params(poly, e) for e in edges(convex)):
        return True
    if any(interior_params(convex, e) for e in edges(poly)):
        return True
    n = len(convex.vertices)
    centre = Point(sum((p.x for p in convex.vertices), ZERO) / n, sum((p.y for p in convex.vertices), ZERO) / n)
    return locate(poly, centre) is Where.INSIDE


def closest_within(poly: Polygon, seg: Segment, limit2: Fraction | None) -> tuple[Fraction, Point, Point] | None:
    """The first nearest edge, in order; a parallel edge as near takes a tie (its middle segment)."""
    if limit2 is not None and gap2(box_of(poly.vertices), box_of(seg)) > limit2:
        return None
    if locate(poly, seg.a) is not Where.OUTSIDE:
        return ZERO, seg.a, seg.a
    best: tuple[Fraction, Point, Point] | None = None
    direction_ = seg.b - seg.a
    for edge in edges(poly):
        found = closest_points(seg, edge)
        if best is None or found[0] < best[0] or (found[0] == best[0] and direction_.cross(edge.b - edge.a) == 0):
            best = found
            if found[0] == 0:
                break
    assert best is not None
    return best


Stretch = tuple[Point, Point, Point, Point]


def shortest_stretches(sources: Sequence[Segment], targets: Sequence[Polygon], distance2: Fraction) -> list[Stretch]:
    families: list[Stretch] = []
    singles: dict[tuple[Point, Point], None] = {}
    for source in sources:
        for target in targets:
            for edge in edges(target):
                d2, p, q = closest_points(source, edge)
                if d2 != distance2:
                    continue
                facing = facing_stretch(source, edge)
                if facing is not None and facing[0] < facing[1]:
                    p0, p1 = source.at(facing[0]), source.at(facing[1])
                    families.append((p0, closest_on_segment(p0, edge), p1, closest_on_segment(p1, edge)))
                else:
                    singles[p, q] = None
    ends = {end for st in families for end in ((st[0], st[1]), (st[2], st[3]))}
    return families + [(p, q, p, q) for p, q in singles if (p, q) not in ends]


def middle_segment(stretches: Sequence[Stretch], across: Point) -> tuple[Point, Point]:
    def position(p: Point, q: Point) -> Fraction:
        return (p + q).dot(across) / 2

    spans = [(position(st[0], st[1]), position(st[2], st[3]), st) for st in stretches]
    low = min(min(a, b) for a, b, _ in spans)
    high = max(max(a, b) for a, b, _ in spans)
    middle = (low + high) / 2
    best: tuple[Fraction, Fraction, Point, Point] | None = None
    for a, b, st in spans:
        nearest = min(max(middle, min(a, b)), max(a, b))
        s = ZERO if a == b else (nearest - a) / (b - a)
        key = (abs(nearest - middle), nearest)
        if best is None or key < best[:2]:
            best = (*key, st[0] + (st[2] - st[0]).scale(s), st[1] + (st[3] - st[1]).scale(s))
    assert best is not None
    return best[2], best[3]


def shortest_line(sources: Sequence[Segment], targets: Sequence[Polygon], limit2: Fraction | None,
                  across: Point) -> tuple[Fraction, Point, Point, bool] | None:
    """The line of fire as first worked out: the first shortest segment, source by source and target by target,
    then the middle one of every segment as short where there are several."""
    best: tuple[Fraction, Point, Point] | None = None
    for source in sources:
        for target in targets:
            found = closest_within(target, source, limit2 if best is None else best[0])
            if found is not None and (best is None or found[0] < best[0]):
                best = found
    if best is None or (limit2 is not None and best[0] > limit2):
        return None
    d2, p, q = best
    if d2 == 0:
        return d2, p, q, False
    ties = shortest_stretches(sources, targets, d2)
    if not ties or (len(ties) == 1 and ties[0][0] == ties[0][2] and ties[0][1] == ties[0][3]):
        return d2, p, q, False
    start, end = middle_segment(ties, across)
    return d2, start, end, True


def clip_halfplane(points: Sequence[Point], a: Point, b: Point) -> list[Point]:
    out: list[Point] = []
    n = len(points)
    for i in range(n):
        p, q = points[i], points[(i + 1) % n]
        sp, sq = (b - a).cross(p - a), (b - a).cross(q - a)
        if sp >= 0:
            out.append(p)
        if (sp > 0 > sq) or (sp < 0 < sq):
            out.append(p + (q - p).scale(sp / (sp - sq)))
    return out


def arc_meets(polygon: Polygon, frame: Frame, h: Fraction, slope: Fraction = ONE) -> bool:
    """Clipped by the three half-planes, always (no early answer)."""
    pts: Sequence[Point] = [frame.local(p) for p in polygon.vertices]
    for a, b in ((Point(ZERO, ZERO), Point(ONE, ZERO)), (Point(h, ZERO), Point(h + slope, ONE)),
                 (Point(-h, ZERO), Point(-h + slope, -ONE))):
        pts = clip_halfplane(pts, a, b)
        if not pts:
            return False
    return True


def rectangle(frame: Frame, x0: Fraction, x1: Fraction, y0: Fraction, y1: Fraction) -> tuple[Point, ...]:
    return frame.world(x0, y0), frame.world(x1, y0), frame.world(x1, y1), frame.world(x0, y1)


def all_behind(frame: Frame, polygons: Sequence[Polygon]) -> bool:
    return all(frame.local(p).y < 0 for poly in polygons for p in poly.vertices)
