"""Moving units on the table page, in a real browser (Debian's Chromium driven by Playwright, as in
test_browser.py): a unit dragged with the mouse and with a finger, moved and turned by keys, a move the rules
refuse shown by the unit with its clause, a drop off the table sending nothing, and a battle set up from empty
(units and terrain). Each move is read back from the server's state. Screenshots of a wide and a narrow window go
to ``build/screenshots/``."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.web.test_browser import (
    NARROW,
    SHOTS,
    TIMEOUT,
    WIDE,
    browser,
    create,
    new_page,
    server,
    sync_api,
    until,
    wait_log,
)

__all__ = ["browser", "server"]  # the fixtures, shared with test_browser.py


def shoot(page: Any, name: str) -> None:
    """What the player sees in the window, mid-move (a full-page screenshot would scroll the page under the
    pointer that holds the piece)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def state(base: str, created: dict[str, Any]) -> dict[str, Any]:
    response = httpx.get(f"{base}/api/battles/{created['id']}",
                         headers={"Authorization": f"Bearer {created['tokens']['spectator']}"})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def unit_of(data: dict[str, Any], uid: str) -> dict[str, Any]:
    unit: dict[str, Any] = next(u for u in data["battle"]["units"] if u["id"] == uid)
    return unit


def number(value: Any) -> float:
    if isinstance(value, str) and "/" in value:
        n, d = value.split("/")
        return float(n) / float(d)
    return float(value)


def screen_per_unit(page: Any) -> float:
    """Screen pixels per table unit (inch or step) at the page's zoom: the drawing's own scale over the viewBox
    shown in the viewport's box ("meet": the larger ratio governs)."""
    scale = float(page.get_attribute("#viewport svg", "data-scale"))
    _, _, w, h = (float(v) for v in page.get_attribute("#viewport svg", "viewBox").split())
    box = page.locator("#viewport").bounding_box()
    return scale / max(w / box["width"], h / box["height"])


def centre(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def open_side(browser: Any, server: str, created: dict[str, Any], side: str, viewport: dict[str, int] = WIDE) -> Any:
    page = new_page(browser, viewport)
    page.goto(server + created["links"][side])
    page.wait_for_selector("#viewport g[data-unit]")
    return page


def test_a_unit_dragged_with_the_mouse(server: str, browser: Any) -> None:
    """20th-maine dragged 3 in up the table: its outline follows with the distance live, the move is sent on the
    drop, and the server's state has it there; the server's own figure is shown, the drawing fetched again."""
    created = create(server, "wheatfield", entered_dice=False)
    page = open_side(browser, server, created, "union")
    k = screen_per_unit(page)
    x, y = centre(page, '#viewport g[data-unit="20th-maine"] > polygon.stand >> nth=2')
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - 1.5 * k, steps=6)
    page.wait_for_selector("#viewport .move-ghost")
    readout = page.locator("#move-readout")
    assert readout.is_visible()
    assert re.fullmatch(r"20th-maine: 1\.\d\d in", readout.text_content()), readout.text_content()
    page.mouse.move(x, y - 3 * k, steps=6)
    assert re.fullmatch(r"20th-maine: (2\.9\d|3\.0\d) in", readout.text_content()), readout.text_content()
    # the distance is written over the table, by the outline, in the page's own type
    ghost = page.locator("#viewport .move-ghost").bounding_box()
    shown = readout.bounding_box()
    assert shown["y"] + shown["height"] <= ghost["y"] + ghost["height"] and shown["height"] >= 18
    shoot(page, "move-drag-wide")
    page.mouse.up()
    wait_log(page, 1)
    after = unit_of(state(server, created), "20th-maine")
    assert abs(number(after["position"][0]) - 10) < 0.05 and abs(number(after["position"][1]) - 3) < 0.05
    assert after["moved"] is True
    actions = httpx.get(f"{server}/api/battles/{created['id']}/actions",
                        headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).json()["actions"]
    figure = f"{number(actions[0]['distance']):.2f} in"
    assert figure in page.locator("#result").text_content()  # the server's figure, after the drop
    assert figure in page.locator('#log > li[data-action="1"]').text_content()
    assert page.locator("#viewport .move-ghost").count() == 0
    # the drawing fetched again: the unit stands where it was moved to, its trail drawn from where it stood
    stand = '#viewport g[data-unit="20th-maine"] > polygon.stand >> nth=2'
    until(lambda: abs(centre(page, stand)[1] - (y - 3 * k)) < 3)
    assert page.locator("#viewport .trail").count() >= 1
    assert page.errors == []


