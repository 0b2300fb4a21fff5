"""A battle's stored actions and the states after them, read from the store and kept in memory; and an action
written, as one transaction, with the state after it kept and the battle's pages told.

A battle's state is its scenario with its stored actions replayed by :func:`rangefire.record.replay` (the
command line's ``rangefire replay``): each attack checked again and played with its recorded dice. States are
kept in memory under the battle's version (its count of actions and the id of the last one, which no later
action reuses), so a request replays only a battle it has not seen in that version (after a restart). A
battle's stored actions are kept in memory too, read as they are added: a battle's actions are only ever
added (an undo is one more), so a request reads from the store only those after the ones kept, never every
action again; an action written here is kept as it is written, never read back.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rangefire.record import KINDS, Action, LogError, replay
from rangefire.rulesets import battle_from_mapping, find_ruleset
from rangefire.web.errors import ApiError
from rangefire.web.loaded import Loaded
from rangefire.web.store import ActionRow, BattleRow, Store

#: States kept in memory (the latest ones used, of any battle, by version): a battle whose current state is not
#: among them is replayed when asked for.
CACHED_STATES = 2048
#: Stored actions kept in memory (of the battles used latest), at most.
CACHED_ACTIONS = 100_000

Publish = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class Written:
    """An action as it was written: its stored row (its number, its ``seq``, its record as the store keeps it), the
    battle's version after it, and the battle after it (as it was kept)."""

    row: ActionRow
    version: tuple[int, int]
    state: Any

    @property
    def number(self) -> int:
        return self.row.number

    def loaded(self, before: Loaded) -> Loaded:
        """The battle after the action, as :meth:`Ledger.load` would read it back (for the same token: seen
        afresh by the caller, :func:`rangefire.web.loaded.for_role`)."""
        return Loaded(before.row, before.ruleset, self.state, self.version[0], self.version)


