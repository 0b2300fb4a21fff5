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
import threading
from collections import OrderedDict
from typing import Any

from rangefire.core import Ruleset

#: Battles whose text is kept, at most (the latest used).
KEPT = 1024
#: Characters of text kept in all, at most (a battle served here is at most a scenario file's size).
KEPT_CHARS = 32 * 1024 * 1024


class Dumps:
    """The written battles of the latest states read (at most ``most`` of them, ``most_chars`` characters)."""

    def __init__(self, most: int = KEPT, most_chars: int = KEPT_CHARS) -> None:
        self.most, self.most_chars = most, most_chars
        self._kept: OrderedDict[int, tuple[Any, str]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def of(self, ruleset: Ruleset[Any, Any], battle: Any) -> dict[str, Any]:
        """``ruleset.dump(battle)``: read from the text kept for this very state, else written (and kept)."""
        key = id(battle)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] is battle:
                self._kept.move_to_end(key)
                text = kept[1]
            else:
                text = None
        if text is not None:
            found: dict[str, Any] = json.loads(text)
            return found
        data = ruleset.dump(battle)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        if len(text) <= self.most_chars:
            with self._lock:
                old = self._kept.pop(key, None)
                self._chars += len(text) - (len(old[1]) if old is not None else 0)
                self._kept[key] = (battle, text)
                while len(self._kept) > self.most or self._chars > self.most_chars:
                    self._chars -= len(self._kept.popitem(last=False)[1][1])
        return data

    def __len__(self) -> int:
        return len(self._kept)
