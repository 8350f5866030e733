"""Turn notifications by Web Push (app/notify): the round trip through a push
service of the tests' own (VAPID checked, payload decrypted), no push to a
connected seat (across two instances), one push per turn however many
instances see it, a gone subscription deleted, and bad input refused."""

import asyncio
import random
import re
import socket
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, func, select

from app.db import Database, Room
from app.db.models import PushKey, PushSubscription
from app.main import create_app
from app.notify import PushService, load_keys
from app.notify.service import Turn
from app.realtime import Hub, RedisBus
from app.rooms.service import RoomReader
from bench.loadgen import choose

from ..conftest import test_settings
from ..live import eventually, server_in_thread
from ..services import redis_url
from ..table import Table
from ..wsclient import Player
from .receiver import Receiver, decrypt, verify_vapid

PUSH: dict[str, Any] = {
    "push_test_loopback": True,
    "push_endpoint_hosts": "127.0.0.1",
    "vapid_subject": "mailto:ops@dicecup.test",
}
"""The tests' push service is plain http on 127.0.0.1."""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as push_service:
        yield push_service


@pytest.fixture
async def app_http(database_url: str) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """The app in this process (its push workers in this loop) and a client for it."""
    app = create_app(test_settings(database_url, **PUSH))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        yield app, http


def push_path(table: Table, player: str) -> str:
    return f"/api/rooms/{table.code}/players/{player}/push"


async def subscribe(http: httpx.AsyncClient, table: Table, player: str, body: dict[str, Any]) -> httpx.Response:
    return await http.put(push_path(table, player), json=body, headers=table.auth(table.tokens[player]))


async def seated(http: httpx.AsyncClient, options: dict[str, Any] | None = None) -> tuple[Table, str, str]:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2, options=options or {})
    ben = await table.join("Ben")
    return table, table.host, ben


async def until_turn_of(table: Table, player: str, rng: random.Random) -> dict[str, Any]:
    """Play the others' turns (random legal actions over REST) until ``player``'s turn has started."""
    room = await table.room()
    while room["game"]["turn"]["player_id"] != player:
        r = await table.act(room["game"]["turn"]["player_id"], **choose(room, rng))
        assert r.status_code == 200, r.text
        room = r.json()["room"]
    return room


async def play_own_turn(table: Table, player: str, rng: random.Random) -> dict[str, Any]:
    room = await table.room()
    while room["game"]["turn"]["player_id"] == player:
        r = await table.act(player, **choose(room, rng))
        assert r.status_code == 200, r.text
        room = r.json()["room"]
    return room


