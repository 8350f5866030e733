"""Request bodies (validated) and response shapes (documented in OpenAPI).

Responses are built by the service as plain dicts and encoded once with
orjson; these models describe them for ``/openapi.json`` and ``/docs``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    field_validator,
)

from app.rooms.errors import ErrorCode
from app.rules import MAX_PLAYERS

MAX_INT = 2**31 - 1
"""The largest integer any request may carry (PostgreSQL's ``integer``, the
columns' type): a larger one is refused (422) before it reaches the database."""

TEXT_PATTERN = r"^[^\x00-\x1F\x7F-\x9F]*$"
"""Text in requests has no control characters (C0, DEL, C1; NUL included)."""
_CONTROL = re.compile(r"[\x00-\x1F\x7F-\x9F]")


def _text(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("control characters are not allowed")
    return value


_NO_CONTROL = AfterValidator(_text)
_PATTERN = Field(json_schema_extra={"pattern": TEXT_PATTERN})

Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=32),
    _NO_CONTROL,
    _PATTERN,
    Field(description="1-32 characters after trimming outer whitespace; no control characters", examples=["Ana"]),
]
PlayerName = Annotated[
    str,
    StringConstraints(max_length=256),
    Field(
        description="a player's name: Unicode NFC, whitespace collapsed and trimmed, 1-32 grapheme clusters, "
        "no control or invisible characters; refused with name_empty, name_too_long or name_invalid "
        "(docs/api.md, Names)",
        examples=["Ana"],
    ),
]
ClientId = Annotated[
    str,
    StringConstraints(min_length=1, max_length=64),
    _NO_CONTROL,
    _PATTERN,
    Field(description="client id for idempotency"),
]
Box = Annotated[
    str, StringConstraints(min_length=1, max_length=32), _NO_CONTROL, _PATTERN, Field(examples=["full_house"])
]
Position = Annotated[StrictInt, Field(ge=0, le=4)]
"""A die's position: a JSON integer (``"0"``, ``0.0`` or ``true`` is a wrong type: 422)."""
Ruleset = Literal["yahtzee", "yacht", "yatzy"]
Level = Literal["optimal", "strong", "casual", "beginner", "greedy"]
BotSpeed = Literal["slow", "normal", "fast", "instant"]
BOT_SPEED_HELP = (
    "how fast the room's bots (and the autopilot) play: normal (about 4-5 s a bot's turn), slow (1.75 times "
    "as long), fast (about a third), instant (no thinking time). Anything else: invalid_request (422)"
)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateOptions(_Body):
    """Options of a new room; those left out take their defaults. ``joker``
    and ``upper_first`` are Yahtzee's (refused for Yacht and Yatzy)."""

    joker: Literal["forced", "free"] = "forced"
    upper_first: StrictBool = False
    hints: StrictBool | None = Field(
        None,
        description="hints for the player whose turn it is (GET /api/rooms/{code}/hint; each hinted roll is "
        "recorded as hint_used). Left out or null: true when max_players is 1, false otherwise",
    )
    chat: StrictBool = Field(True, description="chat and reactions (POST /api/rooms/{code}/chat); false: chat_disabled")
    turn_seconds: StrictInt | None = Field(
        None,
        description="the turn clock: seconds a person has for each turn (10 to 604800), after which the "
        "autopilot plays it (turn_timed_out); null: untimed. Out of range: turn_seconds_out_of_range (422)",
        json_schema_extra={"minimum": 10, "maximum": 604_800},
    )
    public: StrictBool = Field(False, description="listed by GET /api/rooms while in the lobby with a free seat")
    auto_start: StrictBool = Field(False, description="the game starts by itself when the last seat is taken")
    bot_speed: BotSpeed = Field("normal", description=BOT_SPEED_HELP)


class CreateRoom(_Body):
    ruleset: Ruleset = "yahtzee"
    options: CreateOptions = Field(
        default_factory=CreateOptions, examples=[{"joker": "forced", "upper_first": False, "hints": True}]
    )
    max_players: int = Field(4, ge=1, le=MAX_PLAYERS)
    name: PlayerName
    bots: list[Level] = Field(
        default_factory=list,
        max_length=MAX_PLAYERS - 1,
        description="seat a bot of each level with the creator (at most max_players - 1 of them, else "
        "invalid_request): play against the computer",
    )
    start: StrictBool = Field(False, description="start Game #1 at once (with bots: one call to a game under way)")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"ruleset": "yacht", "name": "Ana", "max_players": 2},
                {"ruleset": "yahtzee", "name": "Ana", "max_players": 2, "bots": ["strong"], "start": True},
            ]
        },
    )


