"""A swerve ranged combat as a state machine: begin, actions in turn, reveal, winner, damage [SW-2 to SW-5].

The static side (:class:`Combat`: who attacks with what, against what, holding which cards) is separate from
the moving side (:class:`State`: the totals, whose turn, what has been spent). Legality is separate from
generation: :meth:`Combat.refusal` says why an action is illegal, :meth:`Combat.legal` lists the legal ones.
The odds search (:meth:`Combat.value`) treats each player as maximising its own chance of winning and the
reveal as chance [SW-6].
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import Literal, TypeVar

from rangefire.core import LimitError, LogLine, Refusal
from rangefire.core.options import house_note
from rangefire.dice import Dist
from rangefire.rulesets.swerve import search
from rangefire.rulesets.swerve.scenario import Battle, Card, Options
from rangefire.rulesets.swerve.search import (
    ROLES,
    Completion,
    Group,
    Move,
    Position,
    Role,
    Score,
    exhaustive_work,
    frontier_bound,
    group_options,
    max_exhaustive_actions,
    max_search_actions,
    search_work,
    undominated,
)

#: The rules' values of the options: a log line names a house rule beside them.
RULES = Options()
#: Lines of play listed by ``odds`` before the list is cut (the best line is always searched in full).
MAX_LINES = 2000
def timings_text(timings: tuple[str, ...]) -> str:
    """``Combat and Ranged Combat``: timings as the cards print them [SW-1.3]."""
    names = [t.replace("-", " ").title() for t in timings] or ["nothing"]
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def _ruled(shown: str, rules: str) -> str:
    return "" if shown == rules else f" {house_note(shown, rules)}"


def card_name(card: Card) -> str:
    """A card as a player knows it: its printed name, else its id."""
    return card.name or card.id


def not_in_play(card: Card, holder: str | None) -> str | None:
    """Why a card does not act, or None when it is in play: at a mission and not in ``holder``'s hand [SW-1.5]."""
    if holder is not None:
        return f"{card.id} is in {holder}'s hand, not in play"
    if card.mission is None:
        return f"{card.id} is at no mission: only cards in play (at a mission) act"
    return None


@dataclass(frozen=True)
class Action:
    """One action of stage 1: ``attacker:pass``, ``defender:swerve-target``, ``defender:play:ID``,
    ``attacker:use:ID`` (an activated ability), or ``ROLE:swerve:ID`` (refused in ranged combat).

    >>> Action.parse("defender:play:smoke-bomb")
    Action('defender', 'play', 'smoke-bomb')
    >>> str(Action("attacker", "pass"))
    'attacker:pass'
    """

    role: Role
    kind: Literal["pass", "swerve-target", "play", "use", "swerve"]
    card: str | None = None

    def __repr__(self) -> str:
        card = f", {self.card!r}" if self.card else ""
        return f"Action({self.role!r}, {self.kind!r}{card})"

    def __str__(self) -> str:
        return self.text

    @cached_property
    def text(self) -> str:
        """The action as written (kept: ``odds`` writes the same actions over and over in its lines of play)."""
        return f"{self.role}:{self.kind}" + (f":{self.card}" if self.card else "")

    @classmethod
    def parse(cls, text: str, players: dict[str, Role] | None = None) -> Action:
        """Read ``ROLE:ACTION[:CARD]``; a player's name may stand for its role."""
        parts = [p.strip() for p in text.strip().split(":")]
        who = parts[0]
        role = who if who in ROLES else (players or {}).get(who)
        if role is None:
            raise ValueError(f"{text!r}: begin with attacker: or defender: (or a player's name)")
        kind = parts[1] if len(parts) > 1 else ""
        if kind in ("pass", "swerve-target") and len(parts) == 2:
            return cls(role, kind)  # type: ignore[arg-type]
        if kind in ("play", "use", "swerve") and len(parts) == 3 and parts[2]:
            return cls(role, kind, parts[2])  # type: ignore[arg-type]
        raise ValueError(f"{text!r}: the actions are pass, swerve-target, play:CARD, use:CARD")


@dataclass(frozen=True)
class State:
    """The moving side of a combat: totals, whose turn, consecutive passes, cards spent in this combat (swerved
    to pay a cost, or tactics played) and cards whose ability was used in it."""

    accuracy: int
    speed: int
    damage: int
    turn: Role = "attacker"
    passes: int = 0
    spent: frozenset[str] = frozenset()
    used: frozenset[str] = frozenset()
    history: tuple[Action, ...] = ()

    @property
    def is_over(self) -> bool:
        """Stage 1 ends when both players pass in succession [SW-3.2]."""
        return self.passes >= 2

    @property
    def key(self) -> StateKey:
        return (self.accuracy, self.speed, self.damage, self.turn, self.passes, self.spent, self.used)


