"""Fair play on the page, in a real browser (Debian's Chromium, as test_browser.py): every request that acts says
the count of actions the page last saw (If-Match), so that a request sent twice never acts twice; a request that
only asks says none."""

from __future__ import annotations

from typing import Any

import httpx

from tests.web.test_browser import browser, create, new_page, server, wait_log

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