def test_a_unit_dragged_with_a_finger(server: str, browser: Any) -> None:
    """A tablet: the archers' base dragged 1.5 steps to the right with one finger (touch events as Chromium gets
    them from a touch screen, through the DevTools protocol); the distance in steps."""
    created = create(server, "ford", entered_dice=False)
    context = browser.new_context(viewport={"width": 800, "height": 1000}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + created["links"]["legion"])
    page.wait_for_selector("#viewport g[data-unit]")
    cdp = context.new_cdp_session(page)
    k = screen_per_unit(page)
    x, y = centre(page, '#viewport g[data-unit="archers"] > polygon.base')

    def touch(kind: str, *points: tuple[float, float]) -> None:
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": px, "y": py, "id": i} for i, (px, py) in enumerate(points)]})

    touch("touchStart", (x, y))
    for step in range(1, 9):
        touch("touchMove", (x + 1.5 * k * step / 8, y))
    assert re.fullmatch(r"archers: 1\.\d\d steps", page.locator("#move-readout").text_content())
    shoot(page, "move-touch")
    touch("touchEnd")
    until(lambda: state(server, created)["actions"] == 1)
    after = unit_of(state(server, created), "archers")
    assert abs(number(after["position"][0]) - 1.5) < 0.05 and abs(number(after["position"][1])) < 0.05
    page.wait_for_selector('#log > li[data-action="1"]')
    assert "steps" in page.locator('#log > li[data-action="1"]').text_content()
    assert errors == []
    context.close()


def test_moved_and_turned_by_keys(server: str, browser: Any) -> None:
    """The keyboard alone: 20th-maine picked from the list, four arrow presses up (2 in), ] turns it 15°, Enter
    sends; the server has it there, facing 15°. Escape puts a move not yet sent back."""
    created = create(server, "wheatfield", entered_dice=False)
    page = open_side(browser, server, created, "union")
    page.focus('#units button[data-unit="20th-maine"]')
    page.keyboard.press("Enter")
    page.wait_for_selector('#viewport g[data-unit="20th-maine"].picked-attacker')
    page.wait_for_selector("#move-bar:not([hidden])")
    page.wait_for_selector("#viewport .move-handle", state="attached")
    page.focus("#viewport")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Escape")  # put back: nothing pending, nothing sent
    assert page.locator("#viewport .move-ghost").count() == 0
    for _ in range(4):
        page.keyboard.press("ArrowUp")
    page.keyboard.press("]")
    assert page.locator("#move-distance").text_content().startswith("20th-maine: ")
    assert "turn +15°" in page.locator("#move-readout").text_content()
    page.keyboard.press("Enter")
    wait_log(page, 1)
    after = unit_of(state(server, created), "20th-maine")
    assert [number(v) for v in after["position"]] == [10, 2] and number(after["facing"]) == 15
    page.click("#undo")  # undo takes a move back as it takes back an attack
    until(lambda: [number(v) for v in unit_of(state(server, created), "20th-maine")["position"]] == [10, 0])
    until(lambda: "undone" in page.locator("#status").text_content())
    assert page.errors == []


