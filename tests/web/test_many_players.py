"""Eight players on a phone (a room takes up to eight): the scorecard and the
score pad keep every column at a width its numbers and names fit and scroll
sideways inside their own boxes, never the page, with the box names (the
games) held in place; as a player's turn starts their column is scrolled
into view, so the score options are there to tap. Before, eight columns
shared the phone's width: every name was "G…", totals broke over two lines
and the end screen's box names broke mid-word."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.async_api import FloatRect, Page, expect

from .test_client import Console, browser, create_room, live, shots  # noqa: F401  (fixtures)
from .test_playscreen import SIZES
from .test_series import PAD_HINT_AGREES, no_sideways_scroll, play_out, seat_of, settled_box


def inside(cell: FloatRect, start: float, end: float) -> bool:
    return start - 1 <= cell["x"] and cell["x"] + cell["width"] <= end + 1


async def held_and_box(page: Page, scroller: str, pinned: str) -> tuple[float, float]:
    """What a sideways-scrolling box shows beside its held column: from the held column's end to
    the box's (the held column at the box's start: its left, or its right in Arabic)."""
    box = await settled_box(page.locator(scroller))
    held = await settled_box(page.locator(pinned))
    if abs(held["x"] - box["x"]) <= 2:
        return held["x"] + held["width"], box["x"] + box["width"]
    assert abs(held["x"] + held["width"] - box["x"] - box["width"]) <= 2, (held, box)
    return box["x"], held["x"]


@pytest.mark.parametrize("locale", ["en-US", "ar"])
async def test_eight_players_on_a_phone(live, browser, shots, locale) -> None:  # noqa: F811
    console = Console()
    viewport = SIZES["360x740"]
    page = console.watch(await (await browser.new_context(viewport=viewport, locale=locale)).new_page())
    code = await create_room(page, live.http, "Ana", "yahtzee", 8)
    seat = await seat_of(page, code)
    async with httpx.AsyncClient(base_url=live.http) as http:
        for _ in range(7):
            bearer = {"authorization": f"Bearer {seat['token']}"}
            r = await http.post(f"/api/rooms/{code}/bots", json={"level": "greedy"}, headers=bearer)
            assert r.status_code == 201, r.text
    await expect(page.locator("#lobby .players li")).to_have_count(8)
    await page.click("#start-game")

    # Ana's turn: her column is in view beside the box names, her options tappable
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=30_000)
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    sheet = page.locator("#card-scores .scroll")
    await expect(sheet).to_have_attribute("data-overflow", "true")
    await no_sideways_scroll(page, viewport)
    start, end = await held_and_box(page, "#card-scores .scroll", "#scorecard thead th:first-child")
    mine = await settled_box(page.locator("#scorecard thead th.mine"))
    assert inside(mine, start, end), (mine, start, end)
    option = page.locator("#scorecard .score-option:not(.zero)").first  # (a zero asks first)
    assert inside(await settled_box(option), start, end)
    await page.screenshot(path=shots / f"many-players-turn-{locale}-360x740.png")
    # each player's column keeps its 4.25rem, which a total fits on one line (not 1.4rem, "G…"),
    # and a name shows whole, wrapped at its spaces ("Greedy / bot 3")
    widths = await page.locator("#scorecard thead th").evaluate_all(
        "(cells) => cells.slice(1).map((cell) => cell.getBoundingClientRect().width)"
    )
    assert min(widths) >= 4.25 * 16 - 1, widths
    clipped = await page.locator("#scorecard thead th").evaluate_all(
        "(cells) => cells.filter((cell) => cell.scrollWidth > cell.clientWidth).map((cell) => cell.textContent)"
    )
    assert clipped == [], clipped
    await option.click()
    await expect(game).to_have_attribute("data-my-turn", "false")

    room = await play_out(live.http, code, {seat["playerId"]: seat["token"]}, random.Random(5))
    await expect(page.locator("#end")).to_be_visible()
    await no_sideways_scroll(page, viewport)
    # the end screen's scorecard: the same, its box names whole words
    await expect(page.locator("#end .scroll")).to_have_attribute("data-overflow", "true")
    names = page.locator("#end .scorecard tbody th")
    widths = await names.evaluate_all("(cells) => cells.map((cell) => cell.getBoundingClientRect().width)")
    assert min(widths) >= 8 * 16 - 1, widths
    # the pad: the games' column held, the last player's total in view once scrolled to the far end
    await expect(page.locator("#score-pad thead th[data-player]")).to_have_count(8)
    await page.wait_for_function(PAD_HINT_AGREES, timeout=5000)
    await expect(page.locator("#pad-hint")).to_be_visible()
    scroller = page.locator("#pad-scroll")
    await scroller.scroll_into_view_if_needed()
    far = "(pad) => { pad.scrollLeft = (getComputedStyle(pad).direction === 'rtl' ? -1 : 1) * pad.scrollWidth; }"
    await scroller.evaluate(far)  # to the far end
    start, end = await held_and_box(page, "#pad-scroll", "#score-pad tr[data-game='1'] th")
    last = room["game"]["order"][-1]  # the pad's columns go in the scorecard's order: the game's turns
    assert inside(await settled_box(page.locator(f"#score-pad tr.pad-total td[data-player='{last}']")), start, end)
    await page.screenshot(path=shots / f"many-players-end-{locale}-360x740.png", full_page=True)
    assert console.errors == []
