"""What a request must be before any route reads it, and what every answer carries.

:class:`Guard` sits in front of the routes. It refuses, as the API refuses anything (``{"format": 1, "error":
{...}}``, in our words), a request that a parser let through but this server does not take: an HTTP version other
than 1.0 or 1.1 (or the 2 and 3 of a server that speaks them), an address or headers past their bounds, a
header holding a control character, a length given both as ``Content-Length`` and ``Transfer-Encoding``, a
``Host`` the server was not told to answer to (:class:`AllowedHosts`: a page of another site whose name was made
to point at this machine, "DNS rebinding", is never answered), and a body sent to the API as anything but JSON
(a cross-site form posts ``text/plain`` without asking; a ``fetch`` that sends JSON asks first, and is refused).

Every answer to a battle's address (``/api/battles...``) says ``Cache-Control: no-store``: it holds tokens, hands
or a state that changes with the next action, none of it for a cache to keep.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rangefire.web.errors import ApiError

log = logging.getLogger("rangefire.web")

#: The request line and headers together, at most (uvicorn's parser is given the same bound for a head that has
#: not arrived whole: see :mod:`rangefire.web.protocol`).
MAX_HEAD_BYTES = 16 * 1024
#: A request's address (path and query), at most (the longest the API uses, a drawing's choices, takes 4 KiB).
MAX_TARGET_BYTES = 16 * 1024
#: The versions a request may name: HTTP/1.0 and 1.1, and those an HTTP/2 or 3 server gives as "2" and "3".
VERSIONS = frozenset({"1.0", "1.1", "2", "3"})
#: Names that only ever mean this machine, whatever a DNS server says (besides any loopback address).
LOOPBACK_NAMES = frozenset({"localhost"})

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")


def host_of(header: str) -> str | None:
    """The host a ``Host`` header names, lower case, an IPv6 address without its brackets and the port left off
    (``localhost:8000`` -> ``localhost``, ``[::1]:8000`` -> ``::1``); None when it is no host."""
    value = header.strip().lower()
    if value.startswith("["):
        host, bracket, port = value[1:].partition("]")
        if not bracket or _address(host) is None or ":" not in host:
            return None
    else:
        host, colon, port = value.partition(":")
        if ":" in port or not _NAME.fullmatch(host):
            return None
        port = colon + port
    if port and not re.fullmatch(r":[0-9]{1,5}", port):
        return None
    return host


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host


@dataclass(frozen=True)
class AllowedHosts:
    """The ``Host`` names a server answers to: loopback ones always (``localhost``, ``127.0.0.1``, ``[::1]``:
    a page can only be given those by this machine), the ``names`` it was told, any IP address where
    ``addresses`` (an address cannot be made to point elsewhere, as a name can), anything at all where
    ``anything`` (``*``: a server in front checks the name itself)."""

    names: frozenset[str] = frozenset()
    addresses: bool = False
    anything: bool = False

    @classmethod
    def told(cls, values: Iterable[str], *, addresses: bool = False) -> AllowedHosts:
        """The hosts given as ``--allowed-hosts`` (each a name or an address, several split by commas, ``*`` for
        any), refused (ValueError, its message naming the value) when one is no host name."""
        names: set[str] = set()
        anything = False
        for value in values:
            for given in value.split(","):
                item = given.strip().lower()
                if item == "*":
                    anything = True
                    continue
                bare = item[1:-1] if item.startswith("[") and item.endswith("]") else item
                found = _address(bare)
                if found is None and not _NAME.fullmatch(bare):
                    raise ValueError(f"--allowed-hosts {given.strip()!r}: not a host name or an address (a name "
                                     "as game.example.org, an address as 192.0.2.7 or [2001:db8::7], no port; "
                                     "* for any)")
                names.add(str(found) if found is not None else bare)
        return cls(frozenset(names), addresses, anything)

    def allows(self, host: str) -> bool:
        if self.anything or host in LOOPBACK_NAMES:
            return True
        found = _address(host)
        if found is not None:
            return found.is_loopback or self.addresses or str(found) in self.names
        return host in self.names

    def said(self) -> str:
        """The hosts, for people: ``localhost, 127.0.0.1, [::1] and game.example.org``."""
        shown = ["localhost", "127.0.0.1", "[::1]", *sorted(_shown(n) for n in self.names)]
        if self.addresses:
            shown.append("any IP address")
        return ", ".join(shown[:-1]) + " and " + shown[-1]


def _header(scope: Scope, name: bytes) -> list[bytes]:
    return [value for key, value in scope["headers"] if key.lower() == name]


def _media_type(value: bytes) -> tuple[str, str | None]:
    """A ``Content-Type``'s media type (lower case) and its charset, if it names one."""
    kind, *params = value.decode("latin-1").split(";")
    charset = None
    for param in params:
        key, _, val = param.partition("=")
        if key.strip().lower() == "charset":
            charset = val.strip().strip('"').lower()
    return kind.strip().lower(), charset


