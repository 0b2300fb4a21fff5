"""Arcane Legions drawn, in steps: bases with their coloured sides, notches and facing, the figures left as a
badge by the name, terrain by kind with its name, the attacker's reach (the battle's range, 6 steps in the rules),
targets marked legal or refused, and the line of sight between the chosen notches with what hinders, touches or
blocks it [AL-1.1 to AL-1.5, AL-3.1, AL-3.3, AL-4.1 to AL-4.4, AL-7.2]; each unit's move this turn, from where it stood
and faced at the start of its side's turn to where it stands, base centre to base centre [AL-10.1, AL-10.2], its
name and badges kept off that trail.

Everything is read from the engine's own geometry (``table``); nothing here decides a rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction

from rangefire.core import NO_CHOICES, Check
from rangefire.core.numbers import dump_exact
from rangefire.core.scene import (
    BADGE_SIZE,
    XY,
    Circle,
    Group,
    Label,
    LegendEntry,
    Poly,
    Scene,
    Segment,
    Shape,
    badge_legend,
    badges,
    beside,
    bounds_of,
    clear_first,
    entering,
    grown,
    mark_legend,
    outside,
    points_of,
    refusal_notes,
    ring,
    side_anchor,
    terrain_name,
    text_box,
    xy,
)
from rangefire.geometry import Point
from rangefire.geometry import Segment as ExactSegment
from rangefire.rulesets.arcane_legions.orders import RULES, OrderPlan, noted
from rangefire.rulesets.arcane_legions.orders import steps as steps_text
from rangefire.rulesets.arcane_legions.scenario import SIDE_NAMES, Battle, Options, Unit
from rangefire.rulesets.arcane_legions.table import base_of, sight

#: Terrain drawn hindering first, so that a blocking piece lying on it is seen.
DRAW_ORDER = {"hindering": 0, "blocking": 1}
TERRAIN_TEXT = {"blocking": "blocking terrain: blocks line of sight [AL-4.2]",
                "hindering": "hindering terrain: -1 die for each crossed [AL-4.3]"}
EDGE_TEXT = {"blue": "blue side (ranged)", "red": "red side (attack)", "grey": "grey side (-3 dice)"}
#: How far inside the base edge its coloured side is drawn, so that the base's own outline stays seen.
EDGE_INSET = Fraction(1, 16)


def _describe(unit: Unit) -> str:
    sides = ", ".join(f"{name} {getattr(unit.sides, name)}" for name in SIDE_NAMES)
    return (f"{unit.id} ({unit.side}): {unit.base} base, {unit.figures} figures; ready blue {unit.ready('blue')}, "
            f"red {unit.ready('red')}, white {unit.ready('white')}; sides {sides}; facing {float(unit.facing):g}°")


def _unit_group(unit: Unit, trail: Segment | None = None,
                obstacles: Sequence[tuple[float, float, float, float]] = (),
                terrain: Sequence[tuple[float, float, float, float]] = ()) -> Group:
    base = base_of(unit)
    centre = Point(*unit.position)
    items: list[Shape] = [Poly("base", unit.id, unit.side, points=ring(base.polygon.vertices))]
    for name in SIDE_NAMES:
        side = base.sides[name]
        colour = getattr(unit.sides, name)
        a, b = side.segment
        # pulled a little towards the centre so the coloured side lies just inside the base's outline
        a2, b2 = (p + (centre - p).scale(EDGE_INSET) for p in (a, b))
        items.append(Segment(f"edge:{colour}", unit.id, unit.side, title=f"{unit.id}'s {name} side: {colour} "
                             "[AL-1.2]", start=xy(a2), end=xy(b2)))
    for name in SIDE_NAMES:
        for notch in base.sides[name].notches:
            items.append(Circle("notch", unit.id, unit.side, centre=xy(notch), radius=0.035))
    front = base.sides["front"].notches[len(base.sides["front"].notches) // 2]
    nose = front + (front - centre).scale(Fraction(7, 10))
    items.append(Segment("facing", unit.id, unit.side, start=xy(centre), end=xy(nose), arrow=True))
    back = base.sides["back"].notches[len(base.sides["back"].notches) // 2]
    label_at = back + (back - centre).scale(Fraction(4, 5))
    away = back - centre
    at = xy(label_at)
    box = base.polygon.box
    if side_anchor(float(away.x), float(away.y)) != "middle":
        # facing along the table: the name above the base, where a long name has room
        at = (float(box.x0 + box.x1) / 2, float(box.y1) + 0.3)
    # figures left (and a push) in a row beside the name, away from the base
    lines = -1.3 if at[1] > float(unit.position[1]) else 1.15
    marks = _marks_of(unit)
    names: list[tuple[XY, str, float]] = [(at, "middle", lines)]
    if trail is not None:
        # a unit that moved this turn: its name and badges where its trail does not run through them: behind the
        # base, or beside it on any side but its front (the facing arrow), the badges over a name above it
        nose = front - centre
        cx, cy = float(unit.position[0]), float(unit.position[1])
        beside = {"right": ((float(box.x1) + 0.12, cy + 0.05), "start", 1.15),
                  "left": ((float(box.x0) - 0.12, cy + 0.05), "end", 1.15),
                  "above": ((cx, float(box.y1) + 0.3), "middle", -1.3),
                  "below": ((cx, float(box.y0) - 0.35), "middle", 1.15)}
        along = abs(nose.x) > abs(nose.y)
        ahead = ("right" if nose.x > 0 else "left") if along else ("above" if nose.y > 0 else "below")
        behind = "above" if along else ("below" if nose.y > 0 else "above")  # where ``at`` is already
        names += [place for where, place in beside.items() if where not in (ahead, behind)]
    # each place's row of badges, at the point that puts it ``lines`` lines from the name as the place asks
    line = LINE / SCALE
    rows = [((x, y - (want - lines) * line), anchor) for (x, y), anchor, want in names]
    order = clear_first(None if trail is None else (trail.start, trail.end),
                        [_boxes(unit.id, marks, (point, anchor), row, lines)
                         for (point, anchor, _), row in zip(names, rows, strict=True)], obstacles, terrain)
    places, rows = [names[k][:2] for k in order], [rows[k] for k in order]
    items.append(Label("name", unit.id, unit.side, title=_describe(unit), at=places[0][0], text=unit.id,
                       anchor=places[0][1], alternative=places[1] if len(places) > 1 else None,
                       further=tuple(places[2:])))
    items += [replace(row, alternative=rows[1] if len(rows) > 1 else None, further=tuple(rows[2:]))
              for row in badges(unit.id, unit.side, marks, _describe(unit), rows[0][0], lines, rows[0][1])]
    return Group("unit", unit.id, unit.side, title=_describe(unit), items=tuple(items))


#: The renderer's pixels per step (a sortie base's side): the scene is drawn at this scale.
SCALE = 80.0
#: Steps of table shown round the pieces.
MARGIN = 0.8
#: A line of text at the renderer's normal size, and about how wide a character is, in pixels: of a name (bold)
#: and of a badge's word (a little wide), to keep them off a move's trail.
LINE, NAME_CHAR, BADGE_CHAR = 14.0, 10.0, 7.5
#: A badge's padding and the gap after it, in pixels.
BADGE_EXTRA = 12.0


def _boxes(uid: str, marks: Sequence[tuple[str, str]], name: tuple[XY, str], row: tuple[XY, str],
           lines: float) -> list[tuple[float, float, float, float]]:
    """About the boxes a unit's name and its row of badges (``lines`` lines under its point, over it where
    negative) take at one of their places, in steps."""
    line, small = LINE / SCALE, LINE * BADGE_SIZE / SCALE
    name_box = text_box(name[0], name[1], len(uid) * NAME_CHAR / SCALE, 0.3 * line, 0.85 * line)
    wide = sum(len(text) * BADGE_CHAR + BADGE_EXTRA for _, text in marks) / SCALE
    (x, y), anchor = row
    return [name_box, text_box((x, y - lines * line), anchor, wide, 0.35 * small, 0.95 * small)]


def _moved(unit: Unit) -> tuple[Group | None, Segment | None]:
    """Where a unit stood at the start of its side's turn, outlined with its front side, and its move since, from
    its base centre there to its base's edge here, as the distance moved is measured [AL-10.1, AL-10.2]: none
    where the battle records no start, or the unit stands and faces as it began."""
    start = unit.start_position if unit.start_position is not None else unit.position
    facing = unit.start_facing if unit.start_facing is not None else unit.facing
    if start == unit.position and facing == unit.facing:
        return None, None
    then = base_of(unit.model_copy(update={"position": start, "facing": facing}))
    began = f"{_point(start)} facing {dump_exact(facing)}°"
    now = f"{_point(unit.position)} facing {dump_exact(unit.facing)}°"
    title = f"{unit.id} began its turn at {began} [AL-10.1]"
    a, b = then.sides["front"].segment
    ghost = Group("ghost", unit.id, unit.side, title=title, items=(
        Poly("ghost", unit.id, unit.side, title=title, points=ring(then.polygon.vertices)),
        Segment("ghost-front", unit.id, unit.side, title=title, start=xy(a), end=xy(b))))
    if start == unit.position:  # it only turned
        return ghost, None
    was, here = xy(start), xy(unit.position)
    base = base_of(unit)
    end = entering(was, here, ring(base.polygon.vertices))
    # a trail coming at the unit's front stops short of its facing arrow, not on it
    front = xy(base.sides["front"].notches[len(base.sides["front"].notches) // 2])
    fx, fy = front[0] - here[0], front[1] - here[1]
    size = math.hypot(fx, fy)
    ux, uy = fx / size, fy / size
    tip = (front[0] + fx * 0.7 + ux * 0.15, front[1] + fy * 0.7 + uy * 0.15)  # the arrow's reach, and a little more
    w = 0.12  # either side of it: more than the two arrowheads take
    arrow = ((front[0] + uy * w, front[1] - ux * w), (tip[0] + uy * w, tip[1] - ux * w),
             (tip[0] - uy * w, tip[1] + ux * w), (front[0] - uy * w, front[1] + ux * w))
    short = entering(was, here, arrow)
    if short != here and math.dist(was, short) < math.dist(was, end):
        end = short
    if math.dist(was, end) < 0.15:  # it began (almost) where it stands: the trail runs to its centre
        end = here
    steps = math.dist(was, here)
    trail = Segment("trail", unit.id, unit.side, title=f"{unit.id} moved this turn from {began} to {now}: "
                    f"{steps:.2f} steps between base centres [AL-10.1, AL-10.2]", start=was, end=end, arrow=True)
    return ghost, trail


def _point(p: Sequence[Fraction]) -> str:
    return f"({dump_exact(p[0])}, {dump_exact(p[1])})"


def _box(points: Sequence[XY], margin: float = 0.08) -> tuple[float, float, float, float]:
    """The box round a piece, ``margin`` steps wider each way: a row of words is kept off its edge."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def _marks_of(unit: Unit) -> list[tuple[str, str]]:
    """A unit's badges: its figures left of its slots [AL-1.5, AL-7.2], and a push this turn [AL-5.2]."""
    marks = [("figures", f"{unit.figures}/{len(unit.slots)} figures")]
    if unit.pushed:
        marks.append(("pushed", "pushed"))
    return marks


