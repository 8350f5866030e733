"""``GET /api/ready``: can this instance serve? (``docs/api.md``, Operations.)

Ready when the database answers, Redis (if configured) is connected, and the
strategy tables have not failed. ``loading`` and ``computing`` tables count
as ready: the server plays meanwhile (hints answer ``strategy_unavailable``,
bots play greedily) and both end on their own; ``failed`` does not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from app.strategy import StrategyStore

log = logging.getLogger("dicecup.readiness")


class Readiness:
    def __init__(
        self,
        ping_database: Callable[[], Awaitable[None]],
        strategy: StrategyStore | None = None,
        redis_up: Callable[[], bool] | None = None,
        timeout: float = 1.5,
    ) -> None:
        self._ping = ping_database
        self._strategy = strategy
        self._redis_up = redis_up
        self.timeout = timeout
        self._last: dict[str, Any] = {}

    async def _database(self) -> str:
        try:
            await asyncio.wait_for(self._ping(), self.timeout)
        except TimeoutError:
            return self._database_failed("timeout", f"no answer in {self.timeout:g} s")
        except Exception as error:
            # The body names the kind of failure only; the log has the detail.
            return self._database_failed(type(error).__name__, str(error))
        return "ok"

    def _database_failed(self, kind: str, detail: str) -> str:
        if self._last.get("database") != f"error: {kind}":
            log.warning("readiness: the database does not answer (%s: %s)", kind, detail)
        return f"error: {kind}"

    async def check(self) -> tuple[bool, dict[str, Any]]:
        """Whether the instance is ready, and the body: ``status``
        (``ready``/``not_ready``), ``database`` (``ok`` or ``error: <kind>``),
        ``redis`` (``ok``/``down``; absent without Redis), ``strategy``
        (``loading``, ``computing``, ``ready``, ``failed``)."""
        body: dict[str, Any] = {"status": "ready", "database": await self._database()}
        if self._redis_up is not None:
            body["redis"] = "ok" if self._redis_up() else "down"
        if self._strategy is not None:
            body["strategy"] = self._strategy.state
        ready = body["database"] == "ok" and body.get("redis", "ok") == "ok" and body.get("strategy") != "failed"
        if not ready:
            body["status"] = "not_ready"
        if body != self._last:
            if not ready:
                log.warning("not ready: %s", body)
            elif self._last:
                log.info("ready again: %s", body)
        self._last = body
        return ready, body
