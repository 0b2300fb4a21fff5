"""A swerve ranged combat as a state machine: begin, actions in turn, reveal, winner, damage [SW-2 to SW-5].

The static side (:class:`Combat`: who attacks with what, against what, holding which cards) is separate from
the moving side (:class:`State`: the totals, whose turn, what has been spent). Legality is separate from
generation: :meth:`Combat.refusal` says why an action is illegal, :meth:`Combat.legal` lists the legal ones.
The odds search (:meth:`Combat.value`) treats each player as maximising its own chance of winning and the
reveal as chance [SW-6].
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from rangefire.core import LimitError, LogLine, Refusal
from rangefire.dice import Dist
from rangefire.rulesets.swerve.scenario import Battle, Card

Role = Literal["attacker", "defender"]
ROLES: tuple[Role, Role] = ("attacker", "defender")
USABLE_TIMINGS = ("combat", "ranged-combat")
#: Lines of play listed by ``odds`` before the list is cut (the best line is always searched in full).
MAX_LINES = 2000
#: The most work the best-play search is given, in the units of :func:`search_work`. The search visits every
#: set of the k actions open to the players (2**k positions, each weighing k actions) and judges every finished
#: one against each different combat bonus left in the deck (D), so its work is about 2**k * (10 k + D).
#: Measured in CPU time on a small machine: 10 actions with 10 different bonuses (113,000 units) 0.5 s, 11 with
#: 10 (246,000) 1.1 s, 11 with 50 (328,000) 2.0 s, 10 with 200 (307,000) 1.7 s, 12 with 4 (508,000) 2.7 s, 13
#: (over 1.1 million) 5 s or more. This bound admits 10 actions with any deck, 11 with up to 46 different bonuses
#: and never 12, so that every answer comes within about 2 s of CPU time (3 s with the machine shared). A
#: position beyond it is refused before any search, not cut off by a timer.
MAX_SEARCH_WORK = 320_000


def search_work(actions: int, bonuses: int) -> int:
    """The best-play search's work, in units of about 5 microseconds, for ``actions`` actions open to the
    players and ``bonuses`` different combat bonuses the reveal may show."""
    return (1 << actions) * (10 * actions + bonuses)


def max_search_actions(bonuses: int) -> int:
    """The most open actions searched with ``bonuses`` different combat bonuses in the deck."""
    k = 0
    while search_work(k + 1, bonuses) <= MAX_SEARCH_WORK:
        k += 1
    return k


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
        self._value = lru_cache(maxsize=None)(self._value_uncached)


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
        if card.timing not in USABLE_TIMINGS:
            timing = card.timing or "no timing"
            return Refusal("SW-3.5", f"{card.id} is timed {timing}: only Combat and Ranged Combat are usable here")
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
            speed = self.target.speed or 0
            return (replace(nxt, speed=state.speed + speed, spent=state.spent | {self.target.id}),
                    LogLine("SW-3.4", f"{who} swerves {self.target.id}: total speed {state.speed} + {speed} = "
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
        return player.deck[0] if player.deck else 0  # an empty deck gives 0 [SW-4.2]

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
        """(attacker wins, damage) over the reveal, for a finished stage 1."""
        return self.bonus().map(lambda b: (w := self.attacker_wins(state, b), self.damage_dealt(state, w)))

    # -- best play [SW-6.2] ------------------------------------------------------------------------
    def search_size(self, state: State) -> int:
        """How many actions are still open to the two players from ``state``: what the best-play search's
        work grows with. Cheap: one legality check per card, no search."""
        open_actions = set()
        for role in ROLES:
            turned = replace(state, turn=role, passes=0)
            open_actions |= {a for a in self.candidates(role) if a.kind != "pass" and self.refusal(turned, a) is None}
        return len(open_actions)

    def require_searchable(self, state: State) -> None:
        """Refuse, before any search, a position whose best play the search cannot answer within seconds."""
        size, bonuses = self.search_size(state), len(set(self.bonus_options())) or 1
        if search_work(size, bonuses) > MAX_SEARCH_WORK:
            most = max_search_actions(bonuses)
            shown = f"{bonuses} combat bonus" + ("es" if bonuses != 1 else "")
            raise LimitError(f"best play is not searched with more than {most} actions open to the players (here "
                             f"{size}) when the reveal may show {shown}: the search would run too long; give the "
                             "line of play with --actions (a longer start leaves fewer open)")

    def value(self, state: State) -> Fraction:
        """P(attacker wins) when both sides play their best from ``state`` (the attacker maximises it,
        the defender minimises it; the reveal is chance)."""
        self.require_searchable(state)
        return self.score(state)[0]

    def score(self, state: State) -> tuple[Fraction, Fraction]:
        """(P(attacker wins), expected damage) under best play. Each side first plays for its chance of
        winning; between lines equally good for that, the attacker prefers more damage and the defender
        less, and between lines equal in both, the earlier action (pass first)."""
        return self._value(state.key)

    def _value_uncached(self, key: StateKey) -> tuple[Fraction, Fraction]:
        state = State(*key)  # type: ignore[arg-type]
        if state.is_over:
            outcome = self.outcome(state)
            return outcome.p(lambda o: o[0]), outcome.map(lambda o: o[1]).mean()
        scores = [self.score(self.after(state, a)[0]) for a in self.legal(state)]
        return max(scores) if state.turn == "attacker" else min(scores)

    def best_action(self, state: State) -> Action:
        """The first legal action (pass first) that keeps the mover's best score."""
        best: tuple[tuple[Fraction, Fraction], Action] | None = None
        for action in self.legal(state):
            v = self.score(self.after(state, action)[0])
            better = best is None or (v > best[0] if state.turn == "attacker" else v < best[0])
            if better:
                best = (v, action)
        assert best is not None
        return best[1]

    def best_line(self, state: State) -> list[Action]:
        self.require_searchable(state)
        line = []
        while not state.is_over:
            action = self.best_action(state)
            line.append(action)
            state, _ = self.after(state, action)
        return line

    def lines(self, state: State, limit: int = MAX_LINES) -> tuple[list[tuple[tuple[Action, ...], State]], bool]:
        """Every line of play from ``state`` to the end of stage 1 (up to ``limit``), each with its final state;
        and whether the list was cut."""
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
