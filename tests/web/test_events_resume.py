"""A battle's event stream resumes: each event's ``id`` is the battle's count of actions, a stream opens by saying
the count it starts at, and one reopened with ``Last-Event-ID`` (as a browser's EventSource reopens a lost one)
is sent at once what landed in between: each action missed, the attack waiting now, or ``resumed`` when nothing
was. Checked against the battle's own list of actions (``GET .../actions``), on the app in-process, on a real
server, and in a browser whose stream drops while the other side plays."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from rangefire.web import create_app
from rangefire.web.events import RESUMED_EVENTS
from tests.web.conftest import Battle, bearer
from tests.web.live_server import serving
from tests.web.server import Server

UNION, CONFEDERATE = "union", "confederate"
#: A guard against a test that hangs, never a measurement.
WAIT = 30.0
Event = tuple[str, dict[str, Any]]


@pytest.fixture
def short(tmp_path: Path) -> Iterator[TestClient]:
    """Streams that end after a fifth of a second, so that the test client reads each one whole."""
    with TestClient(create_app(tmp_path / "r.sqlite3", stream_seconds=0.2, keepalive=0.05)) as client:
        yield client


def made(client: TestClient, example: str = "wheatfield") -> Battle:
    response = client.post("/api/battles", json={"example": example})
    assert response.status_code == 201, response.text
    return Battle(client, response.json())


def read_stream(battle: Battle, last_event_id: str | None = None) -> tuple[str | None, list[Event]]:
    """The id a stream opens at, and its events as (id, data)."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    response = battle.client.get(battle.url("/events"), params={"token": battle.spectator}, headers=headers)
    assert response.status_code == 200, response.text
    blocks = [block for block in response.text.split("\n\n") if block.strip()]
    assert blocks[0].startswith("retry: ")
    opening = dict(line.split(": ", 1) for line in blocks[0].splitlines()).get("id")
    events = []
    for block in blocks[1:]:
        fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
        if fields:
            assert fields["event"] == "action"
            events.append((fields["id"], json.loads(fields["data"])))
    return opening, events


def listed(battle: Battle, after: int) -> list[dict[str, Any]]:
    """The battle's actions after the first ``after``, as its own list gives them: the events a stream that last
    heard of ``after`` must be sent."""
    return [{"actions": a["number"], "kind": a["action"], "by": a["by"]}
            for a in battle.get("/actions").json()["actions"] if a["number"] > after]


def play_turns(battle: Battle, count: int) -> None:
    side = battle.state()["side_to_act"]
    for _ in range(count):
        assert battle.post("/end-turn", side).status_code == 200
        side = CONFEDERATE if side == UNION else UNION


def test_a_stream_opens_at_the_battles_count_of_actions(short):
    battle = made(short)
    assert read_stream(battle) == ("0", [])
    assert battle.post("/resolve", UNION, {"attacker": "20th-maine"}).status_code == 200
    play_turns(battle, 1)
    assert read_stream(battle) == ("2", [])  # opened afresh: nothing sent but the count


def test_a_reopened_stream_is_sent_each_action_it_missed(short):
    battle = made(short)
    opening, _ = read_stream(battle)
    assert battle.post("/resolve", UNION, {"attacker": "20th-maine"}).status_code == 200
    play_turns(battle, 1)
    assert battle.post("/resolve", CONFEDERATE, {"attacker": "15th-alabama"}).status_code == 200
    now, events = read_stream(battle, opening)
    assert [data for _, data in events] == listed(battle, 0) and len(events) == 3
    assert [event_id for event_id, _ in events] == ["1", "2", "3"] and now == "3"
    assert [data["kind"] for _, data in events] == ["attack", "end-turn", "attack"]
    _, events = read_stream(battle, "2")  # heard of two: the third only
    assert [data for _, data in events] == listed(battle, 2)


def test_a_stream_that_missed_nothing_is_told_so(short):
    battle = made(short)
    play_turns(battle, 2)
    assert read_stream(battle, "2") == ("2", [("2", {"actions": 2, "kind": "resumed", "by": None})])


def test_a_stream_that_missed_many_actions_is_sent_the_latest(short):
    battle = made(short)
    play_turns(battle, RESUMED_EVENTS + 4)
    _, events = read_stream(battle, "0")
    assert [data for _, data in events] == listed(battle, 4)
    _, events = read_stream(battle, "not-an-id")  # not one of ours: as if it had heard of nothing
    assert [data for _, data in events] == listed(battle, 4)


