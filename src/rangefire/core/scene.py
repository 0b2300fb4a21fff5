"""A drawing of a battle as data: shapes in table units, each with a meaning, before any pixel is decided.

A game turns its battle (and, optionally, the checks of an attack) into a :class:`Scene`; a renderer
(``rangefire.draw``) turns the scene into a picture. The scene says *what* a shape is (its ``kind``: a
unit, a piece of terrain by kind, gunsmoke, an arc of fire, a line of fire and its state, a blocker, a
zone of control, a legal or refused target), whose it is (``side``), which piece it belongs to (``id``) and
what a reader hovering over it should be told (``title``); the renderer decides colours and line styles
from those, so the same scene serves a file, a terminal preview or a web page that styles and scripts it.

Coordinates are table units (inches, steps...) with x to the right and y up the table, as in scenario
files; floats, since a drawing only shows the exact verdicts made elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import SupportsFloat

from rangefire.core.types import Check

XY = tuple[float, float]


def xy(point: Sequence[SupportsFloat]) -> XY:
    """An exact point (``Point``, or ``[x, y]`` of Fractions) in drawing floats."""
    return (float(point[0]), float(point[1]))


def ring(vertices: Iterable[Sequence[SupportsFloat]]) -> tuple[XY, ...]:
    """A polygon's vertices in drawing floats."""
    return tuple(xy(v) for v in vertices)

#: Badges and terrain names, relative to the renderer's normal text: about 11.5 and 12 pixels at the default size.
BADGE_SIZE = 0.82
TERRAIN_NAME_SIZE = 0.85

#: States a line of fire or sight is drawn in: the verdicts of the games, and ``refused`` for a line the
#: rules refuse for a reason other than sight (out of arc, out of range, not the closest enemy).
LINE_STATES = ("clear", "touching", "hindered", "blocked", "refused")


@dataclass(frozen=True)
class Shape:
    """What every shape carries: its meaning and whose it is.

    ``kind`` names the meaning, optionally with a sub-kind after a colon (``terrain:heavy``); ``state`` is a
    further class (``hindered``, ``legal``...); ``id`` the piece it belongs to; ``side`` the player or army
    whose colour it takes; ``title`` the text shown on hovering over it.
    """

    kind: str
    id: str = ""
    side: str | None = None
    title: str = ""
    state: str = ""


@dataclass(frozen=True)
class Poly(Shape):
    """A closed polygon: a stand, a base, a terrain piece, a marker, an arc of fire."""

    points: tuple[XY, ...] = ()


@dataclass(frozen=True)
class Circle(Shape):
    """A circle: a round base, a zone of control, a range ring."""

    centre: XY = (0.0, 0.0)
    radius: float = 0.0


@dataclass(frozen=True)
class Segment(Shape):
    """A straight line: a line of fire or sight, a front edge, a coloured side of a base.

    ``arrow`` puts an arrowhead at ``end`` (a facing mark).
    """

    start: XY = (0.0, 0.0)
    end: XY = (0.0, 0.0)
    arrow: bool = False


@dataclass(frozen=True)
class Label(Shape):
    """Text at a point of the table. ``anchor`` is where the point is on the text: start, middle or end;
    ``size`` is relative to the renderer's normal text (1.0); ``angle`` turns it (degrees, anticlockwise)."""

    at: XY = (0.0, 0.0)
    text: str = ""
    anchor: str = "middle"
    size: float = 1.0
    angle: float = 0.0
    #: A second place (and anchor) to put the label where the first runs off the picture or onto another label.
    alternative: tuple[XY, str] | None = None
    #: Further places tried in turn, after ``alternative``.
    further: tuple[tuple[XY, str], ...] = ()
    #: Lines of text the label is moved down the picture (up where negative) from each of its places, once they
    #: are in pixels: a line of marks under or over a name at the same point, whatever the scale.
    lines: float = 0.0


