"""The container health probe (``python -m app.ops.probe``): it asks the
address the server listens on, and, with DICECUP_HOST and DICECUP_PORT in
the environment (as the image sets them), it imports neither pydantic nor
SQLAlchemy: it runs every few seconds per replica, and those imports took
most of a 3 s check on a loaded machine (the compose stack's CI run saw its
replicas turn unhealthy)."""

import os
import subprocess
import sys

import pytest

from app.config import Settings
from app.ops import probe
from bench.servers import free_port

from ..live import ROOT


@pytest.mark.parametrize(
    "env",
    [
        {"DICECUP_HOST": "0.0.0.0", "DICECUP_PORT": "8123"},
        {"DICECUP_HOST": "127.0.0.1"},  # no port: the settings' default
        {},
    ],
)
def test_the_probe_asks_where_the_server_listens(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DICECUP_HOST", "DICECUP_PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert probe.target() == (settings.host, settings.port)


def test_the_probe_of_the_image_imports_no_settings() -> None:
    script = (
        "import sys; from app.ops import probe; probe.main(['health']); "
        "print(sorted(m for m in ('pydantic', 'sqlalchemy', 'app.config') if m in sys.modules))"
    )
    env = {**os.environ, "DICECUP_HOST": "127.0.0.1", "DICECUP_PORT": str(free_port())}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
    # and nothing listens there: the check fails, with the address it asked
    assert "127.0.0.1" in done.stderr


def test_a_closed_port_fails_the_check() -> None:
    env = {**os.environ, "DICECUP_HOST": "127.0.0.1", "DICECUP_PORT": str(free_port())}
    done = subprocess.run([sys.executable, "-m", "app.ops.probe", "ready"], cwd=ROOT, env=env, capture_output=True)
    assert done.returncode == 1
