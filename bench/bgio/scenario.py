"""Dicecup and boardgame.io serving the same game, measured in one run:

    python -m bench.bgio [--rooms 100 --seats 4 --spectators 1] [--ruleset yacht|yahtzee]

First the SQLite scenario of ``bench.run`` exactly as ``python -m bench.run
sqlite`` runs it (its echo baseline, then one Dicecup instance), then
boardgame.io's own server (bench/bgio/server.js, matches in memory, its
default) with the same number of matches of the same shape, played closed
loop by bench/bgio/loadgen.js over boardgame.io's client library. For both:
server CPU ms per committed action (from ``/proc``, over the same window:
rooms made, seats taken, sockets opened, every game played, sockets closed),
actions/s, move -> update (the mover's ack) and fan-out percentiles. Every
game boardgame.io played is replayed through ``app.rules`` (verify.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import run, servers
from ..hostile import machine_busy_s
from ..loadgen import Histogram
from .verify import verify

FOLDER = Path(__file__).resolve().parent
STAMP = FOLDER / "node_modules" / ".dicecup-package-lock.sha256"
LOADGEN_TIMEOUT_S = 3600


def tools() -> tuple[str, str]:
    """Node (18 or later: the lobby client uses its fetch) and npm, or exit saying why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise SystemExit("python -m bench.bgio needs Node.js 18 or later and npm on the PATH")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 18:
        raise SystemExit(f"python -m bench.bgio needs Node.js 18 or later, found {version}")
    return node, npm


