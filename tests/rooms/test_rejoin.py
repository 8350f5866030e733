"""Leaving and coming back (app/rooms/rejoin.py, issue 27.8): a muted seat
that leaves and joins again is muted again, and a seat the host removed
cannot come back at once, recognised by its profile or its name."""

from datetime import timedelta

import httpx
from sqlalchemy import update

from app.db import Database, Player
from app.db.models import utcnow
from app.rooms.rejoin import REMOVED_FOR

from ..table import Table


async def profile(http: httpx.AsyncClient, name: str) -> str:
    r = await http.post("/api/profiles", json={"name": name})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


async def join(table: Table, name: str, profile_token: str | None = None) -> httpx.Response:
    headers = table.auth(profile_token) if profile_token else {}
    r = await table.http.post(f"/api/rooms/{table.code}/players", json={"name": name}, headers=headers)
    if r.status_code == 201:
        table.tokens[r.json()["player"]["id"]] = r.json()["token"]
    return r


async def leave(table: Table, actor: str, player: str) -> None:
    r = await table.http.delete(f"/api/rooms/{table.code}/players/{player}", headers=table.auth(table.tokens[actor]))
    assert r.status_code == 204, r.text


async def mute(table: Table, player: str) -> None:
    r = await table.http.put(
        f"/api/rooms/{table.code}/players/{player}/mute", headers=table.auth(table.tokens[table.host])
    )
    assert r.status_code == 204, r.text


async def test_a_muted_seat_that_comes_back_is_muted_again(client: httpx.AsyncClient) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=4)
    troll_profile = await profile(client, "Troll")
    troll = (await join(table, "Troll", troll_profile)).json()["player"]["id"]
    await mute(table, troll)
    await leave(table, troll, troll)
    # the same name (any case), without a profile
    again = await join(table, "TROLL")
    assert again.status_code == 201 and again.json()["player"]["muted"] is True
    await leave(table, again.json()["player"]["id"], again.json()["player"]["id"])
    # another name, the same profile
    renamed = await join(table, "Friendly", troll_profile)
    assert renamed.status_code == 201 and renamed.json()["player"]["muted"] is True
    r = await client.post(
        f"/api/rooms/{table.code}/chat",
        json={"text": "hi again"},
        headers=table.auth(table.tokens[renamed.json()["player"]["id"]]),
    )
    assert (r.status_code, r.json()["code"]) == (403, "muted")
    # somebody else is not
    other = await join(table, "Cy")
    assert other.status_code == 201 and other.json()["player"]["muted"] is False


async def test_a_removed_seat_cannot_come_back_at_once(client: httpx.AsyncClient, database_url: str) -> None:
    table = Table(client)
    await table.create("yacht", "Ana", max_players=4)
    ben_profile = await profile(client, "Ben")
    ben = (await join(table, "Ben", ben_profile)).json()["player"]["id"]
    await leave(table, table.host, ben)  # the host removes Ben
    version = (await table.room())["version"]
    for name, token in (("Ben", None), ("ben", None), ("Benjamin", ben_profile)):
        r = await join(table, name, token)
        assert (r.status_code, r.json()["code"]) == (403, "removed_from_room"), (name, r.text)
    assert (await table.room())["version"] == version  # nothing changed
    # somebody else may; a seat that left by itself may come back
    cy = (await join(table, "Cy")).json()["player"]["id"]
    await leave(table, cy, cy)
    assert (await join(table, "Cy")).status_code == 201
    # once the time is up, Ben may come back
    db = Database(database_url)
    try:
        async with db.write() as session:
            await session.execute(
                update(Player).where(Player.id == ben).values(removed_at=utcnow() - REMOVED_FOR - timedelta(seconds=1))
            )
    finally:
        await db.dispose()
    r = await join(table, "Ben", ben_profile)
    assert r.status_code == 201, r.text
