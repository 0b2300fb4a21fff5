"""A battle set up from empty and played, in a real browser (Debian's Chromium driven by Playwright, as in
test_browser.py): two pages, one per side, each placing its own units from the form and dragging them, terrain
drawn as a polygon on the table (by mouse, by a finger, or typed from the keyboard), refused on the page when its
sides cross, changed, dragged and removed; both sides ready, the battle starts and the two pages play a whole turn
(a move, an attack with the server's dice, the end of the turn, each side in turn); swerve's cards moved to another
mission from the cards' view. Each step is read back over the API (the state, the actions). Screenshots of a wide
(1280x800) and a narrow (400x800) window go to ``build/screenshots/``."""

from __future__ import annotations

from typing import Any

import httpx

from tests.web.test_browser import NARROW, TIMEOUT, WIDE, browser, new_page, server, until, wait_log
from tests.web.test_browser_moves import centre, number, screen_per_unit, shoot
from tests.web.test_whole_game_api import TWO_MISSIONS

__all__ = ["browser", "server"]  # the fixtures, shared with test_browser.py


# -- the API, read as a spectator ------------------------------------------------------------------------------------
def empty(base: str, game: str, sides: list[str], table: tuple[float, float] | None = (48, 36)) -> dict[str, Any]:
    """A battle created empty: the game, its sides in turn order, the table's size; no unit."""
    body: dict[str, Any] = {"format": 1, "game": game, "sides": sides}
    if table is not None:
        body["table"] = {"width": table[0], "depth": table[1]}
    response = httpx.post(f"{base}/api/battles", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def read(base: str, created: dict[str, Any], rest: str = "") -> dict[str, Any]:
    response = httpx.get(f"{base}/api/battles/{created['id']}{rest}",
                         headers={"Authorization": f"Bearer {created['tokens']['spectator']}"})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def actions(base: str, created: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = read(base, created, "/actions")["actions"]
    return found


def unit_of(state: dict[str, Any], uid: str) -> dict[str, Any]:
    unit: dict[str, Any] = next(u for u in state["battle"]["units"] if u["id"] == uid)
    return unit


def xy(unit: dict[str, Any]) -> tuple[float, float]:
    return number(unit["position"][0]), number(unit["position"][1])


def terrain_of(state: dict[str, Any]) -> dict[str, list[list[float]]]:
    return {t["id"]: [[number(v) for v in p] for p in t["polygon"]] for t in state["battle"].get("terrain") or []}


def open_side(browser: Any, base: str, created: dict[str, Any], side: str, size: dict[str, int] = WIDE) -> Any:
    page = new_page(browser, size)
    page.goto(base + created["links"][side])
    page.wait_for_selector("#setup-section:not([hidden]) #setup-id")
    page.wait_for_selector("#viewport svg")
    return page


def edits(page: Any) -> list[str]:
    """The set-up edits this page sends from now on (recorded as requests, whatever their answer)."""
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.post_data or "")
            if r.method == "POST" and r.url.endswith("/edit") else None)
    return sent


# -- what a player does on the page ----------------------------------------------------------------------------------
def place_regiment(page: Any, uid: str, at: str, facing: str) -> None:
    """A Dress on the Colors regiment from the set-up form: its required fields as the schema gives them."""
    page.fill("#setup-id", uid)
    page.fill("#setup-stands", "4")
    page.select_option("#setup-weapon", "rifled-musket")
    page.select_option("#setup-formation", "line")
    page.fill("#setup-position", at)
    page.fill("#setup-facing", facing)
    page.click("#setup-form button[type=submit]")
    page.wait_for_selector(f'#viewport g[data-unit="{uid}"]')


def table_point(page: Any, x: float, y: float) -> tuple[float, float]:
    """Where a point of the table is on the screen, from the drawing's own frame and the viewport's view."""
    svg = "#viewport svg"
    s = float(page.get_attribute(svg, "data-scale"))
    ox, oy = float(page.get_attribute(svg, "data-origin-x")), float(page.get_attribute(svg, "data-origin-y"))
    vx, vy, vw, vh = (float(v) for v in page.get_attribute(svg, "viewBox").split())
    box = page.locator("#viewport").bounding_box()
    k = max(vw / box["width"], vh / box["height"])  # "meet": the larger ratio governs, the rest is centred
    left, top = vx - (box["width"] * k - vw) / 2, vy - (box["height"] * k - vh) / 2
    return box["x"] + (ox + x * s - left) / k, box["y"] + (oy - y * s - top) / k


