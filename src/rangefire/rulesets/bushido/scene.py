"""Bushido drawn: round bases with their zones of control, terrain by kind with its name, the shooter's range
bands, targets marked legal or refused, the line of sight found with what it passes through and what gives cover,
and the centre line with the models that may be nominated instead [BU-1.2, BU-1.4, BU-1.5, BU-2.1, BU-2.2,
BU-4.2, BU-4.3, BU-5.1, BU-5.7]; each model's states and wound track as badges under its base [BU-5.3, BU-5.4,
BU-7.3, BU-8.1]; each model's move this turn, from where it stood at the start of the turn to where it stands
[BU-9.1, BU-9.2], its name and badges kept off that trail.

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
    mark_legend,
    outside,
    points_of,
    refusal_notes,
    ring,
    terrain_name,
    text_box,
    xy,
)
from rangefire.rulesets.bushido import BushidoPlan
from rangefire.rulesets.bushido.scenario import Battle, Options, Unit
from rangefire.rulesets.bushido.table import sight

#: Terrain drawn from clear to solid, so that mist lying on a river bank is seen.
DRAW_ORDER = {"clear": 0, "obscuring": 1, "solid": 2}


def _in(value: Fraction) -> str:
    return f"{float(value):g} in"


def terrain_text(options: Options) -> dict[str, str]:
    """What each kind of terrain does, with the battle's distances [BU-1.4, BU-2.1, BU-5.7]."""
    return {"solid": "solid: blocks line of sight [BU-1.4]",
            "obscuring": f"obscuring: seen {_in(options.obscuring_sight)} into or through; cover within "
                         f"{_in(options.cover_reach)} [BU-1.4, BU-5.7]",
            "clear": "clear terrain [BU-1.4]"}
#: Pixels per inch: a skirmish table is small and its bases are small, so it is drawn larger than a
#: battlefield of regiments.
SCALE = 36.0
#: A line of labels in pixels at the renderer's normal size, to stack a name and badges under a base.
LINE = 14.0
#: Inches of table shown round the pieces.
MARGIN = 1.5


def _centre(unit: Unit) -> XY:
    return (float(unit.position[0]), float(unit.position[1]))


def _radius(unit: Unit) -> float:
    return float(unit.disc.radius)


def _describe(unit: Unit) -> str:
    weapon = unit.weapon
    gun = (f"; {weapon.name} {float(weapon.short):g}/{float(weapon.medium):g}/{float(weapon.long):g} in"
           + ("" if weapon.ammo is None else f", ammo {weapon.ammo}") if weapon is not None else "")
    states = f"; {', '.join(unit.states)}" if unit.states else ""
    return (f"{unit.id} ({unit.side}): {unit.base} mm base ({unit.size}), RCP "
            f"{'none' if unit.rcp is None else unit.rcp}, wounds {unit.wounds.marked}/{unit.wounds.boxes}{gun}{states}")


#: About how wide a character is, in pixels: of a name (bold, at the renderer's normal 14 px) and of a badge's word
#: (a little wide), to keep them off a move's trail.
NAME_CHAR, BADGE_CHAR = 10.0, 7.5
#: A badge's padding and the gap after it, in pixels.
BADGE_EXTRA = 12.0
#: Lines of text a model's badges are put under their place.
BADGE_LINES = 1.15


