"""The shapes of docs/api.md and ``GET /api/protocol.json`` as TypedDicts.

Rooms arrive as JSON and protocol 2 keeps them by applying JSON Patches, so
they stay plain dicts: these types describe them for a type checker without
copying them into objects. Events are a union discriminated by ``type``::

    if event["type"] == "rolled":
        event["data"]["dice"]  # narrowed to RolledData
"""

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict, cast

Ruleset: TypeAlias = Literal["yahtzee", "yacht", "yatzy"]
BotLevel: TypeAlias = Literal["optimal", "strong", "casual", "beginner", "greedy"]
RoomStatus: TypeAlias = Literal["lobby", "playing", "finished", "closed"]

# -- rooms ------------------------------------------------------------------------------------


class Player(TypedDict):
    id: str
    name: str
    seat: int | None
    bot: BotLevel | None
    connected: bool
    host: bool
    away: bool
    """timed out twice in a row: the autopilot plays their turns until they are back"""
    resigned: bool
    """resigned from the current game: the autopilot finishes their scorecard"""
    muted: bool
    """the host muted the seat's chat"""


class Turn(TypedDict):
    player_id: str
    dice: list[int] | None
    kept: list[bool]
    rolls_left: int
    scorable: dict[str, int]


class Scorecard(TypedDict):
    boxes: dict[str, int | None]
    upper_total: int
    upper_bonus: int
    lower_total: int
    yahtzee_bonus: int
    total: int


class RolloffEntry(TypedDict):
    player_id: str
    dice: list[int]
    total: int


class Fairness(TypedDict):
    commitment: str
    seed: str | None


class Game(TypedDict):
    number: int
    status: Literal["playing", "finished"]
    round: int
    order: list[str]
    rolloff: list[list[RolloffEntry]]
    turn: Turn | None
    scorecards: dict[str, Scorecard]
    winners: list[str]
    fairness: Fairness
    deadline: str | None
    """when the current turn times out (ISO-8601 UTC); None: untimed"""
    hints: dict[str, int]
    """each player's hinted rolls in this game (hint_used)"""
    absent_deadline: str | None
    """untimed rooms: the person whose turn it is has no socket open; their seat is away at this time"""
    ended: Literal["completed", "resigned"] | None
    """None while played; resigned: it ended at once when every other person had resigned"""


class GameSummary(TypedDict):
    number: int
    totals: dict[str, int]
    winners: list[str]
    resigned: list[str]
    """the players who resigned from that game"""
    ended: Literal["completed", "resigned"]


class SeriesLine(TypedDict):
    """One player's line of the room's score pad."""

    player_id: str
    name: str | None
    games: int
    """finished games of the room the player played"""
    total: int
    """the series total: the sum of the player's totals over those games"""
    wins: int
    seated: bool
    """False: the player has left the room"""


class Rematch(TypedDict):
    """Play again after the last game: who accepted (bots at once), who is waited for."""

    game: int
    ready: list[str]
    waiting: list[str]


class RoomOptions(TypedDict):
    joker: NotRequired[Literal["forced", "free"]]
    upper_first: NotRequired[bool]
    hints: bool
    chat: NotRequired[bool]
    turn_seconds: NotRequired[int | None]
    public: NotRequired[bool]
    auto_start: NotRequired[bool]
    bot_speed: NotRequired[Literal["slow", "normal", "fast", "instant"]]
    """how fast the room's bots play (default "normal"; "instant": no thinking time)"""


class Room(TypedDict):
    code: str
    ruleset: Ruleset
    options: RoomOptions
    max_players: int
    status: RoomStatus
    host_id: str | None
    players: list[Player]
    version: int
    game: Game | None
    games: list[GameSummary]
    best: dict[str, dict[str, int]]
    series: list[SeriesLine]
    rematch: Rematch | None
    """None unless the room's last game is finished"""


# -- actions ----------------------------------------------------------------------------------


class RollAction(TypedDict):
    type: Literal["roll"]
    keep: NotRequired[list[int] | None]
    id: NotRequired[str | None]
    expected_version: NotRequired[int | None]


