"""Password hashes: Argon2id (argon2-cffi's defaults, RFC 9106's low-memory
profile), computed off the event loop."""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_HASHER = PasswordHasher()

# Verified when the username is unknown, so that a wrong username costs as
# long as a wrong password (no user enumeration through timing).
_DUMMY = _HASHER.hash("dicecup: no such user")


def _verify(hashed: str | None, password: str) -> bool:
    try:
        return _HASHER.verify(hashed or _DUMMY, password) and hashed is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


async def hash_password(password: str) -> str:
    return await asyncio.to_thread(_HASHER.hash, password)


async def verify_password(hashed: str | None, password: str) -> bool:
    """Whether ``password`` matches ``hashed``; ``None`` (no such user) checks
    a dummy hash first, taking as long, and is false."""
    return await asyncio.to_thread(_verify, hashed, password)
