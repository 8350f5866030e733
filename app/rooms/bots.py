"""Bots: what a bot seat does on its turn, and the scheduler that makes it
act when its room's deadline comes (docs/architecture.md, "The path of one
action": bot turns take the same path as a person's)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from app.db import Room
from app.db.models import utcnow
from app.rules import GameState
from app.strategy import Advisor, BoxChoice, StrategyStore, Variant, pick
from app.strategy.beginner import beginner_choice

from .errors import DomainError
from .types import ActionRequest, Seat

if TYPE_CHECKING:
    from .service import RoomService

log = logging.getLogger("dicecup.bots")


def bot_action(store: StrategyStore | None, state: GameState, level: str, rng: random.Random) -> ActionRequest:
    """The next action of a bot of ``level`` whose turn it is. Until the
    variant's table is ready, every bot plays greedily."""
    turn = state.turn
    assert turn is not None
    if turn.dice is None:
        return ActionRequest("roll")
    variant = Variant.of(state.ruleset, state.options)
    advisor = None if store is None or level in ("greedy", "beginner") else store.advisor(variant)
    if advisor is None:
        advisor = store.greedy(variant) if store is not None else Advisor(variant, None)
    card = state.scorecards[turn.player_id]
    if level == "beginner":
        choice = beginner_choice(advisor, card, turn.dice, turn.rolls_left, rng)
    else:
        choice = pick(advisor.advise(card, turn.dice, turn.rolls_left), level, rng)
    if isinstance(choice, BoxChoice):
        return ActionRequest("score", box=choice.box)
    return ActionRequest("roll", keep=choice.dice)


BOT_SPEEDS: dict[str, float] = {"slow": 1.75, "normal": 1.0, "fast": 0.35, "instant": 0.0}
"""Room option ``bot_speed``: how a room's bots' thinking time (and the autopilot's) is scaled
from the server's ``bot_delay``. ``normal`` takes a bot about 4-5 s a turn at the default
0.8 s; ``fast`` about a third of that; ``instant`` plays at once."""


def bot_delay(base: float, options: Mapping[str, Any]) -> float:
    """The bot delay of a room with ``options`` (its ``bot_speed``; rooms made before the
    option have none: normal)."""
    return base * BOT_SPEEDS.get(options.get("bot_speed") or "normal", 1.0)


def thinking_time(base: float, state: GameState, rng: random.Random | None = None) -> float:
    """How long a bot seems to think before its next action: a quick first
    roll, longer over which dice to keep, in between over the box; each
    varied at random (0 when ``base`` is 0, as in tests)."""
    turn = state.turn
    if base <= 0 or turn is None:
        return base
    rng = rng or random.Random()
    if turn.dice is None:
        low, high = 0.5, 0.9
    elif turn.rolls_left:
        low, high = 0.9, 2.0
    else:
        low, high = 0.7, 1.4
    return base * rng.uniform(low, high)


async def claim_due(service: RoomService, limit: int = 20, lease: float = 15.0) -> list[str]:
    """Rooms whose deadline has passed, claimed for ``lease`` seconds (on
    PostgreSQL with ``FOR UPDATE SKIP LOCKED``, so instances never claim the
    same room, and a crashed instance's rooms come due again)."""
    now = utcnow()
    async with service.db.write() as session:
        stmt = (
            select(Room)
            .where(Room.next_deadline.is_not(None), Room.next_deadline <= now)
            .order_by(Room.next_deadline)
            .limit(limit)
        )
        if not service.db.is_sqlite:
            stmt = stmt.with_for_update(skip_locked=True)
        rooms = list((await session.execute(stmt)).scalars())
        for room in rooms:
            room.next_deadline = now + timedelta(seconds=lease)
        return [room.code for room in rooms]


async def bot_turn(service: RoomService, code: str, attempts: int = 3) -> bool:
    """If a bot is to act in the room, make its next move through :meth:`act`
    (decided again, up to ``attempts`` times, after a ``stale_version``: a
    chat message between the read and the move)."""
    turn = await service.due_bot_turn(code)
    if turn is None:
        return False
    request = bot_action(service.strategy, turn.state, turn.level, random.Random(f"{turn.player_id}:{turn.version}"))
    try:
        await service.act(code, Seat(turn.player_id, turn.code), replace(request, expected_version=turn.version))
    except DomainError as refused:  # someone else moved first: the new deadline brings us back
        log.info("bot %s in room %s: %s", turn.player_id, code, refused.code)
        if refused.code == "stale_version" and attempts > 1:
            return await bot_turn(service, code, attempts - 1)
        return False
    return True


class Alarm:
    """When the local scheduler should look next: the rooms service rings it
    (``on_deadline``) after each commit that sets a room's deadline. A
    deadline no sooner than the scheduler's next look (``looks_by``: its
    poll) is not worth waking it for: most actions set one minutes ahead
    (an untimed turn's look at whether its player is there, a long clock),
    and each wake is a write transaction (the claim)."""

    def __init__(self) -> None:
        self.next: datetime | None = None
        self.event = asyncio.Event()
        self.looks_by: datetime | None = None
        """When the scheduler looks next anyway (None: unknown, every ring wakes it)."""

    def ring(self, at: datetime) -> None:
        if at.tzinfo is None:  # as SQLite hands it back: UTC
            at = at.replace(tzinfo=UTC)
        if self.looks_by is not None and at >= self.looks_by:
            return
        if self.next is None or at < self.next:
            self.next = at
        self.event.set()


class BotScheduler:
    """Each instance's loop: claim the rooms that are due, let their bots act
    (with ``play``: whatever is due, see ``app.lifecycle``).

    It sleeps until the earliest deadline its :class:`Alarm` has heard of
    (the service rings it after each commit that sets one) or ``poll``
    seconds, so rooms scheduled by another instance, or left by a crashed
    one, are picked up too."""

    def __init__(
        self,
        service: RoomService,
        alarm: Alarm | None = None,
        poll: float = 1.0,
        play: Callable[[str], Awaitable[bool]] | None = None,
    ) -> None:
        self.service = service
        self.alarm = alarm or Alarm()
        self.poll = poll
        self.play = play or (lambda code: bot_turn(service, code))
        """What to do with a due room (``app.lifecycle``'s turns: bots, the turn clock, the autopilot)."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="bot-scheduler")

    async def _run(self) -> None:
        while True:
            try:
                due = await claim_due(self.service)
                for code in due:
                    await self.play(code)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot scheduler step failed")
                due = []
            if due:
                continue
            timeout = self.poll
            alarm = self.alarm
            if alarm.next is not None:
                timeout = min(timeout, max(0.0, (alarm.next - datetime.now(UTC)).total_seconds()))
                alarm.next = None
            alarm.looks_by = datetime.now(UTC) + timedelta(seconds=timeout)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(alarm.event.wait(), timeout)
            alarm.event.clear()
            alarm.looks_by = None  # looking now: any deadline rung meanwhile is noted

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
