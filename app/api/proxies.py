"""Whose address a request comes from, when a reverse proxy is in front.

Every per-address limit keys on the client's address. Behind a proxy every
connection comes from the proxy, so the proxy's ``X-Forwarded-For`` (and
``-Proto``) are believed, but only from the peers listed in
``DICECUP_TRUSTED_PROXIES`` (addresses or networks); from any other peer the
headers are ignored, so a client cannot pick its own address. uvicorn's own
handling (which trusts 127.0.0.1 by default) is switched off by ``python -m
app serve``; this middleware applies however the app is served.
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware, _TrustedHosts


class TrustedProxies:
    """Outermost middleware: rewrites the scope's ``client`` (and scheme) from
    the forwarded headers of a trusted proxy. The list is read from the app's
    settings on the first request (settings are made at startup)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._inner: ASGIApp | None = None

    def _build(self, scope: Scope) -> ASGIApp:
        trusted = scope["app"].state.settings.trusted_proxy_list
        if not trusted:
            return self.app
        return ProxyHeadersMiddleware(self.app, trusted_hosts=trusted)  # type: ignore[arg-type,return-value]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if self._inner is None:
            self._inner = self._build(scope)
        await self._inner(scope, receive, send)


def trusted_peers(trusted: list[str]) -> _TrustedHosts:
    """The peers of ``trusted`` (``DICECUP_TRUSTED_PROXIES``) for membership
    tests (``peer in trusted_peers(...)``), matched as the middleware above
    matches them (uvicorn's own matcher): the connection gate
    (``app.api.ratelimit``) spares exactly the proxies whose headers are believed."""
    return _TrustedHosts(trusted)


def limit_key(address: str) -> str:
    """The key the per-address limits count ``address`` under: an IPv6
    address's /64 (one subscriber's, as an IPv4 address is: a client that
    picks a new address in it for each request is still one client), an
    IPv4-mapped IPv6 address as its IPv4 address, anything else as it is."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(parsed) >> 64 << 64, 64)))
    return address


def client_address(scope: Scope) -> str:
    """The client's address as the limits see it (after :class:`TrustedProxies`):
    its :func:`limit_key` (an IPv6 address's /64)."""
    client = scope.get("client")
    return limit_key(str(client[0])) if client else "unknown"
