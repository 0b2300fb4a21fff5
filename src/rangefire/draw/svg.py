"""A :class:`~rangefire.core.scene.Scene` as SVG text: to scale, y up the table, every shape classed by its
meaning so that a web page can style and script it.

- Table units become pixels at a fixed scale (:data:`SCALES`), the same for every battle of a game, so two
  pictures compare; y is flipped, since the table's y runs up and the picture's down. The root element says
  where the table's origin lies in pixels and how many pixels a unit is (``data-origin-x``,
  ``data-origin-y``, ``data-scale``), so a program can map a click back to the table.
- Each shape is an element with its kind as classes (``terrain terrain-heavy``), its state (``hindered``,
  ``refused``), its side (``side-0``), ``data-id`` and a ``<title>`` tooltip; a unit (a card in the card
  game) is a ``<g class="unit" data-id="..." data-unit="..." data-side="...">``. Colours and line styles are
  also given as presentation attributes, so the file stands alone and a stylesheet can still override them.
- Text is drawn over every shape and placed apart: a piece's name, its badges (a row of boxed words: states,
  markers, wounds, figures left; ``<g class="badge" data-mark="...">``) and the terrain's names are kept off each
  other, off the pieces and, for badges and terrain names, off the lines of fire and the trails of moves; every
  word is at least 11 pixels at the picture's own size. Widths are measured with the font's own metrics.
- Colours: the Okabe-Ito palette, told apart by people with any common colour blindness; a line of fire's
  state is shown by its colour *and* its dash pattern.
- Text from the scenario is escaped, and control and format characters are written out (``\\x1b``), never
  put in the file (XML forbids most of them even escaped).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from rangefire.core.scene import (
    BADGE_SIZE,
    XY,
    Badges,
    Circle,
    Group,
    Label,
    LegendEntry,
    Poly,
    Scene,
    Segment,
    Shape,
    crosses,
)
from rangefire.core.text import shown

#: Pixels per table unit. Inches for the games measured in inches, steps where a game measures in steps (a
#: step is the side of a sortie base, drawn larger so that notches stay apart); cards have no scale.
SCALES = {"in": 24.0, "steps": 80.0, "": 1.0}
#: Okabe & Ito's colour-blind-safe palette, in the order sides take it.
SIDE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
#: Pale fills of the same colours, for bases and stands under their outlines.
SIDE_FILLS = ("#C6DDEE", "#F5D3BD", "#BFE3D6", "#F0D9E6", "#F8E3B8", "#D5ECF8")
#: A line of fire or sight by state: colour, dash pattern (empty: solid), and what the legend says.
LINE_STYLES = {
    "clear": ("#009E73", ""),
    "touching": ("#0072B2", "10 4"),
    "hindered": ("#E69F00", "6 4"),
    "blocked": ("#000000", "2 4"),
    "refused": ("#777777", "1 5"),
}
#: Terrain by kind word: fill, outline.
TERRAIN_STYLES = {
    "heavy": ("#8C7B62", "#4D4433"), "blocking": ("#7A7A7A", "#3D3D3D"), "solid": ("#8C7B62", "#4D4433"),
    "light": ("#BFDDAE", "#5A8F4A"), "hindering": ("#BFDDAE", "#5A8F4A"), "obscuring": ("#BFDDAE", "#5A8F4A"),
    "clear": ("#F3ECD8", "#C9BC97"), "open": ("#F3ECD8", "#C9BC97"),
}
#: The colours games give to the sides of a base (a game's own colour words, not the armies').
EDGE_COLOURS = {"blue": "#0072B2", "red": "#D55E00", "grey": "#8C8C8C"}
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
TEXT_PX = 14.0
MARGIN = 20.0
TITLE_PX = 18.0
MIN_WIDTH = 720.0
INK = "#222222"


# -- text ------------------------------------------------------------------------------------------
def esc(value: object) -> str:
    """Text for an element or a double-quoted attribute: shown, then escaped.

    >>> esc('a <b> & "c"')
    'a &lt;b&gt; &amp; &quot;c&quot;'
    """
    return (shown(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def _token(word: str) -> str:
    """A class name from a kind or state word (only letters, digits and hyphens)."""
    return re.sub(r"[^a-z0-9-]+", "-", word.lower()).strip("-") or "x"


#: DejaVu Sans's advance widths of the printable ASCII characters, space to tilde, in ems (the font the PNG is
#: drawn in; Verdana, next in line, is close to it).
_WIDTHS = dict(zip(map(chr, range(32, 127)), (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636,
    636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863,
    748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635,
    615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636,
    337, 636, 838), strict=True))
#: Bold runs this much wider, on average.
BOLD = 1.13


def text_width(text: str, px: float, bold: bool = False) -> float:
    """A line's width in pixels, from the font's own widths (other characters taken as wide as a digit, or two
    where East Asian text is wide).

    >>> round(text_width("moved", 10), 1)
    34.3
    """
    ems = sum(_WIDTHS[c] / 1000 if c in _WIDTHS else 1.0 if unicodedata.east_asian_width(c) in "WF" else 0.64
              for c in shown(text))
    return ems * px * (BOLD if bold else 1.0)


# -- layout ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Layout:
    """Where the table sits in the picture: ``px(x, y)`` maps table units to pixels, y flipped."""

    scale: float
    x0: float
    y1: float
    left: float
    top: float
    width: float
    height: float

    def px(self, p: XY) -> tuple[float, float]:
        return (self.left + (p[0] - self.x0) * self.scale, self.top + (self.y1 - p[1]) * self.scale)

    @property
    def origin(self) -> tuple[float, float]:
        return self.px((0.0, 0.0))


def layout(scene: Scene, scale: float | None = None) -> Layout:
    """The table's place in the picture for this scene, at the game's fixed scale unless one is given. A table
    narrower than the picture's least width is shown wider, as much on either side, so that names and badges
    near its edges have room."""
    s = scale if scale is not None else scene.scale if scene.scale is not None else SCALES.get(scene.unit, SCALES["in"])
    x0, y0, x1, y1 = scene.bounds
    least = (MIN_WIDTH - 2 * MARGIN) / s
    if scene.unit and x1 - x0 < least:
        x0, x1 = x0 - (least - (x1 - x0)) / 2, x0 + (least + (x1 - x0)) / 2
    return Layout(s, x0, y1, MARGIN, MARGIN + TITLE_PX + 16, (x1 - x0) * s, (y1 - y0) * s)


def _f(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


class _Colours:
    def __init__(self, sides: tuple[str, ...]) -> None:
        self.index = {side: i % len(SIDE_COLOURS) for i, side in enumerate(sides)}

    def side(self, side: str | None) -> tuple[str, str]:
        if side is None or side not in self.index:
            return INK, "#E6E6E6"
        i = self.index[side]
        return SIDE_COLOURS[i], SIDE_FILLS[i]


def _attrs(shape: Shape, colours: _Colours) -> dict[str, str]:
    """Presentation attributes for a shape, from its kind, state and side."""
    kind, _, sub = shape.kind.partition(":")
    ink, pale = colours.side(shape.side)
    if kind == "terrain":
        if sub == "gunsmoke":
            return {"fill": "#9E9E9E", "fill-opacity": "0.45", "stroke": "#5E5E5E", "stroke-dasharray": "3 2"}
        fill, line = TERRAIN_STYLES.get(sub, ("#EEEEEE", "#999999"))
        return {"fill": fill, "stroke": line, "stroke-width": "1.5"}
    if kind == "gunsmoke":
        return {"fill": "#9E9E9E", "fill-opacity": "0.45", "stroke": "#5E5E5E", "stroke-dasharray": "3 2"}
    if kind == "card" and shape.state == "swerved":
        return {"fill": pale, "stroke": ink, "stroke-width": "2.5", "stroke-dasharray": "7 3"}
    if kind in ("stand", "base", "card"):
        return {"fill": pale, "stroke": ink, "stroke-width": "1.5"}
    if kind == "mission":
        return {"fill": "#F7F4EC", "stroke": "#B8AE94", "stroke-width": "1.5"}
    if kind == "front":
        return {"stroke": ink, "stroke-width": "4", "stroke-linecap": "round"}
    if kind == "edge":
        return {"stroke": EDGE_COLOURS.get(sub, INK), "stroke-width": "5", "stroke-linecap": "butt"}
    if kind == "notch":
        return {"fill": INK, "stroke": "none"}
    if kind == "facing":
        return {"stroke": ink, "stroke-width": "2", "fill": ink}
    if kind == "zone-of-control":
        return {"fill": "none", "stroke": ink, "stroke-width": "1.2", "stroke-dasharray": "4 3",
                "stroke-opacity": "0.8"}
    if kind == "arc":
        return {"fill": ink, "fill-opacity": "0.07", "stroke": ink, "stroke-width": "1.2", "stroke-dasharray": "8 5"}
    if kind == "range":
        return {"fill": "none", "stroke": ink, "stroke-width": "1", "stroke-dasharray": "2 3", "stroke-opacity": "0.7"}
    if kind == "line-of-fire":
        colour, dash = LINE_STYLES.get(shape.state, LINE_STYLES["clear"])
        out = {"stroke": colour, "stroke-width": "3.5", "stroke-linecap": "round", "fill": colour}
        if dash:
            out["stroke-dasharray"] = dash
        return out
    if kind == "centre-line":
        return {"stroke": INK, "stroke-width": "1", "stroke-dasharray": "1 3"}
    if kind == "blocker":
        return {"fill": "none", "stroke": "#000000", "stroke-width": "3.5"}
    if kind == "hindrance":
        return {"fill": "none", "stroke": LINE_STYLES["hindered"][0], "stroke-width": "3.5", "stroke-dasharray": "6 3"}
    if kind == "cover":
        return {"fill": "none", "stroke": "#3D3D3D", "stroke-width": "2.5", "stroke-dasharray": "1 3",
                "stroke-linecap": "round"}
    if kind == "touched":
        return {"fill": "none", "stroke": LINE_STYLES["touching"][0], "stroke-width": "2.5",
                "stroke-dasharray": "10 4"}
    if kind == "legal-target":
        return {"fill": "none", "stroke": LINE_STYLES["clear"][0], "stroke-width": "3"}
    if kind == "refused-target":
        return {"fill": "none", "stroke": "#777777", "stroke-width": "2.5", "stroke-dasharray": "3 3"}
    if kind == "attacker":
        return {"fill": "none", "stroke": INK, "stroke-width": "2.5", "stroke-dasharray": "10 3 2 3"}
    if kind == "nominee":
        return {"fill": "none", "stroke": "#CC79A7", "stroke-width": "3", "stroke-dasharray": "5 3"}
    if kind == "ghost":
        return {"fill": pale, "fill-opacity": "0.35", "stroke": ink, "stroke-width": "1.5", "stroke-dasharray": "4 3",
                "stroke-opacity": "0.85"}
    if kind == "ghost-front":
        return {"stroke": ink, "stroke-width": "3", "stroke-dasharray": "4 3", "stroke-opacity": "0.85"}
    if kind == "trail":
        return {"stroke": ink, "stroke-width": "2.5", "stroke-dasharray": "7 4", "stroke-linecap": "round", "fill": ink}
    return {"fill": "none", "stroke": INK, "stroke-width": "1"}


def _classes(shape: Shape, colours: _Colours) -> str:
    kind, _, sub = shape.kind.partition(":")
    words = [_token(kind)]
    if sub:
        words.append(_token(f"{kind}-{sub}"))
    if shape.state:
        words.append(_token(shape.state))
    if shape.side is not None and shape.side in colours.index:
        words.append(f"side-{colours.index[shape.side]}")
    return " ".join(words)


def _data(shape: Shape) -> str:
    out = ""
    if shape.id:
        out += f' data-id="{esc(shape.id)}"'
        if isinstance(shape, Group) and shape.kind == "unit":
            # a page finds the pieces a player may click by this (the root's data-unit is the table's unit)
            out += f' data-unit="{esc(shape.id)}"'
    if shape.side is not None:
        out += f' data-side="{esc(shape.side)}"'
    if shape.state:
        out += f' data-state="{esc(shape.state)}"'
    return out


def _attr_text(attrs: dict[str, str]) -> str:
    return "".join(f' {k}="{v}"' for k, v in attrs.items())


def _title(shape: Shape) -> str:
    return f"<title>{esc(shape.title)}</title>" if shape.title else ""


def _arrowhead(a: tuple[float, float], b: tuple[float, float], size: float) -> str:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    left = (b[0] - ux * size - uy * size * 0.55, b[1] - uy * size + ux * size * 0.55)
    right = (b[0] - ux * size + uy * size * 0.55, b[1] - uy * size - ux * size * 0.55)
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in (b, left, right))


def _shape_svg(shape: Shape, lay: Layout, colours: _Colours) -> Iterator[str]:
    if isinstance(shape, Label):
        return  # labels are drawn on top of everything, placed apart (see _place_labels)
    head = f'class="{_classes(shape, colours)}"{_data(shape)}'
    attrs = _attrs(shape, colours)
    if isinstance(shape, Group):
        yield f"<g {head}>{_title(shape)}"
        for item in shape.items:
            yield from _shape_svg(item, lay, colours)
        yield "</g>"
    elif isinstance(shape, Poly):
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in (lay.px(p) for p in shape.points))
        yield f'<polygon {head} points="{pts}"{_attr_text(attrs)}>{_title(shape)}</polygon>'
    elif isinstance(shape, Circle):
        cx, cy = lay.px(shape.centre)
        r = shape.radius * lay.scale
        if shape.kind == "notch":
            r = max(r, 2.5)
        yield (f'<circle {head} cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(r)}"{_attr_text(attrs)}>'
               f"{_title(shape)}</circle>")
    elif isinstance(shape, Segment):
        (x1, y1), (x2, y2) = lay.px(shape.start), lay.px(shape.end)
        fill = attrs.pop("fill", INK)
        line = f'x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"'
        if shape.kind in ("line-of-fire", "trail"):
            # a white casing under the line keeps it readable over any terrain or base
            width = 7 if shape.kind == "line-of-fire" else 6
            yield f'<line class="casing" {line} stroke="#FFFFFF" stroke-width="{width}" stroke-opacity="0.8"/>'
        yield f"<line {head} {line}{_attr_text(attrs)}>{_title(shape)}</line>"
        if shape.arrow:
            size = {"facing": 9.0, "trail": 11.0}.get(shape.kind, 12.0)
            yield (f'<polygon class="arrowhead {_token(shape.kind)}" points="{_arrowhead((x1, y1), (x2, y2), size)}"'
                   f' fill="{fill}"/>')


# -- labels ----------------------------------------------------------------------------------------
def _labels(items: tuple[Shape, ...], owner: str = "") -> Iterator[tuple[Label, str]]:
    for item in items:
        if isinstance(item, Label):
            yield item, item.id or owner
        elif isinstance(item, Group):
            yield from _labels(item.items, item.id)


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


#: Labels written in bold.
BOLD_LABELS = ("range-label", "name")
#: Pieces a badge row, a terrain name or a name is kept off (a card's name is written on it): stands, bases,
#: cards, and where a unit stood.
PIECES = ("stand", "base", "card", "ghost")
#: The labels kept off the pieces (a refused target's clause too: a unit standing along the table has its corner there).
AVOIDING = ("badges", "terrain-name", "clause")
#: A badge's padding either side of its word, and the gap between two badges, in pixels.
BADGE_PAD = 4.0
BADGE_GAP = 4.0


def _pixel_box(item: Poly | Circle, lay: Layout) -> tuple[float, float, float, float]:
    if isinstance(item, Poly):
        pts = [lay.px(p) for p in item.points]
    else:
        (cx, cy), r = item.centre, item.radius
        pts = [lay.px((cx - r, cy - r)), lay.px((cx + r, cy + r))]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def _piece_boxes(items: tuple[Shape, ...], lay: Layout) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The pixel boxes of the pieces on the table (stands, bases, cards, where a unit stood), for labels that must
    not cover them; a card's with its id (its own name and words are written on it), the others' with none."""
    out = []
    for item in items:
        if isinstance(item, Group):
            out += _piece_boxes(item.items, lay)
        elif item.kind in PIECES and isinstance(item, Poly | Circle):
            out.append((item.id if item.kind == "card" else "", _pixel_box(item, lay)))
    return out


