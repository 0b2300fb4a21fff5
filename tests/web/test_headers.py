"""Headers and errors: every error in JSON and our words (the requests uvicorn cannot read included, on a real
server and raw sockets), ``Cache-Control: no-store`` on every battle answer, the ``Host`` a server answers to
(against DNS rebinding), bodies taken as JSON only (no cross-site form creates a battle), and ``/docs`` served
from this server alone under a Content-Security-Policy."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from fastapi.testclient import TestClient
from starlette.routing import Route

from rangefire.web import create_app
from rangefire.web.docs import DOCS_POLICY
from rangefire.web.guard import MAX_HEAD_BYTES, MAX_TARGET_BYTES, AllowedHosts, host_of
from tests.web.conftest import Battle, bearer, error_of
from tests.web.live_server import serving
from tests.web.server import Server

ROOT = Path(__file__).resolve().parents[2]
#: A guard against a test that hangs, never a measurement.
WAIT = 30.0


def routes(app: Any, method: str, prefix: str) -> list[str]:
    """The app's own paths answering ``method`` under ``prefix``: read from the router, so that a route added
    later is checked too."""
    return sorted(r.path for r in app.routes if isinstance(r, Route) and method in (r.methods or ())
                  and r.path.startswith(prefix))


def filled(path: str, battle: Battle) -> str:
    return path.replace("{battle_id}", battle.id)


# -- Cache-Control ----------------------------------------------------------------------------------------------
def test_every_battle_answer_says_no_store_errors_included(tmp_path, new_battle, client):
    battle = new_battle("wheatfield")
    reads = routes(client.app, "GET", "/api/battles")
    acts = routes(client.app, "POST", "/api/battles")
    assert "/api/battles/{battle_id}" in reads and "/api/battles" in acts and len(reads) + len(acts) >= 12
    answers = []
    for path in reads:
        if path.endswith("/events"):  # a stream: its refusal here, its answer on a short-lived one below
            answers.append(client.get(filled(path, battle), params={"token": "wrong"}))
            continue
        answers.append(battle.get(filled(path, battle)[len(battle.url()):]))
        answers.append(client.get(filled(path, battle)))  # no token: 401
        answers.append(client.get(path.replace("{battle_id}", "nobody"), headers=bearer(battle.spectator)))
    for path in acts:
        answers.append(client.post(filled(path, battle), headers=bearer(battle.spectator), json={}))
        answers.append(client.post(filled(path, battle), headers=bearer(battle.spectator), content=b"{}"))  # 415
    answers.append(client.get(battle.url("/no-such-thing")))
    statuses = {r.status_code for r in answers}
    assert {200, 401, 403, 404, 415, 422} <= statuses, statuses
    for response in answers:
        assert response.headers.get("cache-control") == "no-store", (response.request.url, response.status_code)
    with TestClient(create_app(tmp_path / "s.sqlite3", stream_seconds=0.2, keepalive=0.05)) as short:
        made = short.post("/api/battles", json={"example": "ford"})
        assert made.headers["cache-control"] == "no-store"  # the tokens' only answer
        stream = short.get(f"/api/battles/{made.json()['id']}/events",
                           params={"token": made.json()["tokens"]["spectator"]})
        assert stream.status_code == 200 and stream.headers["cache-control"] == "no-store"


def test_the_routers_refusals_are_said_in_our_words(client):
    error = error_of(client.get("/api/nothing-here"), 404, "not_found")
    assert error["message"] == "nothing is served at /api/nothing-here"
    response = client.delete("/api/rulesets")
    error = error_of(response, 405, "method_not_allowed")
    assert error["message"] == "DELETE is not taken at /api/rulesets (only GET)"
    assert response.headers["allow"] == "GET"


# -- bodies are JSON --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain;charset=UTF-8",
                                          "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                          "application/json; charset=latin-1", "application/jsonx",
                                          "text/json"])
def test_every_post_route_takes_json_only(new_battle, client, content_type):
    battle = new_battle("wheatfield")
    posts = routes(client.app, "POST", "/api/")
    assert len(posts) >= 12, posts
    headers = {} if content_type is None else {"Content-Type": content_type}
    for path in posts:
        response = client.post(filled(path, battle), headers={**battle.as_side("union"), **headers},
                               content=b'{"example": "ford", "attacker": "20th-maine"}')
        error = error_of(response, 415, "unsupported_media_type")
        assert "Content-Type: application/json" in error["message"] and error["path"] == "Content-Type"
        said = "names no Content-Type" if content_type is None else repr(content_type)
        assert said in error["message"], (path, error["message"])
    assert battle.state()["actions"] == 0


def test_a_cross_site_text_form_creates_no_battle(client):
    """What a page of another site can post without asking first (a form, ``enctype="text/plain"``, its one
    field's name and value making up a JSON text) is refused, and no battle is created."""
    stored = client.app.state.store
    before = stored.count()
    form = b'{"example": "wheatfield", "x": "=1"}'
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"):
        response = client.post("/api/battles", content=form, headers={"Content-Type": content_type,
                                                                       "Origin": "https://elsewhere.example"})
        error_of(response, 415, "unsupported_media_type")
    assert stored.count() == before
    made = client.post("/api/battles", content=b'{"example": "wheatfield"}',
                       headers={"Content-Type": "application/json; charset=utf-8"})
    assert made.status_code == 201 and stored.count() == before + 1


# -- the Host answered ------------------------------------------------------------------------------------------
LOOPBACK_HOSTS = ["localhost", "localhost:8000", "LOCALHOST:1", "127.0.0.1", "127.0.0.1:80", "127.1.2.3:9",
                  "[::1]", "[::1]:8000"]
OTHER_HOSTS = ["evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.nip.io",
               "192.168.1.5:8000", "10.0.0.1", "[2001:db8::1]:80", "testserver"]
NOT_HOSTS = ["", "a b", "[::1", "::1", "localhost:http", "localhost:123456", "local_host", "x:1:2", "[evil]:80"]


def test_host_of_reads_a_host_header():
    assert host_of("localhost:8000") == "localhost" and host_of("[::1]:80") == "::1"
    assert host_of("Game.Example.ORG") == "game.example.org" and host_of("127.0.0.1") == "127.0.0.1"
    for text in NOT_HOSTS:
        assert host_of(text) is None, text


@pytest.fixture
def loopback_only(tmp_path: Path) -> Any:
    with TestClient(create_app(tmp_path / "h.sqlite3", allowed_hosts=AllowedHosts.told([]))) as test_client:
        yield test_client


@pytest.mark.parametrize("path", ["/api/rulesets", "/", "/docs", "/api/battles/x/events?token=t"])
def test_a_loopback_server_answers_loopback_names_only(loopback_only, path):
    for host in LOOPBACK_HOSTS:
        response = loopback_only.get(path, headers={"Host": host})
        assert response.status_code != 421, (host, response.text)
    for host in OTHER_HOSTS:
        error = error_of(loopback_only.get(path, headers={"Host": host}), 421, "misdirected")
        assert repr(host) in error["message"] and "localhost, 127.0.0.1 and [::1]" in error["message"]
        assert "--allowed-hosts" in error["message"] and error["path"] == "Host"
    for host in NOT_HOSTS:
        error_of(loopback_only.get(path, headers={"Host": host}), 400, "invalid_http")


def test_a_post_from_a_rebound_name_creates_nothing(loopback_only):
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 posts JSON to its own origin."""
    before = loopback_only.app.state.store.count()
    response = loopback_only.post("/api/battles", json={"example": "ford"}, headers={"Host": "evil.example"})
    error_of(response, 421, "misdirected")
    assert response.headers["cache-control"] == "no-store"
    assert loopback_only.app.state.store.count() == before
    made = loopback_only.post("/api/battles", json={"example": "ford"}, headers={"Host": "localhost:8000"})
    assert made.status_code == 201


def test_allowed_hosts_beyond_loopback():
    told = AllowedHosts.told(["game.example.org, 192.0.2.7", "[2001:DB8::7]"])
    assert told.allows("game.example.org") and told.allows("192.0.2.7") and told.allows("2001:db8::7")
    assert told.allows("localhost") and told.allows("::1") and told.allows("127.0.0.1")
    assert not told.allows("other.example.org") and not told.allows("192.0.2.8")
    assert not told.allows("sub.game.example.org")
    assert "game.example.org" in told.said() and "[2001:db8::7]" in told.said()
    anywhere = AllowedHosts.told([], addresses=True)  # a server bound beyond loopback: any address, no name
    assert anywhere.allows("192.168.1.5") and anywhere.allows("2001:db8::1") and anywhere.allows("localhost")
    assert not anywhere.allows("evil.example") and "any IP address" in anywhere.said()
    assert AllowedHosts.told(["*"]).allows("evil.example")
    for bad in ("http://game.example.org", "game.example.org:8000", "a b", "x_y.org", "-x.org"):
        with pytest.raises(ValueError, match="--allowed-hosts"):
            AllowedHosts.told([bad])


def test_serve_answers_the_hosts_it_is_told(tmp_path):
    with Server(tmp_path / "a.sqlite3", "--allowed-hosts", "game.example.org") as running:
        printed = "".join(running.printed)
        assert "answering to localhost, 127.0.0.1, [::1] and game.example.org" in printed
        with httpx.Client(base_url=running.address, timeout=WAIT) as client:
            assert client.get("/api/rulesets", headers={"Host": "game.example.org:443"}).status_code == 200
            assert client.get("/api/rulesets").status_code == 200  # 127.0.0.1:PORT
            error_of(client.get("/api/rulesets", headers={"Host": "evil.example"}), 421, "misdirected")


def test_serve_refuses_a_host_list_that_names_no_host(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "rangefire.cli", "serve", "--db", str(tmp_path / "b.sqlite3"),
                           "--allowed-hosts", "game.example.org,http://x"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--allowed-hosts 'http://x': not a host name or an address" in proc.stderr
    assert not (tmp_path / "b.sqlite3").exists()


# -- /docs --------------------------------------------------------------------------------------------------------
class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.inline_scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.links += [v for k, v in attrs if k in ("src", "href") and v]
        if tag == "script" and "src" not in found:
            self.inline_scripts += 1


def test_docs_are_served_from_here_under_a_policy(client):
    page = client.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert policy == DOCS_POLICY and "default-src 'self'" in policy
    assert not re.search(r"https?:|\*|unsafe", policy)  # no other origin, no wildcard, no inline script or eval
    parsed = _Links()
    parsed.feed(page.text)
    assert parsed.inline_scripts == 0 and "cdn" not in page.text.lower()
    assert {"/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/assets/docs.js"} <= set(
        parsed.links)
    for link in parsed.links:
        if link.startswith("data:"):
            continue
        assert link.startswith("/") and not link.startswith("//"), link
        if link.startswith("/docs/"):
            served = client.get(link)
            assert served.status_code == 200 and len(served.content) > 100, link
    assert "SwaggerUIBundle" in client.get("/docs/assets/swagger-ui-bundle.js").text
    assert '"/openapi.json"' in client.get("/docs/assets/docs.js").text
    for gone in ("/redoc", "/docs/oauth2-redirect"):  # FastAPI's own pages load their scripts from a CDN
        error_of(client.get(gone), 404, "not_found")
    error_of(client.get("/docs/assets/../app.py"), 404, "not_found")


def test_the_table_pages_load_nothing_from_elsewhere(tmp_path):
    with TestClient(create_app(tmp_path / "p.sqlite3")) as client:  # the package's own page files
        for path in ("/", "/battle/some-battle"):
            page = client.get(path)
            assert page.status_code == 200
            assert page.headers["content-security-policy"].startswith("default-src 'self'")
            parsed = _Links()
            parsed.feed(page.text)
            assert parsed.inline_scripts == 0
            for link in parsed.links:
                assert link.startswith(("/", "#", "data:")) and not link.startswith("//"), (path, link)
    for script in (ROOT / "src" / "rangefire" / "web" / "static").glob("*.js"):  # nor does a script fetch elsewhere
        assert not re.search(r"""(fetch|import|EventSource)\s*\(\s*["'`]https?:""", script.read_text()), script


def test_every_refusal_before_the_routes_is_in_the_docs():
    """Each status and kind the guard and the reader answer with is a row of docs/http.md's table of errors."""
    table = (ROOT / "docs" / "http.md").read_text(encoding="utf-8")
    found = set()
    for module in ("guard.py", "protocol.py"):
        text = (ROOT / "src" / "rangefire" / "web" / module).read_text(encoding="utf-8")
        found |= set(re.findall(r'ApiError\((\d{3}), "([a-z_]+)"', text))
    found |= {("400", "invalid_http"), ("431", "too_large"), ("501", "invalid_http")}  # the reader's hints
    assert len(found) >= 8
    for status, kind in sorted(found):
        assert re.search(rf"^\| {status} \| [^|]*`{kind}`", table, re.MULTILINE), (status, kind)


# -- every error in JSON, on a real server ----------------------------------------------------------------------
HOST = b"Host: 127.0.0.1\r\n"
#: Requests uvicorn cannot read, or reads but this server does not take: (name, bytes, status, kind). Before,
#: uvicorn answered the first kind in plain text ("Invalid HTTP request received."), and answered others (a
#: version 9.9, a 70 KB header sent at once, a control character, both lengths) as if they were fine.
MALFORMED = [
    ("not a request line", b"GARBAGE\r\n\r\n", 400, "invalid_http"),
    ("a space in the path", b"GET /a b HTTP/1.1\r\n" + HOST + b"\r\n", 400, "invalid_http"),
    ("no version", b"GET /\r\n\r\n", 400, "invalid_http"),
    ("version HTTP/1", b"GET / HTTP/1\r\n" + HOST + b"\r\n", 400, "invalid_http"),
    ("version 2.0 as text", b"GET / HTTP/2.0\r\n" + HOST + b"\r\n", 505, "invalid_http"),
    ("version 9.9", b"GET /api/rulesets HTTP/9.9\r\n" + HOST + b"\r\n", 505, "invalid_http"),
    ("an HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "invalid_http"),
    ("a header line with no colon", b"GET / HTTP/1.1\r\n" + HOST + b"NoColon\r\n\r\n", 400, "invalid_http"),
    ("a space in a header's name", b"GET / HTTP/1.1\r\n" + HOST + b"Bad Name: y\r\n\r\n", 400, "invalid_http"),
    ("a control character in a value", b"GET / HTTP/1.1\r\n" + HOST + b"X: a\x01b\r\n\r\n", 400,
     "invalid_http"),
    ("no Host", b"GET / HTTP/1.1\r\n\r\n", 400, "invalid_http"),
    ("two Hosts", b"GET / HTTP/1.1\r\n" + HOST + HOST + b"\r\n", 400, "invalid_http"),
    ("a length that is no number", b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Content-Length: abc\r\n\r\n", 400,
     "invalid_http"),
    ("two lengths", b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
     400, "invalid_http"),
    ("both a length and chunks", b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
     b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "invalid_http"),
    ("a transfer coding not taken", b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: gzip\r\n\r\n",
     501, "invalid_http"),
    ("a broken chunk", b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "invalid_http"),
    ("a byte that is no character in the path", b"GET /\xff HTTP/1.1\r\n" + HOST + b"\r\n", 400, "invalid_http"),
    ("a TLS hello", bytes.fromhex("16030100a5010000a10303") + b"\x00" * 40, 400, "invalid_http"),
    ("headers too large, sent at once", b"GET / HTTP/1.1\r\n" + HOST + b"X: " + b"a" * (MAX_HEAD_BYTES + 10)
     + b"\r\n\r\n", 431, "too_large"),
    ("an address too long", b"GET /" + b"a" * (MAX_TARGET_BYTES + 10) + b" HTTP/1.1\r\n" + HOST + b"\r\n", 414,
     "too_large"),
    ("another site's Host", b"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n", 421, "misdirected"),
    ("a text form", b"POST /api/battles HTTP/1.1\r\n" + HOST + b"Content-Type: text/plain\r\nContent-Length: 2"
     b"\r\n\r\n{}", 415, "unsupported_media_type"),
]


def exchange(address: str, *pieces: bytes, pause: float = 0.0) -> tuple[int, dict[str, str], bytes, bool]:
    """Send ``pieces`` (``pause`` seconds apart) on a new connection; the answer's status, headers and body, and
    whether the server closed the connection after it."""
    url = urlsplit(address)
    with socket.create_connection((url.hostname, url.port), timeout=WAIT) as sock:
        for piece in pieces:
            try:
                sock.sendall(piece)
            except OSError:  # answered and closed before the rest was sent
                break
            time.sleep(pause)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
        sock.settimeout(5)
        try:
            closed = sock.recv(1) == b""
        except (TimeoutError, ConnectionResetError):
            closed = False
    return int(lines[0].split(" ")[1]), headers, body, closed


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with Server(tmp_path_factory.mktemp("served") / "battles.sqlite3") as running:
        yield running


def error_body(status: int, headers: dict[str, str], body: bytes, kind: str) -> dict[str, Any]:
    assert headers["content-type"] == "application/json", (status, headers, body)
    data = json.loads(body)
    assert data["format"] == 1 and set(data["error"]) >= {"kind", "message", "path", "clause"}, data
    assert data["error"]["kind"] == kind, data
    assert "Invalid HTTP request" not in data["error"]["message"] and "Traceback" not in body.decode()
    error: dict[str, Any] = data["error"]
    return error


@pytest.mark.parametrize(("name", "raw", "status", "kind"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_request_the_server_cannot_take_is_answered_in_json(served, name, raw, status, kind):
    got, headers, body, closed = exchange(served.address, raw)
    assert got == status, (name, got, body)
    error = error_body(got, headers, body, kind)
    assert len(error["message"]) > 20
    if status in (400, 431, 501, 505):  # what follows a broken request cannot be told from it: closed
        assert headers.get("connection") == "close" and closed, name


def test_a_head_too_large_that_never_ends_is_answered_431(served):
    """The head is sent in pieces and never finished: the reader's own bound refuses it (not the guard's,
    which sees only a whole head)."""
    start = b"GET / HTTP/1.1\r\n" + HOST + b"X: "
    pieces = [start] + [b"a" * 4096] * (MAX_HEAD_BYTES // 4096 + 2)
    status, headers, body, closed = exchange(served.address, *pieces, pause=0.02)
    error = error_body(status, headers, body, "too_large")
    assert status == 431 and closed and f"{MAX_HEAD_BYTES:,}" in error["message"]


def test_an_upgrade_asked_for_is_answered_as_a_plain_request(served):
    status, _, body, _ = exchange(served.address, b"GET /api/examples HTTP/1.1\r\n" + HOST +
                                  b"Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
    assert status == 200 and "examples" in json.loads(body)


def test_a_head_that_does_not_arrive_in_time_is_answered_408(tmp_path):
    from rangefire.web.protocol import JsonErrors

    class Quick(JsonErrors):
        head_seconds = 0.5

    with serving(create_app(tmp_path / "q.sqlite3"), protocol=Quick) as address:
        started = time.monotonic()
        status, headers, body, closed = exchange(address, b"GET /api/rulesets HTTP/1.1\r\n" + HOST + b"X-Slow: a")
        assert status == 408 and closed and time.monotonic() - started < WAIT
        assert "0.5 seconds" in error_body(status, headers, body, "timeout")["message"]
        # nothing at all came: closed without an answer
        url = urlsplit(address)
        with socket.create_connection((url.hostname, url.port), timeout=WAIT) as idle:
            assert idle.recv(100) == b""
        # a head that arrives in time, though slowly, is answered
        pieces = [b"GET /api/examples HTTP/1.1\r\n", HOST, b"\r\n"]
        assert exchange(address, *pieces, pause=0.1)[0] == 200


def test_the_server_is_unharmed_after_every_malformed_request(served):
    for _, raw, _, _ in MALFORMED:
        exchange(served.address, raw)
    assert httpx.get(served.address + "/api/rulesets", timeout=WAIT).status_code == 200


# -- /docs in a browser -------------------------------------------------------------------------------------------
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium() -> Any:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            raise RuntimeError(f"browser tests: {CHROMIUM} is missing (`make browser` installs it)")
        pytest.skip(f"{CHROMIUM} is not installed")
    if os.environ.get("CI"):
        import playwright.sync_api as sync_api
    else:
        sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield browser
        browser.close()


def test_the_docs_page_works_in_a_browser_loading_nothing_from_elsewhere(chromium, tmp_path):
    with serving(create_app(tmp_path / "d.sqlite3")) as address:
        page = chromium.new_context(viewport={"width": 1280, "height": 800}).new_page()
        asked: list[str] = []
        console: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        page.on("console", lambda message: console.append(message.text))
        page.on("pageerror", lambda exc: console.append(str(exc)))
        page.goto(address + "/docs")
        page.wait_for_selector(".opblock-summary-path", timeout=15_000)
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert any("/api/battles/{battle_id}/resolve" in p.replace("\u200b", "") for p in paths), paths
        page.locator(".opblock-summary", has_text="/api/rulesets").first.click()  # an operation opens
        page.wait_for_selector(".opblock-body", timeout=15_000)
        shots = ROOT / "build" / "screenshots"
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "docs.png"))
        page.context.close()
    assert asked and all(url.startswith((address, "data:")) for url in asked), asked
    assert not [m for m in console if "Content Security Policy" in m or "Refused to" in m], console
