"""The typed protocol: the schema served at /api/protocol.json, and protocol
2's patches, which keep a client's room exactly the server's over whole
games, across resume and beside protocol 1 sockets. (tests/wsclient.py
checks every message of every socket test against the schema.)"""

import asyncio
import json
import random

import httpx
import pytest
import websockets
from jsonschema_rs import Draft202012Validator

from app.api.protocol import protocol_document

from ..conftest import test_settings
from ..live import server_in_thread
from ..table import Table, choose
from ..wsclient import Player


@pytest.fixture
def live(database_url: str):
    with server_in_thread(test_settings(database_url)) as server:
        yield server


def without_presence(room: dict) -> dict:
    """A room without the ``connected`` flags, which follow presence messages."""
    out = json.loads(json.dumps(room))
    for player in out["players"]:
        player.pop("connected")
    return out


async def test_the_schema_is_served_and_valid(client) -> None:
    r = await client.get("/api/protocol.json")
    assert r.status_code == 200
    document = r.json()
    assert document == json.loads(json.dumps(protocol_document()))
    Draft202012Validator(document)  # a valid 2020-12 schema (it raises otherwise)
    defs = document["$defs"]
    events = {ref["$ref"].rsplit("/", 1)[1] for ref in defs["EventV2"]["properties"]["event"]["oneOf"]}
    assert {"PlayerJoined", "PlayerLeft", "RoomClosed", "GameStarted", "TurnStartedV2"} <= events
    assert {"KeptEventV2", "RolledV2", "Scored", "GameFinished"} <= events
    # protocol 2 may leave out the data of three events; protocol 1 never
    for name in ("TurnStartedV2", "KeptEventV2", "RolledV2"):
        assert "data" in defs[name]["properties"] and "data" not in defs[name]["required"]
    for name in ("TurnStarted", "KeptEvent", "Rolled", "Scored"):
        assert "data" in defs[name]["required"]
    assert 4429 in defs["CloseCode"]["enum"] and "rate_limited" in defs["ErrorCode"]["enum"]


async def test_protocol_2_patches_keep_the_room_over_a_whole_game(live) -> None:
    """Yahtzee for three (one seat on protocol 1), a protocol 2 spectator,
    and a protocol 2 seat that drops out mid-game and resumes with ``after``:
    after every event each protocol 2 client holds exactly the room of the
    protocol 1 client's event message, and at the end the room the REST API
    returns."""
    async with httpx.AsyncClient(base_url=live.http) as http:
        table = Table(http)
        await table.create("yahtzee", "Ana", max_players=3)
        ben, cy = await table.join("Ben"), await table.join("Cy")
        url = live.socket_url(table.code)
        ana_ws = await Player.connect(url, table.tokens[table.host], protocol=2)
        ben_ws = await Player.connect(url, table.tokens[ben], protocol=1)
        cy_ws = await Player.connect(url, table.tokens[cy], protocol=2)
        watcher = await Player.connect(url, None, protocol=2)
        room = await table.start()
        rng = random.Random(11)
        reference: dict[int, dict] = {}  # version -> the room protocol 1 carried
        actions = 0
        dropped_at = None
        while room["game"]["turn"] is not None:
            actions += 1
            if actions == 20:  # Cy's connection drops; the game goes on
                await cy_ws.close()
                dropped_at = cy_ws.version
            if actions == 45:
                cy_ws = await Player.connect(url, table.tokens[cy], after=dropped_at, protocol=2)
            player = room["game"]["turn"]["player_id"]
            r = await table.act(player, **choose(room, rng))
            assert r.status_code == 200, r.text
            room = r.json()["room"]
            version = room["version"]
            for client in (ana_ws, ben_ws, watcher, *([cy_ws] if cy_ws.ws.state.name == "OPEN" else [])):
                await client.until_version(version)
            for message in ben_ws.seen:
                if message["room"] is not None:
                    reference[message["room"]["version"]] = message["room"]
            for client in (ana_ws, watcher):
                assert without_presence(client.room) == without_presence(reference[version])
        final = await table.room()
        await cy_ws.until_version(final["version"])
        for client in (ana_ws, watcher, cy_ws):
            assert without_presence(client.room) == without_presence(final)
            assert client.versions() == list(range(client.versions()[0], final["version"] + 1))
        # every event as protocol 1 has it, once its data is put back from the
        # patched room (tests/wsclient.py checks that room is at the event's version)
        events = {m["event"]["version"]: m["event"] for m in ben_ws.seen}
        for client in (ana_ws, watcher, cy_ws):
            for message in client.seen:
                assert message["event"] == events[message["event"]["version"]]
        bare = [m["event"]["type"] for m in watcher.raw if "data" not in m["event"]]
        assert {"turn_started", "kept", "rolled"} == set(bare) and len(bare) > len(watcher.raw) / 2
        # Cy's replayed events came with their data, but the last one (the welcome's room is at its version)
        replayed = [m for m in cy_ws.raw if dropped_at < m["event"]["version"] <= cy_ws.welcome["room"]["version"]]
        assert replayed and all("data" in m["event"] for m in replayed[:-1])
        if replayed[-1]["event"]["type"] in ("turn_started", "kept", "rolled"):
            assert "data" not in replayed[-1]["event"]
        # the patches are small: most events carry far less than the room
        sizes = [len(json.dumps(m)) for m in watcher.raw]
        full = [len(json.dumps(m)) for m in ben_ws.seen if m["room"] is not None]
        assert sum(sizes) / len(sizes) < 0.35 * sum(full) / len(full)
        for client in (ana_ws, ben_ws, cy_ws, watcher):
            await client.close()


async def test_a_protocol_the_server_does_not_speak(live) -> None:
    async with httpx.AsyncClient(base_url=live.http) as http:
        table = Table(http)
        await table.create()
    async with websockets.connect(live.socket_url(table.code)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": None, "protocol": 3}))
        error = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert error["code"] == "invalid_request" and "protocol" in error["detail"]
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd.code == 4400
