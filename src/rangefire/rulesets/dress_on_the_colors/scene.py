"""Dress on the Colors drawn: stands with their front edges and facing, terrain by cover grade with its name,
gunsmoke markers, the firer's 45° arc out to its longest range, targets marked legal or refused, and the line of fire
with its range and band [DC-1.2, DC-1.3, DC-2.1 to DC-2.4, DC-4.2, DC-7.1 to DC-7.3]; each unit's move this turn,
from where it stood at the start of its turn to where it stands [DC-6.1, DC-10.1], and its marks as badges by its
name: disordered, micro-hit, gunsmoke, moved, fired, engaged [DC-4.3, DC-5.3, DC-7.1, DC-9.1].

Everything is read from the engine's own geometry (``table``); nothing here decides a rule. The numbers the
texts quote (saves, ranges, the gunsmoke penalty) are the battle's options: a house rule is drawn as played.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction

from rangefire.core import NO_CHOICES, Check
from rangefire.core.numbers import dump_exact
from rangefire.core.scene import (
    XY,
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
    entering,
    grown,
    mark_legend,
    points_of,
    refusal_notes,
    ring,
    side_anchor,
    terrain_name,
    xy,
)
from rangefire.geometry import Polygon
from rangefire.rulesets.dress_on_the_colors.scenario import Battle, Options, Unit
from rangefire.rulesets.dress_on_the_colors.table import footprint, line_of_fire, smoke_marker
from rangefire.rulesets.dress_on_the_colors.volley import VolleyPlan

#: Terrain drawn from the least to the most cover, so that a piece lying on another is seen.
DRAW_ORDER = {"open": 0, "light": 1, "heavy": 2, "gunsmoke": 3}
def _terrain_text(kind: str, options: Options) -> str:
    """What a kind of terrain is, with the save it gives in this battle [DC-1.3, DC-4.1]."""
    if kind == "gunsmoke":
        return "gunsmoke marker"
    save = options.cover_save.at(kind)
    said = "no save" if save is None else f"saves {save}+"
    if kind == "open":
        return "open ground" + (f": {said}" if save is not None else "")
    what = {"light": "fences, scrub, thin woods", "heavy": "stone walls, dense woods"}[kind]
    return f"{kind} cover ({what}): {said}"


def _inches(value: Fraction) -> str:
    return f"{dump_exact(value)} in"


def _unit_group(unit: Unit, trail: Segment | None = None) -> Group:
    fp = footprint(unit)
    items: list[Shape] = [Poly("stand", unit.id, unit.side, points=ring(stand.vertices)) for stand in fp.stands]
    items += [Segment("front", unit.id, unit.side, title=f"{unit.id}'s front edge [DC-1.2]",
                      start=xy(front.a), end=xy(front.b)) for front in fp.front]
    nose = fp.frame.world(Fraction(0), Fraction(6, 5))
    items.append(Segment("facing", unit.id, unit.side, start=xy(fp.frame.origin), end=xy(nose), arrow=True))
    back = fp.frame.world(Fraction(0), -unit.stand_depth * (unit.stands if unit.formation == "march-column" else 1)
                          - Fraction(3, 5))
    if side_anchor(float(fp.frame.forward.x), float(fp.frame.forward.y)) != "middle":
        # facing along the table: the name above the unit, where a long name has room
        box = fp.box
        at: XY = (float(box.x0 + box.x1) / 2, float(box.y1) + 0.5)
    else:
        at = xy(back)  # behind the unit, clear of the lines of fire that reach its front
    marks = _marks_of(unit)
    # the marks a player needs in a row beside the name, away from the unit
    away = -1.3 if at[1] > sum(p[1] for p in _rect(unit)) / 4 else 1.15
    anchor, alternative = "middle", None
    if trail is not None:
        at, anchor, alternative = _off_trail(at, away, unit.id, marks, trail)
    items.append(Label("name", unit.id, unit.side, title=_describe(unit), at=at, text=unit.id, anchor=anchor,
                       alternative=alternative))
    for row in badges(unit.id, unit.side, marks, _describe(unit), at, away, anchor):
        items.append(replace(row, alternative=alternative))
    return Group("unit", unit.id, unit.side, title=_describe(unit), items=tuple(items))


#: About how wide a character of a unit's name and badges is, in inches at the default scale (a little wide).
CHAR_WIDTH = 0.42


def _off_trail(at: XY, away: float, uid: str, marks: Sequence[tuple[str, str]],
               trail: Segment) -> tuple[XY, str, tuple[XY, str] | None]:
    """Where a unit's name and badges go so that its trail is seen: at ``at`` where the trail passes clear of
    them, else beside the trail on the side where ``at`` lies, the other side the alternative."""
    # inches below and above ``at`` the name and its badges take (the badges over the name where ``away`` < 0)
    lines = (-0.3, 1.4) if away < 0 else (-1.0, 0.6)
    band = (at[1] + lines[0], at[1] + lines[1])
    (ax, ay), (bx, by) = trail.start, trail.end
    xs = []
    for y in (max(band[0], min(ay, by)), min(band[1], max(ay, by))):
        if min(ay, by) <= y <= max(ay, by) and band[0] <= y <= band[1]:
            xs.append(ax if ay == by else ax + (bx - ax) * (y - ay) / (by - ay))
    if min(ay, by) > band[1] or max(ay, by) < band[0] or not xs:
        return at, "middle", None
    chars = max(len(uid), sum(len(text) + 2 for _, text in marks))
    half = chars * CHAR_WIDTH / 2
    low, high = min(xs), max(xs)
    if high < at[0] - half - 0.2 or low > at[0] + half + 0.2:
        return at, "middle", None
    right, left = ((high + 0.5, at[1]), "start"), ((low - 0.5, at[1]), "end")
    first, second = (right, left) if (low + high) / 2 <= at[0] else (left, right)
    return first[0], first[1], second


def _marks_of(unit: Unit) -> list[tuple[str, str]]:
    """The unit's marks as badges: disorder, a micro-hit marker, its gunsmoke marker in place, moved, fired and
    engaged this turn [DC-4.3, DC-5.3, DC-7.1, DC-9.1, DC-2.3]."""
    marks = [("disordered", unit.disordered), ("micro-hit", unit.micro_hits > 0),
             ("gunsmoke", unit.gunsmoke and not unit.moved), ("moved", unit.moved), ("fired", unit.fired),
             ("engaged", unit.engaged)]
    return [(mark, mark) for mark, on in marks if on]


def _badge_texts(options: Options) -> dict[str, tuple[str, str]]:
    """What each badge means, with the battle's numbers (a house rule is drawn as played)."""
    m = options.modifiers
    return {
        "disordered": ("disordered", f"disordered: {m.firer_disordered:+d} to each die it fires, "
                                     f"{options.discipline_disordered:+d} to its discipline checks [DC-3.3, DC-5.2]"),
        "micro-hit": ("micro-hit", "micro-hit marker: its next unsaved hit removes a stand [DC-4.3]"),
        "gunsmoke": ("gunsmoke", "its gunsmoke marker is in place before it [DC-7.1]"),
        "moved": ("moved", "moved this turn: a volley places no gunsmoke [DC-7.1]"),
        "fired": ("fired", "fired its volley this turn [DC-9.1]"),
        "engaged": ("engaged", "engaged in melee: neither fires nor is fired at [DC-2.3]"),
    }


