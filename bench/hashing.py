"""Does hashing passwords starve play? A victim's game latency while others
flood the server with password hashes (issue 27.2).

One ``python -m app serve`` on a scratch SQLite database (rate limits as the
server has them by default unless ``--no-limits``). A victim plays two-seat
Yacht games over REST, one action at a time, and each action's latency is
recorded (an action every 50 ms at most, within a seat's budget), for
``--seconds`` per scenario:

- ``quiet``: nobody else;
- ``credentials``: 12 clients at once, from one address, post
  ``/api/profiles/me/credentials`` in a loop, each for a profile of its own
  (a username of its own, a new password each time; the current one sent
  where the server asks for it);
- ``sign-ins``: 8 clients at once sign in with the right password, in a loop.

Every answer the attackers get is counted by status. ``--root`` serves the
app of another checkout (an older commit) with this script, for a
before/after comparison:

    python -m bench.hashing --seconds 20
    git archive b897a9e | tar -x -C /tmp/before && python -m bench.hashing --root /tmp/before

All traffic goes to 127.0.0.1; every loop stops when its scenario's time is up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from bench.loadgen import choose
from bench.servers import ROOT, free_port

CREDENTIAL_CLIENTS = 12
SIGN_IN_CLIENTS = 8
PASSWORD = "victim-password-1"


@contextlib.contextmanager
def serve(root: Path, database: Path, limits: bool) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "DICECUP_DATABASE_URL": f"sqlite:///{database}",
        "DICECUP_RATE_LIMITS": "true" if limits else "false",
        "DICECUP_STRATEGY_SOLVE": "false",
        "DICECUP_LOG_LEVEL": "warning",
        "DICECUP_BOT_DELAY": "0",
        "DICECUP_PUSH": "false",
        # the attack comes from one address: the per-address request budget is not what is measured
        "DICECUP_REQUESTS_PER_MINUTE": "1000000",
        "PYTHONPATH": str(root),
    }
    log = tempfile.NamedTemporaryFile(prefix="dicecup-hashing-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(Path(log.name).read_text())
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        os.unlink(log.name)


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


PACE = 0.05
"""Seconds between the victim's actions (20 a second: within a seat's default budget)."""


async def victim(http: httpx.AsyncClient, until: float, rng: random.Random) -> list[float]:
    """Two-seat Yacht games over REST until ``until``, an action every :data:`PACE`
    seconds at most: each action's latency (ms)."""
    latencies: list[float] = []
    while time.monotonic() < until:
        made = (await http.post("/api/rooms", json={"ruleset": "yacht", "name": "Vic", "max_players": 2})).json()
        code, tokens = made["room"]["code"], {made["player"]["id"]: made["token"]}
        joined = (await http.post(f"/api/rooms/{code}/players", json={"name": "Tim"})).json()
        tokens[joined["player"]["id"]] = joined["token"]
        room = (await http.post(f"/api/rooms/{code}/games", headers=auth(made["token"]))).json()
        while room["game"]["turn"] is not None and time.monotonic() < until:
            mover = room["game"]["turn"]["player_id"]
            started = time.perf_counter()
            r = await http.post(f"/api/rooms/{code}/actions", json=choose(room, rng), headers=auth(tokens[mover]))
            took = time.perf_counter() - started
            latencies.append(took * 1000)
            await asyncio.sleep(max(0.0, PACE - took))
            if r.status_code != 200:
                raise RuntimeError(f"victim's action refused: {r.status_code} {r.text}")
            room = r.json()["room"]
    return latencies


async def credentials_attacker(http: httpx.AsyncClient, until: float, n: int, asks: bool, seen: Counter[int]) -> None:
    made = (await http.post("/api/profiles", json={"name": f"Flood {n}"})).json()
    token, current = made["token"], None
    username = f"flood_{n}_{made['profile']['id'][:6]}".replace("-", "_").lower()
    i = 0
    while time.monotonic() < until:
        i += 1
        body = {"username": username, "password": f"new-password-{n}-{i}"}
        if asks and current is not None:
            body["current_password"] = current
        try:
            r = await http.post("/api/profiles/me/credentials", json=body, headers=auth(token))
        except httpx.TransportError:  # a kept-alive connection closed by the server as it was reused
            seen[0] += 1
            continue
        seen[r.status_code] += 1
        if r.status_code == 200:
            current = body["password"]
        elif r.status_code in (429, 503):
            await asyncio.sleep(min(2.0, float(r.headers.get("retry-after", "1"))))


async def sign_in_attacker(http: httpx.AsyncClient, until: float, username: str, seen: Counter[int]) -> None:
    while time.monotonic() < until:
        try:
            r = await http.post("/api/sessions", json={"username": username, "password": PASSWORD})
        except httpx.TransportError:
            seen[0] += 1
            continue
        seen[r.status_code] += 1
        if r.status_code in (429, 503):
            await asyncio.sleep(min(2.0, float(r.headers.get("retry-after", "1"))))


def summary(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {
        "actions": len(ordered),
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(pick(0.90), 2),
        "p99_ms": round(pick(0.99), 2),
        "max_ms": round(ordered[-1], 2),
    }


async def scenario(url: str, name: str, seconds: float, seed: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        schema = (await http.get("/openapi.json")).json()["components"]["schemas"]
        asks = "current_password" in schema.get("Credentials", {}).get("properties", {})
        seen: Counter[int] = Counter()
        attackers: list[Any] = []
        if name == "sign-ins":
            made = (await http.post("/api/profiles", json={"name": "Owner"})).json()
            username = f"owner_{made['profile']['id'][:6]}".replace("-", "_").lower()
            r = await http.post(
                "/api/profiles/me/credentials",
                json={"username": username, "password": PASSWORD},
                headers=auth(made["token"]),
            )
            assert r.status_code == 200, r.text
        until = time.monotonic() + seconds
        if name == "credentials":
            attackers = [credentials_attacker(http, until, n, asks, seen) for n in range(CREDENTIAL_CLIENTS)]
        elif name == "sign-ins":
            attackers = [sign_in_attacker(http, until, username, seen) for _ in range(SIGN_IN_CLIENTS)]
        results = await asyncio.gather(victim(http, until, random.Random(seed)), *attackers)
    return {"scenario": name, **summary(results[0]), "attack_answers": dict(sorted(seen.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="per scenario")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app is served")
    parser.add_argument("--no-limits", action="store_true", help="DICECUP_RATE_LIMITS=false (hash threads only)")
    parser.add_argument("--scenarios", default="quiet,credentials,sign-ins")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    report = []
    with tempfile.TemporaryDirectory(prefix="dicecup-hashing-") as scratch:
        for i, name in enumerate(args.scenarios.split(",")):
            database = Path(scratch) / f"{name}.db"
            with serve(args.root.resolve(), database, not args.no_limits) as url:
                result = asyncio.run(scenario(url, name, args.seconds, args.seed + i))
            result["root"] = str(args.root)
            result["limits"] = not args.no_limits
            report.append(result)
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