def _terrain_over(items: tuple[Shape, ...], lay: Layout) -> dict[str, list[tuple[float, float, float, float]]]:
    """For each terrain piece, the pixel boxes of the pieces drawn over it (terrain, gunsmoke markers): its name
    is not put on another's."""
    pieces = [(item.id, _pixel_box(item, lay)) for item in items
              if item.kind.startswith("terrain:") or item.kind == "gunsmoke" if isinstance(item, Poly | Circle)]
    return {pid: [box for _, box in pieces[i + 1:]] for i, (pid, _) in enumerate(pieces)}


def _lines(items: tuple[Shape, ...], lay: Layout) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The lines of fire and the trails in pixels, which badges and terrain names are kept off."""
    out = []
    for item in items:
        if isinstance(item, Group):
            out += _lines(item.items, lay)
        elif isinstance(item, Segment) and item.kind in ("line-of-fire", "trail"):
            out.append((lay.px(item.start), lay.px(item.end)))
    return out


def label_width(label: Label, px: float) -> float:
    """A label's width in pixels: its text's, or a row of badges' with their padding and gaps."""
    if isinstance(label, Badges):
        return sum(text_width(t, px) + 2 * BADGE_PAD for _, t in label.marks) + BADGE_GAP * (len(label.marks) - 1)
    return text_width(label.text, px, bold=label.kind in BOLD_LABELS)


