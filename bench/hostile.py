"""The hostile clients of ``python -m bench.run hostile``, in processes of
their own so that their work never stalls the players' event loop (the
machine's cores are still shared, as a real server's would be):

- **oversize**: sockets that open one of the played rooms and, without a
  hello, send a 1 MiB frame; when the server closes them they wait
  ``pause`` seconds and connect again. Expected: close 1009, and once an
  address is past its minute's budget of such frames, ``dropped`` (the
  server aborts its connections before answering).
- **probes**: clients that guess room codes, alternating
  ``GET /api/rooms/<code>`` and a socket to ``/api/rooms/<code>/ws`` (with a
  spectator's hello), back to back while the server answers "no such room"
  (404, close 4404); refused (429, close 4429), each waits ``pause`` seconds
  (whatever ``Retry-After`` says; the values seen are reported).
- **watchers**: spectators of the played rooms, spread evenly and never more
  than the per-room cap; one that is closed as too slow (1013) or by a
  restart (1012) resumes with ``after``. Each records when each event
  arrived, for the fan-out to watchers, and checks that versions come once
  and in order.

Every kind comes from loopback addresses of its own (Linux routes the whole
127.0.0.0/8 to loopback): the players and watchers from many, so they stay
under the server's per-address limits; the oversize sockets and the probes
from a few each (``addresses``), so they meet them.

The parent (bench/run.py) starts :func:`child` in two spawned processes (the
watchers; the oversize sockets and probes) with a :class:`Config` each,
waits for ``("ready", ...)``, runs the players, then sends ``"stop"`` and
receives the counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import re
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from .loadgen import Histogram, Room
from .servers import Server, process_cpu_s

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # app.rooms.secrets: a probe looks like a real code
WATCHERS_PER_ADDRESS = 10  # well under the server's sockets_per_address (20)
_VERSION = re.compile(r'^\{"type":"event","event":\{"version":(\d+)')


def player_address(phase: int, room: int) -> str:
    """The address of a played room's REST calls and sockets: one per room
    and phase (so at most one room created per address and phase)."""
    return f"127.{10 + phase}.{room // 250}.{room % 250 + 1}"


def watcher_address(index: int) -> str:
    group = index // WATCHERS_PER_ADDRESS
    return f"127.20.{group // 250}.{group % 250 + 1}"


def oversize_address(index: int, addresses: int) -> str:
    return f"127.30.0.{index % addresses + 1}"


def probe_address(index: int, addresses: int) -> str:
    return f"127.31.0.{index % addresses + 1}"


@dataclass
class Config:
    http: str  # http://127.0.0.1:port
    codes: list[str]  # the played rooms
    watchers: int = 500
    per_room_cap: int = 50  # watchers per room at most (the server's spectators_per_room, less the run's own)
    oversize: int = 100
    frame_bytes: int = 1 << 20
    probes: int = 100
    addresses: int = 4  # of each hostile kind
    pause: float = 1.0  # after a refusal or close, before the next try
    warmup: float = 3.0  # seconds of attack before the players' clock starts
    seed: int = 7
    nice: int = 0  # added to the hostile processes' nice value (see bench/README.md, "hostile")


@dataclass
class Outcomes:
    """What the server answered, by kind of client, and how often."""

    oversize: Counter[str] = field(default_factory=Counter)
    probe_ws: Counter[str] = field(default_factory=Counter)
    probe_rest: Counter[str] = field(default_factory=Counter)
    watchers: Counter[str] = field(default_factory=Counter)
    retry_after: Counter[str] = field(default_factory=Counter)
    frames_sent: int = 0
    started: float = 0.0


def _closed(ws: Any) -> str:
    code = ws.close_code
    return f"close {code}" if code is not None else "close (none)"


DROPPED = "dropped"  # the server's edge aborted the connection before answering (app.api.edge)


def _failed(error: BaseException) -> str:
    if isinstance(error, InvalidStatus):
        return f"http {error.response.status_code}"
    if isinstance(error, ConnectionClosed):
        return f"close {error.rcvd.code}" if error.rcvd is not None else "close 1006"
    if isinstance(error, InvalidMessage | ConnectionResetError | httpx.RemoteProtocolError | httpx.ReadError):
        # no HTTP answer at all: an address past its budget of oversize frames or
        # refusals is cut off when it connects (websockets says InvalidMessage, the
        # connection closed while it read the status line)
        return DROPPED
    return f"error {type(error).__name__}"


async def _connect(url: str, local: str, **options: Any) -> Any:
    return await websockets.connect(
        url,
        local_addr=(local, 0),
        compression=None,
        max_size=None,
        open_timeout=15,
        close_timeout=3,
        ping_interval=None,
        proxy=None,
        **options,
    )


async def oversize_socket(config: Config, index: int, out: Outcomes, stop: asyncio.Event) -> None:
    ws_base = config.http.replace("http://", "ws://")
    local = oversize_address(index, config.addresses)
    frame = "x" * config.frame_bytes
    rooms = config.codes or ["NOROOM"]
    n = index
    while not stop.is_set():
        n += 1
        url = f"{ws_base}/api/rooms/{rooms[n % len(rooms)]}/ws"
        try:
            ws = await _connect(url, local)
        except Exception as error:
            out.oversize[_failed(error)] += 1
        else:
            try:
                out.frames_sent += 1
                await ws.send(frame)  # no hello: the first message is the frame
                await asyncio.wait_for(ws.wait_closed(), 15)
                out.oversize[_closed(ws)] += 1
            except TimeoutError:
                out.oversize["not closed within 15 s"] += 1
            except ConnectionClosed:
                out.oversize[_closed(ws)] += 1
            except Exception as error:
                out.oversize[_failed(error)] += 1
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 5)
        await asyncio.sleep(config.pause)


async def probe(config: Config, index: int, out: Outcomes, stop: asyncio.Event) -> None:
    ws_base = config.http.replace("http://", "ws://")
    local = probe_address(index, config.addresses)
    rng = random.Random(config.seed * 7919 + index)
    transport = httpx.AsyncHTTPTransport(local_address=local)
    async with httpx.AsyncClient(base_url=config.http, transport=transport, timeout=15) as http:
        use_socket = index % 2 == 0
        while not stop.is_set():
            code = "".join(rng.choice(CODE_ALPHABET) for _ in range(6))
            if use_socket:
                try:
                    ws = await _connect(f"{ws_base}/api/rooms/{code}/ws", local)
                except Exception as error:
                    outcome = _failed(error)
                else:
                    with contextlib.suppress(ConnectionClosed):
                        await ws.send(json.dumps({"type": "hello", "token": None}))
                    try:
                        await asyncio.wait_for(ws.wait_closed(), 15)
                        outcome = _closed(ws)
                    except TimeoutError:
                        outcome = "not closed within 15 s"
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(ws.close(), 5)
                out.probe_ws[outcome] += 1
                refused = outcome != "close 4404"
            else:
                try:
                    r = await http.get(f"/api/rooms/{code}")
                    outcome = f"http {r.status_code}"
                    if r.status_code == 429:
                        out.retry_after[r.headers.get("retry-after", "(none)")] += 1
                except Exception as error:
                    outcome = _failed(error)
                out.probe_rest[outcome] += 1
                refused = outcome != "http 404"
            use_socket = not use_socket
            if refused:
                await asyncio.sleep(config.pause)


class Watcher:
    """A spectator socket that records when each event arrives."""

    def __init__(self, config: Config, code: str, index: int) -> None:
        self.url = f"{config.http.replace('http://', 'ws://')}/api/rooms/{code}/ws"
        self.code = code
        self.local = watcher_address(index)
        self.pause = config.pause
        self.last: int | None = None
        self.times: list[tuple[int, float]] = []
        self.gaps = 0  # a version that was not last + 1
        self.ws: Any = None

    async def open(self, out: Outcomes) -> bool:
        """Connect and get the welcome; False (counted) if the server refused."""
        try:
            self.ws = await _connect(self.url, self.local, max_queue=None)
            hello: dict[str, Any] = {"type": "hello", "token": None}
            if self.last is not None:
                hello["after"] = self.last
            await self.ws.send(json.dumps(hello))
            welcome = json.loads(await asyncio.wait_for(self.ws.recv(), 15))
        except ConnectionClosed:
            out.watchers[_closed(self.ws)] += 1
            return False
        except Exception as error:
            out.watchers[_failed(error)] += 1
            return False
        if welcome.get("type") != "welcome":
            out.watchers[f"no welcome: {welcome.get('code')}"] += 1
            with contextlib.suppress(Exception):
                await self.ws.close()
            return False
        if self.last is None:
            self.last = welcome["room"]["version"]
        out.watchers["welcome"] += 1
        return True

    async def watch(self, out: Outcomes, stop: asyncio.Event) -> None:
        while True:
            try:
                async for raw in self.ws:
                    now = time.perf_counter()
                    found = _VERSION.match(raw)
                    if found is not None:
                        version = int(found[1])
                    else:
                        message = json.loads(raw)
                        if message.get("type") != "event":
                            continue
                        version = message["event"]["version"]
                    if self.last is not None and version != self.last + 1:
                        self.gaps += 1
                    self.last = version
                    self.times.append((version, now))
            except ConnectionClosed:
                pass
            if stop.is_set():
                return
            code = self.ws.close_code
            out.watchers[f"closed {code}"] += 1
            if code == 4409:  # the room has its spectators: not this one
                return
            if code not in (1012, 1013):
                await asyncio.sleep(self.pause)
            while not await self.open(out):
                if stop.is_set():
                    return
                await asyncio.sleep(self.pause)
            if stop.is_set():
                return
            out.watchers["resumed"] += 1


def spread(codes: list[str], count: int, cap: int) -> list[str]:
    """``count`` watchers' rooms, round-robin, at most ``cap`` per room."""
    return [codes[i % len(codes)] for i in range(min(count, cap * len(codes)))] if codes else []


