"""The web client: static HTML, CSS and JavaScript modules, served at ``/``,
at ``/r/{code}`` (a room's shareable link) and at ``/rules/{ruleset}``
(how to play)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"


def mount_web(app: FastAPI, static_dir: Path | None = None) -> None:
    root = static_dir or STATIC
    index = root / "index.html"

    async def page() -> FileResponse:
        # no-cache: a new release's client is picked up on the next visit
        return FileResponse(index, headers={"cache-control": "no-cache"})

    app.add_api_route("/", page, include_in_schema=False)
    app.add_api_route("/r/{code}", page, include_in_schema=False)
    app.add_api_route("/rules/{ruleset}", page, include_in_schema=False)  # how to play, client-side
    app.mount("/static", StaticFiles(directory=root), name="static")