def drag_unit(page: Any, uid: str, dx: float, dy: float) -> None:
    """A unit of this page's side dragged by a stand or its base (dx, dy in table units, y up the table)."""
    k = screen_per_unit(page)
    x, y = centre(page, f'#viewport g[data-unit="{uid}"] > :is(polygon.stand, circle.base, polygon.base) >> nth=0')
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx * k / 2, y - dy * k / 2, steps=5)
    page.mouse.move(x + dx * k, y - dy * k, steps=5)
    page.mouse.up()


def fire(page: Any, attacker: str, target: str) -> None:
    """The attacker picked from the list, the target from its targets, rolled by the server."""
    page.click(f'#units button[data-unit="{attacker}"]')
    page.click(f'#target-list button[data-target="{target}"]')
    page.wait_for_selector("#play-section:not([hidden]) #roll:not([disabled])")
    page.click("#roll")


def near(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) < 0.05 and abs(a[1] - b[1]) < 0.05


# -- the battle from empty, then a turn ------------------------------------------------------------------------------
def test_a_battle_set_up_from_empty_and_played_for_a_turn(server: str, browser: Any) -> None:
    """Dress on the Colors from empty (POST /api/battles with game, sides and table), union and confederate each on
    its own page: each places its regiment from the form and drags it (placed again, not moved: DC-10.4);
    confederate draws a polygon of light woods by clicking its corners and the first one again; both say Ready
    and turn 1 begins with union to act. Then a whole turn: union drags its regiment 3 in up (a move, DC-10.1),
    fires at the other (the server's dice) and ends its turn; confederate moves, fires and ends its turn; turn 2
    begins. Each step is read back from the server's state and actions."""
    created = empty(server, "dress-on-the-colors", ["union", "confederate"])
    union = open_side(browser, server, created, "union")
    rebel = open_side(browser, server, created, "confederate")
    # the empty table is drawn whole, at its size: 48 by 36 in at the drawing's scale
    scale = float(union.get_attribute("#viewport svg", "data-scale"))
    area = [float(union.get_attribute("#viewport svg rect.table-area", name)) for name in ("width", "height")]
    assert area == [48 * scale, 36 * scale]

    place_regiment(union, "20th-maine", "24, 8", "0")
    place_regiment(rebel, "15th-alabama", "24, 28", "180")
    union.wait_for_selector('#viewport g[data-unit="15th-alabama"]')  # each sees the other's placing land
    rebel.wait_for_selector('#viewport g[data-unit="20th-maine"]')
    state = read(server, created)
    assert xy(unit_of(state, "20th-maine")) == (24, 8) and unit_of(state, "20th-maine")["side"] == "union"
    assert xy(unit_of(state, "15th-alabama")) == (24, 28) and unit_of(state, "15th-alabama")["side"] == "confederate"

    wait_log(union, 2)  # each page has what the other did before a piece is dragged on it
    drag_unit(union, "20th-maine", 0, 2)
    until(lambda: near(xy(unit_of(read(server, created), "20th-maine")), (24, 10)))
    wait_log(rebel, 3)
    drag_unit(rebel, "15th-alabama", 0, -2)
    until(lambda: near(xy(unit_of(read(server, created), "15th-alabama")), (24, 26)))
    state = read(server, created)
    assert not unit_of(state, "20th-maine").get("moved") and not unit_of(state, "15th-alabama").get("moved")
    assert [a["action"] for a in actions(server, created)] == ["edit"] * 4
    assert state["side_to_act"] is None  # still in set-up

    # confederate draws a wood: Draw, a click at each corner, the first corner again closes it
    wait_log(rebel, 4)
    sent = edits(rebel)
    rebel.fill("#polygon-id", "orchard")
    rebel.select_option("#polygon-kind", "light")
    rebel.click("#polygon-draw")
    rebel.wait_for_selector("#draw-bar:not([hidden])")
    corners = [(6, 14), (14, 14), (15.5, 19.5), (9, 22)]
    for x, y in corners:
        rebel.mouse.click(*table_point(rebel, x + 0.1, y - 0.1))  # off by a little: corners fall on the half inch
    assert rebel.locator("#viewport .terrain-draft .draft-corner").count() == 4
    assert rebel.locator("#polygon-corners").input_value() == "6,14 14,14 15.5,19.5 9,22"
    assert sent == []  # nothing sent while drawing
    rebel.evaluate("() => window.scrollTo(0, 0)")  # the page as it opens, its header in sight, for the picture
    shoot(rebel, "setup-polygon-drawing-wide")
    rebel.mouse.click(*table_point(rebel, 6, 14))
    until(lambda: "orchard" in terrain_of(read(server, created)))
    assert terrain_of(read(server, created))["orchard"] == [list(c) for c in corners]
    assert read(server, created)["battle"]["terrain"][0]["kind"] == "light"
    rebel.wait_for_selector("#draw-bar", state="hidden")
    union.wait_for_selector('#viewport polygon.terrain[data-id="orchard"]')
    rebel.wait_for_selector('#setup-pieces li[data-terrain="orchard"]')
    shoot(union, "setup-wide")
    union.set_viewport_size(NARROW)
    union.wait_for_timeout(300)
    shoot(union, "setup-narrow")
    union.set_viewport_size(WIDE)

    union.click("#ready")
    until(lambda: read(server, created)["ready"] == ["union"])
    rebel.click("#ready")
    until(lambda: read(server, created)["side_to_act"] == "union")
    state = read(server, created)
    assert state["turn"]["number"] == 1 and state["turn"]["side"] == "union"
    assert actions(server, created)[-1]["action"] == "start"
    union.wait_for_selector("#setup-section", state="hidden")
    rebel.wait_for_selector("#setup-section", state="hidden")
    count = len(actions(server, created))

    # union's turn: a move, a volley, the end of the turn
    wait_log(union, count)
    drag_unit(union, "20th-maine", 0, 3)
    until(lambda: len(actions(server, created)) == count + 1)
    move = actions(server, created)[-1]
    assert move["action"] == "move" and move["by"] == "union" and move["move"]["unit"] == "20th-maine"
    assert abs(number(move["distance"]) - 3) < 0.05
    after = unit_of(read(server, created), "20th-maine")
    assert near(xy(after), (24, 13)) and after["moved"] is True  # DC-10.1
    wait_log(union, count + 1)
    fire(union, "20th-maine", "15th-alabama")
    until(lambda: len(actions(server, created)) == count + 2)
    shot = actions(server, created)[-1]
    assert shot["action"] == "attack" and shot["attacker"] == "20th-maine" and shot["target"] == "15th-alabama"
    assert shot["dice"]["hit"] and len(shot["dice"]["hit"]) == 4  # the server's dice: one a stand [DC-3.1]
    wait_log(union, count + 2)
    union.click("#end-turn")
    until(lambda: read(server, created)["side_to_act"] == "confederate")
    assert actions(server, created)[-1]["action"] == "end-turn"

    # confederate's turn, on its own page
    wait_log(rebel, count + 3)
    drag_unit(rebel, "15th-alabama", 0, -2)
    until(lambda: len(actions(server, created)) == count + 4)
    assert actions(server, created)[-1]["action"] == "move" and actions(server, created)[-1]["by"] == "confederate"
    assert near(xy(unit_of(read(server, created), "15th-alabama")), (24, 24))
    wait_log(rebel, count + 4)
    fire(rebel, "15th-alabama", "20th-maine")
    until(lambda: len(actions(server, created)) == count + 5)
    shot = actions(server, created)[-1]
    assert shot["action"] == "attack" and shot["by"] == "confederate" and shot["target"] == "20th-maine"
    wait_log(rebel, count + 5)
    rebel.click("#end-turn")
    until(lambda: read(server, created)["side_to_act"] == "union")
    state = read(server, created)
    assert state["turn"]["number"] == 2 and actions(server, created)[-1]["action"] == "end-turn"
    assert [a["action"] for a in actions(server, created)[count:]] == [
        "move", "attack", "end-turn", "move", "attack", "end-turn"]
    wait_log(union, count + 6)
    shoot(union, "turn-played-wide")
    union.set_viewport_size(NARROW)
    union.wait_for_timeout(300)
    shoot(union, "turn-played-narrow")
    assert union.errors == [] and rebel.errors == []


