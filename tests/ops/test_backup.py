"""``python -m app backup`` copies a live SQLite database consistently while a
game is being played; ``python -m app restore`` puts it back, and the game
goes on from there to its end."""

import asyncio
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.db.migrate import upgrade, upgrade_async
from app.ops.backup import OpsError, backup, restore

from ..conftest import test_settings
from ..live import ROOT, server_in_thread
from ..table import Table, play


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


async def cli(*args: str, database: Path) -> tuple[int, str]:
    """``python -m app ARGS`` in another process, as an operator runs it."""
    env = {**os.environ, "DICECUP_DATABASE_URL": sqlite_url(database)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app", *args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode()


async def keep_playing(table: Table, rng: random.Random, stop: asyncio.Event) -> int:
    """Act (paced, so the game lasts) until ``stop``; how many actions."""
    done = 0
    while not stop.is_set():
        room = await play(table, rng, max_actions=1)
        assert room["game"]["status"] == "playing"
        done += 1
        await asyncio.sleep(0.03)
    return done


async def test_a_backup_taken_mid_game_restores_and_the_game_finishes(tmp_path: Path) -> None:
    live, copy, restored = tmp_path / "live.db", tmp_path / "backup.db", tmp_path / "restored" / "dicecup.db"
    await upgrade_async(sqlite_url(live))
    rng = random.Random(2024)
    with server_in_thread(test_settings(sqlite_url(live))) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            table = Table(http)
            await table.create("yahtzee", "Ana", max_players=4)
            for name in ("Ben", "Cy", "Dee"):
                await table.join(name)
            await table.start()
            await play(table, rng, max_actions=10)
            # The backup runs in another process while actions keep committing.
            stop = asyncio.Event()
            playing = asyncio.create_task(keep_playing(table, rng, stop))
            status, out = await cli("backup", str(copy), database=live)
            stop.set()
            assert status == 0, out
            assert await playing > 5, "actions should have committed while the backup was taken"
            await play(table, rng, max_actions=5)
            original = await table.events()
            # The server still has the database open: a restore over it is refused.
            status, out = await cli("restore", str(copy), "--force", database=live)
            assert status == 1 and "in use" in out, out

    assert not Path(f"{copy}-wal").exists()  # noqa: ASYNC240 (one self-contained file)
    status, out = await cli("restore", str(copy), database=restored)
    assert status == 0, out

    with server_in_thread(test_settings(sqlite_url(restored))) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            again = Table(http, code=table.code, tokens=dict(table.tokens), host=table.host)
            room = await again.room()
            events = await again.events()
            # A consistent snapshot: the room and its events agree, and they
            # are what the live server had at some moment mid-game.
            assert events, "the backup holds the game's events"
            assert room["version"] == events[-1]["version"]
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            assert events == original[: len(events)]
            assert 10 < len(events) < len(original)
            assert room["game"]["status"] == "playing"
            final = await play(again, rng)
            assert final["game"]["status"] == "finished"
            after = await again.events()
            assert after[: len(events)] == events
            assert [e["version"] for e in after] == list(range(1, len(after) + 1))


async def test_restore_keeps_the_database_it_replaces_and_refuses_without_force(tmp_path: Path) -> None:
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    for path in (first, second):
        await upgrade_async(sqlite_url(path))
    with sqlite3.connect(first) as conn:
        conn.execute("CREATE TABLE marker (x)")
    copy = backup(Settings(database_url=sqlite_url(first)), tmp_path / "copy.db")
    with pytest.raises(OpsError, match="exists"):
        backup(Settings(database_url=sqlite_url(first)), copy)
    settings = Settings(database_url=sqlite_url(second))
    with pytest.raises(OpsError, match="--force"):
        restore(settings, copy)
    target, kept = restore(settings, copy, force=True)
    assert target == second and kept is not None and kept.name.startswith("second.db.before-restore-")
    with sqlite3.connect(second) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'marker'").fetchone() == (1,)
    with sqlite3.connect(kept) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'marker'").fetchone() == (0,)
    # the backup, the restored database and the one kept are the server's alone (keys, secrets, hashes)
    assert {stat.S_IMODE(os.stat(path).st_mode) for path in (copy, second, kept)} == {0o600}


def test_restore_refuses_what_is_not_a_dicecup_database(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 100)
    with pytest.raises(OpsError, match="not a readable SQLite database"):
        restore(Settings(database_url=sqlite_url(tmp_path / "x.db")), junk)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(OpsError, match="not a Dicecup database"):
        restore(Settings(database_url=sqlite_url(tmp_path / "x.db")), other)


@pytest.mark.parametrize("command", [backup, restore])
def test_postgresql_is_pointed_to_pg_dump_and_pg_restore(command, tmp_path: Path) -> None:
    settings = Settings(database_url="postgresql://dicecup@db/dicecup")
    with pytest.raises(OpsError, match="pg_dump") as refused:
        command(settings, tmp_path / "x.db")
    assert "pg_restore" in str(refused.value)


def test_the_pg_dump_and_pg_restore_commands_name_the_configured_database(tmp_path: Path) -> None:
    """The commands printed work as they are: the configured database's URL as
    libpq takes it (no "$DATABASE", no SQLAlchemy +driver), its password left
    out (PGPASSWORD or ~/.pgpass give it)."""
    settings = Settings(database_url="postgresql+asyncpg://dicecup:s3cret@db.example:5433/games?sslmode=require")
    with pytest.raises(OpsError) as refused:
        backup(settings, tmp_path / "x.db")
    said = str(refused.value)
    url = "'postgresql://dicecup@db.example:5433/games?sslmode=require'"
    assert f"pg_dump --format=custom --file=dicecup.dump {url}" in said
    assert f"pg_restore --clean --if-exists --no-owner --dbname={url} dicecup.dump" in said
    assert "$DATABASE" not in said and "asyncpg" not in said and "s3cret" not in said
    assert "PGPASSWORD" in said
    plain = Settings(database_url="postgresql://dicecup@db/dicecup")
    with pytest.raises(OpsError) as refused:
        restore(plain, tmp_path / "x.db")
    assert "--dbname=postgresql://dicecup@db/dicecup dicecup.dump" in str(refused.value)
    assert "PGPASSWORD" not in str(refused.value)


def test_the_readmes_backup_commands_work_for_a_make_run_user(tmp_path: Path) -> None:
    """A ``make run`` user has the server in .venv, not on the system's Python:
    the README's SQLite backup commands use ``make backup`` or ``.venv/bin/python``,
    ``make backup`` takes a sound copy, and ``backups/`` is ignored by git."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("**SQLite** (one instance)", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands and all(c.startswith(("make backup", ".venv/bin/python -m app ")) for c in commands), commands
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    database = tmp_path / "data" / "dicecup.db"
    upgrade(sqlite_url(database))
    env = {**os.environ, "DICECUP_DATABASE_URL": sqlite_url(database)}
    target = tmp_path / "backups" / "copy.db"
    done = subprocess.run(
        [make, "--no-print-directory", "backup", f"BACKUP={target}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with sqlite3.connect(target) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert copy.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)
    ignored = subprocess.run(["git", "check-ignore", "-q", "backups/dicecup-2026-12-04.db"], cwd=ROOT)
    assert ignored.returncode == 0, "backups/ must be ignored by git"
