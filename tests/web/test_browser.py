"""The table page in a real browser: Debian's Chromium driven by Playwright against a real uvicorn server on
loopback, with a temporary database.

For a demo battle of each game a player picks the shooter on the drawing and a target, and what the page shows is
checked against the engine's own answer, computed here through the library: the legal targets, the line's state,
the modifiers' clauses, the exact odds ("exactly N" and "at least N", the latter summed here with Fractions). Then
the attack is played (dice entered stage by stage where the battle allows it, else rolled by the server), the log
and the casualties are read back, a second browser on the same battle sees the action arrive, the action is
undone, and the turn is ended. Screenshots of a wide (1280x800) and a narrow (400x800) window are written to
``build/screenshots/`` (ignored by git) for people to look at.

Without /usr/bin/chromium these tests are skipped, saying so; with ``CI`` set they fail instead.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest

from rangefire.core import Attack
from rangefire.core.scene import Group, Segment, Shape
from rangefire.core.source import EnteredSource
from rangefire.demo import example_path
from rangefire.draw import battle_scene
from rangefire.rulesets import load_battle

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
WIDE = {"width": 1280, "height": 800}
NARROW = {"width": 400, "height": 800}
TIMEOUT = 15_000  # ms: a generous bound for one step on a loaded two-core machine, never a measured time

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"browser tests: {CHROMIUM} is missing (install Debian's chromium; `make browser`)")
    pytest.skip(f"browser tests: {CHROMIUM} is not installed (`make browser` installs it)", allow_module_level=True)

if os.environ.get("CI"):
    import playwright.sync_api as sync_api  # in CI a missing package is a failure, not a skip
else:
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the Python package playwright")


# -- the server and the browser -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real uvicorn server on a free loopback port (the socket bound here first, so no other program can take
    the port between choosing and listening), serving a fresh database."""
    import uvicorn

    from rangefire.web.app import create_app

    app = create_app(tmp_path_factory.mktemp("db") / "battles.sqlite")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while not uv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    yield base
    uv.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield chromium
        chromium.close()


def new_page(browser: Any, viewport: dict[str, int] = WIDE) -> Any:
    """A page in a fresh context (its own sessionStorage: one player's browser), failing the test on any script
    error."""
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    return page


def create(base: str, example: str, entered_dice: bool, undo: str = "fair") -> dict[str, Any]:
    response = httpx.post(f"{base}/api/battles", json={"format": 1, "example": example, "entered_dice": entered_dice,
                                                      "undo": undo})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def open_pages(browser: Any, server: str, created: dict[str, Any], *roles: str) -> list[Any]:
    """A page for each role (a side, or "spectator") opened on its link, each once the drawing is on it."""
    pages = [new_page(browser) for _ in roles]
    for page, role in zip(pages, roles, strict=True):
        page.goto(server + created["links"][role])
    for page in pages:
        page.wait_for_selector("#viewport g[data-unit]")
    return pages


def enter_dice(page: Any, faces: dict[str, int], face: int, stages: int) -> dict[str, list[int]]:
    """Enter the dice each stage the page asks for (``faces[stage]``, else ``face``, on every die), as a player
    types them, until the form closes (at most ``stages`` questions); the dice entered, by stage."""
    entered: dict[str, list[int]] = {}
    for _ in range(stages):
        page.wait_for_selector("#dice-form:not([hidden])")
        asked = int(page.get_attribute("#dice-form", "data-question"))
        stage = page.locator("#dice-prompt").text_content().split(":")[0]
        count = int(re.match(r"(\d+) value", page.locator("#dice-hint").text_content())[1])
        values = [faces.get(stage, face)] * count
        entered.setdefault(stage, []).extend(values)
        page.fill("#dice-input", " ".join(map(str, values)))
        page.click("#dice-form button[type=submit]")
        page.wait_for_selector(f'#dice-form[hidden], #dice-form[data-question="{asked + 1}"]', state="attached")
        if page.locator("#dice-form").is_hidden():
            break
    return entered


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def click_on_drawing(page: Any, uid: str) -> None:
    """Click a piece on the drawing itself (where a player would), at the middle of its first shape."""
    piece = page.locator(f'#viewport g[data-unit="{uid}"] > :is(polygon, circle, rect)').first
    box = piece.bounding_box()
    assert box is not None, f"{uid} is not on the drawing"
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


