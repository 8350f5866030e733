"""Play again and the series (issues 13.6, 18.8): every seat may accept a
rematch, the next game starts with the same seats once every person has
accepted (bots at once), exactly once under races; the room's score pad sums
each player's totals over its games; play against the computer in one call.
On SQLite and PostgreSQL."""

import asyncio
import random
from collections import Counter
from contextlib import AsyncExitStack

import httpx

from ..table import Table, choose, play
from .test_bots import play_with_bots, start_apps
from .test_races import instances  # noqa: F401  (fixture: two apps on one database)


async def rematch(table: Table, player: str, game: int, http: httpx.AsyncClient | None = None) -> httpx.Response:
    return await (http or table.http).post(
        f"/api/rooms/{table.code}/rematch", json={"game": game}, headers=table.auth(table.tokens[player])
    )


async def finished_table(http: httpx.AsyncClient, names: tuple[str, ...] = ("Ana", "Ben"), seed: int = 1) -> Table:
    table = Table(http)
    await table.create("yacht", names[0], max_players=len(names) + 1)
    for name in names[1:]:
        await table.join(name)
    await table.start()
    room = await play(table, random.Random(seed))
    assert room["status"] == "finished"
    return table


async def test_rematch_starts_when_everyone_accepted_and_the_series_adds_up(client) -> None:
    table = await finished_table(client)
    ana, ben = table.host, next(p for p in table.tokens if p != table.host)
    room = await table.room()
    assert room["rematch"] == {"game": 1, "ready": [], "waiting": [ana, ben]}
    first = {g["number"]: g["totals"] for g in room["games"]}[1]
    assert {line["player_id"]: line["total"] for line in room["series"]} == first

    r = await rematch(table, ben, 1)  # not the host: anyone may propose
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "finished"
    assert r.json()["rematch"] == {"game": 1, "ready": [ben], "waiting": [ana]}
    version = r.json()["version"]
    assert (await rematch(table, ben, 1)).json()["version"] == version  # accepting twice changes nothing

    r = await rematch(table, ana, 1)
    assert r.status_code == 200, r.text
    room = r.json()
    assert room["status"] == "playing" and room["game"]["number"] == 2 and room["rematch"] is None
    assert sorted(room["game"]["order"]) == sorted([ana, ben])  # the same seats
    events = await table.events()
    kinds = [e["type"] for e in events if e["version"] >= version]
    assert kinds[:3] == ["rematch_accepted", "rematch_accepted", "game_started"]
    accepted = [e for e in events if e["type"] == "rematch_accepted"]
    assert [e["player_id"] for e in accepted] == [ben, ana]
    assert accepted[-1]["data"] == {"game": 1, "ready": [ana, ben], "waiting": []}

    room = await play(table, random.Random(2))
    second = room["games"][1]["totals"]
    series = {line["player_id"]: line for line in room["series"]}
    for player in (ana, ben):
        assert series[player]["total"] == first[player] + second[player]
        assert series[player]["games"] == 2
    wins = Counter(w for g in room["games"] for w in g["winners"])
    assert {p: series[p]["wins"] for p in (ana, ben)} == {p: wins[p] for p in (ana, ben)}
    assert [line["name"] for line in room["series"]] == ["Ana", "Ben"]
    assert room["rematch"] == {"game": 2, "ready": [], "waiting": [ana, ben]}  # a new round of accepts


