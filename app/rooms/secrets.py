"""Room codes, player ids and seat tokens."""

from __future__ import annotations

import hashlib
import secrets

# No 0/O, 1/I/L: a code read aloud or copied from a phone is never ambiguous.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6  # 31**6 ~ 8.9e8 codes: not guessable by walking through them


def new_room_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    return code.strip().upper()


_CODE_CHARS = frozenset(CODE_ALPHABET)


def lookup_code(code: str) -> str | None:
    """``code`` normalized, or ``None`` if no room can have it (the wrong
    length, or a character outside the alphabet: NUL included), so that such
    a code is refused without asking the database."""
    normalized = normalize_code(code)
    if len(normalized) != CODE_LENGTH or not _CODE_CHARS.issuperset(normalized):
        return None
    return normalized


PLAYER_ID_LENGTH = 12  # 9 random bytes, URL-safe base64
_PLAYER_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def new_player_id() -> str:
    return secrets.token_urlsafe(9)


def possible_player_id(player_id: str) -> bool:
    """Whether a seat can have this id (any other is refused without a query)."""
    return len(player_id) == PLAYER_ID_LENGTH and _PLAYER_ID_CHARS.issuperset(player_id)


def new_token() -> str:
    """A 256-bit seat token. Only its SHA-256 is stored."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
