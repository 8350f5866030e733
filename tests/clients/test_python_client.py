"""The Python client (clients/python, ``dicecup_client``) against a live
server, on SQLite and PostgreSQL: whole games over its connections, drops
and resumes, an action retried after a reconnect, a bot written with its
bot API, refusals, and the terminal client driven through piped stdin."""

import asyncio
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from dicecup_client import (
    REACTIONS,
    Backoff,
    Bot,
    CloseCode,
    ConnectionStopped,
    DicecupClient,
    DicecupError,
    ErrorCode,
    GreedyBot,
    PushSubscription,
    RoomConnection,
    run_bot,
)

from bench.loadgen import choose

from ..conftest import test_settings
from ..live import server_in_thread
from ..wsclient import check

FAST = Backoff(initial=0.05, maximum=0.5)


@pytest.fixture
def live(database_url: str):
    with server_in_thread(test_settings(database_url)) as server:
        yield server


def without_connected(room: dict) -> dict:
    """A room without the ``connected`` flags (they follow presence, which lags REST)."""
    out = json.loads(json.dumps(room))
    for player in out["players"]:
        player.pop("connected")
    return out


class Checked(RoomConnection):
    """A connection that checks every message it reads against the protocol's schema."""

    checked = 0

    def _dispatch(self, message: dict[str, Any]) -> None:
        check(f"ServerMessageV{self.protocol}", message)
        self.checked += 1
        super()._dispatch(message)


class Recorder:
    """Every event a connection delivers, through both kinds of subscription."""

    def __init__(self, conn: RoomConnection) -> None:
        self.conn = conn
        self.called: list[dict] = []  # by the callback
        self.iterated: list[dict] = []  # by the async iterator
        self.rooms: list[dict] = []  # the room with each event
        conn.subscribe(lambda event, room: (self.called.append(event), self.rooms.append(room)))
        self.task = asyncio.ensure_future(self._iterate())

    async def _iterate(self) -> None:
        async for event, _room in self.conn.events():
            self.iterated.append(event)

    def versions(self) -> list[int]:
        return [event["version"] for event in self.called]


async def play_out(seats: dict[str, RoomConnection], rng: random.Random, on_action=None) -> None:
    """Random legal actions, each over the connection of the seat whose turn it is."""
    any_conn = next(iter(seats.values()))
    actions = 0
    while True:
        room = any_conn.room
        if room["game"]["status"] == "finished":
            return
        player = room["game"]["turn"]["player_id"]
        conn = seats[player]
        # the seat's own connection may be a step behind the one we read: wait for it
        await conn.wait_for(lambda r, v=room["version"]: r["version"] >= v, 10)
        version = await conn.act(choose(conn.room, rng))
        await any_conn.wait_for(lambda r, v=version: r["version"] >= v, 10)
        actions += 1
        if on_action is not None:
            await on_action(actions)


async def check_final(client: DicecupClient, code: str, recorders: list[Recorder], since: int) -> dict:
    final = await client.get_room(code)
    logged = [event async for event in client.all_events(code, since)]
    for recorder in recorders:
        await recorder.conn.wait_for(lambda r: r["version"] >= final["version"], 10)
        assert without_connected(recorder.conn.room) == without_connected(final)
        # every event once, in order, exactly as the log has it
        assert recorder.called == logged, (recorder.versions(), [e["version"] for e in logged])
        await asyncio.sleep(0)
        assert recorder.iterated == logged
        assert recorder.rooms[-1]["version"] == final["version"]
    return final