def install(npm: str) -> str:
    """``npm ci`` into bench/bgio/node_modules unless it already holds exactly
    package-lock.json's packages; returns boardgame.io's installed version."""
    lock = hashlib.sha256((FOLDER / "package-lock.json").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != lock:
        print("installing boardgame.io (npm ci in bench/bgio)...", flush=True)
        command = [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel", "error"]
        subprocess.run(command, cwd=FOLDER, check=True)
        STAMP.write_text(lock + "\n")
    package = json.loads((FOLDER / "node_modules" / "boardgame.io" / "package.json").read_text())
    return str(package["version"])


@contextmanager
def cores(out: dict[str, Any]) -> Iterator[None]:
    """Cores used over the block: the whole machine, this bench's processes
    (this one, and the servers and load generators it started and reaped in
    the block) and everything else (the machine may be shared)."""

    def ours() -> float:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    start = (time.monotonic(), machine_busy_s(), ours())
    yield
    wall, busy, bench = (b - a for a, b in zip(start, (time.monotonic(), machine_busy_s(), ours()), strict=True))
    out |= {
        "seconds": round(wall, 1),
        "machine": round(busy / wall, 2),
        "this_bench": round(bench / wall, 2),
        "others": round(max(0.0, busy - bench) / wall, 2),
        "loadavg_after": Path("/proc/loadavg").read_text().split()[:3],
    }


def summary(samples_us: list[int]) -> dict[str, float]:
    histogram = Histogram()
    for sample in samples_us:
        histogram.record(sample / 1e6)
    return histogram.summary()


def boardgame_io(args: argparse.Namespace, node: str) -> dict[str, Any]:
    """boardgame.io's server and load generator, the same shape as Dicecup's run."""
    with tempfile.TemporaryDirectory() as folder, servers.bgio(FOLDER, node) as server:
        out = Path(folder) / "loadgen.json"
        command = [
            node, str(FOLDER / "loadgen.js"), "--server", server.http, "--out", str(out),
            "--game", args.ruleset, "--matches", str(args.rooms), "--players", str(args.seats),
            "--spectators", str(args.spectators), "--seed", "1",
        ]  # fmt: skip
        rss_before, cpu_before = server.rss_kib(), server.cpu_s()
        subprocess.run(command, cwd=FOLDER, check=True, timeout=LOADGEN_TIMEOUT_S)
        cpu, rss_after = server.cpu_s() - cpu_before, server.rss_kib()
        raw = json.loads(out.read_text())
    moves = max(1, raw["moves"])
    samples = raw["samples_us"]
    return {
        "actions": raw["moves"],
        "actions_per_s": round(raw["moves"] / raw["elapsed_s"], 1) if raw["elapsed_s"] else 0,
        "update_ms": summary(samples["ack"]),
        "fanout_ms": summary(samples["fanout"]),
        "fanout_all_ms": summary(samples["fanout_all"]),
        "cpu_ms_per_action": {
            "server": round(1000 * cpu / moves, 3),
            "load_generator": round(1000 * raw["cpu_s"] / moves, 3),
        },
        "errors": raw["errors"],
        "anomalies": raw["anomalies"][:20],
        "games": raw["games"],
        "games_finished": raw["games_finished"],
        "replayed_through_app_rules": verify(args.ruleset, args.seats, raw["records"]),
        "elapsed_s": round(raw["elapsed_s"], 2),
        "rss_kib": {"before": rss_before, "after": rss_after},
    }


def side_by_side(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    mine, its = ours["cpu_ms_per_action"]["server"], theirs["cpu_ms_per_action"]["server"]
    return {
        "server_cpu_ms_per_action": {
            "dicecup": mine,
            "boardgame_io": its,
            "dicecup_over_boardgame_io": round(mine / its, 2) if its else None,
        },
        "actions_per_s": {"dicecup": ours["actions_per_s"], "boardgame_io": theirs["actions_per_s"]},
        "move_to_update_ms": {
            "dicecup": {q: ours["ack_ms"].get(q) for q in ("p50", "p99")},
            "boardgame_io": {q: theirs["update_ms"].get(q) for q in ("p50", "p99")},
        },
        "fanout_ms": {
            "dicecup": {q: ours["fanout_ms"].get(q) for q in ("p50", "p99")},
            "boardgame_io": {q: theirs["fanout_ms"].get(q) for q in ("p50", "p99")},
        },
    }


def scenario(args: argparse.Namespace) -> dict[str, Any]:
    node, npm = tools()
    version = install(npm)
    shape = ["--rooms", str(args.rooms), "--seats", str(args.seats), "--spectators", str(args.spectators)]
    sqlite = run.build_parser().parse_args(["sqlite", *shape, "--ruleset", args.ruleset])
    dicecup_cores: dict[str, Any] = {}
    with cores(dicecup_cores):
        result = run.game_scenario("sqlite", sqlite)
    bgio_cores: dict[str, Any] = {}
    with cores(bgio_cores):
        result["boardgame_io"] = boardgame_io(args, node)
    result["boardgame_io"]["version"] = version
    result["boardgame_io"]["node"] = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    result["cores_during_run"] = {"echo_and_dicecup": dicecup_cores, "boardgame_io": bgio_cores}
    result["side_by_side"] = side_by_side(result["dicecup"], result["boardgame_io"])
    return result


def print_table(result: dict[str, Any], args: argparse.Namespace) -> None:
    version = result["boardgame_io"]["version"]
    print(
        f"\n== Dicecup (SQLite) and boardgame.io {version} (memory): {args.rooms} rooms of {args.seats} seats "
        f"+ {args.spectators} spectator(s), {args.ruleset}, closed loop =="
    )
    columns = ["", "actions", "actions/s", "upd p50", "p99", "fan p50", "p99", "srv CPU ms", "gen CPU ms", "games"]
    print(f"{columns[0]:14}" + "".join(f"{c:>11}" for c in columns[1:]))
    rows = [("echo baseline", "baseline", "ack_ms"), ("Dicecup", "dicecup", "ack_ms")]
    rows.append(("boardgame.io", "boardgame_io", "update_ms"))
    for label, key, update in rows:
        r = result[key]
        cells = [r["actions"], r["actions_per_s"], r[update].get("p50", "-"), r[update].get("p99", "-")]
        cells += [r["fanout_ms"].get("p50", "-"), r["fanout_ms"].get("p99", "-")]
        cells += [r["cpu_ms_per_action"]["server"], r["cpu_ms_per_action"]["load_generator"]]
        cells.append(f"{r['games_finished']}/{r['games']}" if key != "baseline" else "-")
        print(f"{label:14}" + "".join(f"{c!s:>11}" for c in cells))
    cpu = result["side_by_side"]["server_cpu_ms_per_action"]
    print(f"server CPU per committed action, Dicecup / boardgame.io: {cpu['dicecup_over_boardgame_io']}x")
    for name in ("dicecup", "boardgame_io"):
        r = result[name]
        print(f"{name}: errors {r['errors']}, anomalies {len(r['anomalies'])}")
    replayed = result["boardgame_io"]["replayed_through_app_rules"]
    print(f"boardgame.io's games replayed through app.rules: {replayed['agreed']}/{replayed['games']} agreed")
    for problem in replayed["problems"]:
        print(f"  {problem}")
    for name, used in result["cores_during_run"].items():
        print(f"cores used during the {name} run: {used}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.bgio", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--ruleset", default="yacht", choices=["yacht", "yahtzee"])
    parser.add_argument("--json", type=Path)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    result = scenario(args)
    report = {
        "scenario": "bgio",
        "command": "python -m bench.bgio " + " ".join(sys.argv[1:] if argv is None else argv),
        "commit": run.commit(),
        "machine": run.machine(),
        "strategy_tables": servers.strategy_tables(),
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "result": result,
    }
    print_table(result, args)
    print(f"strategy tables the Dicecup server found: {', '.join(report['strategy_tables']) or 'none'}")
    path = args.json or Path("bench/results") / f"bgio-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {path}")
