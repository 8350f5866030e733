"""Python client for Dicecup: the REST API, a room's WebSocket (protocol 2
patches, resume, reconnect with backoff, actions with ids), typed events,
a room store with subscriptions, a bot API and a terminal client
(``dicecup-play``). See clients/python/README.md."""

from .bots import BOTS, Bot, GreedyBot, play_bot, run_bot
from .connection import Backoff, RoomConnection
from .errors import (
    CLOSE_CODE_MEANINGS,
    FATAL_CLOSE_CODES,
    CloseCode,
    ConnectionStopped,
    DicecupError,
    ErrorCode,
    StopReason,
)
from .patch import PatchError, apply_patch
from .rest import DicecupClient, socket_url
from .store import RoomStore
from .types import (
    BOT_LEVELS,
    EVENT_TYPES,
    REACTIONS,
    RULESETS,
    Action,
    BotLevel,
    Event,
    Game,
    Player,
    PushSubscription,
    Reaction,
    Room,
    Ruleset,
    Turn,
)

__version__ = "0.1.0"

__all__ = [
    "BOTS",
    "BOT_LEVELS",
    "CLOSE_CODE_MEANINGS",
    "EVENT_TYPES",
    "FATAL_CLOSE_CODES",
    "REACTIONS",
    "RULESETS",
    "Action",
    "Backoff",
    "Bot",
    "BotLevel",
    "CloseCode",
    "ConnectionStopped",
    "DicecupClient",
    "DicecupError",
    "ErrorCode",
    "Event",
    "Game",
    "GreedyBot",
    "PatchError",
    "Player",
    "PushSubscription",
    "Reaction",
    "Room",
    "RoomConnection",
    "RoomStore",
    "Ruleset",
    "StopReason",
    "Turn",
    "apply_patch",
    "play_bot",
    "run_bot",
    "socket_url",
]