async def test_two_clients_play_a_whole_game(live) -> None:
    """Yahtzee for two, each seat on its own connection (one on protocol 1):
    each sees every event once, in order, and ends with the room the REST API returns."""
    async with DicecupClient(live.http) as client:
        created = await client.create_room("Ana", "yahtzee", max_players=2)
        code = created["room"]["code"]
        joined = await client.join(code, "Ben")
        ana = await Checked(live.http, code, created["token"]).start()
        ben = await Checked(live.http, code, joined["token"], protocol=1).start()
        assert ana.you["id"] == created["player"]["id"] and ben.you["id"] == joined["player"]["id"]
        since = ana.version
        recorders = [Recorder(ana), Recorder(ben)]
        started = await client.start(code, created["token"])
        await ana.wait_for(lambda r: r["version"] >= started["version"], 10)
        await play_out({ana.you["id"]: ana, ben.you["id"]: ben}, random.Random(5))
        final = await check_final(client, code, recorders, since)
        assert final["game"]["status"] == "finished" and final["status"] == "finished"
        types = [event["type"] for event in recorders[0].called]
        assert types[:2] == ["game_started", "turn_started"] and types[-1] == "game_finished"
        assert types.count("scored") == 2 * 13
        # presence reached the store: both seats are connected
        assert all(player["connected"] for player in ana.room["players"])
        assert ana.reconnects == ben.reconnects == 0
        assert ana.checked > len(recorders[0].called) and ben.checked > len(recorders[1].called)
        await ana.close()
        await ben.close()
        assert ana.stopped.kind == "closed"
        assert [e async for e in ana.events()] == []  # a stopped connection's iterator ends at once


async def test_dropped_sockets_resume_without_loss(live) -> None:
    """Mid-game, one seat's socket is closed under the client, later another
    is cut without a close frame; both resume with ``after`` and miss nothing."""
    async with DicecupClient(live.http) as client:
        created = await client.create_room("Ana", "yacht", max_players=3)
        code = created["room"]["code"]
        joined = await client.join(code, "Ben")
        ana = await client.connect(code, created["token"], backoff=FAST).start()
        ben = await client.connect(code, joined["token"], backoff=FAST).start()
        watcher = await client.connect(code, None, backoff=FAST).start()  # a spectator
        assert watcher.you is None
        since = ana.version
        recorders = [Recorder(ana), Recorder(ben), Recorder(watcher)]
        await client.start(code, created["token"])

        async def drop(actions: int) -> None:
            if actions == 10:
                await ben.websocket.close()  # a clean close the client did not ask for
            elif actions == 25:
                watcher.websocket.transport.abort()  # the network goes: no close frame
            elif actions == 40:
                # drop again while the room moves on over REST
                ben.websocket.transport.abort()
                for _ in range(3):
                    room = await client.get_room(code)
                    if room["game"]["turn"]["player_id"] != created["player"]["id"]:
                        break
                    result = await client.act(code, created["token"], choose(room, random.Random(actions)))
                    await ana.wait_for(lambda r, v=result["version"]: r["version"] >= v, 10)

        await ana.wait_for(lambda r: r["game"] is not None, 10)
        await play_out({ana.you["id"]: ana, ben.you["id"]: ben}, random.Random(8), on_action=drop)
        await check_final(client, code, recorders, since)
        assert ben.reconnects == 2 and watcher.reconnects == 1 and ana.reconnects == 0
        for conn in (ana, ben, watcher):
            await conn.close()


class LosesAnAck(RoomConnection):
    """A connection whose socket is cut right after the server applied an
    action, before the client read its ack (the server's answer is lost)."""

    lose: str | None = None

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") == "ack" and message.get("id") == self.lose:
            self.lose = None
            assert self.websocket is not None
            self.websocket.transport.abort()
            return
        super()._dispatch(message)


async def test_an_action_retried_after_a_reconnect_is_applied_once(live) -> None:
    async with DicecupClient(live.http) as client:
        created = await client.create_room("Ana", "yacht", max_players=1)
        code, token = created["room"]["code"], created["token"]
        conn = await LosesAnAck(live.http, code, token, backoff=FAST).start()
        recorder = Recorder(conn)
        await client.start(code, token)
        await conn.wait_for(lambda r: r["game"] is not None and r["game"]["turn"] is not None, 10)
        conn.lose = "roll-1"
        version = await conn.act({"type": "roll", "id": "roll-1"})  # sent again after the reconnect
        assert conn.reconnects == 1 and conn.lose is None
        rolls = [event for event in recorder.called if event["type"] == "rolled"]
        assert len(rolls) == 1 and rolls[0]["version"] == version  # the original version, from memory
        again = await conn.act({"type": "roll", "id": "roll-1"})  # and any later retry
        assert again == version
        room = await client.get_room(code)
        assert room["version"] == version and room["game"]["turn"]["rolls_left"] == 2
        # the same id with another action is refused, as the server remembers it
        with pytest.raises(DicecupError) as refused:
            await conn.act({"type": "keep", "dice": [0], "id": "roll-1"})
        assert refused.value.code == ErrorCode.ID_REUSED and refused.value.status is None
        await conn.close()


