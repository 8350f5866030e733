"""Settings: the database URLs people write, and the one that cannot work."""

import pytest
from pydantic import ValidationError

from app.config import Settings


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://u:p@db/dicecup", "postgresql+asyncpg://u:p@db/dicecup"),
        ("postgres://u@db/dicecup", "postgresql+asyncpg://u@db/dicecup"),
        ("sqlite:///./data/x.db", "sqlite+aiosqlite:///./data/x.db"),
        ("sqlite+aiosqlite:////abs/x.db", "sqlite+aiosqlite:////abs/x.db"),
    ],
)
def test_database_urls(given: str, used: str) -> None:
    assert Settings(database_url=given).database_url == used


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "sqlite+aiosqlite:///:memory:"])
def test_an_in_memory_sqlite_database_is_refused(url: str) -> None:
    with pytest.raises(ValidationError, match="in-memory SQLite"):
        Settings(database_url=url)