class Rematch(_Body):
    """Accept to play again after a game (the room's last, finished)."""

    game: int = Field(ge=1, le=MAX_INT, description="the number of the game just finished", examples=[1])


class JoinRoom(_Body):
    name: PlayerName


class QuickPlay(_Body):
    """Join the oldest public lobby room of the rule set with a free seat, or open a public one."""

    ruleset: Ruleset = "yahtzee"
    name: Name
    max_players: int = Field(2, ge=2, le=MAX_PLAYERS, description="the seats of a room quick play opens")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"ruleset": "yacht", "name": "Ana"}]})


ChatText = Annotated[
    str,
    StringConstraints(max_length=1000),
    Field(
        description="a message: Unicode NFC, whitespace collapsed and trimmed, 1-200 grapheme clusters (at most 400 "
        "code points), no control or invisible characters; refused with chat_empty, chat_too_long or chat_invalid "
        "(docs/api.md, Chat)",
        examples=["good luck!"],
    ),
]
Reaction = Literal["👍", "👏", "😂", "😮", "😢", "🎉", "🔥", "🎲"]


class ChatTextBody(_Body):
    text: ChatText
    id: ClientId | None = Field(None, description="echoed in the socket's ack or error")


class ChatReactionBody(_Body):
    reaction: Reaction = Field(description="one of the fixed set of reactions")
    id: ClientId | None = Field(None, description="echoed in the socket's ack or error")


ChatBody = ChatTextBody | ChatReactionBody


class AddBot(_Body):
    level: Literal["optimal", "strong", "casual", "beginner", "greedy"] = Field(
        "optimal",
        description="optimal: exact best play; strong and casual: realistic mistakes; beginner: a beginner's "
        "mistakes (chasing sets, neglecting the upper bonus); greedy: this turn only",
    )


def _positions(value: list[int] | None) -> list[int] | None:
    if value is not None and len(set(value)) != len(value):
        raise ValueError("a dice position is listed twice")
    return value


# Dice positions: 0-4, each at most once (the schema's uniqueItems; checked by _positions).
Positions = Annotated[list[Position], Field(max_length=5, json_schema_extra={"uniqueItems": True})]


class _Action(_Body):
    # strict: a JSON value of the wrong type is refused (422), never converted
    model_config = ConfigDict(extra="forbid", strict=True)

    expected_version: int | None = Field(
        None, ge=0, le=MAX_INT, description="refused with stale_version if the room moved on"
    )
    id: ClientId | None = None


class RollAction(_Action):
    type: Literal["roll"]
    keep: Positions | None = Field(None, description="shorthand: set the kept positions, then roll")

    _check = field_validator("keep")(_positions)


class KeepAction(_Action):
    type: Literal["keep"]
    dice: Positions = Field(description="positions 0-4 to keep; replaces the kept set")

    _check = field_validator("dice")(_positions)


class ScoreAction(_Action):
    type: Literal["score"]
    box: Box


ActionBody = Annotated[RollAction | KeepAction | ScoreAction, Field(discriminator="type")]


class ErrorItem(BaseModel):
    type: str = Field(description="what was wrong, for programs (pydantic's error type)", examples=["missing"])
    loc: list[str] = Field(description="where: body, query or path, then the field", examples=[["body", "name"]])
    msg: str = Field(description="what was wrong, for people")


class Error(BaseModel):
    """Every error body. The ``error`` messages of the WebSocket carry the same codes."""

    detail: str = Field(description="a sentence for people")
    code: ErrorCode
    errors: list[ErrorItem] = Field(
        default_factory=list, description="422 only: each problem found in the request (absent otherwise)"
    )


class SocketError(BaseModel):
    """The WebSocket's ``error`` message (not an HTTP response): the same codes as :class:`Error`."""

    type: Literal["error"]
    id: str | None = Field(description="the action's id, if it had one")
    code: ErrorCode
    detail: str