def _rect(unit: Unit, at_start: bool = False) -> tuple[XY, ...]:
    """The rectangle round all of a unit's stands, now or at the start of its turn."""
    fp = footprint(unit, at_start=at_start)
    depth = -unit.stand_depth * (unit.stands if unit.formation == "march-column" else 1)
    h = fp.half_width
    return tuple(xy(fp.frame.world(x, y)) for x, y in ((-h, depth), (h, depth), (h, Fraction(0)), (-h, Fraction(0))))


def _moved(unit: Unit) -> list[Shape]:
    """Where a unit stood at the start of its turn, outlined, and its move since, from there to where it stands
    [DC-6.1, DC-10.1]; nothing where the game records no start or the unit is where it began."""
    start, facing = unit.start_position, unit.start_facing
    if (start is None or start == unit.position) and (facing is None or facing == unit.facing):
        return []
    at = unit.start_position if unit.start_position is not None else unit.position
    turned = unit.start_facing if unit.start_facing is not None else unit.facing
    began = f"({dump_exact(at[0])}, {dump_exact(at[1])}) facing {dump_exact(turned)}°"
    now = f"({dump_exact(unit.position[0])}, {dump_exact(unit.position[1])}) facing {dump_exact(unit.facing)}°"
    title = f"{unit.id} began its turn at {began}: enfilade is judged from there [DC-6.1]"
    then = footprint(unit, at_start=True)
    ghost: list[Shape] = [Poly("ghost", unit.id, unit.side, title=title, points=ring(stand.vertices))
                          for stand in then.stands]
    ghost += [Segment("ghost-front", unit.id, unit.side, title=title, start=xy(f.a), end=xy(f.b)) for f in then.front]
    out: list[Shape] = [Group("ghost", unit.id, unit.side, title=title, items=tuple(ghost))]
    was, rect = _rect(unit, at_start=True), _rect(unit)
    a = (sum(p[0] for p in was) / 4, sum(p[1] for p in was) / 4)
    b = (sum(p[0] for p in rect) / 4, sum(p[1] for p in rect) / 4)
    if unit.start_position is not None and unit.start_position != unit.position:  # not only turned
        end = entering(a, b, rect)
        if math.dist(a, end) < 0.3:  # it began (almost) where it stands: the trail runs to its middle
            end = b
        out.append(Segment("trail", unit.id, unit.side, title=f"{unit.id} moved this turn from {began} to {now} "
                           "[DC-10.1]", start=a, end=end, arrow=True))
    return out


