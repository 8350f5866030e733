"""What a player must see wherever the page is scrolled (issue 26, items 5-7), on a
phone (390x844, touch, a mobile browser, taps) and a desktop (1280x800), in English
and Arabic: the tray (dice, Roll) in view when the computer moves first, on each of
the player's turns after, and after Play again; the room's link opened again (a new
tab, another device of the profile) taking the seat back instead of watching; the
turn's help on phones; chat that arrives out of view shown by a badge that leads to
it; "kept" clear of the pips (Burmese too); a focus ring unlike the kept one.
Screenshots: test-artifacts/screenshots/phone-play-*.png."""

from __future__ import annotations

import functools
import json
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from app.rooms.bots import BOT_SPEEDS
from app.rules import FairDice, new_game

from ..conftest import test_settings
from ..live import eventually, server_in_thread
from ..table import Table
from .test_client import Console, browser, open_device, shots, tap  # noqa: F401  (fixtures)
from .test_languages import catalog

devices = pytest.mark.parametrize("device", ["phone", "desktop"])
langs = pytest.mark.parametrize("lang", ["en", "ar"])


@pytest.fixture(scope="module")
def paced(tmp_path_factory, strategy_tables):
    """A server whose bots take their time, as on a real one (a turn of a few seconds at the
    rooms' default speed): what the player sees while the computer moves can be looked at."""
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('paced') / 'paced.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url, bot_delay=1.0)) as server:
        yield server


@pytest.fixture
def instant_bots(monkeypatch):
    """Bots that move at once (the rooms' default speed, scaled to nothing)."""
    monkeypatch.setitem(BOT_SPEEDS, "normal", 0.0)


@functools.cache
def computer_first() -> bytes:
    """A fair-dice seed whose roll-off the second seat wins (the computer, in "Play against the
    computer"): searched in order, the same seed every run."""
    for i in range(10_000):
        seed = f"dicecup-computer-first-{i}".encode().ljust(32, b".")[:32]
        if new_game("yahtzee", ["me", "bot"], FairDice(seed)).state.order[0] == "bot":
            return seed
    raise AssertionError("no seed found")


IN_VIEW = """(selector) => { const node = document.querySelector(selector); if (!node) return false;
  const box = node.getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight; }"""


async def in_view(page: Page, *selectors: str) -> None:
    """Each element comes (or is) wholly inside the screen as the page is scrolled now."""
    for selector in selectors:
        await page.wait_for_function(IN_VIEW, arg=selector, timeout=5000)


async def seat_of(page: Page, code: str) -> dict[str, Any]:
    seat: dict[str, Any] = json.loads(await page.evaluate(f"() => sessionStorage.getItem('dicecup.seat.{code}')"))
    return seat


async def vs_computer(page: Page, base: str) -> str:
    """One tap on "Play against the computer": the room's code, the game on screen."""
    await page.goto(base + "/")
    await tap(page, "#vs-computer-play")
    await expect(page.locator("#game")).to_be_visible()
    return page.url.rsplit("/", 1)[1]


async def finish_by_api(base: str, code: str, seat: dict[str, Any]) -> None:
    """The rest of the game, the player's turns over REST (roll once, score the first box open)."""
    me = seat["playerId"]
    async with httpx.AsyncClient(base_url=base) as http:
        table = Table(http, code=code, tokens={me: seat["token"]})

        async def my_turn_or_over() -> dict[str, Any] | None:
            room = await table.room()
            over = room["status"] != "playing"
            return room if over or room["game"]["turn"]["player_id"] == me else None

        while (room := await eventually(my_turn_or_over, timeout=30))["status"] == "playing":
            turn = room["game"]["turn"]
            action = {"type": "roll"} if turn["dice"] is None else {"type": "score", "box": sorted(turn["scorable"])[0]}
            assert (await table.act(me, **action)).status_code == 200


# ---------------------------------------------------------------- 5: the tray when the computer moves first


