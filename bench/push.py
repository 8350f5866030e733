"""What a turn notification costs the action path: action latency with Web
Push off, and on with every turn of one seat pushed to a slow push service.

Plays two-seat Yacht games in-process (REST through the ASGI app, its push
workers in the same event loop) on SQLite, or PostgreSQL with
``--postgres``. Neither seat has a socket open, and with push on the second
seat has a subscription, so every one of its turns starts a push, answered by
a local push service (an HTTP server on 127.0.0.1) after ``--delay`` seconds.
Reports each configuration's action latency (median, p90, p99, max; the
actions that end a turn, whose publication queues the push, separately) and
the pushes the service received.

    python -m bench.push --games 20 --delay 1.0
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import random
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from app.config import Settings
from app.db.migrate import upgrade_async
from app.main import create_app
from bench.loadgen import choose


class SlowPushService:
    """Answers every push with 201 after ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        self.received = 0
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                time.sleep(delay)
                service.received += 1
                self.send_response(201)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def subscription(endpoint: str) -> dict[str, Any]:
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    b64 = lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("=")  # noqa: E731
    return {"endpoint": endpoint, "keys": {"p256dh": b64(point), "auth": b64(os.urandom(16))}}


async def run(url: str, push: bool, games: int, service: SlowPushService, seed: int) -> dict[str, Any]:
    settings = Settings(
        database_url=url,
        rate_limits=False,
        bot_delay=0.0,
        strategy_solve=False,
        push=push,
        push_test_loopback=True,
        push_endpoint_hosts="127.0.0.1",
    )
    app = create_app(settings)
    rng = random.Random(seed)
    all_ms: list[float] = []
    turn_end_ms: list[float] = []
    before = service.received
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as http,
    ):
        for game in range(games):
            r = await http.post("/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 2})
            code, tokens = r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]}
            joined = (await http.post(f"/api/rooms/{code}/players", json={"name": "Ben"})).json()
            ben = joined["player"]["id"]
            tokens[ben] = joined["token"]
            if push:
                body = subscription(f"{service.url}{game}")
                r = await http.put(
                    f"/api/rooms/{code}/players/{ben}/push",
                    json=body,
                    headers={"authorization": f"Bearer {tokens[ben]}"},
                )
                assert r.status_code == 200, r.text
            host = next(iter(tokens))
            room = (
                await http.post(f"/api/rooms/{code}/games", headers={"authorization": f"Bearer {tokens[host]}"})
            ).json()
            while room["game"]["status"] == "playing":
                player = room["game"]["turn"]["player_id"]
                action = choose(room, rng)
                started = time.perf_counter()
                r = await http.post(
                    f"/api/rooms/{code}/actions", json=action, headers={"authorization": f"Bearer {tokens[player]}"}
                )
                spent = (time.perf_counter() - started) * 1000
                assert r.status_code == 200, r.text
                all_ms.append(spent)
                if any(e["type"] == "turn_started" for e in r.json()["events"]):
                    turn_end_ms.append(spent)
                room = r.json()["room"]
        if app.state.push is not None:
            await app.state.push.idle()
        outcomes = dict(app.state.push.outcomes) if app.state.push is not None else {}
    return {"all": all_ms, "turn_end": turn_end_ms, "outcomes": outcomes, "received": service.received - before}


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return (
        f"n={len(ordered):5d}  median {statistics.median(ordered):6.2f} ms  p90 {pick(0.9):6.2f}  "
        f"p99 {pick(0.99):6.2f}  max {ordered[-1]:7.2f}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds the push service takes to answer")
    parser.add_argument("--postgres", help="a PostgreSQL URL (a throwaway database is made on it)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rounds", type=int, default=3, help="off/on pairs, alternated (the machine's drift hits both)"
    )
    args = parser.parse_args()
    service = SlowPushService(args.delay)
    if args.postgres:
        from tests.services import throwaway_postgres

        async with throwaway_postgres(args.postgres) as url:
            await upgrade_async(url)
            results = [
                await run(url, push, args.games, service, args.seed + i)
                for i in range(args.rounds)
                for push in (False, True)
            ]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            url = f"sqlite+aiosqlite:///{tmp}/bench.db"
            await upgrade_async(url)
            results = [
                await run(url, push, args.games, service, args.seed + i)
                for i in range(args.rounds)
                for push in (False, True)
            ]
    print(f"{args.rounds} x {args.games} games of Yacht per configuration, alternated; 2 seats, none connected;")
    print(f"the push service answers after {args.delay} s")
    for push in (False, True):
        mine = results[int(push) :: 2]
        label = "push on " if push else "push off"
        print(f"{label}  every action      {summary([v for r in mine for v in r['all']])}")
        print(f"{label}  turn-ending ones  {summary([v for r in mine for v in r['turn_end']])}")
        if push:
            outcomes: dict[str, int] = {}
            for r in mine:
                for key, value in r["outcomes"].items():
                    outcomes[key] = outcomes.get(key, 0) + value
            print(
                f"          pushes the push service received: {sum(r['received'] for r in mine)}; outcomes {outcomes}"
            )
    print(
        f"queueing a turn's push on the action path (PushService.turns_started): {await queueing_cost():.2f} us a call"
    )


async def queueing_cost(calls: int = 20_000) -> float:
    """Microseconds per call of what the publisher wrapper adds to an action: the events looked at, the push queued."""
    from app.notify import PushService, VapidKeys

    class Nobody:
        def connected(self, code: str) -> set[str]:
            return set()

    push = PushService(None, Nobody(), VapidKeys.generate(), subject="mailto:x@y.z", allowed_hosts=[], queue_size=calls)  # type: ignore[arg-type]
    room = {
        "players": [
            {"id": "A", "bot": None, "away": False, "resigned": False},
            {"id": "B", "bot": None, "away": False, "resigned": False},
        ]
    }
    events = [
        {"type": "scored", "version": 1, "data": {}},
        {"type": "turn_started", "version": 2, "data": {"player_id": "B", "round": 3, "deadline": None}},
    ]
    started = time.perf_counter()
    for _ in range(calls):
        push.turns_started("ABCDEF", events, room)
    return (time.perf_counter() - started) / calls * 1e6


if __name__ == "__main__":
    asyncio.run(main())