class Ledger:
    """The stored actions and states of a store's battles, as the requests of one server read and write them."""

    def __init__(self, store: Store, publish: Publish | None = None) -> None:
        self.store = store
        self.publish: Publish = publish or (lambda battle_id, event: None)
        self._states: OrderedDict[tuple[str, tuple[int, int]], Any] = OrderedDict()
        self._actions: OrderedDict[str, tuple[ActionRow, ...]] = OrderedDict()
        self._actions_kept = 0
        self._lock = threading.Lock()

    # -- reading -----------------------------------------------------------------------------------
    def load(self, row: BattleRow) -> Loaded:
        """The battle's state after its actions: from memory when the state of its current version is kept
        there, else replayed from the scenario and every stored action."""
        ruleset = find_ruleset(row.ruleset)
        version = self.store.version(row.id)
        with self._lock:
            kept = self._states.get((row.id, version))
        if kept is not None:
            return Loaded(row, ruleset, kept, version[0], version)
        stored = self.stored(row.id)
        version = version_of(stored)
        try:
            state = replay(ruleset, self.scenario(row), [action_of(a) for a in stored])
        except LogError as exc:  # the engine changed under a stored battle: said, never hidden
            raise ApiError(500, "internal", f"battle {row.id}: its actions no longer replay: {exc}") from None
        self.keep(row.id, version, state)
        return Loaded(row, ruleset, state, version[0], version)

    def stored(self, battle_id: str) -> tuple[ActionRow, ...]:
        """The battle's stored actions, in order, as the store holds them now: those kept in memory and the ones
        added after them, read from the store (a battle's actions are only ever added)."""
        with self._lock:
            kept = self._actions.get(battle_id, ())
        added = self.store.actions(battle_id, after=len(kept))
        if not added:
            if kept:
                with self._lock:
                    if battle_id in self._actions:
                        self._actions.move_to_end(battle_id)
            return kept
        if added[0].number != len(kept) + 1:  # never so (numbers run 1, 2, ...): every action read again
            kept, added = (), self.store.actions(battle_id)
        stored = kept + tuple(added)
        self._keep_actions(battle_id, stored)
        return stored

    def _keep_actions(self, battle_id: str, stored: tuple[ActionRow, ...]) -> None:
        with self._lock:
            held = self._actions.pop(battle_id, ())
            keep = stored if len(stored) >= len(held) else held  # another thread may have read further meanwhile
            self._actions[battle_id] = keep
            self._actions_kept += len(keep) - len(held)
            while self._actions_kept > CACHED_ACTIONS and len(self._actions) > 1:
                self._actions_kept -= len(self._actions.popitem(last=False)[1])

    def scenario(self, row: BattleRow) -> Any:
        """The battle as its scenario holds it, before any action (validated once, then kept)."""
        with self._lock:
            kept = self._states.get((row.id, (0, 0)))
        if kept is None:
            kept = battle_from_mapping(row.scenario, source=f"battle {row.id}")[1]
            self.keep(row.id, (0, 0), kept)
        return kept

    def keep(self, battle_id: str, version: tuple[int, int], state: Any) -> None:
        """Keep a state under its version: the latest few of each battle stay, so an undo finds the state
        before the last action without a replay."""
        with self._lock:
            self._states[(battle_id, version)] = state
            self._states.move_to_end((battle_id, version))
            while len(self._states) > CACHED_STATES:
                self._states.popitem(last=False)

    def before(self, loaded: Loaded, stored: Sequence[ActionRow], last: ActionRow) -> Any:
        """The battle before a stored action: kept in memory, else replayed from the actions before it."""
        earlier = stored[:last.number - 1]
        version = version_of(earlier)
        with self._lock:
            kept = self._states.get((loaded.row.id, version))
        if kept is not None:
            return kept
        before = replay(loaded.ruleset, self.scenario(loaded.row), [action_of(a) for a in earlier])
        self.keep(loaded.row.id, version, before)
        return before

    # -- writing -----------------------------------------------------------------------------------
    def record(self, loaded: Loaded, kind: str, side: str, action: Action, after: Any,
               closing: int | None = None) -> Written:
        """Record an action of ``side`` played on the loaded battle (one transaction; closing the pending attack
        at step ``closing`` in the same one), keep the state after it and tell the battle's pages: what was
        written. The action is kept as written beside the battle's actions read before it, never read back."""
        record = action.model_dump(mode="json")
        version = self.store.append(loaded.row.id, loaded.version, kind, side, record, closing)
        number = version[0]
        # as the store gives it back when read (its JSON's values, never the model's dump itself)
        row = ActionRow(version[1], number, kind, side, json.loads(json.dumps(record)))
        self.keep(loaded.row.id, version, after)
        with self._lock:
            kept = self._actions.get(loaded.row.id)
        if kept is not None and len(kept) == number - 1:
            self._keep_actions(loaded.row.id, (*kept, row))
        self.publish(loaded.row.id, {"actions": number, "kind": kind, "by": side})
        return Written(row, version, after)


def version_of(stored: Sequence[ActionRow]) -> tuple[int, int]:
    """A battle's version (:meth:`Store.version`) after its stored actions."""
    return len(stored), stored[-1].seq if stored else 0


def action_of(row: ActionRow) -> Action:
    """A stored action as the record reads it, by its kind (an attack, an end of turn, a move, a mark, a set-up
    edit)."""
    model = KINDS.get(row.kind)
    if model is None:
        raise LogError(f"action {row.number}: a stored action of the unknown kind {row.kind!r}")
    return model.model_validate(row.record)  # type: ignore[return-value]


def standing(stored: Sequence[ActionRow]) -> list[ActionRow]:
    """The stored actions not taken back, in order: each undo takes back the last one standing before it."""
    found: list[ActionRow] = []
    for row in stored:
        if row.kind == "undo":
            if found:
                found.pop()
        else:
            found.append(row)
    return found


__all__ = ["CACHED_ACTIONS", "CACHED_STATES", "Ledger", "Publish", "Written", "action_of", "standing", "version_of"]