class KeepAction(TypedDict):
    type: Literal["keep"]
    dice: list[int]
    id: NotRequired[str | None]
    expected_version: NotRequired[int | None]


class ScoreAction(TypedDict):
    type: Literal["score"]
    box: str
    id: NotRequired[str | None]
    expected_version: NotRequired[int | None]


Action: TypeAlias = RollAction | KeepAction | ScoreAction

# -- events -----------------------------------------------------------------------------------


class PlayerData(TypedDict):
    player: Player


class RoomClosedData(TypedDict):
    reason: Literal["no_players"]


class GameStartedData(TypedDict):
    number: int
    order: list[str]
    rolloff: list[list[RolloffEntry]]
    commitment: str


class TurnStartedData(TypedDict):
    player_id: str
    round: int
    deadline: str | None


class SeatData(TypedDict):
    player_id: str


class KeptData(TypedDict):
    kept: list[bool]


class RolledData(TypedDict):
    dice: list[int]
    kept: list[bool]
    rolls_left: int


class ScoredData(TypedDict):
    box: str
    points: int
    yahtzee_bonus: int
    upper_bonus: int
    total: int


class GameFinishedData(TypedDict):
    totals: dict[str, int]
    winners: list[str]
    seed: str
    reason: NotRequired[Literal["completed", "resigned"]]
    """resigned: every other person had resigned (absent from games finished before it was kept)"""


class PlayerJoined(TypedDict):
    version: int
    type: Literal["player_joined"]
    player_id: str | None
    data: PlayerData
    at: str


class PlayerLeft(TypedDict):
    version: int
    type: Literal["player_left"]
    player_id: str | None
    data: PlayerData
    at: str


class SeatTokenRotated(TypedDict):
    """The seat was taken back by its profile: the old seat token stops working."""

    version: int
    type: Literal["seat_token_rotated"]
    player_id: str | None
    data: PlayerData
    at: str


class RoomClosed(TypedDict):
    version: int
    type: Literal["room_closed"]
    player_id: str | None
    data: RoomClosedData
    at: str


class GameStarted(TypedDict):
    version: int
    type: Literal["game_started"]
    player_id: str | None
    data: GameStartedData
    at: str


class TurnStarted(TypedDict):
    version: int
    type: Literal["turn_started"]
    player_id: str | None
    data: TurnStartedData
    at: str


class Kept(TypedDict):
    version: int
    type: Literal["kept"]
    player_id: str | None
    data: KeptData
    at: str


class Rolled(TypedDict):
    version: int
    type: Literal["rolled"]
    player_id: str | None
    data: RolledData
    at: str


class Scored(TypedDict):
    version: int
    type: Literal["scored"]
    player_id: str | None
    data: ScoredData
    at: str


class GameFinished(TypedDict):
    version: int
    type: Literal["game_finished"]
    player_id: str | None
    data: GameFinishedData
    at: str


class TurnTimedOut(TypedDict):
    """The turn clock ran out: the autopilot plays the turn."""

    version: int
    type: Literal["turn_timed_out"]
    player_id: str | None
    data: SeatData
    at: str


class AbsentData(TypedDict):
    player_id: str
    deadline: str
    """when the seat becomes away unless its person comes back (ISO-8601 UTC)"""


class PlayerAbsent(TypedDict):
    """Untimed room: the person whose turn it is has gone; the seat is away at ``data["deadline"]``."""

    version: int
    type: Literal["player_absent"]
    player_id: str | None
    data: AbsentData
    at: str


class PlayerAway(TypedDict):
    """Two timeouts in a row: the autopilot plays the seat's turns until it acts or reconnects."""

    version: int
    type: Literal["player_away"]
    player_id: str | None
    data: SeatData
    at: str


class PlayerBack(TypedDict):
    version: int
    type: Literal["player_back"]
    player_id: str | None
    data: SeatData
    at: str


class RematchData(TypedDict):
    game: int
    ready: list[str]
    waiting: list[str]


class RematchAccepted(TypedDict):
    """The seat accepted to play again; once ``waiting`` is empty the next game's ``game_started`` follows."""

    version: int
    type: Literal["rematch_accepted"]
    player_id: str | None
    data: RematchData
    at: str