BADGE_TEXTS = {
    "figures": ("figures", "figures left of its slots: an empty slot's icons are not ready [AL-1.5, AL-7.2]"),
    "pushed": ("pushed", "pushed this turn for a second ranged order [AL-5.2]"),
}


def _reach(unit: Unit, range_steps: Fraction) -> Poly:
    """The base grown by the range, 6 steps in the rules (its outline swept round by a circle of that radius):
    where a notch within range of one of its notches can lie [AL-3.1] (the notches sit on the base's outline)."""
    corners = ring(base_of(unit).polygon.vertices)  # anticlockwise
    r = float(range_steps)
    n = len(corners)
    pts: list[XY] = []
    for i, (x, y) in enumerate(corners):
        (px, py), (qx, qy) = corners[i - 1], corners[(i + 1) % n]
        a0 = math.atan2(-(x - px), y - py)  # outward normal of the edge arriving here
        a1 = math.atan2(-(qx - x), qy - y)  # and of the edge leaving
        if a1 < a0:
            a1 += 2 * math.pi
        steps = max(1, round((a1 - a0) / math.radians(10)))
        pts += [(x + r * math.cos(a0 + (a1 - a0) * k / steps), y + r * math.sin(a0 + (a1 - a0) * k / steps))
                for k in range(steps + 1)]
    return Poly("range", unit.id, unit.side, title=f"{_range_text(range_steps)} from {unit.id}'s base: the reach "
                                                   "of its notches [AL-3.1]", points=tuple(pts))


