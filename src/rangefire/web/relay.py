"""How the processes serving one store tell each other of what lands on a battle, so that an action sent to one
worker of ``rangefire serve --workers N`` reaches the event streams every other worker holds.

A :class:`Relay` sends each event a process publishes to every other process of the store, and hands each event
it receives from them to that process's :class:`~rangefire.web.events.Broker` (never its own back: those the
broker has told already). PostgreSQL's relay is ``LISTEN``/``NOTIFY`` (:class:`rangefire.web.store_pg.PgRelay`);
a SQLite file's is :class:`SocketRelay`, Unix datagrams between the processes of one machine, with no server
besides them. An event only tells a page to fetch the battle again, and a stream reopened catches up on what it
missed (:func:`rangefire.web.events.catch_up`): one lost on the way (a process restarting) is not an action lost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import secrets
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from rangefire.web.contract import BattleEvent

log = logging.getLogger("rangefire.web")

Deliver = Callable[[str, dict[str, Any]], None]
#: A battle's id, as the routes take it.
BATTLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The largest event sent (an event is a few words: a battle's id, a count, a kind, a side).
MAX_EVENT_BYTES = 4096


class Relay(Protocol):
    def start(self, deliver: Deliver) -> None:
        """Begin handing the events of the other processes to ``deliver(battle_id, event)``."""

    def send(self, battle_id: str, event: dict[str, Any]) -> None:
        """Tell the other processes (callable from any thread; never raises: an event lost is a hint lost)."""

    def close(self) -> None:
        """Stop listening and let go of what the relay holds."""


def encode(battle_id: str, event: dict[str, Any], origin: str = "") -> bytes:
    return json.dumps({"o": origin, "b": battle_id, "e": event}, separators=(",", ":")).encode()


def decode(payload: bytes | str) -> tuple[str, str, dict[str, Any]] | None:
    """(origin, battle, event) of a payload, or None for one that is not ours."""
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    if not (isinstance(data, dict) and isinstance(data.get("b"), str) and BATTLE_ID.fullmatch(data["b"])
            and isinstance(data.get("e"), dict)):
        return None
    try:  # anyone who may send on the channel could send anything: only an event as the streams send it passes
        BattleEvent.model_validate(data["e"])
    except ValidationError:
        return None
    return str(data.get("o", "")), data["b"], data["e"]


def socket_folder(db: Path) -> Path:
    """Where the processes of one SQLite file keep their sockets: a folder of the user's in the temporary
    folder, named after the file (a socket's path is short: at most 104 bytes on some systems)."""
    key = hashlib.sha256(str(db.resolve()).encode()).hexdigest()[:16]
    owner = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"rangefire-{owner}" / key


class SocketRelay:
    """The processes of one SQLite file, each listening on a Unix datagram socket of its own in one folder
    (:func:`socket_folder`); an event is sent to every other socket there. Each removes its socket when it
    closes (a server's clean shutdown), and the sockets of processes that died without it (nobody listening on
    them: refused) are removed when a process starts and whenever an event sent to one is refused."""

    def __init__(self, db: Path) -> None:
        self.folder = socket_folder(db)
        self.path = self.folder / f"{os.getpid()}-{secrets.token_hex(4)}.sock"
        self._listening: socket.socket | None = None
        self._sending: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()

    def start(self, deliver: Deliver) -> None:
        if not hasattr(socket, "AF_UNIX"):
            log.warning("this system has no Unix sockets: the workers' event streams hear only their own actions")
            return
        self.folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if hasattr(os, "getuid") and self.folder.parent.stat().st_uid != os.getuid():  # another's: not trusted
            log.warning("%s belongs to another user: the workers' event streams hear only their own actions",
                        self.folder.parent)
            return
        listening = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        for _ in range(5):  # another process may remove the folder, empty, between our making it and binding
            self.folder.mkdir(exist_ok=True, mode=0o700)
            try:
                listening.bind(str(self.path))
                break
            except FileNotFoundError:
                continue
        else:
            listening.close()
            log.warning("%s cannot be made: the workers' event streams hear only their own actions", self.folder)
            return
        clear_stale(self.folder, keep=self.path)
        listening.settimeout(0.5)  # to notice it is closed
        sending = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sending.setblocking(False)  # a peer that does not read in time loses the event, never blocks us
        self._listening, self._sending = listening, sending
        self._thread = threading.Thread(target=self._listen, args=(listening, deliver), daemon=True,
                                        name="rangefire-relay")
        self._thread.start()

    def _listen(self, listening: socket.socket, deliver: Deliver) -> None:
        while not self._stopped.is_set():
            try:
                payload = listening.recv(MAX_EVENT_BYTES)
            except TimeoutError:
                continue
            except OSError:  # closed
                return
            found = decode(payload)
            if found is not None:
                try:
                    deliver(found[1], found[2])
                except Exception:  # a stream's fault is not the relay's end
                    log.exception("an event could not be handed to its streams")

    def send(self, battle_id: str, event: dict[str, Any]) -> None:
        sending = self._sending
        if sending is None:
            return
        payload = encode(battle_id, event)
        try:
            peers = [entry.path for entry in os.scandir(self.folder)
                     if entry.name.endswith(".sock") and entry.path != str(self.path)]
        except OSError:
            return
        for peer in peers:
            try:
                sending.sendto(payload, peer)
            except (ConnectionRefusedError, FileNotFoundError):  # its process is gone
                with contextlib.suppress(OSError):
                    os.unlink(peer)
            except OSError:  # its queue is full, or it is closing: the event is a hint, the stream catches up
                pass

    def close(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        for sock in (self._listening, self._sending):
            if sock is not None:
                sock.close()
        self._listening = self._sending = None
        with contextlib.suppress(OSError):
            self.path.unlink()
        with contextlib.suppress(OSError):  # the last process of the file leaves no folder behind
            self.folder.rmdir()


def clear_stale(folder: Path, keep: Path | None = None) -> list[str]:
    """Remove the sockets in ``folder`` on which nobody listens any more (their processes died without removing
    them): those a datagram is refused on. The names removed."""
    removed = []
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        for entry in os.scandir(folder):
            if not entry.name.endswith(".sock") or entry.path == str(keep):
                continue
            try:
                probe.connect(entry.path)
            except (ConnectionRefusedError, FileNotFoundError):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(entry.name)
            except OSError:
                continue
    except OSError:
        pass
    finally:
        probe.close()
    return removed
