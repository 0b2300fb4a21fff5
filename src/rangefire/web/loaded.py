"""A battle as a request finds it: its stored row and its state after every action (:class:`Loaded`), as the asking
token may see it (:func:`for_role`), the settings it was created with (:class:`Settings`), and who may act in it
(:func:`acting_side`, :func:`in_turn`). Every module of a request's work reads these; none of them calls back into
the service (:mod:`rangefire.web.service`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rangefire.core import Ruleset
from rangefire.core.ruleset import hidden_of
from rangefire.web.errors import ApiError
from rangefire.web.store import BattleRow, Role


@dataclass(frozen=True)
class Settings:
    """How a battle is played over HTTP, chosen when it is created and kept with it.

    ``undo``: ``fair`` (the default) refuses to take back an attack whose dice the server rolled, once they are
    shown (else a side could undo until the dice please it); ``any`` lets a side take back any action of its own
    (friendly play). Either way an undo stays in the actions, naming what it took back and the dice it had.
    ``open_hands``: every side sees every hand of cards, as the command line does (both players agree to it).
    """

    undo: str = "fair"
    open_hands: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"undo": self.undo, "open_hands": self.open_hands}

    @classmethod
    def of(cls, row: BattleRow) -> Settings:
        """A stored battle's settings (one stored before settings were kept: the defaults)."""
        kept = row.settings
        return cls(undo=str(kept.get("undo", "fair")), open_hands=bool(kept.get("open_hands", False)))


@dataclass(frozen=True)
class Loaded:
    """A battle as stored, and its state after every action; once the asking token is known
    (:func:`for_role`), the battle as that token may see it (``visible``: a card game's other hands left
    out, SW-1.4) and the sizes of what is kept from it (``kept``)."""

    row: BattleRow
    ruleset: Ruleset[Any, Any]
    state: Any
    actions: int
    version: tuple[int, int]
    seen: Any = None
    kept: Mapping[str, int] = field(default_factory=dict)
    viewer: str | None = None

    @property
    def visible(self) -> Any:
        """What every read of the asking token is worked out on: never a card it may not see."""
        return self.state if self.seen is None else self.seen

    def shown(self, battle: Any) -> Any:
        """A battle after an action, as the asking token may see it."""
        return battle if self.seen is None else self.ruleset.seen_by(battle, self.viewer)


@dataclass(frozen=True)
class AttackAsk:
    """An attack as a request asks for it."""

    attacker: str
    target: str | None = None
    choices: Mapping[str, Any] | None = None


def for_role(loaded: Loaded, role: Role) -> Loaded:
    """The loaded battle with what ``role`` may see of it: everything in a battle created with open hands,
    else what the game keeps from that side left out (a spectator: every hand) [SW-1.4]."""
    if Settings.of(loaded.row).open_hands:
        return replace(loaded, viewer=role.side)
    kept = loaded.ruleset.kept_from(loaded.state, role.side)
    if not kept:
        return replace(loaded, viewer=role.side)
    return replace(loaded, seen=loaded.ruleset.seen_by(loaded.state, role.side), kept=kept, viewer=role.side)


def hidden(loaded: Loaded) -> dict[str, Any]:
    """What an answer says of what is kept from the asking token (nothing where nothing is)."""
    return {"hidden": hidden_of(loaded.kept)} if loaded.kept else {}


def acting_side(role: Role) -> str:
    """The side a token acts for (403 for a spectator's)."""
    if role.side is None:
        raise ApiError(403, "forbidden", "a spectator's link watches the battle; it never acts")
    return role.side


def in_turn(ruleset: Ruleset[Any, Any], battle: Any, side: str) -> None:
    """Refuse (403) an action of ``side`` out of its own turn."""
    acting = ruleset.side_to_act(battle)
    if acting is not None and acting != side:
        raise ApiError(403, "forbidden", f"it is {acting}'s turn; {side} acts in its own turn")


__all__ = ["AttackAsk", "Loaded", "Settings", "acting_side", "for_role", "hidden", "in_turn"]
