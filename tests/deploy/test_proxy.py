"""The production topology without Docker: the project's own nginx config
(deploy/nginx.conf.template, rendered for localhost), two ``python -m app
serve`` instances on PostgreSQL and Redis behind it, a full game played
through the proxy with sockets on both instances. Mid-game one instance is
stopped with SIGTERM and replaced by one at a new address (as a restarted
replica would be): its clients reconnect through the proxy with ``after``,
and every client ends with every event, in order, exactly once.

The replicas' name is served by a stub DNS server of the test's own, as
docker's DNS serves "app": nginx resolves it again (``valid=1s`` here), so the
replacement is reached without restarting the proxy."""

import asyncio
import contextlib
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from bench.loadgen import choose
from bench.servers import free_port

from ..conftest import STRATEGY_DIR
from ..live import ROOT, wait_http
from ..services import redis_url, unavailable
from ..table import Table
from ..wsclient import Player

pytestmark = [pytest.mark.nginx, pytest.mark.postgres, pytest.mark.redis]

TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
NAME = "app.dicecup.test"


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found is None:
        unavailable("nginx is not installed (apt-get install nginx): the proxy topology test skipped")
    assert found is not None
    return found


def render(template: str, values: dict[str, str]) -> str:
    """What the nginx image does at start (envsubst of the variables it is
    given, every other ``$name`` left to nginx)."""
    for name, value in values.items():
        template = template.replace("${" + name + "}", value)
    return template


