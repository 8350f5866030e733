"""Moving windows for the rate limits (``app.api.ratelimit``): at most
``limit`` hits per ``seconds`` for each key, counted exactly (a log of the
hits' times, not an estimate).

Two stores keep them, with the same operations and the same answers:

- :class:`LocalWindows`, in the process: a bounded deque of times per key
  (at most ``limit`` of them), all work done on the caller's stack, with no
  task, thread or timer. A key is forgotten once its newest hit is a window
  old (the oldest keys are swept as hits come, a few at a time).
- :class:`RedisWindows`, shared by every instance through Redis: the same
  log as a Redis list per key, read and written by one Lua script, so a
  request's steps take one round trip and are atomic across instances.

A request's checks are :class:`Step` s taken in order by :meth:`take`: a
``hit`` counts one hit if the window has room (else it is the refusal), a
``test`` only looks (a refusal if the window is full), a ``refund`` removes
the key's newest hit (a reservation that turned out not to count). The
first refusal ends the request's steps (the ones before it stay taken) and
says how long until the window has room again.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Op = Literal["hit", "test", "refund"]


@dataclass(frozen=True, slots=True)
class Window:
    """``limit`` hits per ``seconds``; ``name`` keeps its keys apart from other windows'."""

    name: str
    limit: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Step:
    op: Op
    window: Window
    key: str


@dataclass(frozen=True, slots=True)
class Refusal:
    step: Step
    retry_after: int
    """Whole seconds until the window has room again (at least 1)."""


def _retry(oldest: float, seconds: float, now: float) -> int:
    return max(1, math.ceil(oldest + seconds - now))


class Windows(Protocol):
    async def take(self, steps: Sequence[Step]) -> Refusal | None: ...

    async def close(self) -> None: ...


class LocalWindows:
    """Every window's log in this process (see the module's docstring)."""

    SWEEP = 4
    """Stale keys dropped per hit at most (enough to keep up: each hit adds at most one key)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        # window name -> key -> the times of its hits, oldest first. Each
        # window's dict is in the order of its keys' newest hits (a hit moves
        # its key to the end), so its stale keys are at the front.
        self._logs: dict[str, dict[str, deque[float]]] = {}

    def __len__(self) -> int:
        """Keys held (a window's worth of hits at most each)."""
        return sum(len(logs) for logs in self._logs.values())

    def take_now(self, steps: Sequence[Step]) -> Refusal | None:
        now = self.clock()
        for step in steps:
            refused = self._step(step, now)
            if refused is not None:
                return refused
        return None

    async def take(self, steps: Sequence[Step]) -> Refusal | None:
        return self.take_now(steps)

    def hit(self, window: Window, key: str) -> bool:
        """One hit for ``key`` if its window has room (the flood guard's call)."""
        return self._step(Step("hit", window, key), self.clock()) is None

    def forget(self, window: Window, key: str) -> None:
        self._logs.get(window.name, {}).pop(key, None)

    def _step(self, step: Step, now: float) -> Refusal | None:
        window, key = step.window, step.key
        logs = self._logs.get(window.name)
        if logs is None:
            logs = self._logs[window.name] = {}
        log = logs.get(key)
        if step.op == "refund":
            if log:
                log.pop()
                if not log:
                    del logs[key]
            return None
        if window.limit <= 0 or (log is not None and len(log) >= window.limit and log[0] > now - window.seconds):
            return Refusal(step, _retry(log[0] if log else now, window.seconds, now))
        if step.op == "test":
            return None
        if log is None:
            log = deque(maxlen=window.limit)  # when full, a hit drops the oldest (out of the window by then)
        else:
            del logs[key]  # to the end: its newest hit is now
        log.append(now)
        logs[key] = log
        self._sweep(logs, now - window.seconds)
        return None

    def _sweep(self, logs: dict[str, deque[float]], stale: float) -> None:
        """Drop a few of the keys whose every hit is out of the window."""
        for _ in range(self.SWEEP):
            key = next(iter(logs))
            if logs[key][-1] > stale:
                return
            del logs[key]

    async def close(self) -> None:
        self._logs.clear()


# KEYS: one per step; ARGV: now, then op, limit, seconds for each step.
# Returns 0 when every step was taken, else {the refused step (from 1), ms until room}.
_SCRIPT = """
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local op = ARGV[3 * i - 1]
  local limit = tonumber(ARGV[3 * i])
  local seconds = tonumber(ARGV[3 * i + 1])
  if op == "refund" then
    redis.call("LPOP", key)
  else
    local oldest = nil
    if limit > 0 then oldest = redis.call("LINDEX", key, limit - 1) end
    if limit <= 0 or (oldest and tonumber(oldest) > now - seconds) then
      local first = oldest or now
      return {i, math.ceil((tonumber(first) + seconds - now) * 1000)}
    end
    if op == "hit" then
      redis.call("LPUSH", key, ARGV[1])
      redis.call("LTRIM", key, 0, limit - 1)
      redis.call("EXPIRE", key, math.ceil(seconds))
    end
  end
end
return 0
"""


class RedisWindows:
    """Every window's log in Redis, shared by the instances (see the module's docstring)."""

    PREFIX = "dicecup-windows"

    def __init__(self, url: str, clock: Callable[[], float] = time.time) -> None:
        import redis.asyncio as redis  # only with a Redis URL

        self.clock = clock
        # A Redis that is down or unreachable fails a request's check in a
        # second at most (then DICECUP_RATE_LIMITS_FAIL decides), never hangs it.
        self._redis = redis.Redis.from_url(url, socket_connect_timeout=1.0, socket_timeout=1.0)
        self._script = self._redis.register_script(_SCRIPT)

    async def take(self, steps: Sequence[Step]) -> Refusal | None:
        keys = [f"{self.PREFIX}:{step.window.name}:{step.key}" for step in steps]
        args: list[str | int | float] = [repr(self.clock())]
        for step in steps:
            args += [step.op, step.window.limit, repr(float(step.window.seconds))]
        answer = await self._script(keys=keys, args=args)
        if answer == 0:
            return None
        index, ms = answer
        return Refusal(steps[int(index) - 1], max(1, math.ceil(int(ms) / 1000)))

    async def close(self) -> None:
        await self._redis.aclose()
