"""The play screen players want (issue 18) in Chromium at two phone sizes and
a desktop one: state across reloads and tabs, focus and screen-reader names,
the one-thumb phone layout, names, links and codes. Layout is asserted from
element positions (bounding boxes); screenshots go to
test-artifacts/screenshots/playscreen-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from .test_client import Console, browser, create_room, live, open_page, shots  # noqa: F401  (fixtures)

SIZES = {
    "360x740": {"width": 360, "height": 740},
    "390x844": {"width": 390, "height": 844},
    "1280x800": {"width": 1280, "height": 800},
}
sizes = pytest.mark.parametrize("size", list(SIZES))


async def rolled(page: Page, left: int) -> None:
    """The roll is shown and acknowledged (the next action is taken)."""
    await expect(page.locator("#game")).to_have_attribute("data-rolls-left", str(left))
    await expect(page.locator("#game")).to_have_attribute("data-busy", "false")


async def pressed(page: Page) -> list[bool]:
    values = await page.locator("#dice .die").evaluate_all("(d) => d.map((x) => x.getAttribute('aria-pressed'))")
    return [v == "true" for v in values]


@sizes
async def test_reload_and_a_second_tab_of_the_seat_show_the_servers_state(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    code = await create_room(page, live.http, "Ana", "yahtzee", 1)
    await page.click("#start-game")
    await expect(page.locator("#game")).to_have_attribute("data-my-turn", "true")
    await page.keyboard.press("r")
    await rolled(page, 2)
    await page.keyboard.press("1")
    await page.keyboard.press("3")
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    await expect(page.locator("#game")).to_have_attribute("data-kept", "0,2")  # the server has both keeps
    await page.reload()
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    assert await pressed(page) == [True, False, True, False, False]
    # the log comes back from the server's events, newest first
    log = page.locator(".log li")
    await expect(log.first).to_contain_text("Ana keeps 2 dice")
    await expect(page.locator(".log")).to_contain_text("Ana rolled")
    await expect(page.locator(".log")).to_contain_text("Game #1 started")
    # a second tab of the same seat (the browser remembers it: it comes back at once) sees the holds made in the first
    other = console.watch(await page.context.new_page())
    await other.goto(f"{live.http}/r/{code}")
    await expect(other.locator("#game")).to_have_attribute("data-my-turn", "true")
    assert await pressed(other) == [True, False, True, False, False]
    await page.keyboard.press("2")
    await expect(other.locator("#die-1")).to_have_attribute("aria-pressed", "true")
    await other.keyboard.press("1")
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "false")
    await expect(other.locator(".log li").first).to_contain_text("Ana keeps 2 dice")
    await page.screenshot(path=shots / f"playscreen-reload-{size}.png")
    assert console.errors == []


@sizes
async def test_focus_stays_where_play_continues_and_the_table_is_named(live, browser, shots, size) -> None:  # noqa: F811
    """Create, Start, Roll and Score from the keyboard: focus is always on the next control;
    the shortcuts are on screen; dice, scorecard and progress bar have names; the others'
    moves are announced in a polite live region."""
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    await page.goto(live.http + "/")
    await page.fill("#create-name", "Kim")
    await page.select_option("#create-ruleset", "yahtzee")
    await page.focus("#create-submit")
    await page.keyboard.press("Enter")
    await expect(page.locator("#start-game")).to_be_focused()
    await page.select_option("#bot-level", "beginner")
    await page.click("#add-bot")
    await expect(page.locator("#lobby .players li")).to_have_count(2)
    await page.focus("#start-game")
    await page.keyboard.press("Enter")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    await expect(page.locator("#roll")).to_be_focused()
    # the bot went first, or the game just started: either way the live region is polite and not empty
    announce = page.locator("#announce")
    await expect(announce).to_have_attribute("aria-live", "polite")
    await page.keyboard.press("Enter")  # the focused Roll button
    await rolled(page, 2)
    await expect(page.locator("#roll")).to_be_focused()
    # shortcuts on screen: a key on each die and on Roll, and the line that explains them
    for i in range(5):
        await expect(page.locator(f"#die-{i} kbd")).to_have_text(str(i + 1))
        await expect(page.locator(f"#die-{i} kbd")).to_be_visible()
    await expect(page.locator("#roll kbd")).to_have_text("R")
    if SIZES[size]["width"] >= 900:  # phones show the keys on the controls only: the tray has no room for the line
        await expect(page.locator("#keys-help")).to_be_visible()
    await expect(page.get_by_role("group", name="Dice")).to_have_count(1)
    await expect(page.get_by_role("region", name="Scorecard")).to_have_count(1)
    await expect(page.get_by_role("table", name="Scorecard")).to_have_count(1)
    await expect(page.get_by_role("progressbar", name="Upper section: 0 of 63")).to_have_count(1)
    await page.keyboard.press("r")
    await rolled(page, 1)
    await page.keyboard.press("r")
    await rolled(page, 0)
    await expect(page.locator("#game .score-option").first).to_be_focused()  # Roll is spent: the boxes are next
    await page.keyboard.press("Enter")
    if await page.locator("#confirm").is_visible():
        await page.keyboard.press("Tab")
        await page.keyboard.press("Enter")
    # the bot plays; its moves are announced, and the turn comes back with focus on Roll
    await expect(announce).to_contain_text("Beginner bot", timeout=20000)
    await expect(game).to_have_attribute("data-rolled", "false", timeout=20000)
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    await expect(page.locator("#roll")).to_be_focused()
    await page.screenshot(path=shots / f"playscreen-keyboard-{size}.png")
    assert console.errors == []


LONG_NAME = "Abcdefghijklmnopqrstuvwxyz012345"  # 32 characters, no space to break at


async def box(page: Page, selector: str) -> dict[str, float]:
    found = await page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


async def on_screen(page: Page, selector: str, size: dict[str, int], above: float | None = None) -> None:
    """Every element matching `selector` lies inside the screen as it is (the page not
    scrolled), and above `above` (the top of the tray that would cover it) if given."""
    boxes = await page.locator(selector).evaluate_all(
        "(nodes) => nodes.map((n) => { const r = n.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, id: n.id}; })"
    )
    assert boxes, selector
    for b in boxes:
        assert b["top"] >= 0 and b["bottom"] <= (size["height"] if above is None else above), (selector, b, size, above)
        assert b["left"] >= 0 and b["right"] <= size["width"], (selector, b, size)


@sizes
async def test_one_thumb_layout_with_four_players_and_a_long_name(live, browser, shots, size) -> None:  # noqa: F811
    """Dice, Roll and every box I can score are on the first screen, at every turn,
    without scrolling; no sideways scroll with four players and a 32-character name;
    the invite card is below the table once the game runs."""
    console = Console()
    viewport = SIZES[size]
    page = await open_page(browser, console, viewport)
    await create_room(page, live.http, LONG_NAME, "yahtzee", 4)
    for level in ("beginner", "beginner", "beginner"):
        await page.select_option("#bot-level", level)
        await page.click("#add-bot")
    await expect(page.locator("#lobby .players li")).to_have_count(4)
    assert await page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    await page.screenshot(path=shots / f"playscreen-lobby-{size}.png", full_page=True)
    await page.click("#start-game")
    game = page.locator("#game")
    for turn in range(3):
        await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
        await expect(game).to_have_attribute("data-rolled", "false")
        await page.evaluate("window.scrollTo(0, 0)")
        await on_screen(page, "#dice .die", viewport)
        await on_screen(page, "#roll", viewport)
        await page.keyboard.press("r")
        await rolled(page, 2)
        await page.keyboard.press("r")
        await rolled(page, 1)
        assert await page.evaluate("window.scrollY") == 0
        await page.screenshot(path=shots / f"playscreen-turn-{size}.png")
        tray = await box(page, "#game .table")
        phone = viewport["width"] < 900
        await on_screen(page, "#game .score-option", viewport, tray["y"] if phone else None)
        await on_screen(page, "#roll", viewport)
        # four columns, none cut off; the page never scrolls sideways
        assert await page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        await on_screen(page, "#scorecard thead th", viewport)
        # the invite card does not push the dice down
        head, dice = await box(page, ".room-head"), await box(page, "#dice")
        assert head["y"] > dice["y"], (head, dice)
        if turn == 0:
            await page.screenshot(path=shots / f"playscreen-turn-{size}.png")
            await page.screenshot(path=shots / f"playscreen-turn-{size}-full.png", full_page=True)
        options = page.locator("#game .score-option")
        await options.nth(await options.count() - 1).evaluate("(b) => b.click()")  # a tap, no scrolling
        if await page.locator("#confirm").is_visible():
            await page.click("#confirm-yes")
        # the next round (bots without delay may hand the turn back before a
        # "not my turn" state could be seen)
        await expect(page.locator("body")).to_contain_text(f"Round {turn + 2} of 13", timeout=20000)
    assert await page.evaluate("window.scrollY") == 0
    assert console.errors == []


@sizes
async def test_names_are_refused_next_to_the_field_and_duplicates_in_a_room(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    await page.goto(live.http + "/")
    await page.fill("#create-name", "   ")
    await page.click("#create-submit")
    note = page.locator("#create-name-error")
    await expect(note).to_have_text("Enter a name with at least one letter or digit.")
    await expect(page.locator("#create-name")).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#create-name")).to_have_attribute("aria-describedby", "create-name-error")
    await expect(page.locator("#create-name")).to_be_focused()
    await expect(page.locator("#toast")).to_be_hidden()
    await page.fill("#create-name", "Ana\u200bB")
    await expect(note).to_have_count(0)  # typing clears the message
    await page.click("#create-submit")
    await expect(note).to_have_text("A name cannot contain invisible or control characters.")
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    await page.fill("#create-name", f"  {family}   Ana\n")
    await page.click("#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    await expect(page.locator("#lobby .players li .name")).to_have_text(f"{family} Ana")
    code = page.url.rsplit("/", 1)[1]
    other = await open_page(browser, console, SIZES[size])
    await other.goto(f"{live.http}/r/{code}")
    await other.fill("#join-name", f"{family} ANA")
    await other.click("#join-submit")
    await expect(other.locator("#join-name-error")).to_have_text(
        "Someone in this room already has that name. Choose another."
    )
    note_box, field = await box(other, "#join-name-error"), await box(other, "#join-name")
    assert 0 <= note_box["y"] - (field["y"] + field["height"]) < 40  # right under the field
    await other.screenshot(path=shots / f"playscreen-name-taken-{size}.png")
    await other.fill("#join-name", "x" * 33)
    await other.click("#join-submit")
    await expect(other.locator("#join-name-error")).to_have_text("A name can have at most 32 characters.")
    await other.fill("#join-name", "Ben")
    await other.click("#join-submit")
    await expect(other.locator("#lobby .players li:has-text('Ben') .tag")).to_have_text("you")
    # the refusals themselves (422, 409) are the only errors the browser logs
    assert [e for e in console.errors if "status of 422" not in e and "status of 409" not in e] == []


@sizes
async def test_bad_and_unknown_codes_go_home_with_a_message_and_copy_is_honest(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    for path in ("/r/ab-12", "/r/%F0%9F%8E%B2"):
        await page.goto(live.http + path)
        await expect(page.locator("#toast")).to_contain_text("That is not a room code")
        await expect(page.locator("#create-name")).to_be_visible()
        assert page.url == live.http + "/"
    await page.goto(live.http + "/r/ZZZZZZ")
    await expect(page.locator("#toast")).to_have_text("There is no room with that code.")
    await expect(page).to_have_url(live.http + "/")
    await page.screenshot(path=shots / f"playscreen-bad-code-{size}.png")
    # Copy link where nothing can be copied (no Clipboard API, the selection refused): it says so
    code = await create_room(page, live.http, "Ana", "yacht", 2)
    await page.evaluate(
        "() => { Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true});"
        " document.execCommand = () => false; }"
    )
    await page.click("#copy-link")
    await expect(page.locator("#toast")).to_contain_text("could not be copied")
    assert await page.evaluate("getSelection().toString()") == f"{live.http}/r/{code}"
    assert [e for e in console.errors if "status of 404" not in e] == []


@sizes
async def test_your_turn_in_the_title_grey_dots_offline_and_latin_digits_in_arabic_locale(live, browser, size) -> None:  # noqa: F811
    """An Arabic browser with the English UI: every number in Latin digits; my turn in the
    tab's title; presence dots grey while this client is offline."""
    console = Console()
    context = await browser.new_context(viewport=SIZES[size], locale="ar-EG")
    page = console.watch(await context.new_page())
    await page.goto(live.http + "/?lang=en")
    await expect(page.locator("html")).to_have_attribute("lang", "en")
    await page.fill("#create-name", "Nadia")
    await page.select_option("#create-ruleset", "yahtzee")
    await page.select_option("#create-seats", "2")
    await page.click("#create-submit")
    await page.select_option("#bot-level", "greedy")
    await page.click("#add-bot")
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    await expect(page).to_have_title(re.compile(r"^Your turn · Dicecup"))
    await page.keyboard.press("r")
    await rolled(page, 2)
    text = await page.evaluate("document.body.innerText")
    assert not re.search(r"[\u0660-\u0669\u06f0-\u06f9]", text), text
    assert re.search(r"Round \d+ of 13", text) and "Upper section: 0 of 63" in text
    await expect(page.locator("#game-players .dot.on")).to_have_count(2)
    await context.set_offline(True)
    await expect(page.locator("#status")).to_have_attribute("data-state", "offline")
    await expect(page.locator("#game-players .dot.on")).to_have_count(0)
    await context.set_offline(False)
    await expect(page.locator("#game-players .dot.on")).to_have_count(2, timeout=20000)
    await context.close()


@sizes
async def test_a_solo_game_has_no_invite_and_no_roll_off(live, browser, size) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console, SIZES[size])
    await create_room(page, live.http, "Nadia", "yacht", 1)
    await expect(page.locator("#copy-link")).to_have_count(0)
    await expect(page.locator("#room-link")).to_have_count(0)
    await page.click("#start-game")
    await expect(page.locator("#game")).to_have_attribute("data-my-turn", "true")
    await expect(page.locator("#rolloff")).to_have_count(0)
    await expect(page.locator("#copy-link")).to_have_count(0)
    assert console.errors == []
