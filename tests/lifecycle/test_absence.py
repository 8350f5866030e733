"""Absent players in untimed rooms (app/lifecycle/absence.py): a seat whose
person has no socket open while it is their turn is said to be absent after
the notice (player_absent, with its deadline), away at the deadline
(player_away; the autopilot plays), back when a socket opens first
(player_back). On SQLite and PostgreSQL, across a restart, and across two
instances sharing Redis."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.db import Database, Room
from app.lifecycle.absence import notice
from bench.loadgen import choose

from ..conftest import test_settings
from ..live import eventually, server_in_thread, server_process
from ..services import redis_url
from ..table import Table
from ..wsclient import Player

ABSENT = 3.0
"""A short absence for the tests (the default is 180 s); the notice is then a second."""
FAST = {"absent_seconds": ABSENT, "scheduler_poll": 0.1}


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def of(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


async def two_players(http: httpx.AsyncClient) -> tuple[Table, str, str]:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2)
    ben = await table.join("Ben")
    return table, table.host, ben


async def until_turn_of(table: Table, player: str, rng: random.Random) -> dict[str, Any]:
    """Play the other seat's turns over REST until it is ``player``'s turn."""
    while (room := await table.room())["game"]["turn"]["player_id"] != player:
        other = room["game"]["turn"]["player_id"]
        r = await table.act(other, expected_version=room["version"], **choose(room, rng))
        assert r.status_code in (200, 409), r.text
    return room


async def events_of(table: Table, kind: str, after: int = 0, count: int = 1, timeout: float = 20) -> list[dict]:
    async def found() -> list[dict] | None:
        events = of(await table.events(after), kind)
        return events if len(events) >= count else None

    return await eventually(found, timeout=timeout)


async def next_look(database_url: str, code: str) -> datetime | None:
    db = Database(database_url)
    await db.open()
    try:
        async with db.read() as session:
            found = (await session.execute(select(Room.next_deadline).where(Room.code == code))).scalar_one()
    finally:
        await db.dispose()
    return None if found is None else (found if found.tzinfo else found.replace(tzinfo=UTC))


async def test_a_person_who_leaves_on_their_turn_is_away_after_the_countdown(database_url: str) -> None:
    with server_in_thread(test_settings(database_url, **FAST)) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, ana, ben = await two_players(http)
            sockets = {p: await Player.connect(live.socket_url(table.code), table.tokens[p]) for p in (ana, ben)}
            await table.start()
            room = await until_turn_of(table, ben, random.Random(4))
            assert room["game"]["absent_deadline"] is None
            start = room["version"]
            left = time.monotonic()
            await sockets[ben].close()
            (absent,) = await events_of(table, "player_absent", start)
            noticed = time.monotonic() - left
            assert notice(ABSENT) * 0.9 <= noticed, noticed  # not at once: a reload says nothing
            assert absent["data"]["player_id"] == ben and absent["player_id"] == ben
            deadline = at(absent["data"]["deadline"])
            assert abs((deadline - at(absent["at"])).total_seconds() - (ABSENT - notice(ABSENT))) < 0.5
            room = await table.room()
            assert room["game"]["absent_deadline"] == absent["data"]["deadline"]
            assert room["players"][1]["away"] is False and room["players"][1]["connected"] is False
            # Ana's socket saw it (the countdown's source)
            while (await sockets[ana].until("event", timeout=10))["event"]["type"] != "player_absent":
                pass
            (away,) = await events_of(table, "player_away", start)
            assert at(away["at"]) >= deadline and away["data"] == {"player_id": ben}
            # the autopilot plays Ben's turn as his own; Ana's turn comes
            scored = await events_of(table, "scored", away["version"])
            assert scored[0]["player_id"] == ben
            room = await table.room()
            assert room["game"]["absent_deadline"] is None and room["players"][1]["away"] is True
            # the host may remove him now (an away seat): the game ends, Ana the only person left
            r = await http.delete(f"/api/rooms/{table.code}/players/{ben}", headers=table.auth(table.tokens[ana]))
            assert r.status_code == 204, r.text
            assert (await table.room())["game"]["winners"] == [ana]
            await sockets[ana].close()


async def test_coming_back_before_the_deadline_stops_the_countdown(database_url: str) -> None:
    with server_in_thread(test_settings(database_url, **FAST)) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, _ana, ben = await two_players(http)
            await table.start()
            room = await until_turn_of(table, ben, random.Random(5))
            start = room["version"]
            # Ben has never opened a socket: his turn is noticed as absent
            (absent,) = await events_of(table, "player_absent", start)
            socket = await Player.connect(live.socket_url(table.code), table.tokens[ben])
            (back,) = await events_of(table, "player_back", absent["version"])
            assert back["data"] == {"player_id": ben}
            room = await table.room()
            assert room["game"]["absent_deadline"] is None and room["game"]["turn"]["player_id"] == ben
            # the countdown is gone: the next look is the safety net's, absent_seconds on, past its deadline
            look = await next_look(database_url, table.code)
            assert look is not None and look > at(absent["data"]["deadline"])
            r = await socket.act(type="roll")
            assert r["type"] == "ack", r
            assert not of(await table.events(start), "player_away")
            await socket.close()


async def test_a_reload_within_the_notice_says_nothing(database_url: str) -> None:
    with server_in_thread(test_settings(database_url, **FAST)) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, _ana, ben = await two_players(http)
            socket = await Player.connect(live.socket_url(table.code), table.tokens[ben])
            await table.start()
            room = await until_turn_of(table, ben, random.Random(6))
            await socket.close()
            socket = await Player.connect(live.socket_url(table.code), table.tokens[ben])  # the reload
            closed_at = datetime.now(UTC)

            async def looked() -> bool:
                # the look after the notice found him there: the next one is the safety net's, ABSENT after it
                look = await next_look(database_url, table.code)
                return look is not None and look > closed_at + timedelta(seconds=ABSENT + notice(ABSENT) / 2)

            await eventually(looked, timeout=20)
            events = await table.events(room["version"])
            assert not of(events, "player_absent") and not of(events, "player_back"), events
            await socket.close()


async def test_an_absence_survives_a_restart(sqlite_database: str) -> None:
    settings = test_settings(sqlite_database, **FAST)
    with server_in_thread(settings) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, _ana, ben = await two_players(http)
            await table.start()
            room = await until_turn_of(table, ben, random.Random(7))
            (absent,) = await events_of(table, "player_absent", room["version"])
    # the server is down when the deadline passes
    with server_in_thread(settings) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table.http = http
            (away,) = await events_of(table, "player_away", absent["version"])
            assert away["data"] == {"player_id": ben}
            assert at(away["at"]) >= at(absent["data"]["deadline"])


async def test_two_instances_see_the_same_presence(postgres_database: str) -> None:
    """Ben's socket on instance B keeps him present whichever instance looks;
    when it closes, the room moves on (absent, then away) exactly once."""
    env = {
        "DICECUP_DATABASE_URL": postgres_database,
        "DICECUP_REDIS_URL": redis_url(),
        "DICECUP_ABSENT_SECONDS": str(ABSENT),
        "DICECUP_SCHEDULER_POLL": "0.05",
        "DICECUP_BOT_DELAY": "0",
        "DICECUP_STRATEGY_SOLVE": "false",
    }
    with server_process(env) as a, server_process(env) as b:
        async with httpx.AsyncClient(base_url=a.http) as http:
            table, ana, ben = await two_players(http)
            ana_socket = await Player.connect(a.socket_url(table.code), table.tokens[ana])
            ben_socket = await Player.connect(b.socket_url(table.code), table.tokens[ben])
            await table.start()
            room = await until_turn_of(table, ben, random.Random(8))
            # the instances look at the room again and again while he is connected (on B): each look
            # finds him there and puts the next one ABSENT on; none says he is absent
            looks: set[datetime] = set()

            async def three_looks() -> bool:
                look = await next_look(postgres_database, table.code)
                if look is not None:
                    looks.add(look)
                return len(looks) >= 3

            await eventually(three_looks, timeout=30, interval=0.2)
            assert not of(await table.events(room["version"]), "player_absent")
            await ben_socket.close()
            (absent,) = await events_of(table, "player_absent", room["version"])
            (_away,) = await events_of(table, "player_away", absent["version"])
            events = await table.events(room["version"])
            assert len(of(events, "player_absent")) == len(of(events, "player_away")) == 1
            assert [e["version"] for e in events] == list(range(events[0]["version"], events[-1]["version"] + 1))
            await ana_socket.close()


@pytest.mark.parametrize("seconds", [0])
async def test_off_when_absent_seconds_is_0(sqlite_database: str, seconds: float) -> None:
    with server_in_thread(test_settings(sqlite_database, absent_seconds=seconds, scheduler_poll=0.1)) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, _ana, ben = await two_players(http)
            await table.start()
            room = await until_turn_of(table, ben, random.Random(9))
            assert await next_look(sqlite_database, table.code) is None  # nothing is ever due
            assert room["game"]["absent_deadline"] is None