def _place_labels(scene: Scene, lay: Layout) -> list[tuple[Label, str, float, float, float]]:
    """Each label's place in pixels (the left end of its baseline, and its size). A label goes where the scene
    puts it, or at its alternative places in turn when the first runs off the table or onto a label placed
    before it (earlier labels keep their place; terrain names are placed last, after every piece's labels) or,
    for badges and terrain names, onto a piece; failing all, it is kept inside the table and moved up or down a
    line at a time until it is clear of the others. A piece's badges go first where its name went (the same
    place of theirs, moved as far), so that the two stay together."""
    placed: list[tuple[float, float, float, float]] = []
    pieces = _piece_boxes(scene.items, lay)
    over = _terrain_over(scene.items, lay)
    lines = _lines(scene.items, lay)
    names: dict[str, tuple[int, float]] = {}  # where each piece's name went: the place taken, and how far moved
    out = []
    labels = sorted(_labels(scene.items), key=lambda pair: pair[0].kind == "terrain-name")  # stable
    for label, owner in labels:
        px = TEXT_PX * label.size
        x, y = lay.px(label.at)
        width = label_width(label, px)
        if label.angle:
            out.append((label, owner, x, y, px))  # turned text stays where it is put
            continue
        places = ([(label.at, label.anchor)] + ([label.alternative] if label.alternative else [])
                  + list(label.further))
        # badges and terrain names are kept off every piece, a name off every one but its own card
        avoid = placed + [box for pid, box in pieces if label.kind in AVOIDING
                          or (label.kind == "name" and pid != owner)]
        if label.kind == "terrain-name":
            avoid += over.get(owner, [])
        trials = []
        for at, anchor in places:
            ax, ay = lay.px(at)
            ay += label.lines * TEXT_PX
            left = ax - {"start": 0.0, "middle": width / 2, "end": width}.get(anchor, width / 2)
            trials.append((left, ay))
        order = list(range(len(trials)))
        moved = 0.0
        if isinstance(label, Badges) and owner in names and names[owner][0] < len(trials):
            k, moved = names[owner]
            order.remove(k)
            order.insert(0, k)

        crossing = lines if label.kind in AVOIDING else []
        chosen = next(((k, trials[k][0], trials[k][1] + (moved if n == 0 else 0.0)) for n, k in enumerate(order)
                       if _free(lay, _box(trials[k][0], trials[k][1] + (moved if n == 0 else 0.0), width, px),
                                avoid, crossing)), None)
        if chosen is None:
            # kept inside the table (a label pushed off a line near the edge is moved back in, not cut) and moved
            # up or down, the least it takes at any of its places, the first place first
            step = px * 1.25
            kept = [(k, min(max(trials[k][0], lay.left + 3), lay.left + lay.width - width - 3),
                     min(max(trials[k][1] + (moved if n == 0 else 0.0), lay.top + px), lay.top + lay.height - px * 0.4))
                    for n, k in enumerate(order)]
            shifts = (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5)
            chosen = next(((k, left, ay + n * step) for n in shifts for k, left, ay in kept
                           if _free(None, _box(left, ay + n * step, width, px), avoid, crossing)), kept[0])
        k, left, ay = chosen
        if label.kind == "name" and owner:
            names[owner] = (k, ay - trials[k][1])
        placed.append(_box(left, ay, width, px))
        out.append((label, owner, left, ay, px))
    return out


