"""Prometheus metrics, served at ``GET /metrics`` (see ``docs/api.md``).

One :class:`Metrics` per app. Counters and histograms are moved where things
happen (actions through the rooms service's observer, events through
:class:`CountingPublisher`, HTTP requests by the middleware); gauges are read
from their source (the hub's sockets, the bus's Redis connection) every
``sample_every`` seconds and just before a scrape; rooms by status are
counted in the database at scrape time, at most once per ``rooms_ttl``
seconds.

With ``python -m app serve --workers N`` (N > 1) every worker is its own
process: ``serve`` points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh directory
before the workers start, prometheus-client keeps each worker's values in
files there, and whichever worker answers a scrape adds up every worker's
(the socket gauge is summed over the live workers, ``dicecup_redis_up`` is
the lowest of them; a worker that stops removes its gauges).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.process_collector import ProcessCollector

from .multiproc import multiprocess_dir

log = logging.getLogger("dicecup.metrics")

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
"""The classic text format, which every Prometheus version reads."""

ROOM_STATUSES = ("lobby", "playing", "finished", "closed")
"""Always exported (0 when none), so a dashboard's series do not come and go."""

ACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
HTTP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

JSON = dict[str, Any]


RoomCounter = Callable[[], Awaitable[Mapping[str, int]]]


