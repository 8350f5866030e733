"""Apply the Alembic migrations from code (the server does it before serving)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from app.config import sqlite_path

from .files import private_sqlite_files

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# A non-editable install (wheel, Docker image) carries them here (setup.py's build step).
PACKAGED = Path(__file__).resolve().parent / "_migrations"


def migrations_location() -> tuple[Path, Path]:
    """``alembic.ini`` and the migrations' directory: the installed package's
    copy, else the source tree's (a checkout or an editable install)."""
    if (PACKAGED / "alembic.ini").is_file() and (PACKAGED / "env.py").is_file():
        return PACKAGED / "alembic.ini", PACKAGED
    if (PROJECT_ROOT / "alembic.ini").is_file() and (PROJECT_ROOT / "migrations" / "env.py").is_file():
        return PROJECT_ROOT / "alembic.ini", PROJECT_ROOT / "migrations"
    raise RuntimeError(
        f"the Alembic migrations are missing: neither {PACKAGED} nor {PROJECT_ROOT / 'migrations'} holds them "
        "(install the package with `pip install .`, which packs them, or run from the source tree)"
    )


def alembic_config(database_url: str) -> Config:
    ini, scripts = migrations_location()
    config = Config(str(ini))
    config.set_main_option("script_location", str(scripts))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logger"] = False
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database at ``database_url`` to ``revision``. Blocking: call
    it before the event loop starts, or in a thread."""
    path = sqlite_path(database_url) if database_url.startswith("sqlite") else None
    if path is not None:
        private_sqlite_files(path)
    command.upgrade(alembic_config(database_url), revision)


async def upgrade_async(database_url: str, revision: str = "head") -> None:
    """:func:`upgrade` from async code: Alembic runs its own event loop, so it gets a thread."""
    import asyncio

    await asyncio.to_thread(upgrade, database_url, revision)
