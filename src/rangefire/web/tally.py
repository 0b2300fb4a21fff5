"""What one server holds open at once, counted for the whole server however many worker processes serve it: the
event streams open (in all, and on each battle) and the connections open from each client address.

These bounds guard the server's own means (its open files, its memory), so they are the server's, not the
store's: two servers of one PostgreSQL database each keep their own. A server of one process counts them in memory
(:class:`LocalTally`). The worker processes of ``rangefire serve --workers N`` count them in one file of the
serving process's, mapped into each worker's memory (:class:`SharedTally`): each worker writes its own counts in a
slot of its own, and a count is taken under a lock of the file (``fcntl``), as the sum of every slot, so that two
workers taking the last place at once cannot both have it. The kernel lets go of a lock whose process dies, and
the slot of a worker that died is cleared by the next worker that takes it (or when a bound looks reached): a
killed worker's connections are never counted for ever.

A count is kept per bucket, not per name: an address (or a battle) is hashed, with a key of the serving
process's drawn at random, into one of :data:`BUCKETS`. Two names that share a bucket share its bound, which can
only refuse sooner, never let more through; nobody can choose an address that shares another's bucket without
the key.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import secrets
import struct
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows: there each worker takes its share of each bound
    fcntl = None  # type: ignore[assignment]

#: What is counted: connections by client address, streams by battle, and the streams open in all.
KINDS = ("connections", "battle", "streams")
#: Buckets names are hashed into, for each kind that is counted by name.
BUCKETS = 16384
#: Worker slots in a shared tally (``serve --workers`` takes 32 at most; a dead one's slot is taken again).
SLOTS = 64
_MAGIC = b"rangefire-tally\x01"
_KEY_BYTES = 16
_HEADER = len(_MAGIC) + _KEY_BYTES
#: One slot: its process id, then a count (a 32-bit unsigned number) per bucket of each kind.
_COUNTS = 2 * BUCKETS + 1
_SLOT_BYTES = 8 + 4 * _COUNTS
SIZE = _HEADER + SLOTS * _SLOT_BYTES


class Tally(Protocol):
    def take(self, kind: str, name: str, most: int) -> int | None:
        """Count one more ``name`` of ``kind`` if fewer than ``most`` are held (0: no bound): None when counted,
        else how many are held (refused: nothing counted)."""

    def give(self, kind: str, name: str) -> None:
        """One ``name`` of ``kind`` let go (one :meth:`take` counted before)."""


class LocalTally:
    """The counts of one process, in its memory: exact, per name."""

    def __init__(self) -> None:
        self._counts: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
        self._lock = threading.Lock()

    def take(self, kind: str, name: str, most: int) -> int | None:
        with self._lock:
            counts = self._counts[kind]
            if most and counts[name] >= most:
                return counts[name]
            counts[name] += 1
            return None

    def give(self, kind: str, name: str) -> None:
        with self._lock:
            counts = self._counts[kind]
            counts[name] -= 1
            if counts[name] <= 0:
                del counts[name]


def folder() -> Path | None:
    """Where a server keeps its workers' tally: the user's own folder in the temporary folder (as the relay's
    sockets, :func:`rangefire.web.relay.socket_folder`), the files of servers that died cleared; None where
    this system cannot lock a file to share one, or the folder is another user's."""
    if fcntl is None or not hasattr(os, "getuid"):
        return None
    found = Path(tempfile.gettempdir()) / f"rangefire-{os.getuid()}"
    found.mkdir(parents=True, exist_ok=True, mode=0o700)
    if found.stat().st_uid != os.getuid():
        return None
    clear_stale(found)
    return found


