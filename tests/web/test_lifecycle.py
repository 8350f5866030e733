"""The web client and app/lifecycle in Chromium: the turn clock's countdown and a
timeout, resigning, quick play between two browsers."""

import re

import httpx
import pytest
from playwright.async_api import expect

from ..conftest import test_settings
from ..live import server_in_thread
from ..table import Table
from .test_client import Console, browser, open_page  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def live(tmp_path_factory, strategy_tables):
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('lifecycle') / 'web.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url, turn_seconds_min=1, scheduler_poll=0.1)) as server:
        yield server


async def test_the_countdown_runs_and_a_timeout_shows(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    # the create form offers the clock and the public options
    await page.goto(live.http + "/")
    await expect(page.locator("#create-clock option")).to_have_count(7)
    await expect(page.locator("#create-public")).not_to_be_checked()
    async with httpx.AsyncClient(base_url=live.http) as http:
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2, options={"turn_seconds": 3})
        await page.goto(f"{live.http}/r/{table.code}")
        await page.fill("#join-name", "Ben")
        await page.click("#join-submit")
        await expect(page.locator("#lobby .players li:has-text('Ben') .tag").first).to_have_text("you")
        await table.start()
        clock = page.locator("#turn-clock")
        await expect(clock).to_have_text(re.compile(r"^0:0[0-3] left$"))
        # nobody acts: the first turn times out and the log says so; the autopilot plays it
        await expect(page.locator(".log li").filter(has_text="ran out of time")).to_have_count(1, timeout=10_000)
        await expect(page.locator(".log li").filter(has_text="scored").first).to_be_visible()
    assert not console.errors, console.errors


async def test_resigning_asks_first_and_ends_a_game_of_two(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    async with httpx.AsyncClient(base_url=live.http) as http:
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        await page.goto(f"{live.http}/r/{table.code}")
        await page.fill("#join-name", "Ben")
        await page.click("#join-submit")
        await expect(page.locator("#lobby .players li:has-text('Ben') .tag").first).to_have_text("you")
        await table.start()
        await page.click("#resign")
        await expect(page.locator("#confirm")).to_be_visible()
        await page.click("#confirm-no")  # changed my mind: nothing happens
        await expect(page.locator("#game-players .tag.resigned")).to_have_count(0)
        await page.click("#resign")
        await page.click("#confirm-yes")
        # Ana was the only other person: she wins at once, Ben is listed after her, resigned
        await expect(page.locator("#winner-line")).to_have_text("Everyone else resigned: Ana wins!")
        ben = page.locator("#final li:has-text('Ben')")
        await expect(ben.locator(".tag.resigned")).to_have_text("resigned")
        await expect(page.locator("#resign")).to_have_count(0)
        await expect(page.locator(".log li").filter(has_text="Ben resigned")).to_have_count(1)
    assert not console.errors, console.errors


async def test_quick_play_brings_two_browsers_into_one_game(live, browser) -> None:  # noqa: F811
    console = Console()
    ana, ben = await open_page(browser, console), await open_page(browser, console)  # two contexts
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        await page.goto(live.http + "/")
        await page.fill("#create-name", name)
        await page.select_option("#create-ruleset", "yatzy")
        await page.click("#quickplay")
        await expect(page).to_have_url(re.compile(r"/r/[A-Z0-9]+$"))
    assert ana.url == ben.url
    # the room was full with Ben: it started by itself, on both screens
    for page in (ana, ben):
        await expect(page.locator("#game")).to_be_visible()
        await expect(page.locator("#game-players li")).to_have_count(2)
    assert not console.errors, console.errors
