"""A database the server cannot reach at start: ``python -m app serve`` (and
``migrate``) print one line saying what to fix, JSON under
DICECUP_LOG_FORMAT=json, and exit 1, instead of a driver's traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import make_url

from app.config import normalize_database_url
from bench.servers import free_port

from ..services import postgres_url

ROOT = Path(__file__).resolve().parents[2]


def start(database_url: str, *command: str, log_format: str = "text") -> tuple[int, list[str]]:
    env = {
        **os.environ,
        "DICECUP_DATABASE_URL": database_url,
        "DICECUP_LOG_FORMAT": log_format,
        "DICECUP_STRATEGY_SOLVE": "false",
    }
    done = subprocess.run(
        [sys.executable, "-m", "app", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    return done.returncode, lines


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_nothing_listening_is_one_line_saying_what_to_fix(log_format: str) -> None:
    port = free_port()  # nothing listens there
    url = f"postgresql://dice:s3cret-pw@127.0.0.1:{port}/dicecup"
    code, lines = start(url, "serve", "--port", str(free_port()), log_format=log_format)
    assert code == 1
    assert len(lines) == 1, "\n".join(lines)
    line = lines[0]
    if log_format == "json":
        record = json.loads(line)
        assert record["level"] == "ERROR"
        line = record["message"]
    assert f"nothing accepts connections at 127.0.0.1:{port}" in line
    assert "DICECUP_DATABASE_URL" in line
    assert "s3cret-pw" not in line


def test_a_database_not_created_yet_says_to_create_it() -> None:
    url = make_url(normalize_database_url(postgres_url())).set(database="dicecup_never_created")
    code, lines = start(url.render_as_string(hide_password=False), "migrate")
    assert code == 1
    assert len(lines) == 1, "\n".join(lines)
    assert "the database 'dicecup_never_created' does not exist: create it" in lines[0]
