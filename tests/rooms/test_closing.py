"""A room never stays without a person to host it: when the last one
leaves, it closes (on c11ca5a it stayed open with ``host_id`` null, its
bots seated, and no way to start another game)."""

from ..table import Table


async def test_the_last_person_leaving_closes_the_room(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    host = table.auth(table.tokens[table.host])
    r = await client.post(f"/api/rooms/{table.code}/bots", json={"level": "greedy"}, headers=host)
    assert r.status_code == 201, r.text
    version = (await table.room())["version"]

    r = await client.delete(f"/api/rooms/{table.code}/players/{table.host}", headers=host)
    assert r.status_code == 204, r.text
    room = await table.room()
    assert room["status"] == "closed" and room["host_id"] is None
    assert [p["bot"] for p in room["players"]] == ["greedy"]
    events = await table.events(version)
    assert [(e["type"], e["data"]) for e in events][-1] == ("room_closed", {"reason": "no_players"})
    assert events[-2]["type"] == "player_left"

    closed = (await table.room())["version"]
    r = await client.post(f"/api/rooms/{table.code}/players", json={"name": "Ben"})
    assert r.status_code == 409 and r.json()["code"] == "room_closed"
    assert (await table.room())["version"] == closed


async def test_a_host_leaving_hands_over_to_a_person(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=3)
    host = table.auth(table.tokens[table.host])
    await client.post(f"/api/rooms/{table.code}/bots", json={"level": "greedy"}, headers=host)
    ben = await table.join("Ben")
    assert (await client.delete(f"/api/rooms/{table.code}/players/{table.host}", headers=host)).status_code == 204
    room = await table.room()
    assert room["status"] == "lobby" and room["host_id"] == ben
    table.host = ben
    started = await table.start()
    assert started["status"] == "playing"


async def test_a_lone_player_leaving_closes_the_room(client) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=2)
    host = table.auth(table.tokens[table.host])
    assert (await client.delete(f"/api/rooms/{table.code}/players/{table.host}", headers=host)).status_code == 204
    assert (await table.room())["status"] == "closed"
