"""The load generator: rooms of real players over WebSocket (or REST), each
seat its own connection, playing complete games with random legal actions.

It records, per action, action -> ack for the actor and action -> event at
every other member of the room (the fan-out), in HDR histograms; committed
actions per second; errors by code; and it checks that every member received
every event exactly once, in order.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from hdrh.histogram import HdrHistogram

# Scale: microseconds up to 60 s, 3 significant digits.
LOWEST, HIGHEST, DIGITS = 1, 60_000_000, 3


class Histogram:
    def __init__(self) -> None:
        self.h = HdrHistogram(LOWEST, HIGHEST, DIGITS)

    def record(self, seconds: float) -> None:
        self.h.record_value(max(LOWEST, min(HIGHEST, int(seconds * 1e6))))

    def summary(self) -> dict[str, float]:
        if self.h.get_total_count() == 0:
            return {"count": 0}
        ms = lambda us: round(us / 1000, 3)  # noqa: E731
        return {
            "count": self.h.get_total_count(),
            "p50": ms(self.h.get_value_at_percentile(50)),
            "p95": ms(self.h.get_value_at_percentile(95)),
            "p99": ms(self.h.get_value_at_percentile(99)),
            "max": ms(self.h.get_max_value()),
        }


@dataclass
class Stats:
    ack: Histogram = field(default_factory=Histogram)
    fanout: Histogram = field(default_factory=Histogram)  # per member reached
    fanout_all: Histogram = field(default_factory=Histogram)  # the last member of each action
    # With several instances: members on the actor's own instance, and on another one.
    fanout_same: Histogram = field(default_factory=Histogram)
    fanout_cross: Histogram = field(default_factory=Histogram)
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    missed: int = 0  # open loop: a scheduled action found no room ready
    warmup_actions: int = 0  # played before the clock (``stagger``), in no figure but the CPU per action
    anomalies: list[str] = field(default_factory=list)
    games: int = 0
    finished: int = 0
    elapsed: float = 0.0
    steps: dict[int, Stats] = field(default_factory=dict)  # open loop: one Stats per target rate
    rate: float | None = None
    by_second: dict[int, Histogram] = field(default_factory=dict)
    """Ack latencies by the second (from the first action) their slot fell in:
    where a tail comes from, a steady spread or a few stalls."""
    clock: float | None = None

    def record_ack(self, sent: float, seconds: float) -> None:
        self.ack.record(seconds)
        if self.clock is None:
            self.clock = sent
        second = int(sent - self.clock)
        histogram = self.by_second.get(second)
        if histogram is None:
            histogram = self.by_second[second] = Histogram()
        histogram.record(seconds)

    def step(self, index: int, rate: float) -> Stats:
        if index not in self.steps:
            self.steps[index] = Stats(rate=rate)
        return self.steps[index]

    def report(self) -> dict[str, Any]:
        return {
            "actions": self.actions,
            "actions_per_s": round(self.actions / self.elapsed, 1) if self.elapsed else 0,
            "ack_ms": self.ack.summary(),
            "fanout_ms": self.fanout.summary(),
            "fanout_all_ms": self.fanout_all.summary(),
            "fanout_same_instance_ms": self.fanout_same.summary(),
            "fanout_cross_instance_ms": self.fanout_cross.summary(),
            "errors": dict(self.errors),
            "missed": self.missed,
            "warmup_actions": self.warmup_actions,
            "games": self.games,
            "games_finished": self.finished,
            "anomalies": self.anomalies[:20],
            "elapsed_s": round(self.elapsed, 2),
            "ack_p99_ms_by_second": [
                self.by_second[s].summary().get("p99") if s in self.by_second else None
                for s in range(max(self.by_second, default=-1) + 1)
            ],
            "steps": [
                {
                    "target_per_s": step.rate,
                    "actions": step.actions,
                    "ack_ms": step.ack.summary(),
                    "fanout_ms": step.fanout.summary(),
                    "fanout_all_ms": step.fanout_all.summary(),
                    "fanout_same_instance_ms": step.fanout_same.summary(),
                    "fanout_cross_instance_ms": step.fanout_cross.summary(),
                }
                for _, step in sorted(self.steps.items())
            ],
        }


class Member:
    """One socket in a room: a seat (token) or a spectator; ``local``, the
    loopback address the socket comes from (default: the system's choice)."""

    def __init__(self, url: str, token: str | None, player_id: str | None, local: str | None = None) -> None:
        self.url = url
        self.token = token
        self.player_id = player_id
        self.local = local
        self.versions: list[int] = []
        self.received: dict[int, float] = {}
        self.room: dict[str, Any] | None = None
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.changed = asyncio.Event()
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.instance = url.split("/api/", 1)[0]

    async def connect(self, after: int | None = None) -> None:
        source: dict[str, Any] = {"local_addr": (self.local, 0)} if self.local else {}
        self.ws = await websockets.connect(self.url, max_size=None, compression=None, open_timeout=30, **source)
        hello: dict[str, Any] = {"type": "hello", "token": self.token}
        if after is not None:
            hello["after"] = after
        await self.ws.send(json.dumps(hello))
        welcome = json.loads(await asyncio.wait_for(self.ws.recv(), 30))
        if welcome["type"] != "welcome":
            raise RuntimeError(f"no welcome: {welcome}")
        if self.room is None or (welcome["room"] or {}).get("version", 0) > self.room.get("version", 0):
            self.room = welcome["room"] if after is None else self.room
        self.reader = asyncio.create_task(self._read(self.ws))

    async def _read(self, ws: Any) -> None:
        try:
            async for raw in ws:
                now = time.perf_counter()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "event":
                    version = message["event"]["version"]
                    self.versions.append(version)
                    self.received.setdefault(version, now)
                    if message.get("room") is not None:
                        self.room = message["room"]
                    self.changed.set()
                elif kind in ("ack", "error") and message.get("id") in self.replies:
                    self.replies.pop(message["id"]).set_result(message)
        except websockets.ConnectionClosed:
            pass

    async def wait_for(self, version: int, timeout: float = 60.0) -> None:
        async with asyncio.timeout(timeout):
            while version not in self.received:
                self.changed.clear()
                await self.changed.wait()

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[action["id"]] = future
        await self.ws.send(json.dumps({"type": "action", "action": action}))
        return await asyncio.wait_for(future, 60)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await self.reader

    def check(self, first: int, last: int) -> str | None:
        """None if every version first..last arrived once and in order."""
        seen = [v for v in self.versions if first <= v <= last]
        if seen != list(range(first, last + 1)):
            return f"{self.player_id or 'spectator'}: expected {first}..{last}, got {len(seen)} events"
        return None


def choose(room: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action for the player whose turn it is."""
    turn = room["game"]["turn"]
    if turn["dice"] is None:
        return {"type": "roll"}
    options: list[dict[str, Any]] = [{"type": "score", "box": rng.choice(sorted(turn["scorable"]))}]
    if turn["rolls_left"]:
        keep = [i for i in range(5) if rng.random() < 0.5]
        options += [{"type": "roll"}, {"type": "roll", "keep": keep}, {"type": "keep", "dice": keep}]
    return rng.choice(options)


class Pacer:
    """Open loop: action slots at a target rate (ramped in steps). An action's
    latency counts from its slot, so a server falling behind shows up in the
    figures instead of slowing the generator down (no coordinated omission)."""

    def __init__(self, rates: list[float], step: float) -> None:
        self.rates = rates
        self.step = step
        self.slots: asyncio.Queue[tuple[float, int]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.done = False

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        start = time.perf_counter()
        for index, rate in enumerate(self.rates):
            end = start + self.step
            slot = start
            while slot < end:
                delay = slot - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                self.slots.put_nowait((slot, index))
                slot += 1 / rate
            start = end
        self.done = True

    async def take(self, stats: Stats) -> tuple[float, int] | None:
        """The next slot (its time and step), or None when the ramp is over."""
        while True:
            if self.done and self.slots.empty():
                return None
            try:
                slot, index = await asyncio.wait_for(self.slots.get(), 0.5)
            except TimeoutError:
                continue
            if time.perf_counter() - slot > 1.0:  # nobody was ready for it
                stats.missed += 1
                stats.step(index, self.rates[index]).missed += 1
                continue
            return slot, index


@dataclass
class Room:
    code: str
    seats: dict[str, Member]
    spectators: list[Member]
    tokens: dict[str, str]
    # The room's own REST client when its members come from an address of their own.
    http: httpx.AsyncClient | None = None
    # (version of the action's first event, when it was sent), for every acked action:
    # the fan-out to sockets outside this generator (bench/hostile.py's watchers).
    sent: list[tuple[int, float]] = field(default_factory=list)
    numbered: int = 0  # actions sent so far, for their ids (unique across calls of play)

    @property
    def members(self) -> list[Member]:
        return [*self.seats.values(), *self.spectators]


async def make_room(
    http: httpx.AsyncClient,
    urls: list[str],
    seats: int,
    spectators: int,
    ruleset: str,
    baseline: bool,
    local: str | None = None,
) -> Room:
    """Create a room with its seats (REST) and open every member's socket, the
    members spread over the instances in ``urls`` round-robin; with ``local``,
    every socket comes from that address (``http`` should too)."""
    if baseline:
        code = f"B{random.getrandbits(40):010x}"
        members = {
            f"p{i}": Member(f"{urls[i % len(urls)]}/api/rooms/{code}/ws", None, f"p{i}", local) for i in range(seats)
        }
        tokens: dict[str, str] = {}
    else:
        r = await http.post("/api/rooms", json={"ruleset": ruleset, "name": "P0", "max_players": seats})
        if r.status_code != 201:
            raise RuntimeError(f"room not created: {r.status_code} {r.text[:200]}")
        created = r.json()
        code = created["room"]["code"]
        tokens = {created["player"]["id"]: created["token"]}
        for i in range(1, seats):
            r = await http.post(f"/api/rooms/{code}/players", json={"name": f"P{i}"})
            if r.status_code != 201:
                raise RuntimeError(f"seat not taken: {r.status_code} {r.text[:200]}")
            joined = r.json()
            tokens[joined["player"]["id"]] = joined["token"]
        members = {
            pid: Member(f"{urls[i % len(urls)]}/api/rooms/{code}/ws", token, pid, local)
            for i, (pid, token) in enumerate(tokens.items())
        }
    watchers = [
        Member(f"{urls[(seats + i) % len(urls)]}/api/rooms/{code}/ws", None, None, local) for i in range(spectators)
    ]
    room = Room(code, members, watchers, tokens, http if local else None)
    await asyncio.gather(*(m.connect() for m in room.members))
    return room


async def start_game(room: Room, http: httpx.AsyncClient) -> dict[str, Any]:
    """Start the room's game (REST) and wait until every member has seen it."""
    host_token = next(iter(room.tokens.values()))
    r = await http.post(f"/api/rooms/{room.code}/games", headers={"authorization": f"Bearer {host_token}"})
    if r.status_code != 201:
        raise RuntimeError(f"game not started: {r.status_code} {r.text[:200]}")
    started: dict[str, Any] = r.json()
    for member in room.members:
        await member.wait_for(started["version"])
    return started


async def play(
    room: Room,
    started: dict[str, Any] | None,
    stats: Stats,
    rng: random.Random,
    pacer: Pacer | None,
    http: httpx.AsyncClient,
    mode: str,
    baseline_actions: int | None,
    rematch: bool = False,
    limit: int | None = None,
) -> dict[str, Any] | None:
    """Play the room's game, ``started`` (the room after its start), to the
    end; or, with no game (the baseline), ``baseline_actions`` echo actions.
    With ``rematch`` (open loop only), a finished game is followed by a new
    one until the ramp is over; with ``limit``, play stops after that many
    actions. Returns the room as of the last action."""
    if started is not None:
        state = started
        first = started["version"] - 1
    else:
        state, first = None, 1
    stats.games += 1
    done = 0
    while limit is None or done < limit:
        if baseline_actions is not None:
            if done >= baseline_actions:
                break
            actor = list(room.seats.values())[done % len(room.seats)]
            action: dict[str, Any] = {"type": "roll"}
            previous = done
        else:
            assert state is not None
            if state["game"]["status"] == "finished":
                stats.finished += 1
                if rematch and pacer is not None and not pacer.done:
                    state = await start_game(room, http)
                    stats.games += 1
                    continue
                break
            actor = room.seats[state["game"]["turn"]["player_id"]]
            action = choose(state, rng)
            previous = state["version"]
        taken = await pacer.take(stats) if pacer is not None else None
        if pacer is not None and taken is None:
            break
        slot = taken[0] if taken is not None else None
        step = stats.step(taken[1], pacer.rates[taken[1]]) if taken is not None and pacer is not None else None
        room.numbered += 1
        action["id"] = f"{room.code}-{room.numbered}"
        sent = slot if slot is not None else time.perf_counter()
        if mode == "rest" and baseline_actions is None:
            token = room.tokens[actor.player_id or ""]
            r = await http.post(
                f"/api/rooms/{room.code}/actions", json=action, headers={"authorization": f"Bearer {token}"}
            )
            reply = r.json() | {"type": "ack" if r.status_code == 200 else "error"}
        else:
            reply = await actor.act(action)
        acked = time.perf_counter()
        if reply["type"] != "ack":
            stats.errors[reply.get("code", "unknown")] += 1
            state = actor.room or state
            if reply.get("code") == "rate_limited":  # rate limits on (bench.run hostile): 5 retries/s at most,
                await asyncio.sleep(0.2)  # well under the flood limit of 40 messages/s per socket
            continue
        stats.record_ack(sent, acked - sent)
        stats.actions += 1
        if step is not None:
            step.ack.record(acked - sent)
            step.actions += 1
        version = reply["version"]
        room.sent.append((previous + 1, sent))
        await asyncio.gather(*(m.wait_for(version) for m in room.members))
        others = [m for m in room.members if m is not actor]
        lags = [m.received[previous + 1] - sent for m in others]
        for member, lag in zip(others, lags, strict=True):
            stats.fanout.record(lag)
            if step is not None:
                step.fanout.record(lag)
            if len({m.instance for m in room.members}) > 1:
                same = member.instance == actor.instance
                (stats.fanout_same if same else stats.fanout_cross).record(lag)
                if step is not None:
                    (step.fanout_same if same else step.fanout_cross).record(lag)
        if lags:
            stats.fanout_all.record(max(lags))
            if step is not None:
                step.fanout_all.record(max(lags))
        done += 1
        if baseline_actions is None:
            state = reply.get("room") or actor.room
            if state is None or state["version"] < version:
                await actor.wait_for(version)
                state = actor.room
    last = max(max(m.versions) for m in room.members) if any(m.versions for m in room.members) else 0
    for member in room.members:
        problem = member.check(first, last)
        if problem:
            stats.anomalies.append(f"room {room.code}: {problem}")
    return state


async def run_games(
    urls: list[str],
    rooms: int,
    seats: int,
    spectators: int = 0,
    ruleset: str = "yacht",
    mode: str = "ws",
    rates: list[float] | None = None,
    step: float = 10.0,
    baseline_actions: int | None = None,
    seed: int = 1,
    address: Callable[[int], str] | None = None,
    rematch: bool = False,
    during: Callable[[list[Room]], AbstractAsyncContextManager[Any]] | None = None,
    stagger: int = 0,
) -> Stats:
    """Create the rooms, then play every game at once (closed loop, or open
    loop at ``rates`` actions/s, each for ``step`` seconds).

    ``address(i)``: the loopback address room ``i``'s REST calls and sockets
    come from (each room gets its own REST client), so that a server with
    per-address limits on sees many clients. ``rematch``: open loop, a
    finished game is followed by another until the ramp ends. ``during``: a
    context entered with the rooms once every game has started, before the
    clock, and left when play ends (bench/hostile.py). ``stagger``: before
    the clock, each room plays a random 0 to ``stagger - 1`` actions of its
    game, unmeasured, so that the games do not all end (and the next ones
    start) in the same few seconds, as they never would on a real server."""
    ws_urls = [u.replace("http://", "ws://") for u in urls]
    stats = Stats()
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    own: list[httpx.AsyncClient] = []

    def client(i: int, shared: httpx.AsyncClient) -> httpx.AsyncClient:
        if address is None:
            return shared
        # A connection per request: a room's few calls are seconds apart, and a
        # kept-alive connection the server times out meanwhile (uvicorn: 5 s)
        # can close just as a request goes out ("disconnected without a response").
        transport = httpx.AsyncHTTPTransport(local_address=address(i), limits=httpx.Limits(max_keepalive_connections=0))
        own.append(httpx.AsyncClient(base_url=urls[0], transport=transport, timeout=60))
        return own[-1]

    async with httpx.AsyncClient(base_url=urls[0], limits=limits, timeout=60) as http:
        try:
            made: list[Room] = []
            for i in range(0, rooms, 20):
                made += await asyncio.gather(
                    *(
                        make_room(
                            client(j, http),
                            ws_urls,
                            seats,
                            spectators,
                            ruleset,
                            baseline_actions is not None,
                            address(j) if address is not None else None,
                        )
                        for j in range(i, min(i + 20, rooms))
                    )
                )
            # Every game starts before the clock does: the measured run is play alone.
            games: list[dict[str, Any] | None] = [None] * len(made)
            if baseline_actions is None:
                games = list(await asyncio.gather(*(start_game(room, room.http or http) for room in made)))
            if stagger and baseline_actions is None:
                shuffle = random.Random(seed)
                warmup = Stats()
                games = list(
                    await asyncio.gather(
                        *(
                            play(
                                room,
                                game,
                                warmup,
                                random.Random(seed * 7 + i),
                                None,
                                room.http or http,
                                mode,
                                None,
                                limit=shuffle.randrange(stagger),
                            )
                            for i, (room, game) in enumerate(zip(made, games, strict=True))
                        )
                    )
                )
                stats.warmup_actions = warmup.actions
                stats.anomalies += warmup.anomalies
                await asyncio.sleep(1.0)  # the seats' per-second action budgets refill
            pacer = Pacer(rates, step) if rates else None
            async with during(made) if during is not None else nullcontext():
                # The generator's own collector pauses would count as the server's
                # latency (measured: gen-2 pauses of 100 ms here): no cyclic
                # collection while the clock runs; the garbage waits for the end.
                gc.collect()
                gc.freeze()
                gc.disable()
                started = time.perf_counter()
                if pacer is not None:
                    pacer.start()
                try:
                    await asyncio.gather(
                        *(
                            play(
                                room,
                                game,
                                stats,
                                random.Random(seed * 1000 + i),
                                pacer,
                                room.http or http,
                                mode,
                                baseline_actions,
                                rematch,
                            )
                            for i, (room, game) in enumerate(zip(made, games, strict=True))
                        )
                    )
                finally:
                    gc.enable()
                    gc.unfreeze()
                stats.elapsed = time.perf_counter() - started
                if pacer is not None and pacer.task is not None:
                    pacer.task.cancel()
            await asyncio.gather(*(m.close() for room in made for m in room.members))
        finally:
            for own_client in own:
                await own_client.aclose()
    return stats
