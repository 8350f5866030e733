"""How the composition root (``app.main``) connects observability to the
rest: the rooms service's observer and counting publisher (given to the
service when it is made), the gauges' sources, readiness."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import func, select

from app.db import Database, Room
from app.realtime import Bus, Hub, RedisBus
from app.rooms import Publisher
from app.strategy import StrategyStore

from . import context
from .metrics import CountingPublisher, Metrics
from .readiness import Readiness


class RoomsObserver:
    """What the rooms service tells observability: the seat a request acts
    for (log context) and every action's outcome (metrics)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def seat_known(self, room_code: str, player_id: str) -> None:
        context.bind_seat(room_code, player_id)

    def action_done(self, ruleset: str, kind: str, outcome: str, seconds: float | None) -> None:
        self.metrics.action_done(ruleset, kind, outcome, seconds)


_ROOMS_BY_STATUS = select(Room.status, func.count()).group_by(Room.status)


async def count_rooms(db: Database) -> dict[str, int]:
    """Rooms by status, in one query."""
    async with db.read() as session:
        rows = (await session.execute(_ROOMS_BY_STATUS)).all()
    return {str(status): int(count) for status, count in rows}


class Instruments:
    """What observability puts around the rest, made before the rooms service
    (the composition root hands the service its publisher and observer):
    counting of published events and actions, the gauges' sources."""

    def __init__(self, metrics: Metrics, *, hub: Hub, bus: Bus, db: Database) -> None:
        self.metrics = metrics
        self.observer = RoomsObserver(metrics)
        self.redis_up = (lambda: bus.up) if isinstance(bus, RedisBus) else None
        metrics.watch(sockets=hub.socket_count, rooms=lambda: count_rooms(db), redis_up=self.redis_up)

    def counting(self, publisher: Publisher) -> Publisher:
        """``publisher``, with every event that goes through counted."""
        return CountingPublisher(publisher, self.metrics)

    def readiness(self, ping_database: Callable[[], Awaitable[None]], strategy: StrategyStore) -> Readiness:
        return Readiness(ping_database, strategy=strategy, redis_up=self.redis_up)
