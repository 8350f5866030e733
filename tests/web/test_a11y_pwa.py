"""The restructured web client (issue 16, item 5) in Chromium: a whole solo
game from the keyboard alone, the accessibility tree of the table (dice group,
each die's held state, named boxes), held dice surviving a reload mid-turn,
the client served under a root path (every request stays under the prefix),
and the service worker (registered, caching the shell, never the API; the
shell opens offline). Screenshots in test-artifacts/screenshots/."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import uvicorn
from playwright.async_api import Page, expect

from app.main import create_app
from bench.servers import free_port

from ..conftest import test_settings
from ..live import LiveServer, wait_http
from .test_client import Console, browser, create_room, live, open_page, shots  # noqa: F401  (fixtures)

PREFIX = "/dicecup"


async def focused(page: Page) -> str:
    """The focused element as tag#id.classes ('body' when focus is lost)."""
    result: str = await page.evaluate(
        "() => { const a = document.activeElement;"
        " return a ? `${a.tagName.toLowerCase()}#${a.id}.${a.className}` : ''; }"
    )
    return result


async def tab_to(page: Page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches `selector`."""
    for _ in range(limit):
        if await page.evaluate("(s) => Boolean(document.activeElement && document.activeElement.matches(s))", selector):
            return
        await page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}; focus is on {await focused(page)}")


async def test_a_solo_game_from_the_keyboard_alone(live, browser, shots) -> None:  # noqa: F811
    """No mouse: Tab and Enter through the forms, R rolls, 1-5 keep, Tab to a box and Enter.
    After every action the focus is on the turn's controls, never lost to the top of the page."""
    console = Console()
    page = await open_page(browser, console)
    await page.emulate_media(reduced_motion="reduce")
    await page.goto(live.http + "/")
    await tab_to(page, "#create-name")
    await page.keyboard.type("Kim")
    await tab_to(page, "#create-seats")
    await page.keyboard.type("1")
    await expect(page.locator("#create-seats")).to_have_value("1")
    await tab_to(page, "#create-submit")
    await page.keyboard.press("Enter")
    await expect(page.locator("#lobby")).to_be_visible()
    assert (await focused(page)).startswith("button#start-game")  # where play continues (issue 18.3)
    await page.keyboard.press("Enter")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    await expect(page.locator("#roll")).to_be_focused()  # the lobby went away: focus moved to the roll button

    rounds = int(re.findall(r"\d+", await page.locator("#turn-banner .muted").inner_text())[-1])
    for turn in range(rounds):
        await page.keyboard.press("r" if turn % 2 else "R")
        await expect(game).to_have_attribute("data-rolls-left", "2")
        if turn < 2:
            await page.keyboard.press("1")
            await page.keyboard.press("3")
            await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
            await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
            faces = [await page.locator(f"#die-{i}").get_attribute("aria-label") for i in (0, 2)]
            await page.keyboard.press("r")
            await expect(game).to_have_attribute("data-rolls-left", "1")
            assert [await page.locator(f"#die-{i}").get_attribute("aria-label") for i in (0, 2)] == faces
            if turn == 0:
                # the roll animation is off under prefers-reduced-motion
                animation = await page.evaluate(
                    "() => { const d = document.getElementById('die-1'); d.classList.add('rolling');"
                    " return getComputedStyle(d.querySelector('svg')).animationName; }"
                )
                assert animation == "none"
                await page.screenshot(path=shots / "keyboard-turn.png", full_page=True)
        # the roll's answer first: while an action is in flight the client takes no other
        # (js/main.js act), and the dice show from the roll's event before its answer comes
        await expect(game).to_have_attribute("data-busy", "false")
        await tab_to(page, "#game .score-option")
        await page.keyboard.press("Enter")
        if await page.locator("#confirm").is_visible():
            await page.keyboard.press("Tab")  # from "no" (the default) to "yes"
            await page.keyboard.press("Enter")
        if turn < rounds - 1:
            await expect(game).to_have_attribute("data-rolled", "false")
            await expect(page.locator("#roll")).to_be_focused()
    await expect(page.locator("#final")).to_be_visible()
    await expect(page.locator("#end-title")).to_be_focused()
    await page.screenshot(path=shots / "keyboard-end.png", full_page=True)
    assert console.errors == []


async def test_the_accessibility_tree_names_dice_held_state_and_boxes(live, browser, shots) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    await create_room(page, live.http, "Ana", "yahtzee", 1)
    await page.click("#start-game")
    await page.click("#roll")
    await expect(page.locator("#game")).to_have_attribute("data-rolls-left", "2")
    await page.click("#die-1")
    await expect(page.locator("#die-1")).to_have_attribute("aria-pressed", "true")
    await expect(page.locator("#dice")).to_match_aria_snapshot(
        """
        - group "Dice":
          - 'button /Die 1: [1-6]$/'
          - 'button /Die 2: [1-6], kept$/ [pressed]'
          - 'button /Die 3: [1-6]$/'
          - 'button /Die 4: [1-6]$/'
          - 'button /Die 5: [1-6]$/'
        """
    )
    await expect(page.locator("#roll")).to_have_attribute("aria-keyshortcuts", "R")
    tree = await page.locator("#scorecard").aria_snapshot()
    async with httpx.AsyncClient(base_url=live.http) as http:
        rules = {r["name"]: r for r in (await http.get("/api/rulesets?lang=en")).json()}["yahtzee"]
    for box in rules["boxes"]:
        assert f'rowheader "{box["label"]}"' in tree, box
    # every open box is a button that says what it scores
    options = re.findall(r'button "Score (\d+) in ([^"]+)"', tree)
    assert {label for _, label in options} == {box["label"] for box in rules["boxes"]}
    threshold = rules["upper_bonus"]["threshold"]
    assert f'rowheader "Bonus ({threshold}+)"' in tree
    await expect(page.locator("#upper-progress progress")).to_have_attribute("max", str(threshold))
    await page.screenshot(path=shots / "a11y-table.png", full_page=True)
    assert console.errors == []


async def test_held_dice_survive_a_reload_mid_turn(live, browser, shots) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    code = await create_room(page, live.http, "Ana", "yahtzee", 1)
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    await page.keyboard.press("r")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.keyboard.press("1")
    await page.keyboard.press("3")
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    async with httpx.AsyncClient(base_url=live.http) as http:
        for _ in range(100):  # the keeps reach the server
            room = (await http.get(f"/api/rooms/{code}")).json()
            if room["game"]["turn"]["kept"] == [True, False, True, False, False]:
                break
            await page.wait_for_timeout(50)
        assert room["game"]["turn"]["kept"] == [True, False, True, False, False]
    faces = await game.locator(".die").evaluate_all("(dice) => dice.map((d) => d.getAttribute('aria-label'))")
    await page.reload()
    for i, held in enumerate([True, False, True, False, False]):
        await expect(page.locator(f"#die-{i}")).to_have_attribute("aria-pressed", "true" if held else "false")
    assert await game.locator(".die").evaluate_all("(dice) => dice.map((d) => d.getAttribute('aria-label'))") == faces
    # another tab (the seat this browser remembers, taken back at once) sees the same held dice
    other = console.watch(await page.context.new_page())
    await other.goto(f"{live.http}/r/{code}")
    await expect(other.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    await expect(other.locator("#die-1")).to_have_attribute("aria-pressed", "false")
    await page.screenshot(path=shots / "reload-kept.png", full_page=True)
    # and the next roll keeps them
    await page.keyboard.press("r")
    await expect(game).to_have_attribute("data-rolls-left", "1")
    assert [await page.locator(f"#die-{i}").get_attribute("aria-label") for i in (0, 2)] == [faces[0], faces[2]]
    assert console.errors == []


class Prefixed:
    """What the app sees behind a proxy that serves it under PREFIX and strips
    it (uvicorn --root-path): root_path set, the path under the prefix; anything
    outside the prefix is a 404, so a client URL that escapes it fails the test."""

    def __init__(self, app, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            path = scope["path"]
            if path != self.prefix and not path.startswith(self.prefix + "/"):
                if scope["type"] == "websocket":
                    await receive()
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await send({"type": "http.response.start", "status": 404, "headers": []})
                await send({"type": "http.response.body", "body": b"outside the prefix"})
                return
            scope = {**scope, "root_path": self.prefix}
        await self.app(scope, receive, send)


@contextmanager
def prefixed_server(settings) -> Iterator[LiveServer]:
    port = free_port()
    config = uvicorn.Config(
        Prefixed(create_app(settings), PREFIX),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_per_message_deflate=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_http(f"http://127.0.0.1:{port}{PREFIX}/api/health")
        yield LiveServer(port)
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def prefixed(tmp_path_factory, strategy_tables):
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('prefixed') / 'web.db'}"
    upgrade(url)
    with prefixed_server(test_settings(url)) as server:
        yield server


async def test_under_a_root_path_with_the_service_worker(prefixed, browser, shots) -> None:  # noqa: F811
    """Served under /dicecup: pages, static files, the SDK, the API and the socket
    all stay under it; the service worker registers for it, caches the shell
    (never the API), and the shell opens offline."""
    console = Console()
    page = await open_page(browser, console)
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    page.on("websocket", lambda socket: urls.append(socket.url))
    base = prefixed.http + PREFIX
    code = await create_room(page, base, "Ana", "yacht", 1)
    assert page.url == f"{base}/r/{code}"
    await page.click("#start-game")
    game = page.locator("#game")
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.click("#die-0")
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    await page.locator("button.score-option").first.click()
    if await page.locator("#confirm").is_visible():
        await page.click("#confirm-yes")
    await expect(game).to_have_attribute("data-rolled", "false")
    # a solo room shows no invite; the link it would give is under the prefix all the same
    link = await page.evaluate("(c) => import('./static/js/views.js').then((v) => v.inviteLink(c))", code)
    assert link == f"{base}/r/{code}"
    assert await page.locator("#rules-link").evaluate("(a) => a.href") == f"{base}/rules/yacht"
    await page.screenshot(path=shots / "prefix-game.png", full_page=True)

    # the service worker: scope is the root path, the shell is cached, the API is not
    registration = await page.evaluate(
        "async () => { const r = await navigator.serviceWorker.ready;"
        " return {scope: r.scope, active: Boolean(r.active)}; }"
    )
    assert registration == {"scope": f"{base}/", "active": True}
    cached: dict[str, list[str]] = await page.evaluate(
        """async () => { const out = {}; for (const name of await caches.keys()) {
             out[name] = (await (await caches.open(name)).keys()).map((r) => r.url); } return out; }"""
    )
    assert len(cached) == 1 and re.fullmatch(r"dicecup-shell-[0-9a-f]{16}", next(iter(cached)))
    shell = next(iter(cached.values()))
    assert f"{base}/" in shell and f"{base}/static/sdk/connection.js" in shell
    assert not [url for url in shell if "/api/" in url]
    manifest = await page.evaluate(
        "async () => (await fetch(document.querySelector('link[rel=manifest]').href)).json()"
    )
    assert manifest["display"] == "standalone" and {"192x192", "512x512"} <= {i["sizes"] for i in manifest["icons"]}
    async with httpx.AsyncClient() as http:
        for icon in manifest["icons"]:
            response = await http.get(f"{base}/static/{icon['src']}")
            assert response.status_code == 200, icon
        worker = await http.get(f"{base}/sw.js")
        assert worker.headers["cache-control"] == "no-cache" and "__VERSION__" not in worker.text
    outside = [url for url in urls if not re.match(rf"^(https?|wss?)://[^/]+{PREFIX}/", url)]
    assert outside == [], outside
    assert console.errors == []

    # offline: the page still opens from the cached shell (the API fails, as it must)
    await page.context.set_offline(True)
    await page.goto(f"{base}/")
    await expect(page.locator(".brand")).to_have_text("Dicecup")
    await expect(page.locator("#lang-switch")).to_be_visible()
    await page.context.set_offline(False)
