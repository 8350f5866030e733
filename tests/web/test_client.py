"""The web client in a real browser: Debian's Chromium driven by Playwright."""

import asyncio
import json
import random
import re
import shutil
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, async_playwright, expect

from ..conftest import test_settings
from ..live import server_in_thread
from ..services import unavailable

# A loaded CI machine can take longer than Playwright's default 5 s.
expect.set_options(timeout=15_000)

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def live(tmp_path_factory, strategy_tables):
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('web') / 'web.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url)) as server:
        yield server


@pytest.fixture
async def browser():
    if shutil.which(CHROMIUM) is None:
        unavailable(f"{CHROMIUM} is not installed (apt-get install chromium): browser tests skipped")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        await browser.close()


@pytest.fixture
def shots(artifacts_dir):
    path = artifacts_dir / "screenshots"
    path.mkdir(exist_ok=True)
    return path


class Console:
    """Collects console errors and uncaught exceptions of the pages it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Page) -> Page:
        page.on("console", lambda m: self.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        return page


async def open_page(browser, console: Console, viewport=None) -> Page:
    context = await browser.new_context(viewport=viewport or {"width": 1280, "height": 900})
    return console.watch(await context.new_page())


# A player's device: a phone as the play tests meet it (touch, a mobile browser, taps) or a desktop.
PHONE_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/126.0.0.0 Mobile Safari/537.36"
)
DEVICES: dict[str, dict[str, Any]] = {
    "phone": {"viewport": PHONE, "has_touch": True, "is_mobile": True, "user_agent": PHONE_AGENT},
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}


async def open_device(browser, console: Console, device: str, lang: str = "en", **stored: str) -> Page:
    """A page on a new device (`DEVICES`) whose language is `lang`, as if chosen in the switch, and
    whose localStorage holds `stored` (a name typed before, a profile) on every page it opens."""
    context = await browser.new_context(**DEVICES[device])
    values = {"dicecup.lang": lang, **stored}
    await context.add_init_script(
        f"try {{ for (const [k, v] of Object.entries({json.dumps(values)})) localStorage.setItem(k, v); }} catch {{}}"
    )
    return console.watch(await context.new_page())


async def tap(page: Page, selector: str) -> None:
    """A tap on a touch screen, a click elsewhere."""
    if (page.viewport_size or {}).get("width", 1280) < 900:
        await page.tap(selector)
    else:
        await page.click(selector)


async def create_room(page: Page, base: str, name: str, ruleset: str, seats: int, hints: bool | None = None) -> str:
    """A room made through the create form; ``hints``: tick or untick Allow hints
    (else its default: on for one seat, off for more)."""
    await page.goto(base + "/")
    await page.fill("#create-name", name)
    await page.select_option("#create-ruleset", ruleset)
    await page.select_option("#create-seats", str(seats))
    if hints is not None:
        await page.set_checked("#create-hints", hints)
    await page.click("#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    return page.url.rsplit("/", 1)[1]


async def join_room(page: Page, base: str, code: str, name: str) -> None:
    await page.goto(f"{base}/r/{code}")
    await page.fill("#join-name", name)
    await page.click("#join-submit")
    await expect(page.locator(f"#lobby .players li:has-text('{name}') .tag")).to_have_text("you")


async def whose_turn(*pages: Page) -> Page | None:
    """The page that shows it is its player's turn, once one does; None once the game is over.
    (Each page learns of a turn on its own socket: the one that has not heard yet still says
    "not my turn", so the other pages are asked too, not only the first.)"""
    async with asyncio.timeout(15):
        while True:
            for page in pages:
                if await page.locator('#game[data-my-turn="true"]').count():
                    return page
            if await pages[0].locator("#app").get_attribute("data-status") == "finished":
                return None
            await asyncio.sleep(0.05)


async def play_turn(page: Page, rng: random.Random, screenshot=None) -> None:
    """One turn through the UI only: roll, maybe keep some dice and roll again, pick a box."""
    game = page.locator("#game")
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    while rng.random() < 0.6 and await game.get_attribute("data-rolls-left") != "0":
        left = int(await game.get_attribute("data-rolls-left") or 0)
        for position in rng.sample(range(5), rng.randint(0, 3)):
            await page.click(f"#die-{position}")
        await page.click("#roll")
        await expect(game).to_have_attribute("data-rolls-left", str(left - 1))
    options = page.locator("button.score-option")
    await expect(options.first).to_be_visible()
    if screenshot is not None:
        await page.screenshot(path=screenshot, full_page=True)
    best, best_points = None, -1
    for option in await options.all():
        points = int(await option.get_attribute("data-points") or 0)
        if points > best_points:
            best, best_points = option, points
    assert best is not None
    await best.click()
    if best_points == 0:
        await page.click("#confirm-yes")


async def final_totals(page: Page) -> dict[str, int]:
    await expect(page.locator("#final")).to_be_visible(timeout=15000)
    rows = page.locator("#final li")
    return {
        await row.get_attribute("data-player"): int(await row.get_attribute("data-total")) for row in await rows.all()
    }


async def test_two_players_play_a_whole_yacht_game_while_a_third_watches(live, browser, shots) -> None:
    console = Console()
    ana = await open_page(browser, console)
    code = await create_room(ana, live.http, "Ana", "yacht", 2)
    ben = await open_page(browser, console)
    await join_room(ben, live.http, code, "Ben")
    watcher = await open_page(browser, console)
    await watcher.goto(f"{live.http}/r/{code}")
    await expect(watcher.locator("#status")).to_have_text("Watching")
    await expect(ana.locator("#lobby .players li")).to_have_count(2)
    await ana.screenshot(path=shots / "lobby.png", full_page=True)

    await ana.click("#start-game")
    for page in (ana, ben, watcher):
        await expect(page.locator("#game")).to_be_visible()
    await expect(watcher.locator("#rolloff")).to_contain_text("goes first")

    rng = random.Random(2024)
    turns = 0
    while (mover := await whose_turn(ana, ben)) is not None:
        other = ben if mover is ana else ana
        await play_turn(mover, rng, shots / "turn.png" if turns == 4 else None)
        turns += 1
        # the turn passes (or the game ends) on every screen
        await expect(other.locator("#app")).to_have_attribute("data-version", re.compile(r"\d+"))
        await expect(mover.locator('#game[data-my-turn="true"]')).to_have_count(0)
    assert turns == 24

    totals = [await final_totals(page) for page in (ana, ben, watcher)]
    assert totals[0] == totals[1] == totals[2]
    async with httpx.AsyncClient(base_url=live.http) as http:
        room = (await http.get(f"/api/rooms/{code}")).json()
    assert totals[0] == {p: c["total"] for p, c in room["game"]["scorecards"].items()}
    await expect(watcher.locator("#winner-line")).to_contain_text("win")
    await ana.screenshot(path=shots / "final.png", full_page=True)
    assert console.errors == []


async def test_phone_sized_turn(live, browser, shots) -> None:
    console = Console()
    page = await open_page(browser, console, PHONE)
    await create_room(page, live.http, "Solo", "yahtzee", 1)
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    # one column, nothing wider than the screen, big touch targets
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    roll = await page.locator("#roll").bounding_box()
    assert roll is not None and roll["height"] >= 48 and roll["width"] > PHONE["width"] * 0.7
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    die = await page.locator("#die-0").bounding_box()
    assert die is not None and die["width"] >= 48 and die["height"] >= 48
    await page.click("#die-0")
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "1")
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    await expect(page.locator("#upper-progress")).to_be_visible()
    await page.screenshot(path=shots / "phone.png", full_page=True)
    await page.locator("button.score-option").first.click()
    if await page.locator("#confirm").is_visible():
        await page.click("#confirm-yes")
    await expect(page.locator("#game")).to_have_attribute("data-rolled", "false")
    await expect(page.locator("#game")).to_have_attribute("data-rolls-left", "3")
    assert console.errors == []


async def test_keyboard_play_and_rule_errors_are_shown(live, browser) -> None:
    """The turn works from the keyboard, and a refused action shows the server's reason."""
    console = Console()
    page = await open_page(browser, console)
    await create_room(page, live.http, "Kim", "yacht", 1)
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    await page.keyboard.press("r")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.keyboard.press("3")
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    await page.focus("#die-4")
    await page.keyboard.press("Space")
    await expect(page.locator("#die-4")).to_have_attribute("aria-pressed", "true")
    await page.locator("button.score-option").first.click()
    if await page.locator("#confirm").is_visible():
        await page.click("#confirm-yes")
    await expect(game).to_have_attribute("data-rolled", "false")
    # The UI never offers an illegal move, so the test forges one (a score
    # before the first roll): the server's refusal must reach the player.
    await page.evaluate(
        """() => { const b = document.createElement('button'); b.dataset.action = 'score'; b.dataset.box = 'choice';
                   b.dataset.points = '5'; b.id = 'forged'; document.getElementById('app').append(b); }"""
    )
    await page.click("#forged")
    await expect(page.locator("#toast")).to_have_text("Roll the dice first.")
    assert console.errors == []