def test_a_bushido_skirmish_set_up_and_played_for_a_turn(server: str, browser: Any) -> None:
    """A second game: Bushido from empty. Each side places a model from the form, its weapon given in the form's
    other fields (JSON), and drags it; either side may add terrain, here a typed polygon of clear ground; both
    ready, prefecture to act. prefecture moves its model, shoots (the server's dice) and ends its activation
    (BU-8.2); cult moves, shoots and ends the turn: turn 2, each step read back over the API."""
    created = empty(server, "bushido", ["prefecture", "cult"], table=(36, 36))
    samurai = open_side(browser, server, created, "prefecture")
    cultist = open_side(browser, server, created, "cult")

    def place_model(page: Any, uid: str, at: str, weapon: str) -> None:
        page.fill("#setup-id", uid)
        page.select_option("#setup-base", "30")
        page.fill("#setup-position", at)
        page.fill("#setup-wounds", '{"boxes": 20}')  # more than one attack may mark (12 at most, BU-7.2)
        page.click("#setup-fields details.more-fields summary")
        page.fill("#setup-more", weapon)
        page.click("#setup-form button[type=submit]")
        page.wait_for_selector(f'#viewport g[data-unit="{uid}"]')

    bow = '{"rcp": 2, "weapon": {"name": "short bow", "short": 6, "medium": 12, "long": 18}}'
    place_model(samurai, "yoichi", "18, 6", bow)
    place_model(cultist, "acolyte", "18, 26", bow)
    state = read(server, created)
    assert unit_of(state, "yoichi")["base"] == 30 and unit_of(state, "yoichi")["weapon"]["long"] == 18
    samurai.wait_for_selector('#viewport g[data-unit="acolyte"]')
    drag_unit(samurai, "yoichi", 0, 2)
    until(lambda: near(xy(unit_of(read(server, created), "yoichi")), (18, 8)))
    cultist.wait_for_selector('#log > li:nth-child(3)', state="attached")
    cultist.select_option("#polygon-kind", "clear")
    cultist.fill("#polygon-corners", "26,12 32,12 32,18")
    cultist.press("#polygon-corners", "Enter")
    until(lambda: terrain_of(read(server, created)).get("clear-1") == [[26, 12], [32, 12], [32, 18]])
    samurai.wait_for_selector('#viewport polygon.terrain[data-id="clear-1"]')
    samurai.click("#ready")
    until(lambda: read(server, created)["ready"] == ["prefecture"])
    cultist.click("#ready")
    until(lambda: read(server, created)["side_to_act"] == "prefecture")
    count = len(actions(server, created))
    assert actions(server, created)[-1]["action"] == "start"

    wait_log(samurai, count)
    drag_unit(samurai, "yoichi", 0, 2)
    until(lambda: len(actions(server, created)) == count + 1)
    assert near(xy(unit_of(read(server, created), "yoichi")), (18, 10))
    assert "moved" in unit_of(read(server, created), "yoichi")["states"]  # BU-9.1
    wait_log(samurai, count + 1)
    fire(samurai, "yoichi", "acolyte")
    until(lambda: len(actions(server, created)) == count + 2)
    assert actions(server, created)[-1]["action"] == "attack" and actions(server, created)[-1]["by"] == "prefecture"
    wait_log(samurai, count + 2)
    samurai.click("#end-activation")
    until(lambda: read(server, created)["side_to_act"] == "cult")

    wait_log(cultist, count + 3)
    drag_unit(cultist, "acolyte", 0, -2)
    until(lambda: len(actions(server, created)) == count + 4)
    assert near(xy(unit_of(read(server, created), "acolyte")), (18, 24))
    wait_log(cultist, count + 4)
    fire(cultist, "acolyte", "yoichi")
    until(lambda: len(actions(server, created)) == count + 5)
    assert actions(server, created)[-1]["action"] == "attack" and actions(server, created)[-1]["by"] == "cult"
    wait_log(cultist, count + 5)
    cultist.click("#end-turn")
    until(lambda: read(server, created)["turn"]["number"] == 2)
    assert actions(server, created)[-1]["action"] == "end-turn"
    assert samurai.errors == [] and cultist.errors == []


