"""The migrations produce exactly the models' schema, on both databases."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.migrate import upgrade_async
from app.db.models import Base

from ..services import postgres_url, throwaway_postgres


async def schema_diff(url: str) -> list:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata))
    finally:
        await engine.dispose()


async def tables(url: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda sync: inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


async def test_sqlite_migrations_match_models(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    await upgrade_async(url)
    assert await schema_diff(url) == []
    assert {"rooms", "players", "games", "events", "action_results"} <= await tables(url)
    await upgrade_async(url)  # idempotent: a second start migrates nothing


async def test_postgres_migrations_match_models() -> None:
    async with throwaway_postgres(postgres_url()) as url:
        await upgrade_async(url)
        assert await schema_diff(url) == []
        assert {"rooms", "players", "games", "events", "action_results"} <= await tables(url)


async def test_0011_cleans_profile_names_of_what_the_name_rules_refuse(tmp_path) -> None:
    """Profile names were checked for control characters only: a bidi
    override, invisible and blank characters and a 64-mark stack reached the
    public boards. Revision 0011 cleans the stored ones."""
    import sqlite3

    path = tmp_path / "old.db"
    url = f"sqlite+aiosqlite:///{path}"
    await upgrade_async(url, "0010")
    names = {
        "p1": ("Thr\u202eoller", "Throller"),
        "p2": ("\u3164", "Player"),
        "p3": ("A\u200bna\U000e0041\U000e007f", "Ana"),
        "p4": ("Zed" + "\u0301" * 64, "Zed" + "\u0301" * 5),
        "p5": ("Ana Maria", "Ana Maria"),
        "p6": ("\u0a95\u0acd\u0ab7\u200c", "\u0a95\u0acd\u0ab7"),
    }
    with sqlite3.connect(path) as conn:
        for pid, (name, _) in names.items():
            conn.execute(
                "INSERT INTO profiles (id, name, created_at) VALUES (?, ?, '2026-01-01 00:00:00')", (pid * 6, name)
            )
    await upgrade_async(url)
    with sqlite3.connect(path) as conn:
        stored = dict(conn.execute("SELECT id, name FROM profiles").fetchall())
    assert stored == {pid * 6: cleaned for pid, (_, cleaned) in names.items()}
