"""Server processes for the benchmarks: Dicecup instances, the echo baseline,
boardgame.io (bench/bgio), scratch databases, and their memory."""

from __future__ import annotations

import contextlib
import os
import resource
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.config import Settings
from app.strategy.model import ALL_VARIANTS
from app.strategy.tables import table_path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Server:
    pid: int
    http: str

    @property
    def ws(self) -> str:
        return self.http.replace("http://", "ws://")

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the process has used so far."""
        return process_cpu_s(self.pid)

    def rss_kib(self) -> int:
        return process_rss_kib(self.pid)

    def children(self) -> list[int]:
        """The server's child processes now: its analysis workers (app.analysis.workers)
        and multiprocessing's helper, a table solve while one runs."""
        found: list[int] = []
        for task in Path(f"/proc/{self.pid}/task").glob("*"):
            with contextlib.suppress(OSError):
                found += [int(pid) for pid in (task / "children").read_text().split()]
        return found

    def children_cpu_s(self) -> float:
        return sum(process_cpu_s(pid) for pid in self.children())

    def children_rss_kib(self) -> int:
        return sum(process_rss_kib(pid) for pid in self.children())


def process_rss_kib(pid: int) -> int:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int, children: bool = False) -> float:
    """User + system CPU seconds of one process, from ``/proc``; with
    ``children``, also those of its children that have exited."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # fields 14-17 of stat: utime, stime, cutime, cstime
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / _TICKS


def postgres_cpu_s() -> float:
    """CPU seconds used so far by every PostgreSQL process on this machine,
    the connections' backends that have exited included."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in ("postgres", "postmaster"):
                    total += process_cpu_s(int(entry.name), children=True)
            except OSError:
                continue
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_open_files() -> None:
    """As many file descriptors as the hard limit allows (10,000 sockets need more than 1,024)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _wait(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not come up: {log.read_text()[-3000:]}")


@contextmanager
def _process(
    args: list[str], env: dict[str, str], health: str, port: int, cpus: set[int] | None = None
) -> Iterator[Server]:
    log = Path(f"/tmp/dicecup-bench-{port}.log")

    def prepare() -> None:
        raise_open_files()
        if cpus:  # before exec: every thread the server makes inherits it
            os.sched_setaffinity(0, cpus)

    with log.open("wb") as out:
        process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=prepare)
    try:
        _wait(f"http://127.0.0.1:{port}{health}", process, log)
        yield Server(process.pid, f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()


def strategy_tables() -> list[str]:
    """The strategy tables a bench server finds (``DICECUP_STRATEGY_DIR``, else
    ``data/strategy`` of the checkout, where ``make run`` solves them). With
    a variant's table, each of its finished games is analysed on the server
    at once, which costs a large share of its CPU (RESULTS.md), so every
    report says which were there."""
    folder = ROOT / Settings().strategy_dir  # as the server reads it, from its working directory ROOT
    return [path.name for variant in ALL_VARIANTS if (path := table_path(folder, variant)).exists()]


@contextmanager
def dicecup(
    database_url: str, redis_url: str | None = None, cpus: set[int] | None = None, **settings: str
) -> Iterator[Server]:
    """One Dicecup instance (``python -m app serve``), rate limits off; with
    ``cpus``, on those CPUs only."""
    port = free_port()
    env = {
        **os.environ,
        "DICECUP_DATABASE_URL": database_url,
        "DICECUP_RATE_LIMITS": "false",
        "DICECUP_STRATEGY_SOLVE": "false",
        "DICECUP_LOG_LEVEL": "warning",
        **{f"DICECUP_{k.upper()}": v for k, v in settings.items()},
    }
    env.pop("DICECUP_REDIS_URL", None)
    if redis_url:
        env["DICECUP_REDIS_URL"] = redis_url
    command = [sys.executable, "-m", "app", "serve", "--port", str(port)]
    with _process(command, env, "/api/health", port, cpus) as server:
        yield server


@contextmanager
def echo() -> Iterator[Server]:
    port = free_port()
    args = [
        sys.executable, "-m", "uvicorn", "bench.echo:app", "--port", str(port),
        "--log-level", "warning", "--ws-per-message-deflate", "false",
    ]  # fmt: skip
    with _process(args, dict(os.environ), "/", port) as server:
        yield server


@contextmanager
def bgio(folder: Path, node: str = "node") -> Iterator[Server]:
    """boardgame.io's server (``server.js`` in ``folder``, bench/bgio) under
    Node, its games in memory, on loopback; production mode, so it logs no
    move (``DICECUP_LOG_LEVEL=warning`` for Dicecup)."""
    port = free_port()
    env = {**os.environ, "NODE_ENV": "production"}
    env.pop("FLATFILE_DIR", None)  # boardgame.io would store its matches in files there
    with _process([node, str(folder / "server.js"), str(port)], env, "/games", port) as server:
        yield server


@contextmanager
def scratch_postgres(admin_url: str) -> Iterator[str]:
    """A new database on the server of ``admin_url``, dropped afterwards."""
    import asyncio

    import asyncpg

    plain = admin_url.replace("postgresql+asyncpg://", "postgresql://")
    name = f"dicecup_bench_{secrets.token_hex(4)}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(plain)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield plain.rsplit("/", 1)[0] + "/" + name
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def pg_commit_ceiling(url: str, commits: int = 2000, connections: int = 1) -> float:
    """Trivial single-row commits per second, on ``connections`` connections at once."""
    import asyncio

    import asyncpg

    async def run() -> float:
        conns = [await asyncpg.connect(url) for _ in range(connections)]
        try:
            await conns[0].execute("CREATE TABLE IF NOT EXISTS bench_commits (id bigint)")

            async def loop(conn: asyncpg.Connection) -> None:
                for i in range(commits // connections):
                    await conn.execute("INSERT INTO bench_commits VALUES ($1)", i)

            started = time.perf_counter()
            await asyncio.gather(*(loop(c) for c in conns))
            return commits / (time.perf_counter() - started)
        finally:
            await conns[0].execute("DROP TABLE IF EXISTS bench_commits")
            for conn in conns:
                await conn.close()

    return asyncio.run(run())
