from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, settings

from app.config import Settings
from app.db.migrate import upgrade_async
from app.main import create_app

from .services import postgres_url, throwaway_postgres

# Seeded: CI runs the same examples every time, and a failure reproduces.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci")


@pytest.fixture(scope="session")
async def postgres_database() -> AsyncIterator[str]:
    """One migrated throwaway PostgreSQL database for the session."""
    async with throwaway_postgres(postgres_url()) as url:
        await upgrade_async(url)
        yield url


@pytest.fixture(scope="session")
async def sqlite_database(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'dicecup.db'}"
    await upgrade_async(url)
    return url


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str:
    """Each database test runs on SQLite and on PostgreSQL."""
    return str(request.getfixturevalue(f"{request.param}_database"))


STRATEGY_DIR = Path(__file__).resolve().parents[1] / "test-artifacts" / "strategy"


def test_settings(database_url: str, **overrides: object) -> Settings:
    """Settings for a test app: no rate limits, bots without delay, the
    session's strategy tables (never computed by the app under test), and no
    absent players (most tests play over REST without a socket open: their
    seats would be said to be absent; tests/lifecycle/test_absence.py turns it on)."""
    values: dict[str, object] = {
        "rate_limits": False,
        "bot_delay": 0.0,
        "strategy_dir": STRATEGY_DIR,
        "strategy_solve": False,
        "absent_seconds": 0,
    }
    return Settings(database_url=database_url, **(values | overrides))  # type: ignore[arg-type]


test_settings.__test__ = False  # type: ignore[attr-defined]


@pytest.fixture
async def app_settings(database_url: str) -> Settings:
    return test_settings(database_url)


@pytest.fixture
async def client(app_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(app_settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://dicecup.test") as http,
    ):
        yield http


@pytest.fixture(scope="session")
def strategy_tables() -> dict:
    """Every variant's full strategy table, solved once per machine (the
    full solves are the slow part of the suite: about 20 s on 2 cores) and
    kept in test-artifacts/strategy between local runs."""
    from app.strategy.model import ALL_VARIANTS
    from app.strategy.tables import ensure

    return {variant: ensure(STRATEGY_DIR, variant)[0] for variant in ALL_VARIANTS}


@pytest.fixture
def artifacts_dir() -> Path:
    path = Path(__file__).resolve().parents[1] / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path
