"""The web client: static HTML, CSS and JavaScript modules, served at ``/``,
at ``/r/{code}`` (a room's shareable link), at ``/rules/{ruleset}``
(how to play), and at the pages of players who come back: ``/r/{code}/games/{n}``
(a game's replay), ``/profile``, ``/signin``, ``/history``, ``/stats``,
``/stats/{profile_id}`` and ``/leaderboards``.

The client is built on the JavaScript SDK (``clients/js/src``), served as it
is at ``/static/sdk/``: one copy of the transport, no build step. Every URL the
client uses is relative to the page's ``<base href>``, which is the root path
the app is served under (``uvicorn --root-path``), so it works behind a proxy
that adds a prefix. ``/sw.js`` is the service worker (scope: the root path),
versioned by a hash of the files it caches; ``/static/manifest.webmanifest``
makes the client installable.

An address the app does not have (or ``/rules/`` of a rule set it does not
have) answers 404: to a browser asking for a page (a GET or HEAD accepting
``text/html``, outside ``/api/``) with the client's page, which says so and
leads home; to anyone else, the API's JSON error, as before."""

from __future__ import annotations

import hashlib
import html
import inspect
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from app.rules import RULESETS

STATIC = Path(__file__).parent / "static"
# The SDK: packed into the package by setup.py (a wheel, the Docker image), or
# the repository's own copy (a checkout, an editable install).
SDK_CANDIDATES = (Path(__file__).parent / "_sdk", Path(__file__).resolve().parents[2] / "clients" / "js" / "src")
BASE_MARK = '<base href="/">'


def sdk_dir() -> Path:
    for path in SDK_CANDIDATES:
        if (path / "index.js").is_file():
            return path
    raise RuntimeError("the JavaScript SDK (clients/js/src) is missing: the web client cannot be served")


def shell_version(*roots: Path) -> str:
    """A hash of every file the service worker caches: a new release is a new worker and a new cache."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".txt"):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def app_root(request: Request) -> str:
    """The root path the app is served under (inside a mount, such as /static, not the mount's)."""
    return str(request.scope.get("app_root_path", request.scope.get("root_path", "")))


def wants_page(request: Request) -> bool:
    """A browser opening an address (a page, not an API call or a file a page loads)."""
    path = request.url.path
    root = app_root(request)
    if root and path.startswith(root):
        path = path[len(root) :]
    api = path == "/api" or path.startswith("/api/")
    return request.method in ("GET", "HEAD") and not api and "text/html" in request.headers.get("accept", "")


PUBLIC_URL_MARK = '<meta name="dicecup-public-url" content="">'


def mount_web(app: FastAPI, static_dir: Path | None = None) -> None:
    """Serve the client. The settings' ``public_url`` (``DICECUP_PUBLIC_URL``,
    read at startup) goes into the page for the invite links: the address
    friends open."""
    root = static_dir or STATIC
    sdk = sdk_dir()
    template = (root / "index.html").read_text(encoding="utf-8")
    if BASE_MARK not in template:
        raise RuntimeError(f"index.html must carry {BASE_MARK}")
    if PUBLIC_URL_MARK not in template:
        raise RuntimeError(f"index.html must carry {PUBLIC_URL_MARK}")
    worker = (root / "sw.js").read_text(encoding="utf-8").replace("__VERSION__", shell_version(root, sdk))

    def render(request: Request, status: int = 200) -> HTMLResponse:
        # The base is the root path the app is served under: every URL of the
        # client is relative to it. no-cache: a new release is picked up on the next visit.
        base = html.escape(app_root(request).rstrip("/") + "/", quote=True)
        text = template.replace(BASE_MARK, f'<base href="{base}">')
        settings = getattr(request.app.state, "settings", None)
        public_url = settings.public_url if settings is not None else None
        if public_url:
            meta = f'<meta name="dicecup-public-url" content="{html.escape(public_url, quote=True)}">'
            text = text.replace(PUBLIC_URL_MARK, meta)
        return HTMLResponse(text, status_code=status, headers={"cache-control": "no-cache"})

    async def page(request: Request) -> HTMLResponse:
        return render(request)

    async def rules_page(request: Request, ruleset: str) -> HTMLResponse:
        return render(request, 200 if ruleset in RULESETS else 404)  # the client says which page is missing

    api_errors = app.exception_handlers.get(HTTPException)
    if api_errors is None:
        raise RuntimeError("install the API's error handlers before mounting the web client")

    async def not_found(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException) and exc.status_code == 404 and wants_page(request):
            return render(request, 404)
        answer = api_errors(request, exc)
        return await answer if inspect.isawaitable(answer) else answer

    app.add_exception_handler(HTTPException, not_found)

    async def service_worker() -> Response:
        return Response(worker, media_type="text/javascript", headers={"cache-control": "no-cache"})

    app.add_api_route("/", page, include_in_schema=False)
    app.add_api_route("/r/{code}", page, include_in_schema=False)
    app.add_api_route("/rules/{ruleset}", rules_page, include_in_schema=False)  # how to play, client-side
    # players who come back (client-side, js/pages.js): a game's replay, profile, sign-in, history, stats, boards
    app.add_api_route("/r/{code}/games/{number}", page, include_in_schema=False)
    for path in ("/profile", "/signin", "/history", "/stats", "/stats/{profile_id}", "/leaderboards"):
        app.add_api_route(path, page, include_in_schema=False)
    app.add_api_route("/sw.js", service_worker, include_in_schema=False)
    app.mount("/static/sdk", StaticFiles(directory=sdk), name="sdk")
    app.mount("/static", StaticFiles(directory=root), name="static")