def _terrain_text(kind: str, options: Options) -> str:
    """What a kind of terrain does, with the battle's hindrance penalty beside the rules' where they differ
    [AL-4.2, AL-4.3, AL-5.3]."""
    each, rules = options.hindrance_penalty, RULES.hindrance_penalty
    if kind != "hindering" or each == rules:
        return TERRAIN_TEXT[kind]
    return (f"hindering terrain: {-each:+d} {'die' if each == 1 else 'dice'} for each crossed"
            f"{noted(-each, -rules, '{:+d}')} [AL-4.3]")


def _edge_text(colour: str, options: Options) -> str:
    """What a side of a colour does; where a house rule changes that colour's penalties, the dice it costs
    shooting, in close combat and attacked, each beside the rules' [AL-5.3, AL-8.1, AL-5.4]."""
    roles = (("shooting", "ranged"), ("in close combat", "close"), ("attacked", "defense"))
    dice = [(word, getattr(getattr(options.side_penalty, role), colour),
             getattr(getattr(RULES.side_penalty, role), colour)) for word, role in roles]
    if all(value == rules for _, value, rules in dice):
        return EDGE_TEXT[colour]
    parts = [f"{-value:+d} {word}{noted(-value, -rules, '{:+d}')}" for word, value, rules in dice]
    return f"{colour} side (dice: {', '.join(parts)})"


