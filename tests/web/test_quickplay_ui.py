"""Quick play ("Play with anyone") as a newcomer meets it (issue 26, item 8), on a
phone (390x844, touch, a mobile browser, taps) and a desktop, in English and Arabic:
without a name the card asks for one where the player is (not the "New room" form's
field); a name the player gave before is used as it is; while the room waits for a
stranger it says so, with no invite link, bots or start button, and a way out.
Screenshots: test-artifacts/screenshots/quickplay-*.png."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.async_api import expect

from ..conftest import test_settings
from ..live import eventually, server_in_thread
from .test_client import Console, browser, open_device, shots, tap  # noqa: F401  (fixtures)
from .test_languages import catalog
from .test_phone_play import in_view, one_or_other


@pytest.fixture(scope="module")
def live(tmp_path_factory, strategy_tables):
    """A server of this module's own: quick play seats players in the public rooms waiting there."""
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('quickplay') / 'quickplay.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url)) as server:
        yield server


ROOM = re.compile(r"/r/([A-Z0-9]{6})$")


@pytest.mark.parametrize("device", ["phone", "desktop"])
@pytest.mark.parametrize("lang", ["en", "ar"])
async def test_quick_play_asks_a_name_in_place_and_waits_as_such(live, browser, shots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    ana = await open_device(browser, console, device, lang)
    await ana.goto(live.http + "/")
    await expect(ana.locator("#home-profile-name")).to_be_visible()  # the home screen drawn in full
    await tap(ana, "#quickplay")
    # nobody has named this player yet: the card itself asks, the page stays where it is
    field = ana.locator("#quickplay-name")
    await expect(field).to_be_visible()
    await expect(field).to_be_focused()
    await in_view(ana, "#quickplay-name", "#quickplay")
    await expect(ana.locator("#quickplay-why")).to_have_text(words["qp.name_why"])
    await expect(ana.locator("#create-name")).not_to_be_focused()
    assert ana.url == live.http + "/"
    await ana.screenshot(path=shots / f"quickplay-name-{device}-{lang}.png")
    await tap(ana, "#quickplay")  # still no name: still asking, nothing sent
    await expect(field).to_be_focused()
    assert ana.url == live.http + "/"
    await field.fill("Ana")
    await tap(ana, "#quickplay")
    await expect(ana).to_have_url(ROOM)
    code = ROOM.search(ana.url).group(1)  # type: ignore[union-attr]

    # waiting for a stranger: said so, and nothing of a private lobby
    seeking = ana.locator("#seeking")
    await expect(seeking).to_be_visible()
    await expect(seeking).to_have_attribute("role", "status")
    await expect(ana.locator("#seeking-title")).to_have_text(one_or_other(words, "qp.looking", 1))
    await expect(seeking).to_contain_text(words["qp.starts_itself"])
    for control in ("#copy-link", "#room-link", "#show-qr", "#add-bot", "#bot-level", "#start-game", "#leave-room"):
        await expect(ana.locator(control)).to_have_count(0)
    await expect(ana.locator("#stop-looking")).to_have_text(words["qp.stop"])
    await ana.screenshot(path=shots / f"quickplay-waiting-{device}-{lang}.png", full_page=True)

    # a player whose name this device knows goes straight in: the game starts on both screens
    ben = await open_device(browser, console, device, lang, **{"dicecup.name": "Ben"})
    await ben.goto(live.http + "/")
    await tap(ben, "#quickplay")
    await expect(ben).to_have_url(re.compile(f"/r/{code}$"))
    await expect(ben.locator("#quickplay-name")).to_have_count(0)
    for page in (ana, ben):
        await expect(page.locator("#game")).to_be_visible()
        await expect(page.locator("#seeking")).to_have_count(0)

    # the way out: stop looking, back home, the room closed behind
    cy = await open_device(browser, console, device, lang, **{"dicecup.name": "Cy"})
    await cy.goto(live.http + "/")
    await tap(cy, "#quickplay")
    await expect(cy.locator("#seeking")).to_be_visible()
    alone = ROOM.search(cy.url).group(1)  # type: ignore[union-attr]
    await tap(cy, "#stop-looking")
    await expect(cy.locator("#quickplay")).to_be_visible()
    assert cy.url == live.http + "/"
    async with httpx.AsyncClient(base_url=live.http) as http:

        async def closed() -> bool:
            room = await http.get(f"/api/rooms/{alone}")
            return room.status_code == 404 or room.json()["status"] == "closed"

        await eventually(closed)
    assert console.errors == []
