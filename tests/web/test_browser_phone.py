"""The table page on a phone (400x800) and on a wide screen (1280x800), in a real browser (Debian's Chromium driven
by Playwright, as in test_browser.py): for an attack cycle of each game, the control of the next thing the player
does is inside the window at every step (the unit to fire and End turn once the page opens, a target once a unit
is picked, Roll once a target is, the dice asked for, the answers of a question put to the other side), and not
under anything else; the table's labels are drawn at least 11 pixels high at fit and the drawing's title is not
cut; no button reads as the engine writes a choice (``defender:play:smoke-screen``); a player's own actions are
in the second person in the log. What the page shows of a question's answers is checked against the library's own
check and odds of each answer. Screenshots of each game at both sizes go to ``build/screenshots/``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest

from rangefire.core import Attack
from rangefire.core.numbers import percent
from rangefire.demo import example_path
from rangefire.rulesets import load_battle
from tests.web.test_browser import (
    NARROW,
    SHOTS,
    WIDE,
    browser,
    create,
    enter_dice,
    new_page,
    server,
    until,
    wait_log,
)

__all__ = ["browser", "server"]  # the fixtures, shared with test_browser.py

SIZES = [pytest.param(NARROW, id="400x800"), pytest.param(WIDE, id="1280x800")]
#: The least height, in screen pixels, a label of the table is drawn at.
MIN_LABEL_PX = 11
#: A choice as the engine writes it: a role, an action, perhaps a card, joined by colons with no space.
RAW_CHOICE = re.compile(r"\b(attacker|defender|[a-z][\w-]*):(pass|swerve-target|play|use|swerve)\b(:[\w-]+)?")


def shoot(page: Any, name: str, size: dict[str, int]) -> None:
    """The window as the player sees it (not the whole page: what is in view is the point here)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"phone-{name}-{size['width']}x{size['height']}.png"))


def open_as(browser: Any, base: str, created: dict[str, Any], role: str, size: dict[str, int]) -> Any:
    page = new_page(browser, size)
    page.goto(base + created["links"][role])
    page.wait_for_selector("#viewport g[data-unit]")
    page.wait_for_selector("#log-section")
    return page


def in_view(page: Any, selector: str) -> None:
    """The element is visible, its whole box inside the window, and nothing else is drawn over its middle (read
    again until it holds or the step's time bound passes: the page redraws what changed as actions land)."""
    element = page.locator(selector).first
    size = page.viewport_size

    def problem() -> str | None:
        if not element.is_visible():
            return f"{selector} is not shown"
        box = element.bounding_box()
        if box is None:
            return f"{selector} has no box"
        if box["x"] < 0 or box["y"] < 0:
            return f"{selector} starts outside the window: {box}"
        if box["x"] + box["width"] > size["width"] + 0.5:
            return f"{selector} ends right of the window: {box}"
        if box["y"] + box["height"] > size["height"] + 0.5:
            return f"{selector} ends below the window: {box}"
        on_top = element.evaluate("""e => { const r = e.getBoundingClientRect();
            const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return Boolean(hit) && (e === hit || e.contains(hit)); }""")
        return None if on_top else f"something is drawn over {selector}"

    found: list[str | None] = [None]

    def holds() -> bool:
        found[0] = problem()
        return found[0] is None

    try:
        until(holds)
    except AssertionError:
        raise AssertionError(found[0]) from None