@devices
@langs
async def test_the_tray_is_in_view_when_the_computer_starts(paced, browser, shots, monkeypatch, device, lang) -> None:  # noqa: F811
    seed = computer_first()
    # the server runs in this process: each game gets that seed (its commitment, reveal, all as usual)
    monkeypatch.setattr(FairDice, "new", classmethod(lambda cls: cls(seed)))
    console = Console()
    page = await open_device(browser, console, device, lang)
    code = await vs_computer(page, paced.http)
    game = page.locator("#game")
    me = (await seat_of(page, code))["playerId"]
    # the computer's turn: it plays it at its pace, the tray in view all along
    await expect(game).not_to_have_attribute("data-turn-player", me)
    await in_view(page, "#turn-banner", "#dice")
    await page.screenshot(path=shots / f"phone-play-computer-first-{device}-{lang}.png")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=30_000)
    await in_view(page, "#dice", "#roll")

    # the rest of game 1 (the computer at once), then Play again from the foot of the end screen
    monkeypatch.setitem(BOT_SPEEDS, "normal", 0.0)
    await finish_by_api(paced.http, code, await seat_of(page, code))
    await expect(page.locator("#final")).to_be_visible(timeout=30_000)
    # the score pad and the scorecard under it show the players in one order (the turns')
    pad = await page.locator("#score-pad thead th").evaluate_all("(h) => h.map((x) => x.dataset.player)")
    card = await page.locator("#end .scorecard thead th").evaluate_all("(h) => h.slice(1).map((x) => x.title)")
    async with httpx.AsyncClient(base_url=paced.http) as http:
        room = (await http.get(f"/api/rooms/{code}")).json()
    names = {p["id"]: p["name"] for p in room["players"]}
    assert [names[p] for p in pad] == card == [names[p] for p in room["game"]["order"]]
    assert room["game"]["order"][0] != me  # the computer went first: turn order is not seat order
    monkeypatch.setitem(BOT_SPEEDS, "normal", 1.0)
    await page.evaluate("() => scrollTo(0, document.documentElement.scrollHeight)")
    await tap(page, "#play-again")
    await expect(page.locator("#app")).to_have_attribute("data-status", "playing")
    await expect(game).not_to_have_attribute("data-turn-player", me)
    await in_view(page, "#turn-banner", "#dice")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=30_000)
    await in_view(page, "#dice", "#roll")
    await page.screenshot(path=shots / f"phone-play-again-{device}-{lang}.png")
    assert console.errors == []


# ---------------------------------------------------------------- 6: the room's link opened again


