"""The JavaScript client (clients/js, ``@dicecup/client``): its Node tests
(``node --test``) against a live server, on SQLite and PostgreSQL, and its
JSDoc types (``tsc --noEmit``, strict, checkJs). Without Node the tests skip
(fail under DICECUP_TEST_STRICT=1); ``make install`` runs ``npm ci`` for them,
and they run it themselves when clients/js/node_modules is missing."""

import asyncio
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import test_settings
from ..live import server_in_thread
from ..services import unavailable

JS = Path(__file__).resolve().parents[2] / "clients" / "js"
NODE_MAJOR = 20
TIMEOUT = 300


def node() -> str:
    binary = shutil.which("node")
    if binary is None:
        unavailable("node is not installed: the JavaScript client's tests skipped (Debian: apt-get install nodejs npm)")
    assert binary is not None
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    found = re.match(r"v(\d+)\.", version)
    major = int(found.group(1)) if found else 0
    if major < NODE_MAJOR:
        unavailable(f"node {version} is too old for the JavaScript client's tests (they need {NODE_MAJOR} or later)")
    return binary


@pytest.fixture(scope="module")
def node_modules() -> str:
    """``node``, with clients/js's dev dependencies installed (``npm ci`` if they are not)."""
    binary = node()
    if not all((JS / "node_modules" / name).is_dir() for name in ("ws", "typescript")):
        npm = shutil.which("npm")
        if npm is None:
            unavailable("npm is not installed, and clients/js/node_modules is missing: JavaScript client tests skipped")
        assert npm is not None
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=JS, capture_output=True, text=True, timeout=TIMEOUT
        )
        if done.returncode != 0:
            unavailable(f"npm ci in clients/js failed (offline?):\n{done.stdout}\n{done.stderr}")
    return binary


async def run(command: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``command`` in clients/js; its exit status and output (stdout and stderr)."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=JS,
        env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        process.kill()
        output, _ = await process.communicate()
        return -1, f"timed out after {TIMEOUT} s\n{output.decode(errors='replace')}"
    assert process.returncode is not None
    return process.returncode, output.decode(errors="replace")


async def test_node_tests_against_a_live_server(node_modules: str, database_url: str) -> None:
    """The whole Node suite (clients/js/test/*.test.js) with DICECUP_URL set:
    patch application, the connection's logic on a scripted socket, and a
    two-seat game over the SDK with a dropped socket and retried ids."""
    files = sorted(str(path.relative_to(JS)) for path in (JS / "test").glob("*.test.js"))
    assert files, "no clients/js/test/*.test.js"
    with server_in_thread(test_settings(database_url)) as server:
        status, output = await run(
            [node_modules, "--test", "--test-force-exit", "--test-timeout=60000", *files],
            {"DICECUP_URL": f"{server.http}/"},
        )
    assert status == 0, f"node --test failed ({status}):\n{output}"
    summary = dict(re.findall(r"^# (tests|pass|fail|skipped) (\d+)$", output, re.MULTILINE))
    assert summary.get("fail") == "0" and summary.get("skipped") == "0", output
    assert int(summary.get("pass", "0")) >= 30, output


async def test_types_check(node_modules: str) -> None:
    """``tsc --noEmit -p clients/js``: the sources and tests, strict, JSDoc types checked."""
    status, output = await run(
        [node_modules, str(JS / "node_modules" / "typescript" / "bin" / "tsc"), "--noEmit", "-p", "."]
    )
    assert status == 0, f"tsc --noEmit failed ({status}):\n{output}"
