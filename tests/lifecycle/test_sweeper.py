"""The room sweeper: idle rooms and stale lobbies go with their events, finished
games' results stay; one instance at a time; counts in /metrics."""

import random
from datetime import timedelta

from sqlalchemy import func, select, update

from app.db import Event, Room
from app.db.models import GameResult, Lease, utcnow
from app.lifecycle.sweeper import Sweeper

from ..table import Table, play


async def test_the_sweeper_deletes_idle_rooms_and_stale_lobbies_and_keeps_results(client) -> None:
    app = client._transport.app  # type: ignore[attr-defined]
    await app.state.sweeper.close()  # swept by hand below, when the rooms are old
    db = app.state.db
    r = await client.post("/api/profiles", json={"name": "Ana"})
    profile = r.json()["token"]
    headers = {"authorization": f"Bearer {profile}"}
    r = await client.post("/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 1}, headers=headers)
    old = Table(
        client, r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]}, r.json()["player"]["id"]
    )
    await old.start()
    assert (await play(old, random.Random(1)))["status"] == "finished"
    stale, fresh, playing = Table(client), Table(client), Table(client)
    for table in (stale, fresh, playing):
        await table.create("yahtzee", "Ben", max_players=1)
    await playing.start()
    now = utcnow()
    async with db.write() as session:
        await session.execute(update(Room).where(Room.code == old.code).values(updated_at=now - timedelta(days=31)))
        ago = now - timedelta(hours=25)  # a day: a lobby goes, a game in play stays
        await session.execute(update(Room).where(Room.code.in_([stale.code, playing.code])).values(updated_at=ago))
        old_id = (await session.execute(select(Room.id).where(Room.code == old.code))).scalar_one()
        # the apps of earlier tests (this database is the session's) took the lease: it runs out
        await session.execute(update(Lease).values(until=now - timedelta(seconds=1)))

    counts = await app.state.sweeper.sweep()
    assert counts["idle"] >= 1 and counts["lobby"] >= 1
    for gone in (old, stale):
        assert (await client.get(f"/api/rooms/{gone.code}")).status_code == 404
    for kept in (fresh, playing):
        assert (await client.get(f"/api/rooms/{kept.code}")).status_code == 200
    async with db.read() as session:
        assert (await session.execute(select(func.count()).where(Event.room_id == old_id))).scalar_one() == 0
        results = list((await session.execute(select(GameResult).where(GameResult.room_code == old.code))).scalars())
    assert len(results) == 1 and results[0].game_id is None  # the result outlives its room and game
    games = (await client.get("/api/profiles/me/games", headers=headers)).json()
    assert old.code in str(games)
    metrics = (await client.get("/metrics")).text
    assert 'dicecup_rooms_swept_total{reason="idle"}' in metrics
    assert 'dicecup_rooms_swept_total{reason="lobby"}' in metrics


async def test_one_instance_sweeps_at_a_time(client) -> None:
    app = client._transport.app  # type: ignore[attr-defined]
    await app.state.sweeper.close()  # the app's own sweeper stays out of this
    db = app.state.db
    first, second = Sweeper(db, interval=60), Sweeper(db, interval=60)
    async with db.write() as session:  # whoever held it before (an app's own sweeper) let it run out
        await session.execute(update(Lease).values(until=utcnow() - timedelta(seconds=1)))
    assert await first.take_lease()
    assert not await second.take_lease()
    assert await first.sweep() is not None and await second.sweep() == {"idle": 0, "lobby": 0}
    assert await first.take_lease()  # its own lease, renewed


async def test_a_lobby_someone_opens_or_watches_is_not_swept(client) -> None:
    """A lobby room read (GET) or watched (a socket open) after a day without
    events stays; one nobody opened goes. On 0f3e20e the sweeper judged a
    lobby by its last event only: a host waiting a day with the page open
    lost the room."""
    app = client._transport.app  # type: ignore[attr-defined]
    await app.state.sweeper.close()
    visits = app.state.visits
    db = app.state.db
    read, watched, unopened = Table(client), Table(client), Table(client)
    for table in (read, watched, unopened):
        await table.create("yacht", "Cy", max_players=2)

    async def a_day_ago(*tables: Table) -> None:
        now = utcnow()
        async with db.write() as session:
            ago = now - timedelta(hours=25)
            await session.execute(update(Room).where(Room.code.in_([t.code for t in tables])).values(updated_at=ago))
            await session.execute(update(Lease).values(until=now - timedelta(seconds=1)))

    await a_day_ago(read, watched, unopened)
    assert (await client.get(f"/api/rooms/{read.code}")).status_code == 200
    await visits.close()  # the visit is written in the background: wait for it
    # the socket's room, as the hub would list it (this test's client has no real sockets)
    visits.watched = lambda: [watched.code]
    assert await visits.write_watched() == 1
    assert await visits.write_watched() == 0  # written lately: not again before `every`
    counts = await app.state.sweeper.sweep()
    assert counts["lobby"] >= 1
    assert (await client.get(f"/api/rooms/{read.code}")).status_code == 200
    assert (await client.get(f"/api/rooms/{watched.code}")).status_code == 200
    assert (await client.get(f"/api/rooms/{unopened.code}")).status_code == 404

    # a read counts once per `every` on an instance: the next one writes nothing
    await a_day_ago(read)
    assert (await client.get(f"/api/rooms/{read.code}")).status_code == 200
    await visits.close()
    await app.state.sweeper.sweep()
    assert (await client.get(f"/api/rooms/{read.code}")).status_code == 404