async def test_a_friend_in_another_tab_of_the_same_browser(live, browser) -> None:
    """Tabs keep their own seats; a new tab takes back the seat the browser remembers, and
    lets it go for a friend ("Watch instead"), who may then join with a seat of their own."""
    console = Console()
    ana = await open_page(browser, console)
    code = await create_room(ana, live.http, "Ana", "yacht", 2)
    ben = console.watch(await ana.context.new_page())  # same browser, another tab
    await ben.goto(f"{live.http}/r/{code}")
    await expect(ben.locator("#lobby .players li:has-text('Ana') .tag").first).to_have_text("you")
    await ben.click("#watch-instead")  # "Not Ana? Watch instead"
    await expect(ben.locator("#status")).to_have_text("Watching")
    await expect(ben.locator("#resume-seat")).to_have_text("Continue as Ana")
    await ben.fill("#join-name", "Ben")
    await ben.click("#join-submit")
    await expect(ben.locator("#lobby .players li:has-text('Ben') .tag")).to_have_text("you")
    await expect(ana.locator("#lobby .players li:has-text('Ana') .tag").first).to_have_text("you")
    await ana.reload()  # a reload keeps the tab's seat
    await expect(ana.locator("#start-game")).to_be_visible()
    third = console.watch(await ana.context.new_page())
    await third.goto(f"{live.http}/r/{code}")  # the seat remembered last comes back: Ben's
    await expect(third.locator("#lobby .players li:has-text('Ben') .tag")).to_have_text("you")
    assert console.errors == []


async def test_hint_and_a_bot_opponent(live, browser, strategy_tables, shots) -> None:
    """The host adds a bot, which plays its turns; a hint shows the best choice."""
    console = Console()
    page = await open_page(browser, console)
    await create_room(page, live.http, "Ana", "yahtzee", 2, hints=True)
    await page.select_option("#bot-level", "optimal")
    await page.click("#add-bot")
    await expect(page.locator("#lobby .players li")).to_have_count(2)
    await expect(page.locator("#lobby")).to_contain_text("Optimal bot")
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)  # the bot may go first
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.click("#hint")
    await expect(page.locator("#hint-panel li")).to_have_count(5)
    await expect(page.locator("#hint-panel strong")).not_to_be_empty()
    await page.screenshot(path=shots / "hint.png", full_page=True)
    await page.locator("button.score-option").first.click()
    if await page.locator("#confirm").is_visible():
        await page.click("#confirm-yes")
    # the bot takes its turn, and it comes back to Ana
    await expect(page.locator("#app")).to_contain_text("Optimal bot scored", timeout=20000)
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    assert console.errors == []
