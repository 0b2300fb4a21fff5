"""Tied shortest segments: every segment as short as the shortest between sources and target polygons, and the
middle one of them, exactly (see :mod:`rangefire.geometry.exact`: Fractions outside, GMP's rationals inside)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from gmpy2 import mpq  # type: ignore[import-untyped]  # GMP's rationals (no type stubs)

from rangefire.geometry.exact import (
    _Q0,
    Box,
    Point,
    Polygon,
    Segment,
    _fp,
    _fq,
    _gap2,
    _q,
    _q_closest_memo,
    _q_closest_on,
    _q_facing_stretch,
    _qseg,
)


class Stretch(NamedTuple):
    """Equally short segments from ``p0 + s (p1 - p0)`` to ``q0 + s (q1 - q0)`` for s in [0, 1]: a whole
    family where parallel edges face each other, a single segment when ``p0 == p1`` and ``q0 == q1``."""

    p0: Point
    q0: Point
    p1: Point
    q1: Point

    def at(self, s: Fraction) -> tuple[Point, Point]:
        return self.p0 + (self.p1 - self.p0).scale(s), self.q0 + (self.q1 - self.q0).scale(s)

    @property
    def single(self) -> bool:
        return self.p0 == self.p1 and self.q0 == self.q1


def shortest_stretches(sources: Sequence[Segment], targets: Sequence[Polygon], distance2: Fraction) -> list[Stretch]:
    """Every segment of squared length ``distance2`` (the known, positive shortest distance) from a source
    segment to a target polygon, as stretches: each tied pair of edges gives one segment, or a family when
    the edges are parallel and face each other (two non-parallel segments have one closest pair).

    >>> front = Segment(Point.of(-3, 0), Point.of(3, 0))
    >>> [st] = shortest_stretches([front], [Polygon.of([(1, 10), (7, 10), (7, 11), (1, 11)])], Fraction(100))
    >>> [(str(p.x), str(p.y)) for p in st]    # from (1, 0) to (1, 10), through to (3, 0) to (3, 10)
    [('1', '0'), ('1', '10'), ('3', '0'), ('3', '10')]
    """
    found = _q_shortest_stretches([_qseg(s) for s in sources], targets, mpq(distance2))
    return [Stretch(*(_fp(p) for p in st)) for st in found]


def shortest_line(sources: Sequence[Segment], targets: Sequence[Polygon], limit2: Fraction | None,
                  across: Point) -> tuple[Fraction, Point, Point, bool] | None:
    """The shortest segment from a source segment to a target polygon (its squared length and ends), or None when
    it is longer than ``limit2`` (None: whatever its length); where other segments tie as shortest (and it is
    longer than 0), the :func:`middle_segment` of all of them, placed along ``across``, and True.

    The first shortest found, source by source and target by target (:meth:`Polygon.closest_within`, each target
    looked at within the shortest so far), then :func:`shortest_stretches` at its length: the two worked out
    together, each pair of a source and an edge once, the numbers turned into Fractions once.

    >>> front = Segment(Point.of(-3, 0), Point.of(3, 0))
    >>> square = Polygon.of([(1, 10), (7, 10), (7, 11), (1, 11)])
    >>> d2, p, q, tied = shortest_line([front], [square], None, Point.of(1, 0))
    >>> str(d2), (str(p.x), str(p.y)), (str(q.x), str(q.y)), tied    # the middle of (1..3, 0) to (1..3, 10)
    ('100', ('2', '0'), ('2', '10'), True)
    >>> shortest_line([front], [square], Fraction(99), Point.of(1, 0)) is None
    True
    """
    qsources = [_qseg(s) for s in sources]
    qlimit = None if limit2 is None else mpq(limit2)
    memo: dict[tuple[int, int], tuple[Any, Point, Point]] = {}
    best: tuple[Any, Point, Point] | None = None
    for source in qsources:
        for target in targets:
            found = target._q_closest_within(source, qlimit if best is None else best[0], memo)
            if found is not None and (best is None or found[0] < best[0]):
                best = found
    if best is None or (qlimit is not None and best[0] > qlimit):
        return None
    d2, p, q = best
    tied = False
    if d2 != 0:
        ties = _q_shortest_stretches(qsources, targets, d2, memo)
        if ties and not (len(ties) == 1 and ties[0].single):
            (p, q), tied = _q_middle_segment(ties, _q(across)), True
    return _fq(d2), _fp(p), _fp(q), tied


def _q_shortest_stretches(sources: Sequence[Segment], targets: Sequence[Polygon], distance2: Any,
                          memo: dict[tuple[int, int], tuple[Any, Point, Point]] | None = None) -> list[Stretch]:
    """:func:`shortest_stretches` over GMP's rationals."""
    families: list[Stretch] = []
    singles: dict[tuple[Point, Point], None] = {}  # in the order found, each once
    for source in sources:
        source_box = Box.around(source.a, source.b)
        for target in targets:
            if _gap2(target._q_box, source_box) > distance2:
                continue  # too far apart for any tie
            boxes = target._q_edge_boxes
            for edge in target._q_edges_within(source, distance2):
                if _gap2(source_box, boxes[id(edge)]) > distance2:
                    continue
                d2, p, q = _q_closest_memo(source, edge, memo)
                if d2 != distance2:
                    continue
                facing = _q_facing_stretch(source, edge)
                if facing is not None and facing[0] < facing[1]:
                    p0, p1 = source.at(facing[0]), source.at(facing[1])
                    families.append(Stretch(p0, _q_closest_on(p0, edge), p1, _q_closest_on(p1, edge)))
                else:
                    singles[p, q] = None
    # A corner is the end of both its edges, and a tie found at a family's end is that family's: once each.
    ends = {end for st in families for end in ((st.p0, st.q0), (st.p1, st.q1))}
    return families + [Stretch(p, q, p, q) for p, q in singles if (p, q) not in ends]