async def test_refusals(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    ben = await table.join("Ben")
    assert (await rematch(table, ben, 1)).json()["code"] == "game_not_started"
    await table.start()
    r = await rematch(table, ben, 1)
    assert (r.status_code, r.json()["code"]) == (409, "game_in_progress")
    await play(table, random.Random(3))
    for body, status, code in [
        ({"game": 2}, 404, "game_not_found"),
        ({"game": 0}, 422, "invalid_request"),
        ({}, 422, "invalid_request"),
        ({"game": 1, "extra": True}, 422, "invalid_request"),
    ]:
        r = await client.post(f"/api/rooms/{table.code}/rematch", json=body, headers=table.auth(table.tokens[ben]))
        assert (r.status_code, r.json()["code"]) == (status, code), body
    r = await client.post(f"/api/rooms/{table.code}/rematch", json={"game": 1})
    assert (r.status_code, r.json()["code"]) == (401, "unauthorized")  # spectators have no seat
    other = Table(client)
    await other.create("yacht", "Cy")
    r = await client.post(
        f"/api/rooms/{table.code}/rematch", json={"game": 1}, headers=other.auth(other.tokens[other.host])
    )
    assert (r.status_code, r.json()["code"]) == (403, "forbidden")  # not a member
    # the host starts without waiting ("start now"): a late accept is told the rematch started
    await table.start()
    r = await rematch(table, ben, 1)
    assert (r.status_code, r.json()["code"]) == (409, "rematch_started")
    assert (await table.room())["game"]["number"] == 2


async def test_two_accepts_at_once_start_exactly_one_game(instances) -> None:  # noqa: F811
    for seed in range(3):
        table = await finished_table(instances[0], seed=seed)
        players = list(table.tokens)
        responses = await asyncio.gather(*(rematch(table, p, 1, instances[i]) for i, p in enumerate(players)))
        assert [r.status_code for r in responses] == [200, 200], [r.text for r in responses]
        events = await table.events()
        assert sum(e["type"] == "game_started" for e in events) == 2
        assert sum(e["type"] == "rematch_accepted" for e in events) == 2
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        room = await table.room()
        assert room["status"] == "playing" and room["game"]["number"] == 2


async def test_the_hosts_start_and_the_last_accept_race(instances) -> None:  # noqa: F811
    table = await finished_table(instances[0], ("Ana", "Ben", "Cy"))
    ana, ben, cy = list(table.tokens)
    assert (await rematch(table, ben, 1)).status_code == 200
    assert (await rematch(table, ana, 1)).json()["rematch"]["waiting"] == [cy]

    async def start() -> httpx.Response:
        return await instances[1].post(f"/api/rooms/{table.code}/games", headers=table.auth(table.tokens[ana]))

    started, accepted = await asyncio.gather(start(), rematch(table, cy, 1, instances[0]))
    outcomes = {(r.status_code, r.json()["code"] if r.status_code >= 400 else None) for r in (started, accepted)}
    # either the host started first (the accept is late) or the accept started it (the start is refused)
    assert outcomes in ({(201, None), (409, "rematch_started")}, {(200, None), (409, "game_in_progress")}), outcomes
    events = await table.events()
    assert sum(e["type"] == "game_started" for e in events) == 2


async def test_resigned_seats_are_not_waited_for_and_leave_unless_they_accept(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    ben = await table.join("Ben")
    cy = await table.join("Cy")
    await table.start()
    r = await client.delete(f"/api/rooms/{table.code}/players/{cy}", headers=table.auth(table.tokens[cy]))
    assert r.status_code == 204
    room = await play_humans(table, {table.host, ben})
    assert room["rematch"]["waiting"] == [table.host, ben]  # Cy resigned: not waited for
    await rematch(table, ben, 1)
    room = (await rematch(table, table.host, 1)).json()
    assert room["status"] == "playing"
    assert [p["name"] for p in room["players"]] == ["Ana", "Ben"]  # Cy left as the game started
    assert [line["name"] for line in room["series"]] == ["Ana", "Ben", "Cy"]  # Cy keeps a line on the pad
    assert room["series"][2]["seated"] is False and room["series"][2]["games"] == 1

    # a resigned seat that accepts stays
    r = await client.delete(f"/api/rooms/{table.code}/players/{ben}", headers=table.auth(table.tokens[ben]))
    assert r.status_code == 204  # during the game: Ben resigns
    room = await play_humans(table, {table.host})
    assert room["rematch"]["waiting"] == [table.host]
    assert (await rematch(table, ben, 2)).json()["rematch"]["ready"] == [ben]
    room = (await rematch(table, table.host, 2)).json()
    assert room["status"] == "playing" and [p["name"] for p in room["players"]] == ["Ana", "Ben"]
    assert not any(p["resigned"] for p in room["players"])


async def play_humans(table: Table, people: set[str]) -> dict:
    """Play the game out for everyone still in it (the autopilot plays resigned seats)."""
    rng = random.Random(5)
    room = await table.room()

    async with asyncio.timeout(60):
        while room["game"]["status"] == "playing":
            player = room["game"]["turn"]["player_id"]
            if player not in people:
                await asyncio.sleep(0.02)
                room = await table.room()
                continue
            r = await table.act(player, **choose(room, rng))
            assert r.status_code == 200, r.text
            room = r.json()["room"]
    return room


async def test_the_last_one_waited_for_leaving_starts_the_rematch(client) -> None:
    table = await finished_table(client, ("Ana", "Ben", "Cy"))
    ana, ben, cy = list(table.tokens)
    await rematch(table, ana, 1)
    await rematch(table, ben, 1)
    r = await client.delete(f"/api/rooms/{table.code}/players/{cy}", headers=table.auth(table.tokens[cy]))
    assert r.status_code == 204
    room = await table.room()
    assert room["status"] == "playing" and room["game"]["order"] and sorted(room["game"]["order"]) == sorted([ana, ben])
    events = await table.events()
    assert [e["type"] for e in events[-5:]].count("game_started") == 1


async def test_play_against_the_computer_in_one_call(database_url, strategy_tables) -> None:
    async with AsyncExitStack() as stack:
        (http,) = await start_apps(stack, database_url, 1)
        r = await http.post(
            "/api/rooms",
            json={"ruleset": "yacht", "name": "Ana", "max_players": 2, "bots": ["strong"], "start": True},
        )
        assert r.status_code == 201, r.text
        created = r.json()
        room = created["room"]
        assert room["status"] == "playing" and room["game"]["number"] == 1
        assert [p["bot"] for p in room["players"]] == [None, "strong"]
        assert [p["name"] for p in room["players"]] == ["Ana", "Strong bot"]
        table = Table(http, room["code"], {created["player"]["id"]: created["token"]}, created["player"]["id"])
        room = await play_with_bots(table, random.Random(7))
        assert room["rematch"] == {"game": 1, "ready": [room["players"][1]["id"]], "waiting": [table.host]}
        # the one person accepts: the bot has already: Game #2 starts at once
        room = (await rematch(table, table.host, 1)).json()
        assert room["status"] == "playing" and room["game"]["number"] == 2
        room = await play_with_bots(table, random.Random(8))
        assert [line["games"] for line in room["series"]] == [2, 2]
        for line in room["series"]:
            assert line["total"] == sum(g["totals"][line["player_id"]] for g in room["games"])

        for body in (
            {"name": "Ana", "max_players": 2, "bots": ["strong", "casual"]},  # no seat for the creator
            {"name": "Ana", "bots": ["clever"]},
            {"name": "Ana", "bots": "strong"},
            {"name": "Ana", "start": "yes"},
        ):
            r = await http.post("/api/rooms", json=body)
            assert (r.status_code, r.json()["code"]) == (422, "invalid_request"), body
        # without start, the bots are seated in the lobby
        r = await http.post("/api/rooms", json={"name": "Ana", "max_players": 3, "bots": ["greedy", "greedy"]})
        assert r.status_code == 201 and r.json()["room"]["status"] == "lobby"
        assert [p["name"] for p in r.json()["room"]["players"]] == ["Ana", "Greedy bot", "Greedy bot 2"]