# -- terrain: typed, refused, changed, dragged, removed ---------------------------------------------------------------
def test_terrain_from_the_keyboard_refused_changed_and_removed(server: str, browser: Any) -> None:
    """Without a mouse: a polygon typed as its corners and sent with Enter; a self-crossing one (a bow tie) and one
    of two corners refused on the page with the reason, nothing sent; a piece's corners changed and the piece
    removed by the list's buttons; a unit of this side removed the same way; Draw given up with Escape. Each
    edit read back over the API."""
    created = empty(server, "dress-on-the-colors", ["union", "confederate"])
    page = open_side(browser, server, created, "union")
    page.wait_for_selector("#polygon-form:not([hidden]) #polygon-kind option[value=heavy]", state="attached")
    sent = edits(page)
    page.focus("#polygon-id")
    page.keyboard.type("wall")
    page.select_option("#polygon-kind", "heavy")
    page.focus("#polygon-corners")
    page.keyboard.type("10,20 18,20 10,26 18,26")
    page.keyboard.press("Enter")
    until(lambda: "crosses" in page.locator("#polygon-refusals").text_content())
    said = page.locator("#polygon-refusals").text_content()
    assert "the side from corner 2 to 3 crosses the side from corner 4 to 1" in said
    page.fill("#polygon-corners", "10,20 18,20")
    page.press("#polygon-corners", "Enter")
    until(lambda: "at least 3 corners" in page.locator("#polygon-refusals").text_content())
    page.fill("#polygon-corners", "10,20 18,20 18")
    page.press("#polygon-corners", "Enter")
    until(lambda: "not pairs" in page.locator("#polygon-refusals").text_content())
    assert sent == [] and actions(server, created) == []

    page.fill("#polygon-corners", "10,20 18,20 18,26 10,26")
    page.press("#polygon-corners", "Enter")
    until(lambda: "wall" in terrain_of(read(server, created)))
    assert terrain_of(read(server, created)) == {"wall": [[10, 20], [18, 20], [18, 26], [10, 26]]}
    assert read(server, created)["battle"]["terrain"][0]["kind"] == "heavy"
    page.wait_for_selector('#setup-pieces li[data-terrain="wall"]')
    assert page.locator("#polygon-refusals li").count() == 0 and page.locator("#polygon-corners").input_value() == ""

    page.focus('#setup-pieces button[data-change="wall"]')
    page.keyboard.press("Enter")
    assert page.locator("#polygon-corners").input_value() == "10,20 18,20 18,26 10,26"
    assert page.locator("#polygon-id").input_value() == "wall"
    assert page.locator("#polygon-place").text_content() == "Change wall"
    assert page.evaluate("() => document.activeElement.id") == "polygon-corners"
    page.fill("#polygon-corners", "10,20 18,20 14,27.5")
    page.keyboard.press("Enter")
    until(lambda: terrain_of(read(server, created)).get("wall") == [[10, 20], [18, 20], [14, 27.5]])
    last = actions(server, created)[-1]
    assert (last["action"], last["op"], last["section"], last["id"]) == ("edit", "change", "terrain", "wall")

    place_regiment(page, "20th-maine", "24, 8", "0")
    page.wait_for_selector('#setup-pieces li[data-unit="20th-maine"]')
    page.focus('#setup-pieces button[data-remove="20th-maine"]')
    page.keyboard.press("Enter")
    until(lambda: read(server, created)["battle"]["units"] == [])
    page.wait_for_selector('#setup-pieces li[data-unit="20th-maine"]', state="detached")
    # the focus stays in the list, on the row that took the removed one's place: Enter again removes the wall
    until(lambda: page.evaluate("() => document.activeElement.getAttribute('data-remove')") == "wall")
    page.keyboard.press("Enter")
    until(lambda: terrain_of(read(server, created)) == {})
    last = actions(server, created)[-1]
    assert (last["op"], last["section"], last["id"]) == ("remove", "terrain", "wall")
    page.wait_for_selector('#viewport svg:not(:has(polygon.terrain))', state="attached")
    wait_log(page, 5)  # the page has drawn what it did
    until(lambda: page.title() and len(sent) == 5)  # wall placed, changed, removed; the unit placed, removed

    page.focus("#polygon-draw")
    page.keyboard.press("Enter")
    page.wait_for_selector("#draw-bar:not([hidden])")
    page.keyboard.press("Escape")
    page.wait_for_selector("#draw-bar", state="hidden")
    assert page.locator("#polygon-corners").input_value() == ""
    page.wait_for_timeout(300)  # a request Escape would have sent has had time to go
    assert len(sent) == 5
    assert page.errors == []


