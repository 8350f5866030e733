"""Chat, reactions, the host's mute and hints in multiplayer, in Chromium: two
browser contexts (the host on a desktop, a guest on a phone) chat and react;
messages are shown as text (never markup), announced politely and still there
after a reload; the host mutes the guest; a hint the host uses shows in the
guest's log and on the final scores. Screenshots: test-artifacts/screenshots/chat-*.png."""

from __future__ import annotations

import random

import pytest
from playwright.async_api import Page, expect

from .test_client import Console, browser, create_room, join_room, live, open_page, play_turn, shots, whose_turn  # noqa: F401

DESKTOP = {"width": 1280, "height": 800}
PHONES = {"360x740": {"width": 360, "height": 740}, "390x844": {"width": 390, "height": 844}}


async def player_id(page: Page, name: str) -> str:
    found = await page.locator(f"#lobby .players li:has-text('{name}')").get_attribute("data-player")
    assert found
    return found


async def below(page: Page, lower: str, upper: str) -> None:
    """``lower`` starts at or below the bottom of ``upper`` (page coordinates)."""
    a, b = await page.locator(lower).bounding_box(), await page.locator(upper).bounding_box()
    assert a is not None and b is not None, (lower, upper)
    assert a["y"] >= b["y"] + b["height"] - 1, (lower, a, upper, b)


@pytest.mark.parametrize("phone", list(PHONES))
async def test_two_players_chat_react_mute_and_see_hints(live, browser, shots, phone) -> None:  # noqa: F811
    console = Console()
    viewport = PHONES[phone]
    ana = await open_page(browser, console, DESKTOP)
    # hints: off by default with other players, on for a solo game; the creator chooses
    await ana.goto(live.http + "/")
    await ana.select_option("#create-seats", "1")
    await expect(ana.locator("#create-hints")).to_be_checked()
    await ana.select_option("#create-seats", "2")
    await expect(ana.locator("#create-hints")).not_to_be_checked()
    await expect(ana.locator("#create-chat")).to_be_checked()
    code = await create_room(ana, live.http, "Ana", "yacht", 2, hints=True)
    ben = await open_page(browser, console, viewport)
    await join_room(ben, live.http, code, "Ben")
    ana_id, ben_id = await player_id(ana, "Ana"), await player_id(ana, "Ben")

    # Ben writes markup: everyone sees it as text, and the host's screen reader hears it
    text = "<b>hi</b> Ana <img src=x onerror=alert(1)>"
    await ben.fill("#chat-input", text)
    await ben.press("#chat-input", "Enter")
    await expect(ben.locator("#chat-input")).to_have_value("")
    for page in (ana, ben):
        await expect(page.locator("#chat-log li .what")).to_have_text([text])
        await expect(page.locator("#chat-log b, #chat-log img")).to_have_count(0)
    await expect(ana.locator("#announce")).to_have_text(f"Ben says: {text}")
    await expect(ana.locator("#announce")).to_have_attribute("aria-live", "polite")
    # Ana reacts
    await ana.click("#chat-reactions [data-reaction='👏']")
    await expect(ben.locator("#chat-log li .what.reaction")).to_have_text(["👏"])
    await expect(ben.locator("#announce")).to_have_text("Ana reacted 👏")
    # an empty message is refused with the server's reason and changes nothing
    await ben.fill("#chat-input", "   ")
    await ben.click("#chat-send")
    await expect(ben.locator("#toast")).to_have_text("Write something first.")
    await expect(ana.locator("#chat-log li")).to_have_count(2)
    await ben.screenshot(path=shots / f"chat-lobby-{phone}.png", full_page=True)

    # only the host has the mute control, and not on their own seat
    await expect(ben.locator("[data-action='mute']")).to_have_count(0)
    await expect(ana.locator(f"#mute-{ana_id}")).to_have_count(0)
    await ana.click(f"#mute-{ben_id}")
    await expect(ben.locator("#chat-note")).to_have_text("The host muted your chat.")
    await expect(ben.locator("#chat-form")).to_be_hidden()
    await expect(ben.locator("#chat-reactions")).to_be_hidden()
    await expect(ana.locator(f"#lobby li[data-player='{ben_id}'] .tag.muted")).to_be_visible()
    await expect(ana.locator(".log")).to_contain_text("The host muted Ben")
    await ana.click(f"#mute-{ben_id}")  # and back
    await expect(ben.locator("#chat-form")).to_be_visible()
    await ben.fill("#chat-input", "thanks")
    await ben.press("#chat-input", "Enter")
    await expect(ana.locator("#chat-log li .what")).to_have_text([text, "👏", "thanks"])

    # after a reload the chat is still there
    await ben.reload()
    await expect(ben.locator("#chat-log li .what")).to_have_text([text, "👏", "thanks"])

    await ana.click("#start-game")
    rng = random.Random(7)
    hinted = False
    turns = 0
    while (mover := await whose_turn(ana, ben)) is not None:
        if mover is ana and not hinted:
            await ana.click("#roll")
            await expect(ana.locator("#game")).to_have_attribute("data-rolls-left", "2")
            await ana.click("#hint")
            await expect(ana.locator("#hint-panel")).to_be_visible()
            # the opponent's log says so (never what the hint was)
            await expect(ben.locator(".log")).to_contain_text("Ana used a hint")
            hinted = True
            await ana.locator("button.score-option").first.click()
            if await ana.locator("#confirm").is_visible():
                await ana.click("#confirm-yes")
        else:
            await play_turn(mover, rng)
        turns += 1
        if turns == 2:
            # on the phone the chat is below the scorecard and the tray: it pushes neither
            await ben.evaluate("window.scrollTo(0, 0)")
            await below(ben, "#chat", "#card-scores")
            dice = await ben.locator("#dice").bounding_box()
            assert dice is not None and dice["y"] + dice["height"] <= viewport["height"], dice
            assert await ben.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            await ben.screenshot(path=shots / f"chat-playing-{phone}.png")
        await expect(mover.locator('#game[data-my-turn="true"]')).to_have_count(0)
    assert hinted and turns == 24
    # the final scores count each player's hints
    for page in (ana, ben):
        await expect(page.locator(f"#final li[data-player='{ana_id}']")).to_have_attribute("data-hints", "1")
        await expect(page.locator(f"#final li[data-player='{ben_id}']")).to_have_attribute("data-hints", "0")
        await expect(page.locator(f"#final li[data-player='{ana_id}'] .hints-used")).to_have_text("Hints used: 1")
    await ben.screenshot(path=shots / f"chat-final-{phone}.png", full_page=True)
    await ana.screenshot(path=shots / "chat-final-1280x800.png", full_page=True)
    assert console.errors == []


async def test_a_room_without_chat_shows_none(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console, DESKTOP)
    await page.goto(live.http + "/")
    await page.fill("#create-name", "Ana")
    await page.uncheck("#create-chat")
    await page.click("#create-submit")
    await expect(page.locator("#lobby")).to_be_visible()
    await expect(page.locator("#chat")).to_have_count(0)
    await expect(page.locator("[data-action='mute']")).to_have_count(0)
    assert console.errors == []