class PlayerResigned(TypedDict):
    """The seat resigned: the autopilot finishes its scorecard; it cannot win."""

    version: int
    type: Literal["player_resigned"]
    player_id: str | None
    data: SeatData
    at: str


Reaction: TypeAlias = Literal["👍", "👏", "😂", "😮", "😢", "🎉", "🔥", "🎲"]
REACTIONS: tuple[Reaction, ...] = ("👍", "👏", "😂", "😮", "😢", "🎉", "🔥", "🎲")


class HintUsedData(TypedDict):
    player_id: str
    round: int
    rolls_left: int


class HintUsed(TypedDict):
    """The seat asked a hint about its current roll (never the advice itself)."""

    version: int
    type: Literal["hint_used"]
    player_id: str | None
    data: HintUsedData
    at: str


class ChatData(TypedDict):
    """Exactly one of the two: ``text`` (user content: show it as text) or ``reaction``."""

    text: NotRequired[str]
    reaction: NotRequired[Reaction]


class Chat(TypedDict):
    version: int
    type: Literal["chat"]
    player_id: str | None
    data: ChatData
    at: str


class PlayerMuted(TypedDict):
    """The host (``player_id``) muted the seat ``data["player_id"]``'s chat."""

    version: int
    type: Literal["player_muted"]
    player_id: str | None
    data: SeatData
    at: str


class PlayerUnmuted(TypedDict):
    version: int
    type: Literal["player_unmuted"]
    player_id: str | None
    data: SeatData
    at: str


Event: TypeAlias = (
    PlayerJoined
    | PlayerLeft
    | SeatTokenRotated
    | RoomClosed
    | GameStarted
    | TurnStarted
    | Kept
    | Rolled
    | Scored
    | GameFinished
    | TurnTimedOut
    | PlayerAbsent
    | PlayerAway
    | PlayerBack
    | PlayerResigned
    | RematchAccepted
    | HintUsed
    | Chat
    | PlayerMuted
    | PlayerUnmuted
)
EVENT_TYPES = (
    "player_joined",
    "player_left",
    "seat_token_rotated",
    "room_closed",
    "game_started",
    "turn_started",
    "kept",
    "rolled",
    "scored",
    "game_finished",
    "turn_timed_out",
    "player_absent",
    "player_away",
    "player_back",
    "player_resigned",
    "rematch_accepted",
    "hint_used",
    "chat",
    "player_muted",
    "player_unmuted",
)

# Protocol 2 leaves out the data of turn_started, kept and rolled when the room,
# once patched, is the room at the event's version (it is all in the room): the
# store puts it back (see fill_data), so subscribers always get an Event.


class TurnStartedV2(TypedDict):
    version: int
    type: Literal["turn_started"]
    player_id: str | None
    data: NotRequired[TurnStartedData]
    at: str


class KeptV2(TypedDict):
    version: int
    type: Literal["kept"]
    player_id: str | None
    data: NotRequired[KeptData]
    at: str


class RolledV2(TypedDict):
    version: int
    type: Literal["rolled"]
    player_id: str | None
    data: NotRequired[RolledData]
    at: str


EventV2: TypeAlias = (
    PlayerJoined
    | PlayerLeft
    | SeatTokenRotated
    | RoomClosed
    | GameStarted
    | TurnStartedV2
    | KeptV2
    | RolledV2
    | Scored
    | GameFinished
    | TurnTimedOut
    | PlayerAbsent
    | PlayerAway
    | PlayerBack
    | PlayerResigned
    | RematchAccepted
    | HintUsed
    | Chat
    | PlayerMuted
    | PlayerUnmuted
)
"""An event as protocol 2's ``event`` message carries it."""

COMPACT_EVENT_TYPES = ("turn_started", "kept", "rolled")
"""The event types whose ``data`` protocol 2 may leave out."""


