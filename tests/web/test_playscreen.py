"""The play screen players want (issue 18) in Chromium at two phone sizes and
a desktop one: state across reloads and tabs, focus and screen-reader names,
the one-thumb phone layout, names, links and codes. Layout is asserted from
element positions (bounding boxes); screenshots go to
test-artifacts/screenshots/playscreen-*.png."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from .test_client import Console, browser, create_room, live, open_page, shots  # noqa: F401  (fixtures)

SIZES = {
    "360x740": {"width": 360, "height": 740},
    "390x844": {"width": 390, "height": 844},
    "1280x800": {"width": 1280, "height": 800},
}
sizes = pytest.mark.parametrize("size", list(SIZES))


async def rolled(page: Page, left: int) -> None:
    await expect(page.locator("#game")).to_have_attribute("data-rolls-left", str(left))


async def pressed(page: Page) -> list[bool]:
    values = await page.locator("#dice .die").evaluate_all("(d) => d.map((x) => x.getAttribute('aria-pressed'))")
    return [v == "true" for v in values]


@sizes
async def test_reload_and_a_second_tab_of_the_seat_show_the_servers_state(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    code = await create_room(page, live.http, "Ana", "yahtzee", 1)
    await page.click("#start-game")
    await expect(page.locator("#game")).to_have_attribute("data-my-turn", "true")
    await page.keyboard.press("r")
    await rolled(page, 2)
    await page.keyboard.press("1")
    await page.keyboard.press("3")
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    await expect(page.locator("#game")).to_have_attribute("data-kept", "0,2")  # the server has both keeps
    await page.reload()
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    assert await pressed(page) == [True, False, True, False, False]
    # the log comes back from the server's events, newest first
    log = page.locator(".log li")
    await expect(log.first).to_contain_text("Ana keeps 2 dice")
    await expect(page.locator(".log")).to_contain_text("Ana rolled")
    await expect(page.locator(".log")).to_contain_text("Game #1 started")
    # a second tab of the same seat (the browser remembers it) sees the holds made in the first
    other = console.watch(await page.context.new_page())
    await other.goto(f"{live.http}/r/{code}")
    await other.click("#resume-seat")
    await expect(other.locator("#game")).to_have_attribute("data-my-turn", "true")
    assert await pressed(other) == [True, False, True, False, False]
    await page.keyboard.press("2")
    await expect(other.locator("#die-1")).to_have_attribute("aria-pressed", "true")
    await other.keyboard.press("1")
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "false")
    await expect(other.locator(".log li").first).to_contain_text("Ana keeps 2 dice")
    await page.screenshot(path=shots / f"playscreen-reload-{size}.png")
    assert console.errors == []


@sizes
async def test_focus_stays_where_play_continues_and_the_table_is_named(live, browser, shots, size) -> None:  # noqa: F811
    """Create, Start, Roll and Score from the keyboard: focus is always on the next control;
    the shortcuts are on screen; dice, scorecard and progress bar have names; the others'
    moves are announced in a polite live region."""
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    await page.goto(live.http + "/")
    await page.fill("#create-name", "Kim")
    await page.select_option("#create-ruleset", "yahtzee")
    await page.focus("#create-submit")
    await page.keyboard.press("Enter")
    await expect(page.locator("#start-game")).to_be_focused()
    await page.select_option("#bot-level", "beginner")
    await page.click("#add-bot")
    await expect(page.locator("#lobby .players li")).to_have_count(2)
    await page.focus("#start-game")
    await page.keyboard.press("Enter")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    await expect(page.locator("#roll")).to_be_focused()
    # the bot went first, or the game just started: either way the live region is polite and not empty
    announce = page.locator("#announce")
    await expect(announce).to_have_attribute("aria-live", "polite")
    await page.keyboard.press("Enter")  # the focused Roll button
    await rolled(page, 2)
    await expect(page.locator("#roll")).to_be_focused()
    # shortcuts on screen: a key on each die and on Roll, and the line that explains them
    for i in range(5):
        await expect(page.locator(f"#die-{i} kbd")).to_have_text(str(i + 1))
        await expect(page.locator(f"#die-{i} kbd")).to_be_visible()
    await expect(page.locator("#roll kbd")).to_have_text("R")
    await expect(page.locator("#keys-help")).to_be_visible()
    await expect(page.get_by_role("group", name="Dice")).to_have_count(1)
    await expect(page.get_by_role("region", name="Scorecard")).to_have_count(1)
    await expect(page.get_by_role("table", name="Scorecard")).to_have_count(1)
    await expect(page.get_by_role("progressbar", name="Upper section: 0 of 63")).to_have_count(1)
    await page.keyboard.press("r")
    await rolled(page, 1)
    await page.keyboard.press("r")
    await rolled(page, 0)
    await expect(page.locator("#game .score-option").first).to_be_focused()  # Roll is spent: the boxes are next
    await page.keyboard.press("Enter")
    if await page.locator("#confirm").is_visible():
        await page.keyboard.press("Tab")
        await page.keyboard.press("Enter")
    # the bot plays; its moves are announced, and the turn comes back with focus on Roll
    await expect(announce).to_contain_text("Beginner bot", timeout=20000)
    await expect(game).to_have_attribute("data-rolled", "false", timeout=20000)
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    await expect(page.locator("#roll")).to_be_focused()
    await page.screenshot(path=shots / f"playscreen-keyboard-{size}.png")
    assert console.errors == []
