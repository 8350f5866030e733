"""The WebSocket protocol against a real uvicorn server, on SQLite and PostgreSQL."""

import asyncio
import json
import random

import httpx
import pytest
import websockets

from ..conftest import test_settings
from ..live import server_in_thread
from ..table import Table, choose
from ..wsclient import Player


@pytest.fixture
def live(database_url: str):
    with server_in_thread(test_settings(database_url, hello_timeout=1.0)) as server:
        yield server


@pytest.fixture
async def http(live):
    async with httpx.AsyncClient(base_url=live.http) as client:
        yield client


async def two_player_room(http: httpx.AsyncClient) -> tuple[Table, str, str]:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2)
    ben = await table.join("Ben")
    return table, table.host, ben


async def play_turns(players: dict[str, Player], room: dict, rng: random.Random, actions: int | None = None) -> dict:
    """Play over the sockets: whoever's turn it is acts; returns the last room."""
    done = 0
    while room["game"]["turn"] is not None and (actions is None or done < actions):
        actor = players[room["game"]["turn"]["player_id"]]
        reply = await actor.act(**choose(room, rng))
        assert reply["type"] == "ack", reply
        await actor.until_version(reply["version"])
        room = actor.seen[-1]["room"]
        assert room["version"] == reply["version"]
        done += 1
    return room


def assert_consecutive(versions: list[int]) -> None:
    assert versions == list(range(versions[0], versions[0] + len(versions))), versions


async def test_players_and_spectator_see_every_action_in_order(live, http) -> None:
    table, ana, ben = await two_player_room(http)
    a = await Player.connect(live.socket_url(table.code), table.tokens[ana])
    b = await Player.connect(live.socket_url(table.code), table.tokens[ben])
    watcher = await Player.connect(live.socket_url(table.code), None)
    assert a.welcome["you"]["id"] == ana and watcher.welcome["you"] is None
    started = await table.start()
    for client in (a, b, watcher):
        await client.until_version(started["version"])
    room = await play_turns({ana: a, ben: b}, started, random.Random(3))
    assert room["status"] == "finished"
    final = room["version"]
    for client in (a, b, watcher):
        await client.until_version(final)
        assert_consecutive(client.versions())
        assert client.versions()[-1] == final
        assert client.seen[-1]["event"]["type"] == "game_finished"
        assert client.seen[-1]["room"]["game"]["scorecards"] == room["game"]["scorecards"]
    assert [m["event"] for m in a.seen] == [m["event"] for m in b.seen] == [m["event"] for m in watcher.seen]
    acks = [m for m in a.other + b.other if m["type"] == "ack"]
    assert len(acks) == sum(1 for m in a.seen if m["event"]["type"] in ("rolled", "kept", "scored"))
    rest = await table.events(started["version"] - 2)
    assert [e["version"] for e in rest][-1] == final
    for client in (a, b, watcher):
        await client.close()


async def test_resume_after_three_actions(live, http) -> None:
    table, _ana, ben = await two_player_room(http)
    started = await table.start()
    b = await Player.connect(live.socket_url(table.code), table.tokens[ben])
    left_at = b.version
    await b.close()
    rng = random.Random(5)
    room = started
    for _ in range(3):
        player = room["game"]["turn"]["player_id"]
        r = await table.act(player, **choose(room, rng))
        assert r.status_code == 200
        room = r.json()["room"]
    b = await Player.connect(live.socket_url(table.code), table.tokens[ben], after=left_at)
    await b.until_version(room["version"])
    assert b.versions() == list(range(left_at + 1, room["version"] + 1))
    assert b.seen[-1]["room"]["version"] == room["version"]
    assert all(m["room"] is None for m in b.seen[:-1])
    # then live ones
    player = room["game"]["turn"]["player_id"]
    r = await table.act(player, **choose(room, rng))
    await b.until_version(r.json()["version"])
    assert b.versions() == list(range(left_at + 1, r.json()["version"] + 1))
    await b.close()


async def test_presence_counts_every_tab(live, http) -> None:
    table, ana, ben = await two_player_room(http)
    a = await Player.connect(live.socket_url(table.code), table.tokens[ana])
    b1 = await Player.connect(live.socket_url(table.code), table.tokens[ben])
    await a.until("presence", player_id=ben, connected=True)
    b2 = await Player.connect(live.socket_url(table.code), table.tokens[ben])
    assert {p["id"]: p["connected"] for p in b2.welcome["room"]["players"]} == {ana: True, ben: True}
    await b1.close()
    await b2.send({"type": "ping"})
    await b2.until("pong")
    room = (await http.get(f"/api/rooms/{table.code}")).json()
    assert {p["id"]: p["connected"] for p in room["players"]}[ben] is True
    assert not any(m["type"] == "presence" and m["connected"] is False for m in a.other)
    await b2.close()
    await a.until("presence", player_id=ben, connected=False)
    await a.close()