async def metric(http: httpx.AsyncClient, outcome: str) -> float:
    text = (await http.get("/metrics")).text
    found = re.search(rf'^dicecup_push_notifications_total\{{outcome="{outcome}"\}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


async def stored(database_url: str, player: str | None = None) -> int:
    db = Database(database_url)
    try:
        async with db.read() as session:
            query = select(func.count(PushSubscription.id))
            if player is not None:
                query = query.where(PushSubscription.player_id == player)
            return int((await session.execute(query)).scalar_one())
    finally:
        await db.dispose()


# -- (a) the round trip ----------------------------------------------------------------------------


async def test_a_push_reaches_the_players_browser_signed_and_encrypted(database_url: str, receiver: Receiver) -> None:
    with server_in_thread(test_settings(database_url, **PUSH)) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            r = await http.get("/api/push/key")
            assert r.status_code == 200
            key = r.json()["public_key"]
            table, _ana, ben = await seated(http, {"turn_seconds": 3600})
            browser = receiver.browser("ben-phone")
            r = await http.put(
                push_path(table, ben), json=browser.subscription("sw"), headers=table.auth(table.tokens[ben])
            )
            assert r.status_code == 200, r.text
            assert r.json() == {"subscriptions": 1}
            await table.start()
            room = await until_turn_of(table, ben, random.Random(7))
            [push] = await asyncio.to_thread(receiver.wait, "ben-phone")
    # signed with the key the server serves, for this push service's origin
    claims = verify_vapid(push.headers["authorization"], key)
    assert claims["aud"] == receiver.origin
    assert claims["sub"] == "mailto:ops@dicecup.test"
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    # encrypted for Ben's browser alone, in his language (Swahili)
    assert decrypt(push, browser) == {
        "type": "turn",
        "room": table.code,
        "round": room["game"]["round"],
        "title": "Zamu yako",
        "body": f"Chumba {table.code}, raundi {room['game']['round']}: kete zinakusubiri.",
        "url": f"r/{table.code}",
        "deadline": room["game"]["deadline"],
    }
    # a timed turn's push lives until the deadline, urgently, one per room (Topic)
    assert 3500 < int(push.headers["ttl"]) <= 3600
    assert push.headers["urgency"] == "high"
    assert push.headers["topic"] == table.code
    assert len(receiver.pushes) == 1  # Ana has no subscription


# -- (b) connected seats, several instances --------------------------------------------------------


async def test_no_push_while_a_socket_of_the_seat_is_open_on_another_instance(
    postgres_database: str, receiver: Receiver
) -> None:
    settings = test_settings(postgres_database, redis_url=redis_url(), **PUSH)
    rng = random.Random(11)
    with server_in_thread(settings) as a, server_in_thread(settings) as b:
        async with httpx.AsyncClient(base_url=a.http) as http:
            table, _ana, ben = await seated(http)
            browser = receiver.browser("ben-laptop")
            r = await http.put(
                push_path(table, ben), json=browser.subscription(), headers=table.auth(table.tokens[ben])
            )
            assert r.status_code == 200, r.text

            async def ben_connected_on_a() -> bool:
                room = await table.room()
                return next(p for p in room["players"] if p["id"] == ben)["connected"]

            socket = await Player.connect(b.socket_url(table.code), table.tokens[ben])  # Ben's socket is on B
            await eventually(ben_connected_on_a, timeout=20)
            await table.start()  # actions on A
            await until_turn_of(table, ben, rng)
            # A decided there and then (in memory) that Ben needs no push: final.
            await eventually(lambda: metric(http, "connected"), timeout=20)
            assert receiver.to("ben-laptop") == []
            await play_own_turn(table, ben, rng)
            await socket.close()
            await eventually(lambda: _not(ben_connected_on_a), timeout=20)
            room = await until_turn_of(table, ben, rng)
            [push] = await asyncio.to_thread(receiver.wait, "ben-laptop")
            assert decrypt(push, browser)["round"] == room["game"]["round"] == 2
            assert push.headers["ttl"] == "86400" and push.headers["urgency"] == "normal"  # an untimed turn
            assert decrypt(push, browser)["title"] == "Your turn"  # no language given: English


async def _not(check: Any) -> bool:
    return not await check()


async def test_a_turn_seen_by_two_instances_is_pushed_once(postgres_database: str, receiver: Receiver) -> None:
    app = create_app(test_settings(postgres_database, **PUSH))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        table, _ana, ben = await seated(http)
        browsers = [receiver.browser("ben-1"), receiver.browser("ben-2")]
        for browser in browsers:
            r = await http.put(
                push_path(table, ben), json=browser.subscription(), headers=table.auth(table.tokens[ben])
            )
            assert r.status_code == 200, r.text
        room = await table.room()
    # Two instances (their own connections, their own Redis presence) both see Ben's turns start.
    instances = []
    for _ in range(2):
        db = Database(postgres_database)
        hub = Hub(RedisBus(redis_url()), RoomReader(db))
        await hub.start()
        push = PushService(
            db,
            hub,
            await load_keys(db, None),
            subject="mailto:ops@dicecup.test",
            allowed_hosts=["127.0.0.1"],
            loopback_for_tests=True,
        )
        await push.start()
        instances.append((db, hub, push))
    try:
        for version in (room["version"] + 1, room["version"] + 1, room["version"] + 5):
            event = {
                "type": "turn_started",
                "version": version,
                "data": {"player_id": ben, "round": 1, "deadline": None},
            }
            for _, _, push in instances:
                push.turns_started(table.code, [event], room)
            await asyncio.gather(*(push.idle() for _, _, push in instances))
        # one push per browser for each of the two turns (the version seen twice is one turn)
        assert len(receiver.to("ben-1")) == len(receiver.to("ben-2")) == 2
        assert [decrypt(p, browsers[0])["room"] for p in receiver.to("ben-1")] == [table.code] * 2
        sent = [push.outcomes.get("sent", 0) for _, _, push in instances]
        assert sum(sent) == 4
    finally:
        for db, hub, push in instances:
            await push.close()
            await hub.close()
            await db.dispose()


# -- (b2) a server stopping -------------------------------------------------------------------------


async def _turns_of_subscribed_seats(http: httpx.AsyncClient, subscriptions: list[dict[str, Any]]) -> list[Turn]:
    """A room per subscription, its second seat subscribed: the turn that
    would start next for each (one turn per seat, since a seat's later turn
    supersedes its earlier one's push)."""
    turns = []
    for subscription in subscriptions:
        table, _ana, ben = await seated(http)
        r = await subscribe(http, table, ben, subscription)
        assert r.status_code == 200, r.text
        turns.append(Turn(table.code, ben, (await table.room())["version"] + 1, 1, None))
    return turns


async def test_pushes_queued_when_the_server_stops_are_sent_first(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver
) -> None:
    """A deploy's restart right after eight turns started: all eight pushes
    still go out (they used to be cancelled with the senders)."""
    app, http = app_http
    names = [f"phone-{i}" for i in range(8)]
    turns = await _turns_of_subscribed_seats(http, [receiver.browser(name).subscription() for name in names])
    push: PushService = app.state.push
    for turn in turns:
        assert push.offer(turn)
    await push.close()  # at once, as the lifespan's shutdown does
    assert [len(receiver.to(name)) for name in names] == [1] * 8
    assert push.outcomes.get("sent") == 8 and "dropped" not in push.outcomes


async def test_the_drain_at_shutdown_is_bounded(database_url: str, receiver: Receiver) -> None:
    """A push service that never answers cannot hold the shutdown past
    DICECUP_PUSH_DRAIN_SECONDS: what is still queued then is dropped and counted."""
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}/silent"
        subscriptions = [
            receiver.browser(f"phone-{i}").subscription() | {"endpoint": f"{endpoint}/{i}"} for i in range(5)
        ]
        app = create_app(test_settings(database_url, push_drain_seconds=0.5, **PUSH))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
        ):
            turns = await _turns_of_subscribed_seats(http, subscriptions)
            push: PushService = app.state.push
            for turn in turns:
                assert push.offer(turn)
            started = time.monotonic()
            await push.close()
            assert time.monotonic() - started < 3  # the push timeout is 10 s
            # every push was under way (cut short): one silent push service holds none back in the queue
            assert push.outcomes.get("dropped") == 5
            assert "sent" not in push.outcomes


