"""Benchmark scenarios, each one command (see bench/README.md):

    python -m bench.run sqlite   [--rooms 100 --seats 4 --spectators 1] [--rate 200,400,800 --step 10] [--mode rest]
    python -m bench.run postgres [--postgres postgresql://postgres@127.0.0.1:5432/test]
    python -m bench.run redis    [--postgres ... --redis redis://127.0.0.1:6379/0]   (two instances)
    python -m bench.run idle     [--connections 10000]
    python -m bench.run storm    [--connections 10000]
    python -m bench.run hostile  [--rooms 100 --step 30] [--rate 1000] [--database sqlite|postgres]
                                 [--watchers 500 --oversize 100 --probes 100 --hostile-addresses 4 --pause 1]

Every game scenario first runs the same client against the bare echo app
(bench/echo.py) and reports Dicecup's figures as ratios to that baseline,
measured in the same run. A human table goes to stdout, every figure to a
JSON file (bench/results/<scenario>-<time>.json) with the command, commit and
machine. The hostile scenario has no echo baseline: it compares the players'
figures with and without hostile clients on the same server (bench/hostile.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from app.config import Settings
from app.db.migrate import upgrade

from . import hostile, servers
from .loadgen import Member, Room, run_games

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


def machine() -> dict[str, Any]:
    memory = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory = int(line.split()[1]) // 1024
    return {
        "cores": os.cpu_count(),
        "memory_mib": memory,
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()


@contextmanager
def instances(kind: str, args: argparse.Namespace, **settings: str) -> Iterator[list[servers.Server]]:
    """The Dicecup server(s) of a scenario, on a fresh database; ``settings``
    are more ``DICECUP_*`` variables (``rate_limits="true"``)."""
    with ExitStack() as stack:
        if kind == "sqlite":
            folder = stack.enter_context(tempfile.TemporaryDirectory())
            url = f"sqlite+aiosqlite:///{folder}/bench.db"
        else:
            url = stack.enter_context(servers.scratch_postgres(args.postgres))
        upgrade(url)
        redis = args.redis if kind == "redis" else None
        count = 2 if kind == "redis" else 1
        cpus = server_cpus(getattr(args, "server_cpus", 0))
        yield [
            stack.enter_context(servers.dicecup(url, redis, cpus, migrate_on_start="false", **settings))
            for _ in range(count)
        ]


def server_cpus(count: int) -> set[int] | None:
    """``--server-cpus N``: the server(s) on the first N of this process's
    CPUs, and this process (the load generator) and every process it starts
    after this call (the hostile clients) on the others, as when each runs
    on machines of its own. None (0): everyone shares every CPU."""
    if not count:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if count >= len(cpus):
        raise SystemExit(f"--server-cpus {count} leaves none of the {len(cpus)} CPUs for the clients")
    os.sched_setaffinity(0, set(cpus[count:]))
    return set(cpus[:count])


def ratio(ours: dict[str, Any], base: dict[str, Any], key: str) -> float | None:
    if ours.get("count") and base.get("count") and base[key]:
        return round(ours[key] / base[key], 2)
    return None


@contextmanager
def cpu_per_action(found: list[servers.Server], out: dict[str, Any]) -> Iterator[None]:
    """CPU milliseconds per committed action of the server process(es), of this
    load generator and of PostgreSQL, over the block; ``out`` must hold the
    block's report (its ``actions``, and ``warmup_actions``, played unmeasured
    but on the same CPU clocks) when the block ends."""
    server = sum(s.cpu_s() for s in found)
    client = time.process_time()
    database = servers.postgres_cpu_s()
    yield
    actions = max(1, out["report"]["actions"] + out["report"].get("warmup_actions", 0))
    out["report"]["cpu_ms_per_action"] = {
        "server": round(1000 * (sum(s.cpu_s() for s in found) - server) / actions, 3),
        "load_generator": round(1000 * (time.process_time() - client) / actions, 3),
        "postgres": round(1000 * (servers.postgres_cpu_s() - database) / actions, 3),
    }


def game_scenario(kind: str, args: argparse.Namespace) -> dict[str, Any]:
    rates = [float(r) for r in args.rate.split(",")] if args.rate else None
    with servers.echo() as echo:
        # The baseline plays as many actions per room as a real game takes on average.
        base_run: dict[str, Any] = {}
        with cpu_per_action([echo], base_run):
            base_run["report"] = asyncio.run(
                run_games(
                    [echo.http],
                    args.rooms,
                    args.seats,
                    args.spectators,
                    rates=rates,
                    step=args.step,
                    baseline_actions=args.seats * 12 * 3,
                )
            ).report()
        baseline = base_run["report"]
    with instances(kind, args) as found:
        before = [s.rss_kib() for s in found]
        our_run: dict[str, Any] = {}
        with cpu_per_action(found, our_run):
            our_run["report"] = asyncio.run(
                run_games(
                    [s.http for s in found],
                    args.rooms,
                    args.seats,
                    args.spectators,
                    args.ruleset,
                    args.mode,
                    rates,
                    args.step,
                )
            ).report()
        ours = our_run["report"]
        after = [s.rss_kib() for s in found]
    result: dict[str, Any] = {
        "dicecup": ours,
        "baseline": baseline,
        "rss_kib": {"before": before, "after": after},
    }
    result["ratio_to_baseline"] = {
        f"{name}_{q}": ratio(result["dicecup"][f"{name}_ms"], result["baseline"][f"{name}_ms"], q)
        for name in ("ack", "fanout", "fanout_all")
        for q in ("p50", "p99")
    }
    if kind != "sqlite":
        result["postgres_commits_per_s"] = {
            "1 connection": round(servers.pg_commit_ceiling(args.postgres, 2000, 1)),
            "8 connections": round(servers.pg_commit_ceiling(args.postgres, 4000, 8)),
        }
    return result


async def _idle(server: servers.Server, connections: int, rooms: int, storm: bool) -> dict[str, Any]:
    import httpx

    url = server.http
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        codes = [
            (await http.post("/api/rooms", json={"ruleset": "yacht", "name": "I"})).json()["room"]["code"]
            for _ in range(rooms)
        ]
    ws = url.replace("http://", "ws://")
    members = [Member(f"{ws}/api/rooms/{codes[i % rooms]}/ws", None, None) for i in range(connections)]
    gate = asyncio.Semaphore(200)  # handshakes in flight
    errors: Counter[str] = Counter()

    async def connect(member: Member, after: int | None = None) -> bool:
        async with gate:
            try:
                await member.connect(after)
                return True
            except Exception as error:
                errors[f"{type(error).__name__}: {str(error)[:80]}"] += 1
                return False

    started, server_cpu, client_cpu = time.perf_counter(), server.cpu_s(), time.process_time()
    opened = await asyncio.gather(*(connect(m) for m in members))
    out: dict[str, Any] = {
        "connections": connections,
        "opened": sum(opened),
        "open_s": round(time.perf_counter() - started, 2),
        "open_cpu_s": {
            "server": round(server.cpu_s() - server_cpu, 2),
            "load_generator": round(time.process_time() - client_cpu, 2),
        },
    }
    if storm:
        for member in members:
            if member.ws is not None:
                await member.ws.close()  # all drop at once...
        await asyncio.gather(*(m.reader for m in members if m.reader is not None))
        started, server_cpu, client_cpu = time.perf_counter(), server.cpu_s(), time.process_time()
        again = await asyncio.gather(*(connect(m, after=0) for m in members))  # ...and resume with `after`
        out |= {
            "reconnected": sum(again),
            "failed": connections - sum(again),
            "storm_s": round(time.perf_counter() - started, 2),
            "storm_cpu_s": {
                "server": round(server.cpu_s() - server_cpu, 2),
                "load_generator": round(time.process_time() - client_cpu, 2),
            },
        }
    out["errors"] = dict(errors)
    out["members"] = members
    return out


def idle_scenario(args: argparse.Namespace, storm: bool) -> dict[str, Any]:
    servers.raise_open_files()
    with instances("sqlite", args) as (server,):
        time.sleep(1)
        before = server.rss_kib()

        async def run() -> dict[str, Any]:
            # 40 spectators a room: under the server's cap (spectators_per_room, 50),
            # with room to spare while a storm's old sockets are still leaving.
            out = await _idle(server, args.connections, -(-args.connections // 40), storm)
            await asyncio.sleep(1)
            out["rss_kib_held"] = server.rss_kib()
            await asyncio.gather(*(m.close() for m in out.pop("members")))
            return out

        out = asyncio.run(run())
    out["rss_kib_before"] = before
    out["rss_per_connection_kib"] = round((out["rss_kib_held"] - before) / max(1, out["opened"]), 2)
    return out


SETTLE_S = 2.0  # after play (and the hostile clients) stop, before the "after" RSS


def hostile_scenario(args: argparse.Namespace) -> dict[str, Any]:
    """Players at half the saturation rate, first alone (quiet), then again
    with hostile clients (bench/hostile.py), on one server with its rate
    limits on at their defaults. Three phases, each with rooms of its own
    from addresses of their own: closed loop (the saturation rate, unless
    ``--rate`` gives it), quiet, hostile."""
    servers.raise_open_files()
    if args.rate and "," in args.rate:
        raise SystemExit("hostile takes one --rate (actions/s), or none to measure saturation first")
    # the server's default spectators_per_room, less the run's own spectators
    per_room = int(Settings.model_fields["spectators_per_room"].default) - args.spectators
    if args.watchers > per_room * args.rooms:
        raise SystemExit(f"{args.watchers} watchers need {-(-args.watchers // per_room)} rooms at most {per_room} each")
    result: dict[str, Any] = {
        "database": args.database,
        "rate_limits": "on, the defaults" if args.rate_limits == "on" else "off",
        "rooms": args.rooms,
        "seats": args.seats,
        "spectators": args.spectators,
        "server_cpus": args.server_cpus or "shared",
        "hostile_nice": args.hostile_nice,
        "stagger": args.stagger,
    }

    def players(phase: int, rate: float | None, during: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        with cpu_per_action(found, out):
            out["report"] = asyncio.run(
                run_games(
                    [server.http],
                    args.rooms,
                    args.seats,
                    args.spectators,
                    args.ruleset,
                    "ws",
                    [rate] if rate else None,
                    args.step,
                    address=lambda i: hostile.player_address(phase, i),
                    rematch=rate is not None,
                    during=during,
                    stagger=args.stagger if rate is not None else 0,
                )
            ).report()
        return dict(out["report"])

    limits = "true" if args.rate_limits == "on" else "false"
    with instances(args.database, args, rate_limits=limits) as found, hostile.RssSampler(found[0]) as sampler:
        server = found[0]
        result["rss_kib_start"] = sampler.now()
        if args.rate:
            rate = float(args.rate)
            result["saturation"] = None
        else:
            result["saturation"] = players(0, None)
            rate = round(result["saturation"]["actions_per_s"] / 2)
        result["rate_per_s"] = rate

        calm: dict[str, Any] = {}
        result["quiet"] = players(1, rate, lambda rooms: hostile.quiet(sampler, calm, SETTLE_S))
        result["quiet"] |= calm

        attack: dict[str, Any] = {}

        def hostile_clients(rooms: list[Room]) -> Any:
            config = hostile.Config(
                http=server.http,
                codes=[room.code for room in rooms],
                watchers=args.watchers,
                per_room_cap=per_room,
                oversize=args.oversize,
                probes=args.probes,
                addresses=args.hostile_addresses,
                pause=args.pause,
                warmup=args.warmup,
                nice=args.hostile_nice,
            )
            return hostile.hostile(config, rooms, sampler, attack, SETTLE_S)

        result["hostile"] = players(2, rate, hostile_clients)
        result["hostile"]["rss_kib"] = attack.pop("rss_kib")
        result["hostile"]["cores_during_clock"] = attack.pop("cores_during_clock")
        result["hostile"]["rss_kib_series"] = attack.pop("rss_kib_series")
        result["hostile"]["workers_rss_kib"] = attack.pop("workers_rss_kib")
        result["hostile_clients"] = attack
        result["rss_kib_end"] = sampler.now()

    quiet, loud = result["quiet"], result["hostile"]
    result["ratio_hostile_to_quiet"] = {
        f"{name}_{q}": ratio(loud[f"{name}_ms"], quiet[f"{name}_ms"], q)
        for name in ("ack", "fanout", "fanout_all")
        for q in ("p50", "p99")
    }
    ratios = result["ratio_hostile_to_quiet"]
    result["goals"] = {
        "ack and fan-out p99 within 2x of quiet": all(
            ratios[k] is not None and ratios[k] <= 2 for k in ("ack_p99", "fanout_p99")
        ),
        "RSS growth under 50 MB": loud["rss_kib"]["growth_mb"] < 50,
    }
    outcomes = attack["outcomes"]
    result["limits_seen"] = {
        "oversize frames closed 1009": outcomes["oversize"].get("close 1009", 0),
        "probe sockets closed 4404": outcomes["probe_ws"].get("close 4404", 0),
        "probe sockets closed 4429": outcomes["probe_ws"].get("close 4429", 0),
        "REST probes answered 404": outcomes["probe_rest"].get("http 404", 0),
        "REST probes answered 429": outcomes["probe_rest"].get("http 429", 0),
        "sockets refused 4429 (per address)": outcomes["oversize"].get("close 4429", 0),
        # after the address's budget of oversize frames (app/api/edge.py): reset before any answer
        "oversize connections dropped": outcomes["oversize"].get(hostile.DROPPED, 0),
    }
    return result


def print_hostile(result: dict[str, Any]) -> None:
    sat = result["saturation"]
    where = f"{result['rooms']} rooms of {result['seats']}"
    if sat is not None:
        print(f"saturation (closed loop, {where}): {sat['actions_per_s']} actions/s, errors {sat['errors']}")
    print(f"players at {result['rate_per_s']:g} actions/s, {where}; rate limits {result['rate_limits']}")
    columns = ["", "actions/s", "ack p50", "p95", "p99", "fan p50", "p95", "p99", "all p99", "errors", "missed"]
    columns += ["RSS MB", "peak", "after"]
    print(f"{columns[0]:10}" + "".join(f"{c:>10}" for c in columns[1:]))
    for name in ("quiet", "hostile"):
        r = result[name]
        ack, fan, rss = r["ack_ms"], r["fanout_ms"], r["rss_kib"]
        cells = [r["actions_per_s"]] + [ack.get(q, "-") for q in ("p50", "p95", "p99")]
        cells += [fan.get(q, "-") for q in ("p50", "p95", "p99")] + [r["fanout_all_ms"].get("p99", "-")]
        cells += [sum(r["errors"].values()), r["missed"]]
        cells += [round(rss[k] * 1024 / 1e6, 1) for k in ("before", "peak", "after")]
        print(f"{name:10}" + "".join(f"{c!s:>10}" for c in cells))
    print(f"hostile / quiet: {result['ratio_hostile_to_quiet']}")
    for name in ("quiet", "hostile"):
        r = result[name]
        cpu = {k: v for k, v in r["cpu_ms_per_action"].items() if k != "postgres" or result["database"] == "postgres"}
        print(
            f"{name}: RSS growth {r['rss_kib']['growth_mb']} MB (peak), {r['rss_kib']['after_growth_mb']} MB after; "
            f"games {r['games_finished']}/{r['games']} finished, anomalies {len(r['anomalies'])}, "
            f"errors {r['errors']}, CPU ms/action {cpu}"
        )
    for name in ("quiet", "hostile"):
        print(f"{name}: cores used while the clock ran: {result[name]['cores_during_clock']}")
    workers = [round(result[name]["workers_rss_kib"] * 1024 / 1e6, 1) for name in ("quiet", "hostile")]
    print(f"the server's child processes (analysis workers) after each run, RSS MB: {workers}")
    for name in ("quiet", "hostile"):
        seconds = ", ".join("-" if p is None else f"{p:.0f}" for p in result[name]["ack_p99_ms_by_second"])
        print(f"{name}: ack p99 ms by second: {seconds}")
    series = result["hostile"]["rss_kib_series"]
    print(
        "hostile: RSS MB every ~5 s from the hostile clients' start: "
        + ", ".join(f"{at:g}s {round(kib * 1024 / 1e6, 1)}" for at, kib in series[::5])
    )
    h = result["hostile_clients"]
    o = h["outcomes"]
    print(
        f"watchers: {h['watching']}/{h['watchers']} watching, {h['watcher_events']} events, gaps {h['watcher_gaps']}, "
        f"fan-out {h['watcher_fanout_ms']}, {o['watchers']}"
    )
    print(f"oversize frames sent {o['oversize_frames_sent']}: {o['oversize']}")
    print(f"probe sockets: {o['probe_ws']}")
    print(f"REST probes: {o['probe_rest']}, Retry-After seen {o['retry_after']}")
    print(f"hostile clients' CPU s during the clock: {h['cpu_s_during_clock']}, {h['seconds']} s of attack")
    print(f"goals: {result['goals']}")


def print_table(scenario: str, result: dict[str, Any]) -> None:
    print(f"\n== {scenario} ==")
    if scenario == "hostile":
        print_hostile(result)
        return
    if "dicecup" not in result:
        print(result)
        return
    columns = ["", "actions/s", "ack p50", "p95", "p99", "fan p50", "p95", "p99", "all p99", "errors"]
    rows = [columns]
    for name in ("baseline", "dicecup"):
        r = result[name]
        ack, fan, everyone = r["ack_ms"], r["fanout_ms"], r["fanout_all_ms"]
        rows.append(
            [name, r["actions_per_s"]]
            + [ack.get(q, "-") for q in ("p50", "p95", "p99")]
            + [fan.get(q, "-") for q in ("p50", "p95", "p99")]
            + [everyone.get("p99", "-"), sum(r["errors"].values())]
        )
    for row in rows:
        print(f"{row[0]:10}" + "".join(f"{cell!s:>10}" for cell in row[1:]))

    def q(h: dict[str, Any]) -> str:
        return "/".join(str(h.get(k, "-")) for k in ("p50", "p95", "p99"))

    for step in result["dicecup"]["steps"]:
        print(
            f"  at {step['target_per_s']:g}/s: {step['actions']} actions, "
            f"ack p50/p95/p99 {q(step['ack_ms'])}, fan-out {q(step['fanout_ms'])}"
        )
        if step["fanout_cross_instance_ms"].get("count"):
            print(
                f"    fan-out to the actor's instance {q(step['fanout_same_instance_ms'])}, "
                f"to the other instance {q(step['fanout_cross_instance_ms'])}"
            )
    ours = result["dicecup"]
    if ours["fanout_cross_instance_ms"].get("count"):
        same, cross = ours["fanout_same_instance_ms"], ours["fanout_cross_instance_ms"]
        print(
            f"fan-out p50/p95/p99 to members on the actor's instance {q(same)}, on the other {q(cross)}; "
            f"crossing adds {round(cross['p50'] - same['p50'], 3)} ms at p50"
        )
    print(f"ratios to baseline: {result['ratio_to_baseline']}")
    for name in ("baseline", "dicecup"):
        print(f"CPU ms per committed action, {name}: {result[name]['cpu_ms_per_action']}")
    print(f"games finished {ours['games_finished']}/{ours['games']}, anomalies {len(ours['anomalies'])}")
    print(f"server RSS KiB before/after: {result['rss_kib']}")
    if "postgres_commits_per_s" in result:
        print(f"PostgreSQL commit ceiling: {result['postgres_commits_per_s']}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("scenario", choices=["sqlite", "postgres", "redis", "idle", "storm", "hostile"])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--ruleset", default="yacht", choices=["yacht", "yahtzee"])
    parser.add_argument("--mode", default="ws", choices=["ws", "rest"])
    parser.add_argument("--rate", help="open loop: target actions/s, comma-separated steps (e.g. 250,500,1000)")
    parser.add_argument("--step", type=float, default=10.0, help="seconds per open-loop step")
    parser.add_argument("--connections", type=int, default=10000)
    parser.add_argument("--postgres", default=DEFAULT_PG)
    parser.add_argument("--redis", default=DEFAULT_REDIS)
    parser.add_argument("--json", type=Path)
    hostile = parser.add_argument_group("hostile")
    hostile.add_argument("--database", default="sqlite", choices=["sqlite", "postgres"])
    hostile.add_argument(
        "--rate-limits",
        default="on",
        choices=["on", "off"],
        help="off: to see what the limits cost the players (the probes then run unrefused, flat out)",
    )
    hostile.add_argument("--watchers", type=int, default=500, help="spectators of the played rooms, spread")
    hostile.add_argument("--oversize", type=int, default=100, help="sockets sending 1 MiB frames")
    hostile.add_argument("--probes", type=int, default=100, help="clients guessing room codes (REST and WebSocket)")
    hostile.add_argument("--hostile-addresses", type=int, default=4, help="loopback addresses of each hostile kind")
    hostile.add_argument("--pause", type=float, default=1.0, help="seconds a hostile client waits after a refusal")
    hostile.add_argument("--warmup", type=float, default=3.0, help="seconds of attack before the clock")
    hostile.add_argument(
        "--stagger",
        type=int,
        default=150,
        help="before the clock, each room plays a random 0 to N-1 actions of its game (unmeasured), so that the "
        "games end at different times (0: all 100 games end, and the next start, within the same few seconds)",
    )
    hostile.add_argument(
        "--server-cpus",
        type=int,
        default=0,
        help="the server on this many CPUs of its own, the load generator and the hostile clients on the rest "
        "(0: all share every CPU)",
    )
    hostile.add_argument(
        "--hostile-nice",
        type=int,
        default=0,
        help="nice value added to the hostile clients' processes: >0 lets the server and the players go first on "
        "this machine's cores, as when the attackers run on machines of their own (0: equal footing)",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)

    if args.scenario in ("idle", "storm"):
        result = idle_scenario(args, storm=args.scenario == "storm")
    elif args.scenario == "hostile":
        result = hostile_scenario(args)
    else:
        result = game_scenario(args.scenario, args)
    report = {
        "scenario": args.scenario,
        "command": "python -m bench.run " + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": commit(),
        "machine": machine(),
        "strategy_tables": servers.strategy_tables(),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "result": result,
    }
    print_table(args.scenario, result)
    print(f"strategy tables the server found: {', '.join(report['strategy_tables']) or 'none'}")
    path = args.json or Path("bench/results") / f"{args.scenario}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