def test_a_refused_move_shows_its_clause_by_the_unit(server: str, browser: Any) -> None:
    """83rd-pennsylvania dragged onto 20th-maine: the server refuses [DC-10.2]; the refusal is written by the
    unit, as text with its clause, and in the bar under the table; nothing is recorded; Escape puts it back. A
    narrow window keeps the bar and the note in view."""
    created = create(server, "wheatfield", entered_dice=False)
    page = open_side(browser, server, created, "union", NARROW)
    k = screen_per_unit(page)
    x, y = centre(page, '#viewport g[data-unit="83rd-pennsylvania"] > polygon.stand >> nth=2')
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 10 * k, y, steps=8)
    page.mouse.up()
    page.wait_for_selector("#move-note:not([hidden])")
    note = page.locator("#move-note").text_content()
    assert "[DC-10.2]" in note and "20th-maine" in note
    assert "[DC-10.2]" in page.locator("#move-refusals").text_content()
    assert page.locator("#viewport .move-ghost.refused").count() == 1
    box, pane = page.locator("#move-note").bounding_box(), page.locator("#viewport").bounding_box()
    assert pane["y"] <= box["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"] + 1
    assert page.locator("#move-bar").bounding_box()["y"] < NARROW["height"]  # the controls in view on a phone
    shoot(page, "move-refused-narrow")
    assert state(server, created)["actions"] == 0
    page.keyboard.press("Escape")
    page.wait_for_selector("#move-note", state="hidden")
    assert page.locator("#viewport .move-ghost").count() == 0
    assert page.errors == []


def test_a_drop_off_the_table_sends_nothing(server: str, browser: Any) -> None:
    """Dropped outside the drawing (over the panel), the move is cancelled without a request; a unit of the other
    side is not moved by this page (dragging it pans the table)."""
    created = create(server, "wheatfield", entered_dice=False)
    page = open_side(browser, server, created, "union")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(f"{r.method} {r.url}"))
    x, y = centre(page, '#viewport g[data-unit="20th-maine"] > polygon.stand >> nth=2')
    panel = page.locator("#panel").bounding_box()
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(panel["x"] + 60, y, steps=10)
    page.mouse.up()
    until(lambda: "cancelled" in page.locator("#status").text_content())
    assert page.locator("#viewport .move-ghost").count() == 0
    assert not [r for r in requests if r.startswith("POST") and r.endswith("/move")]
    before = page.get_attribute("#viewport svg", "viewBox")
    x, y = centre(page, '#viewport g[data-unit="15th-alabama"] > polygon.stand >> nth=2')
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 40, y + 30, steps=5)
    page.mouse.up()
    assert page.locator("#viewport .move-ghost").count() == 0
    assert page.get_attribute("#viewport svg", "viewBox") != before
    assert state(server, created)["actions"] == 0
    assert page.errors == []


@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["wide", "narrow"])
def test_turned_by_its_handle(server: str, browser: Any, size: dict[str, int]) -> None:
    """The picked unit's handle, dragged a quarter turn clockwise about the unit, turns it 90°."""
    created = create(server, "ford", entered_dice=False)
    page = open_side(browser, server, created, "legion", size)
    page.click('#units button[data-unit="archers"]')
    page.wait_for_selector("#viewport .move-handle circle", state="attached")
    page.locator("#viewport").scroll_into_view_if_needed()  # the list's button was scrolled to: back to the table
    hx, hy = centre(page, "#viewport .move-handle circle")
    cx, cy = centre(page, '#viewport g[data-unit="archers"] > polygon.base')
    page.mouse.move(hx, hy)
    page.mouse.down()
    r = (cy - hy) * 0.6  # the angle about the unit counts, not how far from it: kept well inside a narrow table
    page.mouse.move(cx + r * 0.7, cy - r * 0.7, steps=4)
    page.mouse.move(cx + r, cy, steps=4)
    assert "turn +90°" in page.locator("#move-readout").text_content()
    shoot(page, f"move-handle-{'wide' if size is WIDE else 'narrow'}")
    page.mouse.up()
    until(lambda: state(server, created)["actions"] == 1)
    assert number(unit_of(state(server, created), "archers")["facing"]) == 90
    assert page.errors == []