def _free(lay: Layout | None, box: tuple[float, float, float, float], avoid: list[tuple[float, float, float, float]],
          crossing: list[tuple[tuple[float, float], tuple[float, float]]]) -> bool:
    """Whether a label's box is inside the table (where ``lay`` is given) and clear of the boxes and lines to
    avoid."""
    if lay is not None and not (lay.left + 1 <= box[0] and box[2] <= lay.left + lay.width - 1
                                and lay.top <= box[1] and box[3] <= lay.top + lay.height):
        return False
    return not any(_overlaps(box, o) for o in avoid) and not any(crosses(line, box) for line in crossing)


def _box(left: float, baseline: float, width: float, px: float) -> tuple[float, float, float, float]:
    return (left - 2, baseline - px * 0.85, left + width + 2, baseline + px * 0.3)


def _badge_svg(mark: str, word: str, left: float, y: float, px: float, ink: str) -> tuple[str, float]:
    """One badge: its word in a white box outlined in ``ink``; the markup and the badge's width."""
    width = text_width(word, px) + 2 * BADGE_PAD
    return (f'<g class="badge badge-{_token(mark)}" data-mark="{esc(mark)}">'
            f'<rect x="{_f(left)}" y="{_f(y - px * 0.95)}" width="{_f(width)}" height="{_f(px * 1.3)}" rx="3"'
            f' fill="#FFFFFF" stroke="{ink}" stroke-width="1.2"/>'
            f'<text x="{_f(left + BADGE_PAD)}" y="{_f(y)}" font-size="{_f(px)}" fill="{INK}"'
            f' textLength="{_f(width - 2 * BADGE_PAD)}" lengthAdjust="spacingAndGlyphs">{esc(word)}</text>'
            "</g>"), width