def _describe(unit: Unit) -> str:
    state = [s for s, on in (("moved", unit.moved), ("engaged", unit.engaged), ("disordered", unit.disordered),
                             ("micro-hit", unit.micro_hits > 0), ("gunsmoke marker", unit.gunsmoke)) if on]
    return (f"{unit.id} ({unit.side}): {unit.stands} stands, {unit.weapon}, {unit.formation}, facing "
            f"{float(unit.facing):g}°" + (f"; {', '.join(state)}" if state else ""))


def _halo(unit: Unit) -> tuple[XY, ...]:
    fp = footprint(unit)
    box = fp.outline[0] if len(fp.outline) == 1 else None
    if box is None:  # skirmishers: one halo round all the stands
        rect = [fp.frame.world(-fp.half_width, -unit.stand_depth), fp.frame.world(fp.half_width, -unit.stand_depth),
                fp.frame.world(fp.half_width, Fraction(0)), fp.frame.world(-fp.half_width, Fraction(0))]
        return grown(tuple(xy(p) for p in rect), 0.45)
    return grown(ring(box.vertices), 0.45)


def _arc(unit: Unit, option: str, reach: Fraction) -> Poly:
    """The 45° forward arc [DC-2.1] out to the longest range from the front edge [DC-2.4] (the rules: 20 in):
    the points of the arc no farther than that from the front edge (straight ahead of it, or round its
    corners)."""
    far = float(reach)
    fp = footprint(unit)
    h = float(fp.half_width) if option == "corners" else 0.0
    origin, fwd, right = fp.frame.origin, fp.frame.forward, fp.frame.right
    ox, oy = float(origin.x), float(origin.y)
    fx, fy, rx, ry = float(fwd.x), float(fwd.y), float(right.x), float(right.y)

    def world(x: float, y: float) -> XY:
        return (ox + x * rx + y * fx, oy + x * ry + y * fy)

    pts = [world(-h, 0.0)]
    pts += [world(-h - far * math.sin(math.radians(a)), far * math.cos(math.radians(a)))
            for a in range(45, -1, -5)]
    pts += [world(h + far * math.sin(math.radians(a)), far * math.cos(math.radians(a)))
            for a in range(0, 46, 5)]
    pts.append(world(h, 0.0))
    title = f"{unit.id}'s 45° forward arc ({option}) out to {_inches(reach)} [DC-2.1, DC-2.4]"
    return Poly("arc", unit.id, unit.side, title=title, points=tuple(pts))


def _arc_edges(unit: Unit, option: str) -> list[Shape]:
    """The first 3 in of the lines bounding a unit's 45° arc [DC-2.1]: where each unit can fire, at a glance,
    without a wedge for every unit covering the table."""
    fp = footprint(unit)
    h = fp.half_width if option == "corners" else Fraction(0)
    reach = 3 / math.sqrt(2)
    out: list[Shape] = []
    for sign in (-1, 1):
        a = fp.frame.world(sign * h, Fraction(0))
        far = fp.frame.world(sign * h + sign * Fraction(reach), Fraction(reach))
        out.append(Segment("arc", unit.id, unit.side, title=f"{unit.id}'s 45° forward arc ({option}) [DC-2.1]",
                           start=xy(a), end=xy(far)))
    return out