async def attack(config: Config, conn: Any) -> None:
    out = Outcomes()
    stop = asyncio.Event()
    # The watchers join first (their rooms are playing soon), 50 handshakes at a time.
    rooms = spread(config.codes, config.watchers, config.per_room_cap)
    watchers = [Watcher(config, code, i) for i, code in enumerate(rooms)]
    gate = asyncio.Semaphore(50)

    async def open_one(w: Watcher) -> bool:
        async with gate:
            return await w.open(out)

    opened = await asyncio.gather(*(open_one(w) for w in watchers))
    watching = [asyncio.create_task(w.watch(out, stop)) for w, ok in zip(watchers, opened, strict=True) if ok]
    out.started = time.perf_counter()
    attackers = [asyncio.create_task(oversize_socket(config, i, out, stop)) for i in range(config.oversize)]
    attackers += [asyncio.create_task(probe(config, i, out, stop)) for i in range(config.probes)]
    await asyncio.sleep(config.warmup)
    conn.send(("ready", {"watchers": len(watchers), "watching": sum(opened), "outcomes": _counts(out)}))
    await asyncio.to_thread(conn.recv)  # "stop"
    ran = time.perf_counter() - out.started
    stop.set()
    for task in attackers:
        task.cancel()
    await asyncio.gather(*attackers, return_exceptions=True)
    await asyncio.gather(*(w.ws.close() for w in watchers if w.ws is not None), return_exceptions=True)
    _, late = await asyncio.wait(watching, timeout=5) if watching else (set(), set())
    for task in late:
        task.cancel()
    conn.send(
        (
            "done",
            {
                "seconds": round(ran, 2),
                "watchers": len(watchers),
                "watching": sum(opened),
                "outcomes": _counts(out),
                "watcher_gaps": sum(w.gaps for w in watchers),
                "watcher_times": [(w.code, w.times) for w in watchers],
            },
        )
    )


