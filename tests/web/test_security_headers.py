"""The client under its security headers (app/web/headers.py, issue 27.6):
every page and the service worker carry the content security policy, and
the client works under it in Chromium with no violation reported (a game
against the computer, the invite QR code, chances, stats, boards, a replay,
the profile pages); another origin cannot frame it; and a browser that
denies the site storage gets a message, in the page's language, not a blank
page."""

import json
import random

import httpx
import pytest
from playwright.async_api import Page, async_playwright, expect

from app.web.headers import POLICY

from .test_client import CHROMIUM, FLAGS, Console, browser, live, open_page, play_turn, shots  # noqa: F401
from .test_profiles_ui import solo_game_by_api

# Every violation, as the page sees it (a console message may be worded differently).
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


async def violations(page: Page) -> list[str]:
    return list(await page.evaluate("() => window.__violations || []"))


@pytest.mark.parametrize("path", ["/", "/r/ABCDEF", "/rules/yacht", "/profile", "/signin", "/leaderboards", "/sw.js"])
async def test_pages_and_the_worker_carry_the_headers(live, path: str) -> None:  # noqa: F811
    async with httpx.AsyncClient(base_url=live.http) as http:
        r = await http.get(path)
        assert r.status_code == 200
        assert r.headers["content-security-policy"] == POLICY
        assert "frame-ancestors 'none'" in POLICY
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        api = await http.get("/api/rulesets")
        assert api.headers["x-content-type-options"] == "nosniff"
        assert api.headers["referrer-policy"] == "no-referrer"


async def test_the_client_works_under_its_policy(live, browser, shots) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    await page.context.add_init_script(RECORD_VIOLATIONS)
    await page.goto(f"{live.http}/")
    await page.fill("#create-name", "Ana")
    await page.click("#vs-computer-play")
    await expect(page.locator("#game")).to_be_visible()
    rng = random.Random(27)
    for _ in range(2):  # the player's turns (the bot plays its own)
        await expect(page.locator('#game[data-my-turn="true"]')).to_be_visible()
        await play_turn(page, rng)
    await page.screenshot(path=shots / "csp-game.png")
    checked = [page.url]
    # the invite's QR code, in a room of two
    await page.goto(f"{live.http}/")
    await page.fill("#create-name", "Ana")
    await page.select_option("#create-seats", "2")
    await page.click("#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    await page.click("#show-qr")
    await expect(page.locator("#invite-qr svg")).to_be_visible()
    checked.append(page.url)
    code = await solo_game_by_api(live.http, None, "yacht", seed=3)
    for path in (f"/r/{code}/games/1", "/stats", "/leaderboards", "/profile", "/signin", "/history", "/rules/yahtzee"):
        await page.goto(live.http + path)
        await page.wait_for_load_state("networkidle")
        checked.append(path)
    await page.screenshot(path=shots / "csp-last-page.png")
    assert await violations(page) == []
    assert [e for e in console.errors if "Content Security Policy" in e or "Refused" in e] == [], checked
    assert console.errors == []


async def test_another_origin_cannot_frame_a_room(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    # a page of another origin framing the room's link
    html = f'<!doctype html><iframe id="f" src="{live.http}/r/ABCDEF"></iframe>'
    await page.route("http://framer.test/", lambda route: route.fulfill(body=html, content_type="text/html"))
    await page.goto("http://framer.test/")
    frame_element = await page.wait_for_selector("#f")
    frame = await frame_element.content_frame()
    assert frame is not None
    for _ in range(200):  # the frame's navigation ends: refused (an error page), or the room
        if frame.url != "about:blank" and (
            frame.url.startswith("chrome-error:") or await frame.locator("#app").count()
        ):
            break
        await page.wait_for_timeout(50)
    assert frame.url.startswith("chrome-error:"), frame.url
    assert await frame.locator("#app").count() == 0


async def test_storage_denied_gets_a_message_not_a_blank_page(live, tmp_path) -> None:  # noqa: F811
    """Chromium with site data blocked (as "Block third-party cookies and site
    data" or a strict privacy setting does): localStorage throws. The page
    said nothing; now it says what to do, in the browser's language."""
    profile = tmp_path / "chromium"
    (profile / "Default").mkdir(parents=True)
    prefs = {"profile": {"default_content_setting_values": {"cookies": 2}}}
    (profile / "Default" / "Preferences").write_text(json.dumps(prefs))
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, args=FLAGS, locale="sw-KE"
        )
        try:
            page = context.pages[0] if context.pages else await context.new_page()
            await page.goto(f"{live.http}/")
            denied = await page.evaluate("() => { try { localStorage.length; return false } catch { return true } }")
            if not denied:
                pytest.skip("this Chromium does not deny storage from its preferences")
            message = page.locator("#storage-denied")
            await expect(message).to_be_visible()
            catalog = json.loads(live_catalog("sw"))
            await expect(message.locator("h1")).to_have_text(catalog["storage.denied_title"])
            await expect(message.locator("p")).to_have_text(catalog["storage.denied"])
        finally:
            await context.close()


def live_catalog(lang: str) -> str:
    from app.web import STATIC

    return (STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8")


async def test_names_are_isolated_from_the_text_around_them(live, browser) -> None:  # noqa: F811
    """A name's letters cannot reorder what is around it (issue 27.5): an
    Arabic name in an English sentence is wrapped in FSI...PDI, the players'
    list isolates each name, and a leaderboard row puts its name in <bdi>."""
    console = Console()
    page = await open_page(browser, console)
    async with httpx.AsyncClient(base_url=live.http) as http:
        made = await http.post(
            "/api/rooms", json={"ruleset": "yacht", "name": "\u0646\u0627\u0635\u0631 7", "max_players": 2}
        )
        code = made.json()["room"]["code"]
        assert (await http.post(f"/api/rooms/{code}/players", json={"name": "Ben"})).status_code == 201
    await page.goto(f"{live.http}/r/{code}")
    name = page.locator("#lobby .players .name").first
    await expect(name).to_have_text("\u0646\u0627\u0635\u0631 7")
    assert await name.evaluate("(el) => getComputedStyle(el).unicodeBidi") == "isolate"
    text = await page.evaluate(
        """async () => {
            const { t } = await import('./static/js/i18n.js');
            return [t('game.turn_of', { name: '\u0646\u0627\u0635\u0631 7' }), t('game.turn_of', { name: 'Ben' })];
        }"""
    )
    assert "\u2068\u0646\u0627\u0635\u0631 7\u2069" in text[0]
    assert "\u2068" not in text[1]  # a Latin name in a left-to-right sentence needs nothing
    async with httpx.AsyncClient(base_url=live.http) as http:
        made = await http.post("/api/profiles", json={"name": "\u0646\u0627\u0635\u0631 7"})
    await solo_game_by_api(live.http, made.json()["token"], "yacht", seed=9)
    await page.goto(f"{live.http}/leaderboards?ruleset=yacht")
    entry = page.locator(f"table a[href='stats/{made.json()['profile']['id']}'] bdi")
    await expect(entry).to_have_text("\u0646\u0627\u0635\u0631 7")
    assert console.errors == []
