"""A server killed outright (SIGKILL) loses no acknowledged move on SQLite:
its moves commit on the event loop with the WAL's checkpoints left to the
checkpointer (app/db/database.py, app/db/checkpoints.py), and a commit in
WAL mode is in the file before the move is acknowledged."""

import os
import random
import signal
from pathlib import Path

import httpx

from app.db.migrate import upgrade_async

from ..live import server_process
from ..table import Table, play


async def test_no_acknowledged_move_is_lost_when_the_server_is_killed(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'crash.db'}"
    await upgrade_async(url)
    env = {"DICECUP_DATABASE_URL": url, "DICECUP_MIGRATE_ON_START": "false", "DICECUP_STRATEGY_SOLVE": "false"}
    rng = random.Random(20261203)
    with server_process(env) as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=30) as http:
            table = Table(http)
            await table.create("yacht", "Ana", max_players=3)
            await table.join("Ben")
            await table.join("Cy")
            await table.start()
            acked = await play(table, rng, max_actions=120)  # each one 200 with the room it made
        assert server.pid is not None
        os.kill(server.pid, signal.SIGKILL)  # no shutdown, no checkpoint, nothing flushed by the app
    with server_process(env) as server:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", timeout=30) as http:
            table.http = http
            after = await table.room()
            events = await table.events()
    assert after["version"] == acked["version"]
    assert after["game"] == acked["game"]
    assert [e["version"] for e in events] == list(range(1, acked["version"] + 1))
