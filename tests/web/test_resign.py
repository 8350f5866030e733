"""Resigning in Chromium (issue 26, item 3), at 390x844 and 1280x800, in
English and Arabic:

- the player who resigns is out at once: no "Your turn", no Roll, no boxes,
  a line saying the autopilot finishes their card; the others are told (a
  notice on screen, not only in the log) and the chances give the seat 0;
- when the last other person resigns the game ends at once: the end screen
  names the one still playing as the winner, lists who resigned after them
  (however many points they had) and marks them, and so does the score pad.

Moves other than the resignation go over REST with the seat tokens the pages
hold; what is checked is what the pages show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from ..conftest import test_settings
from ..live import server_in_thread
from .test_client import Console, browser  # noqa: F401 (fixtures)
from .test_series import seat_of

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
CATALOGS = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"


def say(lang: str, key: str, **params: str) -> str:
    """A catalog message as the client writes it (names isolated in a right-to-left language)."""
    catalog = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    text = str(catalog[key])
    for name, value in params.items():
        text = text.replace("{" + name + "}", f"\u2068{value}\u2069" if lang == "ar" else value)
    return text


@pytest.fixture(scope="module")
def live(tmp_path_factory, strategy_tables):
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('resign') / 'web.db'}"
    upgrade(url)
    # the autopilot thinks for a while (a bot's delay of 2 s): the screen must not wait for it to move
    with server_in_thread(test_settings(url, bot_delay=2.0)) as server:
        yield server


async def page_in(browser, console: Console, viewport: dict, lang: str) -> Page:  # noqa: F811
    context = await browser.new_context(viewport=viewport)
    await context.add_init_script(f"localStorage.setItem('dicecup.lang', {json.dumps(lang)})")
    return console.watch(await context.new_page())


async def act(http: httpx.AsyncClient, code: str, token: str, action: dict[str, Any]) -> dict:
    r = await http.post(f"/api/rooms/{code}/actions", json=action, headers={"authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    return dict(r.json()["room"])


async def room_of(http: httpx.AsyncClient, code: str) -> dict:
    return dict((await http.get(f"/api/rooms/{code}")).json())


@pytest.mark.parametrize(("viewport", "lang"), [(PHONE, "en"), (DESKTOP, "ar")], ids=["phone-en", "desktop-ar"])
async def test_the_resigner_is_out_at_once_and_the_others_are_told(live, browser, viewport, lang) -> None:  # noqa: F811
    console = Console()
    async with httpx.AsyncClient(base_url=live.http) as http:
        r = await http.post("/api/rooms", json={"ruleset": "yacht", "name": "Cy", "max_players": 3})
        code, cy, cy_token = r.json()["room"]["code"], r.json()["player"]["id"], r.json()["token"]
        ana_page = await page_in(browser, console, viewport, lang)
        ben_page = await page_in(browser, console, viewport, lang)
        for page, name in ((ana_page, "Ana"), (ben_page, "Ben")):
            await page.goto(f"{live.http}/r/{code}")
            await page.fill("#join-name", name)
            await page.click("#join-submit")
            await expect(page.locator(f'#lobby .players li:has-text("{name}")')).to_have_count(1)
        ana = (await seat_of(ana_page, code))["playerId"]
        tokens = {cy: cy_token, (await seat_of(ben_page, code))["playerId"]: (await seat_of(ben_page, code))["token"]}
        assert (
            await http.post(f"/api/rooms/{code}/games", headers={"authorization": f"Bearer {cy_token}"})
        ).status_code == 201
        # the others play until it is Ana's turn: she resigns on her turn, the hard case
        while (room := await room_of(http, code))["game"]["turn"]["player_id"] != ana:
            turn = room["game"]["turn"]
            action = {"type": "score", "box": next(iter(turn["scorable"]))} if turn["dice"] else {"type": "roll"}
            await act(http, code, tokens[turn["player_id"]], action)
        await expect(ana_page.locator('#game[data-my-turn="true"]')).to_have_count(1)
        await ana_page.click("#resign")
        await ana_page.click("#confirm-yes")
        ana_row = ana_page.locator(f'#game-players li[data-player="{ana}"] .tag.resigned')
        await expect(ana_row).to_have_count(1)
        # at once, before the autopilot has moved: no turn to take, nothing to press
        assert await ana_page.locator("#roll").count() == 0
        assert await ana_page.locator(".score-option").count() == 0
        assert await ana_page.locator('#game[data-my-turn="true"]').count() == 0
        assert await ana_page.locator("#dice button:not([disabled])").count() == 0
        # Ben is told where he looks (a notice on screen for a few seconds), and the chances no longer credit Ana
        toast = ben_page.locator("#toast")
        await expect(toast).to_have_text(say(lang, "lc.resigned_notice", name="Ana"))
        await expect(toast).to_be_in_viewport()
        banner = ana_page.locator("#turn-banner")
        await expect(banner).not_to_contain_text(say(lang, "game.your_turn"))
        await expect(ana_page.locator("#resigned-note")).to_have_text(say(lang, "lc.you_resigned"))
        await expect(ana_page.locator("#resigned-note")).to_be_in_viewport()
        await expect(ben_page.locator(f'#chances .segment[data-player="{ana}"]')).to_have_attribute("data-chance", "0")
        # the autopilot then plays her turn (her own events), and she still has nothing to do
        await expect(banner).not_to_contain_text(say(lang, "lc.autopilot_you"), timeout=20_000)
        assert await ana_page.locator("#roll").count() == 0
    assert not console.errors, console.errors


@pytest.mark.parametrize(("viewport", "lang"), [(PHONE, "ar"), (DESKTOP, "en")], ids=["phone-ar", "desktop-en"])
async def test_the_last_other_person_resigning_ends_the_game_at_once(live, browser, viewport, lang) -> None:  # noqa: F811
    """Ana scores well in round 1, Ben scores 0, then Ana resigns: Ben wins at once
    and Ana, with more points, is listed after him, marked resigned."""
    console = Console()
    ana_page = await page_in(browser, console, viewport, lang)
    ben_page = await page_in(browser, console, viewport, lang)
    async with httpx.AsyncClient(base_url=live.http) as http:
        r = await http.post("/api/rooms", json={"ruleset": "yacht", "name": "Host", "max_players": 3})
        code, host_token = r.json()["room"]["code"], r.json()["token"]
        for page, name in ((ana_page, "Ana"), (ben_page, "Ben")):
            await page.goto(f"{live.http}/r/{code}")
            await page.fill("#join-name", name)
            await page.click("#join-submit")
            await expect(page.locator(f'#lobby .players li:has-text("{name}")')).to_have_count(1)
            await expect(page.locator("#leave-room")).to_be_visible()
        # the host leaves before the game: two people play
        await http.delete(
            f"/api/rooms/{code}/players/{r.json()['player']['id']}", headers={"authorization": f"Bearer {host_token}"}
        )
        ana_seat, ben_seat = await seat_of(ana_page, code), await seat_of(ben_page, code)
        ana, ben = ana_seat["playerId"], ben_seat["playerId"]
        room = await room_of(http, code)
        host = ana_seat if room["host_id"] == ana else ben_seat
        assert (
            await http.post(f"/api/rooms/{code}/games", headers={"authorization": f"Bearer {host['token']}"})
        ).status_code == 201
        tokens = {ana: ana_seat["token"], ben: ben_seat["token"]}
        for _ in range(2):  # round 1: Ana her best box, Ben a zero
            room = await room_of(http, code)
            player = room["game"]["turn"]["player_id"]
            room = await act(http, code, tokens[player], {"type": "roll"})
            scorable = room["game"]["turn"]["scorable"]
            box = max(scorable, key=scorable.get) if player == ana else min(scorable, key=scorable.get)
            await act(http, code, tokens[player], {"type": "score", "box": box})
        room = await room_of(http, code)
        totals = {p: c["total"] for p, c in room["game"]["scorecards"].items()}
        assert totals[ana] > totals[ben]
        await expect(ana_page.locator("#resign")).to_be_visible()
        await ana_page.click("#resign")
        await ana_page.click("#confirm-yes")
        for page, me in ((ben_page, ben), (ana_page, ana)):
            standings = page.locator("#final li")
            await expect(standings).to_have_count(2)
            assert [await li.get_attribute("data-player") for li in await standings.all()] == [ben, ana]
            await expect(standings.nth(0)).to_have_class("winner")
            await expect(standings.nth(1)).to_have_attribute("data-resigned", "true")
            await expect(standings.nth(1).locator(".tag.resigned")).to_have_text(say(lang, "lc.resigned"))
            line = say(lang, "end.won_resigned_you") if me == ben else say(lang, "end.won_resigned", names="Ben")
            await expect(page.locator("#winner-line")).to_have_text(line)
            await expect(page.locator("#winner-line")).to_be_in_viewport()
            pad = page.locator('#score-pad tr[data-game="1"]')
            await expect(pad).to_have_attribute("data-ended", "resigned")
            await expect(pad.locator(f'td[data-player="{ana}"]')).to_have_attribute("data-resigned", "true")
        await expect(ben_page.locator("#toast")).to_have_text(say(lang, "lc.resigned_ended", name="Ana"))
    assert not console.errors, console.errors