def _markers(battle: Battle) -> dict[str, Polygon]:
    """Gunsmoke markers on the table, by id: terrain ones, and each stationary unit's own [DC-7.1]."""
    out = {t.id: t.polygon for t in battle.terrain if t.kind == "gunsmoke"}
    out.update({f"{u.id}:gunsmoke": smoke_marker(u) for u in battle.units if u.gunsmoke and not u.moved})
    return out


def _line(battle: Battle, check: Check) -> list[Shape]:
    """The line of fire of a check [DC-2.2, DC-7.3]: clear, or hindered by gunsmoke [DC-7.2]; the pieces
    that give the target cover outlined [DC-4.2]; a refused target's shortest line drawn as refused."""
    plan = check.plan
    if isinstance(plan, VolleyPlan) and plan.line_of_fire is not None:
        start, end = (xy(p) for p in plan.line_of_fire)
        inches = math.sqrt(plan.distance2)
        state = "hindered" if plan.smoke_from else "clear"
        smoke = f"{battle.options.modifiers.gunsmoke:+d}"
        why = [f"line of fire {plan.attacker} to {plan.target}: {inches:.2f} in, {plan.band} range, "
               f"{plan.need}+ to hit [DC-2.2, DC-2.4]"]
        if plan.line_of_fire_tied:
            why.append("the middle one of several equally short lines [DC-7.3]")
        if plan.smoke_from:
            why.append(f"through gunsmoke ({', '.join(plan.smoke_from)}): {smoke} to hit [DC-7.2]")
        why.append(f"target in {plan.cover} cover" + (f" ({', '.join(plan.cover_from)})" if plan.cover_from else "")
                   + " [DC-4.2]")
        items: list[Shape] = []
        markers = _markers(battle)
        for mid in plan.smoke_from:
            if mid in markers:
                items.append(Poly("hindrance", mid, title=f"gunsmoke {mid} on the line of fire: {smoke} to hit "
                                                          "[DC-7.2]", points=ring(markers[mid].vertices)))
        terrain = {t.id: t for t in battle.terrain}
        for tid in plan.cover_from:
            if tid in terrain:
                items.append(Poly("cover", tid, title=f"{tid} gives {plan.target} {plan.cover} cover [DC-4.2]",
                                  points=ring(terrain[tid].polygon.vertices)))
        text = f"{inches:.2f} in, {plan.band}"
        items += [Segment("line-of-fire", f"{plan.attacker}->{plan.target}", state=state, title="; ".join(why),
                          start=start, end=end, arrow=True),
                  beside(start, end, text, "; ".join(why), 0.8)]
        return items
    if check.target is None or check.plan is not None:
        return []
    firer, target = battle.unit(check.attacker), battle.unit(check.target)
    if firer.id == target.id:
        return []
    lof = line_of_fire(footprint(firer), footprint(target))
    start, end = xy(lof.start), xy(lof.end)
    reason = "; ".join(str(r) for r in check.refusals)
    text = f"{math.sqrt(lof.distance2):.2f} in: refused"
    return [Segment("line-of-fire", f"{firer.id}->{target.id}", state="refused", title=reason, start=start, end=end,
                    arrow=True), beside(start, end, text, reason, 0.8)]


def _marks(battle: Battle, attacker: str, checks: Sequence[Check]) -> list[Shape]:
    """Each enemy marked as a legal target or refused with its clauses; the attacker outlined."""
    out: list[Shape] = [Poly("attacker", attacker, battle.unit(attacker).side, title=f"{attacker} fires",
                             points=_halo(battle.unit(attacker)))]
    for check in checks:
        if check.target is None:
            continue
        unit = battle.unit(check.target)
        halo = _halo(unit)
        if check.is_legal:
            out.append(Poly("legal-target", unit.id, unit.side, state="legal",
                            title=f"{attacker} may fire at {unit.id}", points=halo))
        else:
            why = "; ".join(str(r) for r in check.refusals)
            clauses = ", ".join(dict.fromkeys(r.clause for r in check.refusals))
            out.append(Poly("refused-target", unit.id, unit.side, state="refused", title=why, points=halo))
            corner = max(halo, key=lambda p: (p[1], p[0]))
            out.append(Label("clause", unit.id, unit.side, state="refused", title=why,
                             at=(corner[0], corner[1] + 0.3), text=f"✕ {clauses}", size=0.9))
    return out