class Cautious(Bot):
    """A bot written with the bot API (an async decide): roll once, score the best box."""

    def __init__(self) -> None:
        self.turns = 0

    async def decide(self, room, me):
        turn = room["game"]["turn"]
        if turn["dice"] is None:
            self.turns += 1
            return {"type": "roll"}
        return {"type": "score", "box": max(turn["scorable"], key=turn["scorable"].get)}


@pytest.mark.parametrize("bot", [GreedyBot, Cautious], ids=["greedy", "custom"])
async def test_a_bot_plays_a_game_against_a_person(live, bot) -> None:
    async with DicecupClient(live.http) as client:
        created = await client.create_room("Ana", "yacht", max_players=2)
        code, token = created["room"]["code"], created["token"]
        me = await client.connect(code, token).start()
        player = bot()
        playing = asyncio.ensure_future(run_bot(live.http, code, "Robo", player, leave=True))
        room = await me.wait_for(lambda r: len(r["players"]) == 2, 10)
        robo = next(p["id"] for p in room["players"] if p["name"] == "Robo")
        await client.start(code, token)
        await me.wait_for(lambda r: r["game"] is not None, 10)
        rng = random.Random(3)
        while not playing.done():
            room = await me.wait_for(
                lambda r: r["game"]["status"] == "finished" or r["game"]["turn"]["player_id"] == me.you["id"], 30
            )
            if room["game"]["status"] == "finished":
                break
            await me.act(choose(room, rng))
        final = await asyncio.wait_for(playing, 30)
        assert final["game"]["status"] == "finished"
        card = final["game"]["scorecards"][robo]
        assert None not in card["boxes"].values()
        if isinstance(player, Cautious):
            assert player.turns == 12
        await me.wait_for(lambda r: all(p["id"] != robo for p in r["players"]), 10)  # it left afterwards
        await me.close()


async def test_refusals_are_typed(live) -> None:
    async with DicecupClient(live.http) as client:
        with pytest.raises(DicecupError) as missing:
            await client.join("ZZZZZZ", "Ana")
        assert (missing.value.code, missing.value.status) == ("room_not_found", 404)
        created = await client.create_room("Ana", "yacht", max_players=1)
        code, token = created["room"]["code"], created["token"]
        with pytest.raises(DicecupError) as early:
            await client.act(code, token, {"type": "roll"})
        assert (early.value.code, early.value.status) == (ErrorCode.GAME_NOT_STARTED, 409)
        with pytest.raises(ConnectionStopped) as unknown:
            await client.connect("ZZZZZZ").start()
        assert unknown.value.reason.kind == "fatal" and unknown.value.reason.code == CloseCode.UNKNOWN_ROOM
        with pytest.raises(ConnectionStopped) as bad_token:
            await client.connect(code, "not-a-token").start()
        reason = bad_token.value.reason
        assert reason.close_code == CloseCode.BAD_TOKEN and reason.error.code == ErrorCode.UNAUTHORIZED
        with pytest.raises(ConnectionStopped) as nobody:
            await RoomConnection("http://127.0.0.1:9", code).start()
        assert nobody.value.reason.kind == "connect_failed"
        # an action refused over the socket: DicecupError without a status; the socket stays
        conn = await client.connect(code, token).start()
        with pytest.raises(DicecupError) as refused:
            await conn.score("choice")
        assert refused.value.code == "game_not_started" and refused.value.status is None
        await client.start(code, token)
        await conn.wait_for(lambda r: r["game"] is not None, 10)
        assert await conn.roll() == conn.room["version"]
        # the seat leaves (between games only, so end the game first) and the socket stops with 4403
        while conn.room["game"]["status"] == "playing":
            await conn.act(GreedyBot().decide(conn.room, conn.you))
        await client.leave(code, conn.you["id"], token)
        reason = await asyncio.wait_for(conn.wait_stopped(), 10)
        assert reason.kind == "fatal" and reason.code == CloseCode.SEAT_GONE
        with pytest.raises(ConnectionStopped):
            await conn.roll()
        await conn.close()