def test_a_bushido_model_dragged_and_marked(server: str, browser: Any) -> None:
    """Bushido: yoichi dragged 2 in by its base centre (a model has no facing: no handle); then will move set and
    aimed cleared by their buttons [BU-9.1], each read back from the server."""
    created = create(server, "temple", entered_dice=False)
    page = open_side(browser, server, created, "prefecture")
    k = screen_per_unit(page)
    x, y = centre(page, '#viewport g[data-unit="yoichi"] > circle.base')
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 2 * k, y, steps=6)
    assert re.fullmatch(r"yoichi: (1\.9\d|2\.0\d) in", page.locator("#move-readout").text_content())
    page.mouse.up()
    wait_log(page, 1)
    after = unit_of(state(server, created), "yoichi")
    assert abs(number(after["position"][0]) + 2) < 0.05 and abs(number(after["position"][1])) < 0.05
    assert "moved" in after["states"]
    page.click('#units button[data-unit="yoichi"]')
    page.wait_for_selector('#marks button[data-mark="aimed"][aria-pressed="true"]')
    assert page.locator("#viewport .move-handle").count() == 0
    page.click('#marks button[data-mark="will_move"]')
    page.wait_for_selector('#marks button[data-mark="will_move"][aria-pressed="true"]')
    page.click('#marks button[data-mark="aimed"]')
    page.wait_for_selector('#marks button[data-mark="aimed"][aria-pressed="false"]')
    states = unit_of(state(server, created), "yoichi")["states"]
    assert "will_move" in states and "aimed" not in states
    wait_log(page, 3)
    assert page.errors == []


def test_a_battle_set_up_from_empty(server: str, browser: Any) -> None:
    """The home page makes an empty Dress on the Colors table; each side places a unit from the form the game's
    schema gives, union drags its own where it should stand (placed again, not moved: DC-10.4), both say they are
    ready and the battle starts with union to act."""
    home = new_page(browser, NARROW)
    home.goto(server + "/")
    home.click("#empty summary")
    home.wait_for_selector('#empty-game option[value="dress-on-the-colors"]', state="attached")
    home.select_option("#empty-game", "dress-on-the-colors")
    home.fill("#empty-sides", "union, confederate")
    home.click("#empty-form button[type=submit]")
    home.wait_for_selector('#created li[data-side="union"] a')
    links = {side: home.get_attribute(f'#created li[data-side="{side}"] a', "href")
             for side in ("union", "confederate")}
    battle_id = links["union"].split("/battle/")[1].split("#")[0]
    sync_api.expect(home.locator("#created h2")).to_be_in_viewport()  # the links brought into sight
    home.wait_for_timeout(500)  # the smooth scroll come to rest before the picture
    shoot(home, "setup-home-narrow")

    def place(page: Any, uid: str, at: str, facing: str) -> None:
        page.wait_for_selector("#setup-section:not([hidden]) #setup-id")
        page.fill("#setup-id", uid)
        page.fill("#setup-stands", "4")
        page.select_option("#setup-weapon", "rifled-musket")
        page.select_option("#setup-formation", "line")
        page.fill("#setup-position", at)
        page.fill("#setup-facing", facing)
        page.click("#setup-form button[type=submit]")
        page.wait_for_selector(f'#viewport g[data-unit="{uid}"]')

    union, rebel = new_page(browser), new_page(browser)
    union.goto(links["union"])
    rebel.goto(links["confederate"])
    place(union, "20th-maine", "24, 10", "0")
    place(rebel, "15th-alabama", "24, 30", "180")
    union.wait_for_selector('#viewport g[data-unit="15th-alabama"]')  # the other side's placing has landed here
    shoot(union, "setup-placed-wide")
    k = screen_per_unit(union)
    x, y = centre(union, '#viewport g[data-unit="20th-maine"] > polygon.stand >> nth=1')
    union.mouse.move(x, y)
    union.mouse.down()
    union.mouse.move(x, y - 2 * k, steps=6)
    union.mouse.up()
    created = {"id": battle_id, "tokens": {"spectator": union.evaluate(
        "() => sessionStorage.getItem(Object.keys(sessionStorage)[0])")}}
    until(lambda: abs(number(unit_of(state(server, created), "20th-maine")["position"][1]) - 12) < 0.05)
    assert not unit_of(state(server, created), "20th-maine").get("moved")  # placed, not moved in play
    union.click("#ready")
    until(lambda: "union" in (state(server, created).get("ready") or []))
    rebel.click("#ready")
    until(lambda: state(server, created)["side_to_act"] == "union")
    union.wait_for_selector("#setup-section", state="hidden")
    assert union.errors == [] and rebel.errors == [] and home.errors == []


