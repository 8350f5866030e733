"""The hub's ordering, gap filling and back-pressure, on a real rooms service.

The socket is the one stand-in here: a recorder of the frames the hub sends
(the live-server tests cover real sockets)."""

import asyncio
import json

import pytest

from app.db import Database
from app.realtime import Connection, Hub, InProcessBus
from app.rooms import ActionRequest, RoomService, Seat


class Recorder:
    def __init__(self, stalled: bool = False) -> None:
        self.frames: list[dict] = []
        self.closed_with: int | None = None
        self._stalled = stalled

    async def send_text(self, data: str) -> None:
        if self._stalled:
            await asyncio.Event().wait()
        self.frames.append(json.loads(data))

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed_with = code

    def versions(self) -> list[int]:
        return [f["event"]["version"] for f in self.frames if f["type"] == "event"]


@pytest.fixture
async def service(sqlite_database):
    db = Database(sqlite_database)
    yield RoomService(db)
    await db.dispose()


async def game_with_actions(service: RoomService, actions: int) -> tuple[str, int, list[dict], dict]:
    """A started solo game and the events of ``actions`` more actions (keeps), not yet published."""
    room, player, _ = await service.create_room("yacht", "Ana", max_players=1)
    seat = Seat(player["id"], room["code"])
    await service.start_game(room["code"], seat)
    rolled = await service.act(room["code"], seat, ActionRequest("roll"))
    base = rolled.version
    for i in range(actions):
        await service.act(room["code"], seat, ActionRequest("keep", dice=(i % 5,)))
    page = await service.events_after(room["code"], base)
    current = await service.get_room(room["code"])
    return room["code"], base, page["events"], current


async def attach(hub: Hub, code: str, version: int, socket: Recorder | None = None, queue: int = 64) -> Recorder:
    socket = socket or Recorder()
    conn = Connection(socket, code, None, queue)
    conn.start()
    await hub.join(conn)
    await hub.ready(conn, version)
    return socket


async def test_out_of_order_publishes_are_delivered_in_order(service) -> None:
    code, base, events, room = await game_with_actions(service, 3)
    hub = Hub(InProcessBus(), service, gap_wait=5.0)
    await hub.start()
    socket = await attach(hub, code, base)
    for event in reversed(events):
        await hub.publish(code, [event], room)
    await asyncio.sleep(0.05)
    assert socket.versions() == [base + 1, base + 2, base + 3]
    await hub.publish(code, [events[1]], room)  # a duplicate is dropped
    await asyncio.sleep(0.05)
    assert socket.versions() == [base + 1, base + 2, base + 3]
    await hub.close()


async def test_a_gap_that_does_not_fill_is_read_from_the_log(service) -> None:
    code, base, events, room = await game_with_actions(service, 4)
    hub = Hub(InProcessBus(), service, gap_wait=0.05)
    await hub.start()
    socket = await attach(hub, code, base)
    await hub.publish(code, [events[0]], room)
    await hub.publish(code, [events[3]], room)  # 2 and 3 were lost
    await asyncio.sleep(0.3)
    assert socket.versions() == [base + 1, base + 2, base + 3, base + 4]
    filled = [f for f in socket.frames if f["type"] == "event"]
    assert filled[1]["room"] is None and filled[2]["room"] is None  # read from the log
    assert filled[3]["room"] == room
    await hub.close()


async def test_reconnected_bus_fills_what_it_missed(service) -> None:
    code, base, _events, _room = await game_with_actions(service, 2)
    hub = Hub(InProcessBus(), service)
    await hub.start()
    socket = await attach(hub, code, base)
    await hub.on_reconnected()  # nothing was published: all of it comes from the log
    await asyncio.sleep(0.02)
    assert socket.versions() == [base + 1, base + 2]
    assert socket.frames[-1]["room"]["version"] == base + 2
    await hub.close()


async def test_a_slow_client_is_closed_without_delaying_others(service) -> None:
    code, base, events, room = await game_with_actions(service, 6)
    hub = Hub(InProcessBus(), service)
    await hub.start()
    slow = await attach(hub, code, base, Recorder(stalled=True), queue=3)
    fast = await attach(hub, code, base)
    for event in events:
        await hub.publish(code, [event], room)
    await asyncio.sleep(0.05)
    assert fast.versions() == [base + i for i in range(1, 7)]
    assert slow.closed_with == 1013
    await hub.close()


async def test_presence_of_a_seat_with_two_tabs(service) -> None:
    room, player, _ = await service.create_room("yacht", "Ana")
    code = room["code"]
    hub = Hub(InProcessBus(), service)
    await hub.start()
    watcher = await attach(hub, code, room["version"])
    tabs = [Connection(Recorder(), code, player["id"]) for _ in range(2)]
    for tab in tabs:
        tab.start()
        await hub.join(tab)
        await hub.ready(tab, room["version"])
    assert hub.connected(code) == {player["id"]}
    await hub.leave(tabs[0])
    assert hub.connected(code) == {player["id"]}
    await hub.leave(tabs[1])
    assert hub.connected(code) == set()
    await asyncio.sleep(0.02)
    presence = [f for f in watcher.frames if f["type"] == "presence"]
    assert presence == [
        {"type": "presence", "player_id": player["id"], "connected": True},
        {"type": "presence", "player_id": player["id"], "connected": False},
    ]
    await hub.close()