def test_a_polygon_drawn_across_itself_is_refused_then_one_is_dragged(server: str, browser: Any) -> None:
    """With a mouse: four clicks that make a bow tie, Enter: refused on the page with the reason and nothing sent,
    the drawing still open; Backspace takes back the corners, two others close a square. Then the piece, picked
    by a click on it, dragged 3 in right and 2 in down: the server has its corners moved exactly so; dropped off
    the table, nothing is sent."""
    created = empty(server, "bushido", ["prefecture", "cult"], table=(36, 36))
    page = open_side(browser, server, created, "cult")
    page.wait_for_selector("#polygon-form:not([hidden]) #polygon-kind option[value=solid]", state="attached")
    sent = edits(page)
    page.select_option("#polygon-kind", "solid")
    page.click("#polygon-draw")
    for x, y in [(10, 10), (16, 10), (10, 16), (16, 16)]:
        page.mouse.click(*table_point(page, x, y))
    page.keyboard.press("Enter")
    until(lambda: "crosses" in page.locator("#polygon-refusals").text_content())
    assert "crosses" in page.locator("#draw-what").text_content() and page.locator("#draw-bar").is_visible()
    assert page.locator("#viewport .terrain-draft.refused").count() == 1
    shoot(page, "setup-polygon-refused-wide")
    assert sent == []
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    assert page.locator("#polygon-corners").input_value() == "10,10 16,10"
    for x, y in [(16, 16), (10, 16)]:
        page.mouse.click(*table_point(page, x, y))
    page.keyboard.press("Enter")
    until(lambda: "solid-1" in terrain_of(read(server, created)))  # the id given when the field is left empty
    assert terrain_of(read(server, created))["solid-1"] == [[10, 10], [16, 10], [16, 16], [10, 16]]

    page.wait_for_selector('#viewport polygon.terrain[data-id="solid-1"]')
    page.mouse.click(*table_point(page, 13, 12))  # a click picks it
    page.wait_for_selector('#viewport polygon.terrain-picked[data-id="solid-1"]')
    assert page.get_attribute('#setup-pieces li[data-terrain="solid-1"] button.piece', "aria-pressed") == "true"
    x, y = table_point(page, 13, 12)
    k = screen_per_unit(page)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 1.5 * k, y + 1 * k, steps=4)
    page.mouse.move(x + 3 * k, y + 2 * k, steps=4)
    assert page.get_attribute('#viewport polygon.terrain[data-id="solid-1"]', "transform")  # it follows the pointer
    page.mouse.up()
    until(lambda: terrain_of(read(server, created))["solid-1"] == [[13, 8], [19, 8], [19, 14], [13, 14]])
    last = actions(server, created)[-1]
    assert (last["op"], last["section"], last["id"]) == ("change", "terrain", "solid-1")
    until(lambda: page.title() and len(sent) == 2)  # the piece placed, then changed: two edits (events read)
    page.wait_for_selector('#viewport polygon.terrain-picked[data-id="solid-1"]')
    x, y = table_point(page, 16, 11)
    panel = page.locator("#panel").bounding_box()
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(panel["x"] + 80, y, steps=8)
    page.mouse.up()
    until(lambda: "nothing was sent" in page.locator("#status").text_content())
    page.wait_for_timeout(300)  # a request the drop would have sent has had time to go
    assert len(sent) == 2, sent
    assert not page.get_attribute('#viewport polygon.terrain[data-id="solid-1"]', "transform")
    assert page.errors == []