def middle_segment(stretches: Sequence[Stretch], across: Point) -> tuple[Point, Point]:
    """The middle one of a set of tied shortest segments.

    Each segment is placed by its midpoint's position along ``across`` (a direction: for a unit, its
    right). The tied segments cover a span of positions, from the lowest to the highest; the middle one
    is the tied segment whose position is nearest the midpoint of that span. Where the ties form one
    family (parallel edges facing each other), that is the segment at the middle of the family; where
    the middle of the span falls between ties (a gap between stands), it is the tie nearest to it, and
    of two equally near, the one of lower position (to a unit's left).

    >>> fam = Stretch(Point.of(-1, 0), Point.of(-1, 5), Point.of(3, 0), Point.of(3, 5))
    >>> middle_segment([fam], Point.of(1, 0))
    (Point(x=Fraction(1, 1), y=Fraction(0, 1)), Point(x=Fraction(1, 1), y=Fraction(5, 1)))
    >>> a, b = Stretch(*[Point.of(0, 0), Point.of(-1, 5)] * 2), Stretch(*[Point.of(1, 0), Point.of(2, 5)] * 2)
    >>> middle_segment([b, a], Point.of(1, 0))[1]    # midpoints at -1/2 and 3/2: both 1 from the middle
    Point(x=Fraction(-1, 1), y=Fraction(5, 1))
    """
    start, end = _q_middle_segment([Stretch(*(_q(p) for p in st)) for st in stretches], _q(across))
    return _fp(start), _fp(end)


def _q_middle_segment(stretches: Sequence[Stretch], across: Point) -> tuple[Point, Point]:
    """:func:`middle_segment` over GMP's rationals."""
    ax, ay = across

    def position(p: Point, q: Point) -> Any:
        return ((p.x + q.x) * ax + (p.y + q.y) * ay) / 2

    spans = [(position(st.p0, st.q0), position(st.p1, st.q1), st) for st in stretches]
    low = min(min(a, b) for a, b, _ in spans)
    high = max(max(a, b) for a, b, _ in spans)
    middle = (low + high) / 2
    best: tuple[Any, Any, Point, Point] | None = None
    for a, b, st in spans:
        nearest = min(max(middle, min(a, b)), max(a, b))  # the position in this stretch nearest the middle
        s = _Q0 if a == b else (nearest - a) / (b - a)
        key = (abs(nearest - middle), nearest)
        if best is None or key < best[:2]:
            best = (*key, *st.at(s))
    assert best is not None, "no segments to choose from"
    return best[2], best[3]