# -- the engine's answers ---------------------------------------------------------------------------------------------
def engine(example: str, attacker: str, target: str, choices: tuple[tuple[str, Any], ...] = (),
           seen_by: str | None = None) -> dict[str, Any]:
    """What the library says of this attack on the example as it starts (with ``seen_by``, on the battle as that
    side sees it: another player's hand unknown, SW-1.4)."""
    from rangefire.analysis.targets import targets

    ruleset, battle = load_battle(example_path(f"{example}.yaml"))
    if seen_by is not None:
        battle = ruleset.seen_by(battle, seen_by)
    attack = Attack(attacker, target, choices)
    check = ruleset.check(battle, attack)
    assert check.plan is not None, check.refusals
    odds = ruleset.odds(check.plan).to_dict()
    lines = [s for s in _walk(battle_scene(ruleset, battle, attacker, target).items)
             if isinstance(s, Segment) and s.kind == "line-of-fire"]
    rows = targets(ruleset, battle, attacker=attacker)
    return {"ruleset": ruleset, "battle": battle, "plan": check.plan, "odds": odds,
            "legal": sorted(r.target for r in rows if r.legal),
            "refused": sorted(r.target for r in rows if not r.legal),
            # the card game has no line of sight: its page shows none
            "line": lines[0].state if lines and ruleset.key != "swerve" else None, "main": ruleset.main_outcome}


def _walk(items: tuple[Shape, ...]) -> Iterator[Shape]:
    for item in items:
        yield item
        if isinstance(item, Group):
            yield from _walk(item.items)


def fraction_of(cell: str) -> Fraction:
    """The exact fraction a cell starts with ("80/243 (32.9%)")."""
    match = re.match(r"\s*(-?\d+(?:/\d+)?)", cell)
    assert match, cell
    return Fraction(match[1])


def odds_shown(page: Any, outcome: str) -> dict[int, tuple[Fraction, Fraction]]:
    """The page's table of an outcome: value -> (exactly, at least), as exact fractions."""
    rows = page.locator(f'figure.chart[data-outcome="{outcome}"] table tr[data-value]')
    return {int(row.get_attribute("data-value")): (fraction_of(row.locator("td.exactly").text_content()),
                                                    fraction_of(row.locator("td.at-least").text_content()))
            for row in (rows.nth(i) for i in range(rows.count()))}


def odds_expected(expected: dict[str, Any], outcome: str) -> dict[int, tuple[Fraction, Fraction]]:
    """The engine's distribution, and "at least" summed here, exactly."""
    dist = {int(k): Fraction(v) for k, v in expected["odds"]["outcomes"][outcome]["distribution"].items()}
    assert sum(dist.values()) == 1
    return {value: (p, sum(q for v, q in dist.items() if v >= value)) for value, p in dist.items()}


def check_odds(page: Any, expected: dict[str, Any], outcome: str) -> None:
    assert odds_shown(page, outcome) == odds_expected(expected, outcome)


def pick_attack(page: Any, expected: dict[str, Any], attacker: str, target: str, on_drawing: bool) -> None:
    """Pick the shooter on the drawing, see its targets light up (and the others refused, with a clause), pick the
    target, and read the line, the modifiers and the odds against the engine."""
    click_on_drawing(page, attacker)
    page.wait_for_selector(f'#viewport g[data-unit="{attacker}"].picked-attacker')
    page.wait_for_selector("#target-list .target")
    legal = sorted(page.locator("#target-list li.target.legal").evaluate_all("els => els.map(e => e.dataset.target)"))
    refused = page.locator("#target-list li.target.refused")
    assert legal == expected["legal"]
    assert sorted(refused.evaluate_all("els => els.map(e => e.dataset.target)")) == expected["refused"]
    for i in range(refused.count()):  # every refusal says why, with its clause
        assert re.search(r"\[[A-Z]+-\d+(\.\d+)*\]", refused.nth(i).text_content())
    for uid in expected["legal"]:  # lit on the drawing too
        page.wait_for_selector(f'#viewport g[data-unit="{uid}"].target-legal', state="attached")
    if on_drawing:
        click_on_drawing(page, target)
    else:
        page.click(f'#target-list button[data-target="{target}"]')
    page.wait_for_selector(f'#viewport g[data-unit="{target}"].picked-target', state="attached")
    page.wait_for_selector("#charts figure.chart")
    if expected["line"] is None:
        assert page.locator("#line-state").is_hidden()
    else:
        assert page.get_attribute("#line-state", "data-state") == expected["line"]
    clauses = page.locator("#modifiers li[data-clause]").evaluate_all("els => els.map(e => e.dataset.clause)")
    assert clauses == [m.clause for m in expected["plan"].modifiers]
    check_odds(page, expected, expected["main"])


