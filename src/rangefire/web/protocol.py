"""The HTTP/1.1 reader ``rangefire serve`` gives uvicorn: uvicorn's own (h11), answering a request it cannot read
as the API answers every error, in JSON and in our words, where uvicorn answers ``Invalid HTTP request received.``
in plain text.

A request line that is not ``METHOD /path HTTP/1.1``, a header line that is no header, a head larger than
:data:`~rangefire.web.guard.MAX_HEAD_BYTES` before it ends, a missing or repeated ``Host``, a ``Content-Length``
that is no number, a transfer coding other than chunked, a chunked body that breaks off: each is answered with
its status (400, 431, 501) and ``{"format": 1, "error": {"kind", "message", "path", "clause"}}``, then the
connection is closed (what follows on it cannot be told from the broken request). What passes the reader is
checked again by :class:`rangefire.web.guard.Guard` before any route reads it.
"""

from __future__ import annotations

import asyncio
import http
import json
import logging
import time
import weakref
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from rangefire.web.errors import ApiError
from rangefire.web.guard import MAX_HEAD_BYTES
from rangefire.web.tally import LocalTally, Tally, tally_of

log = logging.getLogger("rangefire.web")


class _Reader(h11.Connection):
    """h11's connection, keeping the last error it found in what the client sent (uvicorn keeps none)."""

    refused: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as exc:
            self.refused = exc
            raise


#: What h11 says of a request it cannot read (the start of its message), and what we say of it.
_SAID: tuple[tuple[str, str], ...] = (
    ("illegal request line", "the request line must be METHOD /path HTTP/1.1"),
    ("no request line", "the request line must be METHOD /path HTTP/1.1"),
    ("illegal header line", "a header line must be Name: value"),
    ("continuation line", "a header line must be Name: value"),
    ("illegal header name", "a header's name must be letters, digits and -_.!#$%&'*+^`|~"),
    ("illegal header value", "a header's value holds a character no header may hold"),
    ("missing mandatory host", "an HTTP/1.1 request must name its Host"),
    ("found multiple host", "a request names one Host, not several"),
    ("bad content-length", "Content-Length must be a whole number of bytes"),
    ("conflicting content-length", "a request gives one Content-Length, not several"),
    ("multiple transfer-encoding", "a request gives one Transfer-Encoding, not several"),
    ("only transfer-encoding: chunked", "a body is sent whole (Content-Length) or chunked, no other way"),
    ("receive buffer too long", f"the request line and headers are larger than the {MAX_HEAD_BYTES:,} bytes "
                                "this server reads"),
    ("illegal chunk header", "a chunked body's chunk does not start with its size"),
    ("malformed chunk footer", "a chunked body's chunk does not end where its size says"),
    ("peer closed connection", "the request ended before its body was whole"),
    ("peer unexpectedly closed", "the request ended before its head was whole"),
)


#: The kind of each status h11 hints at for a request it cannot read.
UNREADABLE = {400: "invalid_http", 431: "too_large", 501: "invalid_http"}


def unreadable(error: h11.RemoteProtocolError | None) -> ApiError:
    """The API's error for a request h11 could not read: its status h11's hint (400, 431 for a head too large,
    501 for a transfer coding it does not take), its message ours."""
    said = str(error).lower() if error is not None else ""
    message = next((ours for theirs, ours in _SAID if said.startswith(theirs)), None)
    status = error.error_status_hint if error is not None else 400
    kind = UNREADABLE.get(status, "invalid_http")
    return ApiError(status, kind, f"this is not an HTTP/1.1 request this server can read: "
                                  f"{message or 'it does not follow HTTP/1.1'}")


#: The attribute of uvicorn's settings holding the bounds :func:`server_config` was given.
BOUNDS = "rangefire_bounds"
#: Connections per client address, by server (a process may run several: tests do), where no tally of the
#: server's workers is given.
_OPEN: weakref.WeakKeyDictionary[ServerState, Tally] = weakref.WeakKeyDictionary()


