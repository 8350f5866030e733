"""Resigning (DELETE /api/rooms/{code}/players/{id} during a game): the autopilot
finishes the card, the seat cannot win and ranks last; the host may remove only
an away seat."""

import random

from sqlalchemy import select

from app.db import Database
from app.db.models import GameResult
from bench.loadgen import choose

from ..table import Table


async def resign(table: Table, actor: str, target: str):
    return await table.http.delete(f"/api/rooms/{table.code}/players/{target}", headers=table.auth(table.tokens[actor]))


async def test_a_resigned_seat_is_played_out_cannot_win_and_ranks_last(client, app_settings) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    ben = await table.join("Ben")
    cy = await table.join("Cy")
    ana = table.host
    await table.start()
    # the host may not remove a seat that is not away
    r = await resign(table, ana, ben)
    assert (r.status_code, r.json()["code"]) == (403, "not_away")
    # nor may anyone else remove a seat
    r = await resign(table, cy, ben)
    assert (r.status_code, r.json()["code"]) == (403, "not_host")
    r = await resign(table, ana, ana)  # the host resigns: Ben hosts the room now
    assert r.status_code == 204, r.text
    r = await resign(table, ana, ana)
    assert (r.status_code, r.json()["code"]) == (409, "resigned")
    room = await table.room()
    assert [p["resigned"] for p in room["players"]] == [True, False, False]
    assert room["host_id"] == ben
    # Ben and Cy play; Ana's turns are played for her (her own actions are refused)
    rng = random.Random(3)
    while room["game"]["status"] == "playing":
        player = room["game"]["turn"]["player_id"]
        if player == ana:
            r = await table.act(ana, **choose(room, rng))
            # (game_over: the autopilot played her last turn meanwhile, which ended the game)
            assert r.status_code == 409 and r.json()["code"] in ("resigned", "not_your_turn", "game_over"), r.text
            room = await table.room()
            continue
        r = await table.act(player, expected_version=room["version"], **choose(room, rng))
        assert r.status_code in (200, 409), r.text
        room = r.json()["room"] if r.status_code == 200 else await table.room()
    events = await table.events()
    assert [e["data"] for e in events if e["type"] == "player_resigned"] == [{"player_id": ana}]
    assert sum(1 for e in events if e["type"] == "scored" and e["player_id"] == ana) == 12
    finished = events[-1]
    assert finished["type"] == "game_finished"
    totals = finished["data"]["totals"]
    best = max(totals[ben], totals[cy])
    assert finished["data"]["winners"] == [p for p in (ben, cy) if totals[p] == best]
    assert room["game"]["winners"] == finished["data"]["winners"]
    # the recorded results put Ana last whatever her total
    db = Database(app_settings.database_url)
    await db.open()
    try:
        async with db.read() as session:
            rows = (await session.execute(select(GameResult).where(GameResult.room_code == table.code))).scalars()
            places = {row.player_id: row.place for row in rows}
    finally:
        await db.dispose()
    assert places[ana] == 3 and sorted([places[ben], places[cy]]) in ([1, 2], [1, 1])
    # the next game starts without her: she leaves the room then
    table.host = ben
    started = await table.start()
    assert [p["id"] for p in started["players"]] == [ben, cy]
    assert next(e for e in await table.events(finished["version"]) if e["type"] == "player_left")["player_id"] == ana


async def test_the_host_removes_an_away_seat(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=2, options={"turn_seconds": 10})
    ben = await table.join("Ben")
    await table.start()
    turns = client._transport.app.state.turns  # type: ignore[attr-defined]
    # Ben times out twice (the deadline moved by hand: no waiting for the clock)
    while not (await table.room())["players"][1]["away"]:
        room = await table.room()
        player = room["game"]["turn"]["player_id"]
        if player == ben and room["game"]["deadline"] is not None:
            assert await turns.time_out(table.code, room["version"], ben)
        else:
            await turns.play_due(table.code) if player == ben else await table.act(
                player, expected_version=room["version"], **choose(room, random.Random(room["version"]))
            )
    r = await resign(table, table.host, ben)
    assert r.status_code == 204, r.text
    room = await table.room()
    assert room["players"][1]["resigned"] is True