def not_json(scope: Scope) -> ApiError | None:
    """A body sent to the API that does not say it is JSON (415): a cross-site form (``text/plain``, a form's
    encodings) or a ``fetch`` with no type at all is sent without the browser asking first; JSON is not."""
    types = _header(scope, b"content-type")
    if not types:
        said = "this request names no Content-Type"
    else:
        kind, charset = _media_type(types[0])
        if len(types) == 1 and kind == "application/json" and charset in (None, "utf-8"):
            return None
        said = f"this request's Content-Type is {types[0].decode('latin-1')[:80]!r}"
    return ApiError(415, "unsupported_media_type", f"the body must be JSON, sent with Content-Type: "
                                                    f"application/json; {said}", path="Content-Type")


def refusal(scope: Scope, hosts: AllowedHosts | None) -> ApiError | None:
    """Why the request is refused before any route reads it, or None."""
    version = str(scope.get("http_version", "1.1"))
    if version not in VERSIONS:
        return ApiError(505, "invalid_http", f"HTTP/{version[:10]} is not a version this server speaks: send "
                                             "HTTP/1.1")
    target = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
    if target > MAX_TARGET_BYTES:
        return ApiError(414, "too_large", f"the request's address is {target:,} bytes long, more than the "
                                          f"{MAX_TARGET_BYTES:,} this server reads")
    headers = scope["headers"]
    head = sum(len(name) + len(value) + 4 for name, value in headers)
    if head > MAX_HEAD_BYTES:
        return ApiError(431, "too_large", f"the request's headers are {head:,} bytes, more than the "
                                          f"{MAX_HEAD_BYTES:,} this server reads")
    for name, value in headers:
        if _CONTROL.search(value):
            shown = name.decode("latin-1")[:40]
            return ApiError(400, "invalid_http", f"the header {shown} holds a control character", path=shown)
    if _header(scope, b"content-length") and _header(scope, b"transfer-encoding"):
        return ApiError(400, "invalid_http", "the request gives both Content-Length and Transfer-Encoding: a "
                                             "body's length is said one way, not both")
    if hosts is not None:
        given = _header(scope, b"host")
        if len(given) != 1:
            return ApiError(400, "invalid_http", "the request must name one Host", path="Host")
        text = given[0].decode("latin-1")
        host = host_of(text)
        if host is None:
            return ApiError(400, "invalid_http", f"the Host {text[:80]!r} is not a host name", path="Host")
        if not hosts.allows(host):
            return ApiError(421, "misdirected", f"this server answers to {hosts.said()}, not to {text[:80]!r}: "
                                                "a page reached under another name is refused (it may be another "
                                                "site's, its name pointed at this machine); start the server with "
                                                "--allowed-hosts to answer to a name of its own", path="Host")
    if scope["method"] in ("POST", "PUT", "PATCH") and scope["path"].startswith("/api/"):
        return not_json(scope)
    return None


def _is_battles(path: str) -> bool:
    return path == "/api/battles" or path.startswith("/api/battles/")


class Guard:
    """The checks of :func:`refusal` before every route, ``Cache-Control: no-store`` on every answer of a
    battle's, and a client gone while its body was read (nothing can be answered to it) let go with one line
    logged, not a fault."""

    def __init__(self, app: ASGIApp, allowed_hosts: AllowedHosts | None = None) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = refusal(scope, self.allowed_hosts)
        no_store = _is_battles(scope["path"])

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start" and no_store:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                message["headers"] = [*headers, (b"cache-control", b"no-store")]
            await send(message)

        if refused is not None:
            # the body of a refused request is never read: the connection closes after the answer rather than
            # read the rest of it
            carries = any(k in (b"content-length", b"transfer-encoding") for k, _ in scope["headers"])
            headers = {"Connection": "close"} if carries or refused.status in (400, 414, 431, 505) else None
            await JSONResponse(refused.body(), status_code=refused.status, headers=headers)(
                scope, receive, with_headers)
            return
        try:
            await self.app(scope, receive, with_headers)
        except ClientDisconnect:
            # one line, no traceback: nothing can be answered, and nothing is wrong with the server
            if "rangefire.timed_out" not in scope.get("extensions", {}):  # else said already (its 408)
                client = scope.get("client")
                log.warning("%s %s from %s: the client went away before its body was whole", scope["method"],
                            scope["path"][:100], client[0] if client else "a client")