RATE_LIMITED: dict[str, Any] = {
    "model": Error,
    "description": "rate_limited: over a budget (per address, per seat); retry after Retry-After seconds",
    "headers": {
        "Retry-After": {
            "description": "seconds until the budget lets the client in again",
            "required": True,
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}


LIMITER_UNAVAILABLE: dict[str, Any] = {
    "model": Error,
    "description": "rate_limiter_unavailable: with DICECUP_RATE_LIMITS_FAIL=closed, the shared rate limiter (Redis) "
    "does not answer, so a request it would count is refused; retry after Retry-After seconds",
    "headers": {
        "Retry-After": {
            "description": "seconds to wait before trying again",
            "required": False,
            "schema": {"type": "integer", "minimum": 1},
        }
    },
}
"""Every rate-limited router's 503 (a route's own 503, strategy or push, is described where it is)."""


Face = Annotated[int, Field(ge=1, le=6)]
Dice = Annotated[list[Face], Field(min_length=5, max_length=5)]


class PlayerOut(BaseModel):
    id: str
    name: str
    seat: int | None = Field(description="0-based, in the room's seat order; null once the player has left")
    bot: Level | None = Field(description="the bot's level, or null for a person")
    connected: bool
    host: bool
    away: bool = Field(description="timed out twice in a row: the autopilot plays their turns until they are back")
    resigned: bool = Field(description="resigned from the current game: the autopilot finishes their scorecard")
    muted: bool = Field(description="the host muted this seat's chat (its chat is refused with muted)")


class TurnOut(BaseModel):
    player_id: str
    dice: Dice | None = Field(description="null before the turn's first roll")
    kept: Annotated[list[bool], Field(min_length=5, max_length=5)]
    rolls_left: Annotated[int, Field(ge=0, le=3)]
    scorable: dict[str, int] = Field(description="the boxes the player may fill now, with their points")


class ScorecardOut(BaseModel):
    boxes: dict[str, int | None]
    upper_total: int
    upper_bonus: int
    lower_total: int
    yahtzee_bonus: int
    total: int


class RolloffEntryOut(BaseModel):
    player_id: str
    dice: Dice
    total: int


class FairnessOut(BaseModel):
    commitment: str
    seed: str | None


GameEnd = Literal["completed", "resigned"]


class GameOut(BaseModel):
    number: int
    status: Literal["playing", "finished"]
    round: int
    order: list[str]
    rolloff: list[list[RolloffEntryOut]]
    turn: TurnOut | None
    scorecards: dict[str, ScorecardOut]
    winners: list[str]
    fairness: FairnessOut
    deadline: str | None = Field(
        json_schema_extra={"format": "date-time"},
        description="when the current turn times out (option turn_seconds); null: untimed, the autopilot's turn, "
        "or the game is over",
    )
    hints: dict[str, int] = Field(
        description="each player's hinted rolls in this game (hint_used events), every player of the game listed"
    )
    absent_deadline: str | None = Field(
        json_schema_extra={"format": "date-time"},
        description="untimed rooms: the person whose turn it is has no socket open; at this time their seat becomes "
        "away (the autopilot plays) unless they come back; null otherwise",
    )
    ended: GameEnd | None = Field(
        description="null while the game is played; completed: every card filled; resigned: it ended at once "
        "when every other person had resigned, cards as they stood"
    )


class GameSummary(BaseModel):
    number: int
    totals: dict[str, int]
    winners: list[str]
    resigned: list[str] = Field(description="the players who resigned from that game (they could not win)")
    ended: GameEnd = Field(description="completed, or resigned: it ended when every other person had resigned")


class RoomOptions(BaseModel):
    """A room's options: its rule set's (Yahtzee: ``joker``, ``upper_first``) and ``hints``."""

    model_config = ConfigDict(extra="forbid")

    joker: Literal["forced", "free"] = Field("forced", description="Yahtzee only")
    upper_first: bool = Field(False, description="Yahtzee only")
    hints: bool = Field(description="hints allowed (by default only in a solo room)")
    chat: bool = Field(True, description="chat and reactions allowed")
    turn_seconds: int | None = Field(None, description="the turn clock in seconds; null: untimed")
    public: bool = Field(False, description="listed by GET /api/rooms while in the lobby with a free seat")
    auto_start: bool = Field(False, description="the game starts by itself when the last seat is taken")
    bot_speed: BotSpeed = Field("normal", description=BOT_SPEED_HELP)


class SeriesLine(BaseModel):
    """One player's line of the room's score pad (its finished games side by side)."""

    player_id: str
    name: str | None = Field(description="the name they had (null: not known, a game finished before names were kept)")
    games: int = Field(description="finished games of this room the player played")
    total: int = Field(description="the series total: the sum of the player's totals over those games")
    wins: int = Field(description="of those games, how many the player won (or shared)")
    seated: bool = Field(description="false: the player has left the room")


class RematchOut(BaseModel):
    """Play again after the last game (null unless the room's last game is finished)."""

    game: int = Field(description="the game just finished")
    ready: list[str] = Field(description="seats that accepted (bots at once)")
    waiting: list[str] = Field(description="people still to accept; seats that resigned are not waited for")


class RoomOut(BaseModel):
    code: str
    ruleset: Ruleset
    options: RoomOptions
    max_players: Annotated[int, Field(ge=1, le=MAX_PLAYERS)]
    status: Literal["lobby", "playing", "finished", "closed"]
    host_id: str | None
    players: list[PlayerOut]
    version: int
    game: GameOut | None
    games: list[GameSummary]
    best: dict[str, dict[str, int]] = Field(description="each player's best total per rule set in this room")
    series: list[SeriesLine] = Field(
        description="the score pad: each player's series total over the room's finished games, seated players "
        "first in seat order"
    )
    rematch: RematchOut | None


class EventOut(BaseModel):
    version: int
    type: str = Field(
        description="player_joined, player_left, seat_token_rotated, room_closed, game_started, turn_started, kept, "
        "rolled, scored, game_finished, turn_timed_out, player_away, player_back, player_resigned, rematch_accepted, "
        "hint_used, chat, player_muted, player_unmuted "
        "(docs/api.md gives each one's data)"
    )
    player_id: str | None = Field(description="who caused it; null for game_finished and room_closed")
    data: dict[str, Any]
    at: str = Field(json_schema_extra={"format": "date-time"}, examples=["2026-11-29T12:30:32.955360Z"])


class ChatOut(BaseModel):
    event: EventOut = Field(description="the chat event as stored and published")


class Created(BaseModel):
    room: RoomOut
    player: PlayerOut
    token: str


class Joined(BaseModel):
    player: PlayerOut
    token: str


class QuickPlayed(BaseModel):
    room: RoomOut
    player: PlayerOut
    token: str
    created: bool = Field(
        description="true: no public room had a free seat, so this one was opened (public, auto_start)"
    )


class PublicRoomOut(BaseModel):
    code: str
    ruleset: Ruleset
    options: RoomOptions
    players: list[PlayerOut]
    max_players: Annotated[int, Field(ge=1, le=MAX_PLAYERS)]
    created: str = Field(json_schema_extra={"format": "date-time"})


class PublicRoomsOut(BaseModel):
    rooms: list[PublicRoomOut] = Field(description="public rooms in the lobby with a free seat, newest first")
    next: str | None = Field(description="the cursor of the next page; null: this was the last")


class ActionOut(BaseModel):
    version: int
    events: list[EventOut]
    room: RoomOut


class EventsOut(BaseModel):
    events: list[EventOut]
    version: int
    more: bool


class BoxOut(BaseModel):
    id: str
    label: str
    section: Literal["upper", "lower"]


class OptionOut(BaseModel):
    default: str | bool
    choices: list[str | bool]


class SectionOut(BaseModel):
    id: Literal["upper", "lower"]
    label: str


class UpperBonusOut(BaseModel):
    threshold: int = Field(description="the upper-section total that earns the bonus (63)")
    points: int = Field(description="the bonus (Yahtzee 35, Yatzy 50)")


class RulesetOut(BaseModel):
    name: Ruleset
    label: str
    rounds: int
    boxes: list[BoxOut]
    sections: list[SectionOut]
    """The scorecard's sections in scorecard order, with their labels."""
    options: dict[str, OptionOut]
    upper_bonus: UpperBonusOut | None = Field(description="the upper-section bonus; null: the rule set has none")
    yahtzee_bonus: int | None = Field(
        description="points for each extra Yahtzee after a 50 in the Yahtzee box; null: the rule set has none"
    )
    bot_levels: list[Level] = Field(description="the levels `POST /api/rooms/{code}/bots` takes, strongest first")


class BotOut(BaseModel):
    player: PlayerOut


class KeepBest(BaseModel):
    type: Literal["keep"]
    dice: list[Position] = Field(description="positions to keep, then roll")


class ScoreBest(BaseModel):
    type: Literal["score"]
    box: str


class KeepHint(BaseModel):
    dice: list[int] = Field(description="positions to keep")
    values: list[int] = Field(description="the faces kept")
    ev: float = Field(description="expected final total if kept (and play is optimal after)")


class BoxHint(BaseModel):
    box: str
    points: int
    ev: float


class HintOut(BaseModel):
    rolls_left: int
    best: Annotated[KeepBest | ScoreBest, Field(discriminator="type")] = Field(
        examples=[{"type": "keep", "dice": [0, 1, 2, 3]}, {"type": "score", "box": "chance"}]
    )
    keeps: list[KeepHint]
    boxes: list[BoxHint]


class ChoiceOut(BaseModel):
    """A keep (the faces kept, then a roll) or a box (with its points)."""

    type: Literal["keep", "score"]
    values: list[Face] | None = Field(None, description="keep: the faces kept")
    box: str | None = Field(None, description="score: the box")
    points: int | None = Field(None, description="score: the box's points")


class DecisionOut(BaseModel):
    player_id: str
    round: int = Field(description="the player's own turn number, from 1")
    roll: Annotated[int, Field(ge=1, le=3)] = Field(description="the decision followed this roll of the turn")
    dice: Dice
    rolls_left: Annotated[int, Field(ge=0, le=2)]
    kind: Literal["keep", "score"]
    choice: ChoiceOut
    ev: float = Field(description="expected final total after the choice made (optimal play after it)")
    best: ChoiceOut
    best_ev: float = Field(description="expected final total after the best choice")
    loss: float = Field(ge=0, description="best_ev - ev")


class SeatAnalysisOut(BaseModel):
    player_id: str
    name: str
    total: int
    decisions: int
    optimal_decisions: int
    accuracy: float = Field(ge=0, le=100, description="percent of decisions that were optimal")
    total_loss: float = Field(ge=0, description="expected points lost over the game")
    mean_loss: float = Field(ge=0, description="expected points lost per decision")
    worst: list[DecisionOut] = Field(description="the (up to) three most costly decisions, with what was best")
    resigned: bool = Field(
        False,
        description="the seat resigned: only its decisions before resigning are valued (not the autopilot's after)",
    )


class AnalysisOut(BaseModel):
    number: int
    ruleset: Ruleset
    optimal_expected: float = Field(description="the optimum's expected total from an empty scorecard")
    seats: list[SeatAnalysisOut]
    decisions: list[DecisionOut] = Field(description="every decision, seat by seat, in the order made")


class ChancePlayerOut(BaseModel):
    player_id: str
    total: int = Field(description="points so far")
    expected: float = Field(description="expected final total under optimal play from here (exact)")
    chance: float = Field(ge=0, le=1, description="probability of winning (a shared win counts as a split)")


class ChancesOut(BaseModel):
    number: int = Field(description="the game")
    version: int = Field(description="the room version they were computed at")
    status: Literal["playing", "finished"]
    method: Literal["normal_mixture", "monte_carlo"] = Field(
        description="normal_mixture: each player's next turn exactly, then a normal with the exact mean and variance "
        "of the state it leads to (exact for players with at most exact_open_boxes open boxes); monte_carlo: "
        "rollouts for every player (while the variance table is still being loaded or computed)"
    )
    rollouts: int = Field(description="with monte_carlo, simulated games per player position")
    exact_open_boxes: int | None = Field(
        description="with normal_mixture, players with at most this many open boxes get their exact distribution"
    )
    players: list[ChancePlayerOut] = Field(description="in play order; the chances add up to 1")
