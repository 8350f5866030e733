"""The baseline: a bare ASGI WebSocket app (no framework, no database) that
speaks just enough of the room protocol for the load generator: hello ->
welcome, action -> ack to the sender and an event to every socket of the
room. Whatever Dicecup adds on top of this is the cost of the real thing.

    uvicorn bench.echo:app --ws-per-message-deflate false
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

Scope = dict[str, Any]

rooms: dict[str, set[Any]] = defaultdict(set)
versions: dict[str, int] = defaultdict(int)


async def app(scope: Scope, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    code = scope["path"].rstrip("/").split("/")[-2]
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    members = rooms[code]
    try:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            data = json.loads(message.get("text") or message.get("bytes") or "{}")
            if data.get("type") == "hello":
                members.add(send)
                welcome = {"type": "welcome", "you": None, "room": {"code": code, "version": versions[code]}}
                await send({"type": "websocket.send", "text": json.dumps(welcome)})
            elif data.get("type") == "action":
                versions[code] += 1
                version = versions[code]
                event = json.dumps({"type": "event", "event": {"version": version, "type": "echo"}, "room": None})
                for member in list(members):
                    await member({"type": "websocket.send", "text": event})
                ack = {"type": "ack", "id": data["action"].get("id"), "version": version}
                await send({"type": "websocket.send", "text": json.dumps(ack)})
    finally:
        members.discard(send)