# -- (c) a gone subscription -----------------------------------------------------------------------


async def test_a_subscription_the_push_service_says_is_gone_is_deleted(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver, database_url: str
) -> None:
    app, http = app_http
    table, _ana, ben = await seated(http)
    gone, kept = receiver.browser("old-phone"), receiver.browser("new-phone")
    receiver.answers["old-phone"] = 410
    for browser in (gone, kept):
        r = await http.put(push_path(table, ben), json=browser.subscription(), headers=table.auth(table.tokens[ben]))
        assert r.status_code == 200, r.text
    assert await stored(database_url, ben) == 2
    await table.start()
    await until_turn_of(table, ben, random.Random(5))
    await app.state.push.idle()
    assert len(receiver.to("old-phone")) == len(receiver.to("new-phone")) == 1
    assert await stored(database_url, ben) == 1
    assert await metric(http, "gone") == 1
    assert await metric(http, "sent") == 1
    # the one left is the one that still works
    r = await http.delete(
        push_path(table, ben), params={"endpoint": kept.endpoint}, headers=table.auth(table.tokens[ben])
    )
    assert r.status_code == 200 and r.json() == {"subscriptions": 0}


async def test_subscriptions_go_with_their_room(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver, database_url: str
) -> None:
    _app, http = app_http
    table, _ana, ben = await seated(http)
    r = await http.put(
        push_path(table, ben), json=receiver.browser("x").subscription(), headers=table.auth(table.tokens[ben])
    )
    assert r.status_code == 200
    db = Database(database_url)
    try:
        async with db.write() as session:  # what the sweeper does to a room
            await session.execute(delete(Room).where(Room.code == table.code))
    finally:
        await db.dispose()
    assert await stored(database_url, ben) == 0


