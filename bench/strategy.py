"""Strategy figures in one run: solve time and expected score of every
variant, the standard deviation of the final score under optimal play, and
the latency of GET /hint once the tables are loaded.

    .venv/bin/python -m bench.strategy [--json bench/results/strategy.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from app.strategy.model import ALL_VARIANTS
from app.strategy.solver import Solver
from app.strategy.tables import ensure


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1)]


async def hint_latency(strategy_dir: Path, requests: int, database_url: str | None = None) -> dict[str, float]:
    """GET /hint percentiles through the whole app (ASGI, in-process client)."""
    from app.config import Settings
    from app.db.migrate import upgrade_async
    from app.main import create_app

    with tempfile.TemporaryDirectory() as folder:
        url = database_url or f"sqlite+aiosqlite:///{folder}/bench.db"
        await upgrade_async(url)
        settings = Settings(database_url=url, strategy_dir=strategy_dir, strategy_solve=False, rate_limits=False)
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            await app.state.strategy.wait_ready()
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
                created = (
                    await http.post("/api/rooms", json={"ruleset": "yahtzee", "name": "B", "max_players": 1})
                ).json()
                code, auth = created["room"]["code"], {"authorization": f"Bearer {created['token']}"}
                await http.post(f"/api/rooms/{code}/games", headers=auth)
                await http.post(f"/api/rooms/{code}/actions", json={"type": "roll"}, headers=auth)
                samples = []
                for _ in range(requests):
                    started = time.perf_counter()
                    r = await http.get(f"/api/rooms/{code}/hint", headers=auth)
                    samples.append((time.perf_counter() - started) * 1000)
                    assert r.status_code == 200, r.text
    return {q: round(percentile(samples, float(q[1:])), 3) for q in ("p50", "p95", "p99")} | {
        "max": round(max(samples), 3)
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path, default=Path("bench/results/strategy.json"))
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--postgres", help="also measure hints on this PostgreSQL URL (a scratch database)")
    args = parser.parse_args()
    report: dict[str, object] = {
        "command": "python -m bench.strategy",
        "commit": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip(),
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(), "cpu": platform.processor()},
        "variants": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        print(f"{'variant':36} {'expected':>10} {'sd':>8} {'solve s':>8} {'moments s':>10} {'load s':>7}")
        for variant in ALL_VARIANTS:
            started = time.perf_counter()
            table, _ = ensure(directory, variant)
            solve = time.perf_counter() - started
            started = time.perf_counter()
            ensure(directory, variant)
            load = time.perf_counter() - started
            started = time.perf_counter()
            mean, second = Solver(variant, moments=True).solve()[0, 0, 0]
            moments = time.perf_counter() - started
            sd = math.sqrt(second - mean * mean)
            report["variants"][variant.key] = {  # type: ignore[index]
                "expected": round(float(table[0, 0, 0]), 4),
                "sd": round(sd, 4),
                "solve_s": round(solve, 2),
                "moments_s": round(moments, 2),
                "load_s": round(load, 3),
            }
            print(f"{variant.key:36} {table[0, 0, 0]:10.4f} {sd:8.4f} {solve:8.2f} {moments:10.2f} {load:7.3f}")
        latency = asyncio.run(hint_latency(directory, args.requests))
        report["hint_ms_sqlite"] = latency
        print(f"GET /hint on SQLite, {args.requests} requests (ms): {latency}")
        if args.postgres:
            latency = asyncio.run(hint_latency(directory, args.requests, args.postgres))
            report["hint_ms_postgres"] = latency
            print(f"GET /hint on PostgreSQL, {args.requests} requests (ms): {latency}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