async def test_chat_reactions_and_mute(live) -> None:
    """The SDK's chat helpers: a message and a reaction come back as chat events
    (also in the event log), the host mutes and unmutes, refusals are typed."""
    async with DicecupClient(live.http) as client:
        created = await client.create_room("Ana", "yacht", max_players=2)
        code, ana = created["room"]["code"], created["token"]
        joined = await client.join(code, "Ben")
        ben, ben_id = joined["token"], joined["player"]["id"]
        said = await client.chat(code, ben, text="  good   luck ")
        assert (said["type"], said["player_id"], said["data"]) == ("chat", ben_id, {"text": "good luck"})
        reacted = await client.chat(code, ana, reaction=REACTIONS[1])
        assert reacted["data"] == {"reaction": "👏"} and reacted["version"] == said["version"] + 1
        with pytest.raises(DicecupError) as empty:
            await client.chat(code, ben, text=" ")
        assert (empty.value.code, empty.value.status) == (ErrorCode.CHAT_EMPTY, 422)
        await client.mute(code, ben_id, ana)
        room = await client.get_room(code)
        assert [p["muted"] for p in room["players"]] == [False, True]
        with pytest.raises(DicecupError) as muted:
            await client.chat(code, ben, reaction="🎲")
        assert (muted.value.code, muted.value.status) == (ErrorCode.MUTED, 403)
        with pytest.raises(DicecupError) as not_host:
            await client.mute(code, created["player"]["id"], ben)
        assert not_host.value.code == ErrorCode.NOT_HOST
        await client.mute(code, ben_id, ana, muted=False)
        await client.chat(code, ben, text="thanks")
        kinds = [e["type"] for e in [e async for e in client.all_events(code, said["version"] - 1)]]
        assert kinds == ["chat", "chat", "player_muted", "player_unmuted", "chat"]


def terminal_command() -> list[str]:
    script = Path(sys.executable).with_name("dicecup-play")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dicecup_client"]


YACHT_BOXES = [
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "full_house",
    "four_of_a_kind",
    "little_straight",
    "big_straight",
    "choice",
    "yacht",
]