class StubDNS:
    """Answers A queries for one name with ``addresses`` (TTL 1 s)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.addresses: list[str] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                data, peer = self.sock.recvfrom(512)
            except TimeoutError:
                continue
            except OSError:
                return
            i, labels = 12, []
            while data[i]:
                labels.append(data[i + 1 : i + 1 + data[i]].decode().lower())
                i += 1 + data[i]
            (qtype,) = struct.unpack(">H", data[i + 1 : i + 3])
            question = data[12 : i + 5]
            known = ".".join(labels) == self.name
            answers = list(self.addresses) if known and qtype == 1 else []
            flags = 0x8180 | 0x0400 | (0 if known else 3)  # response, authoritative, NXDOMAIN if unknown
            reply = data[:2] + struct.pack(">HHHHH", flags, 1, len(answers), 0, 0) + question
            for address in answers:
                reply += b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 1, 4) + socket.inet_aton(address)
            self.sock.sendto(reply, peer)

    def close(self) -> None:
        self.running = False
        self.thread.join(2)
        self.sock.close()


def shared_port(hosts: list[str]) -> int:
    """A port free on every one of ``hosts`` (loopback addresses)."""
    for _ in range(50):
        port = free_port()
        try:
            for host in hosts:
                with socket.socket() as s:
                    s.bind((host, port))
            return port
        except OSError:
            continue
    raise RuntimeError("no port free on every address")


class Instance:
    """``python -m app serve`` on one loopback address, as a replica."""

    def __init__(self, host: str, port: int, env: dict[str, str]) -> None:
        self.host, self.port = host, port
        self.log = tempfile.NamedTemporaryFile(prefix=f"dicecup-{host}-", suffix=".log", delete=False)  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--host", host, "--port", str(port)],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_http(f"http://{host}:{port}/api/health")
        except TimeoutError:
            self.stop()
            raise RuntimeError(Path(self.log.name).read_text()) from None

    def sockets(self) -> int:
        """Established connections to this instance (from the proxy): after
        the proxy's requests are done, its clients' sockets."""
        local = f"{socket.inet_aton(self.host)[::-1].hex().upper()}:{self.port:04X}"
        count = 0
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1] == local and fields[3] == "01":
                count += 1
        return count

    def terminate(self) -> None:
        self.process.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.log.close()
        os.unlink(self.log.name)


@contextmanager
def nginx(resolver_port: int, upstream_port: int) -> Iterator[str]:
    """nginx in the foreground with a temporary prefix, serving the rendered
    template on a free port; yields its base URL."""
    binary = nginx_binary()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="dicecup-nginx-") as prefix:
        site = render(
            TEMPLATE.read_text(),
            {
                "NGINX_LISTEN": f"127.0.0.1:{port}",
                "NGINX_RESOLVER": f"127.0.0.1:{resolver_port} valid=1s ipv6=off",
                "NGINX_UPSTREAM": f"{NAME}:{upstream_port}",
                "NGINX_INSTANCES": "",  # as compose: the resolved name, no fixed list
                "NGINX_TLS_PROXY": "192.0.2.1",  # none here (TEST-NET)
            },
        )
        assert "${NGINX_" not in "\n".join(line for line in site.splitlines() if not line.lstrip().startswith("#"))
        Path(prefix, "dicecup.conf").write_text(site)
        temp = {name: Path(prefix, name) for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
        for path in temp.values():
            path.mkdir()
        user = "user root root;\n" if os.geteuid() == 0 else ""
        Path(prefix, "nginx.conf").write_text(
            f"""{user}daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {prefix}/dicecup.conf;
}}
"""
        )
        process = subprocess.Popen(
            [binary, "-p", prefix, "-c", f"{prefix}/nginx.conf", "-e", f"{prefix}/error.log"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("nginx did not start: " + Path(prefix, "error.log").read_text())
                time.sleep(0.05)
            yield f"127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(10)


class Client:
    """A player's (or a spectator's) socket through the proxy, across
    reconnections: every event it has received, in order."""

    def __init__(self, url: str, token: str | None) -> None:
        self.url, self.token = url, token
        self.past: list[dict[str, Any]] = []
        self.player: Player | None = None
        self.reconnects = 0

    async def connect(self, after: int | None = None) -> None:
        for attempt in range(50):
            try:
                self.player = await Player.connect(self.url, self.token, after)
                return
            except (OSError, websockets.InvalidStatus, websockets.ConnectionClosed):
                if attempt == 49:
                    raise
                await asyncio.sleep(0.1)

    @property
    def events(self) -> list[dict[str, Any]]:
        assert self.player is not None
        return self.past + [m["event"] for m in self.player.seen]

    @property
    def version(self) -> int:
        assert self.player is not None
        events = self.events
        return events[-1]["version"] if events else self.player.base

    async def resume(self) -> None:
        """Reconnect through the proxy with ``after``: the events missed follow."""
        self.past = self.events
        version = self.past[-1]["version"] if self.past else self.version
        self.reconnects += 1
        await self.connect(after=version)

    async def catch_up(self, version: int) -> None:
        assert self.player is not None
        while self.version < version:
            try:
                await self.player.recv(10)
            except websockets.ConnectionClosed:
                await self.resume()

    async def alive(self) -> None:
        """Ping; reconnect if the socket was closed (its instance stopped)."""
        assert self.player is not None
        try:
            await self.player.send({"type": "ping"})
            await self.player.until("pong", timeout=10)
        except websockets.ConnectionClosed:
            await self.resume()


async def test_a_game_through_the_proxy_survives_an_instance_stopping(postgres_database: str) -> None:
    started = time.monotonic()
    nginx_binary()
    env = {
        "DICECUP_DATABASE_URL": postgres_database,
        "DICECUP_REDIS_URL": redis_url(),
        "DICECUP_MIGRATE_ON_START": "false",
        "DICECUP_RATE_LIMITS": "false",
        "DICECUP_LOG_LEVEL": "warning",
        "DICECUP_TRUSTED_PROXIES": "127.0.0.1",
        "DICECUP_STRATEGY_DIR": str(STRATEGY_DIR),
        "DICECUP_STRATEGY_SOLVE": "false",
    }
    hosts = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
    port = shared_port(hosts)
    dns = StubDNS(NAME)
    instances: list[Instance] = []
    try:
        a, b = Instance(hosts[0], port, env), Instance(hosts[1], port, env)
        instances += [a, b]
        dns.addresses = [a.host, b.host]
        with nginx(dns.port, port) as proxy:
            async with httpx.AsyncClient(base_url=f"http://{proxy}", timeout=10) as http:
                table = Table(http)
                await table.create("yacht", "Ana", max_players=3)
                for name in ("Ben", "Cy"):
                    await table.join(name)
                url = f"ws://{proxy}/api/rooms/{table.code}/ws"
                players = {pid: Client(url, token) for pid, token in table.tokens.items()}
                watchers = [Client(url, None) for _ in range(3)]
                clients = [*players.values(), *watchers]
                for client in clients:
                    await client.connect()
                await asyncio.sleep(0.2)  # the proxy's REST connections closed
                # nginx picks among the name's addresses at random (its resolver
                # rotates them): more watchers until both instances hold sockets
                for _ in range(20):
                    if a.sockets() > 0 and b.sockets() > 0:
                        break
                    watchers.append(Client(url, None))
                    clients.append(watchers[-1])
                    await watchers[-1].connect()
                    await asyncio.sleep(0.05)
                assert a.sockets() > 0 and b.sockets() > 0, (a.sockets(), b.sockets())
                assert a.sockets() + b.sockets() == len(clients)

                begin = await table.start()
                rng = random.Random(12)
                actions, stopped_at = 0, None
                room = await table.room()
                while room["game"]["status"] == "playing":
                    for client in clients:
                        await client.catch_up(room["version"])
                    actor = players[room["game"]["turn"]["player_id"]]
                    assert actor.player is not None
                    reply = await actor.player.act(**choose(room, rng))
                    assert reply["type"] == "ack", reply
                    actions += 1
                    room = await table.room()
                    if actions == 25:
                        # One replica goes away mid-game (SIGTERM, as docker
                        # stop does) and a new one comes up at a new address.
                        stopped_at = room["version"]
                        for client in clients:
                            await client.catch_up(stopped_at)
                        await asyncio.sleep(0.2)  # the proxy's last REST connection closed
                        on_a = a.sockets()
                        a.terminate()
                        a.process.wait(30)
                        c = Instance(hosts[2], port, env)
                        instances.append(c)
                        dns.addresses = [c.host, b.host]
                        await asyncio.sleep(1.5)  # older than the resolver's valid=1s
                        for client in clients:
                            await client.alive()
                        assert sum(client.reconnects for client in clients) == on_a > 0
                        # the replacement is reached through the re-resolved name
                        extra = Client(url, None)
                        for _ in range(20):
                            if c.sockets() > 0:
                                break
                            await extra.connect(after=stopped_at)
                            await asyncio.sleep(0.05)
                        assert c.sockets() > 0, "the proxy never reached the replica at its new address"

                assert room["game"]["status"] == "finished"
                assert stopped_at is not None
                final = room["version"]
                for client in clients:
                    await client.catch_up(final)
                log = {event["version"]: event for event in await table.events()}
                first = begin["version"] - 1  # game_started: the first event after the sockets' welcome
                for client in clients:
                    versions = [event["version"] for event in client.events]
                    assert versions == list(range(versions[0], final + 1)), versions
                    assert versions[0] <= first
                    assert client.events == [log[v] for v in versions]
                    await client.player.close()  # type: ignore[union-attr]
    finally:
        for instance in instances:
            instance.stop()
        dns.close()
    print(f"proxy topology: {actions} actions, {len(clients)} sockets, {time.monotonic() - started:.1f} s")