def test_terrain_tapped_and_dragged_with_a_finger(server: str, browser: Any) -> None:
    """A phone (400x800, touch): Draw, a tap at each corner, a tap on the first closes it; the piece tapped to pick
    it, then dragged 2 in up with a finger. The corners read back over the API."""
    created = empty(server, "arcane-legions", ["legion", "horde"], table=(24, 18))
    context = browser.new_context(viewport=NARROW, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + created["links"]["horde"])
    page.wait_for_selector("#polygon-form:not([hidden]) #polygon-kind option[value=hindering]", state="attached")
    cdp = context.new_cdp_session(page)

    def touch(kind: str, *points: tuple[float, float]) -> None:
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": px, "y": py, "id": i} for i, (px, py) in enumerate(points)]})

    def tap(at: tuple[float, float]) -> None:
        touch("touchStart", at)
        touch("touchEnd")

    page.fill("#polygon-id", "marsh")
    page.select_option("#polygon-kind", "hindering")
    page.click("#polygon-draw")
    page.wait_for_selector("#draw-bar:not([hidden])")
    assert page.locator("#viewport").bounding_box()["y"] >= 0  # the table brought into sight
    corners = [(4, 4), (10, 4), (10, 9), (4, 9)]
    for x, y in corners:
        tap(table_point(page, x, y))
    until(lambda: page.locator("#polygon-corners").input_value() == "4,4 10,4 10,9 4,9")
    shoot(page, "setup-polygon-touch")
    tap(table_point(page, 4, 4))
    until(lambda: "marsh" in terrain_of(read(server, created)))
    assert terrain_of(read(server, created))["marsh"] == [list(c) for c in corners]

    page.wait_for_selector('#viewport polygon.terrain[data-id="marsh"]')
    tap(table_point(page, 7, 6))
    page.wait_for_selector('#viewport polygon.terrain-picked[data-id="marsh"]')
    x, y = table_point(page, 7, 6)
    k = screen_per_unit(page)
    touch("touchStart", (x, y))
    for step in range(1, 9):
        touch("touchMove", (x, y - 2 * k * step / 8))
    touch("touchEnd")
    until(lambda: terrain_of(read(server, created))["marsh"] == [[4, 6], [10, 6], [10, 11], [4, 11]])
    assert errors == []
    context.close()


