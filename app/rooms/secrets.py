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


def new_player_id() -> str:
    return secrets.token_urlsafe(9)


def new_token() -> str:
    """A 256-bit seat token. Only its SHA-256 is stored."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
