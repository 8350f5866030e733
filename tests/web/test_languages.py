"""The web client in every language, in Chromium at phone size (issue 15):
home, a game in progress and the rules page show the language's script, Arabic
is right to left, nothing overflows the screen, and a language can be switched
mid-game without losing the game. Screenshots: test-artifacts/screenshots/
<lang>-home.png, <lang>-game.png, <lang>-rules.png, switch-*.png.

One browser for the module, one page per language."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from ..services import unavailable
from .test_client import CHROMIUM, FLAGS, Console, live  # noqa: F401  (live is a fixture)
from .test_glossary import violations

PHONE = {"width": 390, "height": 844}
NARROW = {"width": 360, "height": 780}
CATALOGS = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"
LANGS = ["en", "my", "sw", "gu", "ar", "mn"]
# What each language's text is written in (at least one letter of it on screen).
SCRIPTS = {
    "en": r"[A-Za-z]",
    "sw": r"[A-Za-z]",
    "my": r"[\u1000-\u109F]",
    "gu": r"[\u0A80-\u0AFF]",
    "ar": r"[\u0600-\u06FF]",
    "mn": r"[\u0400-\u04FF]",
}
FONTS = {"my": "Dicecup Myanmar", "gu": "Dicecup Gujarati", "ar": "Dicecup Arabic"}
# Mongolian plays the rule set of its rule book (Yacht); the others Yahtzee.
RULESET = {"mn": "yacht"}


def catalog(lang: str) -> dict[str, Any]:
    data = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
async def browser(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Browser]:
    if shutil.which(CHROMIUM) is None:
        unavailable(f"{CHROMIUM} is not installed (apt-get install chromium): browser tests skipped")
    # Only DejaVu (Latin, Cyrillic) from the system, as on a machine without
    # Myanmar, Gujarati or Arabic fonts: those scripts must come from the
    # bundled fonts (or local() ones a phone has).
    fonts = tmp_path_factory.mktemp("fonts")
    (fonts / "fonts.conf").write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        f"<dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{fonts}/cache</cachedir></fontconfig>"
    )
    env = {**os.environ, "FONTCONFIG_FILE": str(fonts / "fonts.conf")}
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, env=env)
        yield chromium
        await chromium.close()


@pytest.fixture
def shots(artifacts_dir: Path) -> Path:
    path = artifacts_dir / "screenshots"
    path.mkdir(exist_ok=True)
    return path


OVERFLOW = """() => {
  const width = window.innerWidth;
  const out = [];
  const page = document.scrollingElement.scrollWidth;
  if (page > width) out.push(`page: ${page} > ${width}`);
  for (const el of document.querySelectorAll('body *')) {
    // .sr-only: clipped on purpose (read by screen readers only)
    if (el.closest('option, script, style, dialog:not([open]), [hidden], .sr-only')) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      const name = `${el.tagName.toLowerCase()}#${el.id}.${el.className}`;
      out.push(`${name}: ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    // text cut off inside its own box (a word too long for it)
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible'
        && !el.classList.contains('scroll') && el.tagName !== 'SELECT' && el.tagName !== 'INPUT') {
      out.push(`clipped ${el.tagName.toLowerCase()}#${el.id}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  return out;
}"""


async def check_screen(page: Page, lang: str) -> None:
    """The language's script is shown, <html lang dir> follow, nothing overflows."""
    await expect(page.locator("html")).to_have_attribute("lang", lang)
    await expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
    text = await page.locator("body").inner_text()
    letters = re.findall(SCRIPTS[lang], text)
    assert len(letters) >= 20, f"{lang}: too little text in its script: {text[:200]!r}"
    if lang not in ("en", "sw"):
        shown = re.sub(r"https?://\S+", "", await page.locator("#app").inner_text())
        latin = re.findall(r"[A-Za-z]", shown)
        # Latin is left only for names (Dicecup, Yahtzee, the player) and codes
        assert len(latin) < len(letters) / 3, f"{lang}: mostly Latin: {text[:300]!r}"
    assert await page.evaluate(OVERFLOW) == []


async def fonts_loaded(page: Page) -> list[str]:
    families: list[str] = await page.evaluate(
        "async () => { await document.fonts.ready; return [...document.fonts].filter((f) => f.status === 'loaded')"
        ".map((f) => f.family.replaceAll('\"', '')); }"
    )
    return families


@pytest.mark.parametrize("lang", LANGS)
async def test_home_game_and_rules_at_phone_size(live, browser: Browser, shots: Path, lang: str) -> None:  # noqa: F811
    console = Console()
    context = await browser.new_context(viewport=PHONE, locale="en-US")
    page = console.watch(await context.new_page())
    words = catalog(lang)
    ruleset = RULESET.get(lang, "yahtzee")

    await page.goto(f"{live.http}/?lang={lang}")
    await expect(page.locator("#create-submit")).to_have_text(words["home.create_submit"])
    await expect(page.locator("#lang-switch")).to_have_value(lang)
    await check_screen(page, lang)
    if lang in FONTS:
        assert FONTS[lang] in await fonts_loaded(page), f"{lang}: the script's font did not load"
    await page.screenshot(path=shots / f"{lang}-home.png", full_page=True)

    # a game in progress: one seat, rolled once, one die kept
    await page.fill("#create-name", "Ana")
    await page.select_option("#create-ruleset", ruleset)
    await page.select_option("#create-seats", "1")
    await page.click("#create-submit")
    await expect(page.locator("#start-game")).to_be_visible()
    await check_screen(page, lang)
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.click("#die-0")
    await expect(page.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    first_box = "ones" if ruleset == "yahtzee" else "yacht"
    await expect(page.locator(".scorecard tbody th").first).to_have_text(words[f"box.{ruleset}.{first_box}"])
    await expect(page.locator("#turn-banner strong")).to_have_text(words["game.your_turn"])
    await check_screen(page, lang)
    if lang == "ar":
        # mirrored: the box names on the right, the first die on the right
        row = await page.locator(".scorecard tbody th").first.bounding_box()
        cell = await page.locator(".scorecard tbody td").first.bounding_box()
        die0 = await page.locator("#die-0").bounding_box()
        die4 = await page.locator("#die-4").bounding_box()
        assert row and cell and die0 and die4
        assert row["x"] > cell["x"] and die0["x"] > die4["x"]
    await page.screenshot(path=shots / f"{lang}-game.png", full_page=True)
    # the narrowest phones the issue names: 360 px, still nothing clipped
    await page.set_viewport_size(NARROW)
    await check_screen(page, lang)
    await page.set_viewport_size(PHONE)

    # the rules page, from the game screen's link
    link = page.locator("#rules-link")
    # relative to the page's <base> (the root path): /rules/<ruleset> here
    assert await link.evaluate("(a) => new URL(a.href).pathname") == f"/rules/{ruleset}"
    rules = console.watch(await context.new_page())
    await rules.goto(f"{live.http}/rules/{ruleset}?lang={lang}")
    await expect(rules.locator("#howto h1")).to_be_visible()
    title = (await rules.locator("#howto h1").inner_text()).replace("\u2068", "").replace("\u2069", "")
    assert title == words["howto.title"].replace("{ruleset}", words[f"ruleset.{ruleset}"])
    await expect(rules.locator("#howto tbody tr")).to_have_count(13 if ruleset == "yahtzee" else 12)
    await check_screen(rules, lang)
    # the page as rendered says each term with the glossary's word (docs/glossary/<lang>.json)
    shown = (await rules.locator("#howto").inner_text()).replace("\u2068", "").replace("\u2069", "")
    assert violations(lang, [("rules page", "rendered", shown)]) == []
    await rules.set_viewport_size(NARROW)
    await check_screen(rules, lang)
    await rules.screenshot(path=shots / f"{lang}-rules.png", full_page=True)
    await context.close()
    assert console.errors == []


async def test_switching_language_mid_game_keeps_the_game(live, browser: Browser, shots: Path) -> None:  # noqa: F811
    console = Console()
    context = await browser.new_context(viewport=PHONE, locale="sw-KE")
    page = console.watch(await context.new_page())
    await page.goto(f"{live.http}/")
    # first visit: the browser's language
    await expect(page.locator("html")).to_have_attribute("lang", "sw")
    await page.select_option("#lang-switch", "en")
    await expect(page.locator("#create-submit")).to_have_text("Create room")
    await page.fill("#create-name", "Ana")
    await page.select_option("#create-ruleset", "yahtzee")
    await page.select_option("#create-seats", "1")
    await page.click("#create-submit")
    await page.click("#start-game")
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true")
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await page.click("#die-2")
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    dice = await game.locator(".die").evaluate_all("(dice) => dice.map((d) => d.innerHTML)")

    await page.select_option("#lang-switch", "ar")
    await expect(page.locator("html")).to_have_attribute("dir", "rtl")
    await expect(page.locator("#turn-banner strong")).to_have_text(catalog("ar")["game.your_turn"])
    await expect(page.locator("#roll")).to_have_accessible_name(catalog("ar")["game.roll_button.two"])
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    assert await game.locator(".die").evaluate_all("(dice) => dice.map((d) => d.innerHTML)") != []
    await check_screen(page, "ar")
    await page.screenshot(path=shots / "switch-ar.png", full_page=True)

    # the choice persists: a reload comes back in Burmese, same game, same dice,
    # the same die kept (the server's kept dice)
    await page.select_option("#lang-switch", "my")
    await expect(page.locator("html")).to_have_attribute("lang", "my")
    await page.reload()
    await expect(page.locator("html")).to_have_attribute("lang", "my")
    await expect(page.locator("#lang-switch")).to_have_value("my")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await expect(page.locator("#die-2")).to_have_attribute("aria-pressed", "true")
    kept_dice = await game.locator(".die").evaluate_all("(dice) => dice.map((d) => d.innerHTML.split('<span')[0])")
    assert kept_dice == [d.split("<span")[0] for d in dice]
    await check_screen(page, "my")
    await page.screenshot(path=shots / "switch-my.png", full_page=True)
    await page.click("#roll")
    await expect(game).to_have_attribute("data-rolls-left", "1")
    await context.close()
    assert console.errors == []


FIT_SIZES = {
    "360x740": {"width": 360, "height": 740},
    "390x844": {"width": 390, "height": 844},
    "1280x800": {"width": 1280, "height": 800},
}
# A name of each language's own, long for its script.
NAMES = {
    "en": "Alexandra",
    "my": "မောင်အောင်ကျော်ဆွေ",
    "sw": "Mwanaisha",
    "gu": "પ્રજ્ઞેશકુમાર",
    "ar": "عبدالرحمن",
    "mn": "Батцэцэгмаа",
}

ROUND_IS = """(round) => {
  const game = document.getElementById('game');
  // "Round 2 of 13" in the language's order: the round is one of its two numbers (never the 12 or 13 rounds)
  const shown = (document.querySelector('#turn-banner .muted')?.textContent.match(/\\d+/g) || []).map(Number);
  return game && game.dataset.myTurn === 'true' && game.dataset.rolled === 'false' && shown.includes(round);
}"""


@pytest.mark.parametrize("size", list(FIT_SIZES))
@pytest.mark.parametrize("lang", LANGS)
async def test_the_one_thumb_layout_fits_in_every_language(
    live,  # noqa: F811
    browser: Browser,
    shots: Path,
    lang: str,
    size: str,
) -> None:
    """Issue 18.1 in every language: with four players, the dice, Roll and every box
    I can score are on the first screen at each turn, above the phone's tray; the
    page never scrolls sideways and no column is cut off (Burmese and Gujarati are
    long and tall)."""
    from .test_playscreen import box, on_screen

    console = Console()
    viewport = FIT_SIZES[size]
    phone = viewport["width"] < 900
    context = await browser.new_context(viewport=viewport, locale="en-US")
    page = console.watch(await context.new_page())
    await page.goto(f"{live.http}/?lang={lang}")
    await expect(page.locator("html")).to_have_attribute("lang", lang)
    await page.fill("#create-name", NAMES[lang])
    await page.select_option("#create-ruleset", RULESET.get(lang, "yahtzee"))
    await page.select_option("#create-seats", "4")
    await page.click("#create-submit")
    await expect(page.locator("#start-game")).to_be_visible()
    for _ in range(3):
        await page.select_option("#bot-level", "beginner")
        await page.click("#add-bot")
    await expect(page.locator("#lobby .players li")).to_have_count(4)
    await page.click("#start-game")
    game = page.locator("#game")
    for turn in range(2):
        await page.wait_for_function(ROUND_IS, arg=turn + 1, timeout=20000)
        await page.evaluate("window.scrollTo(0, 0)")
        await on_screen(page, "#dice .die", viewport)
        await on_screen(page, "#roll", viewport)
        await page.click("#roll")
        await expect(game).to_have_attribute("data-rolls-left", "2")
        await expect(game).to_have_attribute("data-busy", "false")
        assert await page.evaluate("window.scrollY") == 0
        if turn == 0:
            await page.screenshot(path=shots / f"fit-{lang}-{size}.png")
            # the header is one row: brand, status, language and mute side by side
            brand, switch, mute = [await box(page, s) for s in (".brand", "#lang-switch", "#mute")]
            middle = brand["y"] + brand["height"] / 2
            assert all(b["y"] < middle < b["y"] + b["height"] for b in (switch, mute)), (brand, switch, mute)
        tray = await box(page, "#game .table")
        await on_screen(page, "#game .score-option", viewport, tray["y"] if phone else None)
        await on_screen(page, "#roll", viewport)
        await on_screen(page, "#dice .die", viewport)
        await on_screen(page, "#scorecard thead th", viewport)
        assert await page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        options = page.locator("#game .score-option")
        await options.nth(await options.count() - 1).evaluate("(b) => b.click()")  # a tap, no scrolling
        if await page.locator("#confirm").is_visible():
            await page.click("#confirm-yes")
    await page.wait_for_function(ROUND_IS, arg=3, timeout=20000)
    assert await page.evaluate("window.scrollY") == 0
    await context.close()
    assert console.errors == []


# A player's name may use any letter of its script, not only those the
# catalogs use: each letter must have a glyph in the bundled font. A letter
# the font lacks draws the same box as a code point no font has (one
# unassigned in the face's unicode-range).
LETTERS = {
    "my": ([(0x1000, 0x109F), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F)], 0xA9FF),
    "gu": ([(0x0A80, 0x0AFF)], 0x0A80),
    "ar": ([(0x0600, 0x06FF), (0x0750, 0x077F)], 0xFBC3),
}
MISSING_GLYPHS = """async ([family, ranges, unassigned]) => {
  await document.fonts.load(`40px "${family}"`, String.fromCodePoint(ranges[0][0] + 0x15));
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const draw = (text) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = `40px "${family}"`;
    ctx.fillText(text, 12, 44);
    return ctx.getImageData(0, 0, 64, 64).data.join();
  };
  const box = draw(String.fromCodePoint(unassigned));
  if (!/[^0,]/.test(box)) return ['the unassigned code point drew nothing'];
  const missing = [];
  for (const [low, high] of ranges) {
    for (let code = low; code <= high; code += 1) {
      const letter = String.fromCodePoint(code);
      if (/[\\p{L}\\p{M}\\p{Nd}]/u.test(letter) && draw(letter) === box) missing.push(code.toString(16));
    }
  }
  return missing;
}"""


@pytest.mark.parametrize("lang", list(LETTERS))
async def test_every_letter_of_the_script_has_a_glyph(live, browser: Browser, lang: str) -> None:  # noqa: F811
    """On a device with no font of its own for the script (the fixture's),
    a name such as પ્રજ્ઞેશ shows no box for a letter the catalogs never use."""
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    await page.goto(f"{live.http}/?lang={lang}")
    await expect(page.locator("#create-submit")).to_have_text(catalog(lang)["home.create_submit"])
    ranges, unassigned = LETTERS[lang]
    missing = await page.evaluate(MISSING_GLYPHS, [FONTS[lang], ranges, unassigned])
    await context.close()
    assert missing == [], f"{lang}: no glyph in the bundled font for U+{', U+'.join(missing)}"