def scene(battle: Battle, check: Check | None = None, attacker_checks: Sequence[Check] | None = None,
          choices: Mapping[str, object] = NO_CHOICES) -> Scene:
    """The battle drawn; with an attacker's checks (one per enemy) its targets marked; with the check of one
    target, its line of fire."""
    del choices  # the game declares no choices
    attacker = check.attacker if check is not None else (attacker_checks[0].attacker if attacker_checks else None)
    opts = battle.options
    items: list[Shape] = []
    for piece in sorted(battle.terrain, key=lambda t: DRAW_ORDER[t.kind]):
        what = f"{piece.id}: {_terrain_text(piece.kind, opts)} [DC-1.3]"
        points = ring(piece.polygon.vertices)
        items += [Poly(f"terrain:{piece.kind}", piece.id, title=what, points=points),
                  terrain_name(piece.id, points, what, 0.5)]
    for unit in battle.units:
        if unit.gunsmoke and not unit.moved:
            items.append(Poly("gunsmoke", f"{unit.id}:gunsmoke", unit.side,
                              title=f"{unit.id}'s gunsmoke marker [DC-7.1]", points=ring(smoke_marker(unit).vertices)))
    fit = [p for item in items for p in points_of(item)]
    if attacker is not None:
        items.append(_arc(battle.unit(attacker), opts.arc, opts.bands.long))
    else:
        items += [edge for u in battle.units for edge in _arc_edges(u, battle.options.arc)]
    moves = [shape for u in battle.units for shape in _moved(u)]
    items += [m for m in moves if m.kind == "ghost"]  # under every unit, the trails over them
    trails = {m.id: m for m in moves if isinstance(m, Segment)}
    groups = [_unit_group(u, trails.get(u.id)) for u in battle.units]
    fit += [p for g in groups + moves for p in points_of(g)]
    items += groups
    items += [m for m in moves if m.kind == "trail"]
    if attacker is not None and attacker_checks:
        items += _marks(battle, attacker, attacker_checks)
    if check is not None:
        items += _line(battle, check)
    sides = tuple(dict.fromkeys(u.side for u in battle.units))
    legend = [LegendEntry("stand", f"{side}: stands, thick front edge, arrow = facing", side=side)
              for side in sides]
    kinds = list(dict.fromkeys(t.kind for t in battle.terrain))
    legend += [LegendEntry(f"terrain:{k}", _terrain_text(k, opts)) for k in kinds if k != "gunsmoke"]
    if any(u.gunsmoke and not u.moved for u in battle.units) or "gunsmoke" in kinds:
        legend.append(LegendEntry("gunsmoke", f"gunsmoke marker: {opts.modifiers.gunsmoke:+d} to hit through it over "
                                              f"{_inches(opts.gunsmoke_beyond)} [DC-7.2]"))
    if attacker is not None:
        legend.append(LegendEntry("arc", f"the firer's 45° arc out to {_inches(opts.bands.long)} [DC-2.1]",
                                  side=battle.unit(attacker).side))
    else:
        legend.append(LegendEntry("arc", "each unit's 45° arc, its first 3 in [DC-2.1]", sample="line"))
    legend += mark_legend(items, {("ghost", ""): "where it stood at the start of its turn [DC-6.1]",
                                  ("trail", ""): "its move this turn, from where it stood [DC-10.1]"})
    legend += badge_legend(items, _badge_texts(opts))
    title = battle.name or "Dress on the Colors"
    if isinstance(check, Check) and check.target is not None:
        title += f": {check.attacker} fires at {check.target}"
    notes = []
    if check is not None and check.plan is None and check.refusals:
        notes = [f"refused: {r}" for r in check.refusals]
    elif isinstance(check, Check) and isinstance(check.plan, VolleyPlan):
        p = check.plan
        notes = [f"{p.attacker} fires at {p.target}: {p.dice} dice needing {p.need}+, "
                 + (f"cover save {p.save}+" if p.save else "no cover save")
                 + (f"; {', '.join(str(m) for m in p.modifiers)}" if p.modifiers else "")]
    notes += refusal_notes(attacker_checks or (), check)
    return Scene(title=title, items=tuple(items), bounds=bounds_of(fit, 2.0), unit="in", sides=sides,
                 legend=tuple(legend), notes=tuple(notes))


__all__ = ["scene"]
