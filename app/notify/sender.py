"""Sending one push (RFC 8030), to exactly the endpoint parsed and checked
by :mod:`.endpoints`.

The body is encrypted for the browser (RFC 8291, ``aes128gcm``) and the
request signed with the server's VAPID key (RFC 8292) in a worker thread;
the POST itself is made by aiohttp on the event loop, through
:class:`~.endpoints.GuardedResolver` (the name's addresses, all public, are
the ones connected to), never following a redirect, with a short connect
timeout and a deadline for the whole exchange.

One slow push service cannot hold the others' pushes back: at most
``senders`` pushes are in flight per instance, and at most ``PER_HOST`` of
them to any one push service origin. A push waiting for its host's slot
holds none of the instance's, so pushes to other hosts go on meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

import aiohttp
from aiohttp.abc import AbstractResolver
from py_vapid import Vapid
from pywebpush import WebPusher

from .endpoints import Endpoint, GuardedResolver, NonPublicAddress

log = logging.getLogger("dicecup.notify")

CONNECT_TIMEOUT = 3.0
"""Seconds to set up the connection (TCP and TLS) to a push service (at most the push's whole timeout)."""
PER_HOST = 4
"""Pushes in flight at once to one push service origin."""
VAPID_HOURS = 12
"""How long a push's VAPID signature is valid."""


class PushSender:
    def __init__(
        self, signer: Vapid, subject: str, *, timeout: float, senders: int, dns: AbstractResolver | None = None
    ) -> None:
        self.signer = signer
        self.subject = subject
        self.timeout = timeout
        self.senders = senders
        self._dns = dns
        """The name lookups under the guard (aiohttp's threaded getaddrinfo unless given)."""
        self._session: aiohttp.ClientSession | None = None
        self._slots = asyncio.Semaphore(senders)
        self._hosts: dict[str, tuple[asyncio.Semaphore, int]] = {}

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(
            resolver=GuardedResolver(self._dns), use_dns_cache=False, limit=self.senders, limit_per_host=PER_HOST
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=self.timeout, sock_connect=min(CONNECT_TIMEOUT, self.timeout)),
            trust_env=False,  # no proxy from the environment: the request goes where it was checked to go
            auto_decompress=False,
        )

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @contextlib.asynccontextmanager
    async def _slot(self, origin: str) -> AsyncIterator[None]:
        """The origin's slot first (a push waiting on a slow host holds no other), then one of the instance's."""
        host, users = self._hosts.get(origin) or (asyncio.Semaphore(PER_HOST), 0)
        self._hosts[origin] = (host, users + 1)
        try:
            async with host, self._slots:
                yield
        finally:
            host, users = self._hosts[origin]
            if users == 1:
                del self._hosts[origin]
            else:
                self._hosts[origin] = (host, users - 1)

    async def send(
        self, endpoint: Endpoint, p256dh: str, auth: str, payload: bytes, ttl: int, urgency: str, topic: str
    ) -> int:
        """Post one push: the push service's status; 0 without an answer; ``NonPublicAddress`` if refused."""
        assert self._session is not None, "start() first"
        async with self._slot(endpoint.origin):
            body, headers = await asyncio.to_thread(self._prepare, endpoint, p256dh, auth, payload)
            headers.update({"TTL": str(ttl), "Urgency": urgency, "Topic": topic})
            try:
                async with self._session.post(
                    endpoint.url, data=body, headers=headers, allow_redirects=False
                ) as response:
                    return response.status
            except aiohttp.ClientConnectorError as error:
                if isinstance(error.os_error, NonPublicAddress):
                    raise error.os_error from None
                log.warning("push service %s unreachable (%s)", endpoint.host, type(error).__name__)
                return 0
            except NonPublicAddress:
                raise
            except (aiohttp.ClientError, TimeoutError) as error:
                log.warning("push service %s unreachable (%s)", endpoint.host, type(error).__name__)
                return 0

    def _prepare(self, endpoint: Endpoint, p256dh: str, auth: str, payload: bytes) -> tuple[bytes, dict[str, str]]:
        """The encrypted body and the signed headers (CPU: in a worker thread)."""
        pusher = WebPusher({"endpoint": str(endpoint.url), "keys": {"p256dh": p256dh, "auth": auth}})
        body: bytes = pusher.encode(payload, "aes128gcm")["body"]
        claims = {"sub": self.subject, "aud": endpoint.origin, "exp": int(time.time()) + VAPID_HOURS * 3600}
        headers = {str(k): str(v) for k, v in self.signer.sign(claims).items()}
        headers["Content-Encoding"] = "aes128gcm"
        return body, headers