async def test_bad_input_gets_an_answer_and_changes_nothing(live, http) -> None:
    table, ana, ben = await two_player_room(http)
    started = await table.start()
    first = started["game"]["turn"]["player_id"]
    other = ben if first == ana else ana
    mover = await Player.connect(live.socket_url(table.code), table.tokens[other])
    watcher = await Player.connect(live.socket_url(table.code), None)
    version = started["version"]

    await mover.ws.send("{not json")
    assert (await mover.until("error"))["code"] == "invalid_request"
    await mover.send({"type": "dance"}, valid=False)
    assert (await mover.until("error"))["code"] == "invalid_request"
    await mover.send({"no": "type"}, valid=False)
    assert (await mover.until("error"))["code"] == "invalid_request"
    reply = await mover.act(type="roll", id="early")
    assert reply == {"type": "error", "id": "early", "code": "not_your_turn", "detail": reply["detail"]}
    reply = await mover.act(valid=False, type="keep", dice=[7])
    assert reply["code"] == "invalid_request"
    reply = await mover.act(valid=False, type="keep", dice=["0"])  # a wrong type, not converted
    assert reply["code"] == "invalid_request"
    reply = await watcher.act(type="roll")
    assert reply["code"] == "forbidden"
    await mover.send({"type": "ping"})
    await mover.until("pong")
    assert (await table.room())["version"] == version
    assert mover.seen == [] and watcher.seen == []

    await mover.ws.send(json.dumps({"type": "ping", "pad": "x" * 17_000}))
    assert await mover.closed_with() == 1009
    await watcher.send({"type": "hello", "token": None})
    assert await watcher.closed_with() == 4400
    assert (await table.room())["version"] == version


async def close_code(url: str, *messages) -> int:
    async with websockets.connect(url) as ws:
        for message in messages:
            await ws.send(json.dumps(message))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(ws.recv(), 5)
        return closed.value.rcvd.code


async def test_close_codes(live, http) -> None:
    table, _ana, _ben = await two_player_room(http)
    other = Table(http)
    await other.create()
    url = live.socket_url(table.code)
    assert await close_code(live.socket_url("NOROOM")) == 4404
    assert await close_code(url, {"type": "hello", "token": "forged"}) == 4401
    assert await close_code(url, {"type": "hello", "token": other.tokens[other.host]}) == 4401
    assert await close_code(url, {"type": "ping"}) == 4400
    assert await close_code(url) == 4400  # no hello within the (test's 1 s) limit
    async with websockets.connect(url) as ws:
        await ws.send(json.dumps({"type": "hello", "token": "forged"}))
        error = json.loads(await ws.recv())
        assert error["type"] == "error" and error["code"] == "unauthorized"


async def test_flood_is_closed_with_1008(database_url: str) -> None:
    settings = test_settings(database_url, ws_messages_per_second=10)
    settings.rate_limits = True
    with server_in_thread(settings) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()
            client = await Player.connect(server.socket_url(table.code), table.tokens[table.host])
            for _ in range(30):
                await client.send({"type": "ping"})
            assert await client.closed_with() == 1008
            # the seat can come back
            again = await Player.connect(server.socket_url(table.code), table.tokens[table.host])
            await again.send({"type": "ping"})
            await again.until("pong")
            await again.close()


async def test_shutdown_closes_with_1012(database_url: str) -> None:
    with server_in_thread(test_settings(database_url)) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()
        client = await Player.connect(server.socket_url(table.code), table.tokens[table.host])
        closing = asyncio.create_task(client.closed_with(timeout=15))
        await asyncio.sleep(0.1)
    assert await closing == 1012


async def test_the_socket_path_and_no_other(live, http) -> None:
    """Room sockets are served at /api/rooms/{code}/ws (any case of the code);
    a WebSocket anywhere else is refused at the handshake."""
    table, _ana, _ben = await two_player_room(http)
    watcher = await Player.connect(live.socket_url(table.code.lower()))
    assert watcher.welcome["room"]["code"] == table.code
    await watcher.close()
    for path in (f"/api/rooms/{table.code}/ws/more", f"/api/rooms/{table.code}", "/ws"):
        with pytest.raises(websockets.InvalidStatus):
            await websockets.connect(live.socket_url(table.code).split("/api/", 1)[0] + path)


async def test_sockets_behind_a_proxy_prefix(database_url: str) -> None:
    """Served under a prefix the proxy strips (uvicorn --root-path): REST and sockets work as they are."""
    with server_in_thread(test_settings(database_url), root_path="/dicecup") as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create()
            player = await Player.connect(server.socket_url(table.code), table.tokens[table.host])
            assert player.welcome["you"]["id"] == table.host
            await player.close()
