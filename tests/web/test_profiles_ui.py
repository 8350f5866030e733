"""Players who come back, in Chromium (issue 14's web client): a profile made
silently on the first visit moves to a second browser by sign-in and takes
back its seat there; sign-in errors per field, a limited sign-in's 429; stats
and a celebrated personal best after a solo game; the leaderboard and its
pages; the replay page stepping through a game and checking its dice with
WebCrypto, a tampered roll (served by route interception) named exactly."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, Route, expect

from ..conftest import test_settings
from ..live import server_in_thread
from ..profiles.test_profiles import auth
from .test_client import Console, browser, create_room, live, open_page, play_turn, shots  # noqa: F401  (fixtures)

YOU = "#lobby .players li:has-text('Ana') .tag:text-is('you')"


async def device_profile(page: Page) -> dict[str, Any]:
    """This browser's profile (localStorage), once the first visit has made it."""
    await page.wait_for_function("() => localStorage.getItem('dicecup.profile')")
    return json.loads(await page.evaluate("() => localStorage.getItem('dicecup.profile')"))


async def solo_game_by_api(
    base: str, profile_token: str | None, ruleset: str = "yacht", seed: int = 0, rerolls: float = 0.5
) -> str:
    """A solo game played to its end over REST (random boxes, rerolls with that chance): its room code."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base) as http:
        headers = auth(profile_token) if profile_token else {}
        made = await http.post(
            "/api/rooms", json={"ruleset": ruleset, "name": "Bot-ish", "max_players": 1}, headers=headers
        )
        code, token = made.json()["room"]["code"], made.json()["token"]
        assert (await http.post(f"/api/rooms/{code}/games", headers=auth(token))).status_code == 201
        while (turn := (await http.get(f"/api/rooms/{code}")).json()["game"]["turn"]) is not None:
            if turn["dice"] is None or (turn["rolls_left"] and rng.random() < rerolls):
                keep = [i for i in range(5) if turn["dice"] and rng.random() < 0.5]
                action: dict[str, Any] = {"type": "roll", "keep": keep} if turn["dice"] else {"type": "roll"}
            else:
                action = {"type": "score", "box": rng.choice(sorted(turn["scorable"]))}
            r = await http.post(f"/api/rooms/{code}/actions", json=action, headers=auth(token))
            assert r.status_code == 200, r.text
    return code


async def test_a_profile_moves_to_another_browser_and_takes_back_its_seat(live, browser, shots) -> None:  # noqa: F811
    console = Console()
    ana = await open_page(browser, console)
    code = await create_room(ana, live.http, "Ana", "yacht", 2)
    first = await device_profile(ana)
    seat = json.loads(await ana.evaluate(f"() => sessionStorage.getItem('dicecup.seat.{code}')"))
    async with httpx.AsyncClient(base_url=live.http) as http:
        me = (await http.get("/api/profiles/me", headers=auth(first["token"]))).json()
        history = (await http.get("/api/profiles/me/games", headers=auth(first["token"]))).json()
    assert me["name"] == "Ana"  # the first name typed names the silent profile
    assert [s["player_id"] for s in history["open"]] == [seat["playerId"]]  # the seat is the profile's

    # the profile page: a name, then a username and password (per-field errors first)
    await ana.goto(f"{live.http}/")
    await ana.click("#link-profile")
    await expect(ana.locator("#rename-name")).to_have_value("Ana")
    await ana.fill("#rename-name", "  ")
    await ana.click("#rename-submit")
    await expect(ana.locator("#rename-name-error")).to_have_text("Type a name.")
    await expect(ana.locator("#rename-name")).to_have_attribute("aria-invalid", "true")
    await ana.fill("#rename-name", "Ana K")
    await ana.click("#rename-submit")
    await expect(ana.locator('[data-pf="rename"] [data-done]')).to_be_visible()
    await ana.fill("#credentials-username", "a!")
    await ana.fill("#credentials-password", "short")
    await ana.click("#credentials-submit")
    await expect(ana.locator("#credentials-username-error")).to_contain_text("3 to 32")
    await expect(ana.locator("#credentials-password-error")).to_contain_text("8 to 128")
    username = f"ana_{first['id'][:6]}".replace("-", "_").lower()
    await ana.fill("#credentials-username", username)
    await ana.fill("#credentials-password", "correct horse")
    await ana.click("#credentials-submit")
    await expect(ana.locator('[data-pf="credentials"] [data-done]')).to_be_visible()
    await expect(ana.locator("#credentials-username-error")).to_be_hidden()
    await ana.screenshot(path=shots / "profile.png", full_page=True)
    await ana.goto(f"{live.http}/r/{code}")
    await expect(ana.locator(YOU)).to_have_count(1)

    # another browser: a profile of its own, then sign-in (a wrong password first) gets Ana's
    other = await open_page(browser, Console())  # its 401 is logged by Chromium: not this test's console
    await other.goto(f"{live.http}/")
    await expect(other.locator("#link-signin")).to_be_visible()
    assert (await device_profile(other))["id"] != first["id"]
    await other.click("#link-signin")
    await other.click("#signin-submit")
    await expect(other.locator("#signin-username-error")).to_have_text("Type your username.")
    await expect(other.locator("#signin-password-error")).to_have_text("Type your password.")
    await other.fill("#signin-username", username.upper())  # usernames are case-insensitive
    await other.fill("#signin-password", "wrong horse")
    await other.click("#signin-submit")
    await expect(other.locator("#signin-password-error")).to_have_text("Wrong username or password.")
    await other.fill("#signin-password", "correct horse")
    await other.click("#signin-submit")
    await expect(other.locator("#rename-name")).to_have_value("Ana K")
    assert (await device_profile(other))["id"] == first["id"]

    # history: the open seat first; rejoin takes it back, and the first browser loses it
    await other.goto(f"{live.http}/history")
    rejoin = other.locator(f'#open-seats [data-rejoin="{code}"]')
    await expect(rejoin).to_be_visible()
    await rejoin.click()
    await expect(other).to_have_url(re.compile(f"/r/{code}$"))
    await expect(other.locator(YOU)).to_have_count(1)
    await expect(other.locator("#start-game")).to_be_visible()  # Ana is the host, on this browser now
    await expect(ana.locator("#status")).to_have_text("Watching")
    await expect(ana.locator(YOU)).to_have_count(0)

    # signing out on the second browser leaves the first one signed in
    await other.goto(f"{live.http}/profile")
    await other.click("#sign-out")
    await other.click("#confirm-yes")
    await expect(other.locator("#create-name")).to_be_visible()
    await expect(other.locator("#link-signin")).to_be_visible()
    async with httpx.AsyncClient(base_url=live.http) as http:
        assert (await http.get("/api/profiles/me", headers=auth(first["token"]))).status_code == 200
    assert console.errors == []


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """A server with the rate limits on: two failed sign-ins per address and username a minute."""
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('limited') / 'limited.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url, rate_limits=True, sign_in_failures_per_minute=2)) as server:
        yield server


async def test_a_limited_sign_in_says_when_to_try_again(browser, limited) -> None:  # noqa: F811
    page = await open_page(browser, Console())
    await page.goto(f"{limited.http}/signin")
    await page.fill("#signin-username", "nobody_here")
    for _ in range(2):
        await page.fill("#signin-password", "wrong horse")
        await page.click("#signin-submit")
        await expect(page.locator("#signin-password-error")).to_have_text("Wrong username or password.")
        await expect(page.locator("#signin-submit")).to_be_enabled()
    await page.fill("#signin-password", "wrong horse")
    await page.click("#signin-submit")
    refusal = page.locator('[data-pf="signin"] [data-error-for="_form"]')
    await expect(refusal).to_have_text(re.compile(r"^Too many tries\. Try again in \d+ minutes?\.$"))
    await expect(page.locator("#signin-password-error")).to_be_hidden()


async def test_export_and_delete_from_the_profile_page(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    await page.goto(f"{live.http}/profile")
    profile = await device_profile(page)
    await expect(page.locator("#rename-name")).to_have_value("Player")  # the silent profile's default name
    async with page.expect_download() as download:
        await page.click("#export-data")
    path = await (await download.value).path()
    exported = json.loads(Path(path).read_text(encoding="utf-8"))  # noqa: ASYNC240 (a small file, once)
    assert exported["profile"]["id"] == profile["id"] and exported["tokens"][0]["kind"] == "profile"
    await page.click("#delete-profile")
    await page.click("#confirm-yes")
    await expect(page.locator("#create-name")).to_be_visible()
    async with httpx.AsyncClient(base_url=live.http) as http:
        gone = await http.get(f"/api/profiles/{profile['id']}")
    assert gone.status_code == 404
    assert (await device_profile(page))["id"] != profile["id"]  # home made a new one
    assert console.errors == []


async def test_stats_and_a_new_best_after_a_solo_game(live, browser, shots) -> None:  # noqa: F811
    console = Console()
    page = await open_page(browser, console)
    await page.emulate_media(reduced_motion="reduce")
    code = await create_room(page, live.http, "Solo", "yacht", 1)
    profile = await device_profile(page)
    await page.click("#start-game")
    game = page.locator("#game")
    rng = random.Random(14)
    for _ in range(12):
        await expect(game).to_have_attribute("data-my-turn", "true")
        await play_turn(page, rng)
    await expect(page.locator("#final")).to_be_visible()
    total = int(await page.locator("#final li").first.get_attribute("data-total") or -1)
    best = page.locator("#new-best")
    await expect(best).to_be_visible()
    await expect(best).to_have_attribute("data-total", str(total))
    await expect(best).to_contain_text(f"New personal best: {total} in Yacht!")
    await expect(best).to_contain_text("Your first solo score")
    await page.screenshot(path=shots / "new-best.png", full_page=True)
    await page.click("#new-best-close")
    await expect(best).to_have_count(0)

    await page.goto(f"{live.http}/")
    await page.click("#link-stats")
    card = page.locator("#stats-yacht")
    stat = lambda key: card.locator(f'[data-stat="{key}"] dd')  # noqa: E731
    await expect(stat("games")).to_have_text("1")
    await expect(stat("wins")).to_have_text("1")
    await expect(stat("win-rate")).to_have_text("100%")
    await expect(stat("best")).to_have_text(str(total))
    await expect(stat("solo-best")).to_have_text(str(total))
    await expect(card.locator('[data-stat="upper-bonus"]')).to_have_count(0)  # Yacht has no upper bonus
    bar = card.locator(".histogram li")
    await expect(bar).to_have_count(1)
    await expect(bar).to_have_attribute("data-from", str(total // 25 * 25))
    await expect(bar).to_have_attribute("data-games", "1")
    await page.screenshot(path=shots / "stats.png", full_page=True)

    # a second solo game that does not beat the first: no celebration (played over REST, seen on the stats)
    await solo_game_by_api(live.http, profile["token"], seed=3)
    async with httpx.AsyncClient(base_url=live.http) as http:
        stats = (await http.get(f"/api/profiles/{profile['id']}/stats")).json()["rulesets"]["yacht"]
    await page.reload()
    await expect(stat("games")).to_have_text("2")
    await expect(stat("solo-best")).to_have_text(str(stats["solo_best"]))
    assert (await http_room(live.http, code))["status"] == "finished"
    assert console.errors == []


async def http_room(base: str, code: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as http:
        room: dict[str, Any] = (await http.get(f"/api/rooms/{code}")).json()
        return room


async def test_the_leaderboard_pages_and_links_each_entry_to_its_replay(live, browser, shots) -> None:  # noqa: F811
    async with httpx.AsyncClient(base_url=live.http) as http:
        tokens = [(await http.post("/api/profiles", json={"name": f"Board {i}"})).json() for i in range(3)]
    for i, made in enumerate(tokens):
        await solo_game_by_api(live.http, made["token"], ruleset="yatzy", seed=100 + i, rerolls=0)
    async with httpx.AsyncClient(base_url=live.http) as http:
        board = (await http.get("/api/leaderboards/yatzy", params={"limit": 100})).json()["entries"]
    assert len(board) >= 3
    console = Console()
    page = await open_page(browser, console)

    async def late(route: Route) -> None:  # the first board's answer comes after the chosen one's
        await asyncio.sleep(1.5)
        await route.continue_()

    await page.route(re.compile(r"/api/leaderboards/yahtzee\b"), late)
    await page.goto(f"{live.http}/")
    async with page.expect_event("requestfinished", lambda r: "/api/leaderboards/yahtzee" in r.url, timeout=15_000):
        await page.click("#link-leaderboards")
        await page.select_option("#board-ruleset", "yatzy")
        await expect(page).to_have_url(re.compile(r"ruleset=yatzy"))
    await page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # the late answer is read
    rows = page.locator("#board-table tbody tr")
    await expect(rows).to_have_count(len(board))
    # the rows' profiles in the board's order, read in one go in the page (the table can be redrawn
    # between two reads from here), until they are the board's
    await page.wait_for_function(
        """(ids) => JSON.stringify([...document.querySelectorAll('#board-table tbody tr')]
            .map((row) => row.dataset.profile)) === JSON.stringify(ids)""",
        arg=[e["profile_id"] for e in board],
        timeout=5000,
    )
    await page.screenshot(path=shots / "leaderboard.png", full_page=True)

    # pages of two
    await page.goto(f"{live.http}/leaderboards?ruleset=yatzy&limit=2")
    await expect(rows).to_have_count(2)
    await expect(page.locator("#board-prev")).to_be_disabled()
    await page.click("#board-next")
    await expect(rows.first).to_have_attribute("data-rank", "3")
    await expect(page.locator("#board-prev")).to_be_enabled()
    await page.click("#board-prev")
    await expect(rows.first).to_have_attribute("data-rank", "1")

    # ratings: nobody rated in Yatzy (solo games are not rated)
    await page.select_option("#board-kind", "rating")
    await expect(page.locator("#board-empty")).to_be_visible()
    await page.select_option("#board-kind", "best")
    await page.select_option("#board-period", "week")
    await expect(rows.first).to_have_attribute("data-rank", "1")

    # each entry links to its game's replay
    link = rows.first.locator("a.replay-link")
    game = board[0]["game"]
    await expect(link).to_have_attribute("href", f"r/{game['room_code']}/games/{game['number']}")
    await link.click()
    await expect(page).to_have_url(re.compile(f"/r/{game['room_code']}/games/{game['number']}$"))
    await expect(page.locator("#fair-check")).to_have_attribute("data-state", "verified")
    assert console.errors == []


async def test_the_replay_steps_through_a_game_and_verifies_its_dice(live, browser, shots) -> None:  # noqa: F811
    code = await solo_game_by_api(live.http, None, ruleset="yahtzee", seed=7)
    async with httpx.AsyncClient(base_url=live.http) as http:
        events = (await http.get(f"/api/rooms/{code}/events", params={"limit": 1000})).json()["events"]
    moves = [e for e in events if e["type"] in ("rolled", "kept", "scored", "game_finished")]
    rolls = len(events[[e["type"] for e in events].index("game_started")]["data"]["rolloff"][0]) + sum(
        e["type"] == "rolled" for e in events
    )
    console = Console()
    page = await open_page(browser, console)
    await page.goto(f"{live.http}/r/{code}/games/1")
    check = page.locator("#fair-check")
    await expect(check).to_have_attribute("data-state", "verified")
    await expect(check).to_have_attribute("data-rolls", str(rolls))
    await expect(check).to_contain_text("Verified")
    replay = page.locator("#replay")
    await expect(replay).to_have_attribute("data-step", "0")
    await expect(page.locator("#replay-step")).to_contain_text(f"Move 0 of {len(moves)}")

    # buttons
    await page.click("#replay-next")
    await expect(replay).to_have_attribute("data-kind", "rolled")
    first_roll = next(e for e in events if e["type"] == "rolled")
    faces = [int(await d.get_attribute("data-face") or 0) for d in await page.locator("#replay-dice .die").all()]
    assert faces == first_roll["data"]["dice"]
    await page.click("#replay-last")
    await expect(replay).to_have_attribute("data-kind", "finished")
    totals = {p: c["total"] for p, c in (await http_room(live.http, code))["game"]["scorecards"].items()}
    player = next(iter(totals))
    await expect(page.locator(f'#replay-card tr[data-box="total"] td[data-player="{player}"]')).to_have_text(
        str(totals[player])
    )
    await expect(page.locator("#replay-next")).to_be_disabled()
    # keyboard: arrows, Home, End; space plays and pauses
    await page.locator("#replay-title").focus()
    await page.keyboard.press("Home")
    await expect(replay).to_have_attribute("data-step", "0")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await expect(replay).to_have_attribute("data-step", "2")
    await page.keyboard.press("ArrowLeft")
    await expect(replay).to_have_attribute("data-step", "1")
    await page.keyboard.press("Space")
    await expect(page.locator("#replay-play")).to_have_attribute("aria-pressed", "true")
    await expect(replay).to_have_attribute("data-step", "3", timeout=5000)
    await page.keyboard.press("Space")
    await expect(page.locator("#replay-play")).to_have_attribute("aria-pressed", "false")
    step = await replay.get_attribute("data-step")
    await page.wait_for_timeout(1200)
    assert await replay.get_attribute("data-step") == step  # paused
    await page.keyboard.press("End")
    await expect(replay).to_have_attribute("data-step", str(len(moves)))
    await page.screenshot(path=shots / "replay.png", full_page=True)
    assert console.errors == []


async def test_the_replay_names_a_tampered_roll(live, browser, shots) -> None:  # noqa: F811
    code = await solo_game_by_api(live.http, None, ruleset="yacht", seed=21)
    async with httpx.AsyncClient(base_url=live.http) as http:
        events = (await http.get(f"/api/rooms/{code}/events", params={"limit": 1000})).json()["events"]
    rolled = [e for e in events if e["type"] == "rolled" and not all(e["data"]["kept"])]
    target = rolled[len(rolled) // 2]
    position = target["data"]["kept"].index(False)
    tampered_dice = list(target["data"]["dice"])
    tampered_dice[position] = tampered_dice[position] % 6 + 1
    rolloff = len(events[[e["type"] for e in events].index("game_started")]["data"]["rolloff"][0])
    roll_number = rolloff + [e["version"] for e in events if e["type"] == "rolled"].index(target["version"])

    async def tamper(route: Route) -> None:
        response = await route.fetch()
        body = await response.json()
        for event in body["events"]:
            if event["version"] == target["version"]:
                event["data"]["dice"] = tampered_dice
        await route.fulfill(response=response, json=body)

    console = Console()
    page = await open_page(browser, console)
    await page.route(re.compile(rf"/api/rooms/{code}/events"), tamper)
    await page.goto(f"{live.http}/r/{code}/games/1")
    check = page.locator("#fair-check")
    await expect(check).to_have_attribute("data-state", "failed")
    await expect(check).to_have_attribute("data-failed-version", str(target["version"]))
    await expect(check).to_have_attribute("data-failed-roll", str(roll_number))
    shown = " ".join(map(str, tampered_dice))
    expected = " ".join(map(str, target["data"]["dice"]))
    await expect(check).to_contain_text(f"Check failed at roll {roll_number} (Bot-ish, round ")
    await expect(check).to_contain_text(f"the game shows {shown}, the seed gives {expected}.")
    await page.click("#replay-goto-bad")
    await expect(page.locator("#replay")).to_have_attribute("data-version", str(target["version"]))
    await expect(page.locator("#replay-roll-check")).to_have_text(
        f"This roll is not the seed's: the seed gives {expected}."
    )
    await page.screenshot(path=shots / "replay-tampered.png", full_page=True)
    assert console.errors == []


@pytest.mark.parametrize("path", ["/profile", "/signin", "/history", "/stats", "/leaderboards", "/r/ABCDEF/games/1"])
async def test_the_pages_are_served(live, path: str) -> None:  # noqa: F811
    async with httpx.AsyncClient(base_url=live.http) as http:
        r = await http.get(path)
    assert r.status_code == 200 and '<base href="/">' in r.text
