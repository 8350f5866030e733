"""Rate limits (the ``limits`` library): per seat for actions and per IP for
REST requests, shared through Redis across instances when Redis is
configured; per socket for the WebSocket flood guard (always local)."""

from __future__ import annotations

import logging

from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
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

    @staticmethod
    async def _hit(limiter: MovingWindowRateLimiter, item: RateLimitItem, *key: str) -> bool:
        try:
            return await limiter.hit(item, *key)
        except Exception as error:  # a limiter that is down must not take the game down
            log.warning("rate limiter unavailable (%r); allowing", error)
            return True

    async def check_action(self, player_id: str) -> None:
        """``rate_limited`` when a seat acts faster than the configured rate."""
        if self.enabled and not await self._hit(self._shared, self._action, "action", player_id):
            raise DomainError("rate_limited", "too many actions; slow down")

    async def check_request(self, client: str) -> None:
        if self.enabled and not await self._hit(self._shared, self._request, "request", client):
            raise DomainError("rate_limited", "too many requests from this address")

    async def allow_message(self, socket_id: int) -> bool:
        return not self.enabled or await self._hit(self._local, self._message, "ws", str(socket_id))
