"""How the play screen feels (issue 18.5-18.7) in Chromium at two phone sizes and a
desktop one: the invite card's QR code (decoded from a screenshot), the mute switch
(remembered across a reload; sounds and vibration follow it), the dice's roll
animation (none under prefers-reduced-motion), the celebration of a Yacht scored in
its 50 box, and the bot speed chosen in the create form. Layout is asserted from
element positions; screenshots go to test-artifacts/screenshots/feel-*.png."""

from __future__ import annotations

import base64
import functools
import hashlib

import numpy as np
import pytest
import zxingcpp
from playwright.async_api import Page, expect

from app.rules import FairDice, Roll, Score, apply, new_game

from .test_client import Console, browser, create_room, live, open_page, shots  # noqa: F401  (fixtures)
from .test_playscreen import SIZES, box, on_screen, rolled

sizes = pytest.mark.parametrize("size", list(SIZES))

PIXELS = """async (b64) => {
  const blob = await (await fetch(`data:image/png;base64,${b64}`)).blob();
  const bitmap = await createImageBitmap(blob);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  const gray = new Array(bitmap.width * bitmap.height);
  for (let i = 0; i < gray.length; i++) gray[i] = Math.round((data[4 * i] + data[4 * i + 1] + data[4 * i + 2]) / 3);
  return { width: bitmap.width, height: bitmap.height, gray };
}"""


async def decode_qr(page: Page, png: bytes) -> list[str]:
    """The texts of the QR codes in a PNG screenshot (the browser decodes the PNG to
    pixels, in a blank page of its own: the client's content security policy lets
    no data: URL be fetched; zxing-cpp, an independent implementation, reads the code)."""
    blank = await page.context.new_page()
    try:
        image = await blank.evaluate(PIXELS, base64.b64encode(png).decode())
    finally:
        await blank.close()
    pixels = np.array(image["gray"], dtype=np.uint8).reshape(image["height"], image["width"])
    found = zxingcpp.read_barcodes(pixels, formats=zxingcpp.BarcodeFormat.QRCode)
    return [code.text for code in found]


