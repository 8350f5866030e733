"""``dicecup-play URL [CODE]``: play Dicecup from a terminal.

Without a code it creates a room (you are its host); with one it takes a
seat (or ``--token`` takes yours back, ``--watch`` only watches). Plain
lines on stdin, plain text on stdout, so it also runs with piped input::

    printf 'start\\nr\\nk 1 2\\nr\\ns chance\\nq\\n' | dicecup-play http://127.0.0.1:8000 --solo

Commands: ``r [POS...]`` roll (keeping the dice at positions 1-5 given),
``k POS...`` keep, ``s [BOX]`` score (a box's id, label or a unique
prefix; alone: the box worth the most now), ``start``, ``again``, ``bot LEVEL``,
``hint``, ``auto`` (play this turn greedily), ``show``, ``leave``,
``help``, ``q``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import sys
import threading
from collections.abc import Sequence
from typing import TextIO
from urllib.parse import urlsplit, urlunsplit

from .bots import GreedyBot, best_box
from .connection import RoomConnection
from .errors import ConnectionStopped, DicecupError
from .rest import DicecupClient
from .types import BOT_LEVELS, RULESETS, Event, Player, Room, RulesetInfo, Turn

HELP = """commands:
  r [POS...]     roll; with positions (1-5), keep exactly those dice first
  k [POS...]     keep the dice at these positions (none: release all)
  s [BOX]        score BOX (id, label or unique prefix); alone: the box worth the most now
  auto           play the rest of this turn greedily
  hint           the best choice now (when the room allows hints; the others see that you asked)
  say TEXT       say something in the room's chat (up to 200 characters)
  start          start a game (host; after a game: without waiting for everyone)
  again          play again after a game (any seat; it starts once everyone has accepted)
  bot LEVEL      seat a server bot: {levels} (host)
  show           the dice and the scorecard
  leave          leave your seat (between games)
  help           this list
  q              quit""".format(levels=", ".join(BOT_LEVELS[:-1]) + " or " + BOT_LEVELS[-1])

LINK = re.compile(r"^(?P<base>.*?)/r/(?P<code>[A-Za-z0-9]+)/?$")


def split_link(url: str) -> tuple[str, str | None]:
    """``http://host/r/CODE`` (a room's link) as (``http://host``, ``CODE``)."""
    parts = urlsplit(url)
    match = LINK.match(parts.path)
    if match is None:
        return url.rstrip("/"), None
    return urlunsplit((parts.scheme, parts.netloc, match["base"], "", "")), match["code"]


