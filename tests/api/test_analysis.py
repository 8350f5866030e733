"""GET /api/rooms/{code}/games/{n}/analysis and GET /api/rooms/{code}/chances over HTTP."""

import asyncio
import random
from contextlib import AsyncExitStack

import pytest
from sqlalchemy import func, select

from app.db.models import Game, GameAnalysis, Room

from ..rooms.test_bots import add_bot, play_with_bots, start_apps, wait_for_turn
from ..table import Table, choose


@pytest.mark.parametrize("workers", [1, 0], ids=["review-process", "review-thread"])
async def test_analysis_of_a_game_with_an_optimal_bot(database_url, strategy_tables, workers) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1, analysis_workers=workers)
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        bot = await add_bot(table, "optimal")
        await table.start()
        url = f"/api/rooms/{table.code}/games/1/analysis"
        r = await http.get(url)
        assert (r.status_code, r.json()["code"]) == (409, "game_in_progress")

        chances_url = f"/api/rooms/{table.code}/chances"
        room = await wait_for_turn(table, table.host)
        r = await http.get(chances_url)
        assert r.status_code == 200, r.text
        chances = r.json()
        assert chances["version"] <= room["version"]
        assert chances["method"] in ("normal_mixture", "monte_carlo")
        assert abs(sum(p["chance"] for p in chances["players"]) - 1) < 1e-3
        assert {p["player_id"] for p in chances["players"]} == {table.host, bot["id"]}

        room = await play_with_bots(table, random.Random(2))
        assert room["status"] == "finished"
        r = await http.get(url)
        assert r.status_code == 200, r.text
        analysis = r.json()
        seats = {s["player_id"]: s for s in analysis["seats"]}
        assert seats[bot["id"]]["total_loss"] == 0 and seats[bot["id"]]["accuracy"] == 100
        assert seats[bot["id"]]["name"] == "Optimal bot"
        ana = seats[table.host]
        # random play: costly mistakes, the worst three listed, worst first
        assert ana["total_loss"] > 10 and len(ana["worst"]) == 3
        assert [d["loss"] for d in ana["worst"]] == sorted((d["loss"] for d in ana["worst"]), reverse=True)
        totals = {p: c["total"] for p, c in room["game"]["scorecards"].items()}
        assert {p: s["total"] for p, s in seats.items()} == totals
        assert sum(d["kind"] == "score" for d in analysis["decisions"]) == 2 * 12

        # stored once: the second answer is the stored one
        assert (await http.get(url)).json() == analysis
        state = http._transport.app.state  # type: ignore[attr-defined]
        # made where the setting says: a worker process of the server's (app.analysis.workers), or a thread
        assert (state.analysis.reviews is not None and len(state.analysis.reviews.pids()) == 1) == bool(workers)
        db = state.db
        async with db.read() as session:
            assert (await session.execute(select(func.count()).select_from(GameAnalysis))).scalar_one() >= 1

        r = await http.get(chances_url)
        finished = r.json()
        assert finished["status"] == "finished"
        winners = room["game"]["winners"]
        for p in finished["players"]:
            assert p["chance"] == (round(1 / len(winners), 4) if p["player_id"] in winners else 0)


