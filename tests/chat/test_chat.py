"""Chat and reactions (app.chat): REST and the socket, on SQLite and PostgreSQL.
Limits and codes, the host's mute, the room option chat, who may write, the
per-seat budget, and chat in the event log (replayed on resume)."""

import asyncio
import random
import re

import httpx
import pytest

from app.chat import REACTIONS
from app.main import create_app

from ..conftest import test_settings
from ..live import server_in_thread
from ..table import Table, choose
from ..wsclient import Player


async def say(table: Table, player: str | None, **body):
    headers = table.auth(table.tokens[player]) if player else {}
    return await table.http.post(f"/api/rooms/{table.code}/chat", json=body, headers=headers)


async def mute(table: Table, actor: str, target: str, on: bool = True):
    method = table.http.put if on else table.http.delete
    return await method(f"/api/rooms/{table.code}/players/{target}/mute", headers=table.auth(table.tokens[actor]))


async def two_seats(http: httpx.AsyncClient, **options) -> tuple[Table, str, str]:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2, options=options)
    ben = await table.join("Ben")
    return table, table.host, ben


async def test_say_and_react_are_events_in_the_log(client) -> None:
    table, ana, ben = await two_seats(client)
    before = (await table.room())["version"]
    r = await say(table, ben, text="  good\tluck,\n Ana!  ")
    assert r.status_code == 201, r.text
    event = r.json()["event"]
    assert (event["type"], event["player_id"], event["data"]) == ("chat", ben, {"text": "good luck, Ana!"})
    assert event["version"] == before + 1
    r = await say(table, ana, reaction="👏")
    assert r.status_code == 201, r.text
    events = await table.events(before)
    assert [(e["type"], e["player_id"], e["data"]) for e in events] == [
        ("chat", ben, {"text": "good luck, Ana!"}),
        ("chat", ana, {"reaction": "👏"}),
    ]
    assert (await table.room())["version"] == before + 2


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"text": ""}, 422, "chat_empty"),
        ({"text": " \n\t "}, 422, "chat_empty"),
        ({"text": "a" * 201}, 422, "chat_too_long"),
        ({"text": "a" * 1001}, 422, "invalid_request"),  # over the body's size limit, before normalizing
        ({"text": "👨‍👩‍👧‍👦" * 81}, 422, "chat_too_long"),  # 81 graphemes, but 567 code points (> 400)
        ({"text": "hi\u200b"}, 422, "chat_invalid"),
        ({"text": "\u202eevil"}, 422, "chat_invalid"),
        ({"text": "ok\x00"}, 422, "chat_invalid"),
        ({"reaction": "💩"}, 422, "invalid_request"),
        ({"text": "hi", "reaction": "👍"}, 422, "invalid_request"),
        ({}, 422, "invalid_request"),
        ({"text": 5}, 422, "invalid_request"),
    ],
)
async def test_bad_chat_gets_a_code_and_changes_nothing(client, body, status, code) -> None:
    table, _, ben = await two_seats(client)
    before = (await table.room())["version"]
    r = await say(table, ben, **body)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert (await table.room())["version"] == before


async def test_limits_count_graphemes_not_code_points(client) -> None:
    table, _, ben = await two_seats(client)
    family = "👨‍👩‍👧‍👦"  # one grapheme, seven code points
    for text in ("a" * 200, "ગુ" * 200, family * 57):
        r = await say(table, ben, text=text)
        assert r.status_code == 201, (len(text), r.text)
        assert r.json()["event"]["data"]["text"] == text
    r = await say(table, ben, text="ગુ" * 201)
    assert (r.status_code, r.json()["code"]) == (422, "chat_too_long")


async def test_who_may_chat(client) -> None:
    table, _ana, ben = await two_seats(client)
    other = Table(client)
    await other.create("yacht", "Cy")
    before = (await table.room())["version"]
    r = await say(table, None, text="hi")  # no token: a spectator does not write
    assert (r.status_code, r.json()["code"]) == (401, "unauthorized")
    r = await client.post(
        f"/api/rooms/{table.code}/chat", json={"text": "hi"}, headers=other.auth(other.tokens[other.host])
    )
    assert (r.status_code, r.json()["code"]) == (403, "forbidden")  # a seat of another room
    r = await client.post("/api/rooms/NOROOM/chat", json={"text": "hi"}, headers=table.auth(table.tokens[ben]))
    assert (r.status_code, r.json()["code"]) == (404, "room_not_found")
    # a seat that left
    r = await client.delete(f"/api/rooms/{table.code}/players/{ben}", headers=table.auth(table.tokens[ben]))
    assert r.status_code == 204
    after_leave = (await table.room())["version"]
    r = await say(table, ben, reaction="👍")
    assert (r.status_code, r.json()["code"]) == (401, "unauthorized")
    assert (await table.room())["version"] == after_leave > before


