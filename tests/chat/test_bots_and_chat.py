"""A chat event between a bot's read of the room and its move makes the move
stale (the room's version moved on): the bot decides again at once instead of
waiting for its claim on the room to run out (app/rooms/bots.py, app/lifecycle/turns.py)."""

from app.chat import Chat
from app.db import Database
from app.lifecycle import Turns
from app.rooms import ActionRequest, RoomService, Seat
from app.rooms.bots import bot_turn


async def test_a_chat_before_a_bots_move_does_not_stall_it(database_url) -> None:
    db = Database(database_url)
    await db.open()
    try:
        service = RoomService(db, bot_delay=0)  # no scheduler: the test plays the bot's turns itself
        chat = Chat(service)
        room, host, _ = await service.create_room("yacht", "Ana", {}, 2)
        code, ana = room["code"], Seat(host["id"], room["code"])
        bot = await service.add_bot(code, ana, "greedy")
        await service.start_game(code, ana)

        async def bots_turn() -> int:
            """Ana plays her turns until it is the bot's; the room's version then."""
            while True:
                view = await service.get_room(code)
                if view["game"]["turn"]["player_id"] == bot["id"]:
                    return view["version"]
                await service.act(code, ana, ActionRequest("roll"))
                boxes = (await service.get_room(code))["game"]["turn"]["scorable"]
                await service.act(code, ana, ActionRequest("score", box=next(iter(boxes))))

        real_act = service.act
        requests: list[ActionRequest] = []

        async def act_after_a_chat(code_: str, actor: Seat, request: ActionRequest):
            if not requests:  # Ana's reaction lands between the bot's read and its move
                await chat.say(code, ana, reaction="🎲")
            requests.append(request)
            return await real_act(code_, actor, request)

        service.act = act_after_a_chat  # type: ignore[method-assign]
        turns = Turns(service)
        for play in (lambda: bot_turn(service, code), lambda: turns.play_due(code)):
            service.act = real_act  # type: ignore[method-assign]
            before = await bots_turn()
            service.act = act_after_a_chat  # type: ignore[method-assign]
            requests.clear()
            assert await play()
            # refused once as stale, then decided again from the room with the chat in it
            assert [r.expected_version for r in requests] == [before, before + 1]
            events = (await service.events_after(code, before))["events"]
            assert events[0]["type"] == "chat"
            assert events[1]["player_id"] == bot["id"] and events[1]["type"] in ("rolled", "kept", "scored")
    finally:
        await db.dispose()
