"""An absent player in an untimed room, in Chromium (issue 26, item 4), at
390x844 and 1280x800, in English and Arabic: Ben closes his page on his
turn; Ana sees a countdown once he is gone, ticking, then Ben away (the
autopilot plays his turn) and, as the host, the button that removes him."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page, expect

from ..conftest import test_settings
from ..live import server_in_thread
from .test_client import Console, browser, create_room  # noqa: F401 (fixtures)
from .test_series import seat_of

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
CATALOGS = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"
ISOLATE = {"ar": ("\u2068", "\u2069")}


def pattern(lang: str, key: str, **params: str) -> re.Pattern[str]:
    """A catalog message as the client writes it, each parameter a regular expression."""
    text = re.escape(str(json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))[key]))
    first, last = ISOLATE.get(lang, ("", ""))
    for name, value in params.items():
        text = text.replace(re.escape("{" + name + "}"), f"{first}{value}{last}")
    return re.compile(f"^{text}$")


@pytest.fixture(scope="module")
def live(tmp_path_factory, strategy_tables):
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('absence') / 'web.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url, absent_seconds=6, scheduler_poll=0.1)) as server:
        yield server


async def page_in(browser, console: Console, viewport: dict, lang: str) -> Page:  # noqa: F811
    context = await browser.new_context(viewport=viewport)
    await context.add_init_script(f"localStorage.setItem('dicecup.lang', {json.dumps(lang)})")
    return console.watch(await context.new_page())


@pytest.mark.parametrize(("viewport", "lang"), [(PHONE, "en"), (DESKTOP, "ar")], ids=["phone-en", "desktop-ar"])
async def test_the_others_see_a_countdown_then_the_seat_away(live, browser, viewport, lang) -> None:  # noqa: F811
    console = Console()
    ana_page = await page_in(browser, console, viewport, lang)
    ben_page = await page_in(browser, console, viewport, lang)
    code = await create_room(ana_page, live.http, "Ana", "yacht", 2)
    await ben_page.goto(f"{live.http}/r/{code}")
    await ben_page.fill("#join-name", "Ben")
    await ben_page.click("#join-submit")
    await expect(ben_page.locator("#leave-room")).to_be_visible()
    ana, ben = await seat_of(ana_page, code), await seat_of(ben_page, code)
    await ana_page.click("#start-game")
    await expect(ana_page.locator("#game")).to_be_visible()  # the click's request has been answered
    async with httpx.AsyncClient(base_url=live.http) as http:
        # Ana's turns over REST until it is Ben's (the pages stay open)
        while (room := (await http.get(f"/api/rooms/{code}")).json())["game"]["turn"]["player_id"] != ben["playerId"]:
            turn = room["game"]["turn"]
            action = {"type": "score", "box": next(iter(turn["scorable"]))} if turn["dice"] else {"type": "roll"}
            r = await http.post(
                f"/api/rooms/{code}/actions", json=action, headers={"authorization": f"Bearer {ana['token']}"}
            )
            assert r.status_code == 200, r.text
    await expect(ben_page.locator('#game[data-my-turn="true"]')).to_have_count(1)
    await expect(ana_page.locator("#absent-clock")).to_have_count(0)
    await ben_page.context.close()  # Ben walks away on his turn

    clock = ana_page.locator("#absent-clock")
    await expect(clock).to_have_text(pattern(lang, "lc.absent_countdown", name="Ben", time=r"0:0\d"))
    await expect(clock).to_be_in_viewport()
    first = await clock.text_content()
    await expect(clock).not_to_have_text(first or "")  # it ticks
    log = ana_page.locator(".log li").filter(has_text=re.compile(pattern(lang, "lc.log_absent", name="Ben").pattern))
    await expect(log).to_have_count(1)
    # the deadline passes: Ben is away, the autopilot plays his turn, and Ana (the host) may remove him
    row = ana_page.locator(f'#game-players li[data-player="{ben["playerId"]}"]')
    await expect(row.locator(".tag.away")).to_have_count(1, timeout=20_000)
    await expect(clock).to_have_count(0)
    await expect(ana_page.locator(f"#remove-{ben['playerId']}")).to_be_visible()
    assert not console.errors, console.errors
