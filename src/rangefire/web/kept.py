"""What the server keeps of what it read or wrote, the latest used first to go: at most so many values, and at most
so much of them in all (a value's size as its owner counts it: characters of text). Safe from several threads."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The latest ``most`` values used, ``most_size`` of them in all (``size(value)``)."""

    def __init__(self, most: int, most_size: int, size: Callable[[V], int]) -> None:
        self.most, self.most_size, self.size = most, most_size, size
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept under ``key`` (now the latest used), or None."""
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``, in place of what was; one larger than the whole bound is not kept (and
        what was is let go)."""
        size = self.size(value)
        with self._lock:
            self._drop(key)
            if size > self.most_size:
                return
            self._kept[key] = value
            self._held += size
            while len(self._kept) > self.most or self._held > self.most_size:
                self._held -= self.size(self._kept.popitem(last=False)[1])

    def pop(self, key: K) -> None:
        """Let go of what is kept under ``key``, if anything."""
        with self._lock:
            self._drop(key)

    def _drop(self, key: K) -> None:
        old = self._kept.pop(key, None)
        if old is not None:
            self._held -= self.size(old)

    def __len__(self) -> int:
        return len(self._kept)
