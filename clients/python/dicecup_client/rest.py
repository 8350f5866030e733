"""The REST API (docs/api.md "Rooms, seats and games") over httpx."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote, urlsplit, urlunsplit

import httpx

from .errors import DicecupError, ErrorCode
from .types import (
    Action,
    ActionResult,
    BotLevel,
    Chat,
    Created,
    Event,
    EventsPage,
    Game,
    Hint,
    Joined,
    Player,
    PublicRooms,
    PushSubscription,
    QuickPlayed,
    Reaction,
    Room,
    Ruleset,
    RulesetInfo,
)

if TYPE_CHECKING:
    from .connection import RoomConnection

__all__ = ["DicecupClient", "socket_url"]


def _base(url: str) -> str:
    return url.rstrip("/")


def socket_url(base_url: str, code: str) -> str:
    """``ws(s)://.../api/rooms/{code}/ws`` for a server at ``base_url``
    (``http(s)://host[:port][/root-path]``)."""
    parts = urlsplit(_base(base_url))
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = f"{parts.path}/api/rooms/{quote(code, safe='')}/ws"
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def _auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def _room(code: str) -> str:
    return f"/api/rooms/{quote(code, safe='')}"


class DicecupClient:
    """An asyncio client of one Dicecup server's REST API.

    ``base_url`` is where the server answers (``http://127.0.0.1:8000``, or
    with the root path it is served under). Every refusal raises
    :class:`DicecupError` with the server's ``code``, ``detail`` and HTTP
    status. Use it as an async context manager, or call :meth:`aclose`.
    """

    def __init__(self, base_url: str, *, timeout: float = 10.0, http: httpx.AsyncClient | None = None) -> None:
        self.base_url = _base(base_url)
        self._own = http is None
        self.http = http or httpx.AsyncClient(base_url=self.base_url, timeout=timeout)

    async def __aenter__(self) -> DicecupClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own:
            await self.http.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """One call; the decoded JSON answer (``None`` for 204). Raises
        :class:`DicecupError` for any status from 400 up."""
        response = await self.http.request(
            method, path, json=json, params=params, headers=_auth(token) if token else None
        )
        if response.status_code >= 400:
            raise _error(response)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    # -- rooms and seats --------------------------------------------------------------------

    async def create_room(
        self,
        name: str,
        ruleset: Ruleset = "yahtzee",
        *,
        max_players: int | None = None,
        options: Mapping[str, Any] | None = None,
        bots: Sequence[BotLevel] = (),
        start: bool = False,
        profile_token: str | None = None,
    ) -> Created:
        """Create a room, seated as its host: ``{"room", "player", "token"}``.
        ``bots`` seats a server bot of each level with you, ``start`` starts
        Game #1 at once (play against the computer in one call).
        ``profile_token`` makes the seat that profile's (its history, stats
        and ratings count the games; docs/api.md "Profiles")."""
        body: dict[str, Any] = {"name": name, "ruleset": ruleset}
        if max_players is not None:
            body["max_players"] = max_players
        if options is not None:
            body["options"] = dict(options)
        if bots:
            body["bots"] = list(bots)
        if start:
            body["start"] = True
        return cast(Created, await self.request("POST", "/api/rooms", json=body, token=profile_token))

    async def public_rooms(
        self, ruleset: Ruleset | None = None, cursor: str | None = None, limit: int = 20
    ) -> PublicRooms:
        """Public rooms in the lobby with a free seat, newest first: ``{"rooms", "next"}``."""
        params: dict[str, Any] = {"limit": limit}
        if ruleset is not None:
            params["ruleset"] = ruleset
        if cursor is not None:
            params["cursor"] = cursor
        return cast(PublicRooms, await self.request("GET", "/api/rooms", params=params))

    async def quickplay(
        self,
        name: str,
        ruleset: Ruleset = "yahtzee",
        *,
        max_players: int | None = None,
        profile_token: str | None = None,
    ) -> QuickPlayed:
        """Play with anyone: join the oldest public lobby room of ``ruleset`` with a free seat, or open one
        (of ``max_players`` seats); ``profile_token`` makes the seat that profile's, as on create and join."""
        body: dict[str, Any] = {"name": name, "ruleset": ruleset}
        if max_players is not None:
            body["max_players"] = max_players
        return cast(QuickPlayed, await self.request("POST", "/api/quickplay", json=body, token=profile_token))

    async def join(self, code: str, name: str, *, profile_token: str | None = None) -> Joined:
        """Take a seat (between games): ``{"player", "token"}``; ``profile_token``
        makes the seat that profile's."""
        path = f"{_room(code)}/players"
        return cast(Joined, await self.request("POST", path, json={"name": name}, token=profile_token))

    async def leave(self, code: str, player_id: str, token: str) -> None:
        """Leave (``token`` of the player) or remove a player (the host's token)."""
        await self.request("DELETE", f"{_room(code)}/players/{quote(player_id, safe='')}", token=token)

    async def start(self, code: str, token: str) -> Room:
        """Start the next game (the host's token): the room with it."""
        return cast(Room, await self.request("POST", f"{_room(code)}/games", token=token))

    async def rematch(self, code: str, token: str, game: int) -> Room:
        """Play again: accept a rematch after game ``game`` (the room's last,
        finished; any seat's token). The next game starts, same seats, once
        every person seated has accepted; the room as it is then."""
        return cast(Room, await self.request("POST", f"{_room(code)}/rematch", token=token, json={"game": game}))

    async def add_bot(self, code: str, token: str, level: BotLevel = "optimal") -> Player:
        """Seat a server bot (the host's token, between games)."""
        answer = await self.request("POST", f"{_room(code)}/bots", token=token, json={"level": level})
        return cast(Player, answer["player"])

    async def act(self, code: str, token: str, action: Action | Mapping[str, Any]) -> ActionResult:
        """Roll, keep or score: ``{"version", "events", "room"}``."""
        return cast(ActionResult, await self.request("POST", f"{_room(code)}/actions", token=token, json=action))

    async def chat(self, code: str, token: str, *, text: str | None = None, reaction: Reaction | None = None) -> Chat:
        """Say something (``text``: 1-200 characters) or react (``reaction``: one of
        ``REACTIONS``), as a seat: the ``chat`` event."""
        body: dict[str, str] = {"text": text} if text is not None else {"reaction": reaction or ""}
        answer = await self.request("POST", f"{_room(code)}/chat", token=token, json=body)
        return cast(Chat, answer["event"])

    async def mute(self, code: str, player_id: str, token: str, muted: bool = True) -> None:
        """Mute (or with ``muted=False`` unmute) a seat's chat (the host's token)."""
        path = f"{_room(code)}/players/{quote(player_id, safe='')}/mute"
        await self.request("PUT" if muted else "DELETE", path, token=token)

    # -- turn notifications -----------------------------------------------------------------

    async def push_key(self) -> str:
        """The server's VAPID public key (base64url): a browser's ``applicationServerKey``."""
        return str((await self.request("GET", "/api/push/key"))["public_key"])

    async def subscribe_push(
        self, code: str, player_id: str, token: str, subscription: PushSubscription, lang: str | None = None
    ) -> int:
        """Notify the seat by Web Push when its turn starts while it is not
        connected (its own ``token``); the seat's subscription count."""
        body: dict[str, Any] = {**subscription}
        if lang is not None:
            body["lang"] = lang
        path = f"{_room(code)}/players/{quote(player_id, safe='')}/push"
        return int((await self.request("PUT", path, token=token, json=body))["subscriptions"])

    async def unsubscribe_push(self, code: str, player_id: str, token: str, endpoint: str | None = None) -> int:
        """Stop notifying the seat on one browser (``endpoint``), or all of them; how many are left."""
        params = None if endpoint is None else {"endpoint": endpoint}
        path = f"{_room(code)}/players/{quote(player_id, safe='')}/push"
        return int((await self.request("DELETE", path, token=token, params=params))["subscriptions"])

    # -- reading ----------------------------------------------------------------------------

    async def get_room(self, code: str) -> Room:
        return cast(Room, await self.request("GET", _room(code)))

    async def game(self, code: str, number: int) -> Game:
        return cast(Game, await self.request("GET", f"{_room(code)}/games/{number}"))

    async def events(self, code: str, after: int = 0, limit: int = 100) -> EventsPage:
        """One page of the room's events after version ``after``."""
        params = {"after": after, "limit": limit}
        return cast(EventsPage, await self.request("GET", f"{_room(code)}/events", params=params))

    async def all_events(self, code: str, after: int = 0) -> AsyncIterator[Event]:
        """Every event after ``after``, page by page."""
        while True:
            page = await self.events(code, after, 1000)
            for event in page["events"]:
                yield event
                after = event["version"]
            if not page["more"] or not page["events"]:
                return

    async def rulesets(self) -> list[RulesetInfo]:
        return cast(list[RulesetInfo], await self.request("GET", "/api/rulesets"))

    async def hint(self, code: str, token: str) -> Hint:
        """The expected final total of every choice (the seat whose turn it is)."""
        return cast(Hint, await self.request("GET", f"{_room(code)}/hint", token=token))

    # -- live -------------------------------------------------------------------------------

    def socket_url(self, code: str) -> str:
        return socket_url(self.base_url, code)

    def connect(self, code: str, token: str | None = None, **options: Any) -> RoomConnection:
        """A :class:`RoomConnection` to the room (not yet started: ``await`` its
        :meth:`~RoomConnection.start` or use it with ``async with``); ``options``
        as :class:`RoomConnection` takes them."""
        from .connection import RoomConnection

        return RoomConnection(self.base_url, code, token, rest=self, **options)


def _error(response: httpx.Response) -> DicecupError:
    retry = response.headers.get("retry-after")
    retry_after = float(retry) if retry and retry.replace(".", "", 1).isdigit() else None
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        return DicecupError(body["code"], str(body.get("detail", "")), response.status_code, retry_after)
    detail = response.text[:200] or response.reason_phrase
    return DicecupError(ErrorCode.HTTP_ERROR.value, detail, response.status_code, retry_after)