def _range_text(range_steps: Fraction) -> str:
    """``6 steps``; a range a house rule sets says so beside the rules' 6 [AL-3.1]."""
    return f"{steps_text(range_steps)} steps{noted(range_steps, RULES.range_steps, steps_text)}"


def _outline(battle: Battle, pid: str) -> tuple[XY, ...] | None:
    for unit in battle.units:
        if unit.id == pid:
            return ring(base_of(unit).polygon.vertices)
    for piece in battle.terrain:
        if piece.id == pid:
            return ring(piece.polygon.vertices)
    return None


def _pieces(battle: Battle, kind: str, ids: Sequence[str], why: str) -> list[Shape]:
    out: list[Shape] = []
    for pid in ids:
        ring = _outline(battle, pid)
        if ring is not None:
            out.append(Poly(kind, pid, title=f"{pid} {why}", points=ring))
    return out


def _refused_line(battle: Battle, check: Check, choices: Mapping[str, object]) -> list[Shape]:
    """A refused target's line, between the sides the player chose where they chose them [AL-3.1]: where every
    line in range is blocked [AL-4.2], the shortest of them with its blockers; otherwise the shortest
    notch-to-notch line, drawn as refused."""
    assert check.target is not None
    firer, target = battle.unit(check.attacker), battle.unit(check.target)
    if firer.id == target.id:
        return []
    bs, bt = base_of(firer), base_of(target)
    froms = [s for s in SIDE_NAMES if choices.get("from_side") in (None, s)]
    tos = [s for s in SIDE_NAMES if choices.get("to_side") in (None, s)]
    pairs = [(na, nt, sa, st) for sa in froms for st in tos
             for na in bs.sides[sa].notches for nt in bt.sides[st].notches]
    why = "; ".join(str(r) for r in check.refusals)
    if any(r.clause == "AL-4.2" for r in check.refusals):
        range2 = battle.options.range_steps ** 2
        facing = [p for p in pairs if (p[0] - p[1]).norm2() <= range2 and bs.sides[p[2]].faces(p[1])
                  and bt.sides[p[3]].faces(p[0])]
        if facing:
            na, nt, _, _ = min(facing, key=lambda p: (p[0] - p[1]).norm2())
            others = [u for u in battle.units if u.id not in (firer.id, target.id)]
            # every piece that blocks one of the lines in range, as the refusal names them, not only the
            # shortest line's
            segments = dict.fromkeys((a, b) for a, b, _, _ in facing)
            blockers = dict.fromkeys(pid for a, b in segments for pid in sight(
                ExactSegment(a, b), others, battle.terrain, battle.options.touching_hinders).blocked_by)
            start, end = xy(na), xy(nt)
            return [*_pieces(battle, "blocker", list(blockers), "blocks a line of sight [AL-4.2]"),
                    Segment("line-of-fire", f"{firer.id}->{target.id}", state="blocked", title=why, start=start,
                            end=end, arrow=True),
                    beside(start, end, f"{math.sqrt((na - nt).norm2()):.2f} steps: blocked", why, 0.35)]
    na, nt, _, _ = min(pairs, key=lambda p: (p[0] - p[1]).norm2())
    start, end = xy(na), xy(nt)
    return [Segment("line-of-fire", f"{firer.id}->{target.id}", state="refused", title=why, start=start, end=end,
                    arrow=True),
            beside(start, end, f"{math.sqrt((na - nt).norm2()):.2f} steps: refused", why, 0.35)]


