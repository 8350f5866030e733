"""A chat message's text: normalized like a name (:mod:`app.rooms.names`:
Unicode NFC, whitespace collapsed to single spaces and trimmed, no control or
invisible characters), then held to :data:`MAX_GRAPHEMES` user-perceived
characters and :data:`MAX_CODE_POINTS` code points (so at most
:data:`MAX_BYTES` bytes of UTF-8); and the fixed set of reactions."""

from __future__ import annotations

from app.rooms.names import TextRule, normalize_text

MAX_GRAPHEMES = 200
"""The longest message, in grapheme clusters (a family emoji or a Gujarati conjunct counts as one)."""
MAX_CODE_POINTS = 400
"""And at most this many code points."""
MAX_BYTES = 4 * MAX_CODE_POINTS
"""And so at most this many bytes in UTF-8 (a code point is at most 4): what the event log stores per message."""
MAX_INPUT = 1000
"""The longest text a request may carry, in code points, before normalizing (its size limit)."""

REACTIONS = ("👍", "👏", "😂", "😮", "😢", "🎉", "🔥", "🎲")
"""The reactions a seat may send (one code point each, no variation selectors)."""

CHAT = TextRule(
    "text", "a chat message", MAX_GRAPHEMES, MAX_CODE_POINTS, MAX_INPUT, "chat_empty", "chat_too_long", "chat_invalid"
)


def normalize_chat(raw: str) -> str:
    """The message ``raw`` stands for, or a :class:`DomainError` (422) with
    ``chat_empty``, ``chat_too_long`` or ``chat_invalid``."""
    return normalize_text(raw, CHAT)