def _label_svg(label: Label, owner: str, x: float, y: float, px: float, colours: _Colours) -> str:
    ink = colours.side(label.side)[0] if label.side is not None else INK
    data = f' data-for="{esc(owner)}"' if owner else ""
    if isinstance(label, Badges):
        parts = []
        for mark, word in label.marks:
            svg, width = _badge_svg(mark, word, x, y, px, ink)
            parts.append(svg)
            x += width + BADGE_GAP
        return f'<g class="label badges"{data}>{_title(label)}{"".join(parts)}</g>'
    if label.kind in ("range-label", "clause"):
        ink = INK
    if label.kind == "terrain-name":
        ink = "#3D3D3D"
    width = label_width(label, px)
    anchor = label.anchor if label.angle else "start"  # placed labels come with their left end
    left = x - {"start": 0.0, "middle": width / 2, "end": width}.get(anchor, width / 2)
    turn = f' transform="rotate({_f(-label.angle)} {_f(x)} {_f(y)})"' if label.angle else ""
    weight = (' font-weight="bold"' if label.kind in BOLD_LABELS else
              ' font-style="italic"' if label.kind == "terrain-name" else "")
    return (f'<g class="label {_token(label.kind.replace(":", "-"))}"{data}{turn}>{_title(label)}'
            f'<rect x="{_f(left - 2)}" y="{_f(y - px * 0.9)}" width="{_f(width + 4)}" height="{_f(px * 1.2)}"'
            f' rx="2" fill="#FFFFFF" fill-opacity="0.78"/>'
            f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" font-size="{_f(px)}"{weight}'
            f' fill="{ink}">{esc(label.text)}</text></g>')


