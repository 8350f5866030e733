"""Turn notifications by Web Push (docs/api.md, "Turn notifications").

A seat stores its browsers' push subscriptions (:meth:`PushService.subscribe`);
when a turn starts for a person whose seat has no open socket on any instance
(the hub's presence, shared through Redis), one push goes to each of its
subscriptions: title and body in the subscription's language, the room's code
and the round, a time to live of what is left of the turn (untimed turns:
``DICECUP_PUSH_TTL_UNTIMED``).

The action path pays for none of it: the publisher wrapper
(:meth:`PushService.watching`) looks at the committed events in memory and
puts a job on a bounded queue (a full queue drops the push, counted); workers
claim and send it in the background, signing and encrypting in a thread.

Exactly one push per turn, whichever instances see it: a worker first
*claims* the turn with one conditional update of the seat's subscriptions
(``notified_version < turn's version``), and only the update that changed
the rows sends. A push service answering 404 or 410 has dropped the
subscription: it is deleted; so are a seat's subscriptions when it leaves
the room (``player_left``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

import orjson
from aiohttp.abc import AbstractResolver
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from app.db import Database, Player
from app.db.models import PushSubscription
from app.locales import Language, push_text
from app.rooms import DomainError
from app.rooms.types import Publisher, Seat
from app.rooms.views import JSON

from .endpoints import Endpoint, EndpointRefused, NonPublicAddress, parse_endpoint
from .keys import VapidKeys, unb64url
from .sender import PushSender

log = logging.getLogger("dicecup.notify")

MAX_PER_SEAT = 5
"""Subscriptions a seat may hold (a few browsers or devices)."""
WORKERS = 2
"""Turns claimed at once by each instance (their pushes are then sent in the
background, ``senders`` at a time: :mod:`.sender`)."""
MIN_TTL = 60
"""A timed turn's push lives at least this long (seconds)."""


class Presence(Protocol):
    def connected(self, code: str) -> Collection[str]: ...


@dataclass(frozen=True)
class Subscription:
    """What a browser's ``PushSubscription.toJSON()`` gives, and the seat's language."""

    endpoint: str
    p256dh: str
    auth: str
    lang: Language = Language.EN


@dataclass(frozen=True)
class Turn:
    code: str
    player_id: str
    version: int
    round: int
    deadline: str | None


def _language(code: str) -> Language:
    try:
        return Language(code)
    except ValueError:
        return Language.EN


def check_subscription(sub: Subscription, allowed_hosts: Sequence[str], loopback_for_tests: bool = False) -> Endpoint:
    """The endpoint of ``sub`` (parsed: :mod:`.endpoints`), or
    ``invalid_subscription`` unless ``sub`` is one the server will post to:
    a plain https URL on port 443 of an allowed push service host, a P-256
    public key (65 bytes, uncompressed) and a 16-byte auth secret."""

    def refuse(detail: str) -> DomainError:
        return DomainError("invalid_subscription", detail)

    try:
        endpoint = parse_endpoint(sub.endpoint, allowed_hosts, loopback_for_tests)
    except EndpointRefused as error:
        raise refuse(str(error)) from None
    try:
        point = unb64url(sub.p256dh)
        auth = unb64url(sub.auth)
    except ValueError:
        raise refuse("keys.p256dh and keys.auth are base64url") from None
    if len(point) != 65 or point[0] != 4:
        raise refuse("keys.p256dh is an uncompressed P-256 point (65 bytes)")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise refuse("keys.p256dh is not a point of P-256") from None
    if len(auth) != 16:
        raise refuse("keys.auth is 16 bytes")
    return endpoint