def until(condition: Any) -> None:
    """Poll a condition read through Playwright (the page's policy forbids the evaluated strings of
    wait_for_function) until it holds or the step's time bound passes."""
    deadline = time.monotonic() + TIMEOUT / 1000
    while True:
        try:
            if condition():
                return
        except sync_api.Error:  # read while the page was redrawing it: read again
            pass
        assert time.monotonic() < deadline, "the page never showed it"
        time.sleep(0.05)


def wait_log(page: Any, count: int) -> None:
    """Wait until the log holds ``count`` actions (by CSS alone: the page's policy forbids evaluated strings)."""
    selector = "#log:not(:has(> li))" if count == 0 else f"#log > li:nth-child({count}):last-child"
    page.wait_for_selector(selector, state="attached")


# -- the games --------------------------------------------------------------------------------------------------------
def test_dress_on_the_colors_dice_entered_stage_by_stage(server: str, browser: Any) -> None:
    """The Wheatfield: 20th-maine fires at 15th-alabama through gunsmoke [DC-7.2]; the player enters each stage's
    dice when asked, and the casualties are the engine's for those dice."""
    created = create(server, "wheatfield", entered_dice=True)
    expected = engine("wheatfield", "20th-maine", "15th-alabama")
    union, rebel = open_pages(browser, server, created, "union", "confederate")
    assert "#token=" not in union.url  # taken off the address bar once kept
    pick_attack(union, expected, "20th-maine", "15th-alabama", on_drawing=True)
    assert union.locator("#line-state").text_content().startswith("Line: hindered")
    assert "20th-maine:gunsmoke" in union.locator("#line-state .hindrance").text_content()
    shoot(union, "dress-on-the-colors-wide")
    union.set_viewport_size(NARROW)
    shoot(union, "dress-on-the-colors-narrow")
    union.set_viewport_size(WIDE)

    # the dice, asked stage by stage as the command line asks them: all 6s to hit, all 1s to save, 3s after
    union.click("#enter")
    union.wait_for_selector("#dice-form:not([hidden])")  # the first stage, as the server answers it (next)
    assert union.locator("#dice-prompt").text_content().startswith("hit: roll 6 dice")
    shoot(union, "dress-on-the-colors-dice-asked")
    entered = enter_dice(union, {"hit": 6, "save": 1}, 3, stages=6)
    wait_log(union, 1)
    assert list(entered)[:2] == ["hit", "save"]

    ruleset, battle, plan = expected["ruleset"], expected["battle"], expected["plan"]
    resolution = ruleset.resolve(plan, EnteredSource(entered, ruleset.stages))
    after = ruleset.apply(battle, resolution)
    stands = next(u.stands for u in after.units if u.id == "15th-alabama")
    status = union.locator('#units li:has(button[data-unit="15th-alabama"]) .status').text_content()
    assert f"stands {stands}," in status and stands < 8
    # the casualties on the drawing: one stand drawn per stand left [DC-1.2], and the shooter's gunsmoke [DC-7.1]
    until(lambda: union.locator('#viewport g[data-unit="15th-alabama"] .stand').count() == stands)
    assert union.locator("#viewport .gunsmoke, #viewport .terrain-gunsmoke").count() >= 2
    entry = union.locator('#log > li[data-action="1"]').text_content()
    for line in resolution.log:
        assert f"[{line.clause}]" in entry and line.text in entry
    rebel.wait_for_selector('#log > li[data-action="1"]')  # the second browser sees it land
    assert rebel.locator("#undo").is_disabled()  # not theirs to undo
    assert "only union may undo it" in rebel.get_attribute("#undo", "title")
    shoot(union, "dress-on-the-colors-after-wide")

    union.click("#undo")  # dice entered by hand: the attack is union's to take back, and seen taken back
    wait_log(union, 2)
    wait_log(rebel, 2)
    assert "took back action 1" in (rebel.locator('#log > li[data-action="2"]').text_content() or "")
    assert "stands 8," in union.locator('#units li:has(button[data-unit="15th-alabama"]) .status').text_content()
    union.click("#end-turn")
    wait_log(union, 3)
    rebel.wait_for_selector('#log > li[data-action="3"]')
    assert "end of turn" in union.locator('#log > li[data-action="3"]').text_content()
    assert union.errors == [] and rebel.errors == []