def _counts(out: Outcomes) -> dict[str, Any]:
    return {
        "oversize": dict(out.oversize),
        "oversize_frames_sent": out.frames_sent,
        "probe_ws": dict(out.probe_ws),
        "probe_rest": dict(out.probe_rest),
        "retry_after": dict(out.retry_after),
        "watchers": dict(out.watchers),
    }


def child(conn: Any, config: Config) -> None:
    """The spawned process's entry point."""
    from .servers import raise_open_files

    raise_open_files()
    if config.nice:
        # On this one machine the hostile clients take CPU from the server and
        # the players; on the internet they run on machines of their own.
        os.nice(config.nice)
    try:
        asyncio.run(attack(config, conn))
    except BaseException as error:
        conn.send(("failed", repr(error)))
        raise


# The parent's side.


def machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy (not idle, not waiting for I/O)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


class ClockCpu:
    """Cores used while the clock runs: the server, this load generator, the
    hostile clients' processes, and everything else on the machine (the
    machine is shared; what others take shows here)."""

    def __init__(self, server: Server, pids: list[int] | None = None) -> None:
        self.server, self.pids = server, pids or []
        self.start = self._now()

    def _now(self) -> tuple[float, ...]:
        return (
            time.monotonic(),
            machine_busy_s(),
            self.server.cpu_s(),
            self.server.children_cpu_s(),
            time.process_time(),
            sum(process_cpu_s(pid) for pid in self.pids),
        )

    def cores(self) -> dict[str, float]:
        wall, busy, server, workers, generator, clients = (b - a for a, b in zip(self.start, self._now(), strict=True))
        out = {
            "machine": busy,
            "server": server,
            "server_workers": workers,  # its child processes: the analysis workers (SCHED_IDLE)
            "load_generator": generator,
            "hostile_clients": clients,
        }
        out["others"] = busy - server - workers - generator - clients
        return {k: round(v / wall, 2) for k, v in out.items()}


class RssSampler:
    """The server's RSS, sampled every ``every`` seconds in a thread."""

    def __init__(self, server: Server, every: float = 0.2) -> None:
        self.server = server
        self.every = every
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(OSError):
                self.samples.append((time.monotonic(), self.server.rss_kib()))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def now(self) -> int:
        return self.server.rss_kib()

    def peak(self, since: float) -> int:
        return max([kib for at, kib in self.samples if at >= since] + [self.now()])

    def series(self, since: float, step: float = 1.0) -> list[tuple[float, int]]:
        """(seconds since ``since``, KiB), one sample every ``step`` seconds: a
        plateau or a slope (a leak would only look bounded in a short run)."""
        out: list[tuple[float, int]] = []
        for at, kib in self.samples:
            if at >= since and (not out or at - since >= out[-1][0] + step):
                out.append((round(at - since, 1), kib))
        return out


