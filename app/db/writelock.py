"""SQLite's one writer at a time, with the moves first.

SQLite takes one write transaction at a time, so the server queues its own
writers on one lock instead of letting them spin on the database's busy
timeout. A move (:meth:`Database.act`) holds it for about half a millisecond,
one thread hop; any other write (a room created, a seat taken, a game
started, a chat line) goes through the ORM, one thread hop per statement, and
holds it for 2-13 ms on a busy event loop (bench/RESULTS.md). With one FIFO
queue, the burst of game starts that follows many games ending together put
every move behind 150-220 ms of other writes per second. So moves go first,
and another write waits for the moves queued before it is its turn, but
never longer than ``max_wait`` seconds once it is first of the others: under
a flood of moves the others still get through, at most ``max_wait`` late.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class WriteLock:
    """A lock with two queues: moves, served first, and other writes, served
    when no move waits or once the first of them has waited ``max_wait``."""

    def __init__(self, max_wait: float = 0.05) -> None:
        self.max_wait = max_wait
        self._held = False
        self._moves: deque[asyncio.Future[None]] = deque()
        self._others: deque[tuple[float, asyncio.Future[None]]] = deque()

    @property
    def locked(self) -> bool:
        return self._held

    @asynccontextmanager
    async def hold(self, move: bool) -> AsyncIterator[None]:
        await self._acquire(move)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, move: bool) -> None:
        if not self._held and not self._moves and not self._others:
            self._held = True
            return
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        if move:
            self._moves.append(turn)
        else:
            self._others.append((loop.time(), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # handed the lock, then cancelled before running: pass it on
            else:
                self._forget(turn)
            raise
        # handed over by _release: _held stayed True

    def _forget(self, turn: asyncio.Future[None]) -> None:
        if turn in self._moves:
            self._moves.remove(turn)
            return
        for entry in self._others:
            if entry[1] is turn:
                self._others.remove(entry)
                return

    def _release(self) -> None:
        while True:
            turn = self._next()
            if turn is None:
                self._held = False
                return
            if not turn.done():  # a waiter cancelled meanwhile is skipped
                turn.set_result(None)  # the lock passes to it, held all along
                return

    def _next(self) -> asyncio.Future[None] | None:
        if self._others and (
            not self._moves or asyncio.get_running_loop().time() - self._others[0][0] >= self.max_wait
        ):
            return self._others.popleft()[1]
        if self._moves:
            return self._moves.popleft()
        return None