# -- scale bar and legend --------------------------------------------------------------------------
def scale_length(scene: Scene, lay: Layout) -> int:
    """The scale bar's length in table units: a round number near a fifth of the table's width."""
    span = lay.width / lay.scale
    best = 1
    for n in (1, 2, 3, 5, 10, 20, 50, 100):
        if n <= max(1.0, span / 5):
            best = n
    return best


def _unit_name(n: int, unit: str) -> str:
    if unit == "steps":
        return f"{n} step" if n == 1 else f"{n} steps"
    return f"{n} {unit}"


def _scale_bar(scene: Scene, lay: Layout, y: float) -> list[str]:
    n = scale_length(scene, lay)
    x0, x1 = lay.left, lay.left + n * lay.scale
    out = [f'<g class="scale-bar" data-length="{n}" data-unit="{esc(scene.unit)}">',
           f'<line class="scale-line" x1="{_f(x0)}" y1="{_f(y)}" x2="{_f(x1)}" y2="{_f(y)}" stroke="{INK}"'
           ' stroke-width="3"/>']
    for k in range(n + 1):
        tick = 8 if k in (0, n) else 4
        xk = x0 + k * lay.scale
        out.append(f'<line x1="{_f(xk)}" y1="{_f(y - tick)}" x2="{_f(xk)}" y2="{_f(y)}" stroke="{INK}"'
                   ' stroke-width="1.5"/>')
    out.append(f'<text x="{_f(x1 + 8)}" y="{_f(y + 4)}" font-size="{_f(TEXT_PX)}" fill="{INK}">'
               f"{esc(_unit_name(n, scene.unit))}</text></g>")
    return out