def choose(page: Any, name: str, value: str) -> None:
    """Set a player's choice through its form control (a list where the game declares the values)."""
    control = page.locator(f"#choice-{name}")
    if control.evaluate("e => e.tagName") == "SELECT":
        control.select_option(value)
    else:
        control.fill(value)
        control.press("Tab")


@pytest.mark.parametrize(("example", "attacker", "target", "choices"), [
    ("ford", "archers", "orc-band", (("to_side", "front"),)),  # the player picks the side attacked [AL-3.1]
])
def test_roll_undo_and_end_turn(server: str, browser: Any, example: str, attacker: str, target: str,
                                choices: tuple[tuple[str, str], ...]) -> None:
    """Arcane Legions: the attack checked against the engine (with a player's choice made through its form
    control), rolled by the server; the log, the casualties as the server's state has them, a spectator
    sees it, undo (a battle of friendly play, where an attack the server rolled may be taken back), end of turn."""
    created = create(server, example, entered_dice=False, undo="any")
    expected = engine(example, attacker, target)
    side = expected["ruleset"].side_of(expected["battle"], attacker)
    page, watcher = new_page(browser), new_page(browser, NARROW)
    page.goto(server + created["links"][side])
    watcher.goto(server + created["links"]["spectator"])
    page.wait_for_selector("#viewport g[data-unit]")
    watcher.wait_for_selector("#viewport g[data-unit]")
    pick_attack(page, expected, attacker, target, on_drawing=example == "ford")
    if choices:
        chosen = engine(example, attacker, target, choices)
        assert odds_expected(chosen, chosen["main"]) != odds_expected(expected, expected["main"])
        for name, value in choices:
            choose(page, name, value)
        until(lambda: odds_shown(page, chosen["main"]) == odds_expected(chosen, chosen["main"]))
    if "redirect_to" in dict(choices):  # a nomination moves the line to the nominee [BU-4.2]
        at = dict(choices)["redirect_to"]
        drawn = httpx.get(f"{server}/api/battles/{created['id']}/drawing.svg", params={"attacker": attacker,
                          "target": at}, headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).text
        label = re.search(r"\d+\.\d\d in, \w+", drawn)
        assert label, "the drawing labels the line with its range and band"
        until(lambda: label[0] in (page.locator("#viewport").text_content() or ""))
    assert page.locator("#enter").is_hidden()  # this battle's dice are the server's
    shoot(page, f"{example}-wide")
    page.click("#roll")
    wait_log(page, 1)
    state = httpx.get(f"{server}/api/battles/{created['id']}",
                      headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).json()
    row = next((u for u in state["units"] if u["id"] == target), None)
    if row is None:  # the server's dice destroyed it: gone from the list and from the drawing
        until(lambda: page.locator(f'[data-unit="{target}"]').count() == 0)
    else:
        until(lambda: all((key if value is True else f"{key} {value}") in page.locator(
            f'#units li:has(button[data-unit="{target}"]) .status').text_content()
            for key, value in (row["status"] or {}).items()
            if key not in ("id", "side") and value not in ("", "-", False)))
    actions = httpx.get(f"{server}/api/battles/{created['id']}/actions",
                        headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).json()["actions"]
    entry = page.locator('#log > li[data-action="1"]').text_content()
    assert all(line["text"] in entry for line in actions[0]["log"])
    assert actions[0]["choices"] == dict(choices)  # the attack played is the one shown
    watcher.wait_for_selector('#log > li[data-action="1"]')
    assert watcher.locator("#undo").is_disabled() and watcher.locator("#end-turn").is_disabled()
    shoot(watcher, f"{example}-spectator-narrow")
    page.click("#undo")
    wait_log(page, 2)  # the undo is an action too, seen by the spectator
    wait_log(watcher, 2)
    assert "took back action 1" in (watcher.locator('#log > li[data-action="2"]').text_content() or "")
    page.click("#end-turn")
    wait_log(page, 3)
    watcher.wait_for_selector('#log > li[data-action="3"]')
    assert page.errors == [] and watcher.errors == []