@sizes
async def test_the_invite_card_shows_a_qr_code_of_the_invite_link(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    viewport = SIZES[size]
    page = await open_page(browser, console, viewport)
    code = await create_room(page, live.http, "Ana", "yacht", 2)
    link = await page.locator("#room-link").inner_text()
    assert link == f"{live.http}/r/{code}"
    toggle = page.locator("#show-qr")
    await expect(toggle).to_have_attribute("aria-expanded", "false")
    await expect(page.locator("#invite-qr")).to_have_count(0)  # shown on demand
    await toggle.click()
    await expect(toggle).to_have_attribute("aria-expanded", "true")
    await expect(toggle).to_be_focused()
    qr = page.locator("#invite-qr svg")
    await expect(qr).to_have_attribute("aria-label", "QR code of the invite link")
    await qr.scroll_into_view_if_needed()
    found = await box(page, "#invite-qr svg")
    # big enough to scan from another phone, inside the screen, square
    assert found["width"] >= 150 and abs(found["width"] - found["height"]) < 1, found
    assert found["x"] >= 0 and found["x"] + found["width"] <= viewport["width"], found
    assert await page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert await decode_qr(page, await qr.screenshot()) == [link]
    await page.screenshot(path=shots / f"feel-qr-{size}.png")
    await toggle.click()
    await expect(page.locator("#invite-qr")).to_have_count(0)
    await expect(toggle).to_have_text("Show QR code")
    assert console.errors == []


VIBRATIONS = """Object.defineProperty(navigator, 'vibrate', { configurable: true,
  value: (pattern) => { window.__vibrations = [...(window.__vibrations || []), pattern]; return true; } });"""


async def sounds(page: Page) -> int:
    return int(await page.evaluate("Number(document.documentElement.dataset.sounds || 0)"))


@sizes
async def test_mute_is_remembered_and_silences_sounds_and_vibration(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    viewport = SIZES[size]
    context = await browser.new_context(viewport=viewport, has_touch=viewport["width"] < 900)
    await context.add_init_script(VIBRATIONS)
    page = console.watch(await context.new_page())
    await page.goto(live.http + "/")
    mute = page.locator("#mute")
    await expect(mute).to_have_attribute("aria-pressed", "false")  # sound on by default
    await expect(mute).to_have_attribute("aria-label", "Mute sounds")
    # the switch sits in the header bar, inside the screen, big enough for a thumb
    bar, switch = await box(page, ".bar"), await box(page, "#mute")
    assert bar["y"] <= switch["y"] and switch["y"] + switch["height"] <= bar["y"] + bar["height"]
    assert switch["x"] >= 0 and switch["x"] + switch["width"] <= viewport["width"] and switch["height"] >= 36
    # a room with a bot at the fastest speed, chosen in the create form
    await page.fill("#create-name", "Ana")
    await page.select_option("#create-ruleset", "yacht")
    await page.select_option("#create-seats", "2")
    await page.select_option("#create-bot-speed", "instant")
    await page.click("#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    code = page.url.rsplit("/", 1)[1]
    room = await (await page.request.get(f"{live.http}/api/rooms/{code}")).json()
    assert room["options"]["bot_speed"] == "instant"
    await page.select_option("#bot-level", "greedy")
    await page.click("#add-bot")
    await page.click("#start-game")
    game = page.locator("#game")

    async def my_turn_and_roll() -> None:
        await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
        await expect(game).to_have_attribute("data-rolled", "false")
        await page.click("#roll")
        await rolled(page, 2)

    async def score() -> None:
        options = page.locator("#game .score-option")
        await options.nth(await options.count() - 1).click()
        if await page.locator("#confirm").is_visible():
            await page.click("#confirm-yes")

    await my_turn_and_roll()
    heard = await sounds(page)
    assert heard >= 1 and await page.evaluate("document.documentElement.dataset.lastSound") in ("roll", "turn")
    await score()
    # the bot plays; my turn comes back: a chime and a buzz
    await expect(page.locator("html")).to_have_attribute("data-last-sound", "turn", timeout=20000)
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    vibrations = await page.evaluate("window.__vibrations || []")
    assert vibrations and vibrations[-1] == [90, 60, 90]
    await mute.click()
    await expect(mute).to_have_attribute("aria-pressed", "true")
    await expect(mute).to_have_attribute("title", "Sound is off")
    await page.screenshot(path=shots / f"feel-muted-{size}.png")
    # remembered across a reload
    await page.reload()
    await expect(page.locator("#mute")).to_have_attribute("aria-pressed", "true")
    assert await page.evaluate("localStorage.getItem('dicecup.muted')") == "1"
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    await page.click("#roll")
    await rolled(page, 2)
    await score()
    await expect(page.locator("body")).to_contain_text("Round 3 of 12", timeout=20000)
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20000)
    assert await sounds(page) == 0  # muted: neither the roll nor my turn made a sound
    assert await page.evaluate("window.__vibrations || []") == []  # nor a buzz
    # and back on
    await page.locator("#mute").click()
    await expect(page.locator("#mute")).to_have_attribute("aria-pressed", "false")
    assert await page.evaluate("localStorage.getItem('dicecup.muted')") == "0"
    await page.click("#roll")
    await expect(page.locator("html")).to_have_attribute("data-last-sound", "roll")
    await context.close()
    assert console.errors == []


ROLLING = """() => { window.__rolling = 0;
  new MutationObserver((changes) => {
    for (const c of changes) if (c.target.classList.contains('rolling')) window.__rolling++;
  }).observe(document.getElementById('dice'), { subtree: true, attributes: true, attributeFilter: ['class'] }); }"""


@sizes
@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
async def test_the_roll_animation_and_reduced_motion(live, browser, shots, size, motion) -> None:  # noqa: F811
    console = Console()
    context = await browser.new_context(viewport=SIZES[size], reduced_motion=motion)
    page = console.watch(await context.new_page())
    await create_room(page, live.http, "Ana", "yahtzee", 1)
    await page.click("#start-game")
    await expect(page.locator("#game")).to_have_attribute("data-my-turn", "true")
    await page.evaluate(ROLLING)
    await page.click("#roll")
    await rolled(page, 2)
    await page.click("#die-0")
    await page.click("#roll")
    await rolled(page, 1)
    count = await page.evaluate("window.__rolling")
    if motion == "reduce":
        assert count == 0
        await expect(page.locator("#dice .die.rolling")).to_have_count(0)
    else:
        assert count >= 5 + 4  # every die of the first roll, the four not kept of the second
        assert await page.evaluate("getComputedStyle(document.querySelector('#die-1 svg')).animationName") in (
            "tumble",
            "none",  # the 0.45 s animation may be over already
        )
    await page.screenshot(path=shots / f"feel-roll-{motion}-{size}.png")
    await context.close()
    assert console.errors == []


def yacht_first(ruleset: str = "yacht") -> bytes:
    """A fair-dice seed whose first roll of a one-player game is five of a kind (searched in order:
    the same seed every run)."""
    for i in range(200_000):
        seed = hashlib.sha256(f"dicecup-five-{i}".encode()).digest()
        dice = FairDice(seed)
        state = new_game(ruleset, ["p"], dice).state
        after = apply(state, Roll("p"), dice).state
        assert after.turn is not None and after.turn.dice is not None
        if len(set(after.turn.dice)) == 1:
            return seed
    raise AssertionError("no seed found")


@sizes
@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
async def test_a_yacht_scored_in_its_50_box_is_celebrated(live, browser, shots, monkeypatch, size, motion) -> None:  # noqa: F811
    seed = yacht_first()
    # the server runs in this process: its next game gets that seed (its commitment, reveal, everything as usual)
    monkeypatch.setattr(FairDice, "new", classmethod(lambda cls: cls(seed)))
    console = Console()
    viewport = SIZES[size]
    context = await browser.new_context(viewport=viewport, reduced_motion=motion)
    page = console.watch(await context.new_page())
    await create_room(page, live.http, "Ana", "yacht", 1)
    await page.click("#start-game")
    await expect(page.locator("#game")).to_have_attribute("data-my-turn", "true")
    await page.click("#roll")
    await rolled(page, 2)
    faces = await page.locator("#dice .die").evaluate_all("(d) => d.map((x) => x.getAttribute('aria-label'))")
    assert len({label.split(":")[-1] for label in faces}) == 1, faces
    await expect(page.locator("#celebration")).to_have_count(0)  # rolling it is not scoring it
    await expect(page.locator("#score-yacht")).to_have_attribute("data-points", "50")
    await page.click("#score-yacht")
    party = page.locator("#celebration")
    await expect(party).to_be_visible()
    await expect(party).to_have_attribute("role", "status")
    await expect(party).to_contain_text("Ana scored Yacht: 50 points!")
    await expect(party.locator(".confetti")).to_have_count(0 if motion == "reduce" else 1)
    found = await box(page, "#celebration")
    assert found["x"] >= 0 and found["x"] + found["width"] <= viewport["width"], found
    await on_screen(page, "#celebration-close", viewport)
    await page.screenshot(path=shots / f"feel-yacht-{motion}-{size}.png")
    await page.click("#celebration-close")
    await expect(party).to_have_count(0)
    # only five of a kind in its box: the next score is not celebrated
    await page.click("#roll")
    await rolled(page, 2)
    options = page.locator("#game .score-option:not(#score-yacht)")
    await options.first.click()
    if await page.locator("#confirm").is_visible():
        await page.click("#confirm-yes")
    await expect(page.locator("body")).to_contain_text("Round 3 of 12")
    await expect(page.locator("#celebration")).to_have_count(0)
    await context.close()
    assert console.errors == []


UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


BONUS_FROM = 43_256
"""Where the search below first succeeds when started from 0 (about 20 s of searching on a
loaded machine): the test starts there, and still checks the seed with the rules engine."""


@functools.cache
def yahtzee_then_bonus(start: int = BONUS_FROM) -> tuple[bytes, list[tuple[int, ...]]]:
    """A seed for a one-player Yahtzee game whose first roll is a Yahtzee, and whose
    second turn makes another by keeping the most frequent face (the keeps returned,
    one per extra roll). Searched in order: the same seed every run."""
    for i in range(start, 500_000):
        seed = hashlib.sha256(f"dicecup-bonus-{i}".encode()).digest()
        dice = FairDice(seed)
        state = apply(new_game("yahtzee", ["p"], dice).state, Roll("p"), dice).state
        assert state.turn is not None and state.turn.dice is not None
        if len(set(state.turn.dice)) != 1:
            continue
        state = apply(state, Score("p", "yahtzee"), dice).state
        state = apply(state, Roll("p"), dice).state
        keeps: list[tuple[int, ...]] = []
        while state.turn and state.turn.dice and len(set(state.turn.dice)) != 1 and state.turn.rolls_left:
            faces = state.turn.dice
            face = max(set(faces), key=lambda f: (faces.count(f), f))
            keeps.append(tuple(p for p, x in enumerate(faces) if x == face))
            state = apply(state, Roll("p", keeps[-1]), dice).state
        if state.turn and state.turn.dice and len(set(state.turn.dice)) == 1:
            return seed, keeps
    raise AssertionError("no seed found")


@sizes
async def test_a_yahtzee_bonus_is_celebrated(live, browser, shots, monkeypatch, size) -> None:  # noqa: F811
    seed, keeps = yahtzee_then_bonus()
    monkeypatch.setattr(FairDice, "new", classmethod(lambda cls: cls(seed)))
    console = Console()
    viewport = SIZES[size]
    page = await open_page(browser, console, viewport)
    await create_room(page, live.http, "Ana", "yahtzee", 1)
    await page.click("#start-game")
    await expect(page.locator("#game")).to_have_attribute("data-my-turn", "true")
    await page.click("#roll")
    await rolled(page, 2)
    await page.click("#score-yahtzee")
    party = page.locator("#celebration")
    await expect(party).to_contain_text("Ana scored Yahtzee: 50 points!")
    await page.click("#celebration-close")
    await expect(page.locator("#game")).to_have_attribute("data-rolled", "false")
    await page.click("#roll")
    await rolled(page, 2)
    for left, keep in zip((1, 0), keeps, strict=False):
        for position in range(5):  # keep exactly these (a roll leaves the kept dice kept)
            pressed = await page.locator(f"#die-{position}").get_attribute("aria-pressed") == "true"
            if pressed != (position in keep):
                await page.click(f"#die-{position}")
        await expect(page.locator("#game")).to_have_attribute("data-kept", ",".join(map(str, keep)))
        await page.click("#roll")
        await rolled(page, left)
    # a second Yahtzee (forced Joker: in its upper box): 100 bonus points, celebrated
    face = await page.locator("#die-0").get_attribute("aria-label")
    box_id = UPPER[int(str(face).split(":")[1].split(",")[0]) - 1]
    await page.click(f"#score-{box_id}")
    await expect(party).to_be_visible()
    await expect(party).to_have_attribute("data-kind", "bonus")
    await expect(party).to_contain_text("Another Yahtzee! Ana gets 100 bonus points.")
    await page.screenshot(path=shots / f"feel-bonus-{size}.png")
    assert console.errors == []
