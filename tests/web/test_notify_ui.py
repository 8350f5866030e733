"""The web client's turn notifications control in Chromium (app/web/static/js/notify.js).

Headless Chromium has no push service: ``pushManager.subscribe`` fails there
("Registration failed - permission denied") even with the permission granted.
So the tests check (1) that the real path ends in the control's "failed"
state and stores nothing, and (2), with ``PushManager.prototype.subscribe``
replaced by a stand-in returning a subscription whose keys the test holds,
that the control asks permission only on the click, subscribes with the
server's VAPID key, sends exactly the subscription it got, and turns off
again; then a turn starting while the page is closed reaches the tests'
push service and decrypts. (3) ``sw.js``'s push handler is driven through
the DevTools protocol (ServiceWorker.deliverPushMessage) and the
notification it shows is read back. A click on the notification is not
covered (headless Chromium cannot click one)."""

import asyncio
import json
import random
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from ..conftest import test_settings
from ..live import eventually, server_in_thread
from ..notify.receiver import Receiver, decrypt
from ..notify.test_push import PUSH, stored, until_turn_of
from ..table import Table
from .test_client import Console, browser, shots  # noqa: F401 (fixtures)

STAND_IN = """
(() => {
  const fake = (window.__push = { requested: 0, keys: [], unsubscribed: 0, sub: null });
  const request = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = async (...args) => {
    fake.requested += 1;
    return request(...args);
  };
  const json = JSON.parse(%s);
  if (!json) return;
  PushManager.prototype.subscribe = async function (options) {
    fake.keys.push(Array.from(new Uint8Array(options.applicationServerKey)));
    fake.sub = {
      endpoint: json.endpoint,
      options: { applicationServerKey: options.applicationServerKey },
      toJSON: () => json,
      unsubscribe: async () => { fake.unsubscribed += 1; fake.sub = null; return true; },
    };
    return fake.sub;
  };
  PushManager.prototype.getSubscription = async function () { return fake.sub; };
})();
"""


@pytest.fixture(scope="module")
def receiver():
    with Receiver() as push_service:
        yield push_service


@pytest.fixture(scope="module")
def live(tmp_path_factory, receiver):
    from app.db.migrate import upgrade

    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('notify') / 'web.db'}"
    upgrade(url)
    with server_in_thread(test_settings(url, **PUSH)) as server:
        server.database_url = url  # type: ignore[attr-defined]
        yield server


async def ben_page(
    browser,  # noqa: F811
    console: Console,
    stand_in: dict[str, Any] | None,
    viewport=None,
    permissions=("notifications",),
) -> Page:
    context = await browser.new_context(
        viewport=viewport or {"width": 1280, "height": 800}, permissions=list(permissions)
    )
    await context.add_init_script(STAND_IN % json.dumps(json.dumps(stand_in)))
    return console.watch(await context.new_page())


async def seat_ben(page: Page, live, http: httpx.AsyncClient) -> Table:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2)
    await page.goto(f"{live.http}/r/{table.code}")
    await page.fill("#join-name", "Ben")
    await page.click("#join-submit")
    await expect(page.locator("#lobby .players li:has-text('Ben') .tag").first).to_have_text("you")
    room = await table.room()
    table.tokens["ben"] = next(p["id"] for p in room["players"] if p["name"] == "Ben")
    return table


