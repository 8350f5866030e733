"""``python -m app backup FILE`` and ``python -m app restore FILE``, for SQLite.

A backup is taken online, while servers run: SQLite's backup API copies the
database as of one read transaction (WAL mode: readers never block the
writer, nor the writer them), so the copy is consistent, however many actions
commit meanwhile. It is written beside FILE and renamed into place when
complete and checked, as one self-contained file (no ``-wal``).

A restore replaces the database file of ``DICECUP_DATABASE_URL`` with a
backup. It refuses
- a file that is not a sound Dicecup database (integrity check, schema),
- to replace an existing database without ``--force``; with it, the current
  file is kept beside it as ``NAME.before-restore-TIMESTAMP``, never deleted,
- while any process has the database open (a server keeps its connections
  open for its whole life): every instance must be stopped first, as their
  memory (live rooms, versions) would no longer match the file.
Servers migrate a restored older backup when they start (or ``python -m app
migrate``).

PostgreSQL has its own tools, which these commands point to: ``pg_dump`` and
``pg_restore``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import URL, make_url

from app.config import Settings, sqlite_path
from app.db.files import PRIVATE

POSTGRES_HINT = (
    "{command} works on SQLite databases only; DICECUP_DATABASE_URL names a PostgreSQL database. "
    "Use PostgreSQL's tools, which copy a live database consistently:\n"
    "  backup:  pg_dump --format=custom --file=dicecup.dump {url}\n"
    "  restore: pg_restore --clean --if-exists --no-owner --dbname={url} dicecup.dump\n"
    "{password}"
    "(with docker compose: docker compose exec -T postgres pg_dump -U dicecup -Fc dicecup > dicecup.dump; "
    "see README.md, Backups)"
)


def libpq_url(database_url: str) -> tuple[str, bool]:
    """The database's URL as pg_dump and pg_restore take it (``postgresql://``,
    without SQLAlchemy's ``+driver``), its password left out; and whether it had one."""
    url = make_url(database_url)
    bare = URL.create("postgresql", url.username, None, url.host, url.port, url.database, url.query)
    return bare.render_as_string(hide_password=False), url.password is not None


class OpsError(Exception):
    """A refusal with a message for the operator (exit status 1)."""


def database_file(settings: Settings, command: str) -> Path:
    if not settings.is_sqlite:
        url, had_password = libpq_url(settings.database_url)
        password = "(the password is left out here: give it in PGPASSWORD or ~/.pgpass)\n" if had_password else ""
        raise OpsError(POSTGRES_HINT.format(command=command, url=shlex.quote(url), password=password))
    path = sqlite_path(settings.database_url)
    assert path is not None  # Settings refuses in-memory databases
    return path


def _check(path: Path) -> None:
    """Raise unless ``path`` is a sound SQLite database with Dicecup's schema."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise OpsError(f"{path}: not a readable SQLite database ({error})") from None
    try:
        (result,) = conn.execute("PRAGMA quick_check").fetchone()
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as error:
        raise OpsError(f"{path}: not a readable SQLite database ({error})") from None
    finally:
        conn.close()
    if result != "ok":
        raise OpsError(f"{path}: the integrity check failed: {result}")
    if not {"alembic_version", "rooms", "events"} <= tables:
        raise OpsError(f"{path}: not a Dicecup database (no alembic_version, rooms or events table)")


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """Copy the database of ``source`` into a new file ``target``, whole or not at all."""
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    os.close(handle)
    try:
        out = sqlite3.connect(partial, isolation_level=None)
        try:
            # One step (pages=-1): the whole copy is taken inside one read
            # transaction of the source, so it is one consistent snapshot.
            source.backup(out, pages=-1)
            # One self-contained file: no WAL beside it.
            out.execute("PRAGMA journal_mode=DELETE")
        finally:
            out.close()
        os.chmod(partial, PRIVATE)  # mkstemp's 0600 already; said here, since it holds the keys and hashes
        _check(Path(partial))
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        raise


def backup(settings: Settings, target: Path, force: bool = False) -> Path:
    """Copy the server's SQLite database to ``target`` while it runs."""
    source = database_file(settings, "backup")
    if not source.is_file():
        raise OpsError(f"{source}: no such database (DICECUP_DATABASE_URL)")
    target = target.resolve()
    if target == source.resolve():
        raise OpsError("the backup cannot be the database itself")
    if target.exists() and not force:
        raise OpsError(f"{target} exists; pass --force to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(source, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {settings.sqlite_busy_timeout_ms}")
        _copy(conn, target)
    finally:
        conn.close()
    return target


def _in_use(path: Path) -> bool:
    """Whether another connection has the database open: leaving WAL mode
    needs the only connection to the file."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
        if mode != "wal":
            # Not a server's database (servers put it in WAL mode): take the
            # write lock at least, which a writer in progress holds.
            conn.execute("BEGIN EXCLUSIVE")
            conn.execute("ROLLBACK")
            return False
        (mode,) = conn.execute("PRAGMA journal_mode=DELETE").fetchone()
        return bool(mode != "delete")
    except sqlite3.OperationalError:  # "database is locked"
        return True
    finally:
        conn.close()


def restore(settings: Settings, source: Path, force: bool = False) -> tuple[Path, Path | None]:
    """Put the backup ``source`` in place of the server's database; the
    database's path, and where its previous file was kept (if any)."""
    target = database_file(settings, "restore")
    source = source.resolve()
    if not source.is_file():
        raise OpsError(f"{source}: no such file")
    _check(source)
    kept: Path | None = None
    if target.exists():
        if not force:
            raise OpsError(
                f"{target} exists; stop every server instance, then pass --force "
                "(the current file is kept beside it, never deleted)"
            )
        if _in_use(target):
            raise OpsError(f"{target} is in use (a server instance is running?): stop every instance first")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        kept = target.with_name(f"{target.name}.before-restore-{stamp}")
        os.replace(target, kept)
        os.chmod(kept, PRIVATE)
        for suffix in ("-wal", "-shm"):  # emptied when _in_use left WAL mode
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{target}{suffix}")
    target.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True, isolation_level=None)
    try:
        _copy(conn, target)
    finally:
        conn.close()
    return target, kept


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("backup", help="copy the SQLite database to FILE, online (PostgreSQL: pg_dump)")
    parser.add_argument("file", type=Path)
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.set_defaults(handler=_backup_command)
    parser = sub.add_parser(
        "restore",
        help="replace the SQLite database with the backup FILE; every server stopped (PostgreSQL: pg_restore)",
    )
    parser.add_argument("file", type=Path)
    parser.add_argument(
        "--force", action="store_true", help="replace an existing database (its file is kept as NAME.before-restore-*)"
    )
    parser.set_defaults(handler=_restore_command)


def _backup_command(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:
        target = backup(Settings(), args.file, args.force)
    except OpsError as error:
        print(f"backup refused: {error}", file=sys.stderr)
        return 1
    print(f"backup written to {target} ({target.stat().st_size} bytes, {time.perf_counter() - started:.2f} s)")
    return 0


def _restore_command(args: argparse.Namespace) -> int:
    try:
        target, kept = restore(Settings(), args.file, args.force)
    except OpsError as error:
        print(f"restore refused: {error}", file=sys.stderr)
        return 1
    print(f"{args.file} restored to {target}" + (f"; the previous database is kept as {kept}" if kept else ""))
    print("servers migrate it when they start (or run `python -m app migrate`)")
    return 0
