"""The smaller things a newcomer met (issue 26, item 9), on a phone (390x844, touch,
a mobile browser, taps) and a desktop (1280x800), in English and Arabic (the boards
in every language): leaderboard words kept whole and look-alike names told apart;
the stats page saying a rating is one; sign-in leaving /signin behind; the computer
met at one level everywhere, with no notifications or chat against it; a keep per
die tap not filling the log; addresses the app does not have answered with a page
that says so (the API keeps its JSON); the host told that an invite link at
127.0.0.1 only opens on this computer. (The score pad's order: test_phone_play.)
Screenshots: test-artifacts/screenshots/polish-*.png."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from ..conftest import test_settings
from ..live import server_in_thread
from ..profiles.test_profiles import auth
from ..table import Table, play
from .test_client import Console, browser, live, open_device, shots, tap  # noqa: F401  (fixtures)
from .test_languages import LANGS, catalog
from .test_phone_play import message, seat_of, vs_computer
from .test_profiles_ui import solo_game_by_api

devices = pytest.mark.parametrize("device", ["phone", "desktop"])
langs = pytest.mark.parametrize("lang", ["en", "ar"])


def plural_message(words: dict[str, Any], key: str, count: int, **names: str) -> str:
    """A plural message as the client picks it (CLDR: Arabic's 3-10 are "few")."""
    wanted = {1: "one", 2: "two"}.get(count, "few" if 3 <= count <= 10 else "other")
    form = wanted if f"{key}.{wanted}" in words else "other"
    return message(words, f"{key}.{form}", **names).replace("{count}", str(count))


# ---------------------------------------------------------------- boards and stats

BROKEN_WORDS = """(selector) => {
  // words as the language has them (Burmese writes none apart: its dictionary's words)
  const words = new Intl.Segmenter(document.documentElement.lang, { granularity: 'word' });
  const broken = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of words.segment(node.data)) {
        if (!word.isWordLike) continue;
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word.segment.length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
        if (lines.size > 1) broken.push(word.segment);
      }
    }
  }
  return broken;
}"""


@pytest.fixture(scope="module")
async def boards(live) -> dict[str, Any]:  # noqa: F811
    """Yahtzee boards with three players who never typed a name (a solo game each), and a rated
    game between two named profiles."""
    async with httpx.AsyncClient(base_url=live.http) as http:
        nameless = [(await http.post("/api/profiles", json={"name": "Player"})).json() for _ in range(3)]
        ana, ben = [(await http.post("/api/profiles", json={"name": name})).json() for name in ("Ana", "Ben")]
        for i, made in enumerate(nameless):
            await solo_game_by_api(live.http, made["token"], ruleset="yahtzee", seed=40 + i, rerolls=0)
        table = Table(http)
        created = await http.post(
            "/api/rooms", json={"ruleset": "yahtzee", "name": "Ana", "max_players": 2}, headers=auth(ana["token"])
        )
        table.code, table.host = created.json()["room"]["code"], created.json()["player"]["id"]
        table.tokens[table.host] = created.json()["token"]
        joined = await http.post(f"/api/rooms/{table.code}/players", json={"name": "Ben"}, headers=auth(ben["token"]))
        table.tokens[joined.json()["player"]["id"]] = joined.json()["token"]
        await table.start()
        await play(table, random.Random(9))
    return {"nameless": [p["profile"]["id"] for p in nameless], "ana": ana["profile"]["id"]}


@pytest.mark.parametrize("device", ["phone", "desktop"])
@pytest.mark.parametrize("lang", LANGS)
async def test_boards_words_names_and_the_rating(live, boards, browser, shots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    await page.goto(f"{live.http}/leaderboards?ruleset=yahtzee")
    rows = page.locator("#board-table tbody tr")
    await expect(rows).to_have_count(5)
    assert await page.evaluate(BROKEN_WORDS, "#board-table th, #board-table td:not(.name)") == []
    # the three "Player"s, each with a tag of its own; a name said once needs none
    tags = {}
    for profile in boards["nameless"]:
        row = page.locator(f'#board-table tr[data-profile="{profile}"]')
        tags[profile] = await row.locator(".profile-tag").inner_text()
    assert len(set(tags.values())) == 3, tags
    await expect(page.locator(f'#board-table tr[data-profile="{boards["ana"]}"] .profile-tag')).to_have_count(0)
    await page.screenshot(path=shots / f"polish-board-{device}-{lang}.png", full_page=True)
    await page.select_option("#board-kind", "rating")
    await expect(rows).to_have_count(2)
    await page.screenshot(path=shots / f"polish-ratings-{device}-{lang}.png", full_page=True)
    assert await page.evaluate(BROKEN_WORDS, "#board-table th, #board-table td:not(.name)") == []
    # a profile's rating is called one
    await page.goto(f"{live.http}/stats/{boards['ana']}")
    rating = page.locator('.ratings li[data-ruleset="yahtzee"]')
    template = message(words, "pf.rating_of", ruleset=words["ruleset.yahtzee"])
    number = "[\u2068\u2069]*\\d+(\\.\\d)?[\u2068\u2069]*"  # a right-to-left catalog isolates each
    pattern = re.escape(template).replace(re.escape("{rating}"), f"{number} ± {number}")
    await expect(rating).to_have_text(re.compile(f"^{pattern}$"))
    assert console.errors == []


# ---------------------------------------------------------------- sign-in


@devices
@langs
async def test_signing_in_leaves_the_sign_in_page_behind(live, browser, device, lang) -> None:  # noqa: F811
    username = f"polish_{device}_{lang}"
    async with httpx.AsyncClient(base_url=live.http) as http:
        made = (await http.post("/api/profiles", json={"name": "Noor"})).json()
        body = {"username": username, "password": "correct horse"}
        assert (
            await http.post("/api/profiles/me/credentials", json=body, headers=auth(made["token"]))
        ).status_code == 200
    console = Console()
    page = await open_device(browser, console, device, lang)
    await page.goto(f"{live.http}/")
    await tap(page, "#link-signin")
    await expect(page).to_have_url(f"{live.http}/signin")
    await page.fill("#signin-username", username)
    await page.fill("#signin-password", "correct horse")
    await tap(page, "#signin-submit")
    await expect(page.locator("#rename-name")).to_have_value("Noor")
    await expect(page).to_have_url(f"{live.http}/profile")
    await page.go_back()  # back to where the player was, not to the filled-in form
    await expect(page).to_have_url(f"{live.http}/")
    await expect(page.locator("#vs-computer-play")).to_be_visible()
    assert console.errors == []


# ---------------------------------------------------------------- against the computer


@devices
@langs
async def test_the_computer_is_met_at_one_level_and_without_chat_or_notifications(live, browser, device, lang) -> None:  # noqa: F811
    console = Console()
    page = await open_device(browser, console, device, lang)
    await page.goto(f"{live.http}/")
    await expect(page.locator("#vs-level")).to_have_value("casual")
    await vs_computer(page, live.http)
    await expect(page.locator("#game")).to_be_visible()
    await expect(page.locator("#rules-link")).to_be_visible()  # the room's card is drawn
    await expect(page.locator("#notify-toggle")).to_have_count(0)
    await expect(page.locator("#chat")).to_have_count(0)
    # a room of people: "Add a bot" offers the same level first; chat and notifications are there
    await page.goto(f"{live.http}/")
    await page.fill("#create-name", "Ana")
    await tap(page, "#create-submit")
    await expect(page.locator("#bot-level")).to_have_value("casual")
    await expect(page.locator("#notify-toggle")).to_have_count(1)
    await expect(page.locator("#chat")).to_have_count(1)
    assert console.errors == []


@devices
@langs
async def test_keeps_tapped_one_by_one_are_one_line_of_the_log(live, browser, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    code = await vs_computer(page, live.http)  # bots without delay here: the turn comes at once
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20_000)
    await tap(page, "#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    for i in range(3):
        await tap(page, f"#die-{i}")
        await expect(game).to_have_attribute("data-kept", ",".join(map(str, range(i + 1))))
    name = (await seat_of(page, code))["name"]
    lines = page.locator(".log li")
    for reload in (False, True):
        if reload:
            await page.reload()
            await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
        await expect(lines.first).to_have_text(plural_message(words, "log.kept", 3, name=name))
        texts = await lines.all_inner_texts()
        for count in (1, 2):
            assert plural_message(words, "log.kept", count, name=name) not in texts, texts
        assert sum(t == plural_message(words, "log.kept", 3, name=name) for t in texts) == 1, texts
    assert console.errors == []


# ---------------------------------------------------------------- addresses the app does not have


@devices
@langs
async def test_an_unknown_address_shows_a_page_that_says_so(live, browser, shots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    for path in ("/no/such/page", "/rules/poker"):
        response = await page.goto(f"{live.http}{path}")
        assert response is not None and response.status == 404
        assert response.headers["content-type"].startswith("text/html")
        await expect(page.locator("#not-found-title")).to_have_text(words["nf.title"])
        await expect(page.locator("#not-found")).to_contain_text(words["nf.text"])
        await expect(page).to_have_title(re.compile(f"^{re.escape(words['nf.title'])}"))
        await expect(page.locator("#create-name")).to_have_count(0)  # not the home page
    await page.screenshot(path=shots / f"polish-not-found-{device}-{lang}.png")
    await tap(page, "#not-found-home")
    await expect(page.locator("#vs-computer-play")).to_be_visible()
    response = await page.goto(f"{live.http}/rules/yacht")
    assert response is not None and response.status == 200
    await expect(page.locator("#howto")).to_be_visible()
    # the 404s are the only errors the browser logs
    assert [e for e in console.errors if "status of 404" not in e] == []


async def test_a_browser_gets_the_page_and_a_program_the_json(live) -> None:  # noqa: F811
    page = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    async with httpx.AsyncClient(base_url=live.http) as http:
        for path in ("/nope", "/r/ABCDEF/nope", "/rules/poker", "/static/nope.html"):
            r = await http.get(path, headers=page)
            assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path
            assert '<base href="/">' in r.text
        for path, headers in (("/nope", {}), ("/nope", {"accept": "application/json"}), ("/api/nope", page)):
            r = await http.get(path, headers=headers)
            assert r.status_code == 404 and r.json() == {"detail": "Not Found", "code": "not_found"}, (path, headers)
        r = await http.post("/nope", headers=page)  # not a page a browser opens: the API's answer
        assert r.status_code in (404, 405) and r.headers["content-type"] == "application/json"
        assert (await http.get("/rules/yatzy", headers=page)).status_code == 200


# ---------------------------------------------------------------- an invite link only this computer opens


@pytest.fixture(scope="module")
def public(tmp_path_factory, strategy_tables):
    """A server that knows the address friends open (DICECUP_PUBLIC_URL)."""
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('public') / 'public.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url, public_url="https://dice.example.org/")) as server:
        yield server


async def create_two_seats(page: Page, base: str) -> str:
    await page.goto(f"{base}/")
    await page.fill("#create-name", "Ana")
    await tap(page, "#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    return page.url.rsplit("/", 1)[1]


@devices
@langs
async def test_the_host_is_told_a_local_invite_link_only_opens_here(live, public, browser, shots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    code = await create_two_seats(page, live.http)
    await expect(page.locator("#room-link")).to_have_text(f"{live.http}/r/{code}")
    await expect(page.locator("#local-link")).to_have_text(words["room.local_link"])
    await page.screenshot(path=shots / f"polish-local-link-{device}-{lang}.png")
    guest = await open_device(browser, console, device, lang, **{"dicecup.name": "Ben"})
    await guest.goto(f"{live.http}/r/{code}")
    await tap(guest, "#join-submit")
    await expect(guest.locator("#room-link")).to_be_visible()
    await expect(guest.locator("#local-link")).to_have_count(0)  # the host's to act on
    # a server that knows its public address: the link is that one, no hint
    code = await create_two_seats(page, public.http)
    await expect(page.locator("#room-link")).to_have_text(f"https://dice.example.org/r/{code}")
    await expect(page.locator("#local-link")).to_have_count(0)
    assert console.errors == []
