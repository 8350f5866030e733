"""The rate limits' moving windows (app/api/windows.py), in the process and
in Redis: the same answers from both, exact at the window's edges."""

import secrets

import pytest

from app.api.windows import LocalWindows, RedisWindows, Step, Window

from ..services import redis_url


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["local", "redis"])
async def store(request: pytest.FixtureRequest):
    clock = Clock()
    windows = LocalWindows(clock) if request.param == "local" else RedisWindows(redis_url(), clock)
    yield windows, clock
    await windows.close()


def window(limit: int, seconds: float) -> Window:
    return Window(f"test-{secrets.token_hex(4)}", limit, seconds)  # a name of its own: keys of no other run


async def test_a_window_lets_exactly_its_limit_through(store) -> None:
    windows, clock = store
    w = window(3, 10)
    hit = Step("hit", w, "a")
    for _ in range(3):
        assert await windows.take([hit]) is None
        clock.now += 1
    refused = await windows.take([hit])
    assert refused is not None and refused.step == hit
    assert refused.retry_after == 7  # the first hit (at 0) leaves the window at 10; now is 3
    assert await windows.take([Step("hit", w, "b")]) is None  # another key has its own budget
    clock.now += 6.5  # 9.5: the first hit is still in
    assert await windows.take([hit]) is not None
    clock.now += 0.5  # 10.0: it is out (a window is the last 10 s, open at its start)
    assert await windows.take([hit]) is None
    assert await windows.take([hit]) is not None  # the hits at 1 and 2 are still in


async def test_test_counts_nothing_and_refund_hands_the_newest_back(store) -> None:
    windows, clock = store
    w = window(2, 60)
    hit, test, refund = (Step(op, w, "a") for op in ("hit", "test", "refund"))
    for _ in range(5):
        assert await windows.take([test]) is None
    assert await windows.take([hit]) is None
    clock.now += 1
    assert await windows.take([hit]) is None
    assert (await windows.take([test])) is not None
    assert await windows.take([refund]) is None  # the hit at 1 goes back
    assert await windows.take([test]) is None
    assert await windows.take([hit]) is None
    refused = await windows.take([hit])
    assert refused is not None and refused.retry_after == 59  # the hit at 0 is the oldest
    assert await windows.take([Step("refund", w, "never-hit")]) is None  # nothing to give back: no effect


async def test_steps_stop_at_the_first_refusal(store) -> None:
    windows, _ = store
    wide, narrow = window(5, 60), window(1, 60)
    steps = [Step("hit", wide, "a"), Step("hit", narrow, "a")]
    assert await windows.take(steps) is None
    refused = await windows.take(steps)
    assert refused is not None and refused.step == steps[1]
    # the first step was taken each time (2 of 5), the refused one not
    for _ in range(3):
        assert await windows.take([Step("hit", wide, "a")]) is None
    assert await windows.take([Step("hit", wide, "a")]) is not None
    assert (await windows.take([Step("hit", window(0, 60), "a")])) is not None  # a limit of 0 lets nothing in


def test_stale_keys_are_swept_as_hits_come() -> None:
    """A key is forgotten once its newest hit is a window old, so the store
    holds only the keys of the last window, not every key ever seen."""
    clock = Clock()
    windows = LocalWindows(clock)
    w, long = window(3, 1), window(3, 3600)
    windows.hit(long, "hour")  # a long window's key does not hold back the short window's sweep
    for i in range(10_000):
        assert windows.hit(w, f"socket-{i}")
        clock.now += 0.01  # 100 keys a second, each hit once
    assert len(windows) <= 1 + 100 + LocalWindows.SWEEP
    windows.forget(w, f"socket-{9_999}")
    windows.forget(long, "hour")
    assert len(windows) <= 100 + LocalWindows.SWEEP
