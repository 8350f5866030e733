"""Password hashes: Argon2id (argon2-cffi's defaults, RFC 9106's low-memory
profile), computed in a small thread pool of their own.

A hash costs tens of milliseconds of a core and 64 MiB. In the event loop's
default thread pool, a dozen of them at once (a credentials flood, a burst
of correct sign-ins) queued every other job behind them, SQLite's included,
and a game's actions waited seconds. So the hashes have :class:`Hasher`'s
own threads (``DICECUP_PASSWORD_HASH_THREADS``, one by default: the other
cores stay the players'), and at most ``DICECUP_PASSWORD_HASHES_IN_FLIGHT``
of them wait or run at once: past that a request is refused at once with
503 ``server_busy`` (``Retry-After: 1``) instead of queueing. Nothing else
runs in those threads, so an action never waits behind a hash."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from app.rooms import DomainError

T = TypeVar("T")

_HASHER = PasswordHasher()

# Verified when the username is unknown, so that a wrong username costs as
# long as a wrong password (no user enumeration through timing).
_DUMMY = _HASHER.hash("dicecup: no such user")


def _verify(hashed: str | None, password: str) -> bool:
    try:
        return _HASHER.verify(hashed or _DUMMY, password) and hashed is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


class Hasher:
    """Hashes and verifies passwords in its own threads, a bounded number at once."""

    def __init__(self, threads: int = 1, in_flight: int = 8) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="argon2")
        self.in_flight = in_flight
        self.busy = 0
        """Hashes waiting for a thread or running now."""
        self.started = 0
        """Hashes and checks started so far."""

    async def _run(self, work: Callable[..., T], *args: object) -> T:
        if self.busy >= self.in_flight:
            raise DomainError(
                "server_busy", "the server is busy checking passwords; try again in a moment", retry_after=1
            )
        loop = asyncio.get_running_loop()
        self.busy += 1
        self.started += 1
        job: Future[T] = self._pool.submit(work, *args)

        def release(_: Future[T]) -> None:
            self.busy -= 1

        # counted until the thread is done with it, even if the request waiting for it went away
        job.add_done_callback(lambda done: loop.call_soon_threadsafe(release, done))
        return await asyncio.wrap_future(job)

    async def hash(self, password: str) -> str:
        return await self._run(_HASHER.hash, password)

    async def verify(self, hashed: str | None, password: str) -> bool:
        """Whether ``password`` matches ``hashed``; ``None`` (no such user) checks
        a dummy hash first, taking as long, and is false."""
        return await self._run(_verify, hashed, password)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
