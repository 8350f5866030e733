"""Public rooms (GET /api/rooms) and quick play (POST /api/quickplay)."""

import asyncio
from collections import Counter

import httpx

from ..live import server_process
from ..services import redis_url
from ..table import Table


async def public_codes(client, **params) -> list[str]:
    r = await client.get("/api/rooms", params=params)
    assert r.status_code == 200, r.text
    return [room["code"] for room in r.json()["rooms"]]


async def test_the_list_shows_public_lobby_rooms_with_a_free_seat_newest_first_in_pages(client) -> None:
    made = []
    for ruleset in ("yacht", "yahtzee", "yacht"):
        table = Table(client)
        await table.create(ruleset, "Ana", max_players=2, options={"public": True})
        made.append(table.code)
    private = Table(client)
    await private.create("yacht", "Ana", max_players=2)
    full = Table(client)
    await full.create("yacht", "Ana", max_players=1, options={"public": True})
    started = Table(client)
    await started.create("yacht", "Ana", max_players=3, options={"public": True})
    await started.start()

    listed = await public_codes(client)
    assert listed[: len(made)] == made[::-1]
    assert not {private.code, full.code, started.code} & set(listed)
    assert (await public_codes(client, ruleset="yahtzee"))[0] == made[1]
    r = await client.get("/api/rooms", params={"limit": 2})
    page = r.json()
    assert [room["code"] for room in page["rooms"]] == made[::-1][:2]
    room = page["rooms"][0]
    assert set(room) == {"code", "ruleset", "options", "players", "max_players", "created"}
    assert room["options"]["public"] is True and [p["name"] for p in room["players"]] == ["Ana"]
    # every room once, a page at a time
    seen, cursor = [], None
    while True:
        params = {"limit": 1} | ({"cursor": cursor} if cursor else {})
        body = (await client.get("/api/rooms", params=params)).json()
        seen += [room["code"] for room in body["rooms"]]
        cursor = body["next"]
        if cursor is None:
            break
    assert seen == listed
    for bad in ("nonsense", "bm9ucGlwZQ", "x" * 129):
        r = await client.get("/api/rooms", params={"cursor": bad})
        assert r.status_code == 422 and r.json()["code"] in ("invalid_cursor", "invalid_request"), r.text
    assert (await client.get("/api/rooms", params={"cursor": "bm9ucGlwZQ"})).json()["code"] == "invalid_cursor"


async def fill_open_rooms(client, ruleset: str) -> None:
    """Quick play until it opens a new room: the rooms other tests left open in
    the session's database are full then (quick play fills the oldest first)."""
    for i in range(100):
        r = await client.post("/api/quickplay", json={"ruleset": ruleset, "name": f"Filler {i}", "max_players": 2})
        assert r.status_code == 201, r.text
        if r.json()["created"]:
            other = await client.post("/api/quickplay", json={"ruleset": ruleset, "name": "Filler last"})
            assert other.status_code == 201 and other.json()["created"] is False, other.text
            return
    raise AssertionError(f"quick play never opened a {ruleset} room")


async def test_quick_play_opens_a_room_then_fills_it_and_it_starts_by_itself(client) -> None:
    await fill_open_rooms(client, "yatzy")
    first = await client.post("/api/quickplay", json={"ruleset": "yatzy", "name": "Ana"})
    assert first.status_code == 201, first.text
    assert first.json()["created"] is True
    room = first.json()["room"]
    assert room["options"]["public"] is True and room["options"]["auto_start"] is True
    second = await client.post("/api/quickplay", json={"ruleset": "yatzy", "name": "Ben"})
    assert second.status_code == 201 and second.json()["created"] is False
    assert second.json()["room"]["code"] == room["code"]
    after = (await client.get(f"/api/rooms/{room['code']}")).json()
    assert after["status"] == "playing" and [p["name"] for p in after["players"]] == ["Ana", "Ben"]
    assert room["code"] not in await public_codes(client, ruleset="yatzy")


async def test_racing_quick_plays_never_overfill_a_room(client) -> None:
    await fill_open_rooms(client, "yahtzee")
    answers = await asyncio.gather(
        *(
            client.post("/api/quickplay", json={"ruleset": "yahtzee", "name": f"P{i}", "max_players": 2})
            for i in range(7)
        )
    )
    assert all(r.status_code == 201 for r in answers), [r.text for r in answers]
    rooms = Counter(r.json()["room"]["code"] for r in answers)
    alone = 0
    for code in rooms:
        room = (await client.get(f"/api/rooms/{code}")).json()
        assert len(room["players"]) <= 2
        alone += len(room["players"]) == 1
    # players arriving together meet: at most one of them is left waiting alone
    assert alone <= 1 and len(rooms) in (4, 5)


async def test_quick_plays_racing_on_two_instances_never_overfill_a_room(postgres_database: str) -> None:
    """Ten quick plays at once, five through each of two server processes on
    one PostgreSQL database: each instance serializes its own quick plays, and
    across instances the room's lock keeps every room at two seats at most.
    Players meet: at most one room per instance is left with a player alone,
    and every full room started by itself (auto_start)."""
    env = {
        "DICECUP_DATABASE_URL": postgres_database,
        "DICECUP_REDIS_URL": redis_url(),
        "DICECUP_STRATEGY_SOLVE": "false",
    }
    with server_process(env) as a, server_process(env) as b:
        async with httpx.AsyncClient(base_url=a.http) as http_a, httpx.AsyncClient(base_url=b.http) as http_b:
            await fill_open_rooms(http_a, "yacht")
            answers = await asyncio.gather(
                *(
                    http.post("/api/quickplay", json={"ruleset": "yacht", "name": f"{side}{i}", "max_players": 2})
                    for i in range(5)
                    for side, http in (("A", http_a), ("B", http_b))
                )
            )
            assert all(r.status_code == 201 for r in answers), [r.text for r in answers]
            rooms = {}
            for code in {r.json()["room"]["code"] for r in answers}:
                rooms[code] = (await http_b.get(f"/api/rooms/{code}")).json()
    seated = sorted(p["name"] for room in rooms.values() for p in room["players"])
    assert seated == sorted(f"{side}{i}" for i in range(5) for side in "AB")  # everyone has exactly one seat
    assert all(len(room["players"]) <= 2 for room in rooms.values())
    alone = [room for room in rooms.values() if len(room["players"]) == 1]
    assert len(alone) <= 2 and all(room["status"] == "lobby" for room in alone)
    assert all(room["status"] == "playing" for room in rooms.values() if len(room["players"]) == 2)