class Terminal:
    """The game as text, and the commands that play it."""

    def __init__(self, client: DicecupClient, out: TextIO) -> None:
        self.client = client
        self.out = out
        self.conn: RoomConnection | None = None
        self.token: str | None = None
        self.me: Player | None = None
        self.rulesets: dict[str, RulesetInfo] = {}

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # -- presentation -----------------------------------------------------------------------

    @property
    def room(self) -> Room:
        assert self.conn is not None
        return self.conn.room

    def name(self, player_id: str | None) -> str:
        if player_id is None:
            return "?"
        if self.me is not None and player_id == self.me["id"]:
            return "you"
        for player in self.room["players"]:
            if player["id"] == player_id:
                return player["name"]
        return player_id

    def label(self, box: str) -> str:
        info = self.rulesets.get(self.room["ruleset"])
        for item in info["boxes"] if info else []:
            if item["id"] == box:
                return item["label"]
        return box

    def boxes(self) -> list[str]:
        info = self.rulesets.get(self.room["ruleset"])
        if info:
            return [item["id"] for item in info["boxes"]]
        game = self.room["game"]
        return list(next(iter(game["scorecards"].values()))["boxes"]) if game and game["scorecards"] else []

    def show_dice(self) -> None:
        game = self.room["game"]
        turn = game["turn"] if game else None
        if turn is None or turn["dice"] is None:
            return
        cells = [f"[{d}]" if kept else f" {d} " for d, kept in zip(turn["dice"], turn["kept"], strict=True)]
        self.say("  dice:      " + " ".join(cells))
        self.say("  position:  " + " ".join(f" {i} " for i in range(1, 6)))
        self.say(f"  rolls left: {turn['rolls_left']}")
        if self.me is not None and turn["player_id"] == self.me["id"] and turn["scorable"]:
            options = sorted(turn["scorable"].items(), key=lambda item: -item[1])
            self.say("  can score: " + ", ".join(f"{box} {points}" for box, points in options))

    def show_card(self) -> None:
        game = self.room["game"]
        if game is None:
            return
        order = game["order"]
        names = [self.name(p)[:10] for p in order]
        turn = game["turn"]
        self.say(f"  {'':16}" + "".join(f"{n:>11}" for n in names))
        for box in self.boxes():
            row = []
            for player in order:
                value = game["scorecards"][player]["boxes"].get(box)
                if value is None and turn is not None and turn["player_id"] == player and box in turn["scorable"]:
                    row.append(f"{'(' + str(turn['scorable'][box]) + ')':>11}")
                else:
                    row.append(f"{'-' if value is None else value:>11}")
            self.say(f"  {self.label(box)[:16]:16}" + "".join(row))
        cards = [game["scorecards"][p] for p in order]
        ruleset = self.room["ruleset"]
        if ruleset != "yacht":
            self.say(f"  {'Upper bonus':16}" + "".join(f"{card['upper_bonus']:>11}" for card in cards))
        if ruleset == "yahtzee":
            self.say(f"  {'Yahtzee bonus':16}" + "".join(f"{card['yahtzee_bonus']:>11}" for card in cards))
        self.say(f"  {'Total':16}" + "".join(f"{card['total']:>11}" for card in cards))

    def show(self) -> None:
        room = self.room
        players = ", ".join(
            f"{p['name']}{' (bot)' if p['bot'] else ''}{' (host)' if p['host'] else ''}" for p in room["players"]
        )
        self.say(f"Room {room['code']} ({room['ruleset']}, {room['status']}): {players}")
        game = room["game"]
        if game is not None:
            self.show_card()
            if game["turn"] is not None:
                self.say(f"Round {game['round']}: {self.name(game['turn']['player_id'])} to play")
                self.show_dice()

    def on_event(self, event: Event, room: Room) -> None:
        who = self.name(event["player_id"])
        if event["type"] == "player_joined":
            self.say(f"+ {event['data']['player']['name']} joined")
        elif event["type"] == "player_left":
            self.say(f"- {event['data']['player']['name']} left")
        elif event["type"] == "room_closed":
            self.say("The room is closed.")
        elif event["type"] == "game_started":
            started = event["data"]
            self.say(f"Game #{started['number']} begins. Order: {', '.join(self.name(p) for p in started['order'])}")
        elif event["type"] == "turn_started":
            turn = event["data"]
            mine = self.me is not None and turn["player_id"] == self.me["id"]
            whose = "your" if mine else f"{self.name(turn['player_id'])}'s"
            self.say(f"--- Round {turn['round']}: {whose} turn")
        elif event["type"] == "rolled":
            self.say(f"{who} rolled {' '.join(map(str, event['data']['dice']))}")
            self.show_dice()
        elif event["type"] == "kept":
            kept = [str(i + 1) for i, k in enumerate(event["data"]["kept"]) if k]
            self.say(f"{who} kept {' '.join(kept) or 'nothing'}")
        elif event["type"] == "scored":
            scored = event["data"]
            extra = f", +{scored['upper_bonus']} upper bonus" if scored["upper_bonus"] else ""
            extra += f", +{scored['yahtzee_bonus']} Yahtzee bonus" if scored["yahtzee_bonus"] else ""
            self.say(f"{who} scored {scored['points']} in {self.label(scored['box'])}{extra} (total {scored['total']})")
        elif event["type"] == "player_resigned":
            self.say(f"{self.name(event['data']['player_id'])} resigned: the autopilot finishes their card")
        elif event["type"] == "player_absent":
            gone = event["data"]
            self.say(f"{self.name(gone['player_id'])} has left: the autopilot plays for them at {gone['deadline']}")
        elif event["type"] == "player_away":
            self.say(f"{self.name(event['data']['player_id'])} is away: the autopilot plays their turns")
        elif event["type"] == "player_back":
            self.say(f"{self.name(event['data']['player_id'])} is back")
        elif event["type"] == "game_finished":
            finished = event["data"]
            self.say("Game over: everyone else resigned." if finished.get("reason") == "resigned" else "Game over.")
            self.show_card()
            totals = ", ".join(f"{self.name(p)} {t}" for p, t in finished["totals"].items())
            self.say(f"Final: {totals}. Winner: {', '.join(self.name(p) for p in finished['winners'])}")
            hints = room["game"]["hints"] if room["game"] is not None else {}
            if any(hints.values()):
                self.say("Hints used: " + ", ".join(f"{self.name(p)} {n}" for p, n in hints.items()))
        elif event["type"] == "chat":
            said = event["data"]
            self.say(f"{who}: {said['text']}" if "text" in said else f"{who} reacted {said.get('reaction', '')}")
        elif event["type"] == "hint_used":
            self.say(f"{who} used a hint")
        elif event["type"] in ("player_muted", "player_unmuted"):
            target = self.name(event["data"]["player_id"])
            self.say(f"{target} was {'muted' if event['type'] == 'player_muted' else 'unmuted'} by the host")

    # -- commands ---------------------------------------------------------------------------

    def positions(self, args: Sequence[str]) -> list[int]:
        out: list[int] = []
        for arg in args:
            for char in arg.replace(",", " ").split():
                if not char.isdigit() or not 1 <= int(char) <= 5:
                    raise ValueError(f"positions are 1 to 5, not {char!r}")
                if int(char) - 1 not in out:
                    out.append(int(char) - 1)
        return out

    def box(self, text: str) -> str:
        wanted = text.strip().lower().replace(" ", "_")
        boxes = self.boxes()
        if wanted in boxes:
            return wanted
        matches = [
            b for b in boxes if b.startswith(wanted) or self.label(b).lower().replace(" ", "_").startswith(wanted)
        ]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise ValueError(f"no box {text!r}; boxes: {', '.join(boxes)}")
        raise ValueError(f"{text!r} could be {', '.join(matches)}")

    def my_turn(self) -> Turn:
        game = self.room["game"]
        if game is None or game["turn"] is None:
            raise ValueError("no game is on (start one with 'start')")
        if self.me is None or game["turn"]["player_id"] != self.me["id"]:
            raise ValueError(f"it is {self.name(game['turn']['player_id'])}'s turn")
        return game["turn"]

    async def command(self, line: str) -> bool:
        """Run one command line; False to quit."""
        words = line.split()
        if not words:
            return True
        verb, args = words[0].lower(), words[1:]
        conn = self.conn
        assert conn is not None
        try:
            if verb in ("q", "quit", "exit"):
                return False
            if verb in ("h", "help", "?"):
                self.say(HELP)
            elif verb in ("show", "d", "card"):
                self.show()
            elif verb in ("r", "roll"):
                self.my_turn()
                await conn.roll(self.positions(args) if args else None)
            elif verb in ("k", "keep"):
                self.my_turn()
                await conn.keep(self.positions(args))
            elif verb in ("s", "score"):
                turn = self.my_turn()
                box = self.box(" ".join(args)) if args else best_box(turn)
                await conn.score(box)
            elif verb == "auto":
                self.my_turn()
                bot = GreedyBot()
                assert self.me is not None
                while True:
                    game = self.room["game"]
                    if game is None or game["turn"] is None or game["turn"]["player_id"] != self.me["id"]:
                        break
                    await conn.act(bot.decide(self.room, self.me))
            elif verb == "hint":
                if self.token is None:
                    raise ValueError("spectators get no hints")
                hint = await self.client.hint(self.room["code"], self.token)
                best = hint["best"]
                if best["type"] == "keep":
                    self.say(f"hint: keep {' '.join(str(i + 1) for i in best['dice']) or 'nothing'} and roll")
                else:
                    self.say(f"hint: score {self.label(best['box'])}")
            elif verb == "say":
                if self.token is None:
                    raise ValueError("spectators read the chat but do not write")
                await self.client.chat(self.room["code"], self.token, text=line.split(None, 1)[1] if args else "")
            elif verb == "start":
                if self.token is None:
                    raise ValueError("spectators cannot start a game")
                await self.client.start(self.room["code"], self.token)
                await conn.wait_for(lambda r: r["game"] is not None and r["game"]["turn"] is not None, 10)
            elif verb == "again":
                game = self.room["game"]
                if self.token is None or game is None:
                    raise ValueError("play again needs a seat and a game played")
                room = await self.client.rematch(self.room["code"], self.token, game["number"])
                if room["game"] is not None and room["game"]["number"] > game["number"]:
                    # the next game started (everyone had accepted): wait for it here, as ``start``
                    # does, so the next command finds it (and its first round is on the screen)
                    number = room["game"]["number"]

                    def begun(r: Room) -> bool:
                        return r["game"] is not None and r["game"]["number"] == number and r["game"]["turn"] is not None

                    await conn.wait_for(begun, 10)
                elif room["rematch"] is not None and room["rematch"]["waiting"]:
                    names = {p["id"]: p["name"] for p in room["players"]}
                    self.say("waiting for " + ", ".join(names.get(i, "?") for i in room["rematch"]["waiting"]))
            elif verb == "bot":
                if self.token is None:
                    raise ValueError("spectators cannot seat bots")
                level = args[0] if args else "optimal"
                if level not in BOT_LEVELS:
                    raise ValueError(f"levels: {', '.join(BOT_LEVELS)}")
                player = await self.client.add_bot(self.room["code"], self.token, level)
                await conn.wait_for(lambda r: any(p["id"] == player["id"] for p in r["players"]), 10)
            elif verb == "leave":
                if self.token is None or self.me is None:
                    raise ValueError("you have no seat")
                await self.client.leave(self.room["code"], self.me["id"], self.token)
                return False
            else:
                self.say(f"? unknown command {verb!r} (help lists them)")
        except DicecupError as error:
            self.say(f"! {error.code}: {error.detail}")
        except ValueError as error:
            self.say(f"! {error}")
        return True