async def test_the_terminal_client_plays_a_solo_game(live) -> None:
    """``dicecup-play URL --solo`` with every command piped in at once: each
    turn rolls, keeps some dice by position, rolls again and scores a box
    named by id, by label, by prefix or (alone) the best one."""
    lines = ["help", "say  hello   there ", "say", "start"]
    for index, box in enumerate(YACHT_BOXES):
        named = {0: "Ones", 4: "fiv", 6: "full house"}.get(index, box)  # a label, a prefix, a label with a space
        lines += ["r", "k 1 3", "r 1 2 5", "show"]
        lines += ["s"] if index == len(YACHT_BOXES) - 1 else [f"s {named}"]
    lines += ["r", "again", "q"]  # after the game: a roll refused, play again (Game #2 starts), quit
    script = "\n".join(["bogus", *lines]) + "\n"
    completed = await asyncio.to_thread(
        subprocess.run,
        [*terminal_command(), live.http, "--solo", "--ruleset", "yacht", "--name", "Solo"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = completed.stdout
    assert completed.returncode == 0, completed.stderr + out
    code = re.search(r"Room (\w{6}) created", out).group(1)
    async with httpx.AsyncClient(base_url=live.http) as http:
        room = (await http.get(f"/api/rooms/{code}")).json()
        game = (await http.get(f"/api/rooms/{code}/games/1")).json()
    assert room["status"] == "playing" and room["game"]["number"] == 2  # "again": alone, it starts at once
    assert game["status"] == "finished" and [g["number"] for g in room["games"]] == [1]
    (card,) = game["scorecards"].values()
    assert None not in card["boxes"].values()
    assert f"Final: you {card['total']}." in out
    assert out.count("Game over.") == 1 and out.count("--- Round") == 12 + 1  # and Game #2's first
    assert "Game #2 begins." in out
    assert "? unknown command 'bogus'" in out
    assert "! no game is on" in out  # the roll after the game
    assert "you kept 1 3" in out and "  dice:" in out and "can score:" in out
    assert "you: hello there" in out and "! chat_empty:" in out  # the chat, normalized; an empty one refused
    assert completed.stderr == ""


async def test_play_again_against_a_bot(live) -> None:
    """create_room with bots and start (one call to a game under way), then rematch: the series adds up."""
    async with DicecupClient(live.http) as client:
        created = await client.create_room("Ana", "yacht", max_players=2, bots=["greedy"], start=True)
        code, token, me = created["room"]["code"], created["token"], created["player"]["id"]
        assert created["room"]["status"] == "playing"
        conn = await client.connect(code, token).start()
        with pytest.raises(DicecupError) as early:
            await client.rematch(code, token, 1)
        assert (early.value.code, early.value.status) == (ErrorCode.GAME_IN_PROGRESS, 409)
        for number in (1, 2):
            while True:
                room = await conn.wait_for(
                    lambda r: r["game"]["status"] == "finished" or r["game"]["turn"]["player_id"] == me, 30
                )
                if room["game"]["status"] == "finished":
                    break
                await conn.act(GreedyBot().decide(room, conn.you))
            assert room["rematch"] is not None and room["rematch"]["waiting"] == [me]
            if number == 1:
                again = await client.rematch(code, token, 1)  # the bot accepted at once: Game #2 starts
                assert again["status"] == "playing" and again["game"] is not None and again["game"]["number"] == 2
                await conn.wait_for(lambda r: r["game"]["number"] == 2, 10)
        series = {line["player_id"]: line for line in room["series"]}
        for player, line in series.items():
            assert line["games"] == 2
            assert line["total"] == sum(g["totals"][player] for g in room["games"])
        with pytest.raises(DicecupError) as late:
            await client.rematch(code, token, 1)
        assert late.value.code == ErrorCode.REMATCH_STARTED
        await conn.close()


async def test_push_subscriptions(live) -> None:
    import base64
    import os

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    async with DicecupClient(live.http) as client:
        key = await client.push_key()
        assert len(base64.urlsafe_b64decode(key + "=")) == 65
        created = await client.create_room("Ana", "yacht")
        code, me, token = created["room"]["code"], created["player"]["id"], created["token"]
        sub: PushSubscription = {
            "endpoint": "https://fcm.googleapis.com/fcm/send/python-sdk",
            "keys": {"p256dh": b64(point), "auth": b64(os.urandom(16))},
        }
        assert await client.subscribe_push(code, me, token, sub, lang="mn") == 1
        with pytest.raises(DicecupError) as refused:
            await client.subscribe_push(code, me, token, {**sub, "endpoint": "http://fcm.googleapis.com/x"})
        assert (refused.value.code, refused.value.status) == (ErrorCode.INVALID_SUBSCRIPTION, 422)
        assert await client.unsubscribe_push(code, me, token) == 0


async def test_seats_taken_with_a_profile_token_are_the_profiles(live) -> None:
    """create_room, join and quickplay take a profile token: the seats show in the profile's open seats."""
    async with DicecupClient(live.http) as client:
        made = await client.request("POST", "/api/profiles", json={"name": "Ana"})
        profile_token = made["token"]
        created = await client.create_room("Ana", "yacht", profile_token=profile_token)
        other = await client.create_room("Cy", "yacht", max_players=2)
        joined = await client.join(other["room"]["code"], "Ana", profile_token=profile_token)
        played = await client.quickplay("Ana", "yatzy", max_players=3, profile_token=profile_token)
        assert played["created"] is True and played["room"]["max_players"] == 3
        # The session's database is shared with other test files: an older
        # open yatzy room may be the one joined, but a room is joined, not made.
        anonymous = await client.quickplay("Bo", "yatzy")
        assert anonymous["created"] is False
        seats = await client.request("GET", "/api/profiles/me/games", token=profile_token)
        assert {s["player_id"] for s in seats["open"]} == {
            created["player"]["id"],
            joined["player"]["id"],
            played["player"]["id"],
        }
        with pytest.raises(DicecupError) as refused:
            await client.quickplay("Ana", "yatzy", profile_token="not-a-profile-token")
        assert (refused.value.code, refused.value.status) == (ErrorCode.UNAUTHORIZED, 401)