class PushService:
    def __init__(
        self,
        db: Database,
        presence: Presence,
        keys: VapidKeys,
        *,
        subject: str,
        allowed_hosts: Sequence[str],
        loopback_for_tests: bool = False,
        queue_size: int = 1000,
        timeout: float = 10.0,
        senders: int = 16,
        dns: AbstractResolver | None = None,
        drain: float = 5.0,
        ttl_untimed: int = 86_400,
        on_outcome: Callable[[str], None] | None = None,
    ) -> None:
        self.db = db
        self.presence = presence
        self.keys = keys
        self.subject = subject
        self.allowed_hosts = list(allowed_hosts)
        self.loopback_for_tests = loopback_for_tests
        """Tests only: also post to http(s) endpoints on a loopback address (:mod:`.endpoints`)."""
        self.sender = PushSender(keys.signer, subject, timeout=timeout, senders=senders, dns=dns)
        self.drain = drain
        """At :meth:`close`, seconds to go on sending what is queued."""
        self.ttl_untimed = ttl_untimed
        self.on_outcome = on_outcome
        """Told each push's outcome: ``sent``, ``gone``, ``failed``, ``refused``, ``dropped``, ``connected``
        (the metrics)."""
        self.queue: asyncio.Queue[Turn] = asyncio.Queue(queue_size)
        self._workers: list[asyncio.Task[None]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._sends: set[asyncio.Task[None]] = set()
        """The pushes being sent (:meth:`_deliver`)."""
        self.outcomes: dict[str, int] = {}

    @property
    def public_key(self) -> str:
        return self.keys.public_key

    # -- lifetime ----------------------------------------------------------------------------

    async def start(self) -> None:
        await self.sender.start()
        self._workers = [asyncio.create_task(self._work(), name=f"push-{i}") for i in range(WORKERS)]

    async def close(self) -> None:
        """Stop. The pushes already queued (a turn that started just before
        a deploy's restart) are sent first, for at most ``drain`` seconds;
        those still waiting then are dropped and counted, and so are the
        sends under way, cut short."""
        if self._workers and self.drain > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.drain):
                    await self.idle()
        if left := self.queue.qsize():
            log.warning("stopping: dropped %d queued turn pushes", left)
            self._count("dropped", left)
            while not self.queue.empty():
                self.queue.get_nowait()
                self.queue.task_done()
        if cut := sum(1 for task in self._sends if not task.done()):
            log.warning("stopping: cut short %d pushes being sent", cut)
            self._count("dropped", cut)
        tasks = [*self._workers, *self._tasks, *self._sends]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._workers = []
        await self.sender.close()

    async def idle(self) -> None:
        """Until every queued push has been handled (tests, benchmarks)."""
        await self.queue.join()
        if self._tasks or self._sends:  # wait, not gather: a timeout around this must not cancel them
            await asyncio.wait([*self._tasks, *self._sends])

    def _count(self, outcome: str, n: int = 1) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + n
        if self.on_outcome is not None:
            for _ in range(n):
                self.on_outcome(outcome)

    # -- subscriptions -----------------------------------------------------------------------

    async def subscribe(self, seat: Seat, sub: Subscription) -> int:
        """Store (or refresh) ``sub`` for the seat: how many it now has.
        ``invalid_subscription``, ``too_many_subscriptions``; nothing stored then."""
        check_subscription(sub, self.allowed_hosts, self.loopback_for_tests)
        for attempt in (1, 2):
            try:
                return await self._store(seat.player_id, sub)
            except IntegrityError:  # the same endpoint stored meanwhile: now an update
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _store(self, player_id: str, sub: Subscription) -> int:
        async with self.db.write() as session:
            # the seat's row locked (PostgreSQL; SQLite's writes are serial): two
            # racing subscribes cannot both take the last free place
            await session.execute(select(Player.id).where(Player.id == player_id).with_for_update())
            rows = list(
                (await session.execute(select(PushSubscription).where(PushSubscription.player_id == player_id)))
                .scalars()
                .all()
            )
            same = next((row for row in rows if row.endpoint == sub.endpoint), None)
            if same is not None:
                same.p256dh, same.auth, same.lang = sub.p256dh, sub.auth, sub.lang.value
                return len(rows)
            if len(rows) >= MAX_PER_SEAT:
                raise DomainError(
                    "too_many_subscriptions",
                    f"a seat has at most {MAX_PER_SEAT} push subscriptions; remove one first",
                )
            session.add(
                PushSubscription(
                    player_id=player_id, endpoint=sub.endpoint, p256dh=sub.p256dh, auth=sub.auth, lang=sub.lang.value
                )
            )
            return len(rows) + 1

    async def unsubscribe(self, seat: Seat, endpoint: str | None) -> int:
        """Remove the seat's subscription to ``endpoint`` (all of them without
        one); how many it still has."""
        async with self.db.write() as session:
            stmt = delete(PushSubscription).where(PushSubscription.player_id == seat.player_id)
            if endpoint is not None:
                stmt = stmt.where(PushSubscription.endpoint == endpoint)
            await session.execute(stmt)
            left = await session.execute(
                select(func.count(PushSubscription.id)).where(PushSubscription.player_id == seat.player_id)
            )
            return int(left.scalar_one())

    # -- turns starting ----------------------------------------------------------------------

    def watching(self, publisher: Publisher) -> Publisher:
        """``publisher``, and a push for each turn that starts for a seat not connected."""
        return _Watching(self, publisher)

    def turns_started(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        """Queue a push for each ``turn_started`` of a person not connected
        (in memory only: called on the action path)."""
        for event in events:
            if event["type"] == "player_left":  # a seat that left has no turns: its subscriptions go
                self._forget(event["data"]["player"]["id"])
                continue
            if event["type"] != "turn_started":
                continue
            data = event["data"]
            player_id = data["player_id"]
            player = next((p for p in room["players"] if p["id"] == player_id), None)
            if player is None or player["bot"] is not None or player["away"] or player["resigned"]:
                continue  # bots and the autopilot's seats play at once: nobody to call
            if player_id in self.presence.connected(code):
                self._count("connected")  # the player sees the turn: no push needed
                continue
            self.offer(Turn(code, player_id, event["version"], int(data["round"]), data.get("deadline")))

    def _forget(self, player_id: str) -> None:
        task = asyncio.create_task(self._delete_all(player_id), name="push-forget")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _delete_all(self, player_id: str) -> None:
        try:
            async with self.db.write() as session:
                await session.execute(delete(PushSubscription).where(PushSubscription.player_id == player_id))
        except Exception:
            log.exception("deleting the push subscriptions of a seat that left failed")

    def offer(self, turn: Turn) -> bool:
        try:
            self.queue.put_nowait(turn)
        except asyncio.QueueFull:
            log.warning("push queue full: dropped the turn push of room %s", turn.code)
            self._count("dropped")
            return False
        return True

    async def _work(self) -> None:
        while True:
            turn = await self.queue.get()
            try:
                await self.notify(turn)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the turn push of room %s failed", turn.code)
                self._count("failed")
            finally:
                self.queue.task_done()

    async def notify(self, turn: Turn) -> int:
        """Claim ``turn`` and start sending its pushes, one task each (none if
        the seat is connected by now, or another instance claimed it): how
        many were started. The worker never waits on a push service."""
        if turn.player_id in self.presence.connected(turn.code):
            return 0
        claim = (
            update(PushSubscription)
            .where(PushSubscription.player_id == turn.player_id, PushSubscription.notified_version < turn.version)
            .values(notified_version=turn.version)
            .returning(
                PushSubscription.id,
                PushSubscription.endpoint,
                PushSubscription.p256dh,
                PushSubscription.auth,
                PushSubscription.lang,
            )
            .execution_options(synchronize_session=False)
        )
        async with self.db.write() as session:
            claimed = list((await session.execute(claim)).all())
        ttl, urgency = self._lifetime(turn.deadline)
        for sub_id, endpoint, p256dh, auth, lang in claimed:
            title, body = push_text(_language(lang), turn.code, turn.round)
            payload = orjson.dumps(
                {
                    "type": "turn",
                    "room": turn.code,
                    "round": turn.round,
                    "title": title,
                    "body": body,
                    "url": f"r/{turn.code}",
                    "deadline": turn.deadline,
                }
            )
            task = asyncio.create_task(
                self._deliver(sub_id, endpoint, p256dh, auth, payload, ttl, urgency, turn.code), name="push-send"
            )
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)
        return len(claimed)

    async def _deliver(
        self, sub_id: int, text: str, p256dh: str, auth: str, payload: bytes, ttl: int, urgency: str, code: str
    ) -> None:
        """Send one push and act on its outcome. A stored endpoint is parsed
        again (one stored before the rules it breaks is refused), and an
        endpoint refused, here or by its addresses, is deleted."""
        try:
            try:
                endpoint = parse_endpoint(text, self.allowed_hosts, self.loopback_for_tests)
                status = await self.sender.send(endpoint, p256dh, auth, payload, ttl, urgency, code)
            except (EndpointRefused, NonPublicAddress) as error:
                await self._delete(sub_id)
                log.warning("push subscription refused (%s): deleted", error)
                self._count("refused")
                return
            if status in (200, 201, 202):
                self._count("sent")
            elif status in (404, 410):
                await self._delete(sub_id)
                log.info("push subscription on %s is gone (%s): deleted", endpoint.host, status)
                self._count("gone")
            else:
                log.warning("push to %s for room %s failed: %s", endpoint.host, code, status or "no answer")
                self._count("failed")
        except Exception:
            log.exception("the turn push of room %s failed", code)
            self._count("failed")

    async def _delete(self, sub_id: int) -> None:
        async with self.db.write() as session:
            await session.execute(delete(PushSubscription).where(PushSubscription.id == sub_id))

    def _lifetime(self, deadline: str | None) -> tuple[int, str]:
        """(TTL seconds, urgency): a timed turn's push lives until its deadline, urgently."""
        if deadline is None:
            return self.ttl_untimed, "normal"
        left = (datetime.fromisoformat(deadline.replace("Z", "+00:00")) - datetime.now(UTC)).total_seconds()
        return max(MIN_TTL, int(left)), "high"


class _Watching:
    def __init__(self, service: PushService, inner: Publisher) -> None:
        self.service = service
        self.inner = inner

    async def publish(self, code: str, events: Sequence[JSON], room: JSON) -> None:
        await self.inner.publish(code, events, room)
        try:
            self.service.turns_started(code, events, room)
        except Exception:  # a push must never take an action down
            log.exception("queueing the turn pushes of room %s failed", code)