def test_a_nomination_is_answered_from_the_target_s_page_bu_4_2(server: str, browser: Any) -> None:
    """Bushido: the target's player nominates [BU-4.2], from their own page. Prefecture's page offers no
    nomination (it names ito as the one who chooses) and rolls; the attack waits, prefecture's page says for whom,
    ito's page asks with the answers as buttons (the engine's own list); ito nominates the bodyguard, and both
    pages and a spectator's see the one attack, recorded with the nomination."""
    created = create(server, "temple", entered_dice=False)
    expected = engine("temple", "yoichi", "takeda")
    ruleset, battle = expected["ruleset"], expected["battle"]
    question = ruleset.next_choice(battle, Attack("yoichi", "takeda"))
    assert question is not None and question.side == "ito"
    page, target_page, watcher = new_page(browser), new_page(browser, NARROW), new_page(browser, NARROW)
    page.goto(server + created["links"]["prefecture"])
    target_page.goto(server + created["links"]["ito"])
    watcher.goto(server + created["links"]["spectator"])
    for p in (page, target_page, watcher):
        p.wait_for_selector("#viewport g[data-unit]")
    pick_attack(page, expected, "yoichi", "takeda", on_drawing=False)
    page.wait_for_selector('#choices [data-choice="redirect_to"]')
    assert page.locator("#choice-redirect_to").count() == 0  # no control: not prefecture's to choose
    assert "ito (the target's player)" in page.locator('#choices [data-choice="redirect_to"]').text_content()
    page.click("#roll")
    page.wait_for_selector("#pending-section:not([hidden])")
    until(lambda: "Waiting for ito (the target's player)" in page.locator("#pending-question").text_content())
    assert page.locator("#pending-answers button").count() == 0 and page.locator("#withdraw").is_visible()
    assert page.locator("#end-turn").is_disabled()
    # the panel shows the attack waiting from its heading (the form above it is gone: the panel scrolled to it)
    sync_api.expect(page.locator("#pending-heading")).to_be_in_viewport(ratio=1)
    shoot(page, "bushido-waiting-wide")  # the attacker's page while the target's player chooses
    target_page.wait_for_selector("#pending-answers button")  # told by the event stream
    answers = target_page.locator("#pending-answers button").evaluate_all("els => els.map(e => e.dataset.answer)")
    assert answers == list(question.allowed)
    assert "[BU-4.2]" in target_page.locator("#pending-question").text_content()
    # asked as what the player does, not by the choice's name
    assert question.question and question.question in target_page.locator("#pending-question").text_content()
    assert question.question in page.locator("#pending-question").text_content()
    assert target_page.locator("#withdraw").is_hidden()
    watcher.wait_for_selector("#pending-section:not([hidden])")
    assert watcher.locator("#pending-answers button").count() == 0
    shoot(target_page, "bushido-nomination-narrow")
    target_page.click('#pending-answers button[data-answer="nominate yojimbo"]')
    for p in (page, target_page, watcher):
        wait_log(p, 1)
        p.wait_for_selector("#pending-section", state="hidden")
    actions = httpx.get(f"{server}/api/battles/{created['id']}/actions",
                        headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).json()["actions"]
    assert [(a["by"], a["choices"], a["target"]) for a in actions] == [("prefecture", {"redirect_to": "yojimbo"},
                                                                       "takeda")]
    entry = page.locator('#log > li[data-action="1"]').text_content()
    assert all(line["text"] in entry for line in actions[0]["log"])
    # the attack holds ito's choice: prefecture's Undo is off, and says why with the clause
    until(lambda: page.locator("#undo").is_disabled())
    assert "[BU-4.2]" in (page.locator("#undo").get_attribute("title") or "")
    assert page.errors == [] and target_page.errors == [] and watcher.errors == []


