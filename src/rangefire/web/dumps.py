"""A battle written back as its scenario (:meth:`~rangefire.core.Ruleset.dump`), kept as JSON text under the very
state it was written from.

Every page reads a battle's state after each action, and an undo takes a battle back to a state the server keeps
(as the same object): the same state is written again and again, about 0.4 ms of a core each time for a Dress on
the Colors battle, where reading its text back takes a tenth of that. The text is kept under the state object
itself (held, so that its id names no other state while it is kept), the latest ones used, within a bound on
their characters; each read gets a mapping of its own, equal to what the game writes (a written battle holds JSON's
values only), so that no answer shares anything with another.
"""

from __future__ import annotations

import json
from typing import Any

from rangefire.core import Ruleset
from rangefire.web.kept import Kept

#: Battles whose text is kept, at most (the latest used).
KEPT = 1024
#: Characters of text kept in all, at most (a battle served here is at most a scenario file's size).
KEPT_CHARS = 32 * 1024 * 1024


class Dumps:
    """The written battles of the latest states read (at most ``most`` of them, ``most_chars`` characters)."""

    def __init__(self, most: int = KEPT, most_chars: int = KEPT_CHARS) -> None:
        # under the state's id, the state itself (held, so that its id names no other while kept) and its text
        self._kept: Kept[int, tuple[Any, str]] = Kept(most, most_chars, lambda kept: len(kept[1]))

    def of(self, ruleset: Ruleset[Any, Any], battle: Any) -> dict[str, Any]:
        """``ruleset.dump(battle)``: read from the text kept for this very state, else written (and kept)."""
        kept = self._kept.get(id(battle))
        if kept is not None and kept[0] is battle:
            found: dict[str, Any] = json.loads(kept[1])
            return found
        data = ruleset.dump(battle)
        self._kept.put(id(battle), (battle, json.dumps(data, ensure_ascii=False, separators=(",", ":"))))
        return data

    def __len__(self) -> int:
        return len(self._kept)