@dataclass(frozen=True)
class Badges(Label):
    """A row of small marks beside a piece, each a word in a box: its states, markers, wounds, figures left.
    ``marks`` holds (mark, text) pairs: the mark a class word the legend explains (``disordered``), the text what
    the box says (``wounds 1/6``); ``text`` is the row read as one line."""

    marks: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Group(Shape):
    """Shapes that make one piece (a unit with its stands, facing mark and name), drawn and titled together."""

    items: tuple[Shape, ...] = ()


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a sample of a kind (with its state and side), and what it means."""

    kind: str
    text: str
    state: str = ""
    side: str | None = None
    sample: str = "fill"  # fill | line | circle | badge
    #: The word a badge sample shows (``sample="badge"``).
    label: str = ""


@dataclass(frozen=True)
class Scene:
    """A battle ready to draw: the shapes in drawing order (first underneath), the part of the table to show
    ``(x0, y0, x1, y1)``, the table unit (``in``, ``steps``; empty when there is no table and no scale), the
    sides in the order their colours are given, the legend, notes written under the picture, and the scale
    the game draws at."""

    title: str
    items: tuple[Shape, ...]
    bounds: tuple[float, float, float, float]
    unit: str = "in"
    sides: tuple[str, ...] = ()
    legend: tuple[LegendEntry, ...] = ()
    notes: tuple[str, ...] = field(default=())
    #: Pixels per table unit where a game asks for its own fixed scale (a skirmish table is smaller than a
    #: battlefield); None leaves it to the renderer's scale for the unit.
    scale: float | None = None

    def groups(self, kind: str) -> list[Group]:
        """The groups of a kind (``unit``...), in drawing order."""
        return [item for item in self.items if isinstance(item, Group) and item.kind == kind]


def bounds_of(points: list[XY], margin: float) -> tuple[float, float, float, float]:
    """The box around ``points`` grown by ``margin`` on every side (a unit square around the origin if none).

    >>> bounds_of([(0, 0), (4, 2)], 1)
    (-1, -1, 5, 3)
    """
    if not points:
        return (-1.0, -1.0, 1.0, 1.0)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def grown(points: tuple[XY, ...], d: float) -> tuple[XY, ...]:
    """A convex polygon pushed out by ``d`` on every side (each corner moved along its bisector), to draw
    a halo around a piece without covering it.

    >>> grown(((0, 0), (2, 0), (2, 1), (0, 1)), 0.5)
    ((-0.5, -0.5), (2.5, -0.5), (2.5, 1.5), (-0.5, 1.5))
    """
    n = len(points)
    if n < 3:
        return points
    area = sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1] for i in range(n))
    sign = 1.0 if area > 0 else -1.0  # outward is to the right of each edge when anticlockwise

    def normal(a: XY, b: XY) -> XY:
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy) or 1.0
        return (sign * dy / length, -sign * dx / length)

    out = []
    for i in range(n):
        n1 = normal(points[i - 1], points[i])
        n2 = normal(points[i], points[(i + 1) % n])
        bx, by = n1[0] + n2[0], n1[1] + n2[1]
        cos = n1[0] * n2[0] + n1[1] * n2[1]
        k = d / (1 + cos) if cos > -0.99 else d
        out.append((points[i][0] + bx * k, points[i][1] + by * k))
    return tuple(out)


#: What the marks and lines every game draws mean, for the legend, by (kind, state) and the sample drawn.
MARKS: tuple[tuple[str, str, str, str], ...] = (
    ("attacker", "", "fill", "the attacker"),
    ("legal-target", "legal", "fill", "a legal target"),
    ("refused-target", "refused", "fill", "refused: the clause beside it, the reason below"),
    ("line-of-fire", "clear", "line", "line clear"),
    ("line-of-fire", "touching", "line", "line touching (neither blocks nor hinders)"),
    ("line-of-fire", "hindered", "line", "line hindered"),
    ("line-of-fire", "blocked", "line", "line blocked"),
    ("line-of-fire", "refused", "line", "line of a refused attack"),
    ("blocker", "", "fill", "what blocks the line"),
    ("hindrance", "", "fill", "what hinders the line"),
    ("touched", "", "fill", "what the line only touches"),
    ("cover", "", "fill", "what gives the target cover"),
    ("centre-line", "", "line", "centre to centre line"),
    ("nominee", "", "circle", "may be nominated as the target instead"),
    ("ghost", "", "fill", "where it stood at the start of its turn"),
    ("trail", "", "line", "its move this turn, from where it stood"),
)


#: The marks drawn in the colour of their piece's side.
SIDED = ("ghost", "trail")


def _walk(items: Iterable[Shape]) -> Iterator[Shape]:
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from _walk(item.items)


def mark_legend(items: Iterable[Shape], texts: Mapping[tuple[str, str], str] | None = None) -> list[LegendEntry]:
    """Legend entries for the marks and lines present among ``items``, in a fixed order; ``texts`` gives a
    game's own words for some of them, by (kind, state)."""
    present: dict[tuple[str, str], str | None] = {}
    for shape in _walk(items):
        present.setdefault((shape.kind, shape.state if shape.kind == "line-of-fire" else ""), shape.side)
    words = texts or {}
    # a mark drawn in its piece's colour (where a unit stood, its move) is shown in the first one's
    out = []
    for kind, state, sample, text in MARKS:
        key = (kind, state if kind == "line-of-fire" else "")
        if key in present:
            out.append(LegendEntry(kind, words.get((kind, state), text), state=state, sample=sample,
                                   side=present[key] if kind in SIDED else None))
    return out


