"""Hints in multiplayer: off by default for several players, on for solo;
each hinted roll is recorded once (hint_used, without the advice) and counted
per player in the game (GameOut.hints), on SQLite and PostgreSQL."""

import asyncio
import random

from ..table import Table, choose


async def hint(table: Table, player: str):
    return await table.http.get(f"/api/rooms/{table.code}/hint", headers=table.auth(table.tokens[player]))


async def test_hints_default_by_seats(client) -> None:
    for seats, on in ((1, True), (2, False), (4, False)):
        r = await client.post("/api/rooms", json={"name": "Ana", "max_players": seats})
        assert r.json()["room"]["options"]["hints"] is on
    for seats in (1, 3):
        for chosen in (True, False):
            r = await client.post(
                "/api/rooms", json={"name": "Ana", "max_players": seats, "options": {"hints": chosen}}
            )
            assert r.json()["room"]["options"]["hints"] is chosen
    r = await client.post("/api/rooms", json={"name": "Ana", "max_players": 3, "options": {"hints": None}})
    assert r.json()["room"]["options"]["hints"] is False
    table = Table(client)
    await table.create("yacht", "Ana", max_players=2)
    await table.join("Ben")
    room = await table.start()
    first = room["game"]["turn"]["player_id"]
    await table.act(first, type="roll")
    r = await hint(table, first)
    assert (r.status_code, r.json()["code"]) == (403, "hints_disabled")


async def test_each_hinted_roll_is_recorded_once_and_counted(client, strategy_tables) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=2, options={"hints": True})
    ben = await table.join("Ben")
    ana = table.host
    room = await table.start()
    rng = random.Random(5)
    asked = {ana: 0, ben: 0}
    hinted = set()
    while room["game"]["status"] == "playing":
        turn = room["game"]["turn"]
        player = turn["player_id"]
        if turn["dice"] is not None and rng.random() < 0.4:
            version = room["version"]
            # asked twice (and twice at once): one hint_used for the roll
            results = await asyncio.gather(hint(table, player), hint(table, player))
            assert [r.status_code for r in results] == [200, 200]
            assert (await hint(table, player)).status_code == 200
            roll = (player, room["game"]["round"], turn["rolls_left"])
            new = roll not in hinted  # (a keep leaves the same roll on the table)
            hinted.add(roll)
            asked[player] += new
            room = await table.room()
            assert room["version"] == version + new
            assert room["game"]["hints"][player] == asked[player]
            other = ben if player == ana else ana
            r = await hint(table, other)
            assert (r.status_code, r.json()["code"]) == (409, "not_your_turn")
        r = await table.act(player, expected_version=room["version"], **choose(room, rng))
        assert r.status_code == 200, r.text
        room = r.json()["room"]
    assert sum(asked.values()) > 0
    assert room["game"]["hints"] == asked
    game = (await client.get(f"/api/rooms/{table.code}/games/1")).json()
    assert game["hints"] == asked
    events = [e for e in await table.events() if e["type"] == "hint_used"]
    assert len(events) == sum(asked.values())
    for event in events:
        assert set(event["data"]) == {"player_id", "round", "rolls_left"}  # never the advice
        assert event["player_id"] == event["data"]["player_id"]
    # a new game counts afresh
    room = await table.start()
    assert room["game"]["hints"] == {ana: 0, ben: 0}