StateKey = tuple[int, int, int, str, int, frozenset[str], frozenset[str]]


class Combat:
    """One ranged combat's fixed facts: the launcher, the target, the players' cards, the deck, the options."""

    def __init__(self, battle: Battle, launcher: Card, target: Card) -> None:
        assert launcher.ranged is not None
        self.battle = battle
        self.launcher = launcher
        self.target = target
        self.players: dict[str, Role] = {launcher.owner: "attacker", target.owner: "defender"}
        self.owner: dict[Role, str] = {"attacker": launcher.owner, "defender": target.owner}
        self.ties_to_attacker = battle.options.attacker_wins_ties
        #: The launcher paid "swerve this" to begin: it is swerved from then on [SW-2.5].
        self.launcher_paid = launcher.ranged.cost == "swerve-self"
        self.cards = {card.id: card for card in battle.cards}
        self.holders = {cid: player for player, hand in battle.hands.items() for cid in hand}
        # Listed once, without the actions refused at the start: the search asks for them at every position, and
        # what is refused at the start stays refused (cards only become swerved, spent or used as a combat goes on).
        self._candidates: dict[Role, tuple[Action, ...]] = {role: () for role in ROLES}
        start = self.start()
        for role in ROLES:
            turned = replace(start, turn=role)
            self._candidates[role] = tuple(a for a in self._all_candidates(role)
                                           if a.kind == "pass" or self.refusal(turned, a) is None)
        self._exhaustive: dict[StateKey, Score] = {}  # the reference's scores (a dict: no cycle back to self)
        self._scores: dict[Position, Score] = {}
        self._completed: dict[int, Completion] = {}
        self._frontiers: dict[int, tuple[tuple[int, int], ...]] = {}
        self._outcomes: dict[tuple[int, int, int], Dist[tuple[bool, int]]] = {}
        self._reveal = sorted(self.bonus_options()) or [self.known_bonus()]
        self._reveal_count = len(self._reveal)
        self._index_moves()


    # -- beginning ---------------------------------------------------------------------------------
    def start(self) -> State:
        """Totals at the start [SW-2.3, SW-2.4]: the launcher's accuracy and damage, the target's speed."""
        assert self.launcher.ranged is not None
        return State(accuracy=self.launcher.ranged.accuracy, speed=self.target.speed or 0,
                     damage=self.launcher.ranged.damage)

    # -- legality and generation -------------------------------------------------------------------
    def candidates(self, role: Role) -> tuple[Action, ...]:
        """Every action a role might try, pass first (so that, all else equal, best play passes)."""
        return self._candidates[role]

    def _all_candidates(self, role: Role) -> Iterator[Action]:
        yield Action(role, "pass")
        if role == "defender":
            yield Action(role, "swerve-target")
        for cid in self.battle.hands.get(self.owner[role], ()):
            yield Action(role, "play", cid)
        for card in self.battle.cards:
            if card.owner == self.owner[role] and card.type != "tactic" and card.effect is not None:
                yield Action(role, "use", card.id)

    def legal(self, state: State) -> list[Action]:
        if state.is_over:
            return []
        return [a for a in self.candidates(state.turn) if self.refusal(state, a) is None]

    def label(self, action: Action) -> str:
        """An action as a player reads it: the card's name and what it adds on the acting role's side, as
        :meth:`after` counts it (``play Smoke Screen: +10 speed``, ``swerve Dune Buggy: +25 speed``, ``use Spotter:
        +10 accuracy, swerving it``, ``pass``) [SW-3.1, SW-3.4, SW-3.5]. Text, never a rule: a refused action is
        labelled all the same, its refusal said by :meth:`refusal`."""
        if action.kind == "pass":
            return "pass"
        if action.kind == "swerve-target" or (action.kind == "swerve" and action.card == self.target.id):
            speed = (self.target.speed or 0) * self.battle.options.target_swerve_speed
            return f"swerve {card_name(self.target)}: +{speed} speed"
        card = self.cards.get(action.card or "")
        if card is None:
            return str(action)
        if action.kind == "swerve" or card.effect is None:
            return f"{action.kind} {card_name(card)}"
        effect = card.effect
        counted = ((("accuracy", effect.accuracy), ("damage", effect.damage)) if action.role == "attacker"
                   else (("speed", effect.speed),))
        changes = ", ".join(f"{value:+d} {total}" for total, value in counted if value)
        text = f"{action.kind} {card_name(card)}: {changes or f'nothing on the {action.role} side'}"
        if action.kind == "use" and card.ability_cost == "swerve-self":
            text += ", swerving it"
        return text

    def _is_swerved(self, state: State, card: Card) -> bool:
        return card.swerved or card.id in state.spent or (card.id == self.launcher.id and self.launcher_paid)

    def refusal(self, state: State, action: Action) -> Refusal | None:
        """Why ``action`` may not be taken now, with the clause; None when it may."""
        if state.is_over:
            return Refusal("SW-3.2", "the actions stage is over: both players passed in succession")
        if action.role != state.turn:
            return Refusal("SW-3.1", f"it is the {state.turn}'s turn ({self.owner[state.turn]}), not the "
                                     f"{action.role}'s")
        if action.kind == "pass":
            return None
        if action.kind == "swerve" and action.card == self.target.id:
            action = Action(action.role, "swerve-target")
        if action.kind == "swerve-target" or action.kind == "swerve":
            if action.role == "attacker":
                return Refusal("SW-3.3", "the attacker may not swerve cards to add to total accuracy or damage")
            if action.kind == "swerve":
                return Refusal("SW-2.2", f"{action.card} takes no part: only the target may be swerved to add "
                                         "its speed")
            if self._is_swerved(state, self.target):
                return Refusal("SW-3.4", f"{self.target.id} is already swerved")
            return None
        assert action.card is not None
        card = self.cards.get(action.card)
        if card is None:
            return Refusal("SW-1.1", f"no card has the id {action.card!r}")
        player = self.owner[action.role]
        if action.kind == "play":
            if card.type != "tactic":
                return Refusal("SW-1.3", f"{card.id} is a {card.type}, not a tactic: it is not played from hand")
            if card.id not in self.battle.hands.get(player, ()) or card.id in state.spent:
                return Refusal("SW-1.4", f"{card.id} is not in {player}'s hand")
        else:
            if card.owner != player:
                return Refusal("SW-1.1", f"{card.id} belongs to {card.owner}, not {player}")
            if card.type == "tactic" or card.effect is None:
                return Refusal("SW-1.3", f"{card.id} has no activated ability")
            away = not_in_play(card, self.holders.get(card.id))
            if away is not None:
                return Refusal("SW-1.5", f"{away}: its abilities cannot be used")
            if card.id in state.used:
                # a cost of none could otherwise be paid without end; each ability is used once in a combat
                return Refusal("SW-1.6", f"{card.id}'s ability has been used in this combat")
            if card.ability_cost == "swerve-self" and self._is_swerved(state, card):
                if card.id == self.launcher.id and self.launcher_paid and not card.swerved:
                    return Refusal("SW-2.5", f"{card.id} was swerved to begin this ranged combat: it cannot pay "
                                             "\"swerve this\" again for its own ability")
                return Refusal("SW-1.6", f"{card.id} is swerved: it cannot pay \"swerve this\" for its ability")
        usable = self.battle.options.usable_timings
        if card.timing not in usable:
            timing = card.timing or "no timing"
            return Refusal("SW-3.5", f"{card.id} is timed {timing}: only {timings_text(usable)} "
                                     f"{'is' if len(usable) == 1 else 'are'} usable here"
                                     f"{_ruled(timings_text(usable), timings_text(RULES.usable_timings))}")
        return None

    def after(self, state: State, action: Action) -> tuple[State, LogLine]:
        """The state after a legal action, and its log line."""
        role = action.role
        other: Role = "defender" if role == "attacker" else "attacker"
        nxt = replace(state, turn=other, history=(*state.history, action))
        who = f"{self.owner[role]} ({role})"
        if action.kind == "pass":
            return replace(nxt, passes=state.passes + 1), LogLine("SW-3.1", f"{who} passes")
        nxt = replace(nxt, passes=0)
        if action.kind in ("swerve-target", "swerve"):
            times = self.battle.options.target_swerve_speed
            speed = (self.target.speed or 0) * times
            rule = "" if times == RULES.target_swerve_speed else \
                f" ({times} times its speed {house_note(str(times), str(RULES.target_swerve_speed))})"
            return (replace(nxt, speed=state.speed + speed, spent=state.spent | {self.target.id}),
                    LogLine("SW-3.4", f"{who} swerves {self.target.id}: total speed {state.speed} + {speed}{rule} = "
                                      f"{state.speed + speed}"))
        assert action.card is not None
        card = self.cards[action.card]
        effect = card.effect
        assert effect is not None, "a tactic or ability without an effect is refused when read [SW-1.6]"
        if action.kind == "play":
            nxt, verb = replace(nxt, spent=state.spent | {card.id}), "plays"
        elif card.ability_cost == "none":
            nxt, verb = replace(nxt, used=state.used | {card.id}), "uses (at no cost)"
        else:
            nxt, verb = replace(nxt, spent=state.spent | {card.id}, used=state.used | {card.id}), "swerves to use"
        changes = []
        if role == "attacker":
            nxt = replace(nxt, accuracy=nxt.accuracy + effect.accuracy, damage=nxt.damage + effect.damage)
            changes += [f"accuracy {effect.accuracy:+d}"] if effect.accuracy else []
            changes += [f"damage {effect.damage:+d}"] if effect.damage else []
            idle = ["speed"] if effect.speed else []
        else:
            nxt = replace(nxt, speed=nxt.speed + effect.speed)
            changes += [f"speed {effect.speed:+d}"] if effect.speed else []
            # a ranged defender has no accuracy to raise and deals no damage [SW-5.2]
            idle = [k for k in ("accuracy", "damage") if getattr(effect, k)]
        text = f"{who} {verb} {card.id}: " + (", ".join(changes) or "no change")
        if idle:
            counts = "counts" if len(idle) == 1 else "count"
            text += f" ({' and '.join(idle)} {counts} for nothing on the {role}'s side)"
        text += f"; accuracy {nxt.accuracy}, speed {nxt.speed}, damage {nxt.damage}"
        return nxt, LogLine("SW-3.5", text)

    def play(self, state: State, actions: list[Action]) -> tuple[State, list[LogLine], Refusal | None, int]:
        """Replay actions in order; stops at the first illegal one (returned with its index)."""
        log: list[LogLine] = []
        for i, action in enumerate(actions):
            refusal = self.refusal(state, action)
            if refusal is not None:
                return state, log, refusal, i
            state, line = self.after(state, action)
            log.append(line)
        return state, log, None, len(actions)

    # -- the reveal and the winner -----------------------------------------------------------------
    def bonus_options(self) -> tuple[int, ...]:
        """What the reveal can show, one entry per card [SW-4.1, SW-4.2, SW-6.1]; () when it is known."""
        player = self.battle.players[self.owner["attacker"]]
        if player.top_revealed is not None or player.deck_order == "known" or not player.deck:
            return ()
        return player.deck

    def known_bonus(self) -> int:
        player = self.battle.players[self.owner["attacker"]]
        if player.top_revealed is not None:
            return player.top_revealed
        # an empty deck gives 0 by the rules [SW-4.2]: the battle's option says what it gives
        return player.deck[0] if player.deck else self.battle.options.empty_deck_bonus

    def bonus(self) -> Dist[int]:
        """The combat bonus the reveal shows: each card left equally likely when the order is unknown."""
        options = self.bonus_options()
        if not options:
            return Dist.constant(self.known_bonus())
        counts: dict[int, int] = {}
        for b in options:
            counts[b] = counts.get(b, 0) + 1
        return Dist(counts)

    def attacker_wins(self, state: State, bonus: int) -> bool:
        """The higher total wins; equal totals go to the defender unless the option says otherwise [SW-4.3]."""
        accuracy = state.accuracy + bonus
        return accuracy > state.speed or (accuracy == state.speed and self.ties_to_attacker)

    def damage_dealt(self, state: State, wins: bool) -> int:
        """The attacker's total damage when it wins [SW-5.1]; nothing when the defender wins [SW-5.2]."""
        return max(0, state.damage) if wins else 0

    def outcome(self, state: State) -> Dist[tuple[bool, int]]:
        """(attacker wins, damage) over the reveal, for a finished stage 1 (the same totals, the same answer:
        ``odds`` asks it of every line of play listed)."""
        totals = (state.accuracy, state.speed, state.damage)
        found = self._outcomes.get(totals)
        if found is None:
            found = self._outcomes[totals] = self.bonus().map(
                lambda b: (w := self.attacker_wins(state, b), self.damage_dealt(state, w)))
        return found

    # -- best play [SW-6.2] ------------------------------------------------------------------------
    # Why the search is small (the proof behind :meth:`_complete`). Each side's actions touch only its own cards,
    # so what one side may still do never depends on what the other did; and more speed never helps the
    # attacker (its chance and its expected damage only fall). Take a position where the mover has not just been
    # handed the end of the stage (no pass pending). If the defender plays, before it ever passes, the legal
    # completion adding the most speed, the attacker can do no better than its own best completion against that
    # speed; if the attacker plays that completion before it ever passes, it is sure of at least as much, since
    # no legal completion of the defender's adds more speed. Neither can be stopped: the stage ends only on two
    # passes in succession [SW-3.2] and neither passes with cards of its completion left. So that position is
    # worth the leaf its two completions reach, whatever the order. Where a pass is pending, the mover ends the
    # stage or acts (handing the other side a fresh turn, a position of the first kind): the better of those.
    # The search is therefore a handful of leaves per position, never a tree; :meth:`exhaustive_score` walks
    # the tree (every set of cards played, memoised) and stays as the reference it is tested against.

    def search_size(self, state: State) -> int:
        """How many actions are still open to the two players from ``state``: what the best-play search's
        work grows with. Cheap: one legality check per card, no search."""
        open_actions = set()
        for role in ROLES:
            turned = replace(state, turn=role, passes=0)
            open_actions |= {a for a in self.candidates(role) if a.kind != "pass" and self.refusal(turned, a) is None}
        return len(open_actions)

    def require_searchable(self, state: State, *, exhaustive: bool = False) -> None:
        """Refuse, before any search, a position whose best play the search cannot answer within a second or
        so (or, with ``exhaustive``, the reference search within a few seconds)."""
        size = self.search_size(state)
        if exhaustive or not self._moves_independent:
            bonuses = len(set(self.bonus_options())) or 1
            if exhaustive_work(size, bonuses) > search.MAX_EXHAUSTIVE_WORK:  # search.py's bounds, read at each call
                most = max_exhaustive_actions(bonuses)
                shown = f"{bonuses} combat bonus" + ("es" if bonuses != 1 else "")
                raise LimitError(f"best play is not searched with more than {most} actions open to the players "
                                 f"(here {size}) when the reveal may show {shown}: the search would run too long; "
                                 "give the start of the line of play as the choice actions (a longer start leaves "
                                 "fewer open)")
            return
        if search_work(size, self._frontier_bound) > search.MAX_SEARCH_WORK:
            most = max_search_actions(self._frontier_bound)
            mixed = "" if self._frontier_bound == 1 else (
                f" when the attacker's cards trade accuracy against damage {self._frontier_bound} ways")
            raise LimitError(f"best play is not searched with more than {most} actions open to the players (here "
                             f"{size}){mixed}: the search would run too long; give the start of the line "
                             "of play as the choice actions (a longer start leaves fewer open)")

    def value(self, state: State, *, exhaustive: bool = False) -> Fraction:
        """P(attacker wins) when both sides play their best from ``state`` (the attacker maximises it,
        the defender minimises it; the reveal is chance)."""
        self.require_searchable(state, exhaustive=exhaustive)
        return (self.exhaustive_score(state) if exhaustive else self.score(state))[0]

    def score(self, state: State) -> Score:
        """(P(attacker wins), expected damage) under best play. Each side first plays for its chance of
        winning; between lines equally good for that, the attacker prefers more damage and the defender
        less, and between lines equal in both, the earlier action (pass first)."""
        if not self._moves_independent:
            return self.exhaustive_score(state)
        return self._search(self._position(state))

    def best_line(self, state: State, *, exhaustive: bool = False) -> list[Action]:
        """The line both sides play from ``state``: at each turn the first legal action (pass first) that keeps
        the mover's best score."""
        self.require_searchable(state, exhaustive=exhaustive)
        if exhaustive or not self._moves_independent:
            line = []
            while not state.is_over:
                action = self._best_action(state)
                line.append(action)
                state, _ = self.after(state, action)
            return line
        pos, out = self._position(state), []
        while pos[1] < 2:
            best: tuple[Score, Action, Position] | None = None
            for action, child, move in self._children(pos):
                if move is not None:
                    self._completions_after(pos[5], move)
                v = self._search(child)
                if best is None or (v > best[0] if pos[0] == "attacker" else v < best[0]):
                    best = (v, action, child)
            assert best is not None
            out.append(best[1])
            pos = best[2]
        return out

    # -- the search over positions: (turn, passes, accuracy, speed, damage, bits of the moves still open) --------
    def _index_moves(self) -> None:
        """Every action open at the start as a :class:`Move`, with the moves it closes. An action's legality
        turns only on its own card being spent or used, and an action spends or uses only its own card (or
        the target): so only moves naming the same card can close each other, and which do is asked of
        :meth:`refusal` once, here."""
        start = self.start()
        found: list[tuple[Action, State, State]] = []
        for role in ROLES:
            turned = replace(start, turn=role)
            found += [(a, turned, self.after(turned, a)[0]) for a in self._candidates[role] if a.kind != "pass"]
        by_card: dict[str | None, list[int]] = {}
        for i, (a, _, _) in enumerate(found):
            by_card.setdefault(a.card if a.kind != "swerve-target" else self.target.id, []).append(i)
        closes = [1 << i for i in range(len(found))]
        for same in by_card.values():
            for i in same:
                for j in same:
                    b = found[j][0]
                    if i != j and self.refusal(replace(found[i][2], turn=b.role, passes=0), b):
                        closes[i] |= 1 << j
        # The proof below needs each side's moves to touch only its own totals and cards, and a move closing
        # another to be closed by it in turn (else the order of a side's own cards would matter). The rules
        # make it so; were it ever otherwise, the reference search answers instead.
        own_totals = all(after.speed == before.speed if a.role == "attacker" else
                         (after.accuracy, after.damage) == (before.accuracy, before.damage)
                         for a, before, after in found)
        mutual = all(closes[j] >> i & 1 and found[i][0].role == found[j][0].role
                     for same in by_card.values() for i in same for j in same if closes[i] >> j & 1)
        self._moves_independent = own_totals and mutual
        self._moves = {role: tuple(
            Move(a, after.accuracy - before.accuracy, after.speed - before.speed, after.damage - before.damage,
                 1 << i, closes[i], after.spent, after.used)
            for i, (a, before, after) in enumerate(found) if a.role == role) for role in ROLES}
        move_of = {m.bit: m for role in ROLES for m in self._moves[role]}
        self._groups = tuple(Group(role, tuple(move_of[1 << i] for i in same if found[i][0].role == role))
                             for same in by_card.values() for role in ROLES
                             if any(found[i][0].role == role for i in same))
        self._group_of = {m.bit: g for g in self._groups for m in g.moves}
        self._mixed = tuple(g for g in self._groups if g.mixed)
        self._mixed_bits = sum(m.bit for g in self._mixed for m in g.moves)
        self._frontier_bound = frontier_bound(self._mixed)

    def _position(self, state: State) -> Position:
        """A state as the search sees it: the cards spent and used become the bits of the moves still open."""
        mask = 0
        for role in ROLES:
            turned = replace(state, turn=role, passes=0)
            for move in self._moves[role]:
                if self.refusal(turned, move.action) is None:
                    mask |= move.bit
        return state.turn, state.passes, state.accuracy, state.speed, state.damage, mask

    def _children(self, pos: Position) -> Iterator[tuple[Action, Position, Move | None]]:
        """The legal actions from a position, in the order of :meth:`legal` (pass first), with where each leads."""
        turn, passes, acc, speed, dmg, mask = pos
        other: Role = "defender" if turn == "attacker" else "attacker"
        yield Action(turn, "pass"), (other, passes + 1, acc, speed, dmg, mask), None
        for m in self._moves[turn]:
            if mask & m.bit:
                yield m.action, (other, 0, acc + m.accuracy, speed + m.speed, dmg + m.damage, mask & ~m.closes), m

    def _search(self, pos: Position) -> Score:
        found = self._scores.get(pos)
        if found is None:
            found = self._scores[pos] = self._search_uncached(pos)
        return found

    def _search_uncached(self, pos: Position) -> Score:
        turn, passes, acc, speed, dmg, mask = pos
        if passes >= 2:
            return self._leaf(acc, speed, dmg)
        if passes == 0:
            return self._complete(acc, speed, dmg, self._completions(mask))
        # a pass is pending: end the stage now, or act and hand the other side a fresh turn
        options = [self._leaf(acc, speed, dmg)]
        options += [self._complete(acc + m.accuracy, speed + m.speed, dmg + m.damage, self._completions_after(mask, m))
                    for m in self._moves[turn] if mask & m.bit]
        return max(options) if turn == "attacker" else min(options)

    def _complete(self, acc: int, speed: int, dmg: int, completion: Completion) -> Score:
        """The worth of a position with no pass pending: the defender's completion adding the most speed
        against the attacker's best completion (see the proof above)."""
        more_speed, more_acc, more_dmg, frontier = completion
        acc, speed, dmg = acc + more_acc, speed + more_speed, dmg + more_dmg
        return max(self._leaf(acc + da, speed, dmg + dd) for da, dd in frontier)

    def _completions(self, mask: int) -> Completion:
        """For the moves still open: the most speed a legal set of the defender's adds; what the attacker's
        cards that only help or only hinder it add when those that help are played; and the (accuracy, damage)
        its other cards may add, each pair not bettered in both by another."""
        found = self._completed.get(mask)
        if found is None:
            speed = acc = dmg = 0
            for group in self._groups:
                if not group.mixed:
                    a, s, d = group.gain(mask)
                    speed, acc, dmg = speed + s, acc + a, dmg + d
            found = self._completed[mask] = (speed, acc, dmg, self._frontier(mask & self._mixed_bits))
        return found

    def _completions_after(self, mask: int, move: Move) -> Completion:
        """:meth:`_completions` once ``move`` is played, from those before it: only its own group changes."""
        after = mask & ~move.closes
        found = self._completed.get(after)
        if found is None:
            speed, acc, dmg, frontier = self._completions(mask)
            group = self._group_of[move.bit]
            if group.mixed:
                frontier = self._frontier(after & self._mixed_bits)
            else:
                (a0, s0, d0), (a1, s1, d1) = group.gain(mask), group.gain(after)
                speed, acc, dmg = speed + s1 - s0, acc + a1 - a0, dmg + d1 - d0
            found = self._completed[after] = (speed, acc, dmg, frontier)
        return found

    def _frontier(self, mask: int) -> tuple[tuple[int, int], ...]:
        found = self._frontiers.get(mask)
        if found is None:
            frontier: list[tuple[int, int]] = [(0, 0)]
            for group in self._mixed:
                options = group_options(group.moves, mask)
                frontier = undominated([(a + da, d + dd) for a, d in frontier for da, _, dd in options])
            found = self._frontiers[mask] = tuple(frontier)
        return found

    def _leaf(self, acc: int, speed: int, dmg: int) -> Score:
        """(P(attacker wins), expected damage) of a finished stage 1 [SW-4.3, SW-5.1, SW-6.1]: the attacker wins
        on a bonus above speed - accuracy (or equal to it, with the option), of the bonuses counted by value."""
        need = speed - acc
        wins = self._reveal_count - (bisect_left if self.ties_to_attacker else bisect_right)(self._reveal, need)
        p = Fraction(wins, self._reveal_count)
        return p, p * max(0, dmg)

    # -- the reference: every set of cards played, memoised ---------------------------------------------
    def exhaustive_score(self, state: State) -> Score:
        """:meth:`score` by walking every position (every set of cards played, each side to move, a pass
        pending or not): exponential in the actions open, kept as the reference the search is tested against."""
        found = self._exhaustive.get(state.key)
        if found is None:
            found = self._exhaustive[state.key] = self._exhaustive_uncached(state)
        return found

    def _exhaustive_uncached(self, state: State) -> Score:
        if state.is_over:
            outcome = self.outcome(state)
            return outcome.p(lambda o: o[0]), outcome.map(lambda o: o[1]).mean()
        scores = [self.exhaustive_score(self.after(state, a)[0]) for a in self.legal(state)]
        return max(scores) if state.turn == "attacker" else min(scores)

    def _best_action(self, state: State) -> Action:
        """The first legal action (pass first) that keeps the mover's best score, by the reference search."""
        best: tuple[Score, Action] | None = None
        for action in self.legal(state):
            v = self.exhaustive_score(self.after(state, action)[0])
            better = best is None or (v > best[0] if state.turn == "attacker" else v < best[0])
            if better:
                best = (v, action)
        assert best is not None
        return best[1]

    # -- the lines of play listed by odds ---------------------------------------------------------------
    def lines(self, state: State, limit: int = MAX_LINES) -> tuple[list[tuple[tuple[Action, ...], State]], bool]:
        """Every line of play from ``state`` to the end of stage 1 (up to ``limit``), each with its final state,
        depth first, pass first; and whether the list was cut. Each position is expanded only when it is
        reached, so a cut list costs what it lists, not the siblings left behind."""
        if state.is_over:
            return [((), state)], False
        if not self._moves_independent:
            return self._lines_by_rules(state, limit)

        def pay(paid: tuple[frozenset[str], frozenset[str]], move: Move) -> tuple[frozenset[str], frozenset[str]]:
            return paid[0] | move.spent, paid[1] | move.used

        ends, cut = self._walk(state, limit, lambda a: a, (state.spent, state.used), pay)
        return [(line, State(acc, speed, dmg, "defender" if line[-1].role == "attacker" else "attacker", 2, spent,
                             used, (*state.history, *line)))
                for line, (acc, speed, dmg), (spent, used) in ends], cut

    def line_totals(self, state: State, limit: int = MAX_LINES) -> tuple[list[tuple[tuple[str, ...], Totals]], bool]:
        """:meth:`lines` as ``odds`` lists them: each line's actions as written and its totals at the end
        (accuracy, speed, damage: all its odds turn on), with no state built for each line."""
        if state.is_over or not self._moves_independent:
            found, cut = self.lines(state, limit)
            return [(tuple(a.text for a in line), (s.accuracy, s.speed, s.damage)) for line, s in found], cut
        ends, cut = self._walk(state, limit, lambda a: a.text, None, None)
        return [(line, totals) for line, totals, _ in ends], cut

    def _walk(self, state: State, limit: int, label: Callable[[Action], L], carried: C,
              carry: Callable[[C, Move], C] | None) -> tuple[list[tuple[tuple[L, ...], Totals, C]], bool]:
        """The lines of play from ``state`` (not over), depth first, pass first; and whether the list was cut at
        ``limit``. Each line comes as ``label`` writes its actions (asked once for each action open, not for each
        line), with its totals at the end and what ``carry`` made of ``carried`` along it (nothing asked
        without ``carry``)."""
        out: list[tuple[tuple[L, ...], Totals, C]] = []
        passes = {role: label(Action(role, "pass")) for role in ROLES}
        moves = {role: [(label(m.action), m) for m in self._moves[role]] for role in ROLES}
        # a side's children turn only on the moves still open: listed once for each (side, moves open), last
        # first, None for the pass
        listed: dict[tuple[Role, int], tuple[tuple[L, Move] | None, ...]] = {}
        # the line to the deepest frame; each frame: its position, what was carried to it, its children not yet
        # tried
        path: list[L] = []
        frames: list[tuple[Position, C, list[tuple[L, Move] | None]]] = []

        def enter(pos: Position, carried: C) -> None:
            key = pos[0], pos[5]
            children = listed.get(key)
            if children is None:
                children = listed[key] = (*reversed([c for c in moves[pos[0]] if pos[5] & c[1].bit]), None)
            frames.append((pos, carried, list(children)))

        enter(self._position(state), carried)
        while frames:
            (turn, pending, acc, speed, dmg, mask), carried, children = frames[-1]
            if not children:
                frames.pop()
                if path:
                    path.pop()
                continue
            child = children.pop()
            other: Role = "defender" if turn == "attacker" else "attacker"
            if child is None and pending:  # the second pass in succession ends the stage [SW-3.2]
                out.append(((*path, passes[turn]), (acc, speed, dmg), carried))
                if len(out) >= limit:
                    return out, any(f[2] for f in frames)
            elif child is None:
                path.append(passes[turn])
                enter((other, 1, acc, speed, dmg, mask), carried)
            else:
                text, m = child
                path.append(text)
                enter((other, 0, acc + m.accuracy, speed + m.speed, dmg + m.damage, mask & ~m.closes),
                      carried if carry is None else carry(carried, m))
        return out, False

    def _lines_by_rules(self, state: State, limit: int) -> tuple[list[tuple[tuple[Action, ...], State]], bool]:
        out: list[tuple[tuple[Action, ...], State]] = []
        stack: list[tuple[tuple[Action, ...], State]] = [((), state)]
        while stack:
            prefix, s = stack.pop()
            if s.is_over:
                out.append((prefix, s))
                if len(out) >= limit:
                    return out, bool(stack)
                continue
            for action in reversed(self.legal(s)):
                stack.append(((*prefix, action), self.after(s, action)[0]))
        return out, False


#: A finished stage 1's totals: accuracy, speed, damage.
Totals = tuple[int, int, int]
L = TypeVar("L")
C = TypeVar("C")
