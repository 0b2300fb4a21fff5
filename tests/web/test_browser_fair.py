"""Fair play on the page, in a real browser (Debian's Chromium, as test_browser.py): every request that acts says
the count of actions the page last saw (If-Match), so that a request sent twice never acts twice; a request that
only asks says none."""

from __future__ import annotations

from typing import Any

import httpx

from tests.web.test_browser import SHOTS, browser, create, new_page, server, wait_log

__all__ = ["browser", "server"]  # the fixtures, shared with test_browser.py


def test_the_page_acts_only_on_the_battle_it_last_saw(server: str, browser: Any) -> None:
    created = create(server, "wheatfield", entered_dice=False)
    page = new_page(browser)
    sent: list[tuple[str, str | None]] = []
    page.on("request", lambda r: sent.append((r.url.rsplit("/", 1)[-1], r.headers.get("if-match")))
            if r.method == "POST" else None)
    page.goto(server + created["links"]["union"])
    page.wait_for_selector("#viewport g[data-unit]")
    page.click("#end-turn")
    wait_log(page, 1)
    assert ("end-turn", '"0"') in sent
    page.wait_for_selector("#result-section:not([hidden])")
    said = page.locator("#result").text_content() or ""
    assert "turn" in said and "null" not in said  # what the end of the turn did, with no empty part shown
    # the same request again, as a retry after a lost answer would send it: refused, nothing done
    retried = httpx.post(f"{server}/api/battles/{created['id']}/end-turn", json={},
                         headers={"Authorization": f"Bearer {created['tokens']['sides']['confederate']}",
                                  "If-Match": '"0"'})
    assert retried.status_code == 409 and retried.json()["error"]["kind"] == "stale"
    state = httpx.get(f"{server}/api/battles/{created['id']}",
                      headers={"Authorization": f"Bearer {created['tokens']['spectator']}"}).json()
    assert state["actions"] == 1
    assert all(header is None for url, header in sent if url.split("?")[0] in ("check", "odds"))
    assert page.errors == []


def test_a_page_refused_as_stale_reads_the_battle_again_and_acts_on_it(server: str, browser: Any) -> None:
    """A page that missed an action (its event stream cut off here) is refused as stale (409) when it acts: it
    says so, reads the battle again, and its next request acts on the battle as it is; before, it went on sending
    the count it last saw, each request refused alike, until the page was reloaded."""
    created = create(server, "wheatfield", entered_dice=False)
    page = new_page(browser)
    page.route("**/events*", lambda route: route.abort())  # no stream: the page hears of nothing
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/end-turn") else None)
    page.goto(server + created["links"]["union"])
    page.wait_for_selector("#viewport g[data-unit]")
    moved = httpx.post(f"{server}/api/battles/{created['id']}/move", json={"unit": "83rd-pennsylvania", "by": [0, 1]},
                       headers={"Authorization": f"Bearer {created['tokens']['sides']['union']}"})
    assert moved.status_code == 200, moved.text  # union's own other tab: this page does not know of it
    page.click("#end-turn")
    page.wait_for_selector("#error:not([hidden])")
    assert "1 actions, not the 0" in (page.locator("#error").text_content() or "")
    wait_log(page, 1)  # the move, read again
    assert "read again" in (page.locator("#status").text_content() or "")
    page.screenshot(path=str(SHOTS / "stale-read-again.png"))
    page.click("#error .dismiss")
    page.click("#end-turn")
    wait_log(page, 2)
    assert statuses == [409, 200]
    assert page.errors == []