def _unit_group(unit: Unit, zone: Fraction, trail: Segment | None = None,
                obstacles: Sequence[tuple[float, float, float, float]] = (),
                terrain: Sequence[tuple[float, float, float, float]] = ()) -> Group:
    c, r = _centre(unit), _radius(unit)
    items: list[Shape] = [
        Circle("zone-of-control", unit.id, unit.side, title=f"{unit.id}'s zone of control: {_in(zone)} beyond its "
               "base, over the points it sees [BU-2.2]", centre=c, radius=r + float(zone)),
        Circle("base", unit.id, unit.side, centre=c, radius=r),
    ]
    # the name above the base, its states and wound track under it; where another piece's labels are there, the
    # name under the base with the badges under it, or both to its right or left, the badges under the name
    line = LINE / SCALE  # a line of text in inches
    names: list[tuple[XY, str]] = [((c[0], c[1] + r + 0.35), "middle"), ((c[0], c[1] - r - line), "middle"),
                                   ((c[0] + r + 0.15, c[1] + 0.1), "start"), ((c[0] - r - 0.15, c[1] + 0.1), "end")]
    rows = [((c[0], c[1] - r + 0.08), "middle"), *names[1:]]
    if trail is not None:  # a trail under the base: the name above it, the badges over the name
        names.append(names[0])
        rows.append(((c[0], c[1] + r + 0.35 + (1.3 + BADGE_LINES) * line), "middle"))
    marks = _marks_of(unit)
    # a model that moved this turn: its name and badges first where its trail does not run through them
    order = clear_first(None if trail is None else (trail.start, trail.end),
                        [_boxes(unit.id, marks, name, row) for name, row in zip(names, rows, strict=True)],
                        obstacles, terrain)
    names, rows = [names[k] for k in order], [rows[k] for k in order]
    items.append(Label("name", unit.id, unit.side, title=_describe(unit), at=names[0][0], text=unit.id,
                       anchor=names[0][1], alternative=names[1], further=tuple(names[2:])))
    items += [replace(row, anchor=rows[0][1], alternative=rows[1], further=tuple(rows[2:]))
              for row in badges(unit.id, unit.side, marks, _describe(unit), rows[0][0], BADGE_LINES)]
    return Group("unit", unit.id, unit.side, title=_describe(unit), items=tuple(items))


def _boxes(uid: str, marks: Sequence[tuple[str, str]], name: tuple[XY, str],
           row: tuple[XY, str]) -> list[tuple[float, float, float, float]]:
    """About the boxes a model's name and its badges take at one of their places, in inches."""
    line, small = LINE / SCALE, LINE * BADGE_SIZE / SCALE
    name_box = text_box(name[0], name[1], len(uid) * NAME_CHAR / SCALE, 0.3 * line, 0.85 * line)
    wide = sum(len(text) * BADGE_CHAR + BADGE_EXTRA for _, text in marks) / SCALE
    (x, y), anchor = row
    baseline = (x, y - BADGE_LINES * line)
    return [name_box, text_box(baseline, anchor, wide, 0.35 * small, 0.95 * small)]


def _moved(unit: Unit) -> tuple[Group | None, Segment | None]:
    """Where a model stood at the start of the turn, outlined, and its move since, from its base centre there to
    its base's edge here [BU-9.1, BU-9.2]: none where the battle records no start or the model stands there again."""
    start = unit.start_position
    if start is None or start == unit.position:
        return None, None
    a, c, r = xy(start), _centre(unit), _radius(unit)
    began, now = _point(start), _point(unit.position)
    ghost_title = f"{unit.id} began the turn at {began} [BU-9.1]"
    ghost = Group("ghost", unit.id, unit.side, title=ghost_title,
                  items=(Circle("ghost", unit.id, unit.side, title=ghost_title, centre=a, radius=r),))
    dx, dy = c[0] - a[0], c[1] - a[1]
    apart = math.hypot(dx, dy)
    # the arrowhead on the base's edge, not under it; where it began (almost) under its base, at its centre
    end = (c[0] - dx / apart * r, c[1] - dy / apart * r) if apart - r > 0.3 else c
    verb = "ran" if unit.has("ran") else "moved"
    trail = Segment("trail", unit.id, unit.side, title=f"{unit.id} {verb} this turn from {began} to {now}: {apart:.2f} "
                    "in, base centre to base centre [BU-9.1, BU-9.2]", start=a, end=end, arrow=True)
    return ghost, trail


def _box(points: Sequence[Sequence[Fraction]], margin: float = 0.15) -> tuple[float, float, float, float]:
    """The box round a piece of terrain, ``margin`` inches wider each way: a row of words is kept off its edge."""
    xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
    return (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)