def test_entered_dice_once_the_target_s_player_has_chosen_bu_4_2(server: str, browser: Any) -> None:
    """Bushido with entered dice: prefecture asks to enter its dice; the attack first waits for ito's choice
    [BU-4.2], then for prefecture's dice, asked stage by stage on its page; the action holds both."""
    created = create(server, "temple", entered_dice=True)
    expected = engine("temple", "yoichi", "takeda")
    page, target_page = open_pages(browser, server, created, "prefecture", "ito")
    pick_attack(page, expected, "yoichi", "takeda", on_drawing=False)
    page.click("#enter")
    until(lambda: "Waiting for ito" in page.locator("#pending-question").text_content())
    assert page.locator("#dice-form").is_hidden()  # no dice before the nomination
    target_page.click('#pending-answers button[data-answer="keep takeda"]')
    page.wait_for_selector("#pending-enter")
    assert target_page.locator("#pending-roll").count() == 0
    page.click("#pending-enter")
    entered = enter_dice(page, {}, 1, stages=8)
    wait_log(page, 1)
    wait_log(target_page, 1)
    actions = httpx.get(f"{server}/api/battles/{created['id']}/actions",
                        headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).json()["actions"]
    assert [(a["by"], a["choices"], a["dice"]) for a in actions] == [("prefecture", {"redirect_to": ""}, entered)]
    assert page.errors == [] and target_page.errors == []


def test_the_drawing_follows_the_side_the_player_chose(server: str, browser: Any) -> None:
    """An Arcane Legions side chosen in the form moves the line drawn to it [AL-3.1]: from the right side the
    archers' line to the orc band runs into the crag and is drawn blocked; back to the engine's choice, clear."""
    created = create(server, "ford", entered_dice=False)
    expected = engine("ford", "archers", "orc-band")
    page = new_page(browser)
    page.goto(server + created["links"][expected["ruleset"].side_of(expected["battle"], "archers")])
    page.wait_for_selector("#viewport g[data-unit]")
    pick_attack(page, expected, "archers", "orc-band", on_drawing=True)
    blocked = "#viewport [class*='line-of-fire'][class*='blocked']"
    assert page.locator(blocked).count() == 0
    choose(page, "from_side", "right")
    until(lambda: page.locator(blocked).count() == 1)
    choose(page, "from_side", "")
    until(lambda: page.locator(blocked).count() == 0 and page.locator("#viewport [class*='line-of-fire']").count())
    assert page.errors == []


def test_swerve_card_view(server: str, browser: Any) -> None:
    """swerve's own view: the cards at the mission, the hand, the legal actions from the engine; a line of play
    built by clicking them, the odds of every line from there; the combat rolled, tyler's pass answered from his
    page; its undo refused (tyler's choice is in it: the button is off, saying why), the turn ended and that
    undone."""
    created = create(server, "ambush", entered_dice=False)
    page, other = new_page(browser), new_page(browser)
    page.goto(server + created["links"]["jason"])
    other.goto(server + created["links"]["tyler"])
    page.wait_for_selector("#cards-section:not([hidden]) .mission")
    other.wait_for_selector("#cards-section:not([hidden]) .mission")
    assert page.locator('.mission[data-mission="crossing"] [data-unit]').count() == 3
    assert page.locator('.hand[data-player="jason"] [data-unit="overcharge"]').count() == 1
    assert page.locator('.hand[data-player="tyler"] [data-unit]').count() == 0  # the other hand stays hidden

    expected = engine("ambush", "rail-gun", "dune-buggy", seen_by="jason")  # what jason's page works out on
    pick_attack(page, expected, "rail-gun", "dune-buggy", on_drawing=False)
    ruleset, battle = expected["ruleset"], engine("ambush", "rail-gun", "dune-buggy")["battle"]
    attack = Attack("rail-gun", "dune-buggy")
    _, allowed = ruleset.next_choices(battle, attack)
    page.wait_for_selector("#combat .legal-actions button")
    shown = page.locator("#combat .legal-actions button").evaluate_all("els => els.map(e => e.dataset.action)")
    assert shown == allowed
    page.click('#combat .legal-actions button[data-action="attacker:pass"]')
    page.wait_for_selector("#combat .line-of-play li")
    page.wait_for_selector("#combat table.lines", state="attached")
    # jason's odds are worked out on what he sees: tyler's hand unknown, none of its tactics assumed [SW-1.4]
    after = engine("ambush", "rail-gun", "dune-buggy", (("actions", ("attacker:pass",)),), seen_by="jason")
    assert after["odds"] != engine("ambush", "rail-gun", "dune-buggy", (("actions", ("attacker:pass",)),))["odds"]
    check_odds(page, after, "damage")
    rows = page.locator("#combat table.lines tr").count() - 1
    assert rows == len(after["odds"]["lines"])
    assert page.locator('#events li[data-event="attacker_wins"] .fraction').text_content() == \
        after["odds"]["events"]["attacker_wins"]
    shoot(page, "swerve-wide")
    page.set_viewport_size(NARROW)
    shoot(page, "swerve-narrow")
    page.set_viewport_size(WIDE)
    page.click("#roll")  # jason's pass goes with the attack; tyler then chooses his own action [SW-3.1]
    page.wait_for_selector("#pending-section:not([hidden])")
    other.wait_for_selector('#pending-answers button[data-answer="defender:pass"]')
    answers = other.locator("#pending-answers button").evaluate_all("els => els.map(e => e.dataset.answer)")
    passed = Attack("rail-gun", "dune-buggy", (("actions", ("attacker:pass",)),))
    assert answers == ruleset.next_choices(battle, passed)[1]
    shoot(other, "swerve-waiting-wide")  # tyler's page, asked his action
    other.click('#pending-answers button[data-answer="defender:pass"]')  # both passed: the stage ends [SW-3.2]
    wait_log(page, 1)
    entry = page.locator('#log > li[data-action="1"]').text_content()
    assert "[SW-2.1]" in entry and "attacker:pass" not in entry  # logged in the rules' words
    other.wait_for_selector('#log > li[data-action="1"]')
    assert "swerved" in page.locator('.mission [data-unit="rail-gun"]').locator("..").text_content()
    # tyler's pass is his choice, made and shown: the combat stands [SW-3.1], and jason's Undo says so unasked
    until(lambda: page.locator("#undo").is_disabled())
    title = page.locator("#undo").get_attribute("title") or ""
    assert "[SW-3.1]" in title and "stands" in title
    page.click("#end-turn")
    wait_log(page, 2)
    wait_log(other, 2)
    page.click("#undo")  # the end of turn is jason's own
    wait_log(page, 3)  # the undo, an action of its own
    for hidden in ("smoke-screen", "brawl"):  # tyler's hand is never on jason's page
        assert hidden not in page.content()
    assert "overcharge" not in other.content()
    assert page.errors == [] and other.errors == []


