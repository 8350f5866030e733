"""Chat and reactions: short messages and a fixed set of emoji as room events
(``chat``), the host's mute (``player_muted``, ``player_unmuted``) and the
room option ``chat``. Built on the rooms service's one way of writing to a
room (:meth:`RoomService.change`); it never touches the game."""

from .service import Chat
from .text import MAX_BYTES, MAX_GRAPHEMES, REACTIONS, normalize_chat

__all__ = ["MAX_BYTES", "MAX_GRAPHEMES", "REACTIONS", "Chat", "normalize_chat"]
