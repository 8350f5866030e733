"""Write a bot: subclass :class:`Bot`, return an action from :meth:`Bot.decide`,
and let :func:`run_bot` seat it and play it through a game::

    class Chancer(Bot):
        def decide(self, room, me):
            turn = room["game"]["turn"]
            if turn["dice"] is None or turn["rolls_left"] == 2:
                return {"type": "roll"}
            return {"type": "score", "box": max(turn["scorable"], key=turn["scorable"].get)}

    asyncio.run(run_bot("http://127.0.0.1:8000", "ZSFSDY", "Chancer", Chancer()))
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import Counter
from collections.abc import Awaitable
from typing import Any

from .connection import RoomConnection
from .errors import DicecupError
from .rest import DicecupClient
from .types import Player, Room, Turn

log = logging.getLogger("dicecup_client")

__all__ = ["BOTS", "Bot", "GreedyBot", "play_bot", "run_bot"]


class Bot:
    """A player that decides by itself. :meth:`decide` is called on the
    bot's turn with the room as it stands (``room["game"]["turn"]`` is the
    turn) and the bot's own player; it returns an action: ``{"type": "roll"}``,
    ``{"type": "roll", "keep": [0, 2]}``, ``{"type": "keep", "dice": [...]}``
    or ``{"type": "score", "box": "chance"}`` (positions 0-4). It may be a
    coroutine function. A refused action is logged, and ``decide`` is asked
    again with the room as it then is."""

    def decide(self, room: Room, me: Player) -> dict[str, Any] | Awaitable[dict[str, Any]]:
        raise NotImplementedError

    def on_refused(self, room: Room, action: dict[str, Any], error: DicecupError) -> None:
        """Called when the server refuses an action (the default logs it)."""
        log.warning("bot action %s refused: %s", action, error)


def most_common_face(dice: list[int]) -> int:
    """The face shown most often (the higher one on a tie)."""
    counts = Counter(dice)
    return max(counts, key=lambda face: (counts[face], face))


class GreedyBot(Bot):
    """Rolls up to three times keeping the most common face, then scores the
    box worth the most points now (the earliest in scorecard order on a tie)."""

    def decide(self, room: Room, me: Player) -> dict[str, Any]:
        game = room["game"]
        assert game is not None and game["turn"] is not None
        turn: Turn = game["turn"]
        dice = turn["dice"]
        if dice is None:
            return {"type": "roll"}
        face = most_common_face(dice)
        keep = [i for i, value in enumerate(dice) if value == face]
        if turn["rolls_left"] > 0 and len(keep) < 5:
            return {"type": "roll", "keep": keep}
        return {"type": "score", "box": best_box(turn)}


def best_box(turn: Turn) -> str:
    """The scorable box worth the most points now (the first listed on a tie)."""
    scorable = turn["scorable"]
    return max(scorable, key=lambda box: scorable[box])


BOTS: dict[str, type[Bot]] = {"greedy": GreedyBot}
"""The bots this package ships, by name."""


def _my_turn(room: Room, me: str) -> bool:
    game = room["game"]
    return (
        game is not None
        and game["status"] == "playing"
        and game["turn"] is not None
        and (game["turn"]["player_id"] == me)
    )


async def play_bot(conn: RoomConnection, me: Player, bot: Bot, *, max_refusals: int = 50) -> Room:
    """Play ``bot`` for the seat ``me`` over an open connection until the next
    game to finish has finished (the current one if it is on, else the next
    one the host starts); the final room."""
    room = conn.room
    game = room["game"]
    target = game["number"] if game is not None and game["status"] == "playing" else (game["number"] + 1 if game else 1)

    def done(r: Room) -> bool:
        g = r["game"]
        return r["status"] == "closed" or (g is not None and g["number"] >= target and g["status"] == "finished")

    refusals = 0
    while True:
        room = await conn.wait_for(lambda r: done(r) or _my_turn(r, me["id"]))
        if done(room):
            return room
        decision = bot.decide(room, me)
        action = await decision if inspect.isawaitable(decision) else decision
        try:
            await conn.act(action)
        except DicecupError as error:
            refusals += 1
            bot.on_refused(room, action, error)
            if refusals >= max_refusals:
                raise
            await asyncio.sleep(0.05)


async def run_bot(
    url: str,
    code: str,
    name: str,
    bot: Bot,
    *,
    token: str | None = None,
    protocol: int = 2,
    leave: bool = False,
) -> Room:
    """Seat ``bot`` in room ``code`` as ``name`` (or take the seat of
    ``token``), and play until the game ends: the current game if one is on,
    else the next one the host starts. Returns the final room; with
    ``leave``, the bot leaves its seat afterwards."""
    async with DicecupClient(url) as client:
        if token is None:
            joined = await client.join(code, name)
            token = joined["token"]
        async with client.connect(code, token, protocol=protocol) as conn:
            me = conn.you
            if me is None:
                raise RuntimeError("the token has no seat in this room")
            room = await play_bot(conn, me, bot)
        if leave and room["status"] != "closed":
            await client.leave(code, me["id"], token)
        return room
