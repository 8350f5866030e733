"""Bot seats play through the scheduler and the normal action path; hints."""

import asyncio
import random
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import httpx

from app.main import create_app
from app.rooms.bots import Alarm, bot_action
from app.rules import state_from_dict
from app.strategy import StrategyStore

from ..conftest import STRATEGY_DIR, test_settings
from ..table import Table, choose


async def start_apps(stack: AsyncExitStack, database_url: str, count: int, **overrides) -> list[httpx.AsyncClient]:
    clients = []
    for _ in range(count):
        app = create_app(test_settings(database_url, **overrides))
        await stack.enter_async_context(app.router.lifespan_context(app))
        await app.state.strategy.wait_ready()
        transport = httpx.ASGITransport(app=app)
        clients.append(await stack.enter_async_context(httpx.AsyncClient(transport=transport, base_url="http://t")))
    return clients


async def wait_for_turn(table: Table, player: str, timeout: float = 20.0) -> dict:
    """The room once it is ``player``'s turn or the game is over (bots play meanwhile)."""
    async with asyncio.timeout(timeout):
        while True:
            room = await table.room()
            game = room["game"]
            if game["status"] == "finished" or game["turn"]["player_id"] == player:
                return room
            await asyncio.sleep(0.02)


async def add_bot(table: Table, level: str) -> dict:
    r = await table.http.post(
        f"/api/rooms/{table.code}/bots", json={"level": level}, headers=table.auth(table.tokens[table.host])
    )
    assert r.status_code == 201, r.text
    return r.json()["player"]


async def play_with_bots(table: Table, rng: random.Random) -> dict:
    room = await wait_for_turn(table, table.host)
    while room["game"]["status"] == "playing":
        r = await table.act(table.host, **choose(room, rng))
        assert r.status_code == 200, r.text
        room = await wait_for_turn(table, table.host)
    return room


