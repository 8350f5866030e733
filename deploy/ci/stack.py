"""The shipped image and compose stack, run for real (deploy/ci/stack.sh
starts this after making the base images): the image built from the
Dockerfile as it is, then a host's life with docker-compose.yml, the README's
commands run by podman-compose (deploy/ci/compose.py says how podman differs):

  previous  the previous release (the last commit before the newest
            migration) built into an image of its own, and installed as
            README "Install with docker compose" says: .env from
            .env.example, DICECUP_IMAGE set to that release's tag; a game
            played and kept
  upgrade   README "Upgrading" (DICECUP_IMAGE set to the new image) while a
            game is being played: migrations once, two new replicas, the old
            ones stopped (SIGTERM); the game finishes on the new ones, the
            old data kept
  checks    /api/ready 200 on each replica, /metrics not served by the
            proxy, the app not root, a game against the optimal bot with hints
  sigterm   a replica holding a game's sockets stopped mid-game: the clients
            resume on the other one and both finish with every event once
  database  the database stopped: the replicas' health check says unhealthy;
            back: healthy
  backup    README "Backups and restore" (pg_dump, pg_restore, migrate)
  tls       the tls profile (Caddy, for DICECUP_DOMAIN=localhost: its own CA)
  monitoring the monitoring profile's Prometheus scraping both replicas
            (Grafana is not run: Debian does not package it)

Each step prints its time; the first failure prints the containers' logs and
fails the run. KEEP=1 leaves the stack up afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import websockets
from compose import BUILD_FLAGS, Compose, logs, podman
from play import against_a_bot_with_hints, two_player_game

ROOT = Path(__file__).resolve().parents[2]
STATE = Path(os.environ.get("DICECUP_CI_STATE", "/var/tmp/dicecup-ci"))
HOME = STATE / "host" / "dicecup"  # the host's checkout; the project is named after it
IMAGE = "dicecup:local"
TIMES: list[tuple[str, float]] = []


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    print(f"==> {name}", flush=True)
    start = time.monotonic()
    yield
    TIMES.append((name, time.monotonic() - start))
    print(f"==> {name}: {TIMES[-1][1]:.0f} s", flush=True)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def previous_release() -> str:
    """The last commit (first-parent history) without the newest migration:
    upgrading from it runs a migration."""
    newest = sorted(p.name for p in (ROOT / "migrations" / "versions").glob("[0-9]*.py"))[-1]
    for commit in git("rev-list", "--first-parent", "HEAD").split():
        path = f"{commit}:migrations/versions/{newest}"
        if subprocess.run(["git", "cat-file", "-e", path], cwd=ROOT, stderr=subprocess.DEVNULL).returncode:
            return commit
    raise RuntimeError(f"no commit before {newest} in this clone's history (a shallow clone?)")


def checkout() -> None:
    """The host's clone: this working tree's files (a new directory)."""
    shutil.rmtree(HOME, ignore_errors=True)
    HOME.mkdir(parents=True)
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (HOME / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, HOME / name)


def set_env(**values: str) -> None:
    """Edit the host's .env as a host would (a line per setting)."""
    path = HOME / ".env"
    lines = path.read_text().splitlines()
    for name, value in values.items():
        pattern = re.compile(rf"^#?\s*{name}=")
        index = next((i for i, line in enumerate(lines) if pattern.match(line)), None)
        if index is None:
            lines.append(f"{name}={value}")
        else:
            lines[index] = f"{name}={value}"
    path.write_text("\n".join(lines) + "\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def address(container: str) -> str:
    return podman("inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", container)


def sockets_on(container: str, port: int = 8000) -> int:
    """Established connections to ``port`` inside the container."""
    script = (
        "import sys; port = format(int(sys.argv[1]), '04X'); "
        "print(sum(1 for line in open('/proc/net/tcp').read().splitlines()[1:] "
        "if line.split()[1].endswith(':' + port) and line.split()[3] == '01'))"
    )
    return int(podman("exec", container, "python", "-c", script, str(port)))


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


class Host:
    """What the host does, and what it checks, with ``compose``."""

    def __init__(self) -> None:
        self.compose = Compose(HOME)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.kept: dict[str, Any] = {}

    def apps(self) -> list[str]:
        return self.compose.containers("app", running=True)

    def build_previous(self, commit: str) -> str:
        """The previous release's image, from its own tree (kept between runs)."""
        tag = f"dicecup:{commit[:12]}"
        if subprocess.run(["podman", "image", "exists", tag]).returncode == 0:
            print(f"    {tag}: kept from an earlier run")
            return tag
        source = STATE / "previous"
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
        podman("build", *BUILD_FLAGS, "-f", str(source / "Dockerfile"), "-t", tag, str(source), timeout=1200)
        shutil.rmtree(source)
        return tag

    def install(self, image: str) -> None:
        checkout()
        shutil.copy(HOME / ".env.example", HOME / ".env")
        set_env(
            POSTGRES_PASSWORD=secrets.token_hex(24),
            DICECUP_HTTP_BIND="127.0.0.1",
            DICECUP_HTTP_PORT=str(self.port),
            DICECUP_IMAGE=image,
        )
        self.compose.up()
        self.compose.wait("proxy", "service_healthy")
        game = run(two_player_game(self.url))
        print(f"    {image}: {len(self.apps())} replicas; game {game['code']}: {game['events']} events")
        self.kept = game

    def upgrade(self) -> None:
        """README "Upgrading", while Ana and Ben play a game."""
        migrated: dict[str, str] = {}

        async def upgrade_now() -> None:
            await asyncio.to_thread(self._upgrade, migrated)

        game = run(two_player_game(self.url, hold_at=12, while_held=upgrade_now))
        print(f"    game during the upgrade: {game['actions']} actions, reconnects {game['reconnects']}")
        assert sum(game["reconnects"].values()) > 0, "no socket was on a stopped replica"
        # no downtime: each old replica's stop cost a socket one reconnection
        # at most, never a refused or failed attempt
        assert max(game["reconnects"].values()) <= int(migrated["old"]), game["reconnects"]
        ran = migrated["log"].count("Running upgrade")
        assert ran >= 1, migrated["log"]
        for name in self.apps():
            assert "Running upgrade" not in logs(name), f"{name} migrated too"
        head = sorted(p.stem for p in (HOME / "migrations" / "versions").glob("[0-9]*.py"))[-1].split("_")[0]
        version = self.psql("SELECT version_num FROM alembic_version")
        assert version.startswith(head), (version, head)
        kept = run(self.get(f"/api/rooms/{self.kept['code']}"))
        assert kept["game"]["status"] == "finished" and kept["version"] == self.kept["room"]["version"], kept
        print(f"    migrations ran once ({ran} upgrade(s), now {version}); game {self.kept['code']} kept")

    def _upgrade(self, migrated: dict[str, str]) -> None:
        old = self.apps()
        migrated["old"] = str(len(old))
        set_env(DICECUP_IMAGE=IMAGE)  # the new release's tag
        done = self.compose("run", "--rm", "migrate")
        migrated["log"] = done.stdout + done.stderr
        self.compose("up", "-d", "--no-deps", "--no-recreate", "--scale", f"app={len(old) + 2}", "app")
        new = [name for name in self.apps() if name not in old]
        assert len(new) == 2, new
        self.compose.wait_health(new, "healthy", 120)
        for name in old:
            podman("stop", "-t", "30", name)
            podman("rm", name)
            time.sleep(15)
        # "The next docker compose up -d keeps two replicas": Docker Compose
        # knows a service's containers by label and keeps the two running.
        # podman-compose knows them by name (app_1, app_2) and would start two
        # more next to app_3 and app_4: the new replicas take those names.
        for number, name in enumerate(new, 1):
            podman("rename", name, f"{self.compose.project}_app_{number}")
        # Docker Compose's next up recreates the one-shot migrate (its image
        # changed) and nothing else; podman-compose would recreate the
        # replicas with it (a changed service's dependents too). So the old
        # container goes now, and the next up makes a new one.
        for name in self.compose.containers("migrate"):
            podman("rm", name)
        assert len(self.apps()) == 2, self.apps()

    def psql(self, sql: str) -> str:
        postgres = self.compose.containers("postgres")[0]
        return podman("exec", postgres, "psql", "-U", "dicecup", "-d", "dicecup", "-tAc", sql)

    async def get(self, path: str, status: int = 200, base: str | None = None) -> Any:
        async with httpx.AsyncClient(base_url=base or self.url, timeout=10) as http:
            response = await http.get(path)
        assert response.status_code == status, (path, response.status_code, response.text[:300])
        return response.json() if "json" in response.headers.get("content-type", "") else response.text

    def checks(self) -> None:
        apps = self.apps()
        assert len(apps) == 2, apps
        for name in apps:
            podman("exec", name, "python", "-m", "app.ops.probe", "ready")
            ready = run(self.get("/api/ready", base=f"http://{address(name)}:8000"))
            assert ready["status"] == "ready", ready
            run(self.get("/metrics", base=f"http://{address(name)}:8000"))
            uid = podman("exec", name, "sh", "-c", "awk '/^Uid/ {print $2}' /proc/1/status")
            assert uid != "0", f"{name}'s server runs as root"
        run(self.get("/metrics", status=404))
        run(self.get("/api/ready"))
        hinted = run(against_a_bot_with_hints(self.url))
        print(f"    both replicas ready, /metrics 404 through the proxy, uid {uid}")
        print(f"    a {hinted['ruleset']} game against the optimal bot, {hinted['hints']} hints")

    def sigterm(self) -> None:
        stopped: list[str] = []

        async def stop_one() -> None:
            held = {name: await asyncio.to_thread(sockets_on, name) for name in self.apps()}
            target = max(held, key=lambda name: held[name])
            assert held[target] > 0, held
            await asyncio.to_thread(podman, "stop", "-t", "30", target)
            stopped.append(target)

        game = run(two_player_game(self.url, hold_at=20, while_held=stop_one))
        assert sum(game["reconnects"].values()) > 0, game["reconnects"]
        assert max(game["reconnects"].values()) == 1, f"a reconnection failed: {game['reconnects']}"
        print(f"    {stopped[0]} stopped mid-game; reconnects {game['reconnects']}; game finished, nothing lost")
        podman("start", stopped[0])
        self.compose.wait_health(stopped, "healthy", 90)

    def database_gone(self) -> None:
        apps = self.apps()
        self.compose("stop", "postgres")
        took = self.compose.wait_health(apps, "unhealthy", 120)
        print(f"    database stopped: replicas unhealthy after {took:.0f} s")
        self.compose("start", "postgres")
        self.compose.wait("postgres", "service_healthy")
        took = self.compose.wait_health(apps, "healthy", 120)
        print(f"    database back: replicas healthy after {took:.0f} s")

    def backup_restore(self) -> None:
        dump = STATE / "dicecup.dump"
        with dump.open("wb") as out:
            self.compose("exec", "-T", "postgres", "pg_dump", "-U", "dicecup", "-Fc", "dicecup", stdout=out)
        after = run(two_player_game(self.url))  # played after the backup: gone after the restore
        self.compose("stop", "app")
        with dump.open("rb") as source:
            self.compose(
                "exec", "-T", "postgres", "pg_restore", "-U", "dicecup", "-d", "dicecup", "--clean", "--if-exists",
                "--no-owner", stdin=source,
            )  # fmt: skip
        self.compose("run", "--rm", "migrate")
        self.compose("start", "app")
        self.compose.wait("app", "service_healthy")
        run(self.get(f"/api/rooms/{self.kept['code']}"))
        run(self.get(f"/api/rooms/{after['code']}", status=404))
        print(f"    dump {dump.stat().st_size} bytes; restored: {self.kept['code']} there, {after['code']} gone")

    def tls(self) -> None:
        for port in (80, 443):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    raise RuntimeError(f"port {port} is taken on this machine: the tls profile publishes it")
        set_env(DICECUP_DOMAIN="localhost")
        self.compose.up("caddy", profiles=("tls",))
        caddy = self.compose.containers("caddy")[0]
        root = STATE / "caddy-root.crt"
        for _ in range(60):
            done = subprocess.run(
                ["podman", "exec", caddy, "cat", "/data/caddy/pki/authorities/local/root.crt"], capture_output=True
            )
            if done.returncode == 0:
                root.write_bytes(done.stdout)
                break
            time.sleep(1)
        context = ssl.create_default_context(cafile=str(root))

        async def through_tls() -> str:
            async with httpx.AsyncClient(base_url="https://localhost", verify=context, timeout=10) as http:
                for _ in range(30):
                    with contextlib.suppress(httpx.HTTPError):
                        if (await http.get("/api/ready")).status_code == 200:
                            break
                    await asyncio.sleep(1)
                created = (await http.post("/api/rooms", json={"ruleset": "yacht", "name": "Dee"})).json()
            code = created["room"]["code"]
            async with websockets.connect(f"wss://localhost/api/rooms/{code}/ws", ssl=context) as ws:
                await ws.send(json.dumps({"type": "hello", "token": created["token"]}))
                welcome = await asyncio.wait_for(ws.recv(), 10)
            return str(welcome)[:40]

        welcome = run(through_tls())
        print(f"    https://localhost (Caddy's local CA): /api/ready 200, a room made, socket over wss: {welcome}...")

    def monitoring(self) -> None:
        self.compose.up("prometheus", profiles=("monitoring",))
        prometheus = address(self.compose.containers("prometheus")[0])

        async def targets() -> list[dict[str, Any]]:
            for _ in range(60):
                with contextlib.suppress(httpx.HTTPError, AssertionError):
                    found = await self.get("/api/v1/targets", base=f"http://{prometheus}:9090")
                    active = found["data"]["activeTargets"]
                    if len(active) == 2 and all(t["health"] == "up" for t in active):
                        return list(active)
                await asyncio.sleep(2)
            raise TimeoutError(f"Prometheus's targets: {found}")

        active = run(targets())
        print(f"    Prometheus scrapes {[t['labels']['instance'] for t in active]}: up (Grafana not run)")

    def down(self) -> None:
        """``docker compose down -v``, and whatever podman-compose's down
        (which goes by container name) leaves of the project."""
        if (HOME / "docker-compose.yml").exists():
            self.compose("down", "-v", profiles=("tls", "monitoring"), check=False)
        label = f"label=io.podman.compose.project={self.compose.project}"
        listings = {"container": ["ps", "-a"], "volume": ["volume", "ls"], "network": ["network", "ls"]}
        for kind, listing in listings.items():
            found = podman(*listing, "-q", "--filter", label, check=False).split()
            if found:
                podman(kind, "rm", "-f", *found, check=False)


def main() -> int:
    # the clients' reconnections, with their reasons, in the output
    logging.basicConfig(level=logging.WARNING, format="    client: %(message)s")
    logging.getLogger("dicecup_client").setLevel(logging.INFO)
    host = Host()
    steps: list[tuple[str, Callable[[], None]]] = []
    size: dict[str, str] = {}

    def build() -> None:
        podman("build", *BUILD_FLAGS, "-f", "./Dockerfile", "-t", IMAGE, str(ROOT), timeout=1200)
        size["image"] = podman("image", "inspect", "--format", "{{.Size}}", IMAGE)
        size["base"] = podman("image", "inspect", "--format", "{{.Size}}", "python:3.11-slim")
        mb = int(size["image"]) / 1e6
        print(f"    {IMAGE}: {mb:.0f} MB ({mb - int(size['base']) / 1e6:.0f} MB above python:3.11-slim)")

    commit = previous_release()
    previous: list[str] = []
    steps = [
        ("build the image", build),
        (f"build the previous release ({commit[:12]})", lambda: previous.append(host.build_previous(commit))),
        ("install the previous release", lambda: host.install(previous[0])),
        ("upgrade to this checkout mid-game", host.upgrade),
        ("replicas ready, /metrics hidden, non-root, hints and bots", host.checks),
        ("SIGTERM a replica mid-game", host.sigterm),
        ("health check without the database", host.database_gone),
        ("backup and restore", host.backup_restore),
        ("tls profile", host.tls),
        ("monitoring profile", host.monitoring),
    ]
    host.down()  # a stack left over by an interrupted run
    host.compose.start_health_checks()
    failed = None
    try:
        for name, action in steps:
            with step(name):
                action()
    except Exception as error:
        failed = error
        print(f"FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        print(podman("ps", "-a", "--format", "{{.Names}} {{.Status}}", check=False), file=sys.stderr)
        for service in host.compose.services():
            print(host.compose.logs(service), file=sys.stderr)
    finally:
        host.compose.stop_health_checks()
        if os.environ.get("KEEP") != "1":
            host.down()
    for name, seconds in TIMES:
        print(f"    {seconds:6.0f} s  {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
