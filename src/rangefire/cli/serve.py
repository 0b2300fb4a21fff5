"""``rangefire serve``: the HTTP API and the table in a browser (needs the extra ``rangefire[web]``)."""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from rangefire.cli.common import app, number_option, out, text, user_errors, whole_number
from rangefire.core import RangefireError


def default_db() -> Path:
    """Where battles are kept unless told: the user's data folder (``$XDG_DATA_HOME``, ``%LOCALAPPDATA%``)."""
    base = os.environ.get("XDG_DATA_HOME") or os.environ.get("LOCALAPPDATA")
    folder = Path(base) if base else Path.home() / ".local" / "share"
    return folder / "rangefire" / "battles.sqlite3"


#: The settings of ``serve --workers N`` each worker reads (a JSON object: :func:`worker_app`).
WORKER_SETTINGS = "RANGEFIRE_SERVE_SETTINGS"


def _app(settings: dict[str, Any], share_events: bool, warm: bool = True) -> Any:
    """The application over the store ``settings["db"]``, answering the hosts the settings name; its engine's
    workers started before the first question when it is to serve (``warm``)."""
    from rangefire.web.app import create_app
    from rangefire.web.guard import AllowedHosts

    try:  # beyond loopback, any address is answered too: an address cannot be pointed elsewhere, as a name can
        hosts = AllowedHosts.told(settings["hosts"], addresses=settings["addresses"])
    except ValueError as exc:
        raise RangefireError(str(exc)) from None
    web = create_app(settings["db"], allowed_hosts=hosts, share_events=share_events, **settings.get("bounds", {}))
    if warm:
        web.state.gate.engine.warm()
    return web