class Metrics:
    """Every metric of one app, and what a scrape answers."""

    def __init__(self, sample_every: float = 2.0, rooms_ttl: float = 10.0) -> None:
        self.multiprocess = multiprocess_dir() is not None
        # No *_created series (a timestamp per series, which dashboards never use).
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.sample_every = sample_every
        self.rooms_ttl = rooms_ttl
        # Single process: the app's own registry (several apps in one process,
        # as in tests, never share a value). Multiprocess: the values live in
        # the directory's files and a scrape reads them all; the metric objects
        # are registered nowhere.
        self.registry: CollectorRegistry | None = None if self.multiprocess else CollectorRegistry()
        own = self.registry
        self.actions = Counter(
            "dicecup_actions",
            "Actions handled, by rule set, type (roll, keep, score) and outcome "
            "(applied, replayed, or the refusal's error code)",
            ["ruleset", "type", "outcome"],
            registry=own,
        )
        self.action_seconds = Histogram(
            "dicecup_action_seconds",
            "Seconds from an action reaching the rooms service to its commit and publication (applied actions)",
            ["ruleset", "type"],
            buckets=ACTION_BUCKETS,
            registry=own,
        )
        self.events_published = Counter(
            "dicecup_events_published", "Committed events handed to the fan-out, by event type", ["type"], registry=own
        )
        self.http_requests = Counter(
            "dicecup_http_requests",
            "HTTP requests, by method, route template and status",
            ["method", "route", "status"],
            registry=own,
        )
        self.http_seconds = Histogram(
            "dicecup_http_request_seconds",
            "Seconds from an HTTP request's arrival to the end of its response, by method and route template",
            ["method", "route"],
            buckets=HTTP_BUCKETS,
            registry=own,
        )
        self.rooms_swept = Counter(
            "dicecup_rooms_swept",
            "Rooms the sweeper deleted with their events, by reason (idle: no event for DICECUP_ROOM_TTL_DAYS; "
            "lobby: never started, no event for DICECUP_LOBBY_TTL_HOURS)",
            ["reason"],
            registry=own,
        )
        self.autopilot_moves = Counter(
            "dicecup_autopilot_moves",
            "Moves the autopilot made for timed-out, away or resigned seats (timeouts: "
            'dicecup_events_published{type="turn_timed_out"})',
            registry=own,
        )
        self.autopilot_cpu_seconds = Counter(
            "dicecup_autopilot_cpu_seconds",
            "Process CPU seconds spent choosing and applying the autopilot's moves",
            registry=own,
        )
        self.pushes = Counter(
            "dicecup_push_notifications",
            "Turn notifications by Web Push, by outcome (sent; gone: the push service dropped the subscription, "
            "deleted; failed: another answer or none; refused: the endpoint or its addresses are not ones the server "
            "posts to, deleted; dropped: the queue was full or the server stopped; connected: a turn started for a "
            "player with a socket open, so no push was needed)",
            ["outcome"],
            registry=own,
        )
        self.sockets = Gauge(
            "dicecup_websocket_connections",
            "Open room WebSockets on this instance",
            registry=own,
            multiprocess_mode="livesum",
        )
        self.redis_up: Gauge | None = None
        if own is not None:
            ProcessCollector(registry=own)
        self._children: dict[tuple[Any, ...], Any] = {}
        self._count_sockets: Callable[[], int] | None = None
        self._redis_is_up: Callable[[], bool] | None = None
        self._count_rooms: RoomCounter | None = None
        self._rooms: dict[str, int] | None = None
        self._rooms_at = -1e9
        self._rooms_lock = asyncio.Lock()
        self._sampler: asyncio.Task[None] | None = None
        self._rooms_collector = _RoomsCollector(self)
        if own is not None:
            own.register(self._rooms_collector)

    # -- recording --------------------------------------------------------------------------

    def _child(self, metric: Any, *labels: str) -> Any:
        """The labelled child, cached (``labels()`` takes a lock and builds a key)."""
        key = (id(metric), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def action_done(self, ruleset: str, kind: str, outcome: str, seconds: float | None) -> None:
        self._child(self.actions, ruleset, kind, outcome).inc()
        if seconds is not None:
            self._child(self.action_seconds, ruleset, kind).observe(seconds)

    def events(self, events: Sequence[JSON]) -> None:
        for event in events:
            self._child(self.events_published, str(event.get("type", "unknown"))).inc()

    def swept(self, reason: str, count: int) -> None:
        self._child(self.rooms_swept, reason).inc(count)

    def autopilot_move(self, cpu_seconds: float) -> None:
        self.autopilot_moves.inc()
        self.autopilot_cpu_seconds.inc(cpu_seconds)

    def push(self, outcome: str) -> None:
        self._child(self.pushes, outcome).inc()

    def http_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self._child(self.http_requests, method, route, str(status)).inc()
        self._child(self.http_seconds, method, route).observe(seconds)

    # -- gauges read from their sources --------------------------------------------------------

    def watch(
        self,
        sockets: Callable[[], int],
        rooms: RoomCounter,
        redis_up: Callable[[], bool] | None = None,
    ) -> None:
        """Where the gauges are read: open sockets (the hub), rooms by status
        (the database), whether Redis is up (``None``: no Redis configured,
        and no ``dicecup_redis_up``)."""
        self._count_sockets = sockets
        self._count_rooms = rooms
        self._redis_is_up = redis_up
        if redis_up is not None and self.redis_up is None:
            self.redis_up = Gauge(
                "dicecup_redis_up",
                "1 while this instance's connection to Redis (the fan-out) is up, else 0",
                registry=self.registry,
                multiprocess_mode="livemin",
            )
        self.sample()

    def sample(self) -> None:
        """Read the sockets and Redis gauges from their sources now."""
        if self._count_sockets is not None:
            self.sockets.set(self._count_sockets())
        if self._redis_is_up is not None and self.redis_up is not None:
            self.redis_up.set(1 if self._redis_is_up() else 0)

    async def start(self) -> None:
        """Sample the gauges in the background (in every worker: a scrape is
        answered by one of them, and reads every worker's values)."""
        self.sample()  # the sources have started since watch()
        self._sampler = asyncio.create_task(self._sample_forever(), name="metrics-sampler")

    async def _sample_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sample_every)
            try:
                self.sample()
            except Exception:
                log.exception("could not sample the gauges")

    async def close(self) -> None:
        if self._sampler is not None:
            self._sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sampler
        directory = multiprocess_dir()
        if self.multiprocess and directory is not None:
            # This worker's live gauges (sockets, redis up) leave the sums.
            mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]

    async def _refresh_rooms(self) -> None:
        if self._count_rooms is None or time.monotonic() - self._rooms_at < self.rooms_ttl:
            return
        async with self._rooms_lock:
            if time.monotonic() - self._rooms_at < self.rooms_ttl:
                return
            try:
                counts = await self._count_rooms()
            except Exception as error:
                log.warning("could not count the rooms for /metrics (%s); keeping the last counts", error)
                self._rooms_at = time.monotonic()  # not again on every scrape while the database is down
                return
            self._rooms = {status: 0 for status in ROOM_STATUSES} | dict(counts)
            self._rooms_at = time.monotonic()

    def room_counts(self) -> dict[str, int] | None:
        return None if self._rooms is None else dict(self._rooms)

    # -- a scrape -------------------------------------------------------------------------

    async def render(self) -> bytes:
        """The Prometheus text exposition of every metric (every worker's)."""
        self.sample()
        await self._refresh_rooms()
        if self.registry is not None:
            return generate_latest(self.registry)
        directory = multiprocess_dir()
        if directory is not None:
            forget_dead_workers(directory)
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(self._rooms_collector)
        return await asyncio.to_thread(generate_latest, registry)


def forget_dead_workers(directory: str) -> None:
    """Drop the live gauges of worker processes that are gone without saying
    so (a crashed worker that the server replaced): their sockets are closed."""
    for path in Path(directory).glob("gauge_live*_*.db"):
        try:
            pid = int(path.stem.rsplit("_", 1)[1])
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
        except (ValueError, PermissionError):  # not a worker's file; a process of another user
            continue


class _RoomsCollector:
    """``dicecup_rooms``: the database's rooms by status (the same on every
    instance; aggregate replicas with ``max``, not ``sum``)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        counts = self._metrics.room_counts()
        if counts is None:
            return
        family = GaugeMetricFamily("dicecup_rooms", "Rooms in the database, by status", labels=["status"])
        for status, count in sorted(counts.items()):
            family.add_metric([status], count)
        yield family


class CountingPublisher:
    """The rooms service's publisher, counting what goes through (the composition
    root puts it between the service and the hub)."""

    def __init__(self, inner: Any, metrics: Metrics) -> None:
        self._inner = inner
        self._metrics = metrics

    async def publish(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        await self._inner.publish(code, events, room)
        self._metrics.events(events)