def create(folder: Path) -> Path:
    """A new tally file for a server's workers, in ``folder`` (the user's own), named after this process so that
    one left by a process that died is known as such (:func:`clear_stale`)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"serve-{os.getpid()}-{secrets.token_hex(4)}.tally"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, SIZE)  # a file of holes: zeros, written only where counted
        os.pwrite(fd, _MAGIC + secrets.token_bytes(_KEY_BYTES), 0)
    finally:
        os.close(fd)
    return path


def clear_stale(folder: Path) -> None:
    """Remove the tally files of serving processes that are gone (killed before they could)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            parts = entry.name.split("-")
            if entry.name.endswith(".tally") and len(parts) == 3 and parts[1].isdigit() and not alive(int(parts[1])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive, and not ours to clear
        return True
    return True


class SharedTally:
    """The counts of every worker of one server, in the file ``path`` (:func:`create`), this process's in a
    slot of its own."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd = os.open(self.path, os.O_RDWR)
        try:
            self._map = mmap.mmap(self._fd, SIZE)
        except BaseException:
            os.close(self._fd)
            raise
        if self._map[:len(_MAGIC)] != _MAGIC:
            raise ValueError(f"{self.path} is not a tally of rangefire's")
        self._key = bytes(self._map[len(_MAGIC):_HEADER])
        self._counts = memoryview(self._map)[_HEADER:].cast("B")
        self._thread_lock = threading.Lock()
        self.pid = os.getpid()
        with self._locked():
            self.slot = self._claim()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:  # the file's lock is the process's: its threads take turns first
            if fcntl is not None:
                fcntl.lockf(self._fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                if fcntl is not None:
                    fcntl.lockf(self._fd, fcntl.LOCK_UN)

    def _pid(self, slot: int) -> int:
        return int(struct.unpack_from("<q", self._counts, slot * _SLOT_BYTES)[0])

    def _claim(self) -> int:
        """A slot for this process: a free one, else one whose process is gone, cleared."""
        pids = [self._pid(slot) for slot in range(SLOTS)]
        free = [slot for slot, pid in enumerate(pids) if pid == 0]
        found = free[0] if free else next((slot for slot, pid in enumerate(pids) if not alive(pid)), None)
        if found is None:
            raise RuntimeError(f"{self.path}: every slot of the tally is held by a live process")
        self._clear(found)
        struct.pack_into("<q", self._counts, found * _SLOT_BYTES, self.pid)
        return found

    def _clear(self, slot: int) -> None:
        start = slot * _SLOT_BYTES
        self._counts[start:start + _SLOT_BYTES] = bytes(_SLOT_BYTES)

    def _where(self, kind: str, name: str) -> int:
        """The offset, within a slot, of the count of ``name``'s bucket."""
        if kind == "streams":
            index = 2 * BUCKETS
        else:
            digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8, key=self._key,
                                     person=kind.encode()[:16]).digest()
            index = int.from_bytes(digest, "little") % BUCKETS + (BUCKETS if kind == "battle" else 0)
        return 8 + 4 * index

    def _count(self, slot: int, where: int) -> int:
        return int(struct.unpack_from("<I", self._counts, slot * _SLOT_BYTES + where)[0])

    def _held(self, where: int) -> int:
        return sum(self._count(slot, where) for slot in range(SLOTS) if self._pid(slot) != 0)

    def take(self, kind: str, name: str, most: int) -> int | None:
        where = self._where(kind, name)
        with self._locked():
            held = self._held(where)
            if most and held >= most:
                # a worker that died holds nothing any more: its slot is cleared, and the count taken again
                dead = [slot for slot in range(SLOTS) if slot != self.slot and self._pid(slot) != 0
                        and not alive(self._pid(slot))]
                for slot in dead:
                    self._clear(slot)
                held = self._held(where) if dead else held
                if held >= most:
                    return held
            if self._pid(self.slot) != self.pid:  # cleared by another taking it for dead: taken again
                self.slot = self._claim()
            own = self.slot * _SLOT_BYTES + where
            struct.pack_into("<I", self._counts, own, self._count(self.slot, where) + 1)
            return None

    def give(self, kind: str, name: str) -> None:
        where = self._where(kind, name)
        with self._locked():
            if self._pid(self.slot) != self.pid:
                return  # the slot was cleared meanwhile: nothing of ours is counted
            count = self._count(self.slot, where)
            if count > 0:
                struct.pack_into("<I", self._counts, self.slot * _SLOT_BYTES + where, count - 1)

    def close(self) -> None:
        """Let go of this process's slot (its counts with it) and of the file."""
        with self._locked():
            if self._pid(self.slot) == self.pid:
                self._clear(self.slot)
        self._counts.release()
        self._map.close()
        os.close(self._fd)


_OPENED: dict[str, SharedTally] = {}
_OPENING = threading.Lock()


def tally_of(path: str | Path | None) -> Tally:
    """The tally of the server's workers kept in ``path`` (one per process: its streams and its connections
    counted in one slot), or a tally of this process's own for None."""
    if path is None:
        return LocalTally()
    with _OPENING:
        found = _OPENED.get(str(path))
        if found is None:
            found = _OPENED[str(path)] = SharedTally(path)
        return found