def _read_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None], stream: TextIO) -> None:
    """A thread: each line of ``stream`` into ``queue``, then ``None`` at its end."""
    try:
        for line in iter(stream.readline, ""):
            loop.call_soon_threadsafe(queue.put_nowait, line)
    finally:
        with contextlib.suppress(RuntimeError):  # the loop is gone: we are exiting anyway
            loop.call_soon_threadsafe(queue.put_nowait, None)


async def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    base, code = split_link(args.url)
    code = args.code or code
    async with DicecupClient(base) as client:
        term = Terminal(client, out)
        try:
            term.rulesets = {info["name"]: info for info in await client.rulesets()}
            if code is None:
                options = {"hints": True}
                created = await client.create_room(
                    args.name, args.ruleset, max_players=1 if args.solo else args.players, options=options
                )
                code, term.token = created["room"]["code"], created["token"]
                term.say(f"Room {code} created: share {base}/r/{code}")
                term.say(f"Your seat token (to come back with --token): {term.token}")
            elif args.token:
                term.token = args.token
            elif not args.watch:
                joined = await client.join(code, args.name)
                term.token = joined["token"]
                term.say(f"Joined room {code}. Your seat token (to come back with --token): {term.token}")
            conn = client.connect(code, term.token, protocol=args.protocol)
            await conn.start()
        except (DicecupError, ConnectionStopped, OSError) as error:
            term.say(f"! {error}")
            return 1
        term.conn = conn
        term.me = conn.you
        conn.subscribe(term.on_event)
        term.show()
        term.say("Type help for the commands.")
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        threading.Thread(target=_read_lines, args=(asyncio.get_running_loop(), queue, stdin), daemon=True).start()
        interactive = stdin.isatty()
        stopped = asyncio.ensure_future(conn.wait_stopped())
        try:
            while True:
                if interactive:
                    print("> ", end="", file=out, flush=True)
                line_task = asyncio.ensure_future(queue.get())
                await asyncio.wait({line_task, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not line_task.done():
                    line_task.cancel()
                    reason = stopped.result()
                    term.say(f"! disconnected: {reason.detail or reason.kind} ({reason.code})")
                    return 2
                line = line_task.result()
                if line is None or not await term.command(line):
                    return 0
        finally:
            stopped.cancel()
            await conn.close()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dicecup-play",
        description="Play Dicecup from a terminal.",
        epilog=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("url", help="the server (http://127.0.0.1:8000) or a room's link (.../r/CODE)")
    p.add_argument("code", nargs="?", help="a room to join; without it a new room is created")
    p.add_argument("--name", default=os.environ.get("DICECUP_NAME", "Player"), help="your name (default: Player)")
    p.add_argument("--token", help="your seat token, to come back to your seat")
    p.add_argument("--watch", action="store_true", help="watch without taking a seat")
    p.add_argument("--ruleset", default="yahtzee", choices=RULESETS, help="for a new room")
    p.add_argument("--players", type=int, default=4, help="seats of a new room (default 4)")
    p.add_argument("--solo", action="store_true", help="a new one-seat room")
    p.add_argument("--protocol", type=int, default=2, choices=[1, 2], help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
