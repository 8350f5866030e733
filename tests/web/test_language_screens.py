"""The game, end and replay screens in every language at 390x844 (issue 30,
item 5): a game against a bot played to its end, each screen checked for the
language's script, direction and anything cut off or wider than the phone,
and its words checked against the language's glossary; screenshots in
test-artifacts/screenshots/<lang>-{game,end,replay}-390x844.png for a person
to read. The player has a long name of the language's own (tests/web/
test_languages.py NAMES), the bot a Latin one, so a sentence mixes scripts."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, expect

from .test_client import Console, live  # noqa: F401  (live is a fixture)
from .test_glossary import violations
from .test_languages import LANGS, NAMES, PHONE, RULESET, browser, catalog, check_screen, shots  # noqa: F401
from .test_series import choose, play_out, seat_of


async def play_rounds(base: str, code: str, token: str, player: str, rounds: int, rng: random.Random) -> None:
    """The person's turns over REST until round ``rounds`` is theirs to play (the bot plays by itself)."""
    async with httpx.AsyncClient(base_url=base) as http:
        for _ in range(400):
            room = (await http.get(f"/api/rooms/{code}")).json()
            turn = (room.get("game") or {}).get("turn")
            if turn is None:  # between the game's start and its first turn
                await asyncio.sleep(0.05)
                continue
            if turn["player_id"] == player and turn["dice"] is None and room["game"]["round"] >= rounds:
                return
            if turn["player_id"] != player:
                await asyncio.sleep(0.05)  # the bot's turn: it plays through the scheduler
                continue
            r = await http.post(
                f"/api/rooms/{code}/actions", json=choose(room, rng), headers={"authorization": f"Bearer {token}"}
            )
            assert r.status_code in (200, 409), r.text
    raise AssertionError(f"round {rounds} never came")


async def play_screen_ok(page: Page, lang: str) -> None:
    """check_screen, but the play screen's player columns cut a long name with an
    ellipsis by design (all of a turn on the first screen, issue 18.1): such a
    name must then be whole in the column's title and in the list of players."""
    clipped = await page.locator("#scorecard thead th[title]").evaluate_all(
        "(cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => [c.title, c.textContent])"
    )
    players = await page.locator("#game-players").inner_text()
    for title, text in clipped:
        assert title == text and title in players, (title, text)
    # Through the CSSOM: the page's Content-Security-Policy refuses a <style> tag.
    await page.locator("#scorecard thead th[title]").evaluate_all(
        "(cells) => cells.forEach((c) => { c.style.textOverflow = 'clip'; c.style.overflow = 'visible'; })"
    )
    await check_screen(page, lang)


async def glossary_clean(page: Page, lang: str, where: str) -> None:
    text = (await page.locator("#app").inner_text()).replace("\u2068", "").replace("\u2069", "")
    assert violations(lang, [(where, "screen", text)]) == []


@pytest.mark.parametrize("lang", LANGS)
async def test_game_end_and_replay_screens(live, browser: Browser, shots: Path, lang: str) -> None:  # noqa: F811
    console = Console()
    words = catalog(lang)
    ruleset = RULESET.get(lang, "yahtzee")
    context = await browser.new_context(viewport=PHONE, locale="en-US")
    page = console.watch(await context.new_page())
    await page.goto(f"{live.http}/?lang={lang}")
    await expect(page.locator("html")).to_have_attribute("lang", lang)
    await page.fill("#create-name", NAMES[lang])
    await page.select_option("#create-ruleset", ruleset)
    await page.select_option("#create-seats", "2")
    await page.click("#create-submit")
    await expect(page.locator("#start-game")).to_be_visible()
    await page.select_option("#bot-level", "greedy")
    await page.click("#add-bot")
    await expect(page.locator("#lobby .players li")).to_have_count(2)
    code = page.url.rsplit("/", 1)[1]
    seat = await seat_of(page, code)
    await page.click("#start-game")

    # the game: a few rounds in, rolled once, a die kept
    rng = random.Random(30)
    await play_rounds(live.http, code, seat["token"], seat["playerId"], 4, rng)
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    await expect(game).to_have_attribute("data-rolled", "false")
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.click("#die-1")
    await expect(page.locator("#die-1")).to_have_attribute("aria-pressed", "true")
    await expect(page.locator("#turn-banner strong")).to_have_text(words["game.your_turn"])
    # the kept die's label is one line within the die, down to the narrowest phone
    # ("imebakizwa" and "үлдээсэн" broke in two over the pips)
    for width in (360, PHONE["width"]):
        await page.set_viewport_size({"width": width, "height": PHONE["height"]})
        label = page.locator("#die-1 .kept-label")
        await expect(label).to_have_text(words["game.kept"])
        fits = "(l) => l.scrollWidth <= l.clientWidth && l.clientWidth <= l.parentElement.clientWidth"
        assert await label.evaluate(fits), f"{lang} at {width} px: {words['game.kept']} does not fit the die"
    await page.screenshot(path=shots / f"{lang}-game-390x844.png", full_page=True)
    await play_screen_ok(page, lang)
    await glossary_clean(page, lang, "game screen")

    # the end: the winner line, the scorecards, the pad and (tables permitting) the analysis
    await play_out(live.http, code, {seat["playerId"]: seat["token"]}, rng)
    await expect(page.locator("#end")).to_be_visible(timeout=30_000)
    await expect(page.locator("#winner-line")).not_to_be_empty()
    await page.screenshot(path=shots / f"{lang}-end-390x844.png", full_page=True)
    await check_screen(page, lang)
    await glossary_clean(page, lang, "end screen")

    # the replay: its dice verified, a few moves in, then the last move
    await page.goto(f"{live.http}/r/{code}/games/1?lang={lang}")
    await expect(page.locator("#fair-check")).to_have_attribute("data-state", "verified", timeout=20_000)
    replay = page.locator("#replay")
    for _ in range(3):
        await page.click("#replay-next")
    await expect(replay).to_have_attribute("data-step", "3")
    await page.screenshot(path=shots / f"{lang}-replay-390x844.png", full_page=True)
    await check_screen(page, lang)
    await glossary_clean(page, lang, "replay screen")
    await page.click("#replay-last")
    await expect(replay).to_have_attribute("data-kind", "finished")
    await page.screenshot(path=shots / f"{lang}-replay-end-390x844.png", full_page=True)
    await check_screen(page, lang)
    await glossary_clean(page, lang, "replay screen")
    await context.close()
    assert console.errors == []