def test_terrain_placed_in_set_up_by_either_side(server: str, browser: Any) -> None:
    """In set-up, the confederate side places a rectangle of light cover (a kind from the game's schema) from the
    terrain form; the server holds it as a four-cornered polygon, and the union page draws it. A depth of 0 is
    refused on the page, with no request."""
    response = httpx.post(f"{server}/api/battles", json={"game": "dress-on-the-colors",
                                                        "sides": ["union", "confederate"]})
    assert response.status_code == 201, response.text
    created = response.json()
    rebel, union = new_page(browser), new_page(browser, NARROW)
    rebel.goto(server + created["links"]["confederate"])
    union.goto(server + created["links"]["union"])
    rebel.wait_for_selector("#terrain-form:not([hidden]) #terrain-kind option[value=light]", state="attached")
    kinds = rebel.locator("#terrain-kind option").evaluate_all("els => els.map(e => e.value)")
    assert kinds == ["open", "light", "heavy", "gunsmoke"]
    requests: list[str] = []
    rebel.on("request", lambda r: requests.append(f"{r.method} {r.url}"))
    rebel.fill("#terrain-id", "wheat")
    rebel.select_option("#terrain-kind", "light")
    rebel.fill("#terrain-x", "10")
    rebel.fill("#terrain-y", "20")
    rebel.fill("#terrain-width", "8")
    rebel.fill("#terrain-depth", "0")
    rebel.click("#terrain-form button[type=submit]")
    until(lambda: "depth" in rebel.locator("#terrain-refusals").text_content())
    assert not [r for r in requests if r.endswith("/edit")]
    rebel.fill("#terrain-depth", "5.5")
    rebel.click("#terrain-form button[type=submit]")
    until(lambda: state(server, created)["actions"] == 1)
    terrain = state(server, created)["battle"]["terrain"]
    assert [t["id"] for t in terrain] == ["wheat"] and terrain[0]["kind"] == "light"
    assert [[number(v) for v in p] for p in terrain[0]["polygon"]] == [[10, 20], [18, 20], [18, 25.5], [10, 25.5]]
    until(lambda: rebel.locator("#terrain-id").input_value() == "")
    assert rebel.locator("#terrain-refusals li").count() == 0
    rebel.fill("#terrain-id", "wheat")  # the same id again: the server refuses it, and the form says why
    rebel.click("#terrain-form button[type=submit]")
    until(lambda: rebel.locator("#terrain-refusals li").count() == 1)
    said = rebel.locator("#terrain-refusals li").text_content()
    assert "wheat" in said and state(server, created)["actions"] == 1, said
    union.wait_for_selector("#viewport svg")
    until(lambda: "wheat" in union.locator("#viewport svg").text_content())
    shoot(rebel, "setup-terrain-wide")
    assert rebel.errors == [] and union.errors == []
