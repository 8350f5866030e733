"""Post-game reviews in worker processes at a lower CPU priority.

A finished game's review (app.analysis.review) values every decision of the
game against the strategy tables: 20-100 ms of CPU, most of it Python that
holds the GIL. In a worker thread of the server it took the players' event
loop's time (bench/RESULTS.md: made as every game ended, a third of a
one-core server's capacity). Here reviews run in ``workers`` processes of
their own (``DICECUP_ANALYSIS_WORKERS``), started on the first review and
kept, each at the lowest CPU priority there is: on Linux the ``SCHED_IDLE``
policy (a worker runs when a core would be idle otherwise, and the server
preempts it the moment it wakes), elsewhere a niceness ``NICE`` higher than
the server's. On a machine with a core to spare they use it; where they
share the server's core, the server goes first (at nice +10 alone it did
not, measured: the players' p99 tripled once hostile clients also took the
core).

A worker loads the tables it needs itself, memory-mapped from the same files
as the server (the pages are the page cache's, shared), and keeps an
:class:`~app.strategy.Advisor` per variant. A worker that dies (killed, out
of memory) breaks the pool; the next review starts a new one, and the review
that was running is tried once more.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from app.strategy import Advisor, Variant
from app.strategy.tables import load

from .review import review

log = logging.getLogger("dicecup.analysis")

JSON = dict[str, Any]
NICE = 10
"""How much lower than the server's the workers' CPU priority is (``nice``)
where there is no ``SCHED_IDLE``: sharing a core with the server, a worker
gets about a tenth of it."""


class ReviewPool:
    """``workers`` processes that review finished games, started on first use."""

    def __init__(self, directory: Path, workers: int) -> None:
        if workers < 1:
            raise ValueError("a review pool needs at least one worker")
        self.directory = directory
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                # not fork: the server has threads (the database's, asyncio's), and a
                # forked child may inherit one of their locks held
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(NICE,),
            )
        return self._pool

    async def review(self, variant: Variant, order: Sequence[str], events: list[JSON]) -> JSON:
        """The review of one finished game (as :func:`app.analysis.review.review`)."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._executor()
            try:
                return await loop.run_in_executor(pool, _review, str(self.directory), variant, list(order), events)
            except BrokenProcessPool:
                if self._pool is pool:
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                if attempt == 2:
                    raise
                log.warning("a review worker died; starting another and reviewing again")
        raise AssertionError("unreachable")

    def pids(self) -> list[int]:
        """The worker processes running now (for the tests and /metrics-free diagnosis)."""
        pool = self._pool
        processes = getattr(pool, "_processes", None) or {}
        return [pid for pid, process in processes.items() if process.is_alive()]

    async def close(self) -> None:
        """Stop the workers: a review in progress is finished first (they take
        well under a second), the queued ones are dropped."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


# -- in the worker -------------------------------------------------------------------

_advisors: dict[tuple[str, Variant], Advisor] = {}


def _start_worker(nice: int) -> None:
    with contextlib.suppress(AttributeError, OSError):  # no os.nice on Windows
        os.nice(nice)
    with contextlib.suppress(AttributeError, OSError):  # Linux only; lowering one's own policy needs no privilege
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _review(directory: str, variant: Variant, order: list[str], events: list[JSON]) -> JSON:
    key = (directory, variant)
    advisor = _advisors.get(key)
    if advisor is None:
        table = load(Path(directory), variant)
        if table is None:  # the server had it loaded: it was removed since
            raise RuntimeError(f"no strategy table of {variant.key} in {directory}")
        advisor = _advisors[key] = Advisor(variant, table)
    return review(variant.ruleset, order, events, advisor)
