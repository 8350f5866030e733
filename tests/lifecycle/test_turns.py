"""The turn clock (app/lifecycle): timeouts, the autopilot, away seats coming back,
deadlines across a restart and across two instances."""

import asyncio
import random
import time
from datetime import datetime
from typing import Any

import httpx
import pytest

from bench.loadgen import choose

from ..conftest import test_settings
from ..live import server_in_thread, server_process
from ..services import redis_url
from ..table import Table, rounds
from ..wsclient import Player

FAST = {"turn_seconds_min": 1, "scheduler_poll": 0.1}
"""A clock as short as a second (the real minimum is 10), looked at ten times a second."""


@pytest.fixture
def live(database_url: str):
    with server_in_thread(test_settings(database_url, **FAST)) as server:
        yield server


async def timed_table(http: httpx.AsyncClient, seconds: int) -> tuple[Table, str, str]:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2, options={"turn_seconds": seconds})
    ben = await table.join("Ben")
    return table, table.host, ben


async def play_own_turns(table: Table, me: str, rng: random.Random, until: Any, timeout: float = 60) -> dict:
    """Play ``me``'s turns at once (random legal actions) until ``until(room, events)`` or the game ends."""
    end = time.monotonic() + timeout
    while True:
        room = await table.room()
        if room["game"]["status"] == "finished" or until(room):
            return room
        assert time.monotonic() < end, "the game did not move on by itself"
        if room["game"]["turn"]["player_id"] == me:
            r = await table.act(me, expected_version=room["version"], **choose(room, rng))
            assert r.status_code in (200, 409), r.text
        else:
            await asyncio.sleep(0.05)


def of(events: list[dict], kind: str, player: str | None = None) -> list[dict]:
    return [e for e in events if e["type"] == kind and (player is None or e["player_id"] == player)]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_a_timed_game_where_one_seat_never_acts_finishes_by_itself(live) -> None:
    async with httpx.AsyncClient(base_url=live.http) as http:
        table, ana, ben = await timed_table(http, 2)
        started = await table.start()
        assert started["options"]["turn_seconds"] == 2
        assert started["game"]["deadline"] is not None
        room = await play_own_turns(table, ana, random.Random(13), lambda room: False)
        events = await table.events()
    assert room["game"]["status"] == "finished"
    assert room["game"]["deadline"] is None
    # Ben timed out twice, was marked away, and the autopilot played all his turns as his own events.
    assert len(of(events, "turn_timed_out", ben)) == 2
    assert [e["data"] for e in of(events, "player_away")] == [{"player_id": ben}]
    assert not of(events, "turn_timed_out", ana) and not of(events, "player_back")
    assert len(of(events, "scored", ben)) == len(of(events, "scored", ana)) == rounds("yacht")
    # Every turn of Ana's, and Ben's before he was away, has a deadline two seconds after it started.
    away_at = of(events, "player_away")[0]["version"]
    for event in of(events, "turn_started"):
        if event["data"]["player_id"] == ana or event["version"] < away_at:
            assert 1.9 < (at(event["data"]["deadline"]) - at(event["at"])).total_seconds() <= 2.1
        else:
            assert event["data"]["deadline"] is None  # away: played at once
    # each timeout comes after its turn's deadline, and is followed by the autopilot's roll
    for timed_out in of(events, "turn_timed_out"):
        turn = [e for e in of(events, "turn_started") if e["version"] < timed_out["version"]][-1]
        assert at(timed_out["at"]) >= at(turn["data"]["deadline"])
        assert events[timed_out["version"]]["type"] in ("rolled", "player_away")


async def test_an_away_seat_is_back_when_it_reconnects_and_gets_its_clock_again(sqlite_database) -> None:
    with server_in_thread(test_settings(sqlite_database, **FAST)) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, ana, ben = await timed_table(http, 1)
            await table.start()
            room = await play_own_turns(
                table, ana, random.Random(5), lambda room: any(p["away"] for p in room["players"])
            )
            assert [p["away"] for p in room["players"]] == [False, True]
            socket = await Player.connect(live.socket_url(table.code), table.tokens[ben])
            back = await socket.until("event", timeout=10)
            while back["event"]["type"] != "player_back":
                back = await socket.until("event", timeout=10)
            assert back["event"]["data"] == {"player_id": ben}
            assert back["room"]["players"][1]["away"] is False
            await socket.close()
            # Ben's next turn has a deadline again, and times out again (he is connected, but does not act).
            version = back["event"]["version"]
            end = time.monotonic() + 20
            while not [e for e in of(await table.events(version), "turn_timed_out", ben)]:
                room = await table.room()
                if room["game"]["turn"]["player_id"] == ana:
                    await table.act(ana, expected_version=room["version"], **choose(room, random.Random(7)))
                assert time.monotonic() < end
                await asyncio.sleep(0.05)
            # (back on his own turn: a fresh deadline for it; else his next turn has one)
            turns = of(await table.events(version), "turn_started", ben)
            if back["room"]["game"]["turn"]["player_id"] == ben:
                assert back["room"]["game"]["deadline"] is not None
            else:
                assert turns[0]["data"]["deadline"] is not None


async def test_a_deadline_survives_a_restart(sqlite_database) -> None:
    settings = test_settings(sqlite_database, **FAST)
    with server_in_thread(settings) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table, _, _ = await timed_table(http, 1)
            started = await table.start()
    # the server is down when the deadline passes
    first = started["game"]["turn"]["player_id"]
    await asyncio.sleep(1.2)
    with server_in_thread(settings) as live:
        async with httpx.AsyncClient(base_url=live.http) as http:
            table.http = http
            end = time.monotonic() + 10
            while not of(await table.events(started["version"]), "turn_timed_out"):
                assert time.monotonic() < end, "the deadline was lost in the restart"
                await asyncio.sleep(0.1)
            timed_out = of(await table.events(started["version"]), "turn_timed_out")[0]
    assert timed_out["data"] == {"player_id": first}


async def test_two_instances_act_on_each_deadline_once(postgres_database) -> None:
    env = {
        "DICECUP_DATABASE_URL": postgres_database,
        "DICECUP_REDIS_URL": redis_url(),
        "DICECUP_TURN_SECONDS_MIN": "1",
        "DICECUP_SCHEDULER_POLL": "0.02",
        "DICECUP_BOT_DELAY": "0",
        "DICECUP_STRATEGY_SOLVE": "false",
    }
    with server_process(env) as a, server_process(env) as b:
        async with httpx.AsyncClient(base_url=a.http) as http_a, httpx.AsyncClient(base_url=b.http) as http_b:
            table, ana, ben = await timed_table(http_a, 1)
            await table.start()
            end = time.monotonic() + 30
            events: list[dict] = []
            while len(of(events, "player_away")) < 2 or len(of(events, "scored")) < 8:  # nobody acts
                assert time.monotonic() < end
                await asyncio.sleep(0.2)
                events = await Table(http_b, table.code).events()
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    # each seat timed out twice (one timeout per turn, never two), then the autopilot played at once
    assert len(of(events, "turn_timed_out", ana)) == len(of(events, "turn_timed_out", ben)) == 2
    assert len(of(events, "player_away")) == 2
    timed = 0
    for event in events:
        if event["type"] == "turn_started":
            timed = 0
        elif event["type"] == "turn_timed_out":
            timed += 1
            assert timed == 1
