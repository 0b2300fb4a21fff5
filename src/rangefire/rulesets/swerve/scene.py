"""The swerve card game drawn: it has no table, so the scene is the cards in play laid out at their missions
(one row per player), swerved cards turned sideways, the hands and decks listed, and with an attacker the
cards it may begin ranged combat against, or why not [SW-1.1, SW-1.4, SW-1.5, SW-2.1, SW-2.2].

Positions here are only a layout in card-sized units: no distance means anything in this game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rangefire.core import NO_CHOICES, Check
from rangefire.core.scene import (
    XY,
    Group,
    Label,
    LegendEntry,
    Poly,
    Scene,
    Segment,
    Shape,
    grown,
    mark_legend,
    refusal_notes,
)
from rangefire.rulesets.swerve import CombatPlan
from rangefire.rulesets.swerve.scenario import Battle, Card

#: A card's size in layout units (portrait), and the space around it.
CARD_W, CARD_H, GAP = 4.8, 5.0, 0.6
#: Pixels per layout unit.
SCALE = 36.0
NO_MISSION = "(no mission)"


def _stats(card: Card) -> list[str]:
    """The printed numbers of a card, one line each, as the card shows them."""
    lines = [f"{name} {value}" for name, value in (("speed", card.speed), ("accuracy", card.accuracy),
                                                   ("damage", card.damage), ("toughness", card.toughness))
             if value is not None]
    if card.ranged is not None:
        lines.append(f"ranged: acc {card.ranged.accuracy}, dmg {card.ranged.damage}")
    if card.effect is not None:
        lines.append(", ".join(f"{k} {v:+d}" for k, v in card.effect.model_dump().items() if v))
    return lines


def _describe(card: Card) -> str:
    text = f"{card.id} ({card.owner}'s {card.type}{', swerved' if card.swerved else ''})"
    if card.name:
        text += f": {card.name}"
    text += "".join(f"; {line}" for line in _stats(card))
    if card.counters:
        text += f"; {card.counters} damage"
    if card.ranged is not None:
        text += (f"; ranged combat: accuracy {card.ranged.accuracy}, damage {card.ranged.damage}, cost "
                 f"{card.ranged.cost}, targets {' or '.join(card.ranged.targets)}")
    if card.effect is not None:
        effect = ", ".join(f"{k} {v:+d}" for k, v in card.effect.model_dump().items() if v)
        text += f"; {card.timing or 'main'}: {effect}"
    return text


def _box(x: float, y: float, swerved: bool) -> tuple[XY, ...]:
    """A card's outline with its top-left corner at (x, y): portrait, or turned sideways when swerved."""
    w, h = (CARD_H, CARD_W) if swerved else (CARD_W, CARD_H)
    return ((x, y - h), (x + w, y - h), (x + w, y), (x, y))


def _card_group(card: Card, x: float, y: float) -> Group:
    box = _box(x, y, card.swerved)
    w = box[1][0] - box[0][0]
    cx = x + w / 2
    lines = [("name", card.name or card.id, 0.85), ("card-id", f"{card.id} ({card.type})", 0.8),
             *(("card-stats", line, 0.8) for line in _stats(card))]
    if card.counters:
        lines.append(("card-stats", f"{card.counters} damage", 0.8))
    if card.swerved:
        lines.append(("card-state", "SWERVED", 0.8))
    items: list[Shape] = [Poly("card", card.id, card.owner, state="swerved" if card.swerved else "",
                               title=_describe(card), points=box)]
    for k, (kind, text, size) in enumerate(lines):
        items.append(Label(kind, card.id, card.owner, title=_describe(card), at=(cx, y - 0.8 - 0.62 * k), text=text,
                           size=size))
    return Group("unit", card.id, card.owner, state="swerved" if card.swerved else "", title=_describe(card),
                 items=tuple(items))


def _layout(battle: Battle) -> tuple[list[Shape], dict[str, tuple[XY, ...]], tuple[float, float, float, float]]:
    """Missions side by side, each with a row of cards per player: the shapes, each card's outline, bounds."""
    players = list(battle.players) + sorted({c.owner for c in battle.cards} - set(battle.players))
    in_play = [c for c in battle.cards if battle.holder(c.id) is None]
    missions = list(dict.fromkeys(c.mission or NO_MISSION for c in in_play))
    row_h = CARD_H + GAP * 2 + 0.4
    items: list[Shape] = []
    outlines: dict[str, tuple[XY, ...]] = {}
    x = 0.0
    top = 0.0
    bottom = -(len(players) * row_h) - 1.2
    for mission in missions:
        here = [c for c in in_play if (c.mission or NO_MISSION) == mission]
        widest = max([sum((CARD_H if c.swerved else CARD_W) + GAP for c in here if c.owner == p) for p in players]
                     + [CARD_W + GAP])
        width = max(widest + GAP, 6.0)
        items.append(Poly("mission", mission, title=f"mission {mission}", points=((x, bottom), (x + width, bottom),
                                                                              (x + width, top), (x, top))))
        items.append(Label("mission-name", mission, title=f"mission {mission}", at=(x + width / 2, top - 0.7),
                           text=mission, size=1.0))
        for row, player in enumerate(players):
            cx = x + GAP
            cy = top - 1.2 - row * row_h
            for card in (c for c in here if c.owner == player):
                group = _card_group(card, cx, cy)
                items.append(group)
                outlines[card.id] = _box(cx, cy, card.swerved)
                cx += (CARD_H if card.swerved else CARD_W) + GAP
        x += width + GAP
    return items, outlines, (-GAP, bottom - GAP, max(x, 8.0), top + GAP)