def _line(battle: Battle, check: Check, choices: Mapping[str, object]) -> list[Shape]:
    """The line of sight between the notches the order uses [AL-4.1], as the plan judged it."""
    plan = check.plan
    if not isinstance(plan, OrderPlan):
        return _refused_line(battle, check, choices) if check.target is not None else []
    if plan.from_notch is None or plan.to_notch is None or plan.sight == "adjacent":
        return []
    start, end = xy(plan.from_notch), xy(plan.to_notch)
    steps = math.sqrt(plan.distance2)
    why = [f"line of sight from {plan.attacker}'s {plan.from_side} side to {plan.target}'s {plan.to_side} side: "
           f"{steps:.2f} steps, {plan.sight} [AL-3.1, AL-4.1]"]
    if plan.hindered_by:
        why.append(f"hindered by {', '.join(plan.hindered_by)} [AL-4.3]")
    if plan.touching:
        why.append(f"touching {', '.join(plan.touching)} [AL-4.4]")
    why.append(f"{plan.attack_dice} attack dice against {plan.defense_dice} defense dice")
    title = "; ".join(why)
    return [*_pieces(battle, "hindrance", plan.hindered_by, "hinders the line of sight: -1 die [AL-4.3]"),
            *_pieces(battle, "touched", [t for t in plan.touching if t not in plan.hindered_by],
                     "is only touched: neither blocks nor hinders [AL-4.4]"),
            Segment("line-of-fire", f"{plan.attacker}->{plan.target}", state=plan.sight, title=title, start=start,
                    end=end, arrow=True),
            beside(start, end, f"{steps:.2f} steps, {plan.sight}", title, 0.35)]


def _marks(battle: Battle, attacker: str, checks: Sequence[Check]) -> list[Shape]:
    firer = battle.unit(attacker)
    out: list[Shape] = [Poly("attacker", attacker, firer.side, title=f"{attacker} is given the order",
                             points=grown(ring(base_of(firer).polygon.vertices), 0.14))]
    for check in checks:
        if check.target is None:
            continue
        unit = battle.unit(check.target)
        halo = grown(ring(base_of(unit).polygon.vertices), 0.14)
        if check.is_legal:
            out.append(Poly("legal-target", unit.id, unit.side, state="legal",
                            title=f"{attacker} may shoot at {unit.id}", points=halo))
        else:
            why = "; ".join(str(r) for r in check.refusals)
            clauses = ", ".join(dict.fromkeys(r.clause for r in check.refusals))
            out.append(Poly("refused-target", unit.id, unit.side, state="refused", title=why, points=halo))
            corner = max(halo, key=lambda p: (p[1], p[0]))
            out.append(Label("clause", unit.id, unit.side, state="refused", title=why,
                             at=(corner[0], corner[1] + 0.12), text=f"✕ {clauses}", size=0.9))
    return out