def test_no_token_says_what_is_missing(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(f"{server}/battle/nothing-here")
    page.wait_for_selector("#error:not([hidden])")
    assert "#token=" in page.locator("#error").text_content()
    assert page.errors == []


def test_a_wrong_token_is_told_by_the_server(server: str, browser: Any) -> None:
    """A mistyped or stale link: the server's refusal shown where the player sees it, dismissable."""
    created = create(server, "ford", entered_dice=False)
    page = new_page(browser, NARROW)
    page.goto(f"{server}/battle/{created['id']}#token=not-the-token")
    page.wait_for_selector("#error:not([hidden])")
    assert "token" in page.locator("#error").text_content().lower()
    assert page.locator("#error").bounding_box()["y"] < NARROW["height"]  # in sight, not at the top of a long page
    shoot(page, "wrong-token-narrow")
    page.click("#error .dismiss")
    assert page.locator("#error").is_hidden()
    assert page.errors == []


def test_names_with_markup_are_text(server: str, browser: Any) -> None:
    """A unit named with markup is shown as those characters, never run or parsed as HTML."""
    ruleset, battle = load_battle(example_path("ambush.yaml"))
    data = ruleset.dump(battle)
    data["name"] = "<img src=x onerror=alert(1)> crossing"
    data["cards"][0]["name"] = "<b>bold</b>"
    response = httpx.post(f"{server}/api/battles", json={"format": 1, "scenario": data})
    assert response.status_code == 201, response.text
    page = new_page(browser)
    page.goto(server + response.json()["links"]["jason"])
    page.wait_for_selector("#viewport g[data-unit]")
    page.wait_for_selector("#cards .mission")
    assert page.locator("#title").text_content() == "<img src=x onerror=alert(1)> crossing"
    card = data["cards"][0]["id"]
    assert page.locator(f'#units button[data-unit="{card}"] .name').text_content() == f"<b>bold</b> ({card})"
    assert page.locator("img").count() == 0 and page.locator("b").count() == 0
    assert page.errors == []


def test_home_page_creates_a_battle(server: str, browser: Any) -> None:
    page = new_page(browser, NARROW)
    page.goto(server + "/")
    page.wait_for_selector('li.example[data-example="wheatfield"] button')
    assert not page.is_checked("#entered-dice") and not page.is_checked("#undo-any")  # the server's dice, fair undo
    page.click('li.example[data-example="wheatfield"] button')
    page.wait_for_selector('#created li[data-side="union"] a')
    links = page.locator("#created a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert len(links) == 3 and all("/battle/" in link and "#token=" in link for link in links)
    shoot(page, "home-narrow")
    spectator = links[-1]  # the spectators' link comes last
    token = spectator.split("#token=")[1]
    state = httpx.get(f"{server}/api/battles/{spectator.split('/battle/')[1].split('#')[0]}",
                      headers={"Authorization": f"Bearer {token}"}).json()
    assert state["entered_dice"] is False and state["settings"] == {"undo": "fair", "open_hands": False}
    page.check("#undo-any")
    page.check("#entered-dice")
    page.click('li.example[data-example="ford"] button')
    page.wait_for_selector('#created h2:has-text("ford"), #created h2:has-text("Ford")')
    link = page.locator("#created a").last.get_attribute("href")
    battle_id, token = link.split("/battle/")[1].split("#token=")
    state = httpx.get(f"{server}/api/battles/{battle_id}", headers={"Authorization": f"Bearer {token}"}).json()
    assert state["entered_dice"] is True and state["settings"]["undo"] == "any"
    assert page.errors == []


def view_box(page: Any) -> list[float]:
    return [float(v) for v in page.get_attribute("#viewport svg", "viewBox").split()]


def test_zoom_pan_and_keyboard(server: str, browser: Any) -> None:
    """Zoom by buttons, wheel and keys, pan by dragging and by arrows, and an attack chosen with the keyboard
    alone (real buttons, in the tab order)."""
    created = create(server, "ford", entered_dice=False)
    page = new_page(browser)
    page.goto(server + created["links"]["legion"])
    page.wait_for_selector("#viewport g[data-unit]")
    home = view_box(page)
    page.click("#zoom-in")
    zoomed = view_box(page)
    assert zoomed[2] < home[2] and zoomed[3] < home[3]
    box = page.locator("#viewport").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 400)  # away from the reader: out
    assert view_box(page)[2] > zoomed[2]
    before = view_box(page)
    page.mouse.move(box["x"] + 40, box["y"] + 40)
    page.mouse.down()
    page.mouse.move(box["x"] + 140, box["y"] + 90, steps=5)
    page.mouse.up()
    dragged = view_box(page)
    assert dragged[0] < before[0] and dragged[1] < before[1] and dragged[2] == before[2]  # the table follows
    page.focus("#viewport")
    page.keyboard.press("ArrowRight")
    assert view_box(page)[0] > dragged[0]
    page.keyboard.press("0")
    assert view_box(page) == home

    page.focus('#units button[data-unit="archers"]')
    page.keyboard.press("Enter")
    page.wait_for_selector('#target-list button[data-target="orc-band"]')
    page.focus('#target-list button[data-target="orc-band"]')
    page.keyboard.press("Space")
    page.wait_for_selector("#charts figure.chart")
    page.keyboard.press("Tab")
    focused = page.evaluate_handle("document.activeElement")
    assert focused.get_property("tagName").json_value() in ("BUTTON", "SELECT", "INPUT", "SUMMARY", "A")
    assert page.errors == []


def test_pinch_and_tap_on_a_touch_screen(server: str, browser: Any) -> None:
    """A tablet: two fingers spread apart zoom in, a tap on a piece picks it (touch events as Chromium gets them
    from a touch screen, through the DevTools protocol)."""
    created = create(server, "wheatfield", entered_dice=False)
    context = browser.new_context(viewport={"width": 800, "height": 1000}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(server + created["links"]["union"])
    page.wait_for_selector("#viewport g[data-unit]")
    cdp = context.new_cdp_session(page)
    box = page.locator("#viewport").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def touch(kind: str, *points: tuple[float, float]) -> None:
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})

    before = view_box(page)
    touch("touchStart", (cx - 30, cy), (cx + 30, cy))
    for step in range(1, 6):
        touch("touchMove", (cx - 30 - 20 * step, cy), (cx + 30 + 20 * step, cy))
    touch("touchEnd")
    after = view_box(page)
    assert after[2] < before[2] * 0.6  # fingers four times as far apart: the table drawn much larger
    page.click("#zoom-fit")
    piece = page.locator('#viewport g[data-unit="20th-maine"] > polygon').first.bounding_box()
    page.touchscreen.tap(piece["x"] + piece["width"] / 2, piece["y"] + piece["height"] / 2)
    page.wait_for_selector('#viewport g[data-unit="20th-maine"].picked-attacker')
    context.close()
