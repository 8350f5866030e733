"""Play again and the series in Chromium (issues 13.6, 18.8), at two phone
sizes and a desktop one: play against the computer from the home screen in
one click; after a game "Play again" is on the first screen, without
scrolling, for every player (two browser contexts); the score pad shows
Game #1 and #2 and the series totals after a rematch, a line each. Positions are asserted
from bounding boxes; screenshots go to test-artifacts/screenshots/series-*.png.

The people's turns are played over the REST API with the seat tokens the
pages hold (the UI's turn is covered by test_playscreen.py); bots play
without delay (the test settings' bot_delay 0)."""

from __future__ import annotations

import asyncio
import json
import random
import re

import httpx
from playwright.async_api import FloatRect, Locator, Page, expect

from ..table import choose
from .test_client import Console, browser, create_room, join_room, live, open_page, shots  # noqa: F401  (fixtures)
from .test_playscreen import SIZES, on_screen, sizes


async def seat_of(page: Page, code: str) -> dict:
    """The seat (token, playerId) the page's tab holds."""
    return json.loads(await page.evaluate("(key) => sessionStorage.getItem(key)", f"dicecup.seat.{code}"))


async def play_out(base: str, code: str, tokens: dict[str, str], rng: random.Random) -> dict:
    """Play the room's current game to its end: the people's turns over REST, the bots' by themselves."""
    async with httpx.AsyncClient(base_url=base) as http, asyncio.timeout(120):
        while True:
            room = (await http.get(f"/api/rooms/{code}")).json()
            game = room["game"]
            if game["status"] == "finished":
                return room
            player = game["turn"]["player_id"]
            if player not in tokens:
                await asyncio.sleep(0.02)  # a bot's turn: it plays through the scheduler
                continue
            r = await http.post(
                f"/api/rooms/{code}/actions",
                json=choose(room, rng),
                headers={"authorization": f"Bearer {tokens[player]}"},
            )
            assert r.status_code in (200, 409), r.text  # 409: the room moved on (a bot) meanwhile


async def no_sideways_scroll(page: Page, size: dict[str, int]) -> None:
    assert await page.evaluate("document.documentElement.scrollWidth") <= size["width"]


async def play_again_on_first_screen(page: Page, size: dict[str, int]) -> None:
    """ "Play again" is on the screen as the end screen opens, the page not scrolled."""
    await expect(page.locator("#play-again")).to_be_visible()
    await page.evaluate("window.scrollTo(0, 0)")
    await on_screen(page, "#play-again", size)
    await on_screen(page, "#winner-line", size)
    await no_sideways_scroll(page, size)


async def settled_box(locator: Locator) -> FloatRect:
    """The element's box once it is laid out: ``bounding_box`` does not wait,
    and an event that arrives meanwhile (the bot accepting the next game)
    redraws the end screen, so for a moment there is no box."""
    for _ in range(100):
        box = await locator.bounding_box()
        if box is not None:
            return box
        await asyncio.sleep(0.05)
    raise AssertionError(f"{locator} has no box after 5 s")


PAD_HINT_AGREES = """() => {
  const pad = document.getElementById('pad-scroll'), hint = document.getElementById('pad-hint');
  return pad !== null && hint !== null && hint.hidden === !(pad.scrollWidth > pad.clientWidth + 1);
}"""


async def check_pad(page: Page, size: dict[str, int], room: dict) -> None:
    """The score pad: a line per game, a column per player, the series total (the sum over the
    games) last; two players fit a phone (and a desktop) without scrolling."""
    pad = page.locator("#score-pad")
    await expect(pad.locator("tbody tr[data-game]")).to_have_count(len(room["games"]))
    for g in room["games"]:
        await expect(pad.locator(f"tr[data-game='{g['number']}'] th")).to_contain_text(f"Game #{g['number']}")
    for line in room["series"]:
        total = sum(g["totals"].get(line["player_id"], 0) for g in room["games"])
        assert line["total"] == total
        await expect(pad.locator(f"tr.pad-total td[data-player='{line['player_id']}']")).to_have_text(str(total))
    # the pad stays inside its box (which may scroll sideways, and then says so); the page does not
    scroller = await settled_box(page.locator("#pad-scroll"))
    assert scroller["x"] >= 0 and scroller["x"] + scroller["width"] <= size["width"]
    await no_sideways_scroll(page, size)
    # the hint is shown exactly when the pad overflows: read together in the page, until they agree
    # (the hint is set after each draw, js/main.js markOverflow)
    await page.wait_for_function(PAD_HINT_AGREES, timeout=5000)
    # two players' columns, every game's line and its Review button are all in the box: nothing to swipe
    assert len(room["series"]) <= 4
    await expect(page.locator("#pad-hint")).to_be_hidden()
    for cell in await pad.locator("thead th, tbody td, .pad-game button").all():
        box = await settled_box(cell)
        assert scroller["x"] <= box["x"] and box["x"] + box["width"] <= scroller["x"] + scroller["width"] + 1


