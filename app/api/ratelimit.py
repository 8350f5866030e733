"""Rate limits and abuse caps (the moving windows of ``app.api.windows``).

Per seat for actions and for chat; per client address for REST requests, failed room
lookups (room-code probing) and room creation, shared through Redis across
instances when Redis is configured (else kept in the process); per socket
for the WebSocket flood guard and per address for open sockets and oversize
frames (all local to the instance: a socket lives on one instance). ``DICECUP_RATE_LIMITS=false``
turns all of them off (benchmarks, tests); the per-room spectator cap is the
hub's and stays on.

A request takes its windows in one call (one Redis round trip): a REST
request naming a room counts against its address's request budget and
reserves one of its failed lookups at once (a sign-in likewise reserves a
failed sign-in, handed back when the password is right); the reservation is handed back
when the room is found (:meth:`RateLimits.lookup_found`, or with the seat's
action budget for an action), so concurrent probes from one address never
get past the budget.

Refusals carry ``retry_after``: the seconds until the window lets the
client in again (the ``Retry-After`` header of a 429).

When the shared windows do not answer (Redis down), ``DICECUP_RATE_LIMITS_FAIL``
decides: ``open`` (the default) lets the request through, so an outage of
Redis never takes the game down; ``closed`` refuses it with 503
``rate_limiter_unavailable``, so no budget is ever exceeded. Either way the
outage is logged (once every :data:`WARN_EVERY` seconds at most).
"""

from __future__ import annotations

import logging
import time
from collections import Counter

from app.config import Settings
from app.rooms import DomainError

from .gate import Gate
from .proxies import limit_key, trusted_peers
from .windows import LocalWindows, RedisWindows, Step, Window, Windows

log = logging.getLogger("dicecup.api")

HOUR = 3600.0
UNAVAILABLE_RETRY = 5
"""Seconds a request refused because the shared limiter is down is told to wait (fail closed)."""
WARN_EVERY = 10.0
"""Seconds between two log lines about the shared limiter being down."""

