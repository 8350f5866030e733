"""docker-compose.yml run by podman-compose (deploy/ci/stack.py), with the
two things Docker's daemon does that podman 4.3 without systemd does not:

- Health checks run on a schedule. Podman runs a container's health check
  from a systemd timer; there is no systemd on a CI machine, so a thread
  here runs ``podman healthcheck run`` on every running container of the
  project every few seconds (podman counts the failures against the
  check's retries and start period as Docker does).
- ``depends_on`` conditions. podman-compose waits for ``service_healthy``
  only on podman 4.6 or later, treats ``service_completed_successfully`` as
  "stopped" (whatever the exit status), and podman 4.3's ``start`` fails on
  a chain of dependent containers ("not found in input list"). So
  :meth:`Compose.up` starts the services in the order of the file's
  ``depends_on``, each with ``up -d --no-deps``, after waiting for each
  condition as Docker Compose does (healthy; exited 0; running)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

PODMAN_COMPOSE = os.environ.get("PODMAN_COMPOSE", "podman-compose")
# docker format: an OCI image drops the Dockerfile's HEALTHCHECK. Host
# network: builds reach the package registries. The host's CA bundle,
# mounted for the build's RUN steps only (nothing of it is committed), so
# that pip trusts the TLS of this machine's way out.
BUILD_FLAGS = ["--format", "docker", "--network", "host", "-v", "/etc/ssl/certs:/etc/ssl/certs:ro"]


def podman(*args: str, check: bool = True, timeout: float = 300) -> str:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)}: exit {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout.strip()


def logs(name: str, tail: int | None = None) -> str:
    """A container's output, both streams (the app logs to stderr)."""
    args = ["podman", "logs", *(["--tail", str(tail)] if tail else []), name]
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    return done.stdout


class Compose:
    """The compose project in ``home`` (a host's checkout with its .env)."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.project = home.name
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    # -- podman-compose -------------------------------------------------------------------

    def __call__(
        self, *args: str, profiles: tuple[str, ...] = (), check: bool = True, stdin: Any = None, stdout: Any = None
    ) -> subprocess.CompletedProcess[str]:
        command = [PODMAN_COMPOSE, "--in-pod", "false", "--podman-build-args", " ".join(BUILD_FLAGS)]
        command += [f"--profile={profile}" for profile in profiles]
        done = subprocess.run(
            [*command, *args],
            cwd=self.home,
            stdin=stdin,
            stdout=stdout if stdout is not None else subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=stdout is None,
            timeout=900,
        )
        if check and done.returncode != 0:
            out = done.stdout if isinstance(done.stdout, str) else ""
            raise RuntimeError(f"podman-compose {' '.join(args)}: exit {done.returncode}\n{out}{done.stderr}")
        return done

    def services(self) -> dict[str, Any]:
        data = yaml.safe_load((self.home / "docker-compose.yml").read_text())
        services: dict[str, Any] = data["services"]
        return services

    def containers(self, service: str | None = None, running: bool = False) -> list[str]:
        """The project's containers (of ``service``), by name, in creation order."""
        args = ["ps", "--sort", "created", "--format", "{{.Names}}"]
        args += ["--filter", f"label=io.podman.compose.project={self.project}"]
        if not running:
            args.insert(1, "-a")
        if service is not None:
            args += ["--filter", f"label=io.podman.compose.service={service}"]
        return [name for name in podman(*args).splitlines() if name]

    # -- Docker's ordering and health checks ------------------------------------------------

    def up(self, *services: str, profiles: tuple[str, ...] = (), timeout: float = 300) -> None:
        """``docker compose [--profile P] up -d [SERVICE...]``: the services
        (all enabled ones by default) and what they depend on, in order."""
        declared = self.services()
        enabled = [
            name for name, spec in declared.items() if not spec.get("profiles") or set(spec["profiles"]) & set(profiles)
        ]
        wanted = list(services) or enabled
        order: list[str] = []

        def visit(name: str) -> None:
            if name in order:
                return
            for dependency in self._depends_on(declared[name]):
                visit(dependency)
            order.append(name)

        for name in wanted:
            visit(name)
        for name in order:
            for dependency, condition in self._depends_on(declared[name]).items():
                self.wait(dependency, condition, timeout)
            self("up", "-d", "--no-deps", name, profiles=profiles)

    @staticmethod
    def _depends_on(spec: dict[str, Any]) -> dict[str, str]:
        depends = spec.get("depends_on", {})
        if isinstance(depends, list):
            return dict.fromkeys(depends, "service_started")
        return {name: (value or {}).get("condition", "service_started") for name, value in depends.items()}

    def wait(self, service: str, condition: str, timeout: float = 300) -> None:
        """Until every container of ``service`` meets ``condition``
        (service_healthy, service_completed_successfully, service_started)."""
        deadline = time.monotonic() + timeout
        while True:
            states = [self.state(name) for name in self.containers(service)]
            if condition == "service_completed_successfully":
                failed = [s for s in states if s["Status"] == "exited" and s["ExitCode"] != 0]
                if failed:
                    raise RuntimeError(f"{service} exited {failed[0]['ExitCode']}:\n{self.logs(service)}")
                met = bool(states) and all(s["Status"] == "exited" for s in states)
            elif condition == "service_healthy":
                met = bool(states) and all(s.get("Health", {}).get("Status") == "healthy" for s in states)
            else:
                met = bool(states) and all(s["Status"] == "running" for s in states)
            if met:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{service}: not {condition} after {timeout:.0f} s: {states}\n{self.logs(service)}")
            time.sleep(1)

    def wait_health(self, names: list[str], status: str, timeout: float = 120) -> float:
        """Until each container's health is ``status``; the seconds it took."""
        start = time.monotonic()
        while True:
            health = {name: self.state(name).get("Health", {}).get("Status") for name in names}
            if all(value == status for value in health.values()):
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"not {status} after {timeout:.0f} s: {health}")
            time.sleep(1)

    @staticmethod
    def state(name: str) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(podman("inspect", "--format", "{{json .State}}", name))
        return found

    def logs(self, service: str, tail: int = 40) -> str:
        names = self.containers(service)
        return "\n".join(f"--- {name}\n" + logs(name, tail) for name in names)

    def start_health_checks(self, every: float = 3.0) -> None:
        """Run the health checks of the project's running containers every
        ``every`` seconds (Docker's daemon does this on each check's interval)."""

        def check(name: str) -> None:
            subprocess.run(["podman", "healthcheck", "run", name], capture_output=True, timeout=30)

        def loop() -> None:
            with ThreadPoolExecutor(4) as pool:
                while not self._stop.wait(every):
                    try:
                        names = podman(
                            "ps",
                            "--format",
                            "{{.Names}} {{.Status}}",
                            "--filter",
                            f"label=io.podman.compose.project={self.project}",
                            check=False,
                        )
                        checked = [line.split()[0] for line in names.splitlines() if "(" in line]
                        list(pool.map(check, checked))
                    except (OSError, subprocess.SubprocessError):
                        continue

        self._ticker = threading.Thread(target=loop, name="health-checks", daemon=True)
        self._ticker.start()

    def stop_health_checks(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(40)