def scene(battle: Battle, check: Check | None = None, attacker_checks: Sequence[Check] | None = None,
          choices: Mapping[str, object] = NO_CHOICES) -> Scene:
    """The battle drawn; with an attacker's checks its targets marked; with a target's check, the line of
    sight between the chosen notches (a refused one among the sides the player chose, ``choices``)."""
    attacker = check.attacker if check is not None else (attacker_checks[0].attacker if attacker_checks else None)
    terrain = sorted(battle.terrain, key=lambda t: DRAW_ORDER[t.kind])
    items: list[Shape] = [Poly(f"terrain:{t.kind}", t.id, title=f"{t.id}: {_terrain_text(t.kind, battle.options)}",
                               points=ring(t.polygon.vertices)) for t in terrain]
    items += [terrain_name(t.id, ring(t.polygon.vertices), f"{t.id}: {_terrain_text(t.kind, battle.options)}", 0.18)
              for t in terrain]
    fit = [p for item in items for p in points_of(item)]
    if attacker is not None:
        items.append(_reach(battle.unit(attacker), battle.options.range_steps))
    moves = {u.id: _moved(u) for u in battle.units}
    ghosts = [ghost for ghost, _ in moves.values() if ghost is not None]
    trails = [trail for _, trail in moves.values() if trail is not None]
    # what a moved unit's name and badges are best kept off: the terrain, the other bases, where units stood
    pieces = [(t.id, _box(ring(t.polygon.vertices))) for t in battle.terrain]
    pieces += [(u.id, _box(ring(base_of(u).polygon.vertices), 0.0)) for u in battle.units]
    pieces += [("", _box(points_of(g), 0.0)) for g in ghosts]
    # and the picture's edge, about (the table is drawn round the pieces)
    edge = outside(bounds_of([p for _, box in pieces for p in ((box[0], box[1]), (box[2], box[3]))], MARGIN))
    ground = {t.id for t in battle.terrain}
    groups = [_unit_group(u, moves[u.id][1], [*edge, *(box for pid, box in pieces if pid not in (u.id, *ground))],
                          [box for pid, box in pieces if pid in ground])
              for u in battle.units]
    fit += [p for g in [*groups, *ghosts, *trails] for p in points_of(g)]
    items += ghosts  # under every unit, the trails over them
    items += groups
    items += trails
    if attacker is not None and attacker_checks:
        items += _marks(battle, attacker, attacker_checks)
    if check is not None:
        items += _line(battle, check, choices)
    sides = tuple(dict.fromkeys(u.side for u in battle.units))
    legend = [LegendEntry("base", f"{side}: bases, arrow = facing, dots = notches [AL-1.3]", side=side)
              for side in sides]
    colours = dict.fromkeys(getattr(u.sides, n) for u in battle.units for n in SIDE_NAMES)
    legend += [LegendEntry(f"edge:{c}", _edge_text(c, battle.options), sample="line") for c in ("blue", "red", "grey")
               if c in colours]
    legend += [LegendEntry(f"terrain:{k}", _terrain_text(k, battle.options))
               for k in dict.fromkeys(t.kind for t in battle.terrain)]
    if attacker is not None:
        legend.append(LegendEntry("range", f"{_range_text(battle.options.range_steps)} from the attacker's base "
                                           "[AL-3.1]", side=battle.unit(attacker).side, sample="line"))
    legend += mark_legend(items, {("ghost", ""): "where it stood at the start of its turn [AL-10.1]",
                                  ("trail", ""): "its move this turn, base centre to base centre [AL-10.2]"})
    legend += badge_legend(items, BADGE_TEXTS)
    notes: list[str] = []
    if check is not None and check.plan is None:
        notes = [f"refused: {r}" for r in check.refusals]
    elif check is not None and isinstance(check.plan, OrderPlan):
        p = check.plan
        notes = [f"{p.attacker} shoots at {p.target}: {p.attack_dice} attack dice against {p.defense_dice} defense "
                 f"dice" + (f"; {', '.join(str(m) for m in p.modifiers)}" if p.modifiers else "")]
    notes += refusal_notes(attacker_checks or (), check)
    title = battle.name or "Arcane Legions"
    if check is not None and check.target is not None:
        title += f": {check.attacker} shoots at {check.target}"
    return Scene(title=title, items=tuple(items), bounds=bounds_of(fit, MARGIN),
                 unit="steps", sides=sides, legend=tuple(legend), notes=tuple(notes), scale=SCALE)


__all__ = ["scene"]
