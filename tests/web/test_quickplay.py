"""Quick play in Chromium reaches the player's profile (issue 26, item 1): the
web client sends the device's profile token on "Play with anyone", so the
seat is the profile's, the typed name becomes the profile's, and the
finished game shows in /history and /stats. At phone and desktop size, in
English and Arabic."""

from __future__ import annotations

import asyncio
import json
import random
import re

import httpx
import pytest
from playwright.async_api import Page, expect

from ..conftest import test_settings
from ..live import server_in_thread
from .test_client import Console, browser, play_turn  # noqa: F401 (fixtures)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def live(tmp_path, strategy_tables):
    """A server of the test's own: its quick play meets only this test's players."""
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path / 'quickplay.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url)) as server:
        yield server


async def device_profile(page: Page) -> dict:
    stored = await page.evaluate("localStorage.getItem('dicecup.profile')")
    assert stored, "the page made no profile"
    return dict(json.loads(stored))


async def play_the_stranger(http: httpx.AsyncClient, code: str, token: str, me: str, page: Page) -> None:
    """The other player (over the API): scores the first box offered whenever it is its turn,
    while the page plays its own turns; returns when the game is over."""
    rng = random.Random(26)
    async with asyncio.timeout(180):
        while True:
            room = (await http.get(f"/api/rooms/{code}")).json()
            turn = room["game"]["turn"]
            if turn is None:
                return
            if turn["player_id"] == me:
                action = {"type": "score", "box": next(iter(turn["scorable"]))} if turn["dice"] else {"type": "roll"}
                r = await http.post(
                    f"/api/rooms/{code}/actions",
                    json={**action, "expected_version": room["version"]},
                    headers={"authorization": f"Bearer {token}"},
                )
                assert r.status_code in (200, 409), r.text
            elif await page.locator('#game[data-my-turn="true"]').count():
                await play_turn(page, rng)
                await expect(page.locator('#game[data-my-turn="true"]')).to_have_count(0)
            else:
                await asyncio.sleep(0.05)


@pytest.mark.parametrize(("viewport", "lang"), [(PHONE, "en"), (DESKTOP, "ar")], ids=["phone-en", "desktop-ar"])
async def test_a_quick_play_game_shows_in_the_profiles_history_and_stats(live, browser, viewport, lang) -> None:  # noqa: F811
    console = Console()
    context = await browser.new_context(viewport=viewport)
    await context.add_init_script(f"localStorage.setItem('dicecup.lang', '{lang}')")
    page = console.watch(await context.new_page())
    await page.goto(f"{live.http}/")
    await page.fill("#create-name", "Quinn")
    await page.select_option("#create-ruleset", "yacht")
    await page.click("#quickplay")
    await expect(page).to_have_url(re.compile(r"/r/[A-Z0-9]{6}$"))
    await expect(page.locator("#room-title")).to_be_visible()
    code = page.url.rsplit("/", 1)[1]
    profile = await device_profile(page)

    async with httpx.AsyncClient(base_url=live.http) as http:
        # the seat is the profile's (its open seats list it) before the game starts
        profile_auth = {"authorization": f"Bearer {profile['token']}"}
        mine = (await http.get("/api/profiles/me/games", headers=profile_auth)).json()
        assert [s["room_code"] for s in mine["open"]] == [code]
        # a stranger plays with anyone too: the room fills and the game starts by itself
        r = await http.post("/api/quickplay", json={"ruleset": "yacht", "name": "Stranger"})
        assert r.status_code == 201 and r.json()["room"]["code"] == code, r.text
        await expect(page.locator("#game")).to_be_visible()
        await play_the_stranger(http, code, r.json()["token"], r.json()["player"]["id"], page)
        room = (await http.get(f"/api/rooms/{code}")).json()
        me = mine["open"][0]["player_id"]
        score = room["game"]["scorecards"][me]["total"]
        # the profile took the name typed for quick play
        named = (await http.get(f"/api/profiles/{profile['id']}")).json()
        assert named["name"] == "Quinn"
    await expect(page.locator("#final")).to_be_visible()

    await page.goto(f"{live.http}/history")
    row = page.locator(f'#finished-games tr[data-room="{code}"]')
    await expect(row).to_have_count(1)
    await expect(row.locator("td").nth(2)).to_have_text(str(score))
    await page.goto(f"{live.http}/stats")
    card = page.locator("#stats-yacht")
    await expect(card.locator('[data-stat="games"] dd')).to_have_text("1")
    await expect(page.locator("#stats-title")).to_contain_text("Quinn")
    assert await page.evaluate("document.documentElement.lang") == lang
    assert not console.errors, console.errors
    await context.close()
