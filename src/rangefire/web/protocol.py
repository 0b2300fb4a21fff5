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
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from rangefire.web.errors import ApiError
from rangefire.web.guard import MAX_HEAD_BYTES


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


def unreadable(error: h11.RemoteProtocolError | None) -> ApiError:
    """The API's error for a request h11 could not read: its status h11's hint (400, 431 for a head too large,
    501 for a transfer coding it does not take), its message ours."""
    said = str(error).lower() if error is not None else ""
    message = next((ours for theirs, ours in _SAID if said.startswith(theirs)), None)
    status = error.error_status_hint if error is not None else 400
    kind = "too_large" if status == 431 else "invalid_http"
    return ApiError(status, kind, f"this is not an HTTP/1.1 request this server can read: "
                                  f"{message or 'it does not follow HTTP/1.1'}")


class JsonErrors(H11Protocol):
    """uvicorn's h11 protocol, its one plain-text answer (a request it cannot read) given as the API's JSON
    error, and a time limit on a request's head: uvicorn waits for ever for a head that never ends (one byte a
    minute holds a connection open), this answers 408 once :attr:`head_seconds` have passed without the head
    whole, and closes a connection on which nothing at all came in that long."""

    #: Seconds a request's head (its line and headers) may take to arrive, from the connection or its first byte.
    head_seconds: float = 30.0

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.conn = _Reader(h11.SERVER, config.h11_max_incomplete_event_size or MAX_HEAD_BYTES)
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._time_the_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._time_the_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timing()
        super().connection_lost(exc)

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


def server_config(app: Any, protocol: type[JsonErrors] = JsonErrors, **options: Any) -> Config:
    """uvicorn's settings for the API: ``protocol`` (:class:`JsonErrors`) as its HTTP/1.1 reader, whichever other
    it would take (httptools answers in plain text too), its bound on a request's head the
    :class:`~rangefire.web.guard.Guard`'s, and no WebSocket upgrade (the API has none: such a request is answered
    as any other); ``options`` as ``uvicorn.Config`` takes them."""
    return Config(app, http=protocol, ws="none", h11_max_incomplete_event_size=MAX_HEAD_BYTES, **options)
