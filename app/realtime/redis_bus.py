"""Fan-out across instances over Redis pub/sub.

One subscriber connection per instance, subscribed to the presence channel
and to the channel of every room this instance has sockets in. A loop
reconnects and resubscribes after Redis restarts (redis-py does not), then
asks the hub to read what it missed from the event log: the gap is filled
server-side, clients need do nothing.

Presence lives in one Redis hash, a field per (room, seat, instance) whose
value is its expiry time; each instance refreshes its own fields and sweeps
expired ones (an instance that died), announcing those seats as gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import orjson
import redis.asyncio as redis
from redis.exceptions import RedisError

from .bus import BusListener, Message, new_instance_id, presence_message

log = logging.getLogger("dicecup.realtime.redis")

START_WAIT = 5.0
"""Seconds an instance waits for Redis at start before serving without it."""
PRESENCE_CHANNEL = "dicecup:presence"
PRESENCE_KEY = "dicecup:presence"
_DOWN = (RedisError, OSError, asyncio.TimeoutError)


def room_channel(code: str) -> str:
    return f"dicecup:room:{code}"


class RedisBus:
    def __init__(self, url: str, heartbeat: float = 10.0, ttl: float = 30.0, prefix: str = "") -> None:
        self.instance_id = new_instance_id()
        self.heartbeat = heartbeat
        self.ttl = ttl
        self._prefix = prefix
        self._redis: redis.Redis = redis.from_url(url, socket_connect_timeout=2, health_check_interval=15)
        self._listener: BusListener | None = None
        self._rooms: set[str] = set()
        self._confirmed: dict[str, asyncio.Event] = {}
        self._own: set[tuple[str, str]] = set()
        self._pubsub: Any = None
        self._up = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        self._late = False
        """Redis did not answer within START_WAIT at start (said once it does)."""

    def _channel(self, code: str) -> str:
        return self._prefix + room_channel(code)

    @property
    def _presence_channel(self) -> str:
        return self._prefix + PRESENCE_CHANNEL

    @property
    def _presence_key(self) -> str:
        return self._prefix + PRESENCE_KEY

    async def start(self, listener: BusListener) -> None:
        self._listener = listener
        self._tasks = [asyncio.create_task(self._run()), asyncio.create_task(self._beat())]
        # Serve even if Redis is down at start (after waiting START_WAIT for it): the loop keeps trying.
        try:
            await asyncio.wait_for(self._up.wait(), START_WAIT)
        except TimeoutError:
            self._late = True
            log.warning(
                "redis does not answer after %g s; serving without it meanwhile (this instance's sockets get "
                "their rooms' events; other instances and shared presence wait for it; rate limits follow "
                "DICECUP_RATE_LIMITS_FAIL); it is retried every 2 s",
                START_WAIT,
            )

    @property
    def up(self) -> bool:
        return self._up.is_set()

    async def _run(self) -> None:
        first = True
        delay = 0.1
        while not self._closing:
            pubsub: Any = self._redis.pubsub()
            try:
                self._confirmed = {}
                channels = [self._presence_channel, *(self._channel(c) for c in self._rooms)]
                for channel in channels:
                    self._confirmed[channel] = asyncio.Event()
                await pubsub.subscribe(*channels)
                self._pubsub = pubsub
                await self._sync_presence()
                self._up.set()
                delay = 0.1
                if first and self._late:
                    log.info("redis answers now: fan-out and shared presence are up")
                if not first:
                    log.info("redis is back: resubscribed to %d rooms", len(self._rooms))
                    assert self._listener is not None
                    await self._listener.on_reconnected()
                first = False
                while True:
                    item = await pubsub.get_message(timeout=None)
                    if item is not None:
                        await self._dispatch(item)
            except asyncio.CancelledError:
                raise
            except _DOWN as error:
                if self._up.is_set():
                    log.warning("redis connection lost (%r); reconnecting", error)
                self._up.clear()
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _dispatch(self, item: dict[str, Any]) -> None:
        channel = item["channel"].decode() if isinstance(item["channel"], bytes) else item["channel"]
        if item["type"] == "subscribe":
            event = self._confirmed.get(channel)
            if event is not None:
                event.set()
        elif item["type"] == "message" and self._listener is not None:
            try:
                message = orjson.loads(item["data"])
            except orjson.JSONDecodeError:
                log.warning("ignoring a malformed message on %s", channel)
                return
            await self._listener.on_message(message)

    async def publish(self, code: str, message: Message) -> None:
        try:
            await self._redis.publish(self._channel(code), orjson.dumps(message))
        except _DOWN as error:
            # Other instances fill the gap from the log once Redis is back;
            # this instance's own sockets need not wait for that.
            log.warning("could not publish to redis (%r); delivering locally", error)
            if self._listener is not None:
                await self._listener.on_message(message)

    async def subscribe(self, code: str) -> None:
        self._rooms.add(code)
        channel = self._channel(code)
        confirmed = self._confirmed.setdefault(channel, asyncio.Event())
        if self._pubsub is None:
            return  # resubscribed by the reconnect loop
        try:
            await self._pubsub.subscribe(channel)
            await asyncio.wait_for(confirmed.wait(), 2.0)
        except _DOWN as error:
            log.warning("could not subscribe to room %s yet (%r)", code, error)

    async def unsubscribe(self, code: str) -> None:
        self._rooms.discard(code)
        channel = self._channel(code)
        self._confirmed.pop(channel, None)
        if self._pubsub is not None:
            with contextlib.suppress(*_DOWN):
                await self._pubsub.unsubscribe(channel)

    def _field(self, code: str, player: str, instance: str | None = None) -> str:
        return f"{code}|{player}|{instance or self.instance_id}"

    async def announce_presence(self, code: str, player_id: str, connected: bool) -> None:
        message = presence_message(code, player_id, self.instance_id, connected)
        try:
            if connected:
                self._own.add((code, player_id))
                await self._redis.hset(self._presence_key, self._field(code, player_id), time.time() + self.ttl)
            else:
                self._own.discard((code, player_id))
                await self._redis.hdel(self._presence_key, self._field(code, player_id))
            await self._redis.publish(self._presence_channel, orjson.dumps(message))
        except _DOWN as error:
            log.warning("could not announce presence (%r)", error)
            if self._listener is not None:
                await self._listener.on_message(message)

    async def _sync_presence(self) -> None:
        """Re-register this instance's seats and load everyone's (after a (re)connect)."""
        await self._refresh_own()
        entries = await self._live_presence()
        if self._listener is not None:
            self._listener.on_presence_snapshot(entries)

    async def _refresh_own(self) -> None:
        """Push the expiry of this instance's seat fields forward."""
        if self._own:
            expiry = time.time() + self.ttl
            await self._redis.hset(self._presence_key, mapping={self._field(c, p): expiry for c, p in self._own})

    async def _live_presence(self) -> list[tuple[str, str, str]]:
        now = time.time()
        live = []
        expired = []
        for raw_field, raw_expiry in (await self._redis.hgetall(self._presence_key)).items():
            field = raw_field.decode() if isinstance(raw_field, bytes) else raw_field
            parts = field.split("|")
            if len(parts) != 3:
                continue
            if float(raw_expiry) >= now:
                live.append((parts[0], parts[1], parts[2]))
            else:
                expired.append((field, parts))
        for field, (code, player, instance) in expired:
            # Only the instance that removes the field announces the seat as gone.
            if await self._redis.hdel(self._presence_key, field):
                message = {
                    "kind": "presence",
                    "code": code,
                    "player_id": player,
                    "instance": instance,
                    "connected": False,
                }
                await self._redis.publish(self._presence_channel, orjson.dumps(message))
        return live

    async def _beat(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.heartbeat)
            if not self._up.is_set():
                continue
            try:
                await self._refresh_own()
                await self._live_presence()
            except _DOWN as error:
                log.debug("presence heartbeat failed (%r)", error)

    async def close(self) -> None:
        self._closing = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(*_DOWN):
            if self._own:
                await self._redis.hdel(self._presence_key, *(self._field(c, p) for c, p in self._own))
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self._redis.aclose()
