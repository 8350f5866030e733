"""What a timeout costs the server: CPU time per autopiloted turn.

Plays games in-process (SQLite, the strategy tables of ``--strategy-dir``) in
which no seat ever acts: every turn times out (its deadline moved to now in
the database, instead of waiting for the clock) or, once the seats are away,
is played by the autopilot at once. Reports the process CPU time (every
thread: the event loop and SQLite's worker) from the game's start to its end,
per turn, and the autopilot's own count (``Turns.autopilot_seconds``: the
move's choice and its storage through the action path).

    python -m bench.autopilot --games 5 --ruleset yahtzee
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from sqlalchemy import update

from app.config import Settings
from app.db import Room
from app.db.migrate import upgrade_async
from app.db.models import utcnow
from app.main import create_app
from app.rules import get_ruleset


async def one_game(http: httpx.AsyncClient, app, ruleset: str, seats: int) -> tuple[int, float, int]:
    """(turns, process CPU seconds, timeouts) of a game nobody plays."""
    r = await http.post(
        "/api/rooms", json={"ruleset": ruleset, "name": "P0", "max_players": seats, "options": {"turn_seconds": 10}}
    )
    code, host = r.json()["room"]["code"], r.json()["token"]
    for i in range(1, seats):
        await http.post(f"/api/rooms/{code}/players", json={"name": f"P{i}"})
    db = app.state.db
    started = time.process_time()
    await http.post(f"/api/rooms/{code}/games", headers={"authorization": f"Bearer {host}"})
    while True:
        room = (await http.get(f"/api/rooms/{code}")).json()
        if room["game"]["status"] == "finished":
            break
        if room["game"]["deadline"] is not None:  # the clock runs out now
            async with db.write() as session:
                await session.execute(
                    update(Room).where(Room.code == code).values(turn_deadline=utcnow(), next_deadline=utcnow())
                )
        await asyncio.sleep(0.05)
    spent = time.process_time() - started
    events = (await http.get(f"/api/rooms/{code}/events", params={"limit": 1000})).json()["events"]
    timeouts = sum(1 for e in events if e["type"] == "turn_timed_out")
    return seats * get_ruleset(ruleset).rounds, spent, timeouts


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        await upgrade_async(url)
        settings = Settings(
            database_url=url,
            rate_limits=False,
            bot_delay=0.0,
            strategy_dir=args.strategy_dir,
            strategy_solve=False,
            scheduler_poll=0.05,
        )
        app = create_app(settings)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as http,
        ):
            await asyncio.sleep(args.warmup)  # the strategy tables load
            per_turn, autopilot = [], []
            for _ in range(args.games):
                turns = app.state.turns
                moves0, cpu0 = turns.autopilot_moves, turns.autopilot_seconds
                count, spent, timeouts = await one_game(http, app, args.ruleset, args.seats)
                per_turn.append(spent / count)
                autopilot.append((turns.autopilot_seconds - cpu0) / count)
                print(
                    f"game: {count} turns, {timeouts} timeouts, {turns.autopilot_moves - moves0} autopilot moves, "
                    f"{spent * 1000 / count:.2f} ms CPU per turn (autopilot's own {autopilot[-1] * 1000:.2f} ms)"
                )
    print(
        f"{args.ruleset}, {args.seats} seats, {args.games} games: CPU per autopiloted turn "
        f"median {statistics.median(per_turn) * 1000:.2f} ms (whole server process, polling client included), "
        f"autopilot's move choice and storage {statistics.median(autopilot) * 1000:.2f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--ruleset", default="yahtzee")
    parser.add_argument("--strategy-dir", type=Path, default=Path("test-artifacts/strategy"))
    parser.add_argument("--warmup", type=float, default=3.0)
    asyncio.run(main(parser.parse_args()))
