"""Rate limits and abuse caps (the ``limits`` library for the rates).

Per seat for actions; per client address for REST requests, failed room
lookups (room-code probing) and room creation, shared through Redis across
instances when Redis is configured; per socket for the WebSocket flood
guard and per address for open sockets (both local to the instance: a
socket lives on one instance). ``DICECUP_RATE_LIMITS=false`` turns all of
them off (benchmarks, tests); the per-room spectator cap is the hub's and
stays on.

Refusals carry ``retry_after``: the seconds until the window lets the
client in again (the ``Retry-After`` header of a 429).
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

from app.config import Settings
from app.rooms import DomainError

log = logging.getLogger("dicecup.api")


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.enabled = settings.rate_limits
        shared: Storage = MemoryStorage()
        if settings.redis_url:
            shared = RedisStorage("async+" + settings.redis_url, implementation="redispy", key_prefix="dicecup-limits")
        self._shared = MovingWindowRateLimiter(shared)
        self._local = MovingWindowRateLimiter(MemoryStorage())
        self._action = RateLimitItemPerSecond(settings.actions_per_second)
        self._request = RateLimitItemPerMinute(settings.requests_per_minute)
        self._message = RateLimitItemPerSecond(settings.ws_messages_per_second)
        self._lookup = RateLimitItemPerMinute(settings.lookup_failures_per_minute)
        self._room = RateLimitItemPerHour(settings.rooms_per_hour)
        self._profile = RateLimitItemPerHour(settings.profiles_per_hour)
        self._sign_in_user = RateLimitItemPerHour(settings.sign_in_failures_per_username)
        self._sign_in_address = RateLimitItemPerHour(settings.sign_in_failures_per_address)
        self._sockets_per_address = settings.sockets_per_address
        self._sockets: Counter[str] = Counter()

    @staticmethod
    async def _hit(limiter: MovingWindowRateLimiter, item: RateLimitItem, *key: str) -> bool:
        try:
            return await limiter.hit(item, *key)
        except Exception as error:  # a limiter that is down must not take the game down
            log.warning("rate limiter unavailable (%r); allowing", error)
            return True

    @staticmethod
    async def _retry_after(limiter: MovingWindowRateLimiter, item: RateLimitItem, *key: str) -> int:
        """Whole seconds until ``item`` allows one more hit for ``key`` (at least 1)."""
        try:
            stats = await limiter.get_window_stats(item, *key)
        except Exception:
            return item.get_expiry()
        return max(1, math.ceil(stats.reset_time - time.time()))

    async def _refuse(self, limiter: MovingWindowRateLimiter, item: RateLimitItem, detail: str, *key: str) -> None:
        raise DomainError("rate_limited", detail, retry_after=await self._retry_after(limiter, item, *key))

    async def check_action(self, player_id: str) -> None:
        """``rate_limited`` when a seat acts faster than the configured rate."""
        if self.enabled and not await self._hit(self._shared, self._action, "action", player_id):
            await self._refuse(self._shared, self._action, "too many actions; slow down", "action", player_id)

    async def check_request(self, client: str) -> None:
        if self.enabled and not await self._hit(self._shared, self._request, "request", client):
            await self._refuse(self._shared, self._request, "too many requests from this address", "request", client)

    async def check_room_creation(self, client: str) -> None:
        """``rate_limited`` past ``rooms_per_hour`` rooms created from one address."""
        if self.enabled and not await self._hit(self._shared, self._room, "room", client):
            await self._refuse(self._shared, self._room, "too many rooms created from this address", "room", client)

    async def check_profile_creation(self, client: str) -> None:
        """``rate_limited`` past ``profiles_per_hour`` profiles created from one address."""
        if self.enabled and not await self._hit(self._shared, self._profile, "profile", client):
            detail = "too many profiles made from this address"
            await self._refuse(self._shared, self._profile, detail, "profile", client)

    # -- sign-in guessing ---------------------------------------------------------------------

    async def check_sign_in(self, client: str, username: str) -> None:
        """``rate_limited`` while the username or the address has used up its
        budget of failed sign-ins (per hour); checking costs nothing."""
        if not self.enabled:
            return
        for item, key in ((self._sign_in_user, username), (self._sign_in_address, client)):
            kind = "sign-in-user" if item is self._sign_in_user else "sign-in-address"
            try:
                allowed = await self._shared.test(item, kind, key)
            except Exception as error:
                log.warning("rate limiter unavailable (%r); allowing", error)
                return
            if not allowed:
                await self._refuse(self._shared, item, "too many failed sign-ins; try again later", kind, key)

    async def sign_in_failed(self, client: str, username: str) -> None:
        """A failed sign-in: one off the username's and the address's budgets."""
        if self.enabled:
            await self._hit(self._shared, self._sign_in_user, "sign-in-user", username)
            await self._hit(self._shared, self._sign_in_address, "sign-in-address", client)

    # -- room-code probing -----------------------------------------------------------------

    async def check_lookups(self, client: str) -> None:
        """``rate_limited`` while the address has used up its budget of failed
        room lookups (``lookup_failures_per_minute``); checking costs nothing."""
        if not self.enabled:
            return
        try:
            allowed = await self._shared.test(self._lookup, "lookup", client)
        except Exception as error:
            log.warning("rate limiter unavailable (%r); allowing", error)
            return
        if not allowed:
            await self._refuse(
                self._shared, self._lookup, "too many unknown room codes from this address", "lookup", client
            )

    async def lookup_failed(self, client: str) -> None:
        """A room lookup from ``client`` found no room: one off its budget."""
        if self.enabled:
            await self._hit(self._shared, self._lookup, "lookup", client)

    # -- sockets ---------------------------------------------------------------------------

    async def allow_message(self, socket_id: int) -> bool:
        return not self.enabled or await self._hit(self._local, self._message, "ws", str(socket_id))

    def open_socket(self, client: str) -> bool:
        """Count a new socket from ``client``; false (and not counted) past ``sockets_per_address``."""
        if self.enabled and self._sockets[client] >= self._sockets_per_address:
            return False
        self._sockets[client] += 1
        return True

    def close_socket(self, client: str) -> None:
        self._sockets[client] -= 1
        if self._sockets[client] <= 0:
            del self._sockets[client]