def worker_app() -> Any:
    """The application of one worker process of ``serve --workers N`` (uvicorn's factory): its settings are
    the serving command's, from the environment; its events shared with the other workers."""
    return _app(json.loads(os.environ[WORKER_SETTINGS]), share_events=True)


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so that a port in use is said in our words (and port 0 picks one)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise RangefireError(f"--host {host!r}: not an address this machine can listen on ({exc})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise RangefireError(f"cannot listen on {host} port {port}: {(exc.strerror or str(exc)).lower()}") from None
    sock.set_inheritable(True)
    return sock


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="the address to listen on (loopback unless told: only this machine)")]
    = "127.0.0.1",
    port_text: Annotated[str, typer.Option("--port", metavar="INTEGER", help="the port (0: any free one)")] = "8000",
    db: Annotated[Optional[str], typer.Option(  # noqa: UP045
        help="where battles are kept: a SQLite file (default: in the user's data folder) or a PostgreSQL "
             "database, postgresql://user@host/name")] = None,
    workers_text: Annotated[str, typer.Option(
        "--workers", metavar="INTEGER", help="worker processes serving at once, sharing the battles (1 to 32)")]
    = "1",
    examples: Annotated[bool, typer.Option("--examples", help="create one battle per built-in example and print "
                                                               "each side's link")] = False,
    allowed_hosts: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--allowed-hosts", metavar="NAMES",
        help="host names the server answers to besides localhost, 127.0.0.1 and [::1] (commas between them, or "
             "the option again; * for any): the names a browser reaches it by, e.g. game.example.org; any other "
             "Host is refused")] = None,
    engine_seconds: Annotated[str, typer.Option(
        "--engine-seconds", metavar="SECONDS", help="the engine's time one request may take (0.5 at least): a "
                                                    "question estimated to take longer is refused at once (422 "
                                                    "too_large), one that runs longer is stopped")] = "2",
    create_rate: Annotated[str, typer.Option(
        "--create-rate", metavar="INTEGER", help="battles one client address may create in an hour (0: no "
                                                 "bound)")] = "60",
    keep_days: Annotated[str, typer.Option(
        "--keep-days", metavar="DAYS", help="battles nobody has used for this many days are removed, at start and "
                                            "every hour (0: kept for ever)")] = "30",
    max_battles: Annotated[str, typer.Option(
        "--max-battles", metavar="INTEGER", help="battles kept at most: a new one past it is refused (0: no "
                                                 "bound)")] = "10000",
    max_streams: Annotated[str, typer.Option(
        "--max-streams", metavar="INTEGER", help="event streams open at once (a page holds one)")] = "1000",
    max_waiting: Annotated[str, typer.Option(
        "--max-waiting", metavar="INTEGER", help="reads and actions worked on or waiting their turn, at most, and "
                                                 "as many questions for the engine: the next is refused (503, "
                                                 "retry)")] = "256",
    head_seconds: Annotated[str, typer.Option(
        "--head-seconds", metavar="SECONDS", help="a request's line and headers must arrive within this (408 "
                                                  "after)")] = "30",
    body_seconds: Annotated[str, typer.Option(
        "--body-seconds", metavar="SECONDS", help="a request's body must arrive within this of its headers (408 "
                                                  "after)")] = "30",
    per_address: Annotated[str, typer.Option(
        "--connections-per-address", metavar="INTEGER", help="connections open at once from one client address "
                                                             "(0: no bound)")] = "256",
    forwarded_allow_ips: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        "--forwarded-allow-ips", metavar="ADDRESSES",
        help="the proxies in front of the server whose X-Forwarded-For is believed (addresses or networks as "
             "10.0.0.0/8, commas between them, or the option again; * for any): a request through one counts "
             "against the client address it names; none unless told, so that no client chooses its "
             "address")] = None,
) -> None:
    """Serve the HTTP API and the table in a browser; battles are kept in a SQLite file or in PostgreSQL.

    Bounded: the engine's time per request, battles created and connections per address, slow requests timed out.
    """
    with user_errors():
        port = whole_number("--port", port_text) or 0  # a port that is no number refused in our words
        if not 0 <= port <= 65535:
            raise RangefireError(f"--port {port}: must be 0 (any free one) to 65535")
        workers = whole_number("--workers", workers_text) or 0
        if not 1 <= workers <= 32:
            raise RangefireError(f"--workers {workers}: must be 1 to 32")
        try:
            import uvicorn

            from rangefire.web.guard import AllowedHosts
            from rangefire.web.protocol import server_config
            from rangefire.web.store import is_postgresql
        except ImportError:
            raise RangefireError("serve needs the web extra: pip install 'rangefire[web]' (FastAPI and "
                                 "uvicorn)") from None
        try:  # beyond loopback, any address is answered too: an address cannot be pointed elsewhere, as a name can
            hosts = AllowedHosts.told(allowed_hosts or (), addresses=not _is_loopback(host))
        except ValueError as exc:
            raise RangefireError(str(exc)) from None
        forwarded = _forwarded(forwarded_allow_ips)
        where = db if db is not None and is_postgresql(db) else str(Path(db) if db else default_db())
        settings = {"db": where, "hosts": list(allowed_hosts or ()), "addresses": not _is_loopback(host),
                    **_bounds(engine_seconds, create_rate, keep_days, max_battles, max_streams, max_waiting,
                              head_seconds, body_seconds, per_address)}
        sock = _listen(host, port)  # before the database: a port in use leaves nothing behind
        # the store opened (its schema brought up to date) once, here; a PostgreSQL store's events shared with
        # the other servers of the same database, even from one process
        # with --workers N this application only creates the examples: each worker starts its own engine
        web = _app(settings, share_events=workers == 1 and is_postgresql(where), warm=workers == 1)
        bound = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        address = f"http://{shown_host}:{bound}"
        if examples:
            _examples(web, address)
        out.print(text(f"battles kept in {web.state.store.where}"
                       + (f", shared by {workers} worker processes" if workers > 1 else "")), soft_wrap=True)
        if not _is_loopback(host):
            out.print(text(f"listening on {host}: anyone who can reach it may create battles, and without TLS in "
                           "front of it the links' tokens cross the network in clear"), style="yellow")
        if not hosts.anything:
            out.print(text(f"answering to {hosts.said()} (a request naming another Host is refused; "
                           "--allowed-hosts names more)"), soft_wrap=True)
        out.print(text(f"rangefire serving on {address} (the API at {address}/docs); Ctrl-C stops"), soft_wrap=True)
        sys.stdout.flush()
        try:
            if workers == 1:
                # the lifespan's end closes the store (and its relay's socket)
                config = server_config(web, log_level="warning", lifespan="on", timeout_graceful_shutdown=2,
                                       **_proxies(forwarded), **settings["protocol"])
                uvicorn.Server(config).run(sockets=[sock])
            else:
                _run_workers(web, settings, workers, sock, forwarded)
        finally:
            sock.close()
            web.state.store.close()