async def test_analysis_and_chances_refusals(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        table = Table(http)
        await table.create("yatzy", "Ana", max_players=2)
        r = await http.get(f"/api/rooms/{table.code}/chances")
        assert (r.status_code, r.json()["code"]) == (409, "game_not_started")
        r = await http.get(f"/api/rooms/{table.code}/games/1/analysis")
        assert (r.status_code, r.json()["code"]) == (404, "game_not_found")
        r = await http.get("/api/rooms/ZZZZZZ/chances")
        assert (r.status_code, r.json()["code"]) == (404, "room_not_found")
        r = await http.get(f"/api/rooms/{table.code}/games/0/analysis")
        assert r.status_code == 422


async def test_chances_follow_each_scored_box(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        table = Table(http)
        await table.create("yahtzee", "Ana", max_players=3)
        await table.join("Bo")
        await table.join("Cy")
        await table.start()
        rng = random.Random(5)
        room = await table.room()
        seen = 0
        while room["game"]["round"] <= 2:
            player = room["game"]["turn"]["player_id"]
            r = await table.act(player, **choose(room, rng))
            room = r.json()["room"]
            if any(e["type"] == "scored" for e in r.json()["events"]):
                r = await http.get(f"/api/rooms/{table.code}/chances")
                chances = r.json()
                assert chances["version"] == room["version"]
                assert abs(sum(p["chance"] for p in chances["players"]) - 1) < 1e-3
                for p in chances["players"]:
                    card = room["game"]["scorecards"][p["player_id"]]
                    assert p["total"] == card["total"] and p["expected"] >= card["total"]
                seen += 1
        assert seen == 6


async def test_chances_are_computed_ahead_only_where_a_client_follows_them(database_url, strategy_tables) -> None:
    """A scored box in a room whose chances nobody asked for reads and
    computes nothing (on 1178a6e every scored box did both, a third of all
    actions: it showed in the server's profile). Once a client has asked,
    each scored box has the new chances computed before the next request,
    which gets them from the cache: the same numbers as computed on demand."""
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        analysis = http._transport.app.state.analysis  # type: ignore[attr-defined]
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        await table.join("Bo")
        await table.start()
        rng = random.Random(3)
        room = await table.room()

        async def until_scored() -> dict:
            while True:
                r = await table.act(room["game"]["turn"]["player_id"], **choose(room, rng))
                if any(e["type"] == "scored" for e in r.json()["events"]):
                    return r.json()["room"]
                room.update(r.json()["room"])

        room = await until_scored()
        await asyncio.sleep(0.3)  # time for any work the scored box started
        assert table.code not in analysis._chances
        r = await http.get(f"/api/rooms/{table.code}/chances")
        assert r.status_code == 200 and r.json()["version"] == room["version"]
        for _ in range(3):
            room = await until_scored()
            for _ in range(1000):  # computed with no request (within 10 s)
                if analysis._chances.get(table.code, (None, {}))[1].get("version") == room["version"]:
                    break
                await asyncio.sleep(0.01)
            ahead = analysis._chances[table.code][1]
            r = await http.get(f"/api/rooms/{table.code}/chances")
            assert r.json() == ahead and r.json()["version"] == room["version"]
        # computed on demand (nothing cached), the chances are the same
        analysis._chances.clear()
        assert (await http.get(f"/api/rooms/{table.code}/chances")).json() == ahead


async def test_moves_that_score_nothing_cost_no_new_chances(database_url, strategy_tables) -> None:
    """Rolls and keeps move the room's version but not the chances (issue
    27.7: each version a client moved cost a fresh computation, a Monte
    Carlo one without variance tables): they are computed once per scored
    box, and each answer carries the room's current version."""
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        analysis = http._transport.app.state.analysis  # type: ignore[attr-defined]
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        await table.join("Bo")
        room = await table.start()
        mover = room["game"]["turn"]["player_id"]
        first = (await http.get(f"/api/rooms/{table.code}/chances")).json()
        computed = analysis.computed
        r = await table.act(mover, type="roll")
        for dice in ([0], [0, 1], [], [2, 3], [4]):
            r = await table.act(mover, type="keep", dice=dice)
            assert r.status_code == 200, r.text
            chances = (await http.get(f"/api/rooms/{table.code}/chances")).json()
            assert chances["version"] == r.json()["version"]
            assert chances["players"] == first["players"]
        assert analysis.computed == computed
        r = await table.act(mover, type="score", box="choice")
        assert r.status_code == 200, r.text
        assert (await http.get(f"/api/rooms/{table.code}/chances")).json()["players"] != first["players"]
        assert analysis.computed == computed + 1


async def test_a_finished_game_is_analysed_when_first_asked_for(sqlite_database, strategy_tables) -> None:
    """Not as it ends (made then, every game's analysis cost the server's
    event loop reads and a stored row under the write lock, on 53895c2):
    nothing is read, reviewed or stored until someone asks, then once."""
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, sqlite_database, 1)
        state = http._transport.app.state  # type: ignore[attr-defined]
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        await add_bot(table, "optimal")
        await table.start()
        room = await play_with_bots(table, random.Random(4))
        assert room["status"] == "finished"
        await asyncio.sleep(0.5)  # time for a review it would have started
        assert state.analysis.reviews.pids() == []  # no worker started: no review asked for yet
        stored = (
            select(func.count())
            .select_from(GameAnalysis)
            .join(Game, Game.id == GameAnalysis.game_id)
            .join(Room, Room.id == Game.room_id)
            .where(Room.code == table.code)
        )
        async with state.db.read() as session:
            assert (await session.execute(stored)).scalar_one() == 0
        url = f"/api/rooms/{table.code}/games/1/analysis"
        first, second = await asyncio.gather(http.get(url), http.get(url))
        assert first.status_code == second.status_code == 200 and first.json() == second.json()
        assert first.json()["number"] == 1
        async with state.db.read() as session:
            assert (await session.execute(stored)).scalar_one() == 1
        assert len(state.analysis.reviews.pids()) == 1
