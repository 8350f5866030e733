"""Real servers for the tests: uvicorn in a thread or in a child process, and
a throwaway redis-server on a free port."""

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import uvicorn

from app.api.edge import uvicorn_options
from app.config import Settings
from app.main import create_app
from bench.servers import free_port

from .services import unavailable

ROOT = Path(__file__).resolve().parents[1]


def wait_http(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not come up in {timeout:.0f} s")
        time.sleep(0.05)


class LiveServer:
    def __init__(self, port: int, pid: int | None = None) -> None:
        self.port = port
        self.pid = pid  # of a server in a child process
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}"

    def socket_url(self, code: str) -> str:
        return f"{self.ws}/api/rooms/{code}/ws"


@contextmanager
def server_in_thread(settings: Settings, root_path: str = "", ws_max_size: int | None = None) -> Iterator[LiveServer]:
    """The app served by uvicorn (with its real WebSocket stack) in a thread;
    ``root_path`` as behind a proxy that strips a prefix (uvicorn --root-path);
    ``ws_max_size`` the protocol layer's frame limit (default: as ``python -m
    app serve`` sets it, the message limit), with its protocols (app.api.edge)."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        # the protocols of python -m app serve (the oversize-frame gate), its frame limit unless told
        **(uvicorn_options(settings.max_body_bytes if ws_max_size is None else ws_max_size)),
        ws_per_message_deflate=False,
        lifespan="on",
        root_path=root_path,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_http(f"http://127.0.0.1:{port}/api/health")
        yield LiveServer(port)
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def server_process(env: dict[str, str]) -> Iterator[LiveServer]:
    """A separate server process (``python -m app serve``), as another instance would be."""
    port = free_port()
    # no absent players unless the test asks (as tests/conftest.py test_settings): tests that play over
    # REST have no socket open, and their seats would be said to be absent
    quiet = {"DICECUP_RATE_LIMITS": "false", "DICECUP_LOG_LEVEL": "warning", "DICECUP_ABSENT_SECONDS": "0"}
    full_env = {**os.environ, **quiet, **env}
    log = tempfile.NamedTemporaryFile(prefix="dicecup-server-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        cwd=ROOT,
        env=full_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        try:
            wait_http(f"http://127.0.0.1:{port}/api/health")
        except TimeoutError as error:
            process.kill()
            raise RuntimeError(f"{error}; its log:\n{Path(log.name).read_text()}") from None
        yield LiveServer(port, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        os.unlink(log.name)


class OwnRedis:
    """A redis-server of the test's own, which the test may stop and restart."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            unavailable("redis-server is not installed: tests that restart Redis skipped")
        self.binary = str(binary)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("redis-server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None


async def eventually(check, timeout: float = 10.0, interval: float = 0.05):
    """Wait until ``check()`` (sync or async) returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(interval)