def _sample_width(entry: LegendEntry) -> float:
    """The width of an entry's sample in pixels: 34, or a badge's own."""
    if entry.sample == "badge":
        return max(34.0, text_width(entry.label, TEXT_PX * BADGE_SIZE) + 2 * BADGE_PAD)
    return 34.0


def _sample(entry: LegendEntry, x: float, y: float, colours: _Colours) -> str:
    shape = Shape(entry.kind, side=entry.side, state=entry.state)
    attrs = _attrs(shape, colours)
    if entry.sample == "badge":
        return _badge_svg(entry.state, entry.label, x, y + 4, TEXT_PX * BADGE_SIZE, INK)[0]
    if entry.sample == "line":
        attrs.pop("fill", None)
        casing = (f'<line x1="{_f(x)}" y1="{_f(y)}" x2="{_f(x + 34)}" y2="{_f(y)}" stroke="#FFFFFF"'
                  ' stroke-width="7"/>') if entry.kind == "line-of-fire" else ""
        return casing + f'<line x1="{_f(x)}" y1="{_f(y)}" x2="{_f(x + 34)}" y2="{_f(y)}"{_attr_text(attrs)}/>'
    if entry.sample == "circle":
        return f'<circle cx="{_f(x + 17)}" cy="{_f(y)}" r="8"{_attr_text(attrs)}/>'
    return f'<rect x="{_f(x)}" y="{_f(y - 8)}" width="34" height="16"{_attr_text(attrs)}/>'


