"""Bytes per event and server CPU per action, protocol 1 against protocol 2,
with and without per-message deflate, in one run.

    .venv/bin/python -m bench.protocol --rooms 12 --seats 4

For each configuration a fresh server (SQLite) plays the same seeded games:
``--rooms`` rooms of ``--seats``-seat Yahtzee, every seat on its own socket
at the configuration's protocol, actions sent over the sockets (a protocol
2 client keeps its room by the patches, and chooses its actions from it).
Reported per configuration:

- payload bytes per event per member: the text of every ``event`` message
  a socket receives, averaged over events and members;
- wire bytes per event per member: the bytes the members' TCP connections
  delivered (counted under the WebSocket library, so frames and compression
  are included; pings and closes too) over the events and members;
- server CPU milliseconds per action (``/proc/PID/stat``).

The ratios in the last columns are each configuration's over protocol 1
without compression, measured in the same run. With ``--repeat N`` the four
configurations run N times, in turns (1, 2, 1 deflate, 2 deflate, then
again), and each figure is the median of its N runs: the CPU of a shared
machine drifts over a minute, and taking turns spreads the drift over all.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from dicecup_client.patch import apply_patch

from . import servers
from .loadgen import choose

CONFIGS = [(1, False), (2, False), (1, True), (2, True)]


class Seat:
    def __init__(self, ws: Any, protocol: int, welcome: dict[str, Any]) -> None:
        self.ws = ws
        self.protocol = protocol
        self.room: dict[str, Any] = welcome["room"]
        self.version = self.room["version"]
        self.payload = 0
        self.events = 0
        self.wire = 0
        received = ws.data_received  # the transport calls this with every chunk it reads

        def counted(data: bytes) -> None:
            self.wire += len(data)
            received(data)

        ws.data_received = counted
        self.acks: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.moved = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            if message["type"] == "event":
                self.payload += len(text.encode() if isinstance(text, str) else text)
                self.events += 1
                if self.protocol == 1:
                    if message["room"] is not None:
                        self.room = message["room"]
                else:
                    self.room = apply_patch(self.room, message["patch"])
                self.version = message["event"]["version"]
                self.moved.set()
            elif message["type"] in ("ack", "error"):
                await self.acks.put(message)

    async def until(self, version: int) -> None:
        while self.version < version or self.room["version"] < version:
            self.moved.clear()
            await asyncio.wait_for(self.moved.wait(), 30)


async def play_room(server: servers.Server, protocol: int, compression: bool, seats: int, seed: int) -> int:
    """One game; the number of actions."""
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        r = await http.post("/api/rooms", json={"ruleset": "yahtzee", "name": "P0", "max_players": seats})
        code, tokens = r.json()["room"]["code"], {r.json()["player"]["id"]: r.json()["token"]}
        for i in range(1, seats):
            joined = (await http.post(f"/api/rooms/{code}/players", json={"name": f"P{i}"})).json()
            tokens[joined["player"]["id"]] = joined["token"]
        members: dict[str, Seat] = {}
        for player, token in tokens.items():
            ws = await websockets.connect(
                f"{server.ws}/api/rooms/{code}/ws", compression="deflate" if compression else None, max_size=None
            )
            await ws.send(json.dumps({"type": "hello", "token": token, "protocol": protocol}))
            members[player] = Seat(ws, protocol, json.loads(await ws.recv()))
        host = next(iter(tokens))
        started = await http.post(f"/api/rooms/{code}/games", headers={"authorization": f"Bearer {tokens[host]}"})
        version = started.json()["version"]
    rng = random.Random(seed)
    actions = 0
    for seat in members.values():
        await seat.until(version)
    while True:
        room = next(iter(members.values())).room
        turn = room["game"]["turn"]
        if turn is None:
            break
        actor = members[turn["player_id"]]
        await actor.ws.send(json.dumps({"type": "action", "action": choose(actor.room, rng)}))
        reply = await actor.acks.get()
        assert reply["type"] == "ack", reply
        actions += 1
        for seat in members.values():
            await seat.until(reply["version"])
    for seat in members.values():
        await seat.ws.close()
        seat.reader.cancel()
    play_room.totals[0] += sum(s.payload for s in members.values())  # type: ignore[attr-defined]
    play_room.totals[1] += sum(s.events for s in members.values())  # type: ignore[attr-defined]
    play_room.totals[2] += sum(s.wire for s in members.values())  # type: ignore[attr-defined]
    return actions


def run_config(protocol: int, compression: bool, rooms: int, seats: int, concurrency: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        # no strategy tables: nothing computes or loads in the background while CPU is counted
        settings = {"ws_compression": str(compression).lower(), "strategy_dir": f"{tmp}/none"}
        with servers.dicecup(url, **settings) as server:

            async def main() -> dict[str, Any]:
                play_room.totals = [0, 0, 0]  # type: ignore[attr-defined]
                gate = asyncio.Semaphore(concurrency)

                async def one(i: int) -> int:
                    async with gate:
                        return await play_room(server, protocol, compression, seats, seed=i)

                await asyncio.sleep(1)  # startup's work done
                cpu, started = server.cpu_s(), time.perf_counter()
                actions = sum(await asyncio.gather(*(one(i) for i in range(rooms))))
                seconds = time.perf_counter() - started
                payload, events, wire = play_room.totals  # type: ignore[attr-defined]
                return {
                    "protocol": protocol,
                    "compression": compression,
                    "actions": actions,
                    "member_events": events,
                    "payload_bytes_per_member_event": round(payload / events, 1),
                    "wire_bytes_per_member_event": round(wire / events, 1),
                    "server_cpu_ms_per_action": round((server.cpu_s() - cpu) * 1000 / actions, 3),
                    "seconds": round(seconds, 1),
                }

            return asyncio.run(main())


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One configuration's runs as one row: the median of each figure."""
    row = dict(runs[0])
    for key, value in runs[0].items():
        if isinstance(value, int | float) and not isinstance(value, bool) and key != "protocol":
            row[key] = statistics.median(run[key] for run in runs)
    row["runs"] = len(runs)
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.protocol", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=12)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4, help="rooms played at once")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each configuration, in turns (medians)")
    parser.add_argument("--json", type=Path, help="where to write the results")
    args = parser.parse_args(argv)
    runs: list[list[dict[str, Any]]] = [[] for _ in CONFIGS]
    for _ in range(args.repeat):
        for index, (p, c) in enumerate(CONFIGS):
            runs[index].append(run_config(p, c, args.rooms, args.seats, args.concurrency))
    rows = [_median(each) for each in runs]
    base = rows[0]
    print(
        f"\n{args.rooms} games of {args.seats}-seat Yahtzee per configuration, every seat on a socket"
        + (f"; medians of {args.repeat} runs each, in turns" if args.repeat > 1 else "")
        + "\n"
    )
    print(
        "| protocol | deflate | payload B/event/member | wire B/event/member | CPU ms/action | payload | wire | CPU |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['protocol']} | {'on' if row['compression'] else 'off'} "
            f"| {row['payload_bytes_per_member_event']:,} | {row['wire_bytes_per_member_event']:,} "
            f"| {row['server_cpu_ms_per_action']} "
            f"| {row['payload_bytes_per_member_event'] / base['payload_bytes_per_member_event']:.1%} "
            f"| {row['wire_bytes_per_member_event'] / base['wire_bytes_per_member_event']:.1%} "
            f"| {row['server_cpu_ms_per_action'] / base['server_cpu_ms_per_action']:.2f}x |"
        )
    if args.repeat > 1:
        ratios = [b["server_cpu_ms_per_action"] / a["server_cpu_ms_per_action"] for a, b in zip(*runs[:2], strict=True)]
        print("\nprotocol 2 / protocol 1 CPU per action, run by run: " + ", ".join(f"{r:.2f}x" for r in ratios))
    command = "python -m bench.protocol " + " ".join(sys.argv[1:] if argv is None else argv)
    out = {"command": command, "rows": rows, "runs": runs}
    path = args.json or Path("bench/results") / f"protocol-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2))
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()
