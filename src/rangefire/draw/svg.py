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
- Colours: the Okabe-Ito palette, told apart by people with any common colour blindness; a line of fire's
  state is shown by its colour *and* its dash pattern.
- Text from the scenario is escaped, and control and format characters are written out (``\\x1b``), never
  put in the file (XML forbids most of them even escaped).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from rangefire.core.scene import XY, Circle, Group, Label, LegendEntry, Poly, Scene, Segment, Shape
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


def text_width(text: str, px: float) -> float:
    """An estimate of a line's width in pixels (a sans-serif averages a little over half its size)."""
    return len(shown(text)) * px * 0.57


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
    """The table's place in the picture for this scene, at the game's fixed scale unless one is given."""
    s = scale if scale is not None else scene.scale if scene.scale is not None else SCALES.get(scene.unit, SCALES["in"])
    x0, y0, x1, y1 = scene.bounds
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
        if shape.kind == "line-of-fire":
            # a white casing under the line keeps it readable over any terrain or base
            yield f'<line class="casing" {line} stroke="#FFFFFF" stroke-width="7" stroke-opacity="0.8"/>'
        yield f"<line {head} {line}{_attr_text(attrs)}>{_title(shape)}</line>"
        if shape.arrow:
            size = 9.0 if shape.kind == "facing" else 12.0
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


def _place_labels(scene: Scene, lay: Layout) -> list[tuple[Label, str, float, float, float]]:
    """Each label's place in pixels (the left end of its baseline, and its size). A label goes where the scene
    puts it, or at its alternative place when the first runs off the table or onto a label placed before it
    (earlier labels keep their place); failing both, it is kept inside the table and moved up or down a line
    at a time until it is clear of the others."""
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for label, owner in _labels(scene.items):
        px = TEXT_PX * label.size
        x, y = lay.px(label.at)
        width = text_width(label.text, px)
        if label.angle:
            out.append((label, owner, x, y, px))  # turned text stays where it is put
            continue
        places = [(label.at, label.anchor)] + ([label.alternative] if label.alternative else [])
        trials = []
        for at, anchor in places:
            ax, ay = lay.px(at)
            left = ax - {"start": 0.0, "middle": width / 2, "end": width}.get(anchor, width / 2)
            inside = lay.left + 3 <= left and left + width <= lay.left + lay.width - 3
            trials.append((left, ay, inside))
        chosen = next(((left, ay) for left, ay, inside in trials
                       if inside and not any(_overlaps(_box(left, ay, width, px), o) for o in placed)), None)
        if chosen is None:
            left, ay, _ = trials[0]
            # kept inside the table: a label pushed off a line near the edge is moved back in, not cut
            left = min(max(left, lay.left + 3), lay.left + lay.width - width - 3)
            ay = min(max(ay, lay.top + px), lay.top + lay.height - px * 0.4)
            step = px * 1.25
            for k in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5):
                if not any(_overlaps(_box(left, ay + k * step, width, px), o) for o in placed):
                    ay += k * step
                    break
            chosen = (left, ay)
        placed.append(_box(chosen[0], chosen[1], width, px))
        out.append((label, owner, chosen[0], chosen[1], px))
    return out


def _box(left: float, baseline: float, width: float, px: float) -> tuple[float, float, float, float]:
    return (left - 2, baseline - px * 0.85, left + width + 2, baseline + px * 0.3)


def _label_svg(label: Label, owner: str, x: float, y: float, px: float, colours: _Colours) -> str:
    ink = colours.side(label.side)[0] if label.side is not None else INK
    if label.kind in ("range-label", "clause"):
        ink = INK
    width = text_width(label.text, px)
    anchor = label.anchor if label.angle else "start"  # placed labels come with their left end
    left = x - {"start": 0.0, "middle": width / 2, "end": width}.get(anchor, width / 2)
    turn = f' transform="rotate({_f(-label.angle)} {_f(x)} {_f(y)})"' if label.angle else ""
    weight = ' font-weight="bold"' if label.kind in ("range-label", "name") else ""
    data = f' data-for="{esc(owner)}"' if owner else ""
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


def _sample(entry: LegendEntry, x: float, y: float, colours: _Colours) -> str:
    shape = Shape(entry.kind, side=entry.side, state=entry.state)
    attrs = _attrs(shape, colours)
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
    col_width = max(text_width(e.text, TEXT_PX) for e in entries) + 56
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
                   + f'<text x="{_f(x + 44)}" y="{_f(y + 5)}" font-size="{_f(TEXT_PX)}" fill="{INK}">'
                   f"{esc(entry.text)}</text></g>")
    out.append("</g>")
    return out, TEXT_PX * 2.4 + rows * row


# -- the picture -----------------------------------------------------------------------------------
def render_svg(scene: Scene, scale: float | None = None) -> str:
    """The scene as a standalone SVG document (text)."""
    lay = layout(scene, scale)
    colours = _Colours(scene.sides)
    width = max(lay.width + 2 * MARGIN, MIN_WIDTH, text_width(scene.title, TITLE_PX) * 1.05 + 2 * MARGIN,
                *(text_width(n, TEXT_PX * 0.93) + 2 * MARGIN for n in scene.notes))  # bold runs a little wider
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