def fill_data(event: EventV2 | Event, room: Room) -> Event:
    """``event`` with its ``data``: as it came, or (a protocol 2 event that left
    it out) read from ``room``, which must be the room at the event's version.
    Raises ``ValueError`` when the data is missing and cannot be read there."""
    if "data" in event:
        return cast(Event, event)
    game = room["game"]
    turn = game["turn"] if game is not None else None
    if event["type"] not in COMPACT_EVENT_TYPES or room["version"] != event["version"] or turn is None:
        raise ValueError(f"event {event['version']} ({event['type']}) has no data, and room {room['version']} lacks it")
    assert game is not None
    data: dict[str, Any]
    if event["type"] == "turn_started":
        data = {"player_id": turn["player_id"], "round": game["round"], "deadline": game["deadline"]}
    elif event["type"] == "kept":
        data = {"kept": list(turn["kept"])}
    else:
        if turn["dice"] is None:
            raise ValueError(f"event {event['version']} (rolled) has no data, and the room's turn no dice")
        data = {"dice": list(turn["dice"]), "kept": list(turn["kept"]), "rolls_left": turn["rolls_left"]}
    return cast(Event, {**event, "data": data})


# -- socket messages (server to client) -------------------------------------------------------


PatchOp = TypedDict(
    "PatchOp",
    {
        "op": Literal["add", "remove", "replace", "move", "copy", "test"],
        "path": str,
        "value": NotRequired[Any],
        "from": NotRequired[str],
    },
)
"""One RFC 6902 operation (the server sends ``add``, ``remove`` and ``replace``)."""


class Welcome(TypedDict):
    type: Literal["welcome"]
    protocol: Literal[1, 2]
    you: Player | None
    room: Room


class EventMessageV1(TypedDict):
    type: Literal["event"]
    event: Event
    room: Room | None


class EventMessageV2(TypedDict):
    type: Literal["event"]
    event: EventV2
    patch: list[PatchOp]


class Presence(TypedDict):
    type: Literal["presence"]
    player_id: str
    connected: bool


class Ack(TypedDict):
    type: Literal["ack"]
    id: str | None
    version: int


class SocketError(TypedDict):
    type: Literal["error"]
    id: str | None
    code: str
    detail: str


class Pong(TypedDict):
    type: Literal["pong"]


# -- REST answers -----------------------------------------------------------------------------


class Created(TypedDict):
    room: Room
    player: Player
    token: str


class Joined(TypedDict):
    player: Player
    token: str


class QuickPlayed(TypedDict):
    """``POST /api/quickplay``: the room joined (or opened: ``created``) and the seat."""

    room: Room
    player: Player
    token: str
    created: bool


class PublicRoom(TypedDict):
    code: str
    ruleset: Ruleset
    options: RoomOptions
    players: list[Player]
    max_players: int
    created: str


class PublicRooms(TypedDict):
    """``GET /api/rooms``: public lobby rooms with a free seat, newest first; ``next`` pages on."""

    rooms: list[PublicRoom]
    next: str | None


class ActionResult(TypedDict):
    version: int
    events: list[Event]
    room: Room


class EventsPage(TypedDict):
    events: list[Event]
    version: int
    more: bool


class Box(TypedDict):
    id: str
    label: str
    section: Literal["upper", "lower"]


class RulesetOption(TypedDict):
    default: str | bool
    choices: list[str | bool]


class RulesetInfo(TypedDict):
    name: Ruleset
    label: str
    rounds: int
    boxes: list[Box]
    options: dict[str, RulesetOption]


class KeepHint(TypedDict):
    dice: list[int]
    values: list[int]
    ev: float


class BoxHint(TypedDict):
    box: str
    points: int
    ev: float


class PushKeys(TypedDict):
    p256dh: str
    """The browser's P-256 public key: base64url of the 65-byte uncompressed point."""
    auth: str
    """The browser's auth secret: base64url of 16 bytes."""


class PushSubscription(TypedDict):
    """A browser's ``PushSubscription.toJSON()`` (docs/api.md, "Turn notifications")."""

    endpoint: str
    keys: PushKeys
    expirationTime: NotRequired[float | None]


class Hint(TypedDict):
    rolls_left: int
    best: dict[str, Any]
    keeps: list[KeepHint]
    boxes: list[BoxHint]
