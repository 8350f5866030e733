"""DICECUP_PUBLIC_URL (issue 18.5): the address friends open goes into the page,
where the web client builds its invite links from it."""

import httpx
import pytest

from app.config import Settings
from app.main import create_app

from ..conftest import test_settings


async def page_of(settings: Settings) -> str:
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000") as http,
    ):
        return (await http.get("/r/ABCDEF")).text


async def test_the_public_url_is_in_the_page(sqlite_database: str) -> None:
    page = await page_of(test_settings(sqlite_database, public_url="https://dice.example.org/games"))
    assert '<meta name="dicecup-public-url" content="https://dice.example.org/games/">' in page
    page = await page_of(test_settings(sqlite_database))
    assert '<meta name="dicecup-public-url" content="">' in page


@pytest.mark.parametrize("bad", ["ftp://x.org", "dice.example.org", "https://x.org/?a=1", "https://x.org/#top"])
def test_a_public_url_is_an_http_address(bad: str) -> None:
    with pytest.raises(ValueError, match="public_url"):
        Settings(public_url=bad)
