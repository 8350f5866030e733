"""``python -m app serve --workers 2``: metrics are every worker's, whichever
worker answers the scrape; logs are JSON lines from every process."""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from bench.servers import free_port
from tests.conftest import STRATEGY_DIR
from tests.live import ROOT, wait_http
from tests.services import redis_url
from tests.table import Table
from tests.wsclient import Player

from .test_metrics import total, value

CREATES = 40


def fresh() -> httpx.AsyncClient:
    """A client that opens a new connection per request (so the workers share them)."""
    return httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0), timeout=10)


def per_process(directory: Path) -> dict[int, float]:
    """Rooms created as each worker process counted them (from its own files)."""
    out = {}
    for path in directory.glob("counter_*.db"):
        pid = int(path.stem.split("_")[1])
        alone = directory.parent / f"only-{pid}"
        shutil.rmtree(alone, ignore_errors=True)
        alone.mkdir()
        shutil.copy(path, alone / path.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        out[pid] = sum(
            s.value
            for family in registry.collect()
            for s in family.samples
            if s.name == "dicecup_http_requests_total" and s.labels.get("route") == "/api/rooms"
        )
    return out


async def test_two_workers(tmp_path: Path, strategy_tables: dict) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "DICECUP_DATABASE_URL": f"sqlite:///{tmp_path / 'dicecup.db'}",
        "DICECUP_REDIS_URL": redis_url(),
        "DICECUP_LOG_FORMAT": "json",
        "DICECUP_LOG_LEVEL": "info",
        "DICECUP_RATE_LIMITS": "false",
        "DICECUP_STRATEGY_DIR": str(STRATEGY_DIR),
        "DICECUP_STRATEGY_SOLVE": "false",
        "DICECUP_BOT_DELAY": "0",
        "TMPDIR": str(temp),  # where serve makes the metrics directory
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: ASYNC220 (started once, before the loop has work)
            [sys.executable, "-m", "app", "serve", "--workers", "2", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        try:
            await asyncio.to_thread(wait_http, f"{base}/api/health", 30)
        except TimeoutError:
            raise AssertionError(log.read_text()) from None
        [directory] = list(temp.glob("dicecup-metrics-*"))

        async with fresh() as http:
            # New connections until each worker has taken some (the kernel
            # hands a connection to whichever worker accepts first).
            creates = 0
            while creates < CREATES or len([n for n in per_process(directory).values() if n > 0]) < 2:
                assert creates < 20 * CREATES, per_process(directory)
                batch = await asyncio.gather(
                    *(http.post(f"{base}/api/rooms", json={"ruleset": "yacht", "name": f"P{i}"}) for i in range(4))
                )
                assert all(r.status_code == 201 for r in batch)
                creates += len(batch)
            table = Table(httpx.AsyncClient(base_url=base, limits=httpx.Limits(max_keepalive_connections=0)))
            await table.create("yahtzee", "Ana")
            await table.start()
            rolled = await table.act(table.host, type="roll")
            assert rolled.status_code == 200
            refused = await table.act(table.host, type="score", box="nope")
            assert refused.status_code == 409
            sockets = [await Player.connect(f"ws://127.0.0.1:{port}/api/rooms/{table.code}/ws") for _ in range(6)]

            # Every scrape, whichever worker answers it, sees everything.
            for _ in range(10):
                text = (await http.get(f"{base}/metrics")).text
                assert value(text, "dicecup_http_requests_total", method="POST", route="/api/rooms", status="201") == (
                    creates + 1
                )
                assert value(text, "dicecup_actions_total", ruleset="yahtzee", type="roll", outcome="applied") == 1
                assert value(text, "dicecup_actions_total", ruleset="yahtzee", type="score", outcome="unknown_box") == 1
                assert value(text, "dicecup_rooms", status="lobby") == creates
                assert value(text, "dicecup_redis_up") == 1
                assert total(text, "dicecup_events_published_total") >= creates + 2
                await asyncio.sleep(0.3)  # the socket gauge is sampled every 2 s
            text = (await http.get(f"{base}/metrics")).text
            deadline = asyncio.get_running_loop().time() + 10
            while value(text, "dicecup_websocket_connections") != 6:
                assert asyncio.get_running_loop().time() < deadline, text
                await asyncio.sleep(0.5)
                text = (await http.get(f"{base}/metrics")).text
            for player in sockets:
                await player.ws.close()
            await table.http.aclose()

        counts = per_process(directory)
        assert len([n for n in counts.values() if n > 0]) == 2, counts  # both workers served and counted
        assert sum(counts.values()) == creates + 1
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert not list(temp.glob("dicecup-metrics-*"))  # serve removed the directory it made

    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]  # every line is JSON
    assert any(r["logger"] == "uvicorn.error" for r in records)
    requests = [r for r in records if r["logger"] == "dicecup.http" and "status" in r]
    assert len(requests) >= creates + 4
    assert all(len(r["request_id"]) == 32 for r in requests)
    for token in table.tokens.values():
        assert token not in log.read_text()


def test_a_crashed_workers_sockets_leave_the_sum(tmp_path: Path) -> None:
    """A worker that dies without its shutdown (replaced by the server) keeps
    its gauge file; the next scrape drops it. Its counters stay: they happened."""
    script = (
        "from prometheus_client import Counter, Gauge\n"
        "Gauge('dicecup_websocket_connections', 'x', multiprocess_mode='livesum').set(3)\n"
        "Counter('dicecup_actions', 'x').inc(5)\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", script], env=env, check=True)

    def collected() -> dict[str, float]:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(tmp_path))
        return {s.name: s.value for family in registry.collect() for s in family.samples}

    assert collected() == {"dicecup_websocket_connections": 3, "dicecup_actions_total": 5}
    from app.observability.metrics import forget_dead_workers

    forget_dead_workers(str(tmp_path))
    assert collected() == {"dicecup_actions_total": 5}