async def test_bots_play_a_whole_game_with_a_person(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        table = Table(http)
        await table.create("yahtzee", "Ana", max_players=4)
        bots = [await add_bot(table, level) for level in ("optimal", "strong", "greedy")]
        assert [b["bot"] for b in bots] == ["optimal", "strong", "greedy"]
        assert all(b["connected"] for b in bots)
        await table.start()
        room = await play_with_bots(table, random.Random(4))
        assert room["status"] == "finished"
        events = await table.events()
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        scored = [e for e in events if e["type"] == "scored"]
        for bot in bots:
            assert sum(e["player_id"] == bot["id"] for e in scored) == 13
        assert room["game"]["scorecards"][bots[0]["id"]]["total"] > 0


async def test_two_instances_never_play_a_bot_twice(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        first, second = await start_apps(stack, database_url, 2)
        table = Table(first)
        await table.create("yacht", "Ana", max_players=3)
        await add_bot(table, "optimal")
        await add_bot(table, "casual")
        await table.start()
        room = await play_with_bots(table, random.Random(8))
        assert room["status"] == "finished"
        events = await Table(second, table.code).events()
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        turns = [e for e in events if e["type"] == "scored"]
        assert len(turns) == 3 * 12


async def test_bot_seat_refusals(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=2)
    ben = await table.join("Ben")
    url = f"/api/rooms/{table.code}/bots"
    r = await client.post(url, json={"level": "optimal"}, headers=table.auth(table.tokens[ben]))
    assert (r.status_code, r.json()["code"]) == (403, "not_host")
    r = await client.post(url, json={"level": "grandmaster"}, headers=table.auth(table.tokens[table.host]))
    assert (r.status_code, r.json()["code"]) == (422, "invalid_request")
    r = await client.post(url, json={"level": "optimal"}, headers=table.auth(table.tokens[table.host]))
    assert (r.status_code, r.json()["code"]) == (409, "room_full")
    r = await client.post(url, json={"level": "optimal"})
    assert (r.status_code, r.json()["code"]) == (401, "unauthorized")


async def test_the_hint_marks_what_the_optimal_bot_plays(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        table = Table(http)
        await table.create("yahtzee", "Ana", max_players=2, options={"hints": True})
        ben = await table.join("Ben")
        room = await table.start()
        first = room["game"]["turn"]["player_id"]
        other = ben if first == table.host else table.host
        hint_url = f"/api/rooms/{table.code}/hint"
        r = await http.get(hint_url, headers=table.auth(table.tokens[first]))
        assert (r.status_code, r.json()["code"]) == (409, "must_roll_first")
        store = StrategyStore(STRATEGY_DIR, solve=False)
        store.load_available()
        rng = random.Random(3)
        for _ in range(12):
            if room["game"]["turn"]["dice"] is None:
                room = (await table.act(first, type="roll")).json()["room"]
            r = await http.get(hint_url, headers=table.auth(table.tokens[first]))
            assert r.status_code == 200, r.text
            hint = r.json()
            assert hint["rolls_left"] == room["game"]["turn"]["rolls_left"]
            top_keep = hint["keeps"][0]["ev"] if hint["keeps"] else float("-inf")
            top_box = hint["boxes"][0]["ev"]
            assert hint["best"]["type"] == ("score" if top_box >= top_keep else "keep")
            # the optimal bot, given the same position, plays the marked choice
            action = bot_action(store, state_from_dict(await _state(http, table)), "optimal", random.Random(0))
            marked = hint["best"]
            if marked["type"] == "score":
                assert (action.type, action.box) == ("score", marked["box"]) == ("score", hint["boxes"][0]["box"])
            else:
                assert (
                    (action.type, list(action.keep or ()))
                    == ("roll", marked["dice"])
                    == ("roll", hint["keeps"][0]["dice"])
                )
            r = await http.get(hint_url, headers=table.auth(table.tokens[other]))
            assert (r.status_code, r.json()["code"]) == (409, "not_your_turn")
            room = (await table.act(first, **choose(room, rng))).json()["room"]
            if room["game"]["turn"]["player_id"] != first:
                break


async def _state(http: httpx.AsyncClient, table: Table) -> dict:
    """The stored engine state of the room's game (read through the app's database)."""
    app = http._transport.app  # type: ignore[attr-defined]
    from sqlalchemy import select

    from app.db import Game, Room

    async with app.state.db.read() as session:
        room = (await session.execute(select(Room).where(Room.code == table.code))).scalar_one()
        game = (
            await session.execute(select(Game).where(Game.room_id == room.id, Game.number == room.game_number))
        ).scalar_one()
        return game.state


async def test_hints_off_and_tables_not_ready(database_url, tmp_path) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1, strategy_dir=tmp_path)  # no tables there
        table = Table(http)
        await table.create("yacht", "Ana", max_players=1, options={"hints": False})
        await table.start()
        await table.act(table.host, type="roll")
        r = await http.get(f"/api/rooms/{table.code}/hint", headers=table.auth(table.tokens[table.host]))
        assert (r.status_code, r.json()["code"]) == (403, "hints_disabled")
        other = Table(http)
        await other.create("yacht", "Bo", max_players=2, options={"hints": True})
        await add_bot(other, "optimal")  # plays greedily until the tables exist
        await other.start()
        room = await wait_for_turn(other, other.host)
        if room["game"]["turn"]["dice"] is None:
            await other.act(other.host, type="roll")
        r = await http.get(f"/api/rooms/{other.code}/hint", headers=other.auth(other.tokens[other.host]))
        assert (r.status_code, r.json()["code"]) == (503, "strategy_unavailable")


async def test_the_alarm_wakes_the_scheduler_only_for_a_deadline_before_its_next_look() -> None:
    """Most actions set a deadline minutes ahead (an untimed turn's look at whether its
    player is there): waking the scheduler for each would cost a claim, a write
    transaction, per action. Only a deadline sooner than its next look wakes it."""
    alarm = Alarm()
    now = datetime.now(UTC)
    alarm.looks_by = now + timedelta(seconds=1)  # the scheduler sleeps until its poll
    alarm.ring(now + timedelta(seconds=180))
    assert not alarm.event.is_set() and alarm.next is None
    alarm.ring((now + timedelta(seconds=0.2)).replace(tzinfo=None))  # as SQLite hands it back
    assert alarm.event.is_set() and alarm.next == now + timedelta(seconds=0.2)
    alarm.event.clear()
    alarm.looks_by = None  # looking now: every deadline is noted
    alarm.ring(now + timedelta(seconds=180))
    assert alarm.event.is_set()