def _disc_box(at: Sequence[Fraction], unit: Unit) -> tuple[float, float, float, float]:
    """The box round a model's base standing at ``at``, in inches."""
    (x, y), r = xy(at), _radius(unit)
    return (x - r, y - r, x + r, y + r)


def _point(p: Sequence[Fraction]) -> str:
    return f"({dump_exact(p[0])}, {dump_exact(p[1])})"


#: The states a model may be in, in the order its badges show them, with the words they show [BU-5.3, BU-5.4].
STATES = {"aimed": "aimed", "will_move": "will move", "moved": "moved", "ran": "ran", "prone": "prone",
          "surprised": "surprised"}


def _marks_of(unit: Unit) -> list[tuple[str, str]]:
    """A model's badges: its states, its ranged attack made this turn, and its wound track."""
    marks = [(state, word) for state, word in STATES.items() if unit.has(state)]
    if unit.attacked:
        marks.append(("attacked", "shot"))
    return [*marks, ("wounds", f"wounds {unit.wounds.marked}/{unit.wounds.boxes}")]


def _badge_texts(options: Options) -> dict[str, tuple[str, str]]:
    """What each badge means, with the battle's numbers (a house rule is drawn as played)."""
    a, d = options.attack_modifiers, options.defense_modifiers
    return {
        "aimed": ("aimed", f"aimed this turn: {a.aimed:+d} attack dice when it shoots [BU-5.3]"),
        "will_move": ("will move", f"will move this activation: {a.moved:+d} attack dice [BU-5.3]"),
        "moved": ("moved", f"moved this activation: {a.moved:+d} attack dice [BU-5.3]"),
        "ran": ("ran", f"ran this turn: {a.ran:+d} attack dice, {d.ran:+d} defense dice [BU-5.3, BU-5.4]"),
        "prone": ("prone", f"prone: {d.prone:+d} defense dice [BU-5.4]"),
        "surprised": ("surprised", f"surprised: {d.surprised:+d} defense dice [BU-5.4]"),
        "attacked": ("shot", "has made its ranged attack this turn [BU-8.1]"),
        "wounds": ("wounds", "wounds marked of its boxes [BU-7.3]"),
    }


def _bands(unit: Unit) -> list[Shape]:
    """The weapon's range bands, edge to edge: rings at the base's radius plus each bound [BU-1.5, BU-5.1]."""
    if unit.weapon is None:
        return []
    c, r = _centre(unit), _radius(unit)
    out: list[Shape] = []
    for name in ("short", "medium", "long"):
        bound = float(getattr(unit.weapon, name))
        out.append(Circle("range", unit.id, unit.side, title=f"{unit.weapon.name}: {name} range, up to {bound:g} in "
                          "from the base edge [BU-5.1]", centre=c, radius=r + bound))
    return out


def _outlines(battle: Battle, kind: str, ids: Sequence[str], why: str) -> list[Shape]:
    pieces = {t.id: t for t in battle.terrain}
    return [Poly(kind, pid, title=f"{pid} {why}", points=ring(pieces[pid].polygon.vertices))
            for pid in ids if pid in pieces]


