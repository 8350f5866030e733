"""README.md "Without Docker", as written: two instances on PostgreSQL and
Redis (an empty database, migrated once by ``python -m app migrate``, the
instances with ``DICECUP_MIGRATE_ON_START=false``), behind Debian's own
nginx configured by the README's commands: run by bash in a scratch copy of
``/etc/nginx`` (its paths, the ports and ``sudo`` the only changes), with
Debian's ``nginx.conf`` including the rendered snippet from ``conf.d/``.
A game is played through it, one instance stopped mid-game (SIGTERM): every
socket ends with every event, in order, exactly once."""

import asyncio
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from bench.loadgen import choose
from bench.servers import free_port

from ..conftest import STRATEGY_DIR
from ..live import ROOT
from ..services import postgres_url, redis_url, throwaway_postgres
from ..table import Table
from .test_proxy import Client, Instance, nginx_binary

pytestmark = [pytest.mark.nginx, pytest.mark.postgres, pytest.mark.redis]

DEBIAN_NGINX = Path("/etc/nginx")


def readme_block(containing: str) -> str:
    """The shell block of README's "Without Docker" that contains ``containing``."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### Without Docker") :]
    section = section[: section.index("\n## ")]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    found = [block for block in blocks if containing in block]
    assert len(found) == 1, f"README's Without Docker section: one sh block with {containing!r}"
    return found[0]


def test_the_readme_says_what_a_plain_host_needs() -> None:
    setup = readme_block("python -m app migrate")
    assert "createdb" in setup, "the database is created"
    assert setup.index("python -m app migrate") < setup.index("serve"), "migrated once, before the instances start"
    assert setup.count("DICECUP_MIGRATE_ON_START=false") == setup.count("python -m app serve") == 2
    proxy = readme_block("envsubst")
    assert "/etc/nginx/conf.d/" in proxy
    assert "NGINX_TLS_PROXY= " in proxy, "no TLS proxy in front: left empty"
    ports = re.findall(r"DICECUP_PORT=(\d+)", setup)
    assert all(f"server 127.0.0.1:{port};" in proxy for port in ports), "nginx's list names both instances"


@contextmanager
def debian_nginx(listen: int, ports: list[int]) -> Iterator[Path]:
    """Debian's nginx set up by README's commands in a scratch /etc/nginx;
    yields the scratch root once nginx answers."""
    binary = nginx_binary()
    if not (DEBIAN_NGINX / "nginx.conf").exists():
        pytest.skip("Debian's /etc/nginx is not there")
    with tempfile.TemporaryDirectory(prefix="dicecup-plain-") as scratch:
        root = Path(scratch)
        etc = root / "etc" / "nginx"
        shutil.copytree(DEBIAN_NGINX, etc, symlinks=True)
        for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (root / name).mkdir()
        conf = (etc / "nginx.conf").read_text().replace("/etc/nginx", str(etc))
        conf = re.sub(r"^pid .*;", f"pid {root}/nginx.pid;", conf, flags=re.MULTILINE)
        conf = re.sub(r"(access|error)_log /var/log/nginx/", rf"\1_log {root}/", conf)
        temp = "".join(f"\n    {name}_temp_path {root}/{name};" for name in ("proxy", "fastcgi", "uwsgi", "scgi"))
        conf = conf.replace("http {", "http {" + temp + f"\n    client_body_temp_path {root}/body;", 1)
        (etc / "nginx.conf").write_text(conf)
        nginx = f"{binary} -e {root}/error.log -c {etc}/nginx.conf"
        script = readme_block("envsubst")
        script = script.replace("sudo ", "").replace("/etc/nginx", str(etc))
        script = script.replace("NGINX_LISTEN=80", f"NGINX_LISTEN=127.0.0.1:{listen}")
        for documented, port in zip(re.findall(r"server 127\.0\.0\.1:(\d+);", script), ports, strict=True):
            script = script.replace(f"127.0.0.1:{documented};", f"127.0.0.1:{port};")
        script = script.replace("nginx -t && systemctl reload nginx", f"{nginx} -t")
        assert "systemctl" not in script and "sudo" not in script, script
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not (etc / "sites-enabled" / "default").exists()
        process = subprocess.Popen([*nginx.split(), "-g", "daemon off;"], stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{listen}/api/health", timeout=1)
                    break
                except httpx.HTTPError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError((root / "error.log").read_text()) from None
                    time.sleep(0.05)
            yield root
        finally:
            process.send_signal(signal.SIGQUIT)
            process.wait(10)


async def test_two_instances_behind_debian_nginx_as_the_readme_says() -> None:
    async with throwaway_postgres(postgres_url()) as database:
        env = {
            "DICECUP_DATABASE_URL": database,
            "DICECUP_REDIS_URL": redis_url(),
            "DICECUP_TRUSTED_PROXIES": "127.0.0.1",
            "DICECUP_RATE_LIMITS": "false",
            "DICECUP_LOG_LEVEL": "warning",
            "DICECUP_STRATEGY_DIR": str(STRATEGY_DIR),
            "DICECUP_STRATEGY_SOLVE": "false",
        }
        migrate = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app", "migrate", cwd=ROOT, env={**os.environ, **env}, stderr=subprocess.PIPE
        )
        _, errors = await migrate.communicate()
        assert migrate.returncode == 0, errors.decode()
        env["DICECUP_MIGRATE_ON_START"] = "false"
        ports = [free_port(), free_port()]
        instances: list[Instance] = []
        try:
            instances += [Instance("127.0.0.1", port, env) for port in ports]
            listen = free_port()
            with debian_nginx(listen, ports):
                await play_through(f"127.0.0.1:{listen}", instances)
        finally:
            for instance in instances:
                instance.stop()


async def play_through(proxy: str, instances: list[Instance]) -> None:
    a, b = instances
    async with httpx.AsyncClient(base_url=f"http://{proxy}", timeout=10) as http:
        home = await http.get("/")
        assert home.status_code == 200 and "Welcome to nginx" not in home.text
        assert (await http.get("/metrics")).status_code == 404
        table = Table(http)
        await table.create("yacht", "Ana", max_players=2)
        await table.join("Ben")
        url = f"ws://{proxy}/api/rooms/{table.code}/ws"
        players = {pid: Client(url, token) for pid, token in table.tokens.items()}
        clients = list(players.values())
        for client in clients:
            await client.connect()
        # nginx takes the instances in turn: more watchers until both hold sockets
        for _ in range(10):
            await asyncio.sleep(0.2)  # the proxy's REST connections closed
            if a.sockets() > 0 and b.sockets() > 0:
                break
            clients.append(Client(url, None))
            await clients[-1].connect()
        assert a.sockets() > 0 and b.sockets() > 0, (a.sockets(), b.sockets())

        begin = await table.start()
        rng = random.Random(31)
        actions = 0
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
            if actions == 20:
                await asyncio.sleep(0.2)
                on_a = a.sockets()
                a.terminate()
                a.process.wait(30)
                for client in clients:
                    await client.alive()
                assert sum(client.reconnects for client in clients) == on_a > 0
        final = room["version"]
        log = {event["version"]: event for event in await table.events()}
        for client in clients:
            await client.catch_up(final)
            versions = [event["version"] for event in client.events]
            assert versions == list(range(versions[0], final + 1)), versions
            assert versions[0] <= begin["version"] - 1
            assert client.events == [log[v] for v in versions]
            await client.player.close()  # type: ignore[union-attr]