def badges(owner: str, side: str | None, marks: Sequence[tuple[str, str]], title: str, at: XY, lines: float,
           anchor: str = "middle") -> list[Label]:
    """A piece's marks as one row of badges at ``at`` moved ``lines`` lines of text down the picture (up where
    negative); none where it has no mark."""
    if not marks:
        return []
    return [Badges("badges", owner, side, title=title, at=at, anchor=anchor, lines=lines, size=BADGE_SIZE,
                   text=" ".join(text for _, text in marks), marks=tuple(marks))]


def badge_legend(items: Iterable[Shape], texts: Mapping[str, tuple[str, str]]) -> list[LegendEntry]:
    """Legend entries for the marks shown as badges among ``items``, in the order of ``texts``: for each mark,
    the word its sample shows and what it means."""
    present = {mark for s in _walk(items) if isinstance(s, Badges) for mark, _ in s.marks}
    return [LegendEntry("badge", meaning, state=mark, sample="badge", label=word)
            for mark, (word, meaning) in texts.items() if mark in present]


def terrain_name(pid: str, points: Sequence[XY], title: str, inset: float) -> Label:
    """A terrain piece's name on the piece: at its middle, or failing that (a unit standing there, another
    label, a line) just inside its top or bottom edge, inside a corner, or just outside it above, below, left or
    right; ``inset`` is how far inside an edge (table units)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    d = min(inset, (y1 - y0) / 2)
    places = [((mx, y1 - d), "middle"), ((mx, y0 + d), "middle"), ((x0 + d, y1 - d), "start"),
              ((x1 - d, y1 - d), "end"), ((x0 + d, y0 + d), "start"), ((x1 - d, y0 + d), "end"),
              ((mx, y1 + inset), "middle"), ((mx, y0 - inset), "middle"), ((x0 - inset / 2, my), "end"),
              ((x1 + inset / 2, my), "start")]
    return Label("terrain-name", pid, title=title, at=(mx, my), text=pid, anchor="middle", size=TERRAIN_NAME_SIZE,
                 lines=0.35, alternative=places[0], further=tuple(places[1:]))


def entering(start: XY, end: XY, outline: Sequence[XY]) -> XY:
    """Where the segment from ``start`` to ``end`` first reaches the convex ``outline`` (``end`` where it never
    does, or ``start`` where it starts inside): a trail's arrowhead is put on a piece's edge, not hidden under it.

    >>> entering((0, -4), (0, 0), ((-1, -1), (1, -1), (1, 1), (-1, 1)))
    (0.0, -1.0)
    """
    n = len(outline)
    area = sum(outline[i][0] * outline[(i + 1) % n][1] - outline[(i + 1) % n][0] * outline[i][1] for i in range(n))
    sign = 1.0 if area > 0 else -1.0
    t_in, t_out = 0.0, 1.0
    dx, dy = end[0] - start[0], end[1] - start[1]
    for i in range(n):
        (ax, ay), (bx, by) = outline[i], outline[(i + 1) % n]
        # inside is to the left of each edge when anticlockwise: cross >= 0
        ex, ey = bx - ax, by - ay
        num = sign * (ex * (start[1] - ay) - ey * (start[0] - ax))
        den = sign * (ex * dy - ey * dx)
        if den == 0:
            if num < 0:
                return end
            continue
        t = -num / den
        if den > 0:
            t_in = max(t_in, t)
        else:
            t_out = min(t_out, t)
    if t_in > t_out:
        return end
    return (float(start[0] + dx * t_in), float(start[1] + dy * t_in))


def crosses(line: tuple[XY, XY], box: tuple[float, float, float, float]) -> bool:
    """Whether a segment reaches into a box ``(x0, y0, x1, y1)``: the segment clipped to the box's slab in x, then
    in y.

    >>> crosses(((0, 0), (10, 10)), (4, 4, 6, 6)), crosses(((0, 0), (10, 0)), (4, 4, 6, 6))
    (True, False)
    """
    (x1, y1), (x2, y2) = line
    t0, t1 = 0.0, 1.0
    for p, d, lo, hi in ((x1, x2 - x1, box[0], box[2]), (y1, y2 - y1, box[1], box[3])):
        if d == 0:
            if not lo <= p <= hi:
                return False
            continue
        a, b = (lo - p) / d, (hi - p) / d
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
        if t0 > t1:
            return False
    return True


def text_box(at: XY, anchor: str, width: float, below: float, above: float) -> tuple[float, float, float, float]:
    """The box a line of text ``width`` wide takes at ``at`` (``anchor``: where the point is on it), reaching
    ``below`` under the point and ``above`` over it (table units)."""
    left = at[0] - {"start": 0.0, "middle": width / 2, "end": width}.get(anchor, width / 2)
    return (left, at[1] - below, left + width, at[1] + above)


def clear_first(line: tuple[XY, XY] | None, boxes: Sequence[Sequence[tuple[float, float, float, float]]],
                obstacles: Sequence[tuple[float, float, float, float]] = (),
                terrain: Sequence[tuple[float, float, float, float]] = ()) -> list[int]:
    """The order to try a label's places in: those where every box it takes there (its name, its badges: one list
    of boxes a place) is clear of ``line`` (a move's trail) first; of those, the ones clear of ``obstacles`` (other
    pieces, the picture's edge) first, then those over the least of ``terrain``; each kind in the order given.

    >>> clear_first(((0, -5), (0, 0)), [[(-1, -2, 1, -1)], [(2, -1, 4, 0)], [(-4, -1, -2, 0)]])
    [1, 2, 0]
    >>> clear_first(((0, -5), (0, 0)), [[(-1, -2, 1, -1)], [(2, -1, 4, 0)], [(-4, -1, -2, 0)]], [(3, -3, 5, 3)])
    [2, 1, 0]
    >>> clear_first(((0, -5), (0, 0)), [[(2, -1, 4, 0)], [(-4, -1, -2, 0)]], terrain=[(3.5, -3, 5, 3)])
    [1, 0]
    """
    if line is None:
        return list(range(len(boxes)))

    def rank(k: int) -> tuple[bool, bool, float]:
        return (any(crosses(line, box) for box in boxes[k]),
                any(_shared(box, o) > 0 for box in boxes[k] for o in obstacles),
                sum(_shared(box, t) for box in boxes[k] for t in terrain))

    return sorted(range(len(boxes)), key=rank)


def _shared(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """The area two boxes share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def outside(bounds: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
    """Four boxes round ``bounds`` (x0, y0, x1, y1): what lies off the picture, as obstacles for a label's place.

    >>> outside((0, 0, 4, 2))[0]
    (-1000000.0, -1000000.0, 0, 1000000.0)
    """
    x0, y0, x1, y1 = bounds
    far = 1e6
    return [(-far, -far, x0, far), (x1, -far, far, far), (-far, -far, far, y0), (-far, y1, far, far)]


def beside(start: XY, end: XY, text: str, title: str, offset: float) -> Label:
    """A range label beside a line's middle, ``offset`` table units off it: on the line's left, or where that
    does not fit, on its right (text running away from the line either way)."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length * offset, dx / length * offset
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    left_anchor = side_anchor(nx, ny)
    right_anchor = {"start": "end", "end": "start"}.get(left_anchor, "middle")
    return Label("range-label", title=title, at=(mx + nx, my + ny), text=text, anchor=left_anchor,
                 alternative=((mx - nx, my - ny), right_anchor))


def refusal_notes(checks: Iterable[Check], shown: Check | None = None) -> list[str]:
    """One line per refused target of an attacker's checks, with every reason and clause (a picture printed
    on paper has no tooltips); the target of ``shown`` is left out when its refusals are already written."""
    skip = shown.target if shown is not None and not shown.is_legal else None
    return [f"{c.target} refused: " + "; ".join(str(r) for r in c.refusals) for c in checks
            if not c.is_legal and c.target is not None and c.target != skip]


def side_anchor(dx: float, dy: float) -> str:
    """How to anchor a label set off from a piece in the direction (dx, dy): beside it, text running away
    from it, when the direction is mostly sideways; centred above or below it otherwise."""
    if abs(dx) > abs(dy):
        return "start" if dx > 0 else "end"
    return "middle"


def points_of(item: Shape) -> list[XY]:
    """Every point a shape reaches (a circle by its bounding box), to fit the picture around them."""
    if isinstance(item, Poly):
        return list(item.points)
    if isinstance(item, Circle):
        (x, y), r = item.centre, item.radius
        return [(x - r, y - r), (x + r, y + r)]
    if isinstance(item, Segment):
        return [item.start, item.end]
    if isinstance(item, Label):
        return [item.at]
    if isinstance(item, Group):
        return [p for sub in item.items for p in points_of(sub)]
    return []


__all__ = [
    "LINE_STATES",
    "MARKS",
    "XY",
    "Badges",
    "Circle",
    "Group",
    "Label",
    "LegendEntry",
    "Poly",
    "Scene",
    "Segment",
    "Shape",
    "badge_legend",
    "badges",
    "beside",
    "bounds_of",
    "clear_first",
    "crosses",
    "entering",
    "grown",
    "mark_legend",
    "outside",
    "points_of",
    "refusal_notes",
    "side_anchor",
    "terrain_name",
    "text_box",
]
