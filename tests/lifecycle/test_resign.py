"""Resigning (DELETE /api/rooms/{code}/players/{id} during a game): the autopilot
finishes the card, the seat cannot win and ranks last; the host may remove only
an away seat."""

import random

from sqlalchemy import select

from app.db import Database
from app.db.models import GameResult
from app.rules import verify_game
from bench.loadgen import choose

from ..live import eventually
from ..table import Table


async def resign(table: Table, actor: str, target: str):
    return await table.http.delete(f"/api/rooms/{table.code}/players/{target}", headers=table.auth(table.tokens[actor]))


async def test_a_resigned_seat_is_played_out_cannot_win_and_ranks_last(client, app_settings, strategy_tables) -> None:
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
    # the analysis values none of the autopilot's moves as hers (she resigned before her first)
    analysis = (await client.get(f"/api/rooms/{table.code}/games/1/analysis")).json()
    seats = {seat["player_id"]: seat for seat in analysis["seats"]}
    assert seats[ana]["resigned"] is True and seats[ana]["decisions"] == 0
    assert seats[ben]["resigned"] is False and seats[ben]["decisions"] > 0
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
    # Ben was the only other person: the game ends at once, the host winning
    assert room["status"] == "finished" and room["game"]["winners"] == [table.host]
    assert room["game"]["ended"] == "resigned"


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def profile(client, name: str) -> tuple[str, str]:
    r = await client.post("/api/profiles", json={"name": name})
    return r.json()["profile"]["id"], r.json()["token"]


async def test_when_every_other_person_resigns_the_game_ends_at_once(client, app_settings) -> None:
    """Ana and Ben (profiles) and a bot; Ben resigns in round 2: the game ends
    there, Ana winning whatever the bot scored; her unfinished card counts for
    wins and ratings, never for bests; the dice still verify."""
    (ana_profile, ana_pt), (ben_profile, ben_pt) = await profile(client, "Ana"), await profile(client, "Ben")
    r = await client.post(
        "/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 3}, headers=auth(ana_pt)
    )
    table = Table(
        client, r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]}, r.json()["player"]["id"]
    )
    ana = table.host
    r = await client.post(f"/api/rooms/{table.code}/players", json={"name": "Ben"}, headers=auth(ben_pt))
    ben = r.json()["player"]["id"]
    table.tokens[ben] = r.json()["token"]
    r = await client.post(f"/api/rooms/{table.code}/bots", json={"level": "optimal"}, headers=auth(table.tokens[ana]))
    bot = r.json()["player"]["id"]
    await table.start()
    rng = random.Random(26)
    room = await table.room()
    while room["game"]["round"] < 2 or room["game"]["turn"]["player_id"] == bot:  # the bot plays by itself
        turn = room["game"]["turn"]
        if turn["player_id"] != bot:
            r = await table.act(turn["player_id"], expected_version=room["version"], **choose(room, rng))
            assert r.status_code in (200, 409), r.text
        room = await table.room()
    before = room["version"]
    r = await resign(table, ben, ben)
    assert r.status_code == 204, r.text
    events = await table.events(before)
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["player_resigned", "game_finished"], kinds
    finished = events[1]
    assert finished["player_id"] is None
    assert finished["data"]["winners"] == [ana] and finished["data"]["reason"] == "resigned"
    room = await table.room()
    game = room["game"]
    assert room["status"] == "finished" and game["status"] == "finished" and game["turn"] is None
    assert game["winners"] == [ana] and game["ended"] == "resigned" and game["round"] == 2
    assert room["games"][-1]["resigned"] == [ben] and room["games"][-1]["ended"] == "resigned"
    assert room["best"] == {"yacht": {}}  # unfinished cards are never bests
    assert [line["wins"] for line in room["series"] if line["player_id"] == ana] == [1]
    assert room["rematch"]["waiting"] == [ana]  # Ben resigned: not waited for
    assert verify_game(finished["data"]["seed"], await table.events()) > 0  # the dice still check out

    db = Database(app_settings.database_url)
    await db.open()
    try:
        async with db.read() as session:
            rows = (await session.execute(select(GameResult).where(GameResult.room_code == table.code))).scalars()
            results = {row.player_id: row for row in rows}
    finally:
        await db.dispose()
    assert {p: (results[p].place, results[p].won, results[p].complete) for p in (ana, bot, ben)} == {
        ana: (1, True, False),
        bot: (2, False, False),
        ben: (3, False, False),
    }
    stats = (await client.get(f"/api/profiles/{ana_profile}/stats")).json()["rulesets"]["yacht"]
    assert (stats["games"], stats["wins"], stats["best"], stats["average"], stats["histogram"]) == (
        1,
        1,
        None,
        None,
        [],
    )
    board = (await client.get("/api/leaderboards/yacht", params={"limit": 100})).json()["entries"]
    assert ana_profile not in {e["profile_id"] for e in board}
    ratings = {
        p: (await client.get(f"/api/profiles/{p}")).json()["ratings"]["yacht"]["mu"] for p in (ana_profile, ben_profile)
    }
    assert ratings[ana_profile] > 25 > ratings[ben_profile]
    history = (await client.get("/api/profiles/me/games", headers=auth(ana_pt))).json()["games"]
    assert history[0]["complete"] is False and history[0]["won"] is True


async def test_a_person_alone_with_bots_who_resigns_is_played_out(client) -> None:
    """Against the computer nobody else is a person: resigning hands the card to
    the autopilot (the game is not ended at once)."""
    r = await client.post(
        "/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 2, "bots": ["greedy"], "start": True}
    )
    table = Table(
        client, r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]}, r.json()["player"]["id"]
    )
    assert (await resign(table, table.host, table.host)).status_code == 204
    events = await table.events()
    assert "game_finished" not in [e["type"] for e in events[-3:]]

    async def played_out() -> dict | None:
        room = await table.room()
        return room if room["game"]["status"] == "finished" else None

    room = await eventually(played_out, timeout=60)
    assert room["game"]["ended"] == "completed" and room["games"][-1]["resigned"] == [table.host]
    finished = (await table.events())[-1]
    assert finished["data"]["reason"] == "completed"


async def test_a_resigned_seat_gets_no_win_chance(client, strategy_tables) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    ben = await table.join("Ben")
    await table.join("Cy")
    await table.start()
    assert (await resign(table, ben, ben)).status_code == 204
    r = await client.get(f"/api/rooms/{table.code}/chances")
    assert r.status_code == 200, r.text
    chances = {p["player_id"]: p["chance"] for p in r.json()["players"]}
    assert chances[ben] == 0 and abs(sum(chances.values()) - 1) < 1e-3
    assert all(c > 0 for p, c in chances.items() if p != ben)