# -- swerve: a card to another mission --------------------------------------------------------------------------------
def test_a_swerve_card_moved_to_another_mission(server: str, browser: Any) -> None:
    """jason's page offers, beside each of his cards at a mission, the battle's other missions and a Move button
    (SW-9.1); the launcher moved from canyon to mesa lands there on both pages and over the API, its log line
    cited. tyler's page, not in its turn, offers no move."""
    response = httpx.post(f"{server}/api/battles", json={"format": 1, "scenario": TWO_MISSIONS})
    assert response.status_code == 201, response.text
    created = response.json()
    jason, tyler = new_page(browser), new_page(browser, NARROW)
    jason.goto(server + created["links"]["jason"])
    tyler.goto(server + created["links"]["tyler"])
    jason.wait_for_selector('.mission[data-mission="canyon"] .card-move select[data-card="launcher"]')
    tyler.wait_for_selector(".mission [data-unit]")
    assert tyler.locator(".card-move").count() == 0  # jason's turn: tyler moves nothing
    assert jason.locator(".card-move").count() == 2  # launcher at canyon, buggy at mesa: jason's own cards only
    options = jason.locator('select[data-card="launcher"] option').evaluate_all("els => els.map(e => e.value)")
    assert options == ["mesa"]
    jason.select_option('select[data-card="launcher"]', "mesa")
    jason.click('button[data-move-card="launcher"]')
    until(lambda: len(actions(server, created)) == 1)
    move = actions(server, created)[0]
    assert move["action"] == "move" and move["by"] == "jason"
    assert move["move"] == {"unit": "launcher", "mission": "mesa"}
    card = next(c for c in read(server, created)["battle"]["cards"] if c["id"] == "launcher")
    assert card["mission"] == "mesa"
    jason.wait_for_selector('.mission[data-mission="mesa"] [data-unit="launcher"]')
    tyler.wait_for_selector('.mission[data-mission="mesa"] [data-unit="launcher"]')
    assert "[SW-9.1]" in jason.locator('#log > li[data-action="1"]').text_content()
    assert jason.locator('.mission[data-mission="mesa"] select[data-card="launcher"] option').evaluate_all(
        "els => els.map(e => e.value)") == ["canyon"]
    shoot(jason, "swerve-card-moved-wide")
    assert jason.errors == [] and tyler.errors == []
