"""Request bodies (validated) and response shapes (documented in OpenAPI).

Responses are built by the service as plain dicts and encoded once with
orjson; these models describe them for ``/openapi.json`` and ``/docs``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

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
Position = Annotated[int, Field(ge=0, le=4)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateRoom(_Body):
    ruleset: Literal["yahtzee", "yacht"] = "yahtzee"
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="rule-set options (yahtzee: joker forced|free, upper_first) and hints (bool)",
        examples=[{"joker": "forced", "upper_first": False, "hints": True}],
    )
    max_players: int = Field(4, ge=1, le=MAX_PLAYERS)
    name: Name

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"ruleset": "yacht", "name": "Ana", "max_players": 2}]}
    )


class JoinRoom(_Body):
    name: Name


class AddBot(_Body):
    level: Literal["optimal", "strong", "casual", "greedy"] = Field(
        "optimal", description="optimal: exact best play; strong and casual: realistic mistakes; greedy: this turn only"
    )


def _positions(value: list[int] | None) -> list[int] | None:
    if value is not None and len(set(value)) != len(value):
        raise ValueError("a dice position is listed twice")
    return value


# Dice positions: 0-4, each at most once (the schema's uniqueItems; checked by _positions).
_POSITIONS: dict[str, Any] = {"max_length": 5, "json_schema_extra": {"uniqueItems": True}}


class _Action(_Body):
    expected_version: int | None = Field(
        None, ge=0, le=MAX_INT, description="refused with stale_version if the room moved on"
    )
    id: ClientId | None = None


class RollAction(_Action):
    type: Literal["roll"]
    keep: list[Position] | None = Field(None, description="shorthand: set the kept positions, then roll", **_POSITIONS)

    _check = field_validator("keep")(_positions)


class KeepAction(_Action):
    type: Literal["keep"]
    dice: list[Position] = Field(description="positions 0-4 to keep; replaces the kept set", **_POSITIONS)

    _check = field_validator("dice")(_positions)


class ScoreAction(_Action):
    type: Literal["score"]
    box: Box


ActionBody = Annotated[RollAction | KeepAction | ScoreAction, Field(discriminator="type")]


class Error(BaseModel):
    detail: str
    code: str
    errors: list[dict[str, Any]] | None = None


class PlayerOut(BaseModel):
    id: str
    name: str
    seat: int | None
    bot: str | None
    connected: bool
    host: bool


class TurnOut(BaseModel):
    player_id: str
    dice: list[int] | None
    kept: list[bool]
    rolls_left: int
    scorable: dict[str, int]


class ScorecardOut(BaseModel):
    boxes: dict[str, int | None]
    upper_total: int
    upper_bonus: int
    lower_total: int
    yahtzee_bonus: int
    total: int


class RolloffEntryOut(BaseModel):
    player_id: str
    dice: list[int]
    total: int


class FairnessOut(BaseModel):
    commitment: str
    seed: str | None


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


class GameSummary(BaseModel):
    number: int
    totals: dict[str, int]
    winners: list[str]


class RoomOut(BaseModel):
    code: str
    ruleset: str
    options: dict[str, Any]
    max_players: int
    status: Literal["lobby", "playing", "finished", "closed"]
    host_id: str | None
    players: list[PlayerOut]
    version: int
    game: GameOut | None
    games: list[GameSummary]
    best: dict[str, dict[str, int]] = Field(description="each player's best total per rule set in this room")


class EventOut(BaseModel):
    version: int
    type: str
    player_id: str | None
    data: dict[str, Any]
    at: str


class Created(BaseModel):
    room: RoomOut
    player: PlayerOut
    token: str


class Joined(BaseModel):
    player: PlayerOut
    token: str


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
    default: Any
    choices: list[Any]


class RulesetOut(BaseModel):
    name: str
    label: str
    rounds: int
    boxes: list[BoxOut]
    options: dict[str, OptionOut]


class BotOut(BaseModel):
    player: PlayerOut


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
    best: dict[str, Any] = Field(examples=[{"type": "keep", "dice": [0, 1, 2, 3]}, {"type": "score", "box": "chance"}])
    keeps: list[KeepHint]
    boxes: list[BoxHint]
