"""Two actions racing for one room: exactly one wins, the others get a clear
answer, and the event log has no gap and no duplicate."""

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import httpx
import pytest

from app.main import create_app

from ..conftest import test_settings
from ..table import Table


@pytest.fixture
async def instances(database_url: str) -> AsyncIterator[list[httpx.AsyncClient]]:
    """Two apps with separate engines on one database, as two server instances would be."""
    async with AsyncExitStack() as stack:
        clients = []
        for _ in range(2):
            app = create_app(test_settings(database_url))
            await stack.enter_async_context(app.router.lifespan_context(app))
            transport = httpx.ASGITransport(app=app)
            clients.append(await stack.enter_async_context(httpx.AsyncClient(transport=transport, base_url="http://t")))
        yield clients


async def ready_table(http: httpx.AsyncClient) -> tuple[Table, str]:
    table = Table(http)
    await table.create("yacht", "Ana", max_players=2)
    await table.join("Ben")
    await table.start()
    player = (await table.room())["game"]["turn"]["player_id"]
    assert (await table.act(player, type="roll")).status_code == 200
    return table, player


async def check_log(table: Table) -> None:
    events = await table.events()
    versions = [e["version"] for e in events]
    assert versions == list(range(1, len(versions) + 1))
    assert (await table.room())["version"] == versions[-1]


async def score_copies(instances: list[httpx.AsyncClient], table: Table, player: str, **extra) -> list[httpx.Response]:
    async def one(i: int) -> httpx.Response:
        http = instances[i % len(instances)]
        return await http.post(
            f"/api/rooms/{table.code}/actions",
            json={"type": "score", "box": "choice", **extra},
            headers=table.auth(table.tokens[player]),
        )

    return await asyncio.gather(*(one(i) for i in range(20)))


async def test_twenty_copies_without_id_one_applies(instances) -> None:
    table, player = await ready_table(instances[0])
    responses = await score_copies(instances, table, player)
    outcomes = Counter((r.status_code, r.json().get("code")) for r in responses)
    assert outcomes == {(200, None): 1, (409, "not_your_turn"): 19}
    await check_log(table)
    room = await table.room()
    assert sum(v is not None for v in room["game"]["scorecards"][player]["boxes"].values()) == 1


async def test_twenty_copies_with_one_id_all_get_the_same_answer(instances) -> None:
    table, player = await ready_table(instances[0])
    responses = await score_copies(instances, table, player, id="score-1")
    assert {r.status_code for r in responses} == {200}
    answers = {json.dumps([r.json()["version"], r.json()["events"]], sort_keys=True) for r in responses}
    assert len(answers) == 1
    await check_log(table)
    events = await table.events()
    assert sum(e["type"] == "scored" for e in events) == 1


async def test_racing_starts_and_joins(instances) -> None:
    table = Table(instances[0])
    await table.create("yahtzee", "Ana", max_players=3)
    joins = await asyncio.gather(
        *(instances[i % 2].post(f"/api/rooms/{table.code}/players", json={"name": f"P{i}"}) for i in range(6))
    )
    assert Counter(r.status_code for r in joins) == {201: 2, 409: 4}
    assert {r.json()["code"] for r in joins if r.status_code == 409} == {"room_full"}
    starts = await asyncio.gather(
        *(
            instances[i % 2].post(f"/api/rooms/{table.code}/games", headers=table.auth(table.tokens[table.host]))
            for i in range(4)
        )
    )
    assert Counter(r.status_code for r in starts) == {201: 1, 409: 3}
    await check_log(table)
    room = await table.room()
    assert [p["seat"] for p in room["players"]] == [0, 1, 2]


async def test_different_actions_at_one_version_one_applies(instances) -> None:
    """Rolls and scores racing from both instances, each sent at the same
    ``expected_version``: one is stored, every other one answers stale_version
    (a loser that read the old version decides again and finds it moved)."""
    table, player = await ready_table(instances[0])
    version = (await table.room())["version"]
    kinds = [{"type": "roll", "keep": [0, 1]}, {"type": "score", "box": "choice"}, {"type": "roll"}]

    async def one(i: int) -> httpx.Response:
        return await instances[i % 2].post(
            f"/api/rooms/{table.code}/actions",
            json={**kinds[i % len(kinds)], "expected_version": version},
            headers=table.auth(table.tokens[player]),
        )

    responses = await asyncio.gather(*(one(i) for i in range(12)))
    outcomes = Counter((r.status_code, r.json().get("code")) for r in responses)
    assert outcomes == {(200, None): 1, (409, "stale_version"): 11}
    await check_log(table)