def _line(battle: Battle, check: Check) -> list[Shape]:
    """The first line of sight the engine found [BU-2.1], clear or through obscuring terrain, the pieces
    giving cover outlined [BU-5.7]; the centre line and the models that may be nominated [BU-4.2, BU-4.3].
    Without sight, the centre line drawn blocked with what blocks every line tried."""
    plan = check.plan
    if isinstance(plan, BushidoPlan):
        shooter, declared = battle.unit(plan.attacker), battle.unit(plan.declared_target)
        items: list[Shape] = []
        if plan.nominees or plan.redirected:
            items.append(Segment("centre-line", f"{shooter.id}->{declared.id}", title="centre to centre: the line "
                                 "a nominee's base or zone of control must cross [BU-4.3]", start=_centre(shooter),
                                 end=_centre(declared)))
            for nominee in plan.nominees:
                model = battle.unit(nominee.id)
                items.append(Circle("nominee", model.id, model.side, title=nominee.describe() + " [BU-4.2]",
                                    centre=_centre(model), radius=_radius(model) + 0.3))
        line = plan.line_of_sight.get("line")
        band = plan.band or "beyond long range"
        why = [f"line of sight {plan.attacker} to {plan.target}: {plan.line_of_sight.get('verdict', '')} [BU-2.1]",
               f"{plan.distance:.2f} in edge to edge, {band} [BU-1.5, BU-5.1]"]
        if plan.in_cover:
            why.append(f"{plan.target} in cover" + (f" ({', '.join(plan.cover_by)})" if plan.cover_by else "")
                       + " [BU-5.7]")
        title = "; ".join(why)
        if isinstance(line, dict):
            start = (float(line["from"][0]), float(line["from"][1]))
            end = (float(line["to"][0]), float(line["to"][1]))
            obscuring = [str(p) for p in line.get("obscuring", [])]
            state = "hindered" if obscuring else "clear"
            items += _outlines(battle, "hindrance", [p for p in obscuring if p not in plan.cover_by],
                               f"is on the line of sight (obscuring, {_in(battle.options.obscuring_sight)} at most) "
                               "[BU-2.1]")
            items += _outlines(battle, "cover", plan.cover_by, f"gives {plan.target} cover [BU-5.7]")
            items.append(Segment("line-of-fire", f"{plan.attacker}->{plan.target}", state=state, title=title,
                                 start=start, end=end, arrow=True))
            items.append(beside(start, end, f"{plan.distance:.2f} in, {band}", title, 0.6))
        return items
    if check.target is None:
        return []
    shooter, target = battle.unit(check.attacker), battle.unit(check.target)
    if shooter.id == target.id:
        return []
    reason = "; ".join(str(r) for r in check.refusals)
    start, end = _centre(shooter), _centre(target)
    gap = max(0.0, float(shooter.disc.gap(target.disc)))
    if any(r.clause == "BU-3.2" and "line of sight" in r.reason for r in check.refusals):
        seen = sight(battle, shooter, target)
        return [*_outlines(battle, "blocker", [*seen.blocked_by, *seen.too_deep], "blocks every line of sight "
                           "[BU-2.1]"),
                Segment("line-of-fire", f"{shooter.id}->{target.id}", state="blocked", title=reason, start=start,
                        end=end, arrow=True),
                beside(start, end, f"{gap:.2f} in: no line of sight", reason, 0.6)]
    return [Segment("line-of-fire", f"{shooter.id}->{target.id}", state="refused", title=reason, start=start, end=end,
                    arrow=True), beside(start, end, f"{gap:.2f} in: refused", reason, 0.6)]


def _marks(battle: Battle, attacker: str, checks: Sequence[Check]) -> list[Shape]:
    shooter = battle.unit(attacker)
    out: list[Shape] = [Circle("attacker", attacker, shooter.side, title=f"{attacker} shoots",
                               centre=_centre(shooter), radius=_radius(shooter) + 0.2)]
    for check in checks:
        if check.target is None:
            continue
        model = battle.unit(check.target)
        c, r = _centre(model), _radius(model) + 0.2
        if check.is_legal:
            out.append(Circle("legal-target", model.id, model.side, state="legal",
                              title=f"{attacker} may shoot at {model.id}", centre=c, radius=r))
        else:
            why = "; ".join(str(ref) for ref in check.refusals)
            clauses = ", ".join(dict.fromkeys(ref.clause for ref in check.refusals))
            out.append(Circle("refused-target", model.id, model.side, state="refused", title=why, centre=c, radius=r))
            out.append(Label("clause", model.id, model.side, state="refused", title=why,
                             at=(c[0] + r * 0.7, c[1] - r - 0.35), text=f"✕ {clauses}", anchor="start", size=0.9))
    return out