def _legend(scene: Scene, colours: _Colours, top: float, width: float) -> tuple[list[str], float]:
    entries = list(scene.legend)
    if not entries:
        return [], 0.0
    row = TEXT_PX * 1.7
    col_width = max(_sample_width(e) + text_width(e.text, TEXT_PX) for e in entries) + 22
    cols = max(1, min(3, int((width - 2 * MARGIN) // col_width)))
    rows = math.ceil(len(entries) / cols)
    out = [f'<g class="legend"><text x="{_f(MARGIN)}" y="{_f(top + TEXT_PX)}" font-size="{_f(TEXT_PX)}"'
           f' font-weight="bold" fill="{INK}">Legend</text>']
    for i, entry in enumerate(entries):
        c, r = divmod(i, rows)
        x = MARGIN + c * col_width
        y = top + TEXT_PX * 2.4 + r * row
        state = f' data-state="{esc(entry.state)}"' if entry.state else ""
        out.append(f'<g class="legend-entry {_token(entry.kind.replace(":", "-"))}"{state}>'
                   + _sample(entry, x, y, colours)
                   + f'<text x="{_f(x + _sample_width(entry) + 10)}" y="{_f(y + 5)}" font-size="{_f(TEXT_PX)}"'
                   f' fill="{INK}">'
                   f"{esc(entry.text)}</text></g>")
    out.append("</g>")
    return out, TEXT_PX * 2.4 + rows * row


# -- the picture -----------------------------------------------------------------------------------
def render_svg(scene: Scene, scale: float | None = None) -> str:
    """The scene as a standalone SVG document (text)."""
    lay = layout(scene, scale)
    colours = _Colours(scene.sides)
    width = max(lay.width + 2 * MARGIN, MIN_WIDTH, text_width(scene.title, TITLE_PX, bold=True) + 2 * MARGIN,
                *(text_width(n, TEXT_PX * 0.93) + 2 * MARGIN for n in scene.notes))
    body: list[str] = []
    table_bottom = lay.top + lay.height
    has_table = bool(scene.unit)
    body.append(f'<rect class="table-area" x="{_f(lay.left)}" y="{_f(lay.top)}" width="{_f(lay.width)}"'
                f' height="{_f(lay.height)}" fill="{"#FBFAF5" if has_table else "#FFFFFF"}" stroke="#CCCCCC"/>')
    # shapes reaching past the part of the table shown (an arc of fire out to its full range) are cut there
    body.append(f'<clipPath id="table-clip"><rect x="{_f(lay.left)}" y="{_f(lay.top)}" width="{_f(lay.width)}"'
                f' height="{_f(lay.height)}"/></clipPath>')
    body.append('<g class="table" clip-path="url(#table-clip)">')
    for item in scene.items:
        body.extend(_shape_svg(item, lay, colours))
    body.append("</g>")
    body.append('<g class="labels">')
    for label, owner, x, y, px in _place_labels(scene, lay):
        body.append(_label_svg(label, owner, x, y, px, colours))
    body.append("</g>")
    y = table_bottom + 28
    if has_table:
        body.extend(_scale_bar(scene, lay, y))
        y += 24
    legend, legend_height = _legend(scene, colours, y, width)
    body.extend(legend)
    y += legend_height + 8
    if scene.notes:
        body.append('<g class="notes">')
        for note in scene.notes:
            y += TEXT_PX * 1.35
            body.append(f'<text x="{_f(MARGIN)}" y="{_f(y)}" font-size="{_f(TEXT_PX * 0.93)}" fill="{INK}">'
                        f"{esc(note)}</text>")
        body.append("</g>")
    height = y + MARGIN
    ox, oy = lay.origin
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}" height="{_f(height)}"'
            f' viewBox="0 0 {_f(width)} {_f(height)}" font-family="{FONT}" data-unit="{esc(scene.unit)}"'
            f' data-scale="{_f(lay.scale)}" data-origin-x="{_f(ox)}" data-origin-y="{_f(oy)}">')
    title = (f'<title>{esc(scene.title)}</title><rect class="background" width="100%" height="100%"'
             f' fill="#FFFFFF"/><text class="title" x="{_f(MARGIN)}" y="{_f(MARGIN + TITLE_PX)}"'
             f' font-size="{_f(TITLE_PX)}" font-weight="bold" fill="{INK}">{esc(scene.title)}</text>')
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', head, title, *body, "</svg>", ""])


__all__ = ["SCALES", "Layout", "esc", "layout", "render_svg", "scale_length", "shown"]
