"""The strategy features in a real browser: a beginner bot offered and
added, the win-chance bar during a game against bots, and the post-game
analysis at the end. Selectors are user-visible behaviour (roles, names,
texts, the bar's data-chance values), so a restructured client keeps them."""

import random
import re

import pytest
from playwright.async_api import Locator, expect

from .test_client import Console, browser, create_room, live, open_page, play_turn, shots  # noqa: F401  (fixtures)

PERCENT = re.compile(r"(\d+(?:[.,]\d+)?)\s*%")


async def read_bar(bar: Locator) -> tuple[list[float], list[float], str]:
    """The legend's percentages (one per player), the bar's data-chance values
    and its text, read at once (the client re-renders the bar as updates come)."""
    texts, chances, text = await bar.evaluate(
        """(bar) => [[...bar.querySelectorAll('li')].map((li) => li.innerText),
                    [...bar.querySelectorAll('[data-chance]')].map((s) => Number(s.dataset.chance)), bar.innerText]"""
    )
    shown = []
    for item in texts:
        found = PERCENT.search(item)
        assert found is not None, item
        shown.append(float(found.group(1).replace(",", ".")))
    return shown, chances, text


async def test_a_game_against_a_beginner_and_an_optimal_bot(live, browser, strategy_tables, shots) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    await create_room(page, live.http, "Ana", "yacht", 3)

    levels = page.get_by_role("combobox", name="Bot")
    await expect(levels.get_by_role("option", name="Beginner bot")).to_have_count(1)
    for level in ("Beginner bot", "Optimal bot"):
        await levels.select_option(label=level)
        await page.get_by_role("button", name="Add a bot").click()
        await expect(page.get_by_text(level).first).to_be_visible()
    await expect(page.locator("#lobby .players li")).to_have_count(3)
    await page.get_by_role("button", name=re.compile("Start")).click()

    app = page.locator("#app")
    # the score pad as the end screen is first drawn (noted in the same task, before any reply can come)
    await page.evaluate(
        """() => new MutationObserver((_, observer) => {
             if (document.getElementById('app').dataset.status !== 'finished') return;
             window.padAtEnd = { pad: document.getElementById('score-pad'),
                                 analysed: Boolean(document.getElementById('analysis')) };
             observer.disconnect();
           }).observe(document.getElementById('app'), { attributes: true, attributeFilter: ['data-status'] })"""
    )
    rng = random.Random(7)
    bar_checked = 0
    turns = 0
    started = -1  # the room version when Ana's last turn started
    while True:
        # Ana's next turn (not rolled yet, at a later version than her last turn's start) or the end
        await page.wait_for_function(
            """(started) => { const app = document.getElementById('app'), game = document.getElementById('game');
                           return app.dataset.status === 'finished'
                             || (game?.dataset.myTurn === 'true' && game.dataset.rolled === 'false'
                                 && Number(app.dataset.version) > started); }""",
            arg=started,
            timeout=30_000,
        )
        if await app.get_attribute("data-status") == "finished":
            break
        if turns >= 1:
            # after a scored box the bar shows each player's chance, adding up to 100 %
            bar = page.get_by_role("region", name="Win chances")
            await expect(bar).to_be_visible()
            await expect(bar.get_by_role("listitem")).to_have_count(3)
            shown, chances, text = await read_bar(bar)
            details = (shown, chances, text)
            assert len(shown) == 3 and abs(sum(shown) - 100) <= 1.5, details
            assert len(chances) == 3 and sum(chances) == pytest.approx(1, abs=2e-3), details
            assert await bar.get_by_role("img").get_attribute("aria-label"), "the bar names every player's chance"
            bar_checked += 1
            if turns == 6:
                await page.screenshot(path=shots / "chances.png", full_page=True)
        started = int(await app.get_attribute("data-version") or 0)
        await play_turn(page, rng)
        turns += 1
    assert turns == 12 and bar_checked == 11

    # the end screen analyses the game: every seat, and the costly decisions of the beginner
    heading = page.get_by_role("heading", name="Analysis of game #1")
    analysis = page.locator("section").filter(has=heading).last  # the innermost section with that heading
    await expect(analysis).to_be_visible(timeout=30_000)
    seats = analysis.get_by_role("listitem").filter(has_text="accuracy")
    await expect(seats).to_have_count(3)
    beginner = seats.filter(has_text="Beginner")
    decisions = beginner.get_by_role("listitem")
    await expect(decisions.first).to_be_visible()
    count = await decisions.count()
    assert 1 <= count <= 3
    for i in range(count):
        await expect(decisions.nth(i)).to_contain_text("played:")
        await expect(decisions.nth(i)).to_contain_text("best:")
        await expect(decisions.nth(i)).to_contain_text(re.compile("[\u2212-]\\d"))
    await expect(seats.filter(has_text="Optimal")).to_contain_text("Every decision was optimal.")
    # the analysis came after the end screen and was drawn on its own: the score pad (which a
    # reader may have scrolled sideways) is the element that was there before it
    noted = await page.evaluate(
        "() => [window.padAtEnd.analysed, window.padAtEnd.pad === document.getElementById('score-pad')]"
    )
    assert noted == [False, True]
    await page.screenshot(path=shots / "analysis.png", full_page=True)
    assert console.errors == []
