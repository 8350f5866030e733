"""CORS for browser clients served from another origin (``DICECUP_CORS_ORIGINS``).

Off unless origins are configured. When on, Starlette's ``CORSMiddleware``
adds the CORS headers to the answers to allowed origins and answers their
preflight requests; a preflight it would refuse (an origin, method or header
not allowed) is not answered as a preflight at all: it goes on to the app
like any ``OPTIONS``, which is 405 with ``Allow`` (and the browser, seeing no
CORS headers, refuses the call as it must).
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

ALLOW_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
"""Every method a route of the API has (tests/api/test_http.py checks it stays so)."""
ALLOW_HEADERS = ("Authorization", "Content-Type")
EXPOSE_HEADERS = ("Retry-After", "X-Request-ID")


class _Cors(CORSMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "OPTIONS":
            headers = Headers(scope=scope)
            if "origin" in headers and "access-control-request-method" in headers:
                preflight = self.preflight_response(request_headers=headers)
                if preflight.status_code == 200:
                    await preflight(scope, receive, send)
                else:
                    await self.app(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


class Cors:
    """CORS middleware built on the first request from the app's settings
    (made at startup), or nothing at all when no origin is configured."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._inner: ASGIApp | None = None

    def _build(self, scope: Scope) -> ASGIApp:
        origins: list[str] = scope["app"].state.settings.cors_origin_list
        if not origins:
            return self.app
        return _Cors(
            self.app,
            allow_origins=origins,
            allow_methods=ALLOW_METHODS,
            allow_headers=ALLOW_HEADERS,
            expose_headers=EXPOSE_HEADERS,
            max_age=600,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if self._inner is None:
            self._inner = self._build(scope)
        await self._inner(scope, receive, send)
