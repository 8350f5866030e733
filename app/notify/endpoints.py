"""Where a push may go: a subscription's endpoint parsed once, strictly, into
the one host, port and path the sender then posts to (docs/api.md, "Turn
notifications").

A URL parser and an HTTP client that read one string two ways are how a
check is walked around: ``https://127.0.0.1\\.fcm.googleapis.com/x`` has the
host ``127.0.0.1\\.fcm.googleapis.com`` for :func:`urllib.parse.urlsplit`
(on the allow-list) and ``127.0.0.1`` for an HTTP client (a backslash ends
the authority, as in browsers). So :func:`parse_endpoint` accepts only the
plain RFC 3986 form, with nothing either side could read differently: an
``https`` scheme, a DNS host name (letters, digits and hyphens in dot
separated labels, two labels at least, a top-level label that is not all
digits: no address literal in any notation), the default port 443, and a
path and query of RFC 3986's characters only (no backslash, space, ``@``
in the authority, fragment or user info). The sender builds its request from
the parsed parts, never from the string again.

A DNS name may still point anywhere, so the sender resolves it through
:class:`GuardedResolver`: every address the name has must be a public one
(:func:`public_address`), else the push is refused, and the connection is
made to exactly the addresses checked (no second lookup in between).

For the tests' own push service on this machine, ``loopback_for_tests``
(``DICECUP_PUSH_TEST_LOOPBACK``, off by default) also accepts an ``http``
or ``https`` endpoint on a loopback address literal (127.0.0.0/8, ``[::1]``)
on any port, and nothing else that is not public."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver
from yarl import URL

HTTPS_PORT = 443

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
# RFC 3986 path and query characters: unreserved, sub-delims, ':', '@', '/',
# '?' (query), and %XX escapes; nothing else (no '\', space, '#', non-ASCII).
_PCHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})"
_URL = re.compile(
    rf"^(?P<scheme>https?)://(?P<authority>[^/?#]*)(?P<path>/{_PCHARS}*)?(?:\?(?P<query>(?:{_PCHARS}|\?)*))?$"
)
_AUTHORITY = re.compile(r"^(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?$")


class EndpointRefused(ValueError):
    """An endpoint the server does not post to (the reason is the message)."""


@dataclass(frozen=True)
class Endpoint:
    """A parsed push endpoint: the request goes to exactly ``host``:``port``."""

    scheme: str
    host: str
    port: int
    path: str
    query: str

    @property
    def origin(self) -> str:
        """``scheme://host[:port]``: the VAPID ``aud`` and the per-host sending slots' key."""
        default = HTTPS_PORT if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}" + ("" if self.port == default else f":{self.port}")

    @property
    def url(self) -> URL:
        """The request's URL, built from the parts (already encoded: nothing is re-read)."""
        return URL.build(
            scheme=self.scheme, host=self.host, port=self.port, path=self.path, query_string=self.query, encoded=True
        )


def dns_name(host: str) -> bool:
    """Whether ``host`` (lower case, no trailing dot) is a plain DNS name of two
    labels or more whose last is not all digits (so no IPv4 literal in any
    notation: ``127.1``, ``0x7f000001``, ``2130706433``)."""
    labels = host.split(".")
    return len(labels) >= 2 and all(_LABEL.match(label) for label in labels) and not labels[-1].isdigit()


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    return any(item == "*" or host == item or host.endswith("." + item) for item in allowed)


def _loopback_literal(host: str) -> str | None:
    """``host`` as a loopback address if it is a dotted-quad or bracketed IPv6 literal of one."""
    if host.startswith("[") and host.endswith("]"):
        raw = host[1:-1]
    elif re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}", host):
        raw = host
    else:
        return None
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return None
    return str(address) if address.is_loopback else None


def parse_endpoint(text: str, allowed_hosts: Sequence[str], loopback_for_tests: bool = False) -> Endpoint:
    """The endpoint ``text`` names, or :class:`EndpointRefused` saying why the
    server will not post there (see the module's docstring)."""
    match = _URL.match(text)
    if match is None:
        raise EndpointRefused(
            "endpoint must be a plain https URL (RFC 3986 characters only; no credentials or fragment)"
        )
    authority = _AUTHORITY.match(match["authority"])
    if authority is None:
        raise EndpointRefused("endpoint must name a host name (no credentials, no other characters)")
    host, port_text = authority["host"].lower(), authority["port"]
    scheme = match["scheme"]
    loopback = _loopback_literal(host) if loopback_for_tests else None
    if loopback is not None:
        host = loopback
        port = int(port_text) if port_text else (HTTPS_PORT if scheme == "https" else 80)
        if not 0 < port < 65536:
            raise EndpointRefused("endpoint port is out of range")
        allowed_name = host
    else:
        if scheme != "https":
            raise EndpointRefused("endpoint must be an https URL")
        host = host.removesuffix(".")
        if not dns_name(host):
            raise EndpointRefused("endpoint host must be a DNS name (not an address)")
        if port_text is not None and int(port_text) != HTTPS_PORT:
            raise EndpointRefused("endpoint must be on port 443")
        port = HTTPS_PORT
        allowed_name = host
    if not host_allowed(allowed_name, allowed_hosts):
        raise EndpointRefused(f"endpoint host {allowed_name!r} is not a push service this server posts to")
    return Endpoint(scheme, host, port, match["path"] or "/", match["query"] or "")


def public_address(text: str) -> bool:
    """Whether ``text`` (an IP address) is one a push may go to: globally
    reachable (not loopback, private, link-local and so cloud metadata,
    carrier-grade NAT, documentation, reserved, multicast or unspecified),
    and for IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4,
    Teredo) that address too."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if not address.is_global or address.is_multicast:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        embedded = [address.ipv4_mapped, address.sixtofour]
        if address.teredo is not None:
            embedded.append(address.teredo[1])
        if address in ipaddress.IPv6Network("64:ff9b::/96"):
            embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        return all(inner is None or public_address(str(inner)) for inner in embedded)
    return True


class NonPublicAddress(OSError):
    """A push endpoint's name has an address that is not public: nothing is sent."""


class GuardedResolver(AbstractResolver):
    """aiohttp's resolver for push requests: resolves a name once (in a
    thread, as aiohttp's default does) and hands the connector its addresses
    only if every one of them is public (:class:`NonPublicAddress`
    otherwise, so a name with one private address among public ones is
    refused whole). The connector connects to these very addresses, with the
    name for TLS (SNI and the certificate's check)."""

    def __init__(self, inner: AbstractResolver | None = None) -> None:
        self._inner = inner

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if self._inner is None:
            self._inner = ThreadedResolver()
        found = await self._inner.resolve(host, port, family)
        refused = [item["host"] for item in found if not public_address(item["host"])]
        if refused or not found:
            raise NonPublicAddress(f"push endpoint host {host!r} resolves to a non-public address")
        return found

    async def close(self) -> None:
        if self._inner is not None:
            await self._inner.close()