async def test_chat_off(client) -> None:
    table, _ana, ben = await two_seats(client, chat=False)
    room = await table.room()
    assert room["options"]["chat"] is False
    for body in ({"text": "hi"}, {"reaction": "🎲"}):
        r = await say(table, ben, **body)
        assert (r.status_code, r.json()["code"]) == (403, "chat_disabled")
    assert (await table.room())["version"] == room["version"]
    r = await client.post("/api/rooms", json={"name": "Ana", "options": {"chat": "no"}})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")


async def test_the_host_mutes_and_unmutes_a_seat(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    ana, ben, cy = table.host, await table.join("Ben"), await table.join("Cy")
    before = (await table.room())["version"]
    r = await mute(table, ben, cy)
    assert (r.status_code, r.json()["code"]) == (403, "not_host")
    r = await mute(table, ana, ana)
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")
    r = await mute(table, ana, "nobody")
    assert (r.status_code, r.json()["code"]) == (404, "player_not_found")
    assert (await table.room())["version"] == before
    r = await mute(table, ana, ben)
    assert r.status_code == 204, r.text
    r = await mute(table, ana, ben)  # muted already: nothing more
    assert r.status_code == 204
    room = await table.room()
    assert [p["muted"] for p in room["players"]] == [False, True, False]
    assert room["version"] == before + 1
    r = await say(table, ben, text="let me talk")
    assert (r.status_code, r.json()["code"]) == (403, "muted")
    r = await say(table, ben, reaction="😢")
    assert (r.status_code, r.json()["code"]) == (403, "muted")
    assert (await say(table, cy, text="Ben is quiet")).status_code == 201
    r = await mute(table, ana, ben, on=False)
    assert r.status_code == 204
    assert (await say(table, ben, text="thanks")).status_code == 201
    events = await table.events(before)
    assert [(e["type"], e["player_id"], e["data"]) for e in events] == [
        ("player_muted", ana, {"player_id": ben}),
        ("chat", cy, {"text": "Ben is quiet"}),
        ("player_unmuted", ana, {"player_id": ben}),
        ("chat", ben, {"text": "thanks"}),
    ]


async def test_chat_during_a_game_changes_nothing_of_it(client) -> None:
    """Chat between the moves of a whole game: the game ends as without it,
    each action with an expected_version sees the chat's version."""
    table, ana, ben = await two_seats(client)
    room = await table.start()
    rng = random.Random(11)
    said = 0
    while room["game"]["status"] == "playing":
        player = room["game"]["turn"]["player_id"]
        if rng.random() < 0.3:
            r = await say(table, ben if player == ana else ana, reaction=rng.choice(REACTIONS))
            assert r.status_code == 201
            said += 1
            # an action that read the room before the chat is stale; it changes nothing
            r = await table.act(player, expected_version=room["version"], **choose(room, rng))
            assert (r.status_code, r.json()["code"]) == (409, "stale_version")
            room = await table.room()
        r = await table.act(player, expected_version=room["version"], **choose(room, rng))
        assert r.status_code == 200, r.text
        room = r.json()["room"]
    events = await table.events()
    assert sum(1 for e in events if e["type"] == "chat") == said > 0
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    # chat after the game, too
    assert (await say(table, ana, text="gg")).status_code == 201


async def test_the_chat_budget_is_per_seat_and_apart_from_actions(database_url) -> None:
    settings = test_settings(database_url, chat_per_minute=3)
    settings.rate_limits = True
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        table, ana, ben = await two_seats(http)
        for _ in range(3):
            assert (await say(table, ben, reaction="👍")).status_code == 201
        before = (await table.room())["version"]
        r = await say(table, ben, text="one more")
        assert (r.status_code, r.json()["code"]) == (429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        assert (await table.room())["version"] == before
        # Ana's budget is her own, and Ben's actions are not limited by his chat
        assert (await say(table, ana, text="hi")).status_code == 201
        await table.start()
        room = await table.room()
        first = room["game"]["turn"]["player_id"]
        assert (await table.act(first, type="roll")).status_code == 200


async def test_the_socket_says_when_to_retry(database_url) -> None:
    settings = test_settings(database_url, chat_per_minute=2, hello_timeout=2.0)
    settings.rate_limits = True
    with server_in_thread(settings) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table, _, ben = await two_seats(http)
            b = await Player.connect(server.socket_url(table.code), table.tokens[ben])
            for i in range(2):
                await b.send({"type": "chat", "reaction": "👍", "id": f"r{i}"})
                await b.until("ack", id=f"r{i}")
            await b.send({"type": "chat", "text": "and more", "id": "r2"})
            refused = await b.until("error", id="r2")
            assert refused["code"] == "rate_limited"
            assert re.search(r"retry in \d+ s", refused["detail"]), refused
            await b.close()


async def test_racing_mutes_and_chat(client) -> None:
    """The host mutes while the seat chats: every message is either stored
    before the mute or refused with muted; versions stay consecutive."""
    table, ana, ben = await two_seats(client)
    before = (await table.room())["version"]
    results = await asyncio.gather(
        *[say(table, ben, text=f"m{i}") for i in range(6)],
        mute(table, ana, ben),
        *[say(table, ben, text=f"n{i}") for i in range(6)],
    )
    chats = [r for r in results if r.request.url.path.endswith("/chat")]
    assert all(r.status_code in (201, 403) for r in chats), [r.text for r in chats]
    stored = [r.json()["event"]["version"] for r in chats if r.status_code == 201]
    events = await table.events(before)
    muted_at = next(e["version"] for e in events if e["type"] == "player_muted")
    assert all(v < muted_at for v in stored)
    assert [r.json()["code"] for r in chats if r.status_code == 403] == ["muted"] * (12 - len(stored))
    assert [e["version"] for e in events] == list(range(before + 1, before + 14 - (12 - len(stored))))


@pytest.fixture
def live(database_url: str):
    with server_in_thread(test_settings(database_url, hello_timeout=2.0)) as server:
        yield server


async def test_socket_chat_mute_and_resume(live) -> None:
    async with httpx.AsyncClient(base_url=live.http) as http:
        table, ana, ben = await two_seats(http)
        a = await Player.connect(live.socket_url(table.code), table.tokens[ana], protocol=2)
        b = await Player.connect(live.socket_url(table.code), table.tokens[ben])
        watcher = await Player.connect(live.socket_url(table.code), None, protocol=2)
        start = a.version
        await b.send({"type": "chat", "text": "hello there", "id": "m-1"})
        ack = await b.until("ack")
        assert ack["id"] == "m-1" and ack["version"] == start + 1
        await a.send({"type": "chat", "reaction": "🎉"})
        assert (await a.until("ack"))["id"] is None
        # bad ones: an error with the message's id, nothing changes
        await b.send({"type": "chat", "text": "", "id": "m-2"}, valid=False)
        assert (await b.until("error", id="m-2"))["code"] == "chat_empty"
        await b.send({"type": "chat", "reaction": "💩", "id": "m-3"}, valid=False)
        assert (await b.until("error", id="m-3"))["code"] == "invalid_request"
        await watcher.send({"type": "chat", "reaction": "👍", "id": "w"})
        assert (await watcher.until("error", id="w"))["code"] == "forbidden"
        # the host mutes Ben over the socket
        await b.send({"type": "mute", "player_id": ana, "muted": True, "id": "x"})
        assert (await b.until("error", id="x"))["code"] == "not_host"
        await a.send({"type": "mute", "player_id": ben, "muted": True, "id": "mute"})
        assert (await a.until("ack", id="mute"))["version"] == start + 3
        await b.send({"type": "chat", "text": "hey", "id": "m-4"})
        assert (await b.until("error", id="m-4"))["code"] == "muted"
        await watcher.until_version(start + 3)
        assert [(m["event"]["type"], m["event"]["data"]) for m in watcher.seen] == [
            ("chat", {"text": "hello there"}),
            ("chat", {"reaction": "🎉"}),
            ("player_muted", {"player_id": ben}),
        ]
        assert [p["muted"] for p in watcher.room["players"]] == [False, True]
        # a socket resuming from before the chat gets it replayed
        late = await Player.connect(live.socket_url(table.code), table.tokens[ben], after=start, protocol=2)
        await late.until_version(start + 3)
        assert [m["event"]["type"] for m in late.seen] == ["chat", "chat", "player_muted"]
        assert late.seen[0]["event"]["data"] == {"text": "hello there"}
        for client in (a, b, watcher, late):
            await client.close()
