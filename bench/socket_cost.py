"""Server CPU per socket of one kind: ``python -m bench.socket_cost --kind
oversize|hello [--n 2000 --c 50 --addresses 10]``.

One SQLite server with its rate limits on (the defaults, unless ``--env
NAME=value`` sets a ``DICECUP_*`` variable), one room kept in the hub by a
watcher, then ``--n`` sockets, ``--c`` at a time, spread over ``--addresses``
loopback addresses: ``oversize`` sends a 1 MiB frame without a hello (closed
1009, or dropped once its address is past the oversize-frame budget),
``hello`` says hello as a spectator, takes its welcome and closes. Prints
the server's user and system CPU per socket (from ``/proc``), how each
socket ended, and the load average (CPU time is much less sensitive to a
busy machine than latency is). bench/RESULTS.md, "Where the stalls came from".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import websockets

from app.db.migrate import upgrade

from . import servers


def _cpu(pid: int) -> tuple[float, float]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


async def run(args: argparse.Namespace, server: servers.Server) -> dict[str, object]:
    async with httpx.AsyncClient(base_url=server.http) as http:
        created = await http.post("/api/rooms", json={"ruleset": "yacht", "name": "P0", "max_players": 4})
        code = created.json()["room"]["code"]
    url = f"{server.ws}/api/rooms/{code}/ws"
    watcher = await websockets.connect(url, compression=None, proxy=None)
    await watcher.send('{"type":"hello","token":null}')
    await watcher.recv()
    frame = "x" * (1 << 20)
    outcomes: Counter[str] = Counter()
    gate = asyncio.Semaphore(args.c)

    async def one(i: int) -> None:
        async with gate:
            local = f"127.50.{i % args.addresses}.1"
            try:
                ws = await websockets.connect(
                    url, local_addr=(local, 0), compression=None, max_size=None, proxy=None, ping_interval=None
                )
                if args.kind == "oversize":
                    await ws.send(frame)
                else:
                    await ws.send('{"type":"hello","token":null}')
                    await ws.recv()
                    await ws.close()
                await asyncio.wait_for(ws.wait_closed(), 15)
                outcomes[f"close {ws.close_code}"] += 1
            except Exception as error:
                outcomes[type(error).__name__] += 1

    await asyncio.gather(*(one(i) for i in range(50)))  # warm up (and, for oversize, the first strikes)
    outcomes.clear()
    user, system = _cpu(server.pid)
    started = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(args.n)))
    wall = time.monotonic() - started
    user2, system2 = _cpu(server.pid)
    await watcher.close()
    return {
        "kind": args.kind,
        "sockets": args.n,
        "server_ms_per_socket": round((user2 - user + system2 - system) / args.n * 1000, 3),
        "user_ms": round((user2 - user) / args.n * 1000, 3),
        "system_ms": round((system2 - system) / args.n * 1000, 3),
        "wall_s": round(wall, 2),
        "outcomes": dict(outcomes),
        "load_average": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.socket_cost")
    parser.add_argument("--kind", default="oversize", choices=["oversize", "hello"])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--c", type=int, default=50)
    parser.add_argument("--addresses", type=int, default=10)
    parser.add_argument("--env", action="append", default=[], help="NAME=value: a DICECUP_* setting (lower-case name)")
    args = parser.parse_args()
    servers.raise_open_files()
    settings = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/bench.db"
        upgrade(url)
        with servers.dicecup(url, None, migrate_on_start="false", rate_limits="true", **settings) as server:
            print(json.dumps(asyncio.run(run(args, server))))


if __name__ == "__main__":
    main()