def _forwarded(values: list[str] | None) -> str | None:
    """The proxies of ``--forwarded-allow-ips`` as uvicorn takes them (addresses and networks, commas between
    them, or ``*``), each read here so that a mistyped one is refused rather than trusted as a name; None for
    none."""
    found: list[str] = []
    for value in values or ():
        for given in value.split(","):
            item = given.strip()
            if item == "*":
                return "*"
            try:
                if "/" in item:
                    found.append(str(ipaddress.ip_network(item, strict=False)))
                else:
                    found.append(str(ipaddress.ip_address(item[1:-1] if item.startswith("[") else item)))
            except ValueError:
                raise RangefireError(f"--forwarded-allow-ips {item!r}: not an address or a network (a proxy's "
                                     "address as 10.0.0.7 or [2001:db8::7], a network as 10.0.0.0/8, commas "
                                     "between them; * for any)") from None
    return ",".join(found) or None


def _proxies(forwarded: str | None) -> dict[str, Any]:
    """uvicorn's settings for the proxies believed: X-Forwarded-For read from those only, and from none unless
    told (uvicorn's own default believes any process of this machine)."""
    return {"proxy_headers": forwarded is not None, "forwarded_allow_ips": forwarded or ""}


def _bounds(engine_seconds: str, create_rate: str, keep_days: str, max_battles: str, max_streams: str,
            max_waiting: str, head_seconds: str, body_seconds: str, per_address: str) -> dict[str, Any]:
    """The bounds of ``serve``'s options, read in our words: ``bounds`` for the application (``create_app``),
    ``protocol`` for the HTTP reader (``server_config``)."""
    def seconds(flag: str, value: str, least: float = 0.1) -> float:
        found = number_option(flag, value)
        if not least <= found <= 86400:
            raise RangefireError(f"{flag} {value}: must be {least:g} to 86400 seconds")
        return found

    def count(flag: str, value: str, least: int) -> int:
        found = whole_number(flag, value) or 0
        if not least <= found <= 10**9:
            raise RangefireError(f"{flag} {value}: must be a whole number from {least}")
        return found

    days = number_option("--keep-days", keep_days)
    if not 0 <= days <= 100_000:
        raise RangefireError(f"--keep-days {keep_days}: must be 0 (kept for ever) to 100000 days")
    battles = count("--max-battles", max_battles, 0)
    # below half a second a question has little room beside its fixed cost (estimate.FIXED_SECONDS, 0.15 s)
    return {"bounds": {"engine_seconds": seconds("--engine-seconds", engine_seconds, 0.5),
                       "create_rate": count("--create-rate", create_rate, 0), "keep_days": days or None,
                       "max_battles": battles or None, "max_streams": count("--max-streams", max_streams, 1),
                       "max_waiting": count("--max-waiting", max_waiting, 1)},
            "protocol": {"head_seconds": seconds("--head-seconds", head_seconds, 1.0),
                         "body_seconds": seconds("--body-seconds", body_seconds, 1.0),
                         "per_address": count("--connections-per-address", per_address, 0)}}


def _run_workers(web: Any, settings: dict[str, Any], workers: int, sock: socket.socket,
                 forwarded: str | None = None) -> None:
    """``workers`` processes serving the one listening socket, each with its application (:func:`worker_app`),
    a worker that dies replaced; this process only watches them.

    The bounds on what the server holds open (event streams, connections per address) are counted for all the
    workers together, in a tally file of this process's (:mod:`rangefire.web.tally`), removed when it stops;
    where a system has no lock of files to share one, each worker takes its share of each bound."""
    from uvicorn.supervisors import Multiprocess

    from rangefire.web import tally
    from rangefire.web.protocol import server_config

    web.state.store.close()  # each worker opens its own
    shared = tally.folder()
    path = tally.create(shared) if shared is not None else None
    try:
        if path is not None:
            settings["bounds"]["tally_file"] = settings["protocol"]["tally_file"] = str(path)
        else:
            for bounds, name in ((settings["bounds"], "max_streams"), (settings["protocol"], "per_address")):
                bounds[name] = -(-bounds[name] // workers)  # a share of each, rounded up
        os.environ[WORKER_SETTINGS] = json.dumps(settings)
        # each worker's lifespan ends by closing its store (and its relay's socket)
        config = server_config("rangefire.cli.serve:worker_app", factory=True, workers=workers, log_level="warning",
                               lifespan="on", timeout_graceful_shutdown=2, **_proxies(forwarded),
                               **settings["protocol"])
        Multiprocess(config, sockets=[sock]).run()
    finally:
        if path is not None:
            path.unlink(missing_ok=True)


def _examples(web: Any, address: str) -> None:
    from rangefire.web.service import examples

    battles = web.state.battles
    for example in examples():
        created = battles.create(None, example.name, False)
        out.print(text(f"{example.title} ({example.ruleset})"), style="bold")
        for who, link in created["links"].items():
            out.print(text(f"  {who}: {address}{link}"), soft_wrap=True)  # a link is never cut