def piece_in_view(page: Any, uid: str) -> None:
    """A unit's piece on the drawing is inside the window (a player taps it there)."""
    piece = page.locator(f'#viewport g[data-unit="{uid}"] > :is(polygon, circle, rect)').first
    box = piece.bounding_box()
    size = page.viewport_size
    assert box is not None, f"{uid} is not on the drawing"
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (uid, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (uid, box)


def tap_piece(page: Any, uid: str) -> None:
    piece_in_view(page, uid)
    box = page.locator(f'#viewport g[data-unit="{uid}"] > :is(polygon, circle, rect)').first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def readable_at_fit(page: Any) -> None:
    """Every label of the table is drawn at least MIN_LABEL_PX high at fit, and the drawing's title lies whole
    inside the table's box, at that height too."""
    page.click("#zoom-fit")
    sizes = page.locator("#viewport g.labels text").evaluate_all(
        "els => els.filter(t => t.getBoundingClientRect().width > 0)"
        "          .map(t => [t.textContent, Number(t.getAttribute('font-size')) * t.getScreenCTM().a])")
    assert sizes, "the drawing has no labels"
    small = [(text, round(px, 1)) for text, px in sizes if px < MIN_LABEL_PX - 0.01]
    assert not small, f"labels under {MIN_LABEL_PX} px at fit: {small}"
    title = page.locator("#viewport text.title")
    px = title.evaluate("t => Number(t.getAttribute('font-size')) * t.getScreenCTM().a")
    assert px >= MIN_LABEL_PX - 0.01, f"the title is {px:.1f} px"
    box, frame = title.bounding_box(), page.locator("#viewport").bounding_box()
    assert box is not None and frame is not None
    assert box["x"] >= frame["x"] - 0.5 and box["x"] + box["width"] <= frame["x"] + frame["width"] + 0.5, (box, frame)
    assert box["y"] >= frame["y"] - 0.5 and box["y"] + box["height"] <= frame["y"] + frame["height"] + 0.5, (box, frame)


def no_raw_choices(page: Any) -> None:
    """No button of the page reads as the engine writes a choice."""
    texts = page.locator("button").evaluate_all("els => els.map(e => e.textContent)")
    raw = [t for t in texts if RAW_CHOICE.search(t)]
    assert not raw, f"buttons that read as the engine writes a choice: {raw}"


def start_turn(page: Any, attacker: str) -> None:
    """The page as it opens on a side's turn: the unit it fires with on the drawing, and End turn, in view."""
    piece_in_view(page, attacker)
    in_view(page, "#end-turn")
    readable_at_fit(page)


def pick_target(page: Any, attacker: str, target: str) -> None:
    """Pick the shooter where the player sees it, on the drawing (a card of the card game too), then its target
    from the dock, in view; then Roll is in view."""
    tap_piece(page, attacker)
    button = f'#dock-targets button[data-target="{target}"]'
    page.wait_for_selector(button)
    in_view(page, button)
    page.click(button)
    page.wait_for_selector("#charts figure.chart")
    in_view(page, "#roll")
    until(lambda: page.locator("#roll").is_enabled())


def log_says(page: Any, number: int, *parts: str) -> None:
    """The head of a log entry says each part, in order (a unit may be named with its id in brackets)."""
    pattern = ".*".join(re.escape(part) for part in parts)
    until(lambda: re.search(pattern, page.locator(f'#log > li[data-action="{number}"] > strong').text_content() or ""))


# -- the games ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", SIZES)
def test_dress_on_the_colors_on_a_phone(server: str, browser: Any, size: dict[str, int]) -> None:
    """The Wheatfield, dice entered: pick, target, Enter dice (the field in view at each stage), End turn."""
    created = create(server, "wheatfield", entered_dice=True)
    union = open_as(browser, server, created, "union", size)
    start_turn(union, "20th-maine")
    shoot(union, "dress-on-the-colors-start", size)
    pick_target(union, "20th-maine", "15th-alabama")
    in_view(union, "#enter")
    shoot(union, "dress-on-the-colors-target", size)
    union.click("#enter")
    union.wait_for_selector("#dice-form:not([hidden])")
    in_view(union, "#dice-input")
    in_view(union, "#dice-form button[type=submit]")
    shoot(union, "dress-on-the-colors-dice", size)
    enter_dice(union, {}, 4, stages=6)
    wait_log(union, 1)
    log_says(union, 1, "You fired ", "20th-maine", " at ", "15th-alabama")
    until(lambda: union.locator("#end-turn").is_enabled())
    in_view(union, "#end-turn")
    no_raw_choices(union)
    assert union.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_arcane_legions_on_a_phone(server: str, browser: Any, size: dict[str, int]) -> None:
    """The ford, the server's dice: pick, target, Roll, End turn; the other side's log says who fired."""
    created = create(server, "ford", entered_dice=False)
    legion, horde = open_as(browser, server, created, "legion", size), open_as(browser, server, created, "horde", size)
    start_turn(legion, "archers")
    pick_target(legion, "archers", "orc-band")
    shoot(legion, "arcane-legions-target", size)
    legion.click("#roll")
    wait_log(legion, 1)
    log_says(legion, 1, "You fired ", "archers", " at ", "orc-band")
    in_view(legion, "#end-turn")
    log_says(horde, 1, "legion fired ", "archers", " at ", "orc-band")
    assert "You" not in (horde.locator('#log > li[data-action="1"] > strong').text_content() or "")
    in_view(horde, "#undo-why")  # not horde's to undo, said in words
    assert "only legion may undo it" in horde.locator("#undo-why").text_content()
    legion.click("#end-turn")
    wait_log(legion, 2)
    log_says(legion, 2, "You declared the end of turn")
    no_raw_choices(legion)
    assert legion.errors == [] and horde.errors == []


def expected_options(example: str, attacker: str, target: str, choices: tuple[tuple[str, Any], ...] = ()) -> dict:
    """The library's own answer: for each answer of the question the attack waits for, its label, target, range
    and the odds the attack then has (the game's main outcome: the chance of at least one), worked out on the
    battle as the side asked sees it (a card game's other hand unknown to it, SW-1.4)."""
    ruleset, battle = load_battle(example_path(f"{example}.yaml"))
    attack = Attack(attacker, target, choices)
    question = ruleset.next_choice(battle, attack)
    assert question is not None
    battle = ruleset.seen_by(battle, question.side)
    found = {}
    for answer, label in zip(question.allowed, question.labels or question.allowed, strict=True):
        plan = ruleset.check(battle, ruleset.with_choice(attack, answer)).plan
        assert plan is not None
        odds = ruleset.odds(plan).to_dict()
        dist = odds["outcomes"][ruleset.main_outcome]["distribution"]
        least = sum((Fraction(p) for k, p in dist.items() if Fraction(k) >= 1), Fraction(0))
        found[answer] = {"label": label, "target": plan.target, "range": plan.details().get("range"),
                         "at least one": percent(least),
                         "events": {k: percent(Fraction(p)) for k, p in odds["events"].items()}}
    return found


def answers_shown(page: Any, expected: dict[str, dict[str, Any]]) -> None:
    """The answer buttons, in view, each with the library's label and what the attack then is."""
    buttons = page.locator("#pending-answers button.answer")
    assert buttons.evaluate_all("els => els.map(e => e.dataset.answer)") == list(expected)
    for i, (answer, want) in enumerate(expected.items()):
        button = buttons.nth(i)
        in_view(page, f'#pending-answers button[data-answer="{answer}"]')
        assert button.locator(".answer-label").text_content() == want["label"]
        summary = button.locator(".answer-sum").text_content()
        assert f": {want['at least one']}" in summary, (answer, summary)
        for event, chance in want["events"].items():
            assert f"{event.replace('_', ' ')} {chance}" in summary, (answer, summary)
        if want["range"]:
            value = want["range"].get("inches", want["range"].get("steps"))
            assert f"{float(value):.2f}".rstrip("0").rstrip(".") in summary, (answer, summary)
        row = page.locator(f'#pending-options li[data-option="{answer}"]').text_content() or ""
        assert re.search(rf"target: [^\n]*\b{re.escape(want['target'])}\b", row), (answer, row)


@pytest.mark.parametrize("size", SIZES)
def test_bushido_nominator_sees_each_answer(server: str, browser: Any, size: dict[str, int]) -> None:
    """The temple yard: prefecture rolls yoichi at takeda; ito's page, asked to keep takeda or nominate yojimbo
    [BU-4.2], has both answers in view, each with its range, line of fire and odds as the library works them out;
    the table shows a nominee's line on asking; the answer is made from the dock."""
    created = create(server, "temple", entered_dice=False)
    prefecture = open_as(browser, server, created, "prefecture", size)
    ito = open_as(browser, server, created, "ito", size)
    start_turn(prefecture, "yoichi")
    pick_target(prefecture, "yoichi", "takeda")
    shoot(prefecture, "bushido-target", size)
    prefecture.click("#roll")
    until(lambda: "Waiting for ito" in (prefecture.locator("#pending-ask").text_content() or ""))
    in_view(prefecture, "#pending-ask")
    in_view(prefecture, "#withdraw")
    assert prefecture.locator("#pending-answers button").count() == 0
    ito.wait_for_selector("#pending-answers button.answer")
    expected = expected_options("temple", "yoichi", "takeda")
    answers_shown(ito, expected)
    lines = ito.locator("#pending-options [data-state]").evaluate_all("els => els.map(e => e.dataset.state)")
    assert len(lines) == len(expected) and all(lines)
    assert "[BU-4.2]" in ito.locator("#pending-ask").text_content()
    shoot(ito, "bushido-question", size)
    ito.click('#pending-options button[data-preview="yojimbo"]')
    until(lambda: ito.locator('#viewport g[data-unit="yojimbo"].picked-target, '
                              '#viewport [class*="line-of-fire"]').count() > 0)
    ito.click('#pending-answers button[data-answer="nominate yojimbo"]')
    wait_log(ito, 1)
    wait_log(prefecture, 1)
    log_says(prefecture, 1, "You fired ", "yoichi", " at ", "yojimbo")
    log_says(ito, 1, "prefecture fired ", "yoichi", " at ", "yojimbo")
    until(lambda: prefecture.locator("#end-turn").is_enabled() or prefecture.locator("#end-activation").is_enabled())
    in_view(prefecture, "#end-activation")
    no_raw_choices(ito)
    no_raw_choices(prefecture)
    assert prefecture.errors == [] and ito.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_swerve_answers_read_as_cards(server: str, browser: Any, size: dict[str, int]) -> None:
    """Ambush at the crossing: jason fires the rail gun at the dune buggy; each player is asked their action in
    turn [SW-3.1], the answers in view in their dock, labelled by the cards' names and effects as the engine
    labels them ("play Smoke Screen: +10 speed"), with the odds each leaves; no button reads as a choice is
    written."""
    created = create(server, "ambush", entered_dice=False)
    jason = new_page(browser, size)
    jason.goto(server + created["links"]["jason"])
    tyler = new_page(browser, size)
    tyler.goto(server + created["links"]["tyler"])
    for page in (jason, tyler):
        page.wait_for_selector("#cards-section:not([hidden]) .mission")
    in_view(jason, "#end-turn")
    readable_at_fit(jason)
    pick_target(jason, "rail-gun", "dune-buggy")
    labels = jason.locator("#combat .legal-actions button").evaluate_all("els => els.map(e => e.textContent)")
    ruleset, battle = load_battle(example_path("ambush.yaml"))
    question = ruleset.next_choice(battle, Attack("rail-gun", "dune-buggy"))
    assert question is not None and labels == list(question.labels)
    no_raw_choices(jason)
    shoot(jason, "swerve-target", size)
    jason.click("#roll")  # jason's own first action is asked of him first [SW-3.1]
    jason.wait_for_selector("#pending-answers button.answer")
    answers_shown(jason, expected_options("ambush", "rail-gun", "dune-buggy"))
    jason.click('#pending-answers button[data-answer="attacker:pass"]')
    tyler.wait_for_selector("#pending-answers button.answer")
    expected = expected_options("ambush", "rail-gun", "dune-buggy", (("actions", ("attacker:pass",)),))
    assert "play Smoke Screen: +10 speed" in [want["label"] for want in expected.values()]
    answers_shown(tyler, expected)
    no_raw_choices(tyler)
    until(lambda: "you: pass" in (jason.locator("#pending-what").text_content() or ""))
    until(lambda: "jason: pass" in (tyler.locator("#pending-what").text_content() or ""))
    assert not RAW_CHOICE.search(jason.locator("#pending-what").text_content() or "")
    shoot(tyler, "swerve-question", size)
    tyler.click('#pending-answers button[data-answer="defender:pass"]')
    wait_log(jason, 1)
    log_says(jason, 1, "You fired ", "rail-gun", " at ", "dune-buggy")
    in_view(jason, "#end-turn")
    no_raw_choices(jason)
    assert jason.errors == [] and tyler.errors == []


@pytest.mark.parametrize("size", SIZES)
def test_odds_lead_with_percentages_and_every_chart_has_a_legend(server: str, browser: Any,
                                                                 size: dict[str, int]) -> None:
    """The odds of an attack read as percentages, each exact fraction shown by a tap on it; each chart has a
    legend naming its bars and its line."""
    created = create(server, "wheatfield", entered_dice=False)
    union = open_as(browser, server, created, "union", size)
    pick_target(union, "20th-maine", "15th-alabama")
    event = union.locator('#events li[data-event="suppression"]')
    assert re.fullmatch(r"suppression: \d+\.\d% \d+/\d+", event.text_content() or ""), event.text_content()
    assert event.locator(".fraction").is_hidden()
    event.locator("button.pct").click()
    assert event.locator(".fraction").is_visible()
    for chart in union.locator("#charts figure.chart").all():
        legend = chart.locator(".legend").text_content() or ""
        assert "bars: exactly N" in legend and "line: at least N" in legend, legend
    shoot(union, "odds", size)
    assert union.errors == []
