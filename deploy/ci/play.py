"""Games played through the stack's proxy by the Python client
(clients/python), as real players' devices would: two seats on two sockets,
each a greedy bot, every event each socket receives recorded and checked
against the room's stored log at the end (every version once, in order)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from dicecup_client import DicecupClient, GreedyBot, RoomConnection, play_bot
from dicecup_client.types import Player, Room

# Between a seat's actions: under the server's budget of actions a second
# per seat (docs/api.md, "Rate limits and caps"), as a person's play is.
PAUSE = 0.08


class Pace:
    """The game's actions, counted; the seats wait at ``gate`` before each
    one, so that the driver can hold the game at a chosen point (a replica
    stopped, an upgrade) and let it go on afterwards."""

    def __init__(self, hold_at: int | None) -> None:
        self.gate, self.reached = asyncio.Event(), asyncio.Event()
        self.gate.set()
        self.actions, self.hold_at = 0, hold_at


class PacedBot(GreedyBot):
    def __init__(self, pace: Pace) -> None:
        self.pace = pace

    async def decide(self, room: Room, me: Player) -> dict[str, Any]:  # type: ignore[override]
        pace = self.pace
        if pace.actions == pace.hold_at:
            pace.gate.clear()
            pace.reached.set()
        await pace.gate.wait()
        await asyncio.sleep(PAUSE)
        pace.actions += 1
        return super().decide(room, me)


@dataclass
class Seat:
    name: str
    token: str
    player: Player | None = None
    versions: list[int] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    reconnects: int = 0


async def two_player_game(
    base_url: str,
    *,
    ruleset: str = "yacht",
    hold_at: int | None = None,
    while_held: Callable[[], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """A full game between Ana and Ben through ``base_url``. After
    ``hold_at`` actions the game is held (no seat acts) while ``while_held``
    runs, then finishes. Returns the room's code, the final room and the
    reconnections; raises if a socket missed, repeated or reordered an event."""
    pace = Pace(hold_at if while_held is not None else None)
    async with DicecupClient(base_url, timeout=20) as client:
        created = await client.create_room("Ana", ruleset, max_players=2)  # type: ignore[arg-type]
        code = created["room"]["code"]
        joined = await client.join(code, "Ben")
        seats = [Seat("Ana", created["token"]), Seat("Ben", joined["token"])]
        connections: list[RoomConnection] = []
        try:
            for seat in seats:
                conn = await client.connect(code, seat.token).start()
                connections.append(conn)
                seat.player = conn.you

                def record(event: dict[str, Any], room: Room, seat: Seat = seat) -> None:
                    seat.versions.append(event["version"])
                    seat.types.append(event["type"])

                conn.subscribe(record)  # type: ignore[arg-type]
            await client.start(code, created["token"])

            async def hold() -> None:
                if while_held is None:
                    return
                await pace.reached.wait()
                try:
                    await while_held()
                finally:
                    pace.gate.set()

            bots = [
                play_bot(conn, seat.player, PacedBot(pace))  # type: ignore[arg-type]
                for conn, seat in zip(connections, seats, strict=True)
            ]
            results = await asyncio.wait_for(asyncio.gather(hold(), *bots), timeout=600)
            final = cast(Room, results[1])
            for conn, seat in zip(connections, seats, strict=True):
                await conn.wait_for(lambda r: r["version"] >= final["version"], timeout=30)
                seat.reconnects = conn.reconnects
        finally:
            for conn in connections:
                await conn.close()
        log = [event async for event in client.all_events(code)]
    game = final["game"]
    assert game is not None and game["status"] == "finished", final
    by_version = {event["version"]: event["type"] for event in log}
    last = max(by_version)
    for seat in seats:
        first = seat.versions[0]
        expected = list(range(first, last + 1))
        assert seat.versions == expected, f"{seat.name}'s socket: {seat.versions} (expected {first}..{last})"
        assert seat.types == [by_version[v] for v in expected], f"{seat.name}'s socket: events differ from the log"
    return {
        "code": code,
        "room": final,
        "actions": pace.actions,
        "events": len(log),
        "reconnects": {seat.name: seat.reconnects for seat in seats},
        "winners": game["winners"],
    }


async def against_a_bot_with_hints(base_url: str, ruleset: str = "yatzy") -> dict[str, Any]:
    """A game against the server's optimal bot, asking a hint each turn:
    the strategy tables in the image are present and readable."""
    async with DicecupClient(base_url, timeout=20) as client:
        options = {"hints": True, "bot_speed": "instant"}
        created = await client.create_room("Cy", ruleset, options=options, bots=["optimal"])  # type: ignore[arg-type]
        code, token = created["room"]["code"], created["token"]
        await client.start(code, token)
        hints = 0

        class Hinted(GreedyBot):
            async def decide(self, room: Room, me: Player) -> dict[str, Any]:  # type: ignore[override]
                nonlocal hints
                turn = room["game"]["turn"]  # type: ignore[index]
                if turn is not None and turn.get("rolls_left", 3) < 3:
                    hint = await client.hint(code, token)
                    assert hint["boxes"], hint
                    hints += 1
                return super().decide(room, me)

        async with client.connect(code, token) as conn:
            assert conn.you is not None
            final = await asyncio.wait_for(play_bot(conn, conn.you, Hinted()), timeout=300)
    game = final["game"]
    assert game is not None and game["status"] == "finished", final
    return {"code": code, "hints": hints, "ruleset": ruleset}