class JsonErrors(H11Protocol):
    """uvicorn's h11 protocol, its one plain-text answer (a request it cannot read) given as the API's JSON
    error, and time limits on a request's head and body: uvicorn waits for ever for a head that never ends (one
    byte a minute holds a connection open), this answers 408 once :attr:`head_seconds` have passed without the
    head whole, and closes a connection on which nothing at all came in that long; a body not whole
    :attr:`body_seconds` after its head is answered 408 too. At most :attr:`per_address` connections are open
    from one client address (0: no bound): the next is answered 503 and closed at once, so that one client
    holding half-sent requests open cannot take every connection (and file) the server has."""

    #: Seconds a request's head (its line and headers) may take to arrive, from the connection or its first byte.
    head_seconds: float = 30.0
    #: Seconds a request's body may take to arrive whole, from the end of its head.
    body_seconds: float = 30.0
    #: Connections open at once from one client address, at most (0: no bound).
    per_address: int = 256
    #: The file counting the connections of every worker of the server (``serve --workers``: :mod:`tally`), or
    #: None: this process's counted alone.
    tally_file: str | None = None

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        for name, value in getattr(config, BOUNDS, {}).items():  # server_config's, in place of the class's
            setattr(self, name, value)
        _quiet_accept_faults()  # in each worker process of serve --workers too
        self.conn = _Reader(h11.SERVER, config.h11_max_incomplete_event_size or MAX_HEAD_BYTES)
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._too_many():
            return
        self._time_the_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._time_the_head()
        self._time_the_body()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timing()
        self._stop_timing_body()
        if self._counted is not None:
            self._tally().give("connections", self._counted)
            self._counted = None
        super().connection_lost(exc)

    def _too_many(self) -> bool:
        """Count the connection against its address; past :attr:`per_address`, answer 503 and close it."""
        address = self.client[0] if self.client else ""
        held = self._tally().take("connections", address, self.per_address)
        if held is not None:
            error = ApiError(503, "unavailable", f"{held} connections are open from this address, the most this "
                                                 "server takes from one; close one (or wait) and retry")
            body = json.dumps(error.body(), separators=(",", ":")).encode()
            self.transport.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
                                 b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n"
                                 b"x-content-type-options: nosniff\r\ncache-control: no-store\r\n\r\n" + body)
            self.transport.close()
            return True
        self._counted = address
        return False

    def _tally(self) -> Tally:
        """Where the connections are counted: with every worker of the server, else in this server alone."""
        if self.tally_file is not None:
            return tally_of(self.tally_file)
        found = _OPEN.get(self.server_state)
        if found is None:
            found = _OPEN[self.server_state] = LocalTally()
        return found

    def _time_the_body(self) -> None:
        """Time a body from the end of its head until it is whole."""
        if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
            self._stop_timing_body()
        elif self._body_timer is None:
            self._body_timer = self.loop.call_later(self.body_seconds, self._body_too_slow)

    def _stop_timing_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_too_slow(self) -> None:
        self._body_timer = None
        if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
            return
        where = f"{self.scope['method']} {self.scope['path'][:100]}" if self.scope else "a request"
        log.warning("%s from %s: its body did not arrive whole within %g seconds; answered 408 and closed", where,
                    self.client[0] if self.client else "a client", self.body_seconds)
        if self.scope:
            self.scope.setdefault("extensions", {})["rangefire.timed_out"] = {}  # told: the Guard logs no more
        self._refuse(ApiError(408, "timeout", f"the request's body did not arrive whole within {self.body_seconds:g} "
                                              "seconds of its headers"))
        if self.cycle is not None:  # the route reading it is told the client is gone (as it is, once closed)
            self.cycle.disconnected = True
            self.cycle.message_event.set()

    def _time_the_head(self) -> None:
        """Time a head while one is awaited (the client's side idle: no request read yet), not once it is in."""
        if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
            self._stop_timing()
        elif self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _stop_timing(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
            return
        if not self.conn.trailing_data[0]:  # nothing of a request came: nobody to answer
            self.transport.close()
            return
        self.logger.warning("A request's head did not arrive whole in time.")
        self._refuse(ApiError(408, "timeout", f"the request's line and headers did not arrive whole within "
                                              f"{self.head_seconds:g} seconds"))

    def _should_upgrade(self) -> bool:
        return False  # no WebSocket here: an upgrade asked for is answered as the plain request it also is

    def send_400_response(self, msg: str) -> None:
        reader = self.conn
        self._refuse(unreadable(reader.refused if isinstance(reader, _Reader) else None))

    def _refuse(self, error: ApiError) -> None:
        """Answer ``error`` as the API does, then close the connection."""
        self._stop_timing()
        reader = self.conn
        if reader.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            # an answer to this request is already under way (its body broke off while it was answered): no
            # other can follow it on this connection
            self.transport.close()
            return
        body = json.dumps(error.body(), separators=(",", ":")).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), (b"x-content-type-options", b"nosniff"),
                   (b"cache-control", b"no-store")]
        try:
            for event in (h11.Response(status_code=error.status, headers=headers,
                                       reason=http.HTTPStatus(error.status).phrase.encode()),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(reader.send(event) or b"")
        except h11.LocalProtocolError:  # the connection cannot carry an answer any more: it is closed unanswered
            pass
        self.transport.close()


class OutOfFiles(logging.Filter):
    """asyncio's fault when the server has no file left to accept a connection with (it retries a moment later)
    said in one line, at most once a second, without its traceback: a flood of connections writes a line a
    second, not a traceback for each try."""

    def __init__(self) -> None:
        super().__init__()
        self.last = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("socket.accept() out of system resource"):
            return True
        now = time.monotonic()
        if now - self.last < 1.0:
            return False
        self.last = now
        record.msg, record.args, record.exc_info, record.exc_text = (
            "the server has no file left to accept a connection with (its limit of open files is reached); "
            "it tries again in a moment", (), None, None)
        return True


def _quiet_accept_faults() -> None:
    """Put :class:`OutOfFiles` on asyncio's logger once."""
    logger = logging.getLogger("asyncio")
    if not any(isinstance(f, OutOfFiles) for f in logger.filters):
        logger.addFilter(OutOfFiles())


def server_config(app: Any, protocol: type[JsonErrors] = JsonErrors, *, head_seconds: float | None = None,
                  body_seconds: float | None = None, per_address: int | None = None, tally_file: str | None = None,
                  **options: Any) -> Config:
    """uvicorn's settings for the API: ``protocol`` (:class:`JsonErrors`) as its HTTP/1.1 reader, whichever other
    it would take (httptools answers in plain text too), its bound on a request's head the
    :class:`~rangefire.web.guard.Guard`'s, and no WebSocket upgrade (the API has none: such a request is answered
    as any other); ``head_seconds``, ``body_seconds``, ``per_address`` and ``tally_file`` in place of the
    protocol's own; ``options`` as ``uvicorn.Config`` takes them."""
    _quiet_accept_faults()
    config = Config(app, http=protocol, ws="none", h11_max_incomplete_event_size=MAX_HEAD_BYTES, **options)
    # kept on the settings themselves (which ``serve --workers`` hands to each worker process), not in a class
    config.__dict__[BOUNDS] = {name: value for name, value in (("head_seconds", head_seconds),
                                                               ("body_seconds", body_seconds),
                                                               ("per_address", per_address),
                                                               ("tally_file", tally_file)) if value is not None}
    return config
