"""How the composition root (``app.main``) connects observability to the
rest: the rooms service's observer, the counting publisher, the gauges'
sources and readiness."""

from __future__ import annotations

from sqlalchemy import func, select

from app.db import Database, Room
from app.realtime import Bus, Hub, RedisBus
from app.rooms import RoomService
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


def attach(
    metrics: Metrics, *, service: RoomService, hub: Hub, bus: Bus, db: Database, strategy: StrategyStore
) -> Readiness:
    """Observe ``service`` (its actions, and the events it publishes through
    ``hub``), point the gauges at their sources; the instance's readiness."""
    service.publisher = CountingPublisher(hub, metrics)
    service.observer = RoomsObserver(metrics)
    redis_up = (lambda: bus.up) if isinstance(bus, RedisBus) else None
    metrics.watch(sockets=hub.socket_count, rooms=lambda: count_rooms(db), redis_up=redis_up)
    return Readiness(service.ping, strategy=strategy, redis_up=redis_up)
