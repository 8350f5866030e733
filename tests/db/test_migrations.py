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
