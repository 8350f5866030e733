"""A small client for playing over the REST API in tests (``choose``, a random
legal action, is the load generator's)."""

import random
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.rules import get_ruleset
from bench.loadgen import choose


@dataclass
class Table:
    """A room and the seat tokens of its players."""

    http: httpx.AsyncClient
    code: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    host: str = ""

    @staticmethod
    def auth(token: str) -> dict[str, str]:
        return {"authorization": f"Bearer {token}"}

    async def create(self, ruleset: str = "yacht", name: str = "Ana", **body: Any) -> dict[str, Any]:
        r = await self.http.post("/api/rooms", json={"ruleset": ruleset, "name": name, **body})
        assert r.status_code == 201, r.text
        data = r.json()
        self.code = data["room"]["code"]
        self.host = data["player"]["id"]
        self.tokens[self.host] = data["token"]
        return data

    async def join(self, name: str) -> str:
        r = await self.http.post(f"/api/rooms/{self.code}/players", json={"name": name})
        assert r.status_code == 201, r.text
        player = r.json()["player"]["id"]
        self.tokens[player] = r.json()["token"]
        return str(player)

    async def start(self) -> dict[str, Any]:
        r = await self.http.post(f"/api/rooms/{self.code}/games", headers=self.auth(self.tokens[self.host]))
        assert r.status_code == 201, r.text
        return dict(r.json())

    async def room(self) -> dict[str, Any]:
        r = await self.http.get(f"/api/rooms/{self.code}")
        assert r.status_code == 200, r.text
        return dict(r.json())

    async def act(self, player: str, **action: Any) -> httpx.Response:
        return await self.http.post(
            f"/api/rooms/{self.code}/actions", json=action, headers=self.auth(self.tokens[player])
        )

    async def events(self, after: int = 0) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            r = await self.http.get(f"/api/rooms/{self.code}/events", params={"after": after, "limit": 1000})
            assert r.status_code == 200, r.text
            out += r.json()["events"]
            if not r.json()["more"]:
                return out
            after = out[-1]["version"]


async def play(table: Table, rng: random.Random, max_actions: int | None = None) -> dict[str, Any]:
    """Play random legal actions over HTTP until the game ends (or ``max_actions``)."""
    room = await table.room()
    done = 0
    while room["game"]["status"] == "playing" and (max_actions is None or done < max_actions):
        player = room["game"]["turn"]["player_id"]
        r = await table.act(player, **choose(room, rng))
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["room"]["version"] == body["version"] == body["events"][-1]["version"]
        room = body["room"]
        done += 1
    return room


def rounds(ruleset: str) -> int:
    return get_ruleset(ruleset).rounds