async def test_headless_chromium_cannot_subscribe_and_the_control_says_so(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await ben_page(browser, console, None)
    async with httpx.AsyncClient(base_url=live.http) as http:
        table = await seat_ben(page, live, http)
        toggle = page.locator("#notify-toggle")
        await expect(toggle).to_have_text("Notify me when it is my turn")
        await expect(toggle).to_have_attribute("aria-pressed", "false")
        await page.evaluate("navigator.serviceWorker.ready")
        assert await page.evaluate("window.__push.requested") == 0  # nothing asked before the click
        await toggle.click()
        await expect(page.locator(".notify")).to_have_attribute("data-state", "failed")
        await expect(page.locator("#notify-note")).to_have_text("This browser could not turn on notifications.")
        await expect(toggle).to_have_attribute("aria-pressed", "false")
        assert await page.evaluate("window.__push.requested") == 1
        assert await stored(live.database_url, table.tokens["ben"]) == 0
    # Chromium's own word for why (Playwright's contexts are incognito ones): not the client's error
    assert [e for e in console.errors if "Push API in incognito" not in e] == [], console.errors


async def test_blocked_notifications_are_said_on_the_click_and_nothing_is_stored(live, browser, receiver) -> None:  # noqa: F811
    console = Console()
    # headless Chromium answers a permission request "denied" unless the context grants it
    page = await ben_page(browser, console, receiver.browser("blocked").subscription(), permissions=())
    async with httpx.AsyncClient(base_url=live.http) as http:
        table = await seat_ben(page, live, http)
        toggle = page.locator("#notify-toggle")
        await expect(toggle).to_be_enabled()
        await expect(page.locator("#notify-note")).to_have_count(0)  # nothing said before the player asks
        await toggle.click()
        await expect(page.locator(".notify")).to_have_attribute("data-state", "denied")
        await expect(page.locator("#notify-note")).to_contain_text("Notifications are blocked for this site")
        assert await page.evaluate("window.__push.keys") == []  # never subscribed
        assert await stored(live.database_url, table.tokens["ben"]) == 0
    assert not console.errors, console.errors


async def test_the_control_sends_the_subscription_it_got_and_the_turn_push_arrives(
    live,
    browser,  # noqa: F811
    receiver: Receiver,
    shots,  # noqa: F811
) -> None:
    console = Console()
    device = receiver.browser("chromium")
    subscription = device.subscription()
    page = await ben_page(browser, console, subscription)
    async with httpx.AsyncClient(base_url=live.http) as http:
        key = (await http.get("/api/push/key")).json()["public_key"]
        table = await seat_ben(page, live, http)
        ben = table.tokens["ben"]
        toggle = page.locator("#notify-toggle")
        await page.evaluate("navigator.serviceWorker.ready")
        assert await page.evaluate("window.__push.requested") == 0
        await toggle.click()
        await expect(page.locator(".notify")).to_have_attribute("data-state", "on")
        await expect(toggle).to_have_attribute("aria-pressed", "true")
        await expect(toggle).to_have_text("Turn off turn notifications")
        await expect(page.locator("#notify-note")).to_contain_text("when your turn starts")
        # subscribed with the server's key, and the server has what pushManager gave
        served = list(__import__("base64").urlsafe_b64decode(key + "=="))
        assert await page.evaluate("window.__push.keys") == [served]
        assert await stored(live.database_url, ben) == 1
        # off: the server forgets it, and (no other room uses it) the browser's subscription goes
        await toggle.click()
        await expect(page.locator(".notify")).to_have_attribute("data-state", "off")
        await expect(toggle).to_have_attribute("aria-pressed", "false")
        assert await stored(live.database_url, ben) == 0
        assert await page.evaluate("window.__push.unsubscribed") == 1
        # on again, then Ben closes the page: his turn comes by push
        await toggle.click()
        await expect(page.locator(".notify")).to_have_attribute("data-state", "on")
        await page.reload()
        await expect(toggle).to_have_attribute("aria-pressed", "true")  # remembered on this device
        await page.context.close()

        async def ben_gone() -> bool:
            room = await table.room()
            return not next(p for p in room["players"] if p["id"] == ben)["connected"]

        await eventually(ben_gone, timeout=20)
        await table.start()
        room = await until_turn_of(table, ben, random.Random(3))
        [push] = await asyncio.to_thread(receiver.wait, "chromium")
        payload = decrypt(push, device)
        assert payload["room"] == table.code and payload["round"] == room["game"]["round"]
        assert payload["title"] == "Your turn"  # the page's language
    assert not console.errors, console.errors


@pytest.mark.parametrize("size", [(360, 740), (390, 844), (1280, 800)])
async def test_the_control_sits_in_the_room_head(live, browser, shots, size) -> None:  # noqa: F811
    console = Console()
    width, height = size
    page = await ben_page(browser, console, None, {"width": width, "height": height})
    async with httpx.AsyncClient(base_url=live.http) as http:
        await seat_ben(page, live, http)
        head = await page.locator(".room-head").bounding_box()
        button = await page.locator("#notify-toggle").bounding_box()
        assert head and button
        assert head["x"] <= button["x"] and button["x"] + button["width"] <= head["x"] + head["width"] + 0.5
        assert head["y"] <= button["y"] and button["y"] + button["height"] <= head["y"] + head["height"] + 0.5
        assert button["height"] >= 24  # a finger-sized target
        assert await page.evaluate("document.documentElement.scrollWidth") <= width
        await page.screenshot(path=shots / f"notify-{width}x{height}.png")
    assert not console.errors, console.errors


async def test_the_service_worker_shows_the_push_it_receives(live, browser) -> None:  # noqa: F811
    console = Console()
    page = await ben_page(browser, console, None)
    await page.goto(live.http + "/")
    await page.evaluate("navigator.serviceWorker.ready")
    cdp = await page.context.new_cdp_session(page)
    registrations: dict[str, dict[str, Any]] = {}
    versions: dict[str, dict[str, Any]] = {}
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.update({r["registrationId"]: r for r in e["registrations"]}),
    )
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.update({v["versionId"]: v for v in e["versions"]}))
    await cdp.send("ServiceWorker.enable")

    def active() -> str | None:
        """The app's registration whose worker is activated and running."""
        for version in versions.values():
            registration = registrations.get(version["registrationId"])
            if (
                registration is not None
                and not registration.get("isDeleted")
                and registration["scopeURL"] == live.http + "/"
                and version["status"] == "activated"
                and version["runningStatus"] == "running"
            ):
                return str(version["registrationId"])
        return None

    registration_id = await eventually(active, timeout=20)
    payload = {
        "type": "turn",
        "room": "K7QXRP",
        "round": 3,
        "title": "Zamu yako",
        "body": "Chumba K7QXRP",
        "url": "r/K7QXRP",
        "deadline": None,
    }
    # CDP does not say whether the worker took the push: once in 16 runs under load, a single
    # hand-over showed nothing in 30 s (cause not pinned down). It is handed over again until a
    # notification shows; the same tag replaces, so a repeat cannot add a second notification.
    shown: list[dict[str, Any]] = []
    for _ in range(3):
        await cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": live.http + "/",
                "registrationId": registration_id,
                "data": json.dumps(payload),
            },
        )
        shown = await page.evaluate(
            """async () => {
              const reg = await navigator.serviceWorker.ready;
              for (let i = 0; i < 100; i++) {
                const list = await reg.getNotifications();
                const seen = list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: n.data.url }));
                if (seen.length) return seen;
                await new Promise((r) => setTimeout(r, 100));
              }
              return [];
            }"""
        )
        if shown:
            break
    assert shown == [
        {"title": "Zamu yako", "body": "Chumba K7QXRP", "tag": "dicecup-turn-K7QXRP", "url": f"{live.http}/r/K7QXRP"}
    ]
    assert not console.errors, console.errors