@devices
@langs
async def test_the_rooms_link_opened_again_takes_the_seat_back(paced, browser, instant_bots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    code = await vs_computer(page, paced.http)
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20_000)
    await tap(page, "#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    await tap(page, "#die-0")
    await expect(game).to_have_attribute("data-kept", "0")

    # the link opened again in a new tab (as from a chat app): the game goes on there, not watched
    again = console.watch(await page.context.new_page())
    await again.goto(page.url)
    await expect(again.locator("#game")).to_have_attribute("data-my-turn", "true")
    await expect(again.locator("#status")).to_have_attribute("data-state", "online")
    await expect(again.locator("#status")).not_to_have_text(words["status.spectator"])
    await expect(again.locator("#die-0")).to_have_attribute("aria-pressed", "true")
    await in_view(again, "#dice", "#roll")
    await tap(again, "#die-1")  # and it plays: the first tab sees it
    await expect(game).to_have_attribute("data-kept", "0,1")

    # another device of the same profile (signed in there): it takes the seat back from this one
    profile = await page.evaluate("() => localStorage.getItem('dicecup.profile')")
    other = await open_device(browser, console, device, lang, **{"dicecup.profile": profile})
    await other.goto(page.url)
    await expect(other.locator("#game")).to_have_attribute("data-my-turn", "true", timeout=30_000)  # a cold page
    await expect(other.locator("#die-1")).to_have_attribute("aria-pressed", "true")
    for tab in (page, again):  # the old token stops working: those tabs watch now
        await expect(tab.locator("#status")).to_have_text(words["status.spectator"])
    # "Watch instead" (a friend at this browser): the tab lets the seat go, also after a reload
    name = (await seat_of(other, code))["name"]
    watch = other.locator("#watch-instead")
    await expect(watch).to_have_text(message(words, "room.watch_instead", name=name))
    await watch.click()
    await expect(other.locator("#status")).to_have_text(words["status.spectator"])
    await other.reload()
    await expect(other.locator("#status")).to_have_text(words["status.spectator"])
    await expect(other.locator("#resume-seat")).to_be_visible()
    assert console.errors == []


# ---------------------------------------------------------------- 7: help, kept, focus, chat


PIPS_CLEAR = """(die) => {
  const label = die.querySelector('.kept-label').getBoundingClientRect();
  const face = die.querySelector('svg').getBoundingClientRect();
  const overlaps = [...die.querySelectorAll('svg circle')].map((c) => c.getBoundingClientRect())
    .filter((p) => p.left < label.right && label.left < p.right && p.top < label.bottom && label.top < p.bottom);
  return { overlaps: overlaps.length, label: [label.left, label.top, label.width, label.height],
           below: label.top >= face.top + face.height * 0.84 - 0.5 };
}"""


@devices
@pytest.mark.parametrize("lang", ["en", "ar", "my"])
async def test_the_turn_help_kept_dice_and_the_focus_ring(paced, browser, shots, instant_bots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    await vs_computer(page, paced.http)
    game = page.locator("#game")
    await expect(game).to_have_attribute("data-my-turn", "true", timeout=20_000)
    await tap(page, "#roll")
    await expect(game).to_have_attribute("data-rolls-left", "2")
    # how to hold dice is said on every screen, in the tray: on a phone in one short line
    phone, desktop = page.locator("#turn-tip"), page.locator("#game .turn-help")
    shown, hidden = (phone, desktop) if device == "phone" else (desktop, phone)
    await expect(shown).to_have_text(words["game.tip_keep" if device == "phone" else "game.pick_box"])
    await expect(shown).to_be_visible()
    await expect(hidden).to_be_hidden()
    await in_view(page, "#turn-tip" if device == "phone" else "#game .turn-help", "#roll")
    # every die kept: the word is under the pips, never on them
    for i in range(5):
        await tap(page, f"#die-{i}")
    await expect(game).to_have_attribute("data-kept", "0,1,2,3,4")
    for i in range(5):
        die = page.locator(f"#die-{i}")
        await expect(die.locator(".kept-label")).to_have_text(words["game.kept"])
        await expect(die.locator(".kept-label")).to_be_visible()
        clear = await die.evaluate(PIPS_CLEAR)
        assert clear["overlaps"] == 0 and clear["below"], (i, clear)
    await page.locator("#dice").screenshot(path=shots / f"phone-play-kept-{device}-{lang}.png")
    # the keyboard's focus ring is not the kept one: another colour, outside the die's edge
    await tap(page, "#die-1")
    await expect(game).to_have_attribute("data-kept", "0,2,3,4")
    await page.keyboard.press("Shift")  # a key pressed: focus from here on is shown (:focus-visible)
    await page.focus("#die-1")
    rings = await page.evaluate(
        """() => { const s = (id) => getComputedStyle(document.getElementById(id));
          const focused = s('die-1'), kept = s('die-0');
          return { visible: document.getElementById('die-1').matches(':focus-visible'),
                   outline: focused.outlineStyle, outlineColor: focused.outlineColor,
                   offset: parseFloat(focused.outlineOffset),
                   border: focused.borderTopColor, keptBorder: kept.borderTopColor,
                   keptOutline: kept.outlineStyle }; }"""
    )
    assert rings["visible"] and rings["outline"] != "none" and rings["offset"] > 0, rings
    assert rings["outlineColor"] != rings["keptBorder"], rings  # not the kept blue
    assert rings["border"] == "rgba(0, 0, 0, 0)" and rings["keptOutline"] == "none", rings
    await page.locator("#dice").screenshot(path=shots / f"phone-play-focus-{device}-{lang}.png")
    assert console.errors == []


@devices
@langs
async def test_chat_out_of_view_shows_a_badge_leading_to_it(paced, browser, shots, device, lang) -> None:  # noqa: F811
    words = catalog(lang)
    console = Console()
    page = await open_device(browser, console, device, lang)
    await page.goto(paced.http + "/")
    await page.fill("#create-name", "Ana")
    await tap(page, "#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    code = page.url.rsplit("/", 1)[1]
    async with httpx.AsyncClient(base_url=paced.http) as http:
        table = Table(http, code=code)
        ben = await table.join("Ben")
        await expect(page.locator("#lobby .players li")).to_have_count(2)
        await tap(page, "#start-game")
        await expect(page.locator("#game")).to_be_visible()
        await page.evaluate("() => scrollTo(0, 0)")
        assert not await page.evaluate(IN_VIEW, "#chat")  # the chat is below the game

        async def say(body: dict[str, str]) -> None:
            r = await http.post(f"/api/rooms/{code}/chat", json=body, headers=table.auth(table.tokens[ben]))
            assert r.status_code in (200, 201), r.text

        await say({"text": "good luck"})
        badge = page.locator("#chat-badge")
        await expect(badge).to_be_visible()
        await in_view(page, "#chat-badge")
        await expect(badge).to_have_attribute("aria-label", one_or_other(words, "chat.unread", 1))
        await expect(page.locator("#announce")).to_have_text(message(words, "chat.said", name="Ben", text="good luck"))
        await say({"reaction": "🎉"})
        await expect(badge).to_have_attribute("aria-label", one_or_other(words, "chat.unread", 2))
        await expect(badge.locator(".count")).to_have_text("2")
        await page.screenshot(path=shots / f"phone-play-chat-badge-{device}-{lang}.png")
        await tap(page, "#chat-badge")
        await in_view(page, "#chat-log")
        await expect(page.locator("#chat-log li")).to_have_count(2)
        await expect(badge).to_have_count(0)
        # read where it is: what comes now is not counted
        await say({"text": "your turn"})
        await expect(page.locator("#chat-log li")).to_have_count(3)
        await expect(badge).to_have_count(0)
    assert console.errors == []


def one_or_other(words: dict[str, Any], key: str, count: int) -> str:
    """A plural message as the client picks it for `count` (the catalogs' forms for 1, 2)."""
    forms = {1: ["one", "other"], 2: ["two", "other"]}[count]
    form = next(f for f in forms if f"{key}.{f}" in words)
    return str(words[f"{key}.{form}"]).replace("{count}", str(count))


def message(words: dict[str, Any], key: str, **names: str) -> str:
    """A message as the client fills it: in a right-to-left language each name isolated (FSI ... PDI)."""
    rtl = words["_meta"]["dir"] == "rtl"
    text = str(words[key])
    for name, value in names.items():
        text = text.replace(f"{{{name}}}", f"\u2068{value}\u2069" if rtl else value)
    return text
