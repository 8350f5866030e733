"""Two real server processes sharing PostgreSQL and Redis."""

import asyncio
import random

import httpx
import pytest

from ..live import OwnRedis, server_process
from ..services import redis_url
from ..table import Table, choose
from ..wsclient import Player


def assert_full_sequence(client: Player, first: int, last: int) -> None:
    assert client.versions() == list(range(first, last + 1)), client.versions()


@pytest.fixture
def two_instances(postgres_database):
    env = {"DICECUP_DATABASE_URL": postgres_database, "DICECUP_REDIS_URL": redis_url()}
    with server_process(env) as a, server_process(env) as b:
        yield a, b


async def test_an_action_on_one_instance_reaches_the_other(two_instances) -> None:
    a, b = two_instances
    async with httpx.AsyncClient(base_url=a.http) as http_a:
        table = Table(http_a)
        await table.create("yahtzee", "Ana", max_players=2)
        ben = await table.join("Ben")
        on_a = await Player.connect(a.socket_url(table.code), table.tokens[table.host])
        on_b = await Player.connect(b.socket_url(table.code), table.tokens[ben])
        watcher_b = await Player.connect(b.socket_url(table.code), None)
        # presence crosses instances too
        await on_a.until("presence", player_id=ben, connected=True)
        started = await table.start()
        first = started["version"] - 1  # game_started
        for client in (on_a, on_b, watcher_b):
            await client.until_version(started["version"])

        actor = {table.host: on_a, ben: on_b}[started["game"]["turn"]["player_id"]]
        reply = await actor.act(type="roll")
        assert reply["type"] == "ack"
        for client in (on_a, on_b, watcher_b):
            await client.until_version(reply["version"])

        # Concurrent actions through both instances: the current player's two
        # tabs, one on each instance, each fire ten keeps.
        player = started["game"]["turn"]["player_id"]
        tab_a = await Player.connect(a.socket_url(table.code), table.tokens[player])
        tab_b = await Player.connect(b.socket_url(table.code), table.tokens[player])

        async def burst(tab: Player, offset: int) -> list[dict]:
            for i in range(10):
                await tab.send({"type": "action", "action": {"type": "keep", "dice": [(i + offset) % 5]}})
            acks = []
            while len(acks) < 10:
                message = await tab.recv()
                if message["type"] in ("ack", "error"):
                    acks.append(message)
            return acks

        acks = await asyncio.gather(burst(tab_a, 0), burst(tab_b, 2))
        assert all(m["type"] == "ack" for batch in acks for m in batch)
        last = max(m["version"] for batch in acks for m in batch)
        assert last == reply["version"] + 20
        for client in (on_a, on_b, watcher_b, tab_a, tab_b):
            await client.until_version(last)
        for client in (on_a, on_b, watcher_b):
            assert_full_sequence(client, first, last)
        assert [m["event"] for m in on_a.seen] == [m["event"] for m in on_b.seen]
        for client in (on_a, on_b, watcher_b, tab_a, tab_b):
            await client.close()


async def test_redis_restart_mid_game(postgres_database) -> None:
    redis = OwnRedis()
    redis.start()
    env = {"DICECUP_DATABASE_URL": postgres_database, "DICECUP_REDIS_URL": redis.url}
    try:
        with server_process(env) as a, server_process(env) as b:
            async with httpx.AsyncClient(base_url=a.http) as http_a, httpx.AsyncClient(base_url=b.http) as http_b:
                table = Table(http_a)
                await table.create("yacht", "Ana", max_players=2)
                ben = await table.join("Ben")
                on_a = await Player.connect(a.socket_url(table.code), table.tokens[table.host])
                on_b = await Player.connect(b.socket_url(table.code), table.tokens[ben])
                room = await table.start()
                first = room["version"] - 1
                rng = random.Random(9)
                rest = {
                    table.host: Table(http_a, table.code, table.tokens),
                    ben: Table(http_b, table.code, table.tokens),
                }

                async def act(n: int) -> dict:
                    nonlocal room
                    for _ in range(n):
                        player = room["game"]["turn"]["player_id"]
                        r = await rest[player].act(player, **choose(room, rng))
                        assert r.status_code == 200, r.text
                        room = r.json()["room"]
                    return room

                await act(6)
                for client in (on_a, on_b):
                    await client.until_version(room["version"])
                redis.stop()
                await act(6)  # published nowhere: each instance serves its own clients, the rest waits
                redis.start()
                await act(6)
                for client in (on_a, on_b):
                    await client.until_version(room["version"], timeout=20)
                    assert_full_sequence(client, first, room["version"])
                assert [m["event"] for m in on_a.seen] == [m["event"] for m in on_b.seen]
                await on_a.close()
                await on_b.close()
    finally:
        redis.stop()