def _memory(before: int, peak: int, after: int) -> dict[str, Any]:
    return {
        "before": before,
        "peak": peak,
        "after": after,
        "growth_mb": round((peak - before) * 1024 / 1e6, 1),
        "after_growth_mb": round((after - before) * 1024 / 1e6, 1),
    }


@contextlib.asynccontextmanager
async def quiet(sampler: RssSampler, out: dict[str, Any], settle: float) -> AsyncIterator[None]:
    """The quiet run's ``during``: the server's RSS around the clock, as for the hostile run."""
    since, before = time.monotonic(), sampler.now()
    cpu = ClockCpu(sampler.server)
    yield
    out["cores_during_clock"] = cpu.cores()
    peak = sampler.peak(since)
    await asyncio.sleep(settle)
    out["rss_kib"] = _memory(before, peak, sampler.now())
    out["rss_kib_series"] = sampler.series(since)
    out["workers_rss_kib"] = sampler.server.children_rss_kib()


def _receive(conn: Any, timeout: float) -> tuple[str, Any]:
    if not conn.poll(timeout):
        raise TimeoutError(f"the hostile clients said nothing for {timeout} s")
    message: tuple[str, Any] = conn.recv()
    if message[0] == "failed":
        raise RuntimeError(f"the hostile clients failed: {message[1]}")
    return message


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two processes' reports as one: counts add up, lists join."""
    merged = dict(a)
    for key, value in b.items():
        if key not in merged:
            merged[key] = value
        elif isinstance(value, dict):
            merged[key] = _merge(merged[key], value)
        elif isinstance(value, int | float | list):
            merged[key] = merged[key] + value
    return merged


@contextlib.asynccontextmanager
async def hostile(
    config: Config, rooms: list[Room], sampler: RssSampler, out: dict[str, Any], settle: float
) -> AsyncIterator[None]:
    """The hostile run's ``during``: the hostile clients attack for
    ``config.warmup`` seconds before the clock starts and until play ends;
    then the server's RSS, the refusals they met, and the fan-out to the
    watchers. The watchers run in a process, the oversize sockets and the
    probes in another, so that neither delays the other's clock."""
    since, before = time.monotonic(), sampler.now()
    spawn = multiprocessing.get_context("spawn")
    roles = [replace(config, oversize=0, probes=0), replace(config, watchers=0)]
    pipes = [spawn.Pipe() for _ in roles]
    processes = [
        spawn.Process(target=child, args=(theirs, role), daemon=True)
        for role, (_, theirs) in zip(roles, pipes, strict=True)
    ]
    for process in processes:
        process.start()
    pids = [process.pid for process in processes if process.pid is not None]

    async def receive(timeout: float) -> dict[str, Any]:
        got = await asyncio.gather(*(asyncio.to_thread(_receive, ours, timeout) for ours, _ in pipes))
        return _merge(got[0][1], got[1][1])

    try:
        out["at_clock_start"] = await receive(300)
        out["rss_kib_clock_start"] = sampler.now()
        cpu = [process_cpu_s(pid) for pid in pids]
        cores = ClockCpu(sampler.server, pids)
        yield
        out["cores_during_clock"] = cores.cores()
        used = [round(process_cpu_s(pid) - c, 2) for pid, c in zip(pids, cpu, strict=True)]
        out["cpu_s_during_clock"] = dict(zip(("watchers", "attackers"), used, strict=True))
        for ours, _ in pipes:
            ours.send("stop")
        done = await receive(120)
        done["seconds"] = round(done["seconds"] / 2, 2)  # the two processes' attack, on average
    finally:
        for process in processes:
            process.join(10)
            if process.is_alive():
                process.terminate()
                process.join(5)
    peak = sampler.peak(since)
    await asyncio.sleep(settle)
    out["rss_kib"] = _memory(before, peak, sampler.now())
    out["rss_kib_series"] = sampler.series(since)
    out["workers_rss_kib"] = sampler.server.children_rss_kib()
    times = done.pop("watcher_times")
    out |= done
    # The fan-out to the watchers: each acked action's first event, from the
    # moment it was sent (time.perf_counter is the system's monotonic clock,
    # the same in every process).
    sent = {room.code: dict(room.sent) for room in rooms}
    lag = Histogram()
    for code, arrivals in times:
        actions = sent.get(code, {})
        for version, at in arrivals:
            if version in actions:
                lag.record(at - actions[version])
    out["watcher_events"] = sum(len(arrivals) for _, arrivals in times)
    out["watcher_fanout_ms"] = lag.summary()