def _marks(battle: Battle, attacker: str, checks: Sequence[Check], outlines: dict[str, tuple[XY, ...]]) -> list[Shape]:
    out: list[Shape] = []
    if attacker in outlines:
        out.append(Poly("attacker", attacker, battle.card(attacker).owner, title=f"{attacker} begins ranged combat",
                        points=grown(outlines[attacker], 0.18)))
    for check in checks:
        if check.target is None or check.target not in outlines:
            continue
        card = battle.card(check.target)
        halo = grown(outlines[card.id], 0.18)
        if check.is_legal:
            out.append(Poly("legal-target", card.id, card.owner, state="legal",
                            title=f"{attacker} may begin ranged combat against {card.id}", points=halo))
        else:
            why = "; ".join(str(r) for r in check.refusals)
            clauses = ", ".join(dict.fromkeys(r.clause for r in check.refusals))
            out.append(Poly("refused-target", card.id, card.owner, state="refused", title=why, points=halo))
            out.append(Label("clause", card.id, card.owner, state="refused", title=why,
                             at=(halo[0][0] + 0.1, halo[0][1] - 0.55), text=f"✕ {clauses}", anchor="start",
                             size=0.9))
    return out


def _sides(ring: tuple[XY, ...]) -> list[XY]:
    """The middles of a card's four sides: an arrow between two cards runs between the nearest of them."""
    return [((ring[i][0] + ring[i - 1][0]) / 2, (ring[i][1] + ring[i - 1][1]) / 2) for i in range(len(ring))]


def _line(check: Check, outlines: dict[str, tuple[XY, ...]]) -> list[Shape]:
    """An arrow from the attacking card to its target: clear when the combat may begin, refused otherwise; the
    starting totals beside it [SW-2.3, SW-2.4]."""
    if check.target is None or check.attacker not in outlines or check.target not in outlines:
        return []
    start, end = min(((a, b) for a in _sides(outlines[check.attacker]) for b in _sides(outlines[check.target])),
                     key=lambda ab: (ab[0][0] - ab[1][0]) ** 2 + (ab[0][1] - ab[1][1]) ** 2)
    if isinstance(check.plan, CombatPlan):
        acc, speed, damage = check.plan.start
        text = f"accuracy {acc} vs speed {speed}, damage {damage}"
        title = f"{check.attacker} begins ranged combat against {check.target}: {text} [SW-2.3, SW-2.4]"
        state = "clear"
    else:
        title = "; ".join(str(r) for r in check.refusals)
        text = "refused: " + ", ".join(dict.fromkeys(r.clause for r in check.refusals))
        state = "refused"
    mid = ((start[0] + end[0]) / 2 + 0.3, (start[1] + end[1]) / 2)
    return [Segment("line-of-fire", f"{check.attacker}->{check.target}", state=state, title=title, start=start,
                    end=end, arrow=True),
            Label("range-label", title=title, at=mid, text=text, anchor="start")]


def scene(battle: Battle, check: Check | None = None, attacker_checks: Sequence[Check] | None = None,
          choices: Mapping[str, object] = NO_CHOICES) -> Scene:
    """The cards in play by mission; with an attacker's checks the cards it may target marked; with a
    target's check, an arrow from attacker to target."""
    del choices  # a line of play moves nothing on the table
    attacker = check.attacker if check is not None else (attacker_checks[0].attacker if attacker_checks else None)
    items, outlines, bounds = _layout(battle)
    if attacker is not None and attacker_checks:
        items += _marks(battle, attacker, attacker_checks, outlines)
    if check is not None:
        items += _line(check, outlines)
    sides = tuple(dict.fromkeys([*battle.players, *(c.owner for c in battle.cards)]))
    legend = [LegendEntry("card", f"{player}'s cards", side=player) for player in sides]
    if any(c.swerved for c in battle.cards):
        legend.append(LegendEntry("card", "a card turned sideways is swerved [SW-1.1]", state="swerved"))
    legend.append(LegendEntry("mission", "a mission: the cards in play there [SW-1.5]"))
    legend += mark_legend(items, {("line-of-fire", "clear"): "ranged combat may begin [SW-2.1, SW-2.2]",
                                  ("line-of-fire", "refused"): "ranged combat refused: the clause on the arrow"})
    notes = []
    for player, deck in battle.players.items():
        order = "top first" if deck.deck_order == "known" else "order unknown"
        shown_top = f", {deck.top_revealed} revealed on top" if deck.top_revealed is not None else ""
        notes.append(f"{player}'s deck ({order}{shown_top}): {', '.join(map(str, deck.deck)) or 'empty'}")
    for player, hand in battle.hands.items():
        cards = [battle.card(cid) for cid in hand]
        listed = "; ".join(f"{c.id} ({c.name or c.type}{', ' + c.timing if c.timing else ''})" for c in cards)
        notes.append(f"{player}'s hand: {listed or 'empty'}")
    if check is not None and check.plan is None:
        notes += [f"refused: {r}" for r in check.refusals]
    notes += refusal_notes(attacker_checks or (), check)
    title = battle.name or "swerve"
    if check is not None and check.target is not None:
        title += f": {check.attacker} begins ranged combat against {check.target}"
    return Scene(title=title, items=tuple(items), bounds=bounds, unit="", sides=sides,
                 legend=tuple(legend), notes=tuple(notes), scale=SCALE)


__all__ = ["scene"]