async def test_subscriptions_go_when_their_seat_leaves(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver, database_url: str
) -> None:
    app, http = app_http
    table, ana, ben = await seated(http)
    for player in (ana, ben):
        r = await subscribe(http, table, player, receiver.browser(f"leaver-{player}").subscription())
        assert r.status_code == 200
    r = await http.delete(f"/api/rooms/{table.code}/players/{ben}", headers=table.auth(table.tokens[ben]))
    assert r.status_code == 204
    await app.state.push.idle()
    assert await stored(database_url, ben) == 0
    assert await stored(database_url, ana) == 1  # the others' stay


# -- (d) bad input ---------------------------------------------------------------------------------


def _b64(raw: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def test_bad_subscriptions_are_refused_with_a_code_and_store_nothing(
    app_http: tuple[Any, httpx.AsyncClient], receiver: Receiver, database_url: str
) -> None:
    _app, http = app_http
    table, ana, ben = await seated(http)
    good = receiver.browser("good").subscription()
    own = table.auth(table.tokens[ben])

    def variant(**change: Any) -> dict[str, Any]:
        body = {**good, "keys": dict(good["keys"])}
        for path, value in change.items():
            if path.startswith("keys_"):
                body["keys"][path[5:]] = value
            else:
                body[path] = value
        return body

    cases: list[tuple[str, dict[str, str], Any, int, str]] = [
        ("no token", {}, good, 401, "unauthorized"),
        ("another seat's token", table.auth(table.tokens[ana]), good, 403, "forbidden"),
        ("not JSON", own, "{", 422, "invalid_request"),
        ("no keys", own, {"endpoint": good["endpoint"]}, 422, "invalid_request"),
        ("an unknown field", own, variant(extra=1), 422, "invalid_request"),
        ("an unknown language", own, variant(lang="xx"), 422, "invalid_request"),
        ("an endpoint too long", own, variant(endpoint=good["endpoint"] + "a" * 1100), 422, "invalid_request"),
        ("ftp", own, variant(endpoint="ftp://127.0.0.1/push/x"), 422, "invalid_subscription"),
        ("not a URL", own, variant(endpoint="push me"), 422, "invalid_subscription"),
        ("a host not allowed", own, variant(endpoint="http://169.254.169.254/latest"), 422, "invalid_subscription"),
        ("credentials", own, variant(endpoint="http://u:p@127.0.0.1/push/x"), 422, "invalid_subscription"),
        ("p256dh short", own, variant(keys_p256dh=_b64(b"\x04" + b"1" * 31)), 422, "invalid_subscription"),
        ("p256dh off the curve", own, variant(keys_p256dh=_b64(b"\x04" + b"\x01" * 64)), 422, "invalid_subscription"),
        ("p256dh not base64url", own, variant(keys_p256dh="%%%%"), 422, "invalid_subscription"),
        ("auth 15 bytes", own, variant(keys_auth=_b64(b"a" * 15)), 422, "invalid_subscription"),
        ("auth too long", own, variant(keys_auth="a" * 33), 422, "invalid_request"),
    ]
    for name, headers, body, status, code in cases:
        content = body if isinstance(body, str) else None
        r = await http.put(
            push_path(table, ben),
            headers={**headers, "content-type": "application/json"},
            content=content,
            json=None if content is not None else body,
        )
        assert (r.status_code, r.json()["code"]) == (status, code), (name, r.text)
    # too large (413 before the token), unknown room (404), impossible player id (404)
    r = await http.put(push_path(table, ben), headers=own, content=b"x" * 17_000)
    assert (r.status_code, r.json()["code"]) == (413, "too_large")
    r = await http.put(f"/api/rooms/ZZZZZZ/players/{ben}/push", headers=own, json=good)
    assert (r.status_code, r.json()["code"]) == (404, "room_not_found")
    r = await http.put(f"/api/rooms/{table.code}/players/{'!' * 40}/push", headers=own, json=good)
    assert r.status_code in (404, 422)
    assert await stored(database_url, ben) == 0
    # a few browsers per seat, no more; the same endpoint again is an update, not another
    for n in range(5):
        body = receiver.browser(f"device-{n}").subscription()
        r = await http.put(push_path(table, ben), headers=own, json=body)
        assert r.json() == {"subscriptions": n + 1}
        r = await http.put(push_path(table, ben), headers=own, json={**body, "lang": "ar"})
        assert r.json() == {"subscriptions": n + 1}
    r = await http.put(push_path(table, ben), headers=own, json=receiver.browser("device-5").subscription())
    assert (r.status_code, r.json()["code"]) == (409, "too_many_subscriptions")
    assert await stored(database_url, ben) == 5
    r = await http.delete(push_path(table, ben), headers=table.auth(table.tokens[ana]))
    assert (r.status_code, r.json()["code"]) == (403, "forbidden")
    r = await http.delete(push_path(table, ben), headers=own)
    assert r.json() == {"subscriptions": 0}
    assert await stored(database_url, ben) == 0


async def test_subscription_changes_are_rate_limited_per_seat(database_url: str, receiver: Receiver) -> None:
    app = create_app(test_settings(database_url, **PUSH, rate_limits=True, push_subscriptions_per_minute=3))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        table, _ana, ben = await seated(http)
        own = table.auth(table.tokens[ben])
        body = receiver.browser("one").subscription()
        statuses = [(await http.put(push_path(table, ben), headers=own, json=body)).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        r = await http.delete(push_path(table, ben), headers=own)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert await stored(database_url, ben) == 1


# -- keys ------------------------------------------------------------------------------------------


async def test_instances_starting_at_once_make_one_key_pair(database_url: str) -> None:
    dbs = [Database(database_url) for _ in range(3)]
    try:
        async with dbs[0].write() as session:
            await session.execute(delete(PushKey))
        pairs = await asyncio.gather(*(load_keys(db, None) for db in dbs))
        assert len({keys.public_key for keys in pairs}) == 1
        again = await load_keys(dbs[0], None)
        assert again.public_key == pairs[0].public_key
        assert "private" not in repr(again)
    finally:
        for db in dbs:
            await db.dispose()


async def test_a_configured_key_is_served_and_the_switch_turns_push_off(database_url: str) -> None:
    from app.notify import VapidKeys

    keys = VapidKeys.generate()
    for overrides, status in (({"vapid_private_key": keys.private_text()}, 200), ({"push": False}, 503)):
        app = create_app(test_settings(database_url, **overrides))
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
        ):
            r = await http.get("/api/push/key")
            assert r.status_code == status, r.text
            if status == 200:
                assert r.json() == {"public_key": keys.public_key}
                assert keys.private_text() not in r.text
            else:
                assert r.json()["code"] == "push_unavailable"