@sizes
async def test_play_against_the_computer_in_one_click(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    viewport = SIZES[size]
    page = await open_page(browser, console, viewport)
    await page.goto(live.http + "/")
    await page.fill("#create-name", "Nadia")
    levels = await page.locator("#vs-level option").evaluate_all("(o) => o.map((x) => x.value)")
    async with httpx.AsyncClient(base_url=live.http) as http:
        assert levels == (await http.get("/api/rulesets")).json()[0]["bot_levels"]  # the server's levels
    await page.select_option("#vs-ruleset", "yacht")
    await page.select_option("#vs-level", "greedy")
    await page.screenshot(path=shots / f"series-home-{size}.png", full_page=True)
    await page.click("#vs-computer-play")  # the one click
    game = page.locator("#game")
    await expect(game).to_be_visible()
    await expect(page.locator("#app")).to_have_attribute("data-status", "playing")
    code = re.findall(r"/r/([A-Z0-9]+)$", page.url)[0]
    await expect(page.locator("#game-players li")).to_have_count(2)
    await expect(page.locator("#game-players")).to_contain_text("Greedy bot")
    await expect(page.locator("#room-link")).to_have_count(0)  # nobody to invite
    seat = await seat_of(page, code)

    room = await play_out(live.http, code, {seat["playerId"]: seat["token"]}, random.Random(1))
    await expect(page.locator("#end")).to_be_visible()
    me = seat["playerId"]
    winners = room["game"]["winners"]
    expected = "You win!" if winners == [me] else "The computer wins" if me not in winners else "You share the win"
    await expect(page.locator("#winner-line")).to_contain_text(expected)
    await expect(page.locator("#winner-line")).not_to_contain_text("Nadia")
    await expect(page.locator("#rolloff")).to_have_count(0)
    await play_again_on_first_screen(page, viewport)
    await page.screenshot(path=shots / f"series-vs-computer-end-{size}.png")

    await page.click("#play-again")  # the bot has accepted: Game #2 starts at once
    await expect(page.locator("#app")).to_have_attribute("data-status", "playing")
    await expect(page.locator(".room-head")).to_contain_text("Game #2")
    room = await play_out(live.http, code, {me: seat["token"]}, random.Random(2))
    await expect(page.locator("#end-title")).to_contain_text("Game #2")
    await play_again_on_first_screen(page, viewport)
    await check_pad(page, viewport, room)
    await page.screenshot(path=shots / f"series-vs-computer-pad-{size}.png", full_page=True)
    assert console.errors == []


@sizes
async def test_play_again_is_offered_to_both_players_and_the_pad_adds_up(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    viewport = SIZES[size]
    ana = await open_page(browser, console, viewport)
    ben = await open_page(browser, console, viewport)  # another browser context: another person
    code = await create_room(ana, live.http, "Ana", "yacht", 2)
    await join_room(ben, live.http, code, "Ben")
    await ana.click("#start-game")
    await expect(ben.locator("#game")).to_be_visible()
    seats = [await seat_of(ana, code), await seat_of(ben, code)]
    tokens = {s["playerId"]: s["token"] for s in seats}

    room = await play_out(live.http, code, tokens, random.Random(3))
    for page in (ana, ben):
        await expect(page.locator("#end")).to_be_visible()
        await play_again_on_first_screen(page, viewport)
        await expect(page.locator("#room-link")).to_be_visible()  # a room of friends keeps its invite (below)
    await ana.screenshot(path=shots / f"series-end-host-{size}.png")
    await ben.screenshot(path=shots / f"series-end-guest-{size}.png")

    # Ben (not the host) proposes; Ana sees it and is the one waited for
    await ben.click("#play-again")
    await expect(ben.locator("#again")).to_contain_text("Waiting for Ana")
    await expect(ben.locator("#play-again")).to_have_count(0)
    await expect(ana.locator("#again")).to_contain_text("Ready to play again: Ben")
    await on_screen(ana, "#again", viewport)
    await expect(ana.locator("#start-now")).to_have_count(0)  # nobody else to wait for: Play again starts it
    await ben.screenshot(path=shots / f"series-waiting-{size}.png")
    await ana.click("#play-again")
    for page in (ana, ben):
        await expect(page.locator("#app")).to_have_attribute("data-status", "playing")
        await expect(page.locator(".room-head")).to_contain_text("Game #2")

    room = await play_out(live.http, code, tokens, random.Random(4))
    assert [g["number"] for g in room["games"]] == [1, 2]
    for page in (ana, ben):
        await expect(page.locator("#end-title")).to_contain_text("Game #2")
        await play_again_on_first_screen(page, viewport)
        await check_pad(page, viewport, room)
    await ana.locator("#score-pad").scroll_into_view_if_needed()
    await ana.screenshot(path=shots / f"series-pad-{size}.png", full_page=True)
    assert console.errors == []
