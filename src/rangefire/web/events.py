"""Live updates: each action that lands on a battle is told to every open event stream of that battle.

Actions land in worker threads; each stream waits in the server's event loop on a queue of its own, fed with
``call_soon_threadsafe``. A stream that does not keep up loses its oldest events, not the server's memory: an
event only says that the battle changed (the page fetches the state again), so the latest one is enough.

Each event's ``id`` is the battle's count of actions once it landed, and a stream opens by saying the count it
starts from (an ``id`` alone, no event): a browser's EventSource that loses its stream reopens it with that id as
``Last-Event-ID``, and the reopened stream first sends what landed in between (:func:`catch_up`), so that an
action made while a page was reconnecting shows at once rather than at the next one.

Several processes serving one store (``rangefire serve --workers N``) share their events through a
:class:`~rangefire.web.relay.Relay`: what one publishes is told to its own streams and sent to the others, and
what it hears from them is told to its streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from rangefire.web.loaded import Loaded
from rangefire.web.pending import view
from rangefire.web.relay import Relay
from rangefire.web.store import Store
from rangefire.web.tally import LocalTally, Tally

#: Events queued for one stream at most.
QUEUED_EVENTS = 64
#: Actions missed by a stream that reopens, sent at once at most (the latest: any one makes a page fetch the state).
RESUMED_EVENTS = 16


def last_event_id(header: str | None) -> int | None:
    """The count of actions a reopened stream last heard of (its ``Last-Event-ID``); None for a stream opened
    afresh, -1 for an id that is not one of ours (every action missed)."""
    if header is None:
        return None
    text = header.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else -1


def catch_up(store: Store, loaded: Loaded, since: int | None) -> tuple[int, list[dict[str, Any]]]:
    """The count of actions a stream opens at, and the events it sends first: for a stream reopened after
    ``since`` actions, each action that landed since (the latest :data:`RESUMED_EVENTS`, as each was told), the
    attack waiting now if one does, or else ``resumed`` (nothing landed; whatever else changed, such as an
    attack withdrawn, the page fetches the state again on it)."""
    now = loaded.actions
    if since is None:
        return now, []
    events: list[dict[str, Any]] = []
    if since < now:
        missed = [a for a in store.actions(loaded.row.id) if a.number > since][-RESUMED_EVENTS:]
        events = [{"actions": a.number, "kind": a.kind, "by": a.by_side} for a in missed]
        now = max([now, *(a.number for a in missed)])
    row = store.pending(loaded.row.id)
    if row is not None:
        events.append({"actions": now, "kind": "pending", "by": row.by_side,
                       "awaiting": view(loaded.ruleset, loaded.state, row)["awaiting"]["side"]})
    if not events:
        events.append({"actions": now, "kind": "resumed", "by": None})
    return now, events


def _event(event: dict[str, Any]) -> str:
    return f"id: {event['actions']}\nevent: action\ndata: {json.dumps(event)}\n\n"


class TooManyStreams(Exception):
    pass


class _Stream:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=QUEUED_EVENTS)

    def offer(self, event: dict[str, Any]) -> None:
        if self.queue.full():
            self.queue.get_nowait()  # the oldest goes: the newest says as much
        self.queue.put_nowait(event)


class Broker:
    """The open streams of every battle; at most ``max_streams`` at once. With a ``relay``, the events of the
    other processes serving the store are told to these streams too, and these to theirs."""

    def __init__(self, max_streams: int = 1000, per_battle: int = 32, lifetime: float = 3600.0,
                 relay: Relay | None = None, tally: Tally | None = None) -> None:
        self.max_streams = max_streams
        #: The streams counted against the bounds: this process's alone, or every worker's of the server.
        self.tally = tally if tally is not None else LocalTally()
        self.per_battle = per_battle
        #: Seconds a stream stays open: then it ends, and the browser's EventSource opens a new one (after the
        #: ``retry`` it was told), so that a stream no one reads any more does not hold its place for ever.
        self.lifetime = lifetime
        self._streams: dict[str, set[_Stream]] = {}
        self._lock = threading.Lock()
        self.relay = relay
        if relay is not None:
            relay.start(self.deliver)

    def publish(self, battle_id: str, event: dict[str, Any]) -> None:
        """Tell every stream of the battle, here and in the other processes of the store (callable from any
        thread)."""
        self.deliver(battle_id, event)
        if self.relay is not None:
            self.relay.send(battle_id, event)

    def deliver(self, battle_id: str, event: dict[str, Any]) -> None:
        """Tell every stream of the battle held by this process."""
        with self._lock:
            streams = list(self._streams.get(battle_id, ()))
        for stream in streams:
            with contextlib.suppress(RuntimeError):  # its loop has closed: the stream is gone
                stream.loop.call_soon_threadsafe(stream.offer, event)

    def open(self, battle_id: str) -> _Stream:
        # a bound of 0 keeps no stream (the tally's 0 is no bound at all)
        if self.max_streams <= 0 or self.tally.take("streams", "", self.max_streams) is not None:
            raise TooManyStreams(f"{self.max_streams} event streams are open, the most this server keeps")
        if self.per_battle <= 0 or self.tally.take("battle", battle_id, self.per_battle) is not None:
            self.tally.give("streams", "")
            raise TooManyStreams(f"{self.per_battle} event streams are open on this battle, the most one "
                                 "battle may have; close one (another tab?) and retry")
        stream = _Stream(asyncio.get_running_loop())
        with self._lock:
            self._streams.setdefault(battle_id, set()).add(stream)
        return stream

    def close(self, battle_id: str, stream: _Stream) -> None:
        with self._lock:
            streams = self._streams.get(battle_id)
            if streams is None or stream not in streams:
                return  # closed already
            streams.discard(stream)
            if not streams:
                del self._streams[battle_id]
        self.tally.give("battle", battle_id)
        self.tally.give("streams", "")

    async def stream(self, battle_id: str, stream: _Stream, disconnected: Callable[[], Awaitable[bool]],
                     keepalive: float, opening: int | None = None,
                     first: Sequence[dict[str, Any]] = ()) -> AsyncIterator[str]:
        """The text of a server-sent event stream: the count of actions it opens at (``opening``, an ``id``
        alone), the events of ``first`` (:func:`catch_up`), then ``action`` events as they come, a comment now
        and then (so that proxies keep the connection and a closed one is noticed)."""
        loop = asyncio.get_running_loop()
        ends = loop.time() + self.lifetime
        try:
            yield "retry: 2000\n" + (f"id: {opening}\n" if opening is not None else "") + "\n"
            for event in first:
                yield _event(event)
            while not await disconnected() and loop.time() < ends:
                try:
                    event = await asyncio.wait_for(stream.queue.get(),
                                                   timeout=max(0.0, min(keepalive, ends - loop.time())))
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield _event(event)
        finally:
            self.close(battle_id, stream)