def scene(battle: Battle, check: Check | None = None, attacker_checks: Sequence[Check] | None = None,
          choices: Mapping[str, object] = NO_CHOICES) -> Scene:
    """The battle drawn; with an attacker's checks its targets marked; with a target's check, the line of
    sight."""
    del choices  # a nomination moves the check itself, which is drawn as it comes
    attacker = check.attacker if check is not None else (attacker_checks[0].attacker if attacker_checks else None)
    terrain = sorted(battle.terrain, key=lambda t: DRAW_ORDER[t.kind])
    texts = terrain_text(battle.options)
    items: list[Shape] = [Poly(f"terrain:{t.kind}", t.id, title=f"{t.id}: {texts[t.kind]}",
                               points=ring(t.polygon.vertices)) for t in terrain]
    items += [terrain_name(t.id, ring(t.polygon.vertices), f"{t.id}: {texts[t.kind]}", 0.4) for t in terrain]
    fit = [p for item in items for p in points_of(item)]
    if attacker is not None:
        items += _bands(battle.unit(attacker))
    zone = battle.options.zone_of_control
    moves = {u.id: _moved(u) for u in battle.units}
    ghosts = [ghost for ghost, _ in moves.values() if ghost is not None]
    trails = [trail for _, trail in moves.values() if trail is not None]
    # what a moved model's name and badges are best kept off: the terrain, the other bases, where models stood
    boxes = [_box(t.polygon.vertices) for t in battle.terrain]
    discs = {u.id: [_disc_box(u.position, u), *([_disc_box(u.start_position, u)] if u.start_position else [])]
             for u in battle.units}
    # and the picture's edge, about (the table is drawn round the pieces)
    edge = outside(bounds_of([p for box in [*boxes, *(b for bs in discs.values() for b in bs)]
                              for p in ((box[0], box[1]), (box[2], box[3]))], MARGIN))
    groups = [_unit_group(u, zone, moves[u.id][1],
                          [*edge, *(b for other, bs in discs.items() if other != u.id for b in bs), *discs[u.id][1:]],
                          boxes)
              for u in battle.units]
    fit += [p for g in [*groups, *ghosts, *trails] for p in points_of(g)]
    items += ghosts  # under every model, the trails over them
    items += groups
    items += trails
    if attacker is not None and attacker_checks:
        items += _marks(battle, attacker, attacker_checks)
    if check is not None:
        items += _line(battle, check)
    sides = tuple(dict.fromkeys(u.side for u in battle.units))
    legend = [LegendEntry("base", f"{side}: round bases", side=side, sample="circle") for side in sides]
    legend.append(LegendEntry("zone-of-control", f"zone of control: {_in(zone)} beyond the base [BU-2.2]",
                              sample="circle"))
    legend += [LegendEntry(f"terrain:{k}", texts[k]) for k in dict.fromkeys(t.kind for t in battle.terrain)]
    weapon = battle.unit(attacker).weapon if attacker is not None else None
    if attacker is not None and weapon is not None:
        bounds = "/".join(f"{float(getattr(weapon, b)):g}" for b in ("short", "medium", "long"))
        legend.append(LegendEntry("range", f"{attacker}'s {weapon.name}: short/medium/long {bounds} in from its base "
                                  "edge [BU-5.1]", side=battle.unit(attacker).side, sample="line"))
    legend += mark_legend(items, {("ghost", ""): "where it stood at the start of the turn [BU-9.1]",
                                  ("trail", ""): "its move this turn, base centre to base centre [BU-9.2]"})
    legend += badge_legend(items, _badge_texts(battle.options))
    notes: list[str] = []
    if battle.active_side is not None:
        notes.append(f"{battle.active_side} is activating")
    if check is not None and check.plan is None:
        notes += [f"refused: {r}" for r in check.refusals]
    elif check is not None and isinstance(check.plan, BushidoPlan):
        p = check.plan
        notes.append(f"{p.attacker} shoots at {p.target} with the {p.weapon}: {p.attack_dice} attack dice against "
                     f"{p.defense_dice} defense dice")
    notes += refusal_notes(attacker_checks or (), check)
    title = battle.name or "Bushido"
    if check is not None and check.target is not None:
        title += f": {check.attacker} shoots at {check.target}"
    return Scene(title=title, items=tuple(items), bounds=bounds_of(fit, MARGIN), unit="in",
                 sides=sides, legend=tuple(legend), notes=tuple(notes), scale=SCALE)


__all__ = ["scene"]
