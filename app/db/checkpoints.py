"""SQLite's checkpoints, off the moves' path.

In WAL mode every commit appends to the ``-wal`` file, and by default the
connection whose commit takes the file past 1,000 pages copies it back
into the database and syncs it (a checkpoint), inside that commit. For the
moves' connection (app.db.actions) that was about every 300 moves, each
time a few milliseconds more of the instance's write lock while every
other move waited. So that connection never checkpoints
(``wal_autocheckpoint=0``), and a task of the instance looks every
``every`` seconds and, once ``min_moves`` moves have been written since
the last checkpoint (about SQLite's own threshold of 1,000 pages: a move
writes 3-5), runs a PASSIVE checkpoint in a worker thread, on a connection
of its own: it copies what the writers have
committed without waiting for them or blocking them, and never takes the
write lock. The server's other connections keep SQLite's default.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from pathlib import Path

log = logging.getLogger("dicecup.db")


class Checkpointer:
    """A PASSIVE checkpoint of ``path`` once ``min_moves`` moves were written
    since the last one, looked at every ``every`` seconds, from :meth:`start`
    to :meth:`close`."""

    def __init__(self, path: Path, every: float = 1.0, min_moves: int = 250) -> None:
        self.path = path
        self.every = every
        self.min_moves = min_moves
        self.moves = 0
        """Moves written since the last checkpoint (:meth:`wrote`)."""
        self.runs = 0
        self._task: asyncio.Task[None] | None = None
        self._conn: sqlite3.Connection | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                if self.moves < self.min_moves:
                    continue
                self.moves = 0
                await asyncio.to_thread(self.checkpoint)
            except sqlite3.Error as error:  # a locked or missing file: the next round tries again
                log.warning("WAL checkpoint of %s failed: %s", self.path, error)

    def wrote(self) -> None:
        """A move was committed (the moves' connection calls it, on the event loop)."""
        self.moves += 1

    def checkpoint(self) -> tuple[int, int, int]:
        """(busy, WAL frames, frames copied), as ``PRAGMA wal_checkpoint`` says."""
        if self._conn is None:
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        row = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.runs += 1
        return int(row[0]), int(row[1]), int(row[2])

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