def test_a_stream_reopened_while_an_attack_waits_is_told_whose_answer_it_waits_for(short):
    battle = made(short, "temple")
    waiting = battle.post("/resolve", "prefecture", {"attacker": "yoichi", "target": "takeda"})
    assert waiting.status_code == 202, waiting.text
    awaited = waiting.json()["pending"]["awaiting"]["side"]
    assert awaited == "ito"
    assert read_stream(battle, "0") == ("0", [("0", {"actions": 0, "kind": "pending", "by": "prefecture",
                                                     "awaiting": awaited})])


def test_a_wrong_token_opens_no_stream_whatever_its_last_id(short):
    battle = made(short)
    response = short.get(battle.url("/events"), params={"token": "wrong"}, headers={"Last-Event-ID": "0"})
    assert response.status_code == 401 and response.json()["error"]["kind"] == "unauthorized"


# -- a real server ------------------------------------------------------------------------------------------------
def test_an_action_made_while_a_client_was_away_arrives_when_it_is_back(tmp_path):
    with Server(tmp_path / "battles.sqlite3") as running, \
            httpx.Client(base_url=running.address, timeout=WAIT) as client:
        created = client.post("/api/battles", json={"example": "wheatfield"}).json()
        url = f"/api/battles/{created['id']}/events?token={created['tokens']['spectator']}"
        with client.stream("GET", url) as first:
            lines = first.iter_lines()
            assert next(lines).startswith("retry: ")
            opening = next(lines).removeprefix("id: ")
        assert opening == "0"
        union = bearer(created["tokens"]["sides"][UNION])
        assert client.post(f"/api/battles/{created['id']}/resolve", headers=union,
                           json={"attacker": "20th-maine"}).status_code == 200
        with client.stream("GET", url, headers={"Last-Event-ID": opening}) as again:
            data = first_data(again, within=10.0)  # at once, not at the next action (there is none)
        assert data == {"actions": 1, "kind": "attack", "by": UNION}


def first_data(stream: Any, within: float) -> dict[str, Any] | None:
    """The first event's data on a stream, or None when none came within ``within`` seconds (a keep-alive comment
    every 15 seconds keeps the stream's reads going, so the time is counted here)."""
    found: list[dict[str, Any]] = []

    def read() -> None:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                found.append(json.loads(line.removeprefix("data: ")))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(within)
    return found[0] if found else None


# -- a browser ------------------------------------------------------------------------------------------------------
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


def test_a_page_whose_stream_dropped_shows_the_action_made_meanwhile(chromium, tmp_path):
    """The server ends the page's stream every second and a half (its lifetime, short here); the browser reopens it
    two seconds later. An attack played in that gap shows on the page once it is back, with no other action
    after it; a reopening that missed nothing changes nothing the page says."""
    from playwright.sync_api import expect

    app = create_app(tmp_path / "b.sqlite3", stream_seconds=1.5, keepalive=0.5)
    with serving(app) as address:  # undo taken by its side whatever it was, should the attack come too late
        created = httpx.post(f"{address}/api/battles", json={"example": "wheatfield", "undo": "any"}).json()
        page = chromium.new_context(viewport={"width": 1280, "height": 800}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(address + created["links"][CONFEDERATE])
        page.wait_for_selector("#viewport g[data-unit]", timeout=15_000)
        live = page.locator("#live")
        expect(live).to_have_text("live", timeout=15_000)
        status = page.locator("#status").inner_text()
        # a reopening with nothing missed: the page says nothing new
        expect(live).to_have_text("reconnecting…", timeout=15_000)
        expect(live).to_have_text("live", timeout=15_000)
        time.sleep(0.5)
        assert page.locator("#status").inner_text() == status
        union = bearer(created["tokens"]["sides"][UNION])
        for _ in range(3):  # the attack must land while the stream is down: tried again if it landed too late
            expect(live).to_have_text("reconnecting…", timeout=15_000)
            played = httpx.post(f"{address}/api/battles/{created['id']}/resolve", headers=union,
                                json={"attacker": "20th-maine"})
            assert played.status_code == 200, played.text
            if live.inner_text() != "live":
                break
            assert httpx.post(f"{address}/api/battles/{created['id']}/undo", headers=union,
                              json={}).status_code == 200
            expect(live).to_have_text("live", timeout=15_000)
        else:
            pytest.fail("the attack never landed while the page's stream was down")
        count = played.json()["action"]
        said = f"{count} action{'' if count == 1 else 's'} in the log"
        expect(page.locator("#status")).to_contain_text(said, timeout=10_000)
        assert "union played an attack" in page.locator("#status").inner_text()
        page.context.close()
    assert not errors, errors