_DETAIL = {
    "action": "too many actions; slow down",
    "chat": "too many chat messages; slow down",
    "request": "too many requests from this address",
    "lookup": "too many unknown room codes from this address",
    "room": "too many rooms created from this address",
    "profile": "too many profiles made from this address",
    **{
        f"sign-in-pair-{span}": "too many failed sign-ins for this username from this address; try again later"
        for span in ("1m", "10m", "1h", "1d")
    },
    "sign-in-address": "too many failed sign-ins; try again later",
    "signed-in-user": "too many sign-ins for this username; try again later",
    "signed-in-address": "too many sign-ins from this address; try again later",
    "credentials-profile": "too many username or password changes for this profile; try again later",
    "credentials-address": "too many username or password changes from this address; try again later",
    "push": "too many push subscription changes for this seat; slow down",
}


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.enabled = settings.rate_limits
        self.fail_closed = settings.rate_limits_fail == "closed"
        self._warned_at = -WARN_EVERY
        self._unwarned = 0
        self._local = LocalWindows()
        self._shared: Windows = RedisWindows(settings.redis_url) if settings.redis_url else self._local
        self._action = Window("action", settings.actions_per_second, 1.0)
        self._request = Window("request", settings.requests_per_minute, 60.0)
        self._chat = Window("chat", settings.chat_per_minute, 60.0)
        self._message = Window("ws", settings.ws_messages_per_second, 1.0)
        self._lookup = Window("lookup", settings.lookup_failures_per_minute, 60.0)
        self._room = Window("room", settings.rooms_per_hour, HOUR)
        self._profile = Window("profile", settings.profiles_per_hour, HOUR)
        # failed sign-ins per (address, username): a ladder of windows, so the waits grow as failures go on
        first = settings.sign_in_failures_per_minute
        self._sign_in_ladder = [
            Window(f"sign-in-pair-{name}", first * times, seconds)
            for name, times, seconds in (("1m", 1, 60.0), ("10m", 2, 600.0), ("1h", 4, HOUR), ("1d", 8, 24 * HOUR))
        ]
        self._sign_in_address = Window("sign-in-address", settings.sign_in_failures_per_address, HOUR)
        self._signed_in_user = Window("signed-in-user", settings.sign_ins_per_hour, HOUR)
        self._signed_in_address = Window("signed-in-address", settings.sign_ins_per_hour, HOUR)
        self._credentials_profile = Window("credentials-profile", settings.credential_changes_per_hour, HOUR)
        self._credentials_address = Window("credentials-address", settings.credential_changes_per_hour, HOUR)
        self._push = Window("push", settings.push_subscriptions_per_minute, 60.0)
        self._sockets_per_address = settings.sockets_per_address
        self._sockets: Counter[str] = Counter()
        self._oversize = Window("oversize", settings.oversize_frames_per_minute, 60.0)
        self._refused = Window("refused", settings.refusals_per_minute, 60.0)
        self._gate = Gate()
        # the windows keyed by a client's address: a refusal of one is a strike against the address
        self._per_address = {w.name for w in (self._request, self._lookup, self._room, self._profile)}
        self._proxies = trusted_peers(settings.trusted_proxy_list)

    async def _take(self, *steps: Step) -> None:
        """Take ``steps`` in one call; ``rate_limited`` (with ``retry_after``) at the first refused one."""
        if not self.enabled:
            return
        try:
            refused = await self._shared.take(steps)
        except Exception as error:
            # handing back a reservation refuses nothing, whichever way the limiter fails
            self._unavailable(error, refuse=any(step.op != "refund" for step in steps))
            return
        if refused is not None:
            if refused.step.window.name in self._per_address:
                self.refused(refused.step.key)
            raise DomainError("rate_limited", _DETAIL[refused.step.window.name], retry_after=refused.retry_after)

    def _unavailable(self, error: Exception, refuse: bool = True) -> None:
        """The shared windows did not answer: refused (fail closed) or let through
        (fail open, so that a Redis outage never takes the game down); logged."""
        self._unwarned += 1
        now = time.monotonic()
        if now - self._warned_at >= WARN_EVERY:
            how = "refusing with 503 (DICECUP_RATE_LIMITS_FAIL=closed)" if self.fail_closed else "allowing"
            more = f"; {self._unwarned - 1} more since the last line" if self._unwarned > 1 else ""
            log.warning("rate limiter unavailable (%r); %s%s", error, how, more)
            self._warned_at, self._unwarned = now, 0
        if self.fail_closed and refuse:
            raise DomainError(
                "rate_limiter_unavailable",
                "the rate limiter does not answer, and this server refuses what it cannot count; try again shortly",
                retry_after=UNAVAILABLE_RETRY,
            )

    async def close(self) -> None:
        await self._shared.close()

    async def check_action(self, player_id: str, found_for: str | None = None) -> None:
        """``rate_limited`` when a seat acts faster than the configured rate;
        ``found_for``: the address whose lookup reservation this request holds
        (handed back in the same call)."""
        await self._per_seat(self._action, player_id, found_for)

    async def check_chat(self, player_id: str, found_for: str | None = None) -> None:
        """``rate_limited`` past ``chat_per_minute`` chat messages and reactions
        from one seat (its own budget, apart from the actions'); ``found_for``
        as for :meth:`check_action`."""
        await self._per_seat(self._chat, player_id, found_for)

    async def _per_seat(self, window: Window, player_id: str, found_for: str | None) -> None:
        """One off the seat's ``window``, and the address's lookup reservation
        handed back in the same call when ``found_for`` holds one."""
        hit = Step("hit", window, player_id)
        if found_for is None:
            await self._take(hit)
        else:
            await self._take(Step("refund", self._lookup, found_for), hit)

    async def check_request(self, client: str, names_room: bool = False) -> None:
        """One off the address's request budget; for a request naming a room
        (``names_room``) also one of its failed lookups, reserved: the caller
        hands it back once the room is found (:meth:`lookup_found`)."""
        request = Step("hit", self._request, client)
        if names_room:
            await self._take(request, Step("hit", self._lookup, client))
        else:
            await self._take(request)

    async def check_room_creation(self, client: str) -> None:
        """``rate_limited`` past ``rooms_per_hour`` rooms created from one address."""
        await self._take(Step("hit", self._room, client))

    async def check_profile_creation(self, client: str) -> None:
        """``rate_limited`` past ``profiles_per_hour`` profiles created from one address."""
        await self._take(Step("hit", self._profile, client))

    async def check_push(self, player_id: str) -> None:
        """``rate_limited`` past ``push_subscriptions_per_minute`` subscription changes by one seat."""
        await self._take(Step("hit", self._push, player_id))

    # -- sign-in guessing ---------------------------------------------------------------------

    def _sign_in_steps(self, client: str, username: str) -> tuple[list[Step], list[Step]]:
        """(the failure steps, the success steps) of one sign-in."""
        pair = f"{client} {username}"
        failures = [Step("hit", window, pair) for window in self._sign_in_ladder]
        failures.append(Step("hit", self._sign_in_address, client))
        successes = [Step("hit", self._signed_in_user, username), Step("hit", self._signed_in_address, client)]
        return failures, successes

    async def reserve_sign_in(self, client: str, username: str) -> None:
        """``rate_limited`` while this address has used up its failed sign-ins
        for this username (a ladder of windows: the waits grow as failures go
        on, and another address is not held back), or its failed sign-ins
        overall, or the sign-ins per username or address; else one failure
        and one success are reserved on every budget before the password is
        checked: :meth:`sign_in_succeeded` or :meth:`sign_in_failed` hands
        back the one that did not happen. Reserved before the check, so
        concurrent guesses cannot overshoot a budget."""
        if not self.enabled:
            return
        failures, successes = self._sign_in_steps(client, username)
        steps = failures + successes
        try:
            refused = await self._shared.take(steps)
            if refused is not None:  # the steps before the refused one were taken: hand them back
                taken = steps[: steps.index(refused.step)]
                if taken:
                    await self._shared.take([Step("refund", step.window, step.key) for step in taken])
        except Exception as error:
            self._unavailable(error)
            return
        if refused is not None:
            raise DomainError("rate_limited", _DETAIL[refused.step.window.name], retry_after=refused.retry_after)

    async def _hand_back(self, steps: list[Step]) -> None:
        await self._take(*(Step("refund", step.window, step.key) for step in steps))

    async def sign_in_succeeded(self, client: str, username: str) -> None:
        """The reserved sign-in was right: it is no failure (it stays a sign-in)."""
        await self._hand_back(self._sign_in_steps(client, username)[0])

    async def sign_in_failed(self, client: str, username: str) -> None:
        """The reserved sign-in was wrong: it is no sign-in (it stays a failure)."""
        await self._hand_back(self._sign_in_steps(client, username)[1])

    async def sign_in_not_checked(self, client: str, username: str) -> None:
        """The password could not be checked (``server_busy``): neither counts."""
        failures, successes = self._sign_in_steps(client, username)
        await self._hand_back(failures + successes)

    async def check_credentials_change(self, profile_id: str, client: str) -> None:
        """``rate_limited`` past ``credential_changes_per_hour`` changes by one profile or from one address
        (each attempt counts, a ``username_taken`` answer too: the taken-username oracle is throttled)."""
        await self._take(
            Step("hit", self._credentials_profile, profile_id), Step("hit", self._credentials_address, client)
        )

    # -- room-code probing -----------------------------------------------------------------

    async def reserve_lookup(self, client: str) -> None:
        """``rate_limited`` while the address has used up its budget of failed
        room lookups (``lookup_failures_per_minute``), else one of them is
        reserved for the lookup about to be made: hand it back with
        :meth:`lookup_found` if the room exists. Reserved before the lookup,
        so concurrent lookups from one address cannot overshoot the budget."""
        await self._take(Step("hit", self._lookup, client))

    async def lookup_found(self, client: str) -> None:
        """The reserved lookup found its room: it does not count."""
        await self._take(Step("refund", self._lookup, client))

    # -- sockets ---------------------------------------------------------------------------

    def allow_message(self, socket_id: int) -> bool:
        """The flood guard: false past ``ws_messages_per_second`` on one socket."""
        return not self.enabled or self._local.hit(self._message, str(socket_id))

    def open_socket(self, client: str) -> bool:
        """Count a new socket from ``client``; false (and not counted) past ``sockets_per_address``."""
        if self.enabled and self._sockets[client] >= self._sockets_per_address:
            return False
        self._sockets[client] += 1
        return True

    def close_socket(self, client: str) -> None:
        self._sockets[client] -= 1
        if self._sockets[client] <= 0:
            del self._sockets[client]

    def oversize_frame(self, client: str) -> None:
        """``client`` sent a frame or message over the size limit (closed 1009): a strike."""
        self._strike(self._oversize, client, "too many frames over the size limit")

    def refused(self, client: str) -> None:
        """``client`` was refused for an address budget (429, close 4429): a
        strike. A client that waits out ``Retry-After`` gets a few; one that
        keeps knocking (a prober) soon has its connections dropped."""
        self._strike(self._refused, client, "too many requests refused for its budgets")

    def _strike(self, window: Window, client: str, why: str) -> None:
        """One strike; the strike that uses up the minute's budget closes the gate on the address (:mod:`.gate`)."""
        if not self.enabled:
            return
        self._local.hit(window, client)
        if self._local.take_now((Step("test", window, client),)) is not None:
            self._gate.close(client, why)

    def dropping(self, client: str) -> int | None:
        """Seconds until ``client`` may connect again, while the gate is
        closed on it (:mod:`.gate`: a few seconds the first time it used up
        its minute's budget of oversize frames or of refusals, longer if it
        keeps doing so); ``None`` if it may connect now."""
        if not self.enabled:
            return None
        return self._gate.closed(client)

    def drop_connection(self, peer: str) -> bool:
        """The edge's check on a new TCP connection from ``peer``, before it
        reads a byte (``app.api.edge``): true while the peer (its /64, for
        IPv6) is :meth:`dropping`, unless it is a trusted proxy (its
        connections carry other clients; those are refused after the
        handshake's headers)."""
        return self.dropping(limit_key(peer)) is not None and peer not in self._proxies

    def forget_socket(self, socket_id: int) -> None:
        """A closed socket's flood-guard window goes at once (not a second later)."""
        self._local.forget(self._message, str(socket_id))
