"""Finished games reviewed in worker processes (app.analysis.workers): the
same review as in the server's process, in another process at a lower CPU
priority, and a worker that dies is replaced."""

import asyncio
import os
import signal

import pytest

from app.analysis.review import review
from app.analysis.workers import NICE, ReviewPool
from app.strategy import Advisor
from app.strategy.model import Variant

from ..conftest import STRATEGY_DIR
from ..strategy.test_analysis import play_optimally

YAHTZEE = Variant("yahtzee", "forced")


async def _wait_gone(pid: int) -> None:
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"worker {pid} still there")


@pytest.fixture
async def pool():
    reviews = ReviewPool(STRATEGY_DIR, workers=1)
    yield reviews
    await reviews.close()


async def test_a_review_runs_in_another_process_at_a_lower_priority(pool, strategy_tables) -> None:
    advisor = Advisor(YAHTZEE, strategy_tables[YAHTZEE])
    events, order = play_optimally(advisor, ["ana", "ben"], seed=5)
    assert pool.pids() == []  # started on first use

    got = await pool.review(YAHTZEE, order, events)

    assert got == review("yahtzee", order, events, advisor)
    (pid,) = pool.pids()
    assert pid != os.getpid()
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, ours + NICE)
    if hasattr(os, "SCHED_IDLE"):  # Linux: it runs only when the core would be idle otherwise
        assert os.sched_getscheduler(pid) == os.SCHED_IDLE
    # kept for the next game
    await pool.review(YAHTZEE, order, events)
    assert pool.pids() == [pid]


async def test_a_worker_killed_is_replaced_and_the_review_made(pool, strategy_tables) -> None:
    advisor = Advisor(YAHTZEE, strategy_tables[YAHTZEE])
    events, order = play_optimally(advisor, ["ana", "ben", "cy"], seed=6)
    expected = await pool.review(YAHTZEE, order, events)
    (pid,) = pool.pids()
    os.kill(pid, signal.SIGKILL)
    await _wait_gone(pid)

    assert await pool.review(YAHTZEE, order, events) == expected
    (again,) = pool.pids()
    assert again != pid


async def test_close_stops_the_workers(strategy_tables) -> None:
    advisor = Advisor(YAHTZEE, strategy_tables[YAHTZEE])
    events, order = play_optimally(advisor, ["ana"], seed=7)
    reviews = ReviewPool(STRATEGY_DIR, workers=1)
    await reviews.review(YAHTZEE, order, events)
    (pid,) = reviews.pids()
    await reviews.close()
    await _wait_gone(pid)
    assert reviews.pids() == []


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError):
        ReviewPool(STRATEGY_DIR, workers=0)
